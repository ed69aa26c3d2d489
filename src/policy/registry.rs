//! The policy registry: every policy by name, with a one-line description and its
//! parameters, built from `name[key=value,...]` specs.

use super::{classic, gavel, Policy, PolicyError};
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
    /// One-line description.
    pub description: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
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
        description: &'static str,
        params: &'static [ParamInfo],
        builder: fn(&Params) -> Result<Box<P>, PolicyError>,
    ) -> Self {
        Registered {
            name,
            family,
            description,
            params,
            builder,
        }
    }
}

/// A registered round-based policy.
pub type PolicyInfo = Registered<dyn Policy>;

/// Build a policy from `spec` with the entry of `list` it names.
pub fn build_from<P: ?Sized>(list: &[Registered<P>], spec: &str) -> Result<Box<P>, PolicyError> {
    let (name, _) = parse_spec(spec)?;
    let info = list
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| PolicyError::Unknown(name.clone()))?;
    (info.builder)(&checked_params(spec, info.params)?)
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

/// The spec text of `name` with `values`: `name`, or `name[k=v,...]` with the keys in
/// order.
pub fn spec_text(name: &str, values: &BTreeMap<String, String>) -> String {
    if values.is_empty() {
        return name.to_string();
    }
    let kv: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}[{}]", kv.join(","))
}

/// Split `name[k=v,...]` into the name and its key/value pairs.
pub fn parse_spec(spec: &str) -> Result<(String, BTreeMap<String, String>), PolicyError> {
    let s = spec.trim();
    let (name, rest) = match s.find('[') {
        Some(i) => {
            let inner = s[i + 1..]
                .strip_suffix(']')
                .ok_or_else(|| PolicyError::Syntax(spec.to_string()))?;
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
        return Err(PolicyError::Syntax(spec.to_string()));
    }
    let mut values = BTreeMap::new();
    if let Some(inner) = rest {
        for kv in inner.split(',').map(str::trim).filter(|kv| !kv.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| PolicyError::Syntax(spec.to_string()))?;
            let k = k.trim().to_ascii_lowercase();
            if k.is_empty() || values.insert(k, v.trim().to_string()).is_some() {
                return Err(PolicyError::Syntax(spec.to_string()));
            }
        }
    }
    Ok((name, values))
}

macro_rules! entry {
    ($name:expr, $family:expr, $desc:expr, $params:expr, $build:expr) => {
        PolicyInfo::new($name, $family, $desc, $params, $build)
    };
}

const NO_PARAMS: &[ParamInfo] = &[];

/// Every registered policy, in listing order.
pub fn policies() -> &'static [PolicyInfo] {
    const LIST: &[PolicyInfo] = &[
        entry!("sjf", "classic", "Shortest job first by oracle total duration on the fastest GPU type.", NO_PARAMS,
            |p| Ok(Box::new(classic::OrderPolicy::sjf(p.spec())))),
        entry!("srtf", "classic", "Shortest remaining time first (oracle), preemptive every round.", NO_PARAMS,
            |p| Ok(Box::new(classic::OrderPolicy::srtf(p.spec())))),
        entry!("las", "classic", "Least attained service (GPU-seconds) first, preemptive every round.", NO_PARAMS,
            |p| Ok(Box::new(classic::OrderPolicy::las(p.spec())))),
        entry!("tiresias", "classic", "Tiresias: two-queue discretised LAS on GPU-hours (threshold 16), first come first served within a queue.", classic::tiresias::PARAMS,
            classic::tiresias::Tiresias::build),
        entry!("optimus", "classic", "Optimus in rounds: jobs placed in submission order, then free GPUs to the move onto a faster type that cuts predicted remaining time most per GPU.", NO_PARAMS,
            |p| Ok(Box::new(classic::optimus::Optimus::new(p.spec())))),
        entry!("drf", "classic", "Dominant resource fairness over GPU types and time: smallest dominant share of GPU-seconds first, on the type that keeps it smallest.", NO_PARAMS,
            |p| Ok(Box::new(classic::drf::Drf::new(p.spec())))),
        entry!("isolated", "gavel", "Gavel's isolated: each job gets a static 1/n share of every GPU type.", NO_PARAMS,
            |p| Ok(Box::new(gavel::isolated::Isolated::new(p.spec())))),
        entry!("max_min_fairness", "gavel", "Max-min fairness as an LP (what Gavel calls its LAS policy): maximise the least normalised share; all GPU types treated as equal.", gavel::max_min_fairness::PARAMS,
            |p| gavel::max_min_fairness::MaxMinFairness::build(p, false)),
        entry!("max_min_fairness_perf", "gavel", "Heterogeneity-aware max-min fairness: maximise the least throughput relative to an equal share.", gavel::max_min_fairness::PARAMS,
            |p| gavel::max_min_fairness::MaxMinFairness::build(p, true)),
        entry!("finish_time_fairness", "gavel", "Finish-time fairness (Themis) ignoring heterogeneity: minimise the largest rho.", NO_PARAMS,
            |p| Ok(Box::new(gavel::finish_time_fairness::FinishTimeFairness::new(p.spec(), false)))),
        entry!("finish_time_fairness_perf", "gavel", "Heterogeneity-aware finish-time fairness, the Themis-style policy: minimise the largest rho (a root search over rho with scaling LPs) instead of Themis' auctions.", NO_PARAMS,
            |p| Ok(Box::new(gavel::finish_time_fairness::FinishTimeFairness::new(p.spec(), true)))),
        entry!("min_total_duration", "gavel", "Minimise makespan (bisection over the completion time T) ignoring heterogeneity.", NO_PARAMS,
            |p| Ok(Box::new(gavel::min_total_duration::MinTotalDuration::new(p.spec(), false)))),
        entry!("min_total_duration_perf", "gavel", "Heterogeneity-aware makespan minimisation (bisection over T).", NO_PARAMS,
            |p| Ok(Box::new(gavel::min_total_duration::MinTotalDuration::new(p.spec(), true)))),
        entry!("max_sum_throughput_perf", "gavel", "Maximise the cluster's total throughput (steps/s), heterogeneity-aware.", NO_PARAMS,
            |p| Ok(Box::new(gavel::max_sum_throughput::MaxSumThroughput::new(p.spec())))),
        entry!("fifo", "gavel", "First in, first out: jobs in arrival order each get a GPU type with room, drawn at random (heterogeneity-unaware).", NO_PARAMS,
            |p| Ok(Box::new(gavel::fifo::GavelFifo::new(p.spec(), false)))),
        entry!("fifo_perf", "gavel", "Gavel's FIFO_Perf: jobs in arrival order each get the fastest GPU type with room.", NO_PARAMS,
            |p| Ok(Box::new(gavel::fifo::GavelFifo::new(p.spec(), true)))),
        entry!("max_min_fairness_packed", "gavel", "Max-min fairness with space sharing: pairs of jobs may share GPUs at their colocated throughputs.", gavel::max_min_fairness_packed::PARAMS,
            gavel::max_min_fairness_packed::MaxMinFairnessPacked::build),
        entry!("finish_time_fairness_packed", "gavel", "Finish-time fairness with space sharing: minimise the largest rho over single and paired time.", gavel::packed::BISECTION_PARAMS,
            gavel::finish_time_fairness_packed::FinishTimeFairnessPacked::build),
        entry!("min_total_duration_packed", "gavel", "Makespan minimisation with space sharing (bisection over T).", gavel::packed::BISECTION_PARAMS,
            gavel::min_total_duration_packed::MinTotalDurationPacked::build),
        entry!("fifo_packed", "gavel", "FIFO_Perf, then queued jobs packed onto placed ones whose pair's normalised throughput beats a threshold.", gavel::fifo_packed::PARAMS,
            gavel::fifo_packed::FifoPacked::build),
        entry!("allox", "gavel", "AlloX: waiting jobs matched to free GPUs at least total completion time (min-cost matching); a placed job keeps its GPU.", gavel::allox::PARAMS,
            gavel::allox::Allox::build),
        entry!("gandiva", "gavel", "Gandiva: equal time slices; when oversubscribed, random pairs of equal-size jobs share GPUs, and pairs that slow down are split.", gavel::gandiva::PARAMS,
            gavel::gandiva::Gandiva::build),
        entry!("max_min_fairness_water_filling", "gavel", "Water-filling max-min fairness ignoring heterogeneity: repeated LPs raise every job, freezing the bottleneck jobs, until none can rise.", gavel::max_min_fairness_water_filling::PARAMS,
            |p| gavel::max_min_fairness_water_filling::WaterFilling::build(p, false)),
        entry!("max_min_fairness_water_filling_perf", "gavel", "Heterogeneity-aware water-filling max-min fairness: after the least share, the next least, and so on.", gavel::max_min_fairness_water_filling::PARAMS,
            |p| gavel::max_min_fairness_water_filling::WaterFilling::build(p, true)),
        entry!("hierarchical", "gavel", "Hierarchical water-filling: max-min fairness across entities by their weights, then fairness or FIFO within each entity.", gavel::hierarchical::PARAMS,
            gavel::hierarchical::Hierarchical::build),
        entry!("max_sum_throughput_normalized_by_cost_perf", "gavel", "Maximise total throughput per dollar (steps/s over each GPU type's price per hour).", NO_PARAMS,
            |p| Ok(Box::new(gavel::max_sum_throughput_normalized_by_cost::ThroughputPerCost::new(p.spec(), false)))),
        entry!("max_sum_throughput_normalized_by_cost_perf_slos", "gavel", "Throughput per dollar, with every job that has a deadline given the throughput it needs to meet it (dropped if infeasible).", NO_PARAMS,
            |p| Ok(Box::new(gavel::max_sum_throughput_normalized_by_cost::ThroughputPerCost::new(p.spec(), true)))),
        entry!("max_min_fairness_water_filling_packed", "gavel", "Water-filling max-min fairness with space sharing: pairs of jobs may share GPUs at their colocated throughputs.", gavel::max_min_fairness_water_filling_packed::PARAMS,
            gavel::max_min_fairness_water_filling_packed::WaterFillingPacked::build),
        entry!("max_sum_throughput_normalized_by_cost_packed_slos", "gavel", "Throughput per dollar with space sharing (a pair counts both jobs' colocated rates) and deadlines as throughput floors.", gavel::max_sum_throughput_normalized_by_cost_packed_slos::PARAMS,
            gavel::max_sum_throughput_normalized_by_cost_packed_slos::ThroughputPerCostPacked::build),
    ];
    LIST
}

/// Build a policy from its spec.
pub fn build(spec: &str) -> Result<Box<dyn Policy>, PolicyError> {
    build_from(policies(), spec)
}

/// Parse `spec` and check its keys against `known`, giving the canonical spec.
pub(crate) fn checked_params(spec: &str, known: &[ParamInfo]) -> Result<Params, PolicyError> {
    let (name, values) = parse_spec(spec)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_validate() {
        let (n, v) = parse_spec("Max_Min_Fairness_perf[ solver_tol = 1e-9 ]").unwrap();
        assert_eq!(n, "max_min_fairness_perf");
        assert_eq!(v["solver_tol"], "1e-9");
        assert!(matches!(parse_spec("las[x]"), Err(PolicyError::Syntax(_))));
        assert!(matches!(parse_spec("las[x=1"), Err(PolicyError::Syntax(_))));
        assert!(matches!(build("nope"), Err(PolicyError::Unknown(_))));
        assert!(matches!(
            build("las[foo=1]"),
            Err(PolicyError::Param { .. })
        ));
        for info in policies() {
            let p = build(info.name).unwrap();
            assert_eq!(p.name(), info.name);
        }
    }
}
