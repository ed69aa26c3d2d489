//! Cluster description: GPU types, their counts, servers and prices.
//!
//! A [`ClusterSpec`] is parsed from three forms:
//! - named: `v100:36,p100:36/4,k80:36@0.45` (type `:` count, optional `/` GPUs per server,
//!   optional `@` price in dollars per GPU-hour);
//! - Gavel's positional form `36:36:36` (counts of v100, p100 and k80);
//! - JSON: `{"types": [{"name": "v100", "count": 36, "per_server": 4, "price_per_hour": 2.48}]}`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Index of a GPU type within a [`ClusterSpec`].
pub type TypeIdx = usize;

/// One GPU type of the cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuType {
    /// Lower-case name, matched against profile entries (`v100`, `a100`, ...).
    pub name: String,
    /// Number of GPUs of this type.
    pub count: u32,
    /// GPUs per server (1 as in Gavel's simulator unless given).
    #[serde(default = "one")]
    pub per_server: u32,
    /// Price in dollars per GPU-hour, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_hour: Option<f64>,
}

/// The most GPUs a cluster may have over all its types (their total is a `u32`).
pub const MAX_TOTAL_GPUS: u64 = 10_000_000;

/// The name of an inference pool's GPU type: `inference`, or `inference-<model>` for
/// servers of a GPU model the profile knows (loaned servers train at its speed).
pub const INFERENCE: &str = "inference";

impl GpuType {
    /// Whether this type is an inference pool (`inference` or `inference-<model>`).
    pub fn is_inference(&self) -> bool {
        self.name == INFERENCE
            || self
                .name
                .strip_prefix(INFERENCE)
                .is_some_and(|m| m.starts_with('-') && m.len() > 1)
    }

    /// The GPU model of an inference pool named `inference-<model>`.
    pub fn inference_model(&self) -> Option<&str> {
        self.name
            .strip_prefix(INFERENCE)?
            .strip_prefix('-')
            .filter(|m| !m.is_empty())
    }
}

fn one() -> u32 {
    1
}

/// Error in a cluster specification.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ClusterError {
    /// The text is not a valid cluster specification.
    #[error("invalid cluster spec '{spec}': {reason}")]
    Invalid {
        /// The offending (part of the) specification.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
}

fn invalid(spec: &str, reason: impl Into<String>) -> ClusterError {
    ClusterError::Invalid {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

/// The GPUs of a cluster, by type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterSpec {
    /// GPU types in the order they were given.
    pub types: Vec<GpuType>,
}

impl ClusterSpec {
    /// Gavel's default type order for the positional form.
    pub const GAVEL_TYPES: [&'static str; 3] = ["v100", "p100", "k80"];

    /// Parse any of the three accepted forms.
    pub fn parse(text: &str) -> Result<Self, ClusterError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(invalid(text, "empty"));
        }
        let spec = if t.starts_with('{') {
            serde_json::from_str::<ClusterSpec>(t).map_err(|e| invalid(t, e.to_string()))?
        } else if t
            .split(':')
            .all(|p| !p.is_empty() && p.trim().chars().all(|c| c.is_ascii_digit()))
        {
            let counts: Vec<&str> = t.split(':').collect();
            if counts.len() != 3 {
                return Err(invalid(
                    t,
                    "the positional form needs three counts, v100:p100:k80 (e.g. 36:36:36)",
                ));
            }
            let mut types = Vec::new();
            for (name, c) in Self::GAVEL_TYPES.iter().zip(counts) {
                let count = c
                    .trim()
                    .parse::<u32>()
                    .map_err(|e| invalid(c, format!("count: {e}")))?;
                types.push(GpuType {
                    name: name.to_string(),
                    count,
                    per_server: 1,
                    price_per_hour: None,
                });
            }
            ClusterSpec { types }
        } else {
            let mut types = Vec::new();
            for part in t.split(',') {
                types.push(parse_named(part.trim())?);
            }
            ClusterSpec { types }
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Check names are unique and counts and prices are sensible: at most 1,000,000 GPUs of
    /// a type and [`MAX_TOTAL_GPUS`] in all.
    pub fn validate(&self) -> Result<(), ClusterError> {
        if self.types.is_empty() {
            return Err(invalid("", "no GPU types"));
        }
        for (i, t) in self.types.iter().enumerate() {
            if t.name.is_empty()
                || !t
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(invalid(
                    &t.name,
                    "a type name is letters, digits, '_' or '-'",
                ));
            }
            if t.per_server == 0 {
                return Err(invalid(&t.name, "GPUs per server must be at least 1"));
            }
            if t.count > 1_000_000 {
                return Err(invalid(&t.name, "at most 1,000,000 GPUs per type"));
            }
            if let Some(p) = t.price_per_hour {
                if !p.is_finite() || p < 0.0 {
                    return Err(invalid(&t.name, "price must be a non-negative number"));
                }
            }
            if self.types[..i].iter().any(|o| o.name == t.name) {
                return Err(invalid(&t.name, "GPU type given twice"));
            }
        }
        let total: u64 = self.types.iter().map(|t| u64::from(t.count)).sum();
        if total > MAX_TOTAL_GPUS {
            return Err(invalid("", "at most 10,000,000 GPUs in all"));
        }
        if total == 0 {
            return Err(invalid("", "the cluster has no GPUs"));
        }
        Ok(())
    }

    /// Number of GPU types.
    pub fn num_types(&self) -> usize {
        self.types.len()
    }

    /// Total number of GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.types.iter().map(|t| t.count).sum()
    }

    /// Index of a type by name.
    pub fn type_index(&self, name: &str) -> Option<TypeIdx> {
        self.types.iter().position(|t| t.name == name)
    }

    /// GPU counts by type index.
    pub fn counts(&self) -> Vec<u32> {
        self.types.iter().map(|t| t.count).collect()
    }

    /// The cluster with every type's GPUs multiplied by `factor`, in whole servers: each
    /// type gets its servers times `factor`, rounded to the nearest whole number, at least
    /// one when it had GPUs (a type with none keeps none). Prices and server sizes stay.
    pub fn scaled(&self, factor: f64) -> Result<ClusterSpec, ClusterError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(invalid(
                &self.to_string(),
                format!("scale {factor} must be a positive number"),
            ));
        }
        let mut out = self.clone();
        for t in &mut out.types {
            if t.count == 0 {
                continue;
            }
            let per = f64::from(t.per_server.max(1));
            let servers = (f64::from(t.count) / per * factor).round().max(1.0);
            let count = servers * per;
            if count > 1_000_000.0 {
                return Err(invalid(
                    &t.name,
                    format!("scaled by {factor}: at most 1,000,000 GPUs per type"),
                ));
            }
            t.count = count as u32;
        }
        out.validate()?;
        Ok(out)
    }
}

fn parse_named(part: &str) -> Result<GpuType, ClusterError> {
    let (name, rest) = part
        .split_once(':')
        .ok_or_else(|| invalid(part, "expected type:count, e.g. v100:36"))?;
    let name = name.trim().to_ascii_lowercase();
    let (rest, price) = match rest.split_once('@') {
        Some((r, p)) => {
            let price = p
                .trim()
                .parse::<f64>()
                .map_err(|_| invalid(part, format!("price '{p}' is not a number")))?;
            (r, Some(price))
        }
        None => (rest, None),
    };
    let (count, per_server) = match rest.split_once('/') {
        Some((c, s)) => (c, Some(s)),
        None => (rest, None),
    };
    let count = count
        .trim()
        .parse::<u32>()
        .map_err(|_| invalid(part, format!("count '{count}' is not a whole number")))?;
    let per_server = match per_server {
        Some(s) => s
            .trim()
            .parse::<u32>()
            .map_err(|_| invalid(part, format!("GPUs per server '{s}' is not a whole number")))?,
        None => 1,
    };
    Ok(GpuType {
        name,
        count,
        per_server,
        price_per_hour: price,
    })
}

impl FromStr for ClusterSpec {
    type Err = ClusterError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for ClusterSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.types.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{}:{}", t.name, t.count)?;
            if t.per_server != 1 {
                write!(f, "/{}", t.per_server)?;
            }
            if let Some(p) = t.price_per_hour {
                write!(f, "@{p}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_keeps_whole_servers() {
        let c = ClusterSpec::parse("v100:36,a100:16/8@2.5,inference:0/8").unwrap();
        let half = c.scaled(0.5).unwrap();
        assert_eq!(half.to_string(), "v100:18,a100:8/8@2.5,inference:0/8");
        assert_eq!(c.scaled(0.01).unwrap().counts(), [1, 8, 0]);
        assert_eq!(c.scaled(3.0).unwrap().counts(), [108, 48, 0]);
        // 10 GPUs in servers of 4 are 2.5 servers: x2 makes 5.
        assert_eq!(
            ClusterSpec::parse("t4:10/4")
                .unwrap()
                .scaled(2.0)
                .unwrap()
                .counts(),
            [20]
        );
        for bad in [0.0, -1.0, f64::NAN, 1e9] {
            assert!(c.scaled(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn named_form_with_servers_and_prices() {
        let c = ClusterSpec::parse("v100:36/4,p100:8@1.46,K80:2").unwrap();
        assert_eq!(c.types.len(), 3);
        assert_eq!(c.types[0].per_server, 4);
        assert_eq!(c.types[1].price_per_hour, Some(1.46));
        assert_eq!(c.types[2].name, "k80");
        assert_eq!(c.total_gpus(), 46);
        assert_eq!(ClusterSpec::parse(&c.to_string()).unwrap(), c);
    }

    #[test]
    fn positional_form_is_gavel_order() {
        let c = ClusterSpec::parse("36:8:2").unwrap();
        let names: Vec<_> = c.types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["v100", "p100", "k80"]);
        assert_eq!(c.counts(), [36, 8, 2]);
    }

    #[test]
    fn json_form() {
        let c = ClusterSpec::parse(
            r#"{"types":[{"name":"a100","count":8,"per_server":8,"price_per_hour":3.0}]}"#,
        )
        .unwrap();
        assert_eq!(c.types[0].per_server, 8);
    }

    #[test]
    fn errors_are_readable() {
        for bad in [
            "",
            "v100",
            "v100:x",
            "v100:4/0",
            "36:36",
            "v100:1,v100:2",
            "v100:0",
            "v100:3@-1",
        ] {
            let e = ClusterSpec::parse(bad).unwrap_err();
            assert!(e.to_string().contains("invalid cluster spec"), "{bad}: {e}");
        }
    }
}
