//! The smallest largest finish-time ratio `rho` by root-finding on the scaling LP's factor.
//!
//! For ratios `rho_j(x) = (t_j + R_j / thr_j(x)) / D_j` (`a_j = t_j / D_j`), the scaling LP
//! at a trial `r` gives the largest factor `z(r)` by which every job's demand at `r`
//! (`thr_j >= R_j / (D_j (r - a_j))`) can be met at once. `z` grows with `r` and the optimum
//! `rho*` is where `z = 1`. One LP at any `r` bounds `rho*` from both sides: with
//! `s_j = (r - a_j) / z + a_j`, every rho at or above `max_j s_j` is feasible (the same
//! allocation) and none below `min_j s_j` is (`z` is the largest uniform factor). The two
//! are `|1 - 1/z| (max a - min a)` apart, so one LP just above the root closes the bracket.
//!
//! `z` is nearly linear in `r` near the root when the same jobs bind on both sides, so a
//! secant through the last two trials, aimed a little above the root, needs a few LPs where
//! bisection needs one per halving. Where the most urgent job (largest `a_j`) starts to
//! bind, `z` bends sharply; a trial that falls far short of 1 there has that job's bound as
//! its lower bound, which is then the estimate. Trials that would leave the bracket, or
//! that stall it, bisect instead. The answer is the smallest trial whose factor clears 1 by
//! more than the solver's tolerance, once the bracket is within 1e-5 of it, with the
//! centre of the feasible set there (not the scaling LP's optimum, which sits on the set's
//! boundary). When the search starts at the root (the isolated allocation is already
//! optimal), every trial's factor is within the solver's tolerance of 1 and none is clearly
//! feasible; once the bracket has closed to within `AIM` one trial just above its top
//! settles it. On the `gavel` preset this takes 5.9 LPs a decision (at most 13), against
//! about 21 for Dinkelbach steps followed by bisection.

/// A scaling LP's answer at a trial: the allocation and its factor `z`.
pub(in crate::policy::gavel) type Scaled = Option<(Vec<Vec<f64>>, f64)>;

/// Relative precision of the answer.
const PRECISION: f64 = 1e-5;
/// The factors within this of 1 are left undecided (the LP's own tolerance is 1e-8).
const CLEAR: f64 = 1e-7;
/// How far above (or below) the root estimate a trial is placed, relative to it.
const AIM: f64 = 3e-6;
/// A trial whose factor falls this far short of 1 met the most urgent job's steep rise:
/// its lower bound is then the best estimate of the root.
const STEEP: f64 = 0.9;
/// At most this many scaling LPs.
const TRIALS: usize = 40;

/// The root search's answer: the allocation at the smallest clearly feasible trial and
/// that trial. `None` when no trial was clearly feasible or the LP failed, for callers to
/// search another way.
pub(in crate::policy::gavel) fn search_root(
    a: &[f64],
    lo: f64,
    hi: f64,
    max_scale: impl Fn(f64) -> Scaled,
    centre: impl Fn(f64) -> Option<Vec<Vec<f64>>>,
) -> Option<(Vec<Vec<f64>>, f64)> {
    let a_min = a.iter().copied().fold(f64::INFINITY, f64::min);
    let a_max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mut lo, mut up) = (lo, hi);
    // The smallest clearly feasible trial and its scaling LP's allocation.
    let mut clear: Option<(f64, Vec<Vec<f64>>)> = None;
    let mut last: Option<(f64, f64)> = None;
    let mut trial = hi;
    // The bracket's width after the trial before last and after the last.
    let mut widths = [f64::INFINITY; 2];
    // The one trial above a bracket closed with no clear trial has been made.
    let mut closing = false;
    for _ in 0..TRIALS {
        let (x, z) = max_scale(trial)?;
        let s = |aj: f64| (trial - aj) / z + aj;
        let (s1, s2) = (s(a_min), s(a_max));
        // z comes from a solver with a 1e-8 tolerance: keep both bounds on the safe side.
        lo = lo.max(s1.min(s2) * (1.0 - CLEAR));
        up = up.min(s1.max(s2) * (1.0 + CLEAR));
        if z > 1.0 + CLEAR && clear.as_ref().is_none_or(|(c, _)| trial < *c) {
            clear = Some((trial, x));
        }
        let top = clear.as_ref().map_or(up, |(c, _)| *c);
        lo = lo.min(top);
        if clear.is_some() && top - lo <= PRECISION * top {
            break;
        }
        if clear.is_none() && top - lo <= AIM * top {
            // Every trial so far had its factor within the solver's tolerance of 1 (the
            // root sits on the bracket's top, where the search started, say): one trial
            // just above the top clears it, within the precision, or no trial will.
            if closing {
                return None;
            }
            closing = true;
            trial = top * (1.0 + AIM);
            continue;
        }
        // The root estimate. After a trial that falls short, its lower bound (often the
        // root itself: z bends sharply there); otherwise the secant through the last two
        // trials or, when that leaves the bracket, the middle of this trial's bounds. The
        // next trial goes a little above it, to close the bracket from the top, or a little
        // below it once the top is that close. Bisection whenever two trials have not
        // narrowed the bracket.
        let inside = |r: f64| r.is_finite() && r > lo && r < top;
        let secant = match last {
            Some((r0, z0)) if z != z0 => trial + (1.0 - z) * (trial - r0) / (z - z0),
            _ => f64::NAN,
        };
        let mid = 0.5 * (s1 + s2);
        let guess = if z < STEEP {
            lo
        } else if inside(secant) {
            secant
        } else if inside(mid) {
            mid
        } else {
            0.5 * (lo + top)
        };
        last = Some((trial, z));
        let aimed = if top - guess <= 0.5 * PRECISION * top {
            guess * (1.0 - AIM)
        } else {
            guess * (1.0 + AIM)
        };
        let width = top - lo;
        let slow = widths[0] <= width;
        widths = [widths[1], width];
        trial = if inside(aimed) && !slow {
            aimed
        } else {
            0.5 * (lo + top)
        };
    }
    let (rho, x) = clear?;
    Some((centre(rho).unwrap_or(x), rho))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// The root search on `z(r) = min_j c_j (r - a_j)` (each job's factor under one fixed
    /// allocation): the answer and the number of scaling LPs asked for.
    fn solve(a: &[f64], c: &[f64], hi: f64) -> (f64, usize) {
        let asked = Cell::new(0);
        let max_scale = |r: f64| -> Scaled {
            asked.set(asked.get() + 1);
            let z = factor(a, c, r);
            (z > 0.0).then(|| (vec![vec![r]], z))
        };
        let lo = a.iter().copied().fold(0.0, f64::max);
        let (x, rho) = search_root(a, lo, hi, max_scale, |r| Some(vec![vec![-r]])).unwrap();
        assert_eq!(x, vec![vec![-rho]], "the centre at the answer");
        (rho, asked.get())
    }

    /// `z(r) = min_j c_j (r - a_j)`.
    fn factor(a: &[f64], c: &[f64], r: f64) -> f64 {
        a.iter()
            .zip(c)
            .map(|(&aj, &cj)| cj * (r - aj))
            .fold(f64::INFINITY, f64::min)
    }

    /// The root of `min_j c_j (r - a_j) = 1`: the largest `a_j + 1 / c_j`.
    fn root(a: &[f64], c: &[f64]) -> f64 {
        a.iter()
            .zip(c)
            .map(|(&aj, &cj)| aj + 1.0 / cj)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// `rho` at or above the root `want`, within the search's precision.
    fn assert_within(rho: f64, want: f64) {
        assert!(
            rho >= want && rho <= want * (1.0 + PRECISION),
            "{rho} vs {want}"
        );
    }

    #[test]
    fn equal_urgency_takes_a_few_lps() {
        // Every a_j equal: z is linear and the bounds meet at the root.
        let (a, c) = ([0.2, 0.2, 0.2], [2.0, 3.0, 5.0]);
        let (rho, asked) = solve(&a, &c, 3.0);
        let want = root(&a, &c);
        assert_within(rho, want);
        assert!(asked <= 3, "{asked} LPs");
    }

    #[test]
    fn a_search_that_starts_at_the_root_clears_it_just_above() {
        // The start is already optimal (the isolated allocation, say): every trial near it
        // has a factor within the solver's tolerance of 1, so none is clearly feasible
        // until one just above the bracket's top.
        let (a, c) = ([0.05, 0.3, 0.6], [1.0, 2.0, 4.0]);
        let want = root(&a, &c);
        let (rho, asked) = solve(&a, &c, want);
        assert_within(rho, want);
        assert!(asked <= 3, "{asked} LPs");
    }

    #[test]
    fn a_sharp_bend_at_the_most_urgent_job() {
        // A job that has waited long (a = 0.9) with a steep factor binds only at the root;
        // the others are far from binding there (flat z above it).
        let (a, c) = ([0.0, 0.01, 0.9], [1.0 / 0.9, 1.0 / 0.8, 1.0 / 0.0133]);
        let want = root(&a, &c);
        let (rho, asked) = solve(&a, &c, 1.5);
        assert_within(rho, want);
        assert!(asked <= 8, "{asked} LPs");
    }

    #[test]
    fn every_answer_is_clearly_feasible_and_within_the_precision() {
        let mut rng = crate::rng::Rng::new(11);
        let (mut most, mut total) = (0, 0);
        for _ in 0..500 {
            let n = 1 + rng.below(6) as usize;
            let a: Vec<f64> = (0..n).map(|_| 0.9 * rng.uniform()).collect();
            let c: Vec<f64> = (0..n).map(|_| 0.5 + 50.0 * rng.uniform()).collect();
            let want = root(&a, &c);
            let (rho, asked) = solve(&a, &c, want * 1.5 + 0.1);
            let z = factor(&a, &c, rho);
            assert!(z > 1.0 + CLEAR, "{z}");
            assert!(rho <= want * (1.0 + PRECISION), "{rho} vs {want}");
            most = most.max(asked);
            total += asked;
        }
        // Measured: 4.04 LPs on average, at most 8 (bisection alone: about 17).
        assert!(
            total <= 5 * 500 && most <= 10,
            "{total} LPs in all, at most {most}"
        );
    }
}
