//! Makespan minimisation with space sharing (Gavel's `min_total_duration_packed`): the
//! smallest `T` such that every job can finish its remaining steps `R_i` within `T`, i.e.
//! `eff_i(x) >= R_i / T` over the packed layout ([`super::solve::packed`]; `eff_i` counts a job's
//! throughput alone and in its pairs, without priority weights). Found by bisection over `T`
//! with an LP feasibility test, as Gavel does and as `min_total_duration_perf` (start
//! [100 s, 10^6 s], widened tenfold until feasible; stop when the bracket is within 5%).

use super::solve::lp::Lp;
use super::solve::packed::{self, Rows};
use crate::policy::registry::Params;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// The packed makespan-minimising policy.
#[derive(Debug, Clone)]
pub struct MinTotalDurationPacked {
    name: String,
    partners: usize,
    by_class: bool,
}

impl MinTotalDurationPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(MinTotalDurationPacked {
            name: p.spec().to_string(),
            partners: p.u64("partners", 0, 0, packed::MAX_PARTNERS)? as usize,
            by_class: p.bool("by_class", true)?,
        }))
    }

    /// Solve for `view` over `layout`: every row's fractions at the smallest feasible
    /// horizon found, and it.
    pub fn solve(view: &PolicyView, layout: &Rows) -> Result<(Vec<Vec<f64>>, f64), String> {
        if view.jobs.is_empty() {
            return Ok((Vec::new(), 0.0));
        }
        let thr: Vec<Vec<f64>> = view.jobs.iter().map(|j| j.throughput.to_vec()).collect();
        if thr.iter().any(|r| r.iter().all(|&t| t <= 0.0)) {
            return Err("a job has no GPU type it can run on".into());
        }
        let terms = layout.terms(&thr, &vec![1.0; thr.len()]);
        let feasible = |horizon: f64| -> Option<Vec<Vec<f64>>> {
            let mut lp: Lp = layout.lp(view);
            for (job, t) in view.jobs.iter().zip(&terms) {
                let e = lp.rows_expr(t);
                lp.push(e.geq(job.steps_remaining / horizon));
            }
            lp.feasible()
        };
        // Trials clearly on either side of the boundary are answered by one LP for the
        // largest common rate.
        let z = Self::rate(view, layout, &thr, &terms);
        super::min_total_duration::search_with_rate(z, feasible)
    }

    /// The largest `z` with `eff_i(x) >= z R_i` for every job (one LP), so that a horizon
    /// `h` is feasible exactly when `h z >= 1`; `None` when a job has no work left or the
    /// LP fails.
    fn rate(
        view: &PolicyView,
        layout: &Rows,
        thr: &[Vec<f64>],
        terms: &[Vec<(usize, Vec<f64>)>],
    ) -> Option<f64> {
        if view.jobs.iter().any(|j| j.steps_remaining <= 0.0) {
            return None;
        }
        let k: Vec<f64> = view.jobs.iter().map(|j| 1.0 / j.steps_remaining).collect();
        let steps = |j: usize| view.jobs[j].steps_remaining;
        layout
            .max_common_factor(
                view,
                thr,
                terms,
                &k,
                true,
                None,
                |j, v| v / steps(j),
                |j, e| e / steps(j),
            )
            .map(|(_, got)| got)
    }
}

impl Policy for MinTotalDurationPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let layout = Rows::new(view, self.partners, self.by_class);
        packed::rows_decision(
            view,
            &layout,
            &self.name,
            Self::solve(view, &layout).map(|(x, _)| x),
        )
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::solve::lp::satisfies_packed;
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_makespan_with_a_pair() {
        // One GPU, two jobs of 1000 steps at 1 step/s alone (makespan 2000 s time-shared),
        // 0.8 and 0.7 steps/s together. Sharing all the time finishes by 1000 / 0.7 =
        // 1428.6 s; better, job 1 alone for 1/11 of the time and the pair for 10/11 gives
        // both 8/11 steps/s (as in the max-min case): 1375 s, the optimum.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.8, 0.7)])]);
        let v = w.view();
        let pl = super::super::solve::packed::Layout::new(&v, 0);
        let l = Rows::Pairs(pl.clone());
        let (x, t) = MinTotalDurationPacked::solve(&v, &l).unwrap();
        let opt = 1375.0;
        assert!((opt..=opt * 1.05).contains(&t), "{t}");
        for i in 0..2 {
            assert!(
                l.effective(i, &w.thr, &x) * t >= 1000.0 * (1.0 - 1e-6),
                "{x:?}"
            );
        }
        assert!(satisfies_packed(
            &x,
            &pl.row_scales(&v),
            &[1.0],
            &pl.groups(),
            1e-7
        ));
        // Without colocation data it is the unpacked makespan: 2000 s.
        let plain = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        let pv = plain.view();
        let (_, t) = MinTotalDurationPacked::solve(&pv, &Rows::new(&pv, 0, false)).unwrap();
        assert!((2000.0..=2100.0).contains(&t), "{t}");
    }
}
