//! Finish-time fairness (Themis' rho): minimise the largest
//! `rho_j(x) = (t_j + R_j / thr_j(x)) / (C_j + R_j / I_j)`, where `t_j` is the time since
//! arrival, `R_j` the remaining steps, `thr_j(x) = sum_t T[j][t] x[j][t]`, `I_j` the job's
//! throughput under the isolated allocation and `C_j` the isolated time it has already
//! "used" (accumulated between calls as the remaining work shrinks, as in Gavel).
//!
//! For a fixed `rho` the condition `rho_j(x) <= rho` is linear in `x`:
//! `thr_j(x) >= R_j / (rho D_j - t_j)` with `D_j = C_j + R_j / I_j`; the smallest feasible
//! `rho` is found to a relative precision of 1e-5 by `search_rho`: a few LPs that scale
//! every demand at once bound it from both sides, then bisection over LP feasibility tests
//! finishes, and the allocation is the feasible point at that `rho`.

use super::solve::ipm::BlockLp;
use super::solve::lp::Lp;
use crate::model::job::JobId;
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// A scaling LP's answer at a rho (by its bits): the allocation and the factor z.
type ScaleAt = (u64, Option<(Vec<Vec<f64>>, f64)>);

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
        // The largest factor z by which every job's demand at `rho` can be met at once
        // (z >= 1: rho is feasible), with the allocation that meets it.
        let scale_at = |rho: f64| -> Option<(Vec<Vec<f64>>, f64)> {
            let mut coefs = Vec::with_capacity(view.jobs.len());
            for (j, job) in view.jobs.iter().enumerate() {
                let slack = rho * d[j] - job.time_since_arrival;
                if slack <= 0.0 || job.steps_remaining <= 0.0 {
                    return None;
                }
                let per = slack / job.steps_remaining;
                coefs.push(thr[j].iter().map(|&t| t * per).collect::<Vec<f64>>());
            }
            let x = super::solve::lp::max_min(&scale, &counts, &coefs, true).ok()?;
            let got = view
                .jobs
                .iter()
                .enumerate()
                .map(|(j, job)| {
                    let tj: f64 = thr[j].iter().zip(&x[j]).map(|(a, b)| a * b).sum();
                    tj * (rho * d[j] - job.time_since_arrival) / job.steps_remaining
                })
                .fold(f64::INFINITY, f64::min);
            (got.is_finite() && got > 0.0).then_some((x, got))
        };
        // The search asks some rho twice (a bisection trial, then its point; the last scaling
        // step, then the centre there): each scaling LP is solved once per decision.
        let solved: RefCell<Vec<ScaleAt>> = RefCell::new(Vec::new());
        let max_scale = |rho: f64| -> Option<(Vec<Vec<f64>>, f64)> {
            let bits = rho.to_bits();
            if let Some((_, known)) = solved.borrow().iter().find(|(b, _)| *b == bits) {
                return known.clone();
            }
            let got = scale_at(rho);
            solved.borrow_mut().push((bits, got.clone()));
            got
        };
        // Whether rho is feasible, where the scaling LP makes it clear (z beyond 1e-7 of 1).
        let decide = |rho: f64| -> Option<bool> {
            if view
                .jobs
                .iter()
                .enumerate()
                .any(|(j, job)| rho * d[j] - job.time_since_arrival <= 0.0)
            {
                return Some(false);
            }
            let z = max_scale(rho)?.1;
            if z < 1.0 - 1e-7 {
                Some(false)
            } else if z > 1.0 + 1e-7 {
                Some(true)
            } else {
                None
            }
        };
        // Feasibility at rho: the scaling LP answers where it is clear (z beyond 1e-7 of 1);
        // the point is the centre of the feasible set, as the general solver finds it.
        let feasible = |rho: f64| -> Option<Vec<Vec<f64>>> {
            let verdict = decide(rho);
            if verdict == Some(false) {
                return None;
            }
            let demand: Vec<f64> = view
                .jobs
                .iter()
                .enumerate()
                .map(|(j, job)| job.steps_remaining / (rho * d[j] - job.time_since_arrival))
                .collect();
            if verdict == Some(true) {
                if let Some(x) = BlockLp::feasible(&scale, &counts, &thr, &demand).solve_lp() {
                    return Some(x);
                }
            }
            let mut lp = Lp::base(&scale, &counts);
            for (j, &b) in demand.iter().enumerate() {
                let e = lp.row_expr(j, &thr[j]);
                lp.push(e.geq(b));
            }
            lp.feasible()
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
        let search = Search {
            decide: Some(&decide),
            tighten: None,
        };
        let (best, hi) = search_rho(&a, lo0, hi, iso, max_scale, feasible, search);
        Ok((best, hi))
    }
}

/// The largest rho of an allocation.
pub(super) type RhoOf<'a> = dyn Fn(&[Vec<f64>]) -> f64 + 'a;

/// Whether a rho is feasible, when that is clear without a feasible point (None: ask for
/// the point).
pub(super) type Decide<'a> = dyn Fn(f64) -> Option<bool> + 'a;

/// Optional parts of [`search_rho`]'s bisection.
pub(super) struct Search<'a> {
    /// Answers feasibility tests without a point where it can; only the last feasible
    /// trial's point is then computed (the one the search returns).
    pub decide: Option<&'a Decide<'a>>,
    /// The largest rho of an allocation: each feasible point's rho becomes the upper end
    /// when lower than the trial (every trial then needs its point).
    pub tighten: Option<&'a RhoOf<'a>>,
}

/// The smallest largest ratio `rho` between `lo` and `hi` (where `start` is feasible) to a
/// relative precision of 1e-5, and a feasible allocation there, for ratios of the form
/// `rho_j(x) = (t_j + R_j / thr_j(x)) / D_j` with `a_j = t_j / D_j`.
///
/// `max_scale(rho)` gives the largest factor `z` by which every job's demand at `rho`
/// (`thr_j >= R_j / (rho D_j - t_j)`) can be met at once, with its allocation, and
/// `feasible(rho)` a feasible point near the centre of the feasible set (or None).
/// Dinkelbach-style steps come first: every `rho'` with `rho' >= (rho - a_j) / z + a_j` for
/// all j is feasible (the same allocation), and every `rho''` below that bound for all j is
/// not (`z` is the largest uniform factor), so each scaling LP gives an upper and a lower
/// bound. A few steps bring them close; bisection on `feasible` finishes, and the answer is
/// always `feasible`'s point, at the last feasible trial (a trial `search.decide` finds
/// feasible gets its point only if it stays the last; should that point then fail, the
/// previous point is kept). `search.tighten`, when given, is the largest rho of an
/// allocation, which then becomes the bisection's new upper end when lower than the point
/// asked for.
pub(super) fn search_rho(
    a: &[f64],
    lo: f64,
    hi: f64,
    start: Vec<Vec<f64>>,
    max_scale: impl Fn(f64) -> Option<(Vec<Vec<f64>>, f64)>,
    feasible: impl Fn(f64) -> Option<Vec<Vec<f64>>>,
    search: Search,
) -> (Vec<Vec<f64>>, f64) {
    let tighten = search.tighten;
    let decide = search.decide.filter(|_| tighten.is_none());
    let (mut lo, mut hi, mut best) = (lo, hi, start);
    // A feasible trial whose point is not computed yet.
    let mut pending: Option<f64> = None;
    let mut from_scale = false;
    for _ in 0..12 {
        if hi - lo <= 1e-5 * hi {
            break;
        }
        let Some((x, z)) = max_scale(hi) else {
            break;
        };
        let step = |r: f64, aj: f64| (r - aj) / z + aj;
        let upper = a
            .iter()
            .map(|&aj| step(hi, aj))
            .fold(f64::NEG_INFINITY, f64::max);
        let lower = a
            .iter()
            .map(|&aj| step(hi, aj))
            .fold(f64::INFINITY, f64::min);
        // z comes from a solver with a 1e-8 tolerance: keep the lower bound on the safe side.
        lo = lo.max(lower * (1.0 - 1e-7));
        if upper < hi * (1.0 - 1e-7) {
            hi = upper;
            best = x;
            from_scale = true;
        } else {
            break;
        }
    }
    lo = lo.min(hi);
    while hi - lo > 1e-5 * hi {
        let mid = 0.5 * (lo + hi);
        match decide.and_then(|d| d(mid)) {
            Some(false) => {
                lo = mid;
                continue;
            }
            Some(true) => {
                hi = mid;
                pending = Some(mid);
                from_scale = false;
                continue;
            }
            None => {}
        }
        match feasible(mid) {
            Some(x) => {
                hi = match tighten {
                    Some(rho_at) => {
                        let r = rho_at(&x);
                        if r.is_finite() {
                            r.max(lo).min(mid)
                        } else {
                            mid
                        }
                    }
                    None => mid,
                };
                best = x;
                pending = None;
                from_scale = false;
            }
            None => lo = mid,
        }
    }
    if let Some(rho) = pending {
        if let Some(x) = feasible(rho) {
            best = x;
        }
    }
    if from_scale {
        // A point near the centre of the feasible set at hi, as the bisection gives (the
        // scaling LP's optimum sits on the set's boundary).
        if let Some(x) = feasible(hi) {
            best = x;
        }
    }
    (best, hi)
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
