//! Maximise the cluster's total throughput: `max sum_j sum_t T[j][t] x[j][t]` under the base
//! constraints (heterogeneity-aware).

use super::lp::Lp;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use good_lp::Expression;

/// The max-sum-throughput policy.
#[derive(Debug, Clone)]
pub struct MaxSumThroughput {
    name: String,
}

impl MaxSumThroughput {
    /// A new policy.
    pub fn new(name: &str) -> Self {
        MaxSumThroughput { name: name.into() }
    }

    /// Solve the LP for `view`.
    pub fn solve(view: &PolicyView) -> Result<Vec<Vec<f64>>, String> {
        if view.jobs.is_empty() {
            return Ok(Vec::new());
        }
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let lp = Lp::base(&scale, &view.counts());
        let mut obj = Expression::with_capacity(scale.len() * view.cluster.num_types());
        for (j, job) in view.jobs.iter().enumerate() {
            obj += lp.row_expr(j, job.throughput);
        }
        lp.maximise(obj)
    }
}

impl Policy for MaxSumThroughput {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        super::allocation(view, &self.name, Self::solve(view))
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
    fn hand_solved() {
        // a:1, b:1. Job 0: 3 on a, 1 on b. Job 1: 2 on a, 2 on b. Best: job 0 on a, job 1 on b = 5.
        let w = World::new("a:1,b:1", &[(1, &[3.0, 1.0]), (1, &[2.0, 2.0])]);
        let x = MaxSumThroughput::solve(&w.view()).unwrap();
        assert!(
            (x[0][0] - 1.0).abs() < 1e-6 && (x[1][1] - 1.0).abs() < 1e-6,
            "{x:?}"
        );
    }
}
