//! L-BFGS-B (Byrd, Lu, Nocedal and Zhu, 1995, version 3.0), the bounded limited-memory
//! quasi-Newton method with which Pollux and Sia fit their throughput model
//! ([`super::fit_perf_params`]; both call scipy's `minimize` with its defaults).
//!
//! Each iteration:
//! 1. finds the generalized Cauchy point, the first local minimiser of the quadratic model
//!    along the projected steepest-descent path `P(x - t g)`, walking its breakpoints;
//! 2. minimises the model over the variables still free there (the others held at their
//!    bounds), and keeps that point if it is a descent direction after projection onto the
//!    box, else the step toward it up to the first bound;
//! 3. searches along the direction to that point with the Moré–Thuente line search
//!    ([`super::linesearch`]; `ftol 1e-3`, `gtol 0.9`, `xtol 0.1`; the first iteration's
//!    step is at most of unit length and never leaves the box), at most 20 evaluations;
//! 4. keeps the step and gradient change when its curvature is positive (ten pairs).
//!
//! It stops when the projected gradient is at most `1e-5`, when an iteration decreases
//! `f` by at most `ftol` relative to `max(|f|, 1)` (scipy's default `1e7` machine epsilons;
//! Sia passes `tol=1e-5`), after 15000 iterations
//! or function evaluations, or when a line search fails with no curvature pairs kept (with
//! pairs it drops them and tries again). The other limits are scipy's defaults.
//!
//! The method is written out here rather than taken from a crate because the fitted
//! parameters must be those of scipy's code, iteration for iteration: a bounded
//! quasi-Newton method with another Cauchy step, line search or stop rule stops at other
//! parameters on the one- and two-observation fits the schedulers see first. With seven
//! variables the quasi-Newton matrix is kept dense (`B = theta I` updated by the kept
//! pairs, which is the compact form's matrix), which is both simpler and faster than the
//! compact representation at this size.

use super::linesearch::{Next, Search};

/// Number of correction pairs kept.
const MEMORY: usize = 10;
/// scipy's default stop on the relative decrease of the objective (`factr = 1e7`).
pub const DEFAULT_FTOL: f64 = 1e7 * f64::EPSILON;
/// Stop when the largest component of the projected gradient is at most this.
const PGTOL: f64 = 1e-5;
/// Maximum number of iterations, and of objective evaluations.
const MAX_ITER: usize = 15000;
/// Maximum number of objective evaluations per line search.
const MAX_LS: usize = 20;
/// Line-search tolerances: sufficient decrease, curvature, interval width.
const LS_TOLERANCES: [f64; 3] = [1e-3, 0.9, 0.1];
/// The largest step a line search may take along an unbounded direction.
const BIG: f64 = 1e10;

/// Number of variables.
const N: usize = 7;
/// A vector of the variables.
type V = [f64; N];
/// A dense symmetric matrix over the variables.
type M = [[f64; N]; N];

fn dot(a: &V, b: &V) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn mul(m: &M, v: &V) -> V {
    let mut out = [0.0; N];
    for (o, row) in out.iter_mut().zip(m) {
        *o = dot(row, v);
    }
    out
}

/// Why the minimisation stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// The projected gradient is at most `1e-5`.
    Gradient,
    /// The last iteration decreased `f` by a relative amount of at most `ftol`.
    Reduction,
    /// The iteration or evaluation limit.
    Limit,
    /// A line search found no acceptable step from a steepest-descent direction, or the
    /// objective is not finite at the start.
    Abnormal,
}

/// The result of a minimisation.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// The last iterate.
    pub x: V,
    /// The objective there.
    pub f: f64,
    /// Completed iterations.
    pub iterations: usize,
    /// Objective evaluations, the first included.
    pub evaluations: usize,
    /// Why it stopped.
    pub stop: Stop,
}

/// The box: `lower <= x <= upper`, infinite where a variable has no bound; a variable
/// with `lower == upper` is fixed.
struct Bounds<'a> {
    lower: &'a V,
    upper: &'a V,
}

impl Bounds<'_> {
    fn has_lower(&self, i: usize) -> bool {
        self.lower[i].is_finite()
    }

    fn has_upper(&self, i: usize) -> bool {
        self.upper[i].is_finite()
    }

    fn project(&self, x: &mut V) {
        for (i, v) in x.iter_mut().enumerate() {
            if self.has_upper(i) {
                *v = v.min(self.upper[i]);
            }
            if self.has_lower(i) {
                *v = v.max(self.lower[i]);
            }
        }
    }

    /// Largest component of the projected gradient `P(x - g) - x`.
    fn projected_gradient_norm(&self, x: &V, g: &V) -> f64 {
        let mut norm: f64 = 0.0;
        for i in 0..N {
            let mut gi = g[i];
            if gi < 0.0 {
                if self.has_upper(i) {
                    gi = gi.max(x[i] - self.upper[i]);
                }
            } else if self.has_lower(i) {
                gi = gi.min(x[i] - self.lower[i]);
            }
            norm = norm.max(gi.abs());
        }
        norm
    }

    /// The step along `d` from `x` (variable `i`) at which it meets its bound, when that is
    /// shorter than `cap` (0 when it is already at the bound `d` points past).
    fn step_to_bound(&self, i: usize, x: f64, d: f64, cap: f64) -> Option<f64> {
        let room = if d < 0.0 && self.has_lower(i) {
            self.lower[i] - x
        } else if d > 0.0 && self.has_upper(i) {
            self.upper[i] - x
        } else {
            return None;
        };
        if room * d.signum() <= 0.0 {
            Some(0.0)
        } else if d * cap * d.signum() > room * d.signum() {
            Some(room / d)
        } else {
            None
        }
    }

    fn fixed(&self, i: usize) -> bool {
        self.lower[i] == self.upper[i]
    }
}

/// The kept correction pairs and the dense quasi-Newton matrix they make.
struct Memory {
    pairs: Vec<(V, V)>,
    /// `B = theta I` updated by every pair, oldest first.
    b: M,
}

impl Memory {
    fn new() -> Self {
        let mut m = Memory {
            pairs: Vec::with_capacity(MEMORY),
            b: [[0.0; N]; N],
        };
        m.rebuild();
        m
    }

    fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    fn clear(&mut self) {
        self.pairs.clear();
        self.rebuild();
    }

    fn push(&mut self, s: V, y: V) {
        if self.pairs.len() == MEMORY {
            self.pairs.remove(0);
        }
        self.pairs.push((s, y));
        self.rebuild();
    }

    /// `theta = y.y / s.y` of the newest pair (1 without pairs), then one BFGS update
    /// `B <- B - (B s)(B s)' / s'B s + y y' / y's` per pair.
    fn rebuild(&mut self) {
        let theta = self
            .pairs
            .last()
            .map_or(1.0, |(s, y)| dot(y, y) / dot(s, y));
        let mut b = [[0.0; N]; N];
        for (i, row) in b.iter_mut().enumerate() {
            row[i] = theta;
        }
        for (s, y) in &self.pairs {
            let bs = mul(&b, s);
            let sbs = dot(s, &bs);
            let ys = dot(y, s);
            for i in 0..N {
                for j in 0..N {
                    b[i][j] += y[i] * y[j] / ys - bs[i] * bs[j] / sbs;
                }
            }
        }
        self.b = b;
    }
}

/// The generalized Cauchy point from `x` with gradient `g`, and which variables are free
/// there (not held at a bound).
fn cauchy(x: &V, g: &V, bounds: &Bounds, b: &M) -> (V, [bool; N]) {
    let mut xc = *x;
    let mut free = [false; N];
    let mut d = [0.0; N];
    // (breakpoint, variable) for every moving variable that meets a bound.
    let mut breaks: Vec<(f64, usize)> = Vec::with_capacity(N);
    let mut bounded = true;
    for i in 0..N {
        if bounds.fixed(i) {
            continue;
        }
        let neg_g = -g[i];
        let at_lower = bounds.has_lower(i) && x[i] - bounds.lower[i] <= 0.0;
        let at_upper = bounds.has_upper(i) && bounds.upper[i] - x[i] <= 0.0;
        let held = (at_lower && neg_g <= 0.0) || (at_upper && neg_g >= 0.0);
        if held {
            continue;
        }
        free[i] = true;
        if neg_g == 0.0 {
            continue;
        }
        d[i] = neg_g;
        if neg_g < 0.0 && bounds.has_lower(i) {
            breaks.push(((x[i] - bounds.lower[i]) / -neg_g, i));
        } else if neg_g > 0.0 && bounds.has_upper(i) {
            breaks.push(((bounds.upper[i] - x[i]) / neg_g, i));
        } else {
            bounded = false;
        }
    }
    if d.iter().all(|&v| v == 0.0) {
        return (xc, free);
    }
    // Derivatives of the model m(z) = g.(z - x) + (z - x)'B(z - x)/2 along d from xc.
    let mut f1 = -dot(&d, &d);
    let mut bd = mul(b, &d);
    let mut f2 = dot(&d, &bd);
    let f2_org = f2;
    let mut dtm = -f1 / f2;
    let mut t_old = 0.0;
    crate::order::sort_by(&mut breaks, |a, b| a.0.total_cmp(&b.0));
    let mut left = breaks.len();
    for &(t, i) in &breaks {
        let dt = t - t_old;
        if dtm < dt {
            break;
        }
        // Move to the breakpoint; variable i meets its bound and leaves the path.
        for (xj, dj) in xc.iter_mut().zip(&d) {
            *xj += dt * dj;
        }
        xc[i] = if d[i] > 0.0 {
            bounds.upper[i]
        } else {
            bounds.lower[i]
        };
        free[i] = false;
        d[i] = 0.0;
        t_old = t;
        left -= 1;
        bd = mul(b, &d);
        let mut z = [0.0; N];
        for j in 0..N {
            z[j] = xc[j] - x[j];
        }
        f1 = dot(g, &d) + dot(&z, &bd);
        f2 = dot(&d, &bd).max(f64::EPSILON * f2_org);
        dtm = if left > 0 || !bounded { -f1 / f2 } else { 0.0 };
        if left == 0 {
            break;
        }
    }
    let dtm = dtm.max(0.0);
    for (xj, dj) in xc.iter_mut().zip(&d) {
        *xj += dtm * dj;
    }
    (xc, free)
}

/// Solves `A u = r` for a symmetric positive definite `A` of size `n` (Cholesky); `None`
/// when `A` is not positive definite.
fn solve_spd(a: &mut [[f64; N]; N], r: &mut [f64; N], n: usize) -> Option<()> {
    for j in 0..n {
        let d = a[j][..j].iter().fold(a[j][j], |d, v| d - v * v);
        if d <= 0.0 || !d.is_finite() {
            return None;
        }
        let d = d.sqrt();
        a[j][j] = d;
        for i in j + 1..n {
            let (row_i, row_j) = (a[i], a[j]);
            let v = row_i[..j]
                .iter()
                .zip(&row_j[..j])
                .fold(row_i[j], |v, (x, y)| v - x * y);
            a[i][j] = v / d;
        }
    }
    for i in 0..n {
        let mut v = r[i];
        for k in 0..i {
            v -= a[i][k] * r[k];
        }
        r[i] = v / a[i][i];
    }
    for i in (0..n).rev() {
        let mut v = r[i];
        for k in i + 1..n {
            v -= a[k][i] * r[k];
        }
        r[i] = v / a[i][i];
    }
    Some(())
}

/// The minimiser of the model over the free variables from the Cauchy point `xc`, kept if
/// its projection onto the box is a descent direction from `x`, else the step toward it
/// truncated at the first bound. `None` when the reduced matrix is singular.
fn subspace(x: &V, g: &V, xc: &V, free: &[bool; N], bounds: &Bounds, b: &M) -> Option<V> {
    let idx: Vec<usize> = (0..N).filter(|&i| free[i]).collect();
    let n = idx.len();
    if n == 0 {
        return Some(*xc);
    }
    let mut z = [0.0; N];
    for i in 0..N {
        z[i] = xc[i] - x[i];
    }
    let bz = mul(b, &z);
    let mut a = [[0.0; N]; N];
    let mut du = [0.0; N];
    for (p, &i) in idx.iter().enumerate() {
        du[p] = -(g[i] + bz[i]);
        for (q, &j) in idx.iter().enumerate() {
            a[p][q] = b[i][j];
        }
    }
    solve_spd(&mut a, &mut du, n)?;

    let mut out = *xc;
    for (p, &i) in idx.iter().enumerate() {
        out[i] = xc[i] + du[p];
    }
    bounds.project(&mut out);
    let mut dd = 0.0;
    for i in 0..N {
        dd += (out[i] - x[i]) * g[i];
    }
    if dd <= 0.0 {
        return Some(out);
    }
    // Not a descent direction after projection: the longest feasible step toward the
    // subspace minimiser.
    let mut out = *xc;
    let mut alpha: f64 = 1.0;
    let mut limit = 1.0;
    let mut hit = None;
    for (p, &i) in idx.iter().enumerate() {
        if let Some(l) = bounds.step_to_bound(i, out[i], du[p], alpha) {
            limit = l;
        }
        if limit < alpha {
            alpha = limit;
            hit = Some(p);
        }
    }
    if alpha < 1.0 {
        if let Some(p) = hit {
            let i = idx[p];
            out[i] = if du[p] > 0.0 {
                bounds.upper[i]
            } else {
                bounds.lower[i]
            };
            du[p] = 0.0;
        }
    }
    for (p, &i) in idx.iter().enumerate() {
        out[i] += alpha * du[p];
    }
    Some(out)
}

/// The largest step along `d` from `x` that stays in the box (`BIG` when unbounded).
fn max_step(x: &V, d: &V, bounds: &Bounds) -> f64 {
    let mut stpmx = BIG;
    for i in 0..N {
        if let Some(l) = bounds.step_to_bound(i, x[i], d[i], stpmx) {
            stpmx = l;
        }
    }
    stpmx
}

/// Minimises `fun` (which returns the value and writes the gradient) over the box
/// `[lower, upper]` from `x0` by L-BFGS-B, stopping when an iteration decreases `f` by at
/// most `ftol` relative to `max(|f|, |f_old|, 1)` (or on the other rules above). Variables
/// with `lower == upper` stay fixed.
pub fn minimize_bounded<F>(mut fun: F, x0: &V, lower: &V, upper: &V, ftol: f64) -> Outcome
where
    F: FnMut(&V, &mut V) -> f64,
{
    let bounds = Bounds { lower, upper };
    let all_boxed = (0..N).all(|i| bounds.has_lower(i) && bounds.has_upper(i));
    let mut x = *x0;
    bounds.project(&mut x);
    let mut g = [0.0; N];
    let mut f = fun(&x, &mut g);
    let mut out = Outcome {
        x,
        f,
        iterations: 0,
        evaluations: 1,
        stop: Stop::Abnormal,
    };
    if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return out;
    }
    if bounds.projected_gradient_norm(&x, &g) <= PGTOL {
        out.stop = Stop::Gradient;
        return out;
    }
    let mut memory = Memory::new();
    loop {
        // The search direction: to the subspace minimiser from the Cauchy point.
        let (xc, free) = cauchy(&x, &g, &bounds, &memory.b);
        let z = if memory.is_empty() {
            Some(xc)
        } else {
            subspace(&x, &g, &xc, &free, &bounds, &memory.b)
        };
        let Some(z) = z else {
            memory.clear();
            continue;
        };
        let mut d = [0.0; N];
        for i in 0..N {
            d[i] = z[i] - x[i];
        }

        // The line search along d.
        let d_norm = dot(&d, &d).sqrt();
        let stpmx = if out.iterations == 0 {
            1.0
        } else {
            max_step(&x, &d, &bounds)
        };
        let mut stp = if out.iterations == 0 && !all_boxed {
            (1.0 / d_norm).min(stpmx)
        } else {
            1.0
        };
        let gd0 = dot(&g, &d);
        let found = if gd0 >= 0.0 || d_norm == 0.0 {
            None
        } else {
            let mut search = Search::new(f, gd0, stp, LS_TOLERANCES, 0.0, stpmx);
            let mut found = None;
            for _ in 0..MAX_LS {
                let mut xt = [0.0; N];
                for i in 0..N {
                    xt[i] = if stp == 1.0 { z[i] } else { x[i] + stp * d[i] };
                }
                let mut gt = [0.0; N];
                let ft = fun(&xt, &mut gt);
                out.evaluations += 1;
                if !ft.is_finite() || gt.iter().any(|v| !v.is_finite()) {
                    break;
                }
                let gd = dot(&gt, &d);
                match search.step(stp, ft, gd) {
                    Next::Evaluate(next) => stp = next,
                    _ => {
                        found = Some((xt, ft, gt, gd));
                        break;
                    }
                }
                if out.evaluations >= MAX_ITER {
                    break;
                }
            }
            found
        };
        let Some((xt, ft, gt, gd)) = found else {
            if memory.is_empty() || out.evaluations >= MAX_ITER {
                out.stop = if out.evaluations >= MAX_ITER {
                    Stop::Limit
                } else {
                    Stop::Abnormal
                };
                break;
            }
            memory.clear();
            continue;
        };

        out.iterations += 1;
        let (f_old, g_old) = (f, g);
        x = xt;
        f = ft;
        g = gt;
        if bounds.projected_gradient_norm(&x, &g) <= PGTOL {
            out.stop = Stop::Gradient;
            break;
        }
        if f_old - f <= ftol * f_old.abs().max(f.abs()).max(1.0) {
            out.stop = Stop::Reduction;
            break;
        }
        if out.iterations >= MAX_ITER || out.evaluations >= MAX_ITER {
            out.stop = Stop::Limit;
            break;
        }
        let mut s = [0.0; N];
        let mut y = [0.0; N];
        for i in 0..N {
            s[i] = stp * d[i];
            y[i] = g[i] - g_old[i];
        }
        let sy = (gd - gd0) * stp;
        if sy > f64::EPSILON * (-gd0 * stp) {
            memory.push(s, y);
        }
    }
    out.x = x;
    out.f = f;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts `x` equals scipy's answer `want` to `tol` per component.
    fn assert_close(x: &V, want: &V, tol: f64) {
        for i in 0..N {
            assert!((x[i] - want[i]).abs() <= tol, "x = {x:?}, scipy {want:?}");
        }
    }

    #[test]
    fn stops_where_scipy_stops_on_a_bounded_quadratic() {
        // f = sum w_i (x_i - c_i)^2 from x = 1: a fixed variable, one held at each kind of
        // bound. scipy 1.15 (`minimize(method="L-BFGS-B", jac=True)`) stops after 28
        // iterations and 34 evaluations on its relative-reduction test, short of the exact
        // minimum [3, 0, 0.5, 50, 1e-3, 4, 2]; this implementation stops at the same point.
        let c = [3.0, -2.0, 0.5, 100.0, 1e-3, 7.0, 2.0];
        let w = [1.0, 10.0, 0.1, 1.0, 1e4, 1.0, 5.0];
        let fun = |x: &V, g: &mut V| {
            let mut f = 0.0;
            for i in 0..N {
                f += w[i] * (x[i] - c[i]) * (x[i] - c[i]);
                g[i] = 2.0 * w[i] * (x[i] - c[i]);
            }
            f
        };
        let lower = [0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 1.0];
        let upper = [10.0, 10.0, 10.0, 50.0, 10.0, 4.0, 10.0];
        let out = minimize_bounded(fun, &[1.0; N], &lower, &upper, DEFAULT_FTOL);
        let scipy = [
            3.000243041942429,
            0.0,
            0.4998988630923573,
            50.0,
            0.00099949927964212,
            4.0,
            2.000169222565976,
        ];
        assert_eq!((out.x[1], out.x[3], out.x[5]), (0.0, 50.0, 4.0));
        assert_close(&out.x, &scipy, 1e-8);
        assert_eq!(
            (out.iterations, out.evaluations, out.stop),
            (28, 34, Stop::Reduction)
        );
    }

    #[test]
    fn stops_where_scipy_stops_on_a_bounded_rosenbrock() {
        // The 7-variable Rosenbrock function from the classic start, x0 <= 0.5 and x6 >= 1e-8
        // binding: scipy stops after 25 iterations and 28 evaluations at f = 4.625122471527823.
        let fun = |x: &V, g: &mut V| {
            let mut f = 0.0;
            *g = [0.0; N];
            for i in 0..N - 1 {
                let (a, b) = (x[i + 1] - x[i] * x[i], 1.0 - x[i]);
                f += 100.0 * a * a + b * b;
                g[i] += -400.0 * x[i] * a - 2.0 * b;
                g[i + 1] += 200.0 * a;
            }
            f
        };
        let lower = [-2.0, -2.0, -2.0, -2.0, -2.0, -2.0, 1e-8];
        let upper = [0.5, 2.0, 2.0, 2.0, 2.0, 2.0, f64::INFINITY];
        let x0 = [-1.2, 1.0, -1.2, 1.0, -1.2, 1.0, 1.5];
        let out = minimize_bounded(fun, &x0, &lower, &upper, DEFAULT_FTOL);
        let scipy = [
            0.5,
            0.26306596037075597,
            0.08003108118288962,
            0.016574148254993194,
            0.010375888176655699,
            0.010007466327188746,
            0.00010013916809077155,
        ];
        assert_close(&out.x, &scipy, 1e-7);
        assert!((out.f - 4.625122471527823).abs() < 1e-10, "{out:?}");
        assert_eq!((out.iterations, out.evaluations), (25, 28), "{out:?}");
    }
}
