//! Maximise the cluster's total throughput: `max sum_j sum_t T[j][t] x[j][t]` under the base
//! constraints (heterogeneity-aware).

use super::solve::ipm::BlockLp;
use super::solve::lp::Lp;
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
        let counts = view.counts();
        let cost: Vec<Vec<f64>> = view
            .jobs
            .iter()
            .map(|j| j.throughput.iter().map(|t| -t).collect())
            .collect();
        let structured = BlockLp {
            scale: &scale,
            counts: &counts,
            rows: None,
            cost: Some(&cost),
            t_weight: 0.0,
            members: None,
        };
        if let Some(x) = structured.solve_lp() {
            return Ok(x);
        }
        let lp = Lp::base(&scale, &counts);
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
    fn the_structured_method_reaches_clarabels_optimum() {
        // Random worlds of 1-40 jobs on 1-4 types: the total throughput of the structured
        // method's allocation equals Clarabel's optimum to 1e-6 and meets the base rows.
        let mut rng = Rng::new(11);
        for case in 0..200 {
            let types = 1 + rng.below(4) as usize;
            let cluster: Vec<String> = (0..types)
                .map(|t| format!("t{t}:{}", 1 + rng.below(24)))
                .collect();
            let n = 1 + rng.below(40) as usize;
            let jobs: Vec<(u32, Vec<f64>)> = (0..n)
                .map(|_| {
                    let s = [1, 1, 2, 4][rng.below(4) as usize];
                    (s, (0..types).map(|_| 0.1 + 10.0 * rng.uniform()).collect())
                })
                .collect();
            let refs: Vec<(u32, &[f64])> = jobs.iter().map(|(s, t)| (*s, t.as_slice())).collect();
            let w = World::new(&cluster.join(","), &refs);
            let view = w.view();
            let total = |x: &[Vec<f64>]| -> f64 {
                x.iter()
                    .zip(&jobs)
                    .map(|(r, (_, t))| r.iter().zip(t).map(|(a, b)| a * b).sum::<f64>())
                    .sum()
            };
            let a = MaxSumThroughput::solve(&view).unwrap();
            let scale: Vec<f64> = jobs.iter().map(|(s, _)| f64::from(*s)).collect();
            let lp = Lp::base(&scale, &view.counts());
            let mut obj = Expression::with_capacity(n * types);
            for (j, job) in view.jobs.iter().enumerate() {
                obj += lp.row_expr(j, job.throughput);
            }
            let b = lp.maximise(obj).unwrap();
            assert!(super::super::solve::lp::satisfies_base(
                &a,
                &scale,
                &view.counts(),
                1e-7
            ));
            let (ta, tb) = (total(&a), total(&b));
            assert!((ta - tb).abs() <= 1e-6 * tb, "case {case}: {ta} vs {tb}");
        }
    }

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
