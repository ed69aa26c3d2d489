//! Finish-time fairness (Themis' rho): minimise the largest
//! `rho_j(x) = (t_j + R_j / thr_j(x)) / (C_j + R_j / I_j)`, where `t_j` is the time since
//! arrival, `R_j` the remaining steps, `thr_j(x) = sum_t T[j][t] x[j][t]`, `I_j` the job's
//! throughput under the isolated allocation and `C_j` the isolated time it has already
//! "used" (accumulated between calls as the remaining work shrinks, as in Gavel).
//!
//! For a fixed `rho` the condition `rho_j(x) <= rho` is linear in `x`:
//! `thr_j(x) >= R_j / (rho D_j - t_j)` with `D_j = C_j + R_j / I_j`; the smallest feasible
//! `rho` is found by bisection over LP feasibility tests (relative precision 1e-5), and the
//! allocation is the feasible point at that `rho`.

use super::lp::Lp;
use crate::job::JobId;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;

/// What the policy remembers of a job between calls.
#[derive(Debug, Clone, Copy)]
struct Memory {
    remaining: f64,
    isolated_throughput: f64,
    cumulative_isolated_time: f64,
}

/// The finish-time fairness policy, plain or `_perf`.
#[derive(Debug, Clone)]
pub struct FinishTimeFairness {
    name: String,
    perf: bool,
    memory: BTreeMap<JobId, Memory>,
}

impl FinishTimeFairness {
    /// A new policy.
    pub fn new(name: &str, perf: bool) -> Self {
        FinishTimeFairness {
            name: name.into(),
            perf,
            memory: BTreeMap::new(),
        }
    }

    /// Solve for `view` given each job's `C_j`: the allocation and the optimal largest rho.
    pub fn solve(
        view: &PolicyView,
        perf: bool,
        cumulative: &[f64],
    ) -> Result<(Vec<Vec<f64>>, f64), String> {
        if view.jobs.is_empty() {
            return Ok((Vec::new(), 0.0));
        }
        let thr = super::throughputs(view, perf);
        let iso = super::isolated_fractions(view);
        let iso_thr: Vec<f64> = thr
            .iter()
            .zip(&iso)
            .map(|(t, x)| t.iter().zip(x).map(|(a, b)| a * b).sum())
            .collect();
        if iso_thr.iter().any(|&i| i <= 0.0) {
            return Err("a job has no GPU type it can run on".into());
        }
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
                    let tj: f64 = thr[j].iter().zip(&x[j]).map(|(a, b)| a * b).sum();
                    (job.time_since_arrival + job.steps_remaining / tj) / d[j]
                })
                .fold(0.0, f64::max)
        };
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let counts = view.counts();
        let feasible = |rho: f64| -> Option<Vec<Vec<f64>>> {
            let mut lp = Lp::base(&scale, &counts);
            for (j, job) in view.jobs.iter().enumerate() {
                let slack = rho * d[j] - job.time_since_arrival;
                if slack <= 0.0 {
                    return None;
                }
                let e = lp.row_expr(j, &thr[j]);
                lp.push(e.geq(job.steps_remaining / slack));
            }
            lp.feasible()
        };
        let lo0 = view
            .jobs
            .iter()
            .enumerate()
            .map(|(j, job)| job.time_since_arrival / d[j])
            .fold(0.0, f64::max);
        let mut hi = rho_at(&iso);
        let mut best = iso.clone();
        let mut lo = lo0;
        while hi - lo > 1e-5 * hi {
            let mid = 0.5 * (lo + hi);
            match feasible(mid) {
                Some(x) => {
                    hi = mid;
                    best = x;
                }
                None => lo = mid,
            }
        }
        Ok((best, hi))
    }
}

impl Policy for FinishTimeFairness {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let thr = super::throughputs(view, self.perf);
        let iso = super::isolated_fractions(view);
        let mut cumulative = Vec::with_capacity(view.jobs.len());
        let mut next = BTreeMap::new();
        for (j, job) in view.jobs.iter().enumerate() {
            let iso_thr: f64 = thr[j].iter().zip(&iso[j]).map(|(a, b)| a * b).sum();
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
                    isolated_throughput: iso_thr,
                    cumulative_isolated_time: c,
                },
            );
        }
        self.memory = next;
        super::allocation(
            view,
            &self.name,
            Self::solve(view, self.perf, &cumulative).map(|(x, _)| x),
        )
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(self.perf)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_rho() {
        // One GPU, two new jobs of 1000 steps at 1 step/s. Isolated share 1/2 each: D = 2000 s.
        // Any split x, 1 - x gives rho = max(1000/x, 1000/(1-x)) / 2000, smallest at x = 1/2: rho = 1.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        let (x, rho) = FinishTimeFairness::solve(&w.view(), true, &[0.0, 0.0]).unwrap();
        assert!((rho - 1.0).abs() < 1e-4, "{rho}");
        assert!((x[0][0] - 0.5).abs() < 1e-3, "{x:?}");
        // A job that has already waited 1000 s needs more: t0 = 1000.
        // rho = (1000 + 1000/x)/2000 = 1000/(1-x)/2000  =>  x = 0.618..., rho = 1.309.
        let mut w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        w.since[0] = 1000.0;
        let (x, rho) = FinishTimeFairness::solve(&w.view(), true, &[0.0, 0.0]).unwrap();
        let g = (5f64.sqrt() - 1.0) / 2.0;
        assert!((x[0][0] - g).abs() < 1e-3, "{x:?}");
        assert!((rho - 0.5 / (1.0 - g)).abs() < 1e-4, "{rho}");
    }
}
