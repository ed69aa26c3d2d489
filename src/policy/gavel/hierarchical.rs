//! Hierarchical max-min fairness (Gavel's water-filling with entity weights, the paper's
//! hierarchical policy): fairness across entities (users, teams) by their weights, then
//! fairness or FIFO among each entity's jobs.
//!
//! The water-filling loop of `max_min_fairness_water_filling_perf` runs with weights
//! recomputed every round from the jobs still unfrozen. An entity `e` of weight `W_e` (the
//! `weights` parameter, 1 for entities it does not name) hands out exactly `W_e` among its
//! unfrozen jobs:
//! - `within=fairness`: job `j` gets `W_e w_j / U`, where `w_j` is its priority weight and
//!   `U` the sum of the priority weights of the entity's unfrozen jobs;
//! - `within=fifo`: the entity's unfrozen job with the lowest id gets all of `W_e`, the
//!   others 0; when it freezes (it can rise no further), the next one gets it.
//!
//! Frozen jobs weigh 0 and keep their level; jobs of weight 0 are left out of the minimum
//! but keep what they have. A job's entity is the trace's `entity` (`default` if none).

use super::max_min_fairness_water_filling::solve_with;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;

/// Parameters.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "weights",
        default: "",
        help: "Entity weights as entity:weight;entity:weight (entities not named weigh 1).",
    },
    ParamInfo {
        name: "within",
        default: "fairness",
        help: "How an entity shares its weight among its jobs: fairness (by priority weight) or fifo (all to its unfrozen job with the lowest id).",
    },
];

/// How an entity shares its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Within {
    /// By the jobs' priority weights.
    Fairness,
    /// All to the unfrozen job with the lowest id.
    Fifo,
}

/// The hierarchical policy.
#[derive(Debug, Clone)]
pub struct Hierarchical {
    name: String,
    weights: BTreeMap<String, f64>,
    within: Within,
}

impl Hierarchical {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        let within = match p.text("within", "fairness").to_ascii_lowercase().as_str() {
            "fairness" => Within::Fairness,
            "fifo" => Within::Fifo,
            other => return Err(p.err("within", format!("'{other}' is neither fairness nor fifo"))),
        };
        let weights = parse_weights(p.text("weights", "")).map_err(|e| p.err("weights", e))?;
        Ok(Box::new(Hierarchical {
            name: p.spec().to_string(),
            weights,
            within,
        }))
    }

    /// A policy with these entity weights and sharing rule.
    pub fn new(name: &str, weights: BTreeMap<String, f64>, within: Within) -> Self {
        Hierarchical {
            name: name.to_string(),
            weights,
            within,
        }
    }

    /// Each job's weight in a round, given which jobs are frozen.
    pub fn reweight(&self, view: &PolicyView, frozen: &[bool]) -> Vec<f64> {
        let mut entities: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, j) in view.jobs.iter().enumerate() {
            entities.entry(j.spec.entity()).or_default().push(i);
        }
        let mut w = vec![0.0; view.jobs.len()];
        for (e, jobs) in entities {
            let we = self.weights.get(e).copied().unwrap_or(1.0);
            match self.within {
                Within::Fairness => {
                    let u: f64 = jobs
                        .iter()
                        .filter(|&&i| !frozen[i])
                        .map(|&i| view.jobs[i].spec.priority_weight)
                        .sum();
                    if u > 0.0 {
                        for &i in jobs.iter().filter(|&&i| !frozen[i]) {
                            w[i] = we * view.jobs[i].spec.priority_weight / u;
                        }
                    }
                }
                Within::Fifo => {
                    if let Some(&i) = jobs.iter().find(|&&i| !frozen[i]) {
                        w[i] = we;
                    }
                }
            }
        }
        w
    }

    /// Solve for `view`.
    pub fn solve(&self, view: &PolicyView) -> Result<Vec<Vec<f64>>, String> {
        solve_with(view, true, &|frozen| self.reweight(view, frozen)).map(|(x, _)| x)
    }
}

/// Parse `entity:weight;entity:weight` (empty: no weights).
pub fn parse_weights(text: &str) -> Result<BTreeMap<String, f64>, String> {
    let mut out = BTreeMap::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (e, w) = part
            .rsplit_once(':')
            .ok_or_else(|| format!("'{part}' is not entity:weight"))?;
        let w: f64 = w
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not a number", w.trim()))?;
        if !(w.is_finite() && w > 0.0) {
            return Err(format!("weight {w} of '{}' must be positive", e.trim()));
        }
        if out.insert(e.trim().to_string(), w).is_some() {
            return Err(format!("entity '{}' given twice", e.trim()));
        }
    }
    Ok(out)
}

impl Policy for Hierarchical {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        super::allocation(view, &self.name, self.solve(view))
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    fn world(cluster: &str, entities: &[&str]) -> World {
        let one: &[f64] = &[1.0];
        let jobs: Vec<(u32, &[f64])> = entities.iter().map(|_| (1, one)).collect();
        let mut w = World::new(cluster, &jobs);
        for (s, e) in w.specs.iter_mut().zip(entities) {
            s.entity = Some(e.to_string());
        }
        w
    }

    #[test]
    fn hand_solved_fairness_across_and_within_entities() {
        // One GPU; entity A (weight 2) has jobs 0, 1, entity B (weight 1) job 2. All jobs
        // have P = 1 and nt = x. Weights: A's jobs 1 each (2 split by priority), B's 1; the
        // round gives x_j = c w_j: 3c = 1, so 1/3 each. With job 1's priority weight 3, A's
        // split is 2 * 1/4 and 2 * 3/4: x = (1/6, 1/2, 1/3).
        let mut w = world("a:1", &["A", "A", "B"]);
        let h = Hierarchical::new("h", parse_weights("A:2").unwrap(), Within::Fairness);
        let x = h.solve(&w.view()).unwrap();
        for r in &x {
            assert!((r[0] - 1.0 / 3.0).abs() < 1e-5, "{x:?}");
        }
        w.specs[1].priority_weight = 3.0;
        let x = h.solve(&w.view()).unwrap();
        let want = [1.0 / 6.0, 0.5, 1.0 / 3.0];
        for (r, v) in x.iter().zip(want) {
            assert!((r[0] - v).abs() < 1e-5, "{x:?}");
        }
    }

    #[test]
    fn hand_solved_fifo_within_entities() {
        // Two GPUs; entity A (weight 1) has jobs 0, 1, 2; B (weight 1) job 3. FIFO within:
        // round one weighs jobs 0 and 3 by 1, jobs 1 and 2 by 0: x0 = x3 = c with rows <= 1
        // and x0 + x3 + x1 + x2 <= 2: c = 1, both full (frozen), and the other two get 0.
        // Round two: job 1 takes A's weight (job 2 still 0) but nothing is left: frozen at
        // 0; so is job 2 in round three.
        let w = world("a:2", &["A", "A", "A", "B"]);
        let h = Hierarchical::new("h", BTreeMap::new(), Within::Fifo);
        let x = h.solve(&w.view()).unwrap();
        assert!(
            (x[0][0] - 1.0).abs() < 1e-5 && (x[3][0] - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        assert!(x[1][0] < 1e-5 && x[2][0] < 1e-5, "{x:?}");
        // Three GPUs: round one as before (x0 = x3 = 1); round two gives job 1 the third
        // GPU; job 2 gets nothing.
        let w = world("a:3", &["A", "A", "A", "B"]);
        let x = h.solve(&w.view()).unwrap();
        let want = [1.0, 1.0, 0.0, 1.0];
        for (r, v) in x.iter().zip(want) {
            assert!((r[0] - v).abs() < 1e-5, "{x:?}");
        }
    }

    #[test]
    fn weights_parse() {
        let w = parse_weights(" a:2; team:b : 0.5 ;").unwrap();
        assert_eq!(w["a"], 2.0);
        assert_eq!(w["team:b"], 0.5);
        assert!(parse_weights("a").is_err());
        assert!(parse_weights("a:0").is_err());
        assert!(parse_weights("a:1;a:2").is_err());
        assert!(crate::policy::build("hierarchical[within=lifo]").is_err());
        assert!(crate::policy::build("hierarchical[weights=a:2;b:1,within=fifo]").is_ok());
    }
}
