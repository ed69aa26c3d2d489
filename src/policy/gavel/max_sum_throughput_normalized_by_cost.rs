//! Total throughput per dollar, optionally with SLOs (Gavel's
//! `max_sum_throughput_normalized_by_cost_perf` and `..._perf_SLOs`).
//!
//! Maximise `sum_j sum_t T[j][t] x[j][t] / cost_t` under the base constraints, where
//! `cost_t` is type `t`'s price per GPU-hour from the cluster (`v100:8@3.06,...`). As in
//! Gavel, the objective counts raw steps/s, with no scale factor, normalisation or priority
//! weight, and without prices (any type lacking one, or priced at 0) every cost is 1, which
//! makes it `max_sum_throughput_perf`.
//!
//! With SLOs (`_slos`), every job with a deadline (`slo_s` seconds after its arrival) that
//! has not passed gets the throughput it needs to meet it:
//! `sum_t T[j][t] x[j][t] >= steps left / seconds left`. When no allocation meets every
//! deadline the LP is solved again without them (Gavel's fallback).

use super::solve::lp::Lp;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use good_lp::Expression;

/// Each type's cost: its price per GPU-hour when every type has a positive one, else 1.
pub fn costs(view: &PolicyView) -> Vec<f64> {
    let prices: Option<Vec<f64>> = view
        .cluster
        .types
        .iter()
        .map(|t| t.price_per_hour.filter(|&p| p > 0.0))
        .collect();
    prices.unwrap_or_else(|| vec![1.0; view.cluster.num_types()])
}

/// The throughput each job needs to meet its deadline (steps left over seconds left), for
/// jobs whose deadline has not passed.
pub fn slo_rates(view: &PolicyView) -> Vec<Option<f64>> {
    view.jobs
        .iter()
        .map(|j| {
            let left = j.spec.slo? - j.time_since_arrival;
            (left > 0.0).then(|| j.steps_remaining / left)
        })
        .collect()
}

/// The cost-normalised max-sum-throughput policy, with or without SLOs.
#[derive(Debug, Clone)]
pub struct ThroughputPerCost {
    name: String,
    slos: bool,
}

impl ThroughputPerCost {
    /// A new policy.
    pub fn new(name: &str, slos: bool) -> Self {
        ThroughputPerCost {
            name: name.into(),
            slos,
        }
    }

    fn lp(view: &PolicyView, cost: &[f64], slos: &[Option<f64>]) -> Result<Vec<Vec<f64>>, String> {
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let mut lp = Lp::base(&scale, &view.counts());
        let mut obj = Expression::with_capacity(scale.len() * cost.len());
        for (j, job) in view.jobs.iter().enumerate() {
            let coef: Vec<f64> = job
                .throughput
                .iter()
                .zip(cost)
                .map(|(t, c)| t / c)
                .collect();
            obj += lp.row_expr(j, &coef);
            if let Some(need) = slos[j] {
                let e = lp.row_expr(j, job.throughput);
                lp.push(e.geq(need));
            }
        }
        lp.maximise(obj)
    }

    /// Solve for `view`: with SLOs first if asked, then without if they cannot all be met.
    pub fn solve(view: &PolicyView, slos: bool) -> Result<Vec<Vec<f64>>, String> {
        if view.jobs.is_empty() {
            return Ok(Vec::new());
        }
        let cost = costs(view);
        let none = vec![None; view.jobs.len()];
        if slos {
            let need = slo_rates(view);
            if need.iter().any(Option::is_some) {
                if let Ok(x) = Self::lp(view, &cost, &need) {
                    return Ok(x);
                }
            }
        }
        Self::lp(view, &cost, &none)
    }
}

impl Policy for ThroughputPerCost {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        super::allocation(view, &self.name, Self::solve(view, self.slos))
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_cost_moves_jobs_to_cheap_gpus() {
        // a:1 at $3/h, b:1 at $1/h. Job 0: 3 steps/s on a, 2 on b; job 1: 2 on a, 1.5 on b.
        // Per dollar: job 0 1 on a, 2 on b; job 1 2/3 on a, 1.5 on b. Both prefer b; an
        // assignment LP has an integral optimum: job 0 on b and job 1 on a give 2 + 2/3 =
        // 8/3, the other way 1 + 1.5 = 5/2.
        let w = World::new("a:1@3,b:1@1", &[(1, &[3.0, 2.0]), (1, &[2.0, 1.5])]);
        let x = ThroughputPerCost::solve(&w.view(), false).unwrap();
        assert!(
            (x[0][1] - 1.0).abs() < 1e-6 && (x[1][0] - 1.0).abs() < 1e-6,
            "{x:?}"
        );
        // Without prices it is max_sum_throughput_perf: 3 + 1.5 (job 0 on a) beats 2 + 2.
        let w = World::new("a:1,b:1", &[(1, &[3.0, 2.0]), (1, &[2.0, 1.5])]);
        let x = ThroughputPerCost::solve(&w.view(), false).unwrap();
        assert!(
            (x[0][0] - 1.0).abs() < 1e-6 && (x[1][1] - 1.0).abs() < 1e-6,
            "{x:?}"
        );
    }

    #[test]
    fn hand_solved_slo_gets_its_throughput() {
        // One GPU at $1/h; job 0 trains at 4 steps/s, job 1 at 1. Without SLOs job 0 takes
        // the GPU. Job 1 has 1800 steps left and a deadline 3600 s after arrival, 1800 s ago:
        // it needs 1 step/s, all of the GPU. With 900 steps left it needs 0.5: x1 = 0.5 and
        // job 0 the rest.
        let mut w = World::new("a:1@1", &[(1, &[4.0]), (1, &[1.0])]);
        w.specs[1].slo = Some(3600.0);
        w.since[1] = 1800.0;
        w.remaining[1] = 900.0;
        let x = ThroughputPerCost::solve(&w.view(), true).unwrap();
        assert!(
            (x[1][0] - 0.5).abs() < 1e-6 && (x[0][0] - 0.5).abs() < 1e-6,
            "{x:?}"
        );
        let plain = ThroughputPerCost::solve(&w.view(), false).unwrap();
        assert!(
            (plain[0][0] - 1.0).abs() < 1e-6 && plain[1][0] < 1e-6,
            "{plain:?}"
        );
        // 3600 steps left need 2 steps/s: impossible, so the SLOs are dropped.
        w.remaining[1] = 3600.0;
        let x = ThroughputPerCost::solve(&w.view(), true).unwrap();
        assert!((x[0][0] - 1.0).abs() < 1e-6, "{x:?}");
        // A deadline that has passed asks for nothing.
        w.remaining[1] = 900.0;
        w.since[1] = 4000.0;
        let x = ThroughputPerCost::solve(&w.view(), true).unwrap();
        assert!((x[0][0] - 1.0).abs() < 1e-6, "{x:?}");
    }
}
