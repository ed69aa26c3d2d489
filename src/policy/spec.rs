//! A policy spec, parsed once: `name` or `name[key=value,...]` (names and keys are case
//! insensitive, values kept as written), and the same spec split into the policy's own and
//! its scheduling interval (`round_s`), which is the mechanism's business.

use super::PolicyError;
use std::collections::BTreeMap;

/// The key of the parameter every policy takes: its own scheduling interval (s).
pub const INTERVAL_KEY: &str = "round_s";

/// A parsed spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The policy's name, in lower case.
    pub name: String,
    /// Its parameters by key (lower case).
    pub params: BTreeMap<String, String>,
}

impl Spec {
    /// Parse `name[key=value,...]`: a name of letters, digits, `_` and `-`, and keys each
    /// given once.
    pub fn parse(spec: &str) -> Result<Spec, PolicyError> {
        let syntax = || PolicyError::Syntax(spec.to_string());
        let s = spec.trim();
        let (name, rest) = match s.find('[') {
            Some(i) => {
                let inner = s[i + 1..].strip_suffix(']').ok_or_else(syntax)?;
                (&s[..i], Some(inner))
            }
            None => (s, None),
        };
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(syntax());
        }
        let mut params = BTreeMap::new();
        if let Some(inner) = rest {
            for kv in inner.split(',').map(str::trim).filter(|kv| !kv.is_empty()) {
                let (k, v) = kv.split_once('=').ok_or_else(syntax)?;
                let k = k.trim().to_ascii_lowercase();
                if k.is_empty() || params.insert(k, v.trim().to_string()).is_some() {
                    return Err(syntax());
                }
            }
        }
        Ok(Spec { name, params })
    }

    /// The spec in canonical form: `name`, or `name[k=v,...]` with the keys in order.
    pub fn text(&self) -> String {
        spec_text(&self.name, &self.params)
    }

    /// The spec split into the policy's own and its interval: refused unless the interval
    /// is a number of seconds from 1 to 86,400.
    pub fn split(mut self) -> Result<Split, PolicyError> {
        let Some(text) = self.params.remove(INTERVAL_KEY) else {
            return Ok(Split {
                spec: self,
                interval: None,
                interval_text: None,
            });
        };
        let v: f64 = text.parse().map_err(|_| PolicyError::Param {
            policy: self.name.clone(),
            param: INTERVAL_KEY.into(),
            reason: format!("'{text}' is not a number of seconds"),
        })?;
        if !(v.is_finite() && (1.0..=86_400.0).contains(&v)) {
            return Err(PolicyError::Param {
                policy: self.name,
                param: INTERVAL_KEY.into(),
                reason: format!("{text} s is outside 1 to 86,400 s"),
            });
        }
        Ok(Split {
            spec: self,
            interval: Some(v),
            interval_text: Some(text),
        })
    }
}

/// A spec split into the policy's own spec and its scheduling interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The policy's own spec, without `round_s`.
    pub spec: Spec,
    /// The interval (s), when the spec sets one.
    pub interval: Option<f64>,
    /// The interval as written, for the run's name.
    interval_text: Option<String>,
}

impl Split {
    /// Parse `spec` and split it ([`Spec::split`]).
    pub fn parse(spec: &str) -> Result<Split, PolicyError> {
        Spec::parse(spec)?.split()
    }

    /// The run's name: the policy's canonical spec `name` with the interval put back in
    /// (keys sorted), e.g. `max_sum_throughput_perf[round_s=360]`.
    pub fn name_with_interval(&self, name: &str) -> String {
        let Some(text) = &self.interval_text else {
            return name.to_string();
        };
        let Ok(mut base) = Spec::parse(name) else {
            return name.to_string();
        };
        base.params.insert(INTERVAL_KEY.to_string(), text.clone());
        base.text()
    }
}

/// The spec text of `name` with `values`: `name`, or `name[k=v,...]` with the keys in
/// order.
pub fn spec_text(name: &str, values: &BTreeMap<String, String>) -> String {
    if values.is_empty() {
        return name.to_string();
    }
    let kv: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}[{}]", kv.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_once_and_split_their_interval() {
        let s = Spec::parse("Max_Min_Fairness_perf[ solver_tol = 1e-9 ]").unwrap();
        assert_eq!(s.name, "max_min_fairness_perf");
        assert_eq!(s.params["solver_tol"], "1e-9");
        assert_eq!(s.text(), "max_min_fairness_perf[solver_tol=1e-9]");
        for bad in ["las[x]", "las[x=1", "", "l as", "las[x=1,x=2]"] {
            assert!(
                matches!(Spec::parse(bad), Err(PolicyError::Syntax(_))),
                "{bad}"
            );
        }
        let s = Split::parse("tiresias[threshold_gpu_h=8, round_s=60]").unwrap();
        assert_eq!(s.spec.text(), "tiresias[threshold_gpu_h=8]");
        assert_eq!(s.interval, Some(60.0));
        assert_eq!(
            s.name_with_interval("tiresias[threshold_gpu_h=8]"),
            "tiresias[round_s=60,threshold_gpu_h=8]"
        );
        let s = Split::parse("las").unwrap();
        assert_eq!((s.spec.text(), s.interval), ("las".to_string(), None));
        assert_eq!(s.name_with_interval("las"), "las");
    }
}
