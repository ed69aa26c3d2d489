//! Makespan minimisation with space sharing (Gavel's `min_total_duration_packed`): the
//! smallest `T` such that every job can finish its remaining steps `R_i` within `T`, i.e.
//! `eff_i(x) >= R_i / T` over the packed layout ([`super::packed`]; `eff_i` counts a job's
//! throughput alone and in its pairs, without priority weights). Found by bisection over `T`
//! with an LP feasibility test, as Gavel does and as `min_total_duration_perf` (start
//! [100 s, 10^6 s], widened tenfold until feasible; stop when the bracket is within 5%).

use super::lp::Lp;
use super::packed::{self, Layout};
use crate::policy::registry::Params;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// The packed makespan-minimising policy.
#[derive(Debug, Clone)]
pub struct MinTotalDurationPacked {
    name: String,
    partners: usize,
}

impl MinTotalDurationPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(MinTotalDurationPacked {
            name: p.spec().to_string(),
            partners: p.u64("partners", 0, 0, packed::MAX_PARTNERS)? as usize,
        }))
    }

    /// Solve for `view` over `layout`: every row's fractions at the smallest feasible
    /// horizon found, and it.
    pub fn solve(view: &PolicyView, layout: &Layout) -> Result<(Vec<Vec<f64>>, f64), String> {
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
        super::min_total_duration::search_horizon(feasible)
    }
}

impl Policy for MinTotalDurationPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let layout = Layout::new(view, self.partners);
        packed::decision(
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
    use super::super::lp::satisfies_packed;
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
        let l = Layout::new(&v, 0);
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
            &l.row_scales(&v),
            &[1.0],
            &l.groups(),
            1e-7
        ));
        // Without colocation data it is the unpacked makespan: 2000 s.
        let plain = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        let pv = plain.view();
        let (_, t) = MinTotalDurationPacked::solve(&pv, &Layout::new(&pv, 0)).unwrap();
        assert!((2000.0..=2100.0).contains(&t), "{t}");
    }
}
