//! Max-min fairness with space sharing (Gavel's `max_min_fairness_packed`).
//!
//! Over the packed layout ([`super::packed`]): maximise `min_i eff_i(x) s_i / (w_i P_i)`,
//! where `eff_i` is job `i`'s throughput alone and in its pairs, `s_i` its scale factor,
//! `w_i` its priority weight and `P_i = sum_t T[i][t] N_t / N` its throughput under an equal
//! share of every type (from its isolated throughputs). Without pairs this is exactly
//! `max_min_fairness_perf`; a pair row counts toward both of its jobs.

use super::lp::Lp;
use super::packed::{self, Layout};
use crate::policy::registry::Params;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// The packed max-min fairness policy.
#[derive(Debug, Clone)]
pub struct MaxMinFairnessPacked {
    name: String,
    partners: usize,
}

impl MaxMinFairnessPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(MaxMinFairnessPacked {
            name: p.spec().to_string(),
            partners: p.u64("partners", 0, 0, packed::MAX_PARTNERS)? as usize,
        }))
    }

    /// Each job's factor `s_i / (w_i P_i)` (0 for a job that cannot run anywhere).
    pub fn factors(view: &PolicyView) -> Vec<f64> {
        let counts = view.counts();
        let total: f64 = counts.iter().sum();
        view.jobs
            .iter()
            .map(|j| {
                let p: f64 = j
                    .throughput
                    .iter()
                    .zip(&counts)
                    .map(|(t, n)| t * n / total)
                    .sum();
                if p > 0.0 {
                    f64::from(j.scale()) / (j.spec.priority_weight * p)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Solve the LP for `view` over `layout`: every row's fractions (singles, then pairs).
    pub fn solve(view: &PolicyView, layout: &Layout) -> Result<Vec<Vec<f64>>, String> {
        if view.jobs.is_empty() {
            return Ok(Vec::new());
        }
        let thr: Vec<Vec<f64>> = view.jobs.iter().map(|j| j.throughput.to_vec()).collect();
        let terms = layout.terms(&thr, &Self::factors(view));
        // No iterative refinement, as for the unpacked max-min LP (see `Lp`).
        let mut lp: Lp = layout.lp(view).without_refinement();
        let t = lp.add_free();
        for job in &terms {
            lp.push_at_least_rows(job, t);
        }
        lp.maximise(t.into())
    }
}

impl Policy for MaxMinFairnessPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let layout = Layout::new(view, self.partners);
        packed::decision(view, &layout, &self.name, Self::solve(view, &layout))
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lp::satisfies_packed;
    use super::super::max_min_fairness::MaxMinFairness;
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_pair_beats_time_sharing() {
        // Two jobs on one GPU at 1 step/s alone, 0.8 and 0.7 together. Time-shared, each gets
        // 0.5. With job 1 alone for b, the pair for p = 1 - b (job 0 alone only lowers the
        // minimum): job 0 gets 0.8 p, job 1 gets b + 0.7 p. Equal at 0.8 - 0.8 b = 0.7 + 0.3 b:
        // b = 1/11, p = 10/11, both 8/11 (more than 0.7, the pair all the time).
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.8, 0.7)])]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        assert!((x[2][0] - 10.0 / 11.0).abs() < 1e-5, "{x:?}");
        assert!(
            x[0][0] < 1e-5 && (x[1][0] - 1.0 / 11.0).abs() < 1e-5,
            "{x:?}"
        );
        for i in 0..2 {
            assert!(
                (l.effective(i, &w.thr, &x) - 8.0 / 11.0).abs() < 1e-5,
                "{x:?}"
            );
        }
        assert!(satisfies_packed(
            &x,
            &l.row_scales(&v),
            &[1.0],
            &l.groups(),
            1e-7
        ));
    }

    #[test]
    fn hand_solved_pair_mixed_with_time_sharing() {
        // Colocated rates 0.9 and 0.3: sharing all the time gives min 0.3 < 0.5. With job 0
        // alone for a, job 1 alone for b and the pair for p (a + b + p = 1), equal rates
        // a + 0.9 p = b + 0.3 p give 2a + 1.6 p = 1 and the rate 0.5 + 0.1 p, largest at
        // a = 0: p = 0.625, b = 0.375, both 0.5625.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.9, 0.3)])]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        assert!((x[2][0] - 0.625).abs() < 1e-5, "{x:?}");
        assert!(x[0][0] < 1e-5 && (x[1][0] - 0.375).abs() < 1e-5, "{x:?}");
        for i in 0..2 {
            assert!((l.effective(i, &w.thr, &x) - 0.5625).abs() < 1e-5);
        }
    }

    #[test]
    fn hand_solved_pairs_on_the_type_where_sharing_is_free() {
        // Four jobs at 1 step/s alone on a:1 and b:1 (P = 1). Sharing is free on b (1.0 each)
        // and costly on a (0.4 each). A GPU of a yields at most 1 step/s in all, of b 2: the
        // jobs can get at most 3/4 each, reached with singles on a and pairs on b only.
        let free: &[(f64, f64)] = &[(0.4, 0.4), (1.0, 1.0)];
        let one: &[f64] = &[1.0, 1.0];
        let w = World::new("a:1,b:1", &[(1, one); 4]).with_pairs(&[
            (0, 1, free),
            (0, 2, free),
            (0, 3, free),
            (1, 2, free),
            (1, 3, free),
            (2, 3, free),
        ]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        for i in 0..4 {
            assert!((l.effective(i, &w.thr, &x) - 0.75).abs() < 1e-5, "{x:?}");
            assert!(x[i][1] < 1e-5, "{x:?}");
        }
        let pairs_on = |t: usize| x[4..].iter().map(|r| r[t]).sum::<f64>();
        assert!(
            pairs_on(0) < 1e-5 && (pairs_on(1) - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        let singles_on_a: f64 = x[..4].iter().map(|r| r[0]).sum();
        assert!((singles_on_a - 1.0).abs() < 1e-5, "{x:?}");
        assert!(satisfies_packed(
            &x,
            &l.row_scales(&v),
            &[1.0, 1.0],
            &l.groups(),
            1e-7
        ));
    }

    #[test]
    fn without_pairs_it_is_max_min_fairness_perf() {
        let w = World::new(
            "a:1,b:1",
            &[
                (1, &[4.0, 1.0]),
                (1, &[4.0, 1.0]),
                (1, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
            ],
        );
        let v = w.view();
        let packed = MaxMinFairnessPacked::solve(&v, &Layout::new(&v, 0)).unwrap();
        let perf = MaxMinFairness::solve(&v, true).unwrap();
        for (a, b) in packed.iter().flatten().zip(perf.iter().flatten()) {
            assert!((a - b).abs() < 1e-6, "{packed:?} vs {perf:?}");
        }
    }
}
