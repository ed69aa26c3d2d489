//! Finish-time fairness with space sharing (Gavel's `finish_time_fairness_packed`):
//! minimise the largest `rho_i(x) = (t_i + R_i / eff_i(x)) / (C_i + R_i / I_i)` over the
//! packed layout ([`super::solve::packed`]), where `eff_i` is job `i`'s throughput alone and in its
//! pairs divided by its priority weight (Gavel weighs the packed variant, unlike `_perf`),
//! `t_i` the time since arrival, `R_i` the remaining steps, `I_i` the job's throughput under
//! the isolated allocation (from its isolated throughputs, unweighted) and `C_i` the isolated
//! time it has already "used" (accumulated between calls as the remaining work shrinks).
//!
//! As for `finish_time_fairness_perf`, the smallest feasible `rho` is found by root-finding on
//! the scaling LP's factor ([`super::solve::rho_root`]: `eff_i(x) >= R_i / (rho D_i - t_i)`
//! with `D_i = C_i + R_i / I_i`; relative precision 1e-5), and the answer is a feasible point
//! near the centre of the feasible set just above the root. Should the root search not settle,
//! `finish_time_fairness::search_rho` bisects from the isolated allocation, which is always
//! feasible (so, unlike Gavel, the policy never returns no allocation), taking the largest rho
//! of each feasible point it finds as its new upper end.
//!
//! The root search takes fewer LPs than that bisection (on the default scenario 6.7 a
//! decision against 19.6), and its answer does not depend on how thin the feasible set is at
//! the last trial: a bisection that keeps moving its upper end to the rho of its own points
//! ends where the set is squeezed to a sliver, and the interior-point solver's point there
//! differs from the point a trial 3e-6 to 1e-4 above the root gives (on the default scenario
//! 24.9 h average JCT against 27.6 h for every such trial, which is also where
//! `finish_time_fairness_perf` is: 27.8 h).
//!
//! Its LPs run without Clarabel's iterative refinement, as the max-min LPs do
//! ([`Lp::without_refinement`]: the same tolerances, a refined solve again when the unrefined
//! one stops short of them), which takes a third off each LP; being a point of the same
//! tolerance, the answer moves slightly (on Gavel's static trace, 8:8:8, average JCT 91,283.8
//! s -> 90,002.8 s).
//!
//! A decision's scaling LPs differ only in their coefficients, so they share one Clarabel
//! solver ([`super::solve::family`]): the first builds it (the KKT ordering, the symbolic
//! factorisation, the equilibration), the others replace its data, a fifth off the policy's
//! time on `gavel-load` (3,217 scaling LPs in 492 decisions, 2,725 of them reusing). Their
//! data are scaled by the first LP's equilibration, another point of the same tolerances:
//! on the static trace 90,002.8 s -> 89,711.0 s average JCT.

use super::solve::family::Family;
use super::solve::lp::Lp;
use super::solve::packed::{self, Rows};
use crate::model::job::JobId;
use crate::policy::registry::Params;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What the policy remembers of a job between calls.
#[derive(Debug, Clone, Copy)]
struct Memory {
    remaining: f64,
    isolated_throughput: f64,
    cumulative_isolated_time: f64,
}

/// The packed finish-time fairness policy.
#[derive(Debug, Clone)]
pub struct FinishTimeFairnessPacked {
    name: String,
    partners: usize,
    by_class: bool,
    memory: BTreeMap<JobId, Memory>,
}

impl FinishTimeFairnessPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(FinishTimeFairnessPacked {
            name: p.spec().to_string(),
            partners: p.u64("partners", 0, 0, packed::MAX_PARTNERS)? as usize,
            by_class: p.bool("by_class", true)?,
            memory: BTreeMap::new(),
        }))
    }

    /// Each job's throughput under the isolated allocation (unweighted).
    fn isolated_throughputs(view: &PolicyView) -> Vec<f64> {
        let iso = super::isolated_fractions(view);
        view.jobs
            .iter()
            .zip(&iso)
            .map(|(j, x)| j.throughput.iter().zip(x).map(|(a, b)| a * b).sum())
            .collect()
    }

    /// Solve for `view` over `layout` given each job's `C_i`: every row's fractions and the
    /// optimal largest rho.
    pub fn solve(
        view: &PolicyView,
        layout: &Rows,
        cumulative: &[f64],
    ) -> Result<(Vec<Vec<f64>>, f64), String> {
        if view.jobs.is_empty() {
            return Ok((Vec::new(), 0.0));
        }
        let iso_thr = Self::isolated_throughputs(view);
        if iso_thr.iter().any(|&i| i <= 0.0) {
            return Err("a job has no GPU type it can run on".into());
        }
        let n = view.cluster.num_types();
        // Throughputs divided by the priority weights, alone and in pairs.
        let thr: Vec<Vec<f64>> = view.jobs.iter().map(|j| j.throughput.to_vec()).collect();
        let inv_w: Vec<f64> = view
            .jobs
            .iter()
            .map(|j| 1.0 / j.spec.priority_weight)
            .collect();
        let terms = layout.terms(&thr, &inv_w);
        let d: Vec<f64> = view
            .jobs
            .iter()
            .enumerate()
            .map(|(j, job)| cumulative[j] + job.steps_remaining / iso_thr[j])
            .collect();
        let rho_at = |x: &[Vec<f64>]| -> f64 {
            view.jobs
                .iter()
                .enumerate()
                .map(|(j, job)| {
                    let e = layout.effective(j, &thr, x) * inv_w[j];
                    (job.time_since_arrival + job.steps_remaining / e) / d[j]
                })
                .fold(0.0, f64::max)
        };
        let feasible = |rho: f64| -> Option<Vec<Vec<f64>>> {
            let mut lp: Lp = layout.lp(view).without_refinement();
            for (j, job) in view.jobs.iter().enumerate() {
                let slack = rho * d[j] - job.time_since_arrival;
                if slack <= 0.0 {
                    return None;
                }
                let e = lp.rows_expr(&terms[j]);
                lp.push(e.geq(job.steps_remaining / slack));
            }
            lp.feasible()
        };
        let iso = layout.with_zero_pairs(super::isolated_fractions(view), n);
        // The scaling LPs differ only in their coefficients: one solver serves them all.
        let family = Rc::new(Family::new());
        let max_scale = |rho: f64| -> Option<(Vec<Vec<f64>>, f64)> {
            let mut k = Vec::with_capacity(view.jobs.len());
            for (j, job) in view.jobs.iter().enumerate() {
                let slack = rho * d[j] - job.time_since_arrival;
                if slack <= 0.0 || job.steps_remaining <= 0.0 {
                    return None;
                }
                k.push(inv_w[j] * slack / job.steps_remaining);
            }
            let slack = |j: usize| rho * d[j] - view.jobs[j].time_since_arrival;
            let steps = |j: usize| view.jobs[j].steps_remaining;
            layout.max_common_factor(
                view,
                &thr,
                &terms,
                &k,
                false,
                Some(&family),
                |j, v| v * (slack(j) / steps(j)),
                |j, e| e * inv_w[j] * slack(j) / steps(j),
            )
        };
        let a: Vec<f64> = view
            .jobs
            .iter()
            .enumerate()
            .map(|(j, job)| job.time_since_arrival / d[j])
            .collect();
        let lo0 = a.iter().copied().fold(0.0, f64::max);
        let hi = rho_at(&iso);
        if let Some(found) = super::solve::rho_root::search_root(&a, lo0, hi, max_scale, feasible) {
            return Ok(found);
        }
        let (best, hi) = super::finish_time_fairness::search_rho(
            &a,
            lo0,
            hi,
            iso,
            max_scale,
            feasible,
            super::finish_time_fairness::Search {
                decide: None,
                tighten: Some(&rho_at),
            },
        );
        Ok((best, hi))
    }
}

impl Policy for FinishTimeFairnessPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let iso_thr = Self::isolated_throughputs(view);
        let mut cumulative = Vec::with_capacity(view.jobs.len());
        let mut next = BTreeMap::new();
        for (job, &iso) in view.jobs.iter().zip(&iso_thr) {
            let mut c = 0.0;
            if let Some(m) = self.memory.get(&job.id) {
                c = m.cumulative_isolated_time;
                if m.isolated_throughput > 0.0 {
                    c += (m.remaining - job.steps_remaining) / m.isolated_throughput;
                }
            }
            cumulative.push(c);
            next.insert(
                job.id,
                Memory {
                    remaining: job.steps_remaining,
                    isolated_throughput: iso,
                    cumulative_isolated_time: c,
                },
            );
        }
        self.memory = next;
        let layout = Rows::new(view, self.partners, self.by_class);
        packed::rows_decision(
            view,
            &layout,
            &self.name,
            Self::solve(view, &layout, &cumulative).map(|(x, _)| x),
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
    fn hand_solved_rho_with_a_pair() {
        // One GPU, two new jobs of 1000 steps at 1 step/s alone; isolated share 1/2 each, so
        // D = 2000 s. Time-shared the best rho is 1. Together they train at 0.8 and 0.7: with
        // job 1 alone for b and the pair for p = 1 - b, rho is the larger of
        // 1000 / (0.8 p) / 2000 and 1000 / (b + 0.7 p) / 2000, smallest when
        // 0.8 p = b + 0.7 p: b = 1/11, p = 10/11, rho = 11/16.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.8, 0.7)])]);
        let v = w.view();
        let pl = super::super::solve::packed::Layout::new(&v, 0);
        let l = Rows::Pairs(pl.clone());
        let (x, rho) = FinishTimeFairnessPacked::solve(&v, &l, &[0.0, 0.0]).unwrap();
        assert!((rho - 11.0 / 16.0).abs() < 1e-4, "{rho}");
        assert!((x[2][0] - 10.0 / 11.0).abs() < 1e-3, "{x:?}");
        assert!(satisfies_packed(
            &x,
            &pl.row_scales(&v),
            &[1.0],
            &pl.groups(),
            1e-7
        ));
        // A priority weight of 2 halves job 0's weighted throughput: it needs twice the
        // rate. Pair all the time gives job 0 0.4 (rho 1.25) and job 1 0.7; job 0 alone for
        // a and the pair for 1 - a: 0.5 a + 0.4 (1 - a) and 0.7 (1 - a), equal at a = 3/8:
        // rho = 1000 / (0.7 * 5/8) / 2000 = 8/7.
        let mut w = w;
        w.specs[0].priority_weight = 2.0;
        let v = w.view();
        let (x, rho) = FinishTimeFairnessPacked::solve(&v, &l, &[0.0, 0.0]).unwrap();
        assert!((rho - 8.0 / 7.0).abs() < 1e-4, "{rho} {x:?}");
        assert!((x[0][0] - 3.0 / 8.0).abs() < 1e-3, "{x:?}");
    }
}
