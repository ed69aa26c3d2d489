//! A family's entries: the entry type ([`Registered`], with its [`Variant`]s), a spec's
//! parameters checked against an entry's ([`Params`]), and building a policy from a list of
//! entries; [`super::catalog`] joins the families' lists.

use super::papers::Paper;
use super::spec::spec_text;
use super::spec::Spec;
use super::{Policy, PolicyError};
use crate::sim::elastic::contract::ElasticPolicy;
use std::collections::BTreeMap;

/// One parameter of a policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamInfo {
    /// Key in the spec.
    pub name: &'static str,
    /// Default value, as text.
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// A registered policy of one simulator's kind: `P` is the trait its builder returns
/// (`dyn Policy` for round-based policies, `dyn ElasticPolicy`, `dyn PooledPolicy`,
/// `dyn PreemptivePolicy`).
pub struct Registered<P: ?Sized + 'static> {
    /// Name used in specs.
    pub name: &'static str,
    /// Family (classic, gavel, ...), for grouping in listings.
    pub family: &'static str,
    /// The paper its idea comes from.
    pub paper: &'static Paper,
    /// One-line description.
    pub description: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
    /// The rows the page offers it as beside its own (ablations from its paper); a policy
    /// whose variants include its plain name is offered as those variants only.
    pub variants: &'static [Variant],
    builder: fn(&Params) -> Result<Box<P>, PolicyError>,
}

impl<P: ?Sized> Clone for Registered<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: ?Sized> Copy for Registered<P> {}

impl<P: ?Sized> std::fmt::Debug for Registered<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.name)
            .finish()
    }
}

impl<P: ?Sized> Registered<P> {
    /// An entry.
    pub const fn new(
        name: &'static str,
        family: &'static str,
        paper: &'static Paper,
        description: &'static str,
        params: &'static [ParamInfo],
        builder: fn(&Params) -> Result<Box<P>, PolicyError>,
    ) -> Self {
        Registered {
            name,
            family,
            paper,
            description,
            params,
            variants: &[],
            builder,
        }
    }

    /// The entry with the rows the page offers it as beside its own.
    pub const fn with_variants(mut self, variants: &'static [Variant]) -> Self {
        self.variants = variants;
        self
    }
}

/// A spec of a policy that the page lists as a row of its own beside the policy: the policy
/// with some parameters fixed (an ablation from its paper).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    /// The spec the row runs.
    pub spec: &'static str,
    /// The parameters the spec fixes (key, value).
    pub fixed: &'static [(&'static str, &'static str)],
    /// What the row is, for people.
    pub description: &'static str,
}

/// A registered round-based policy.
pub type PolicyInfo = Registered<dyn Policy>;

/// A registered elastic policy.
pub type ElasticPolicyInfo = Registered<dyn ElasticPolicy>;

/// Build a policy from `spec` with the entry of `list` it names.
pub fn build_from<P: ?Sized>(list: &[Registered<P>], spec: &str) -> Result<Box<P>, PolicyError> {
    build_spec(list, &Spec::parse(spec)?)
}

/// Build a policy from a parsed spec with the entry of `list` it names.
pub fn build_spec<P: ?Sized>(list: &[Registered<P>], spec: &Spec) -> Result<Box<P>, PolicyError> {
    let info = list
        .iter()
        .find(|p| p.name == spec.name)
        .ok_or_else(|| PolicyError::Unknown(spec.name.clone()))?;
    (info.builder)(&checked(spec, info.params)?)
}

/// Parsed parameters of a spec, checked against the policy's declared parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    policy: String,
    spec: String,
    values: BTreeMap<String, String>,
}

impl Params {
    /// The full spec text in canonical form (`name` or `name[k=v,...]`, keys sorted).
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// A number parameter, or its default; must be finite and within `[lo, hi]`.
    pub fn f64(&self, key: &str, default: f64, lo: f64, hi: f64) -> Result<f64, PolicyError> {
        match self.values.get(key) {
            None => Ok(default),
            Some(v) => {
                let x: f64 = v
                    .parse()
                    .map_err(|_| self.err(key, format!("'{v}' is not a number")))?;
                if !x.is_finite() || x < lo || x > hi {
                    return Err(self.err(key, format!("{x} is outside [{lo}, {hi}]")));
                }
                Ok(x)
            }
        }
    }

    /// A whole-number parameter, or its default, within `[lo, hi]`.
    pub fn u64(&self, key: &str, default: u64, lo: u64, hi: u64) -> Result<u64, PolicyError> {
        match self.values.get(key) {
            None => Ok(default),
            Some(v) => {
                let x: u64 = v
                    .parse()
                    .map_err(|_| self.err(key, format!("'{v}' is not a whole number")))?;
                if x < lo || x > hi {
                    return Err(self.err(key, format!("{x} is outside [{lo}, {hi}]")));
                }
                Ok(x)
            }
        }
    }

    /// A yes/no parameter (`true`/`false`, `1`/`0`), or its default.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, PolicyError> {
        match self.values.get(key).map(|v| v.to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if v == "true" || v == "1" => Ok(true),
            Some(v) if v == "false" || v == "0" => Ok(false),
            Some(v) => Err(self.err(key, format!("'{v}' is not true or false"))),
        }
    }

    /// A text parameter, or its default.
    pub fn text<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.values.get(key).map_or(default, String::as_str)
    }

    /// An error about parameter `key` of this policy.
    pub fn err(&self, key: &str, reason: String) -> PolicyError {
        PolicyError::Param {
            policy: self.policy.clone(),
            param: key.to_string(),
            reason,
        }
    }
}

/// Split `name[k=v,...]` into the name and its key/value pairs ([`Spec::parse`]).
pub fn parse_spec(spec: &str) -> Result<(String, BTreeMap<String, String>), PolicyError> {
    Spec::parse(spec).map(|s| (s.name, s.params))
}

/// A round-based policy's entry in its family's list: name, family, paper, description,
/// parameters and builder.
macro_rules! entry {
    ($name:expr, $family:expr, $paper:expr, $desc:expr, $params:expr, $build:expr) => {
        $crate::policy::registry::PolicyInfo::new($name, $family, $paper, $desc, $params, $build)
    };
}
pub(crate) use entry;

/// The parameters of a policy that takes none.
pub(crate) const NO_PARAMS: &[ParamInfo] = &[];

/// The parameters of `spec` checked against the policy's declared parameters `known`.
pub(crate) fn checked(spec: &Spec, known: &[ParamInfo]) -> Result<Params, PolicyError> {
    let (name, values) = (spec.name.clone(), spec.params.clone());
    for k in values.keys() {
        if !known.iter().any(|p| p.name == k) {
            return Err(PolicyError::Param {
                policy: name.clone(),
                param: k.clone(),
                reason: format!(
                    "unknown parameter (known: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                    }
                ),
            });
        }
    }
    let canonical = spec_text(&name, &values);
    Ok(Params {
        policy: name,
        spec: canonical,
        values,
    })
}
