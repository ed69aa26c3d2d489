//! Minimise the makespan: the smallest `T` such that every job can finish its remaining
//! steps `R_j` within `T`, i.e. `sum_t T[j][t] x[j][t] >= R_j / T` for all j under the base
//! constraints. Found by bisection over `T` with an LP feasibility test, as Gavel does
//! (start [100 s, 10^6 s], widened tenfold until feasible; stop when the bracket is within 5%).

use super::solve::ipm::BlockLp;
use super::solve::lp::Lp;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// The makespan-minimising policy, plain or `_perf`.
#[derive(Debug, Clone)]
pub struct MinTotalDuration {
    name: String,
    perf: bool,
}

impl MinTotalDuration {
    /// A new policy.
    pub fn new(name: &str, perf: bool) -> Self {
        MinTotalDuration {
            name: name.into(),
            perf,
        }
    }

    fn feasible(view: &PolicyView, thr: &[Vec<f64>], horizon: f64) -> Option<Vec<Vec<f64>>> {
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let counts = view.counts();
        let demand: Vec<f64> = view
            .jobs
            .iter()
            .map(|j| j.steps_remaining / horizon)
            .collect();
        let mut lp = Lp::base(&scale, &counts);
        for (j, &b) in demand.iter().enumerate() {
            let e = lp.row_expr(j, &thr[j]);
            lp.push(e.geq(b));
        }
        lp.feasible()
    }

    /// The largest `z` with `thr_j . x_j >= z R_j` for every job (one max-min LP), so that
    /// a horizon `h` is feasible exactly when `h z >= 1`; `None` when a job has no work
    /// left or the LP stalls.
    fn rate(view: &PolicyView, thr: &[Vec<f64>]) -> Option<f64> {
        if view.jobs.iter().any(|j| j.steps_remaining <= 0.0) {
            return None;
        }
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let counts = view.counts();
        let per: Vec<Vec<f64>> = thr
            .iter()
            .zip(&view.jobs)
            .map(|(t, j)| t.iter().map(|v| v / j.steps_remaining).collect())
            .collect();
        let x = BlockLp::max_min(&scale, &counts, &per).solve_lp()?;
        Some(
            per.iter()
                .zip(&x)
                .map(|(p, xj)| p.iter().zip(xj).map(|(a, b)| a * b).sum::<f64>())
                .fold(f64::INFINITY, f64::min),
        )
    }

    /// Solve for `view`: the allocation at the smallest feasible horizon found, and it.
    pub fn solve(view: &PolicyView, perf: bool) -> Result<(Vec<Vec<f64>>, f64), String> {
        if view.jobs.is_empty() {
            return Ok((Vec::new(), 0.0));
        }
        let thr = super::throughputs(view, perf);
        if thr.iter().any(|r| r.iter().all(|&t| t <= 0.0)) {
            return Err("a job has no GPU type it can run on".into());
        }
        // Trials clearly on either side of the boundary are answered by one max-min LP;
        // the feasible points are still Clarabel's: which point of the feasible set a
        // solver ends at moves this policy's rounds (a structured method's centre put
        // static100's per-job correlation at 0.979).
        let rate = Self::rate(view, &thr);
        search_with_rate(rate, |t| Self::feasible(view, &thr, t))
    }
}

/// [`search_horizon`] with `z`, the largest common rate (a horizon `h` is feasible exactly
/// when `h z >= 1`): trials clearly on either side of the boundary (beyond 1e-7 of it) are
/// answered by `z`; only the trials near it, and the last feasible one (whose point is
/// returned), call `feasible`. Should that last point fail, or without `z`, every trial
/// calls `feasible`.
pub(crate) fn search_with_rate<X>(
    z: Option<f64>,
    feasible: impl Fn(f64) -> Option<X>,
) -> Result<(X, f64), String> {
    let Some(z) = z else {
        return search_horizon(feasible);
    };
    let mut kept: Option<(f64, X)> = None;
    let (_, best) = search_horizon(|t| {
        if t * z < 1.0 - 1e-7 {
            None
        } else if t * z > 1.0 + 1e-7 {
            Some(())
        } else {
            let x = feasible(t)?;
            kept = Some((t, x));
            Some(())
        }
    })?;
    match kept.filter(|(t, _)| *t == best) {
        Some((_, x)) => Ok((x, best)),
        None => match feasible(best) {
            Some(x) => Ok((x, best)),
            None => search_horizon(feasible),
        },
    }
}

/// Gavel's search for the smallest feasible completion time: bisection in [100 s, 10^6 s]
/// until the bracket is within 5%, widened tenfold while nothing is feasible. Returns the
/// last feasible point and its horizon.
pub(crate) fn search_horizon<X>(
    mut feasible: impl FnMut(f64) -> Option<X>,
) -> Result<(X, f64), String> {
    let (mut lo, mut hi, mut last_hi) = (100.0_f64, 1e6_f64, 1e6_f64);
    for _widen in 0..12 {
        let mut best = None;
        while 1.05 * lo < hi {
            let mid = (lo + hi) / 2.0;
            match feasible(mid) {
                Some(x) => {
                    best = Some((x, mid));
                    hi = mid;
                }
                None => lo = mid,
            }
        }
        if let Some(b) = best {
            return Ok(b);
        }
        lo = last_hi;
        hi = last_hi * 10.0;
        last_hi *= 10.0;
    }
    Err("no feasible completion time below 10^18 s".into())
}

impl Policy for MinTotalDuration {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        super::allocation(
            view,
            &self.name,
            Self::solve(view, self.perf).map(|(x, _)| x),
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
    fn hand_solved_makespan() {
        // One GPU, two jobs of 1000 steps at 1 step/s: the makespan is 2000 s, each job x = 1/2.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        let (x, t) = MinTotalDuration::solve(&w.view(), true).unwrap();
        assert!((2000.0..=2000.0 * 1.05).contains(&t), "{t}");
        assert!(
            (x[0][0] - x[1][0]).abs() < 1e-3 && x[0][0] + x[1][0] <= 1.0 + 1e-7,
            "{x:?}"
        );
    }

    #[test]
    fn rate_trials_give_the_answer_of_a_feasibility_lp_at_every_trial() {
        // Random worlds of 2-3 types and 2-10 jobs of 1-2 GPUs: the search that answers
        // clear trials by the rate LP ends at the same horizon and point, to the bit, as
        // the one that asks Clarabel at every trial.
        let mut rng = Rng::new(7);
        for case in 0..40 {
            let types = 2 + rng.below(2) as usize;
            let cluster = ["a:4", "b:3", "c:2"][..types].join(",");
            let jobs: Vec<(u32, Vec<f64>)> = (0..2 + rng.below(9))
                .map(|_| {
                    let thr = (0..types).map(|_| rng.range(0.5, 4.0)).collect();
                    (1 + rng.below(2) as u32, thr)
                })
                .collect();
            let specs: Vec<(u32, &[f64])> = jobs.iter().map(|(s, t)| (*s, &t[..])).collect();
            let mut w = World::new(&cluster, &specs);
            for r in &mut w.remaining {
                *r = rng.range(100.0, 100_000.0);
            }
            let view = w.view();
            let thr = crate::policy::gavel::throughputs(&view, true);
            let every = search_horizon(|t| MinTotalDuration::feasible(&view, &thr, t)).unwrap();
            let (x, t) = MinTotalDuration::solve(&view, true).unwrap();
            assert_eq!(t.to_bits(), every.1.to_bits(), "case {case}");
            let bits =
                |x: &[Vec<f64>]| -> Vec<u64> { x.iter().flatten().map(|v| v.to_bits()).collect() };
            assert_eq!(bits(&x), bits(&every.0), "case {case}");
        }
    }
}
