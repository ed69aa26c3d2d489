//! Total throughput per dollar with space sharing and SLOs (Gavel's
//! `max_sum_throughput_normalized_by_cost_packed_SLOs`).
//!
//! Over the packed layout: maximise `sum_i sum_t eff_i[t] / cost_t`, where `eff_i[t]` is
//! job `i`'s throughput on type `t` alone and in its pairs (so a pair's row counts both of
//! its jobs' colocated rates), with costs as in
//! [`super::max_sum_throughput_normalized_by_cost`]; every job whose deadline has not passed
//! gets `eff_i >= steps left / seconds left`, and the deadlines are dropped when they cannot
//! all be met. The LP is symmetric in interchangeable jobs without a deadline, so it is
//! solved over classes of them ([`super::solve::packed::ClassPairs`]; a job with a deadline is a
//! class of its own): the same optimum from far fewer rows.

use super::max_sum_throughput_normalized_by_cost::{costs, slo_rates};
use super::solve::lp::Lp;
use super::solve::packed::{self, ClassPairs};
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use good_lp::Expression;

/// Parameters (none).
pub const PARAMS: &[ParamInfo] = &[];

/// The packed cost-normalised max-sum-throughput policy with SLOs.
#[derive(Debug, Clone)]
pub struct ThroughputPerCostPacked {
    name: String,
}

impl ThroughputPerCostPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(ThroughputPerCostPacked {
            name: p.spec().to_string(),
        }))
    }

    fn lp(
        view: &PolicyView,
        cp: &ClassPairs,
        cost: &[f64],
        need: &[Option<f64>],
    ) -> Result<Vec<Vec<f64>>, String> {
        let k = cp.classes.len();
        let mut lp = Lp::grouped(&cp.scale(view), &view.counts(), &cp.groups());
        let terms = cp.terms(view, &vec![1.0; k]);
        let mut obj = Expression::with_capacity(cp.rows() * cost.len());
        for (c, t) in terms.iter().enumerate() {
            let size = cp.classes[c].len() as f64;
            let per_dollar: Vec<(usize, Vec<f64>)> = t
                .iter()
                .map(|(r, coef)| {
                    (
                        *r,
                        coef.iter().zip(cost).map(|(v, p)| v * size / p).collect(),
                    )
                })
                .collect();
            obj += lp.rows_expr(&per_dollar);
            if let Some(n) = need[cp.classes[c][0]] {
                let e = lp.rows_expr(t);
                lp.push(e.geq(n));
            }
        }
        lp.maximise(obj)
    }

    /// Solve for `view`: with the deadlines, or without them if they cannot all be met.
    pub fn solve(view: &PolicyView) -> Result<Allocation, String> {
        let m = view.jobs.len();
        let need = slo_rates(view);
        // A job with a deadline is a class of its own.
        let extra: Vec<u64> = need
            .iter()
            .enumerate()
            .map(|(i, n)| n.map_or(0, |_| i as u64 + 1))
            .collect();
        let classes = ClassPairs::partition(view, &extra)
            .unwrap_or_else(|| (0..m).map(|i| vec![i]).collect());
        let cp = ClassPairs::new(view, classes);
        let cost = costs(view);
        let x = if need.iter().any(Option::is_some) {
            Self::lp(view, &cp, &cost, &need)
                .or_else(|_| Self::lp(view, &cp, &cost, &vec![None; m]))?
        } else {
            Self::lp(view, &cp, &cost, &need)?
        };
        Ok(cp.allocation(view, &x))
    }
}

impl Policy for ThroughputPerCostPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        if view.jobs.is_empty() {
            return Ok(Decision::Allocation(Allocation::default()));
        }
        Self::solve(view)
            .map(Decision::Allocation)
            .map_err(|reason| PolicyError::Failed {
                policy: self.name.clone(),
                reason,
            })
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_pair_and_deadline() {
        // One GPU at $2/h; jobs 0 and 1 at 1 step/s alone, 0.7 each together. Per dollar:
        // alone 0.5, the pair 0.7. Best: the pair all the time (objective 0.7).
        let w =
            World::new("a:1@2", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.7, 0.7)])]);
        let a = ThroughputPerCostPacked::solve(&w.view()).unwrap();
        assert!((a.pair_fractions[0][0] - 1.0).abs() < 1e-6, "{a:?}");
        assert!(
            a.fractions[0][0] < 1e-6 && a.fractions[1][0] < 1e-6,
            "{a:?}"
        );
        // Job 1 needs 0.85 steps/s (1530 steps left, 1800 s to its deadline): with the pair
        // for p and job 1 alone for q (p + q <= 1), 0.7 p + q >= 0.85; the objective 1.4 p +
        // q (times 1/2) falls as q replaces p, so q is as small as allowed: p = 0.5,
        // q = 0.5.
        let mut w = w;
        w.specs[1].slo = Some(3600.0);
        w.since[1] = 1800.0;
        w.remaining[1] = 1530.0;
        let a = ThroughputPerCostPacked::solve(&w.view()).unwrap();
        assert!((a.pair_fractions[0][0] - 0.5).abs() < 1e-6, "{a:?}");
        assert!((a.fractions[1][0] - 0.5).abs() < 1e-6, "{a:?}");
    }
}
