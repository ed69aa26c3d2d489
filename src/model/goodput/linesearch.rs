//! The Moré–Thuente line search (MINPACK-2's `dcsrch` and `dcstep`), the search of the
//! bounded quasi-Newton method in [`super::lbfgs`].
//!
//! It looks for a step `stp` along a descent direction with the sufficient decrease
//! `f(stp) <= f(0) + ftol stp f'(0)` and the curvature condition
//! `|f'(stp)| <= gtol |f'(0)|`, extrapolating (up to four times the last step) until a
//! minimiser is bracketed and then interpolating with safeguarded cubic and quadratic
//! steps. It is written out here, rather than taken from an optimisation crate, because
//! Pollux's and Sia's fits run scipy's L-BFGS-B, whose steps (and so whose fitted
//! parameters) follow this exact search: a search with other rules stops elsewhere.

/// Extrapolation bounds: the next trial step lies in `[stp + 1.1 (stp - stx),
/// stp + 4 (stp - stx)]` until a minimiser is bracketed.
const XTRAPL: f64 = 1.1;
const XTRAPU: f64 = 4.0;

/// What the search asks for next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Evaluate the function and its derivative at this step.
    Evaluate(f64),
    /// The step satisfies both conditions.
    Converged,
    /// No better step can be found (rounding, the interval is below `xtol`, or the step is
    /// at `stpmax` or `stpmin`); the last step is the best found.
    Warning,
}

/// The state of one search. Create it with the function value and derivative at step 0
/// and the first trial step, then feed it the value and derivative at every step it asks
/// for.
pub struct Search {
    gtol: f64,
    xtol: f64,
    stpmin: f64,
    stpmax: f64,
    brackt: bool,
    stage1: bool,
    finit: f64,
    ginit: f64,
    gtest: f64,
    width: f64,
    width1: f64,
    stx: f64,
    fx: f64,
    gx: f64,
    sty: f64,
    fy: f64,
    gy: f64,
    stmin: f64,
    stmax: f64,
}

impl Search {
    /// A search from `f(0) = f0`, `f'(0) = g0 < 0` whose first trial step is `stp`
    /// (`stpmin <= stp <= stpmax`).
    pub fn new(f0: f64, g0: f64, stp: f64, tolerances: [f64; 3], stpmin: f64, stpmax: f64) -> Self {
        let [ftol, gtol, xtol] = tolerances;
        Search {
            gtol,
            xtol,
            stpmin,
            stpmax,
            brackt: false,
            stage1: true,
            finit: f0,
            ginit: g0,
            gtest: ftol * g0,
            width: stpmax - stpmin,
            width1: (stpmax - stpmin) / 0.5,
            stx: 0.0,
            fx: f0,
            gx: g0,
            sty: 0.0,
            fy: f0,
            gy: g0,
            stmin: 0.0,
            stmax: stp + XTRAPU * stp,
        }
    }

    /// Given `f(stp)` and `f'(stp)` at the step last asked for, what to do next.
    pub fn step(&mut self, stp: f64, f: f64, g: f64) -> Next {
        let ftest = self.finit + stp * self.gtest;
        if self.stage1 && f <= ftest && g >= 0.0 {
            self.stage1 = false;
        }
        let mut warn = self.brackt
            && (stp <= self.stmin
                || stp >= self.stmax
                || self.stmax - self.stmin <= self.xtol * self.stmax);
        warn |= stp == self.stpmax && f <= ftest && g <= self.gtest;
        warn |= stp == self.stpmin && (f > ftest || g >= self.gtest);
        if f <= ftest && g.abs() <= self.gtol * -self.ginit {
            return Next::Converged;
        }
        if warn {
            return Next::Warning;
        }

        let mut stp = stp;
        if self.stage1 && f <= self.fx && f > ftest {
            // The modified function psi(stp) = f(stp) - f(0) - ftol stp f'(0) until a step
            // with psi <= 0 and f' >= 0 is found.
            let gt = self.gtest;
            let mut x = Point {
                st: self.stx,
                f: self.fx - self.stx * gt,
                g: self.gx - gt,
            };
            let mut y = Point {
                st: self.sty,
                f: self.fy - self.sty * gt,
                g: self.gy - gt,
            };
            let p = Point {
                st: stp,
                f: f - stp * gt,
                g: g - gt,
            };
            stp = dcstep(&mut x, &mut y, p, &mut self.brackt, self.stmin, self.stmax);
            (self.stx, self.fx, self.gx) = (x.st, x.f + x.st * gt, x.g + gt);
            (self.sty, self.fy, self.gy) = (y.st, y.f + y.st * gt, y.g + gt);
        } else {
            let mut x = Point {
                st: self.stx,
                f: self.fx,
                g: self.gx,
            };
            let mut y = Point {
                st: self.sty,
                f: self.fy,
                g: self.gy,
            };
            let p = Point { st: stp, f, g };
            stp = dcstep(&mut x, &mut y, p, &mut self.brackt, self.stmin, self.stmax);
            (self.stx, self.fx, self.gx) = (x.st, x.f, x.g);
            (self.sty, self.fy, self.gy) = (y.st, y.f, y.g);
        }

        // Bisect when the bracket does not shrink fast enough.
        if self.brackt {
            if (self.sty - self.stx).abs() >= 0.66 * self.width1 {
                stp = self.stx + 0.5 * (self.sty - self.stx);
            }
            self.width1 = self.width;
            self.width = (self.sty - self.stx).abs();
            self.stmin = self.stx.min(self.sty);
            self.stmax = self.stx.max(self.sty);
        } else {
            self.stmin = stp + XTRAPL * (stp - self.stx);
            self.stmax = stp + XTRAPU * (stp - self.stx);
        }
        stp = stp.max(self.stpmin).min(self.stpmax);
        if self.brackt
            && (stp <= self.stmin
                || stp >= self.stmax
                || self.stmax - self.stmin <= self.xtol * self.stmax)
        {
            stp = self.stx;
        }
        if !stp.is_finite() {
            return Next::Warning;
        }
        Next::Evaluate(stp)
    }
}

/// A step with its function value and derivative.
#[derive(Clone, Copy)]
struct Point {
    st: f64,
    f: f64,
    g: f64,
}

/// `max(|a|, |b|, |c|) * sqrt((t/s)^2 - (a/s)(b/s))`, the scaled root of the cubic
/// interpolation, with the radicand floored at 0 when `floor`.
fn cubic_gamma(theta: f64, a: f64, b: f64, floor: bool) -> f64 {
    let s = theta.abs().max(a.abs()).max(b.abs());
    let r = (theta / s) * (theta / s) - (a / s) * (b / s);
    s * if floor { r.max(0.0) } else { r }.sqrt()
}

/// One safeguarded step: updates the interval `[x, y]` (x the best step so far) with the
/// trial `p` and returns the next trial step.
fn dcstep(
    x: &mut Point,
    y: &mut Point,
    p: Point,
    brackt: &mut bool,
    stpmin: f64,
    stpmax: f64,
) -> f64 {
    let sgnd = p.g.signum() * x.g.signum() * f64::from(p.g != 0.0 && x.g != 0.0);
    let stpf;
    if p.f > x.f {
        // Higher value: the minimum is bracketed. Cubic or half-way to the quadratic step.
        let theta = 3.0 * (x.f - p.f) / (p.st - x.st) + x.g + p.g;
        let mut gamma = cubic_gamma(theta, x.g, p.g, false);
        if p.st < x.st {
            gamma = -gamma;
        }
        let pp = (gamma - x.g) + theta;
        let q = ((gamma - x.g) + gamma) + p.g;
        let stpc = x.st + pp / q * (p.st - x.st);
        let stpq = x.st + ((x.g / ((x.f - p.f) / (p.st - x.st) + x.g)) / 2.0) * (p.st - x.st);
        stpf = if (stpc - x.st).abs() <= (stpq - x.st).abs() {
            stpc
        } else {
            stpc + (stpq - stpc) / 2.0
        };
        *brackt = true;
    } else if sgnd < 0.0 {
        // Derivatives of opposite sign: bracketed. The larger of the cubic and secant steps.
        let theta = 3.0 * (x.f - p.f) / (p.st - x.st) + x.g + p.g;
        let mut gamma = cubic_gamma(theta, x.g, p.g, false);
        if p.st > x.st {
            gamma = -gamma;
        }
        let pp = (gamma - p.g) + theta;
        let q = ((gamma - p.g) + gamma) + x.g;
        let stpc = p.st + pp / q * (x.st - p.st);
        let stpq = p.st + (p.g / (p.g - x.g)) * (x.st - p.st);
        stpf = if (stpc - p.st).abs() > (stpq - p.st).abs() {
            stpc
        } else {
            stpq
        };
        *brackt = true;
    } else if p.g.abs() < x.g.abs() {
        // Same sign, derivative decreasing in magnitude.
        let theta = 3.0 * (x.f - p.f) / (p.st - x.st) + x.g + p.g;
        let mut gamma = cubic_gamma(theta, x.g, p.g, true);
        if p.st > x.st {
            gamma = -gamma;
        }
        let pp = (gamma - p.g) + theta;
        let q = (gamma + (x.g - p.g)) + gamma;
        let r = pp / q;
        let stpc = if r < 0.0 && gamma != 0.0 {
            p.st + r * (x.st - p.st)
        } else if p.st > x.st {
            stpmax
        } else {
            stpmin
        };
        let stpq = p.st + (p.g / (p.g - x.g)) * (x.st - p.st);
        if *brackt {
            let f = if (stpc - p.st).abs() < (stpq - p.st).abs() {
                stpc
            } else {
                stpq
            };
            let limit = p.st + 0.66 * (y.st - p.st);
            stpf = if p.st > x.st {
                f.min(limit)
            } else {
                f.max(limit)
            };
        } else {
            let f = if (stpc - p.st).abs() > (stpq - p.st).abs() {
                stpc
            } else {
                stpq
            };
            stpf = f.max(stpmin).min(stpmax);
        }
    } else if *brackt {
        // Same sign, derivative not decreasing: cubic step toward the other end.
        let theta = 3.0 * (p.f - y.f) / (y.st - p.st) + y.g + p.g;
        let mut gamma = cubic_gamma(theta, y.g, p.g, false);
        if p.st > y.st {
            gamma = -gamma;
        }
        let pp = (gamma - p.g) + theta;
        let q = ((gamma - p.g) + gamma) + y.g;
        stpf = p.st + pp / q * (y.st - p.st);
    } else if p.st > x.st {
        stpf = stpmax;
    } else {
        stpf = stpmin;
    }

    if p.f > x.f {
        *y = p;
    } else {
        if sgnd < 0.0 {
            *y = *x;
        }
        *x = p;
    }
    stpf
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search on `phi` (value and derivative) from step `stp0`.
    fn search(phi: impl Fn(f64) -> (f64, f64), stp0: f64, stpmax: f64) -> (f64, Next, usize) {
        let (f0, g0) = phi(0.0);
        let mut s = Search::new(f0, g0, stp0, [1e-3, 0.9, 0.1], 0.0, stpmax);
        let mut stp = stp0;
        for n in 1..100 {
            let (f, g) = phi(stp);
            match s.step(stp, f, g) {
                Next::Evaluate(next) => stp = next,
                end => return (stp, end, n),
            }
        }
        panic!("no end");
    }

    #[test]
    fn extrapolates_to_a_far_minimum() {
        // phi = (a - 100)^2: the first steps are far too short; the search extrapolates
        // by up to four times the step until the derivative turns, then stops at a step
        // with |phi'| <= 0.9 |phi'(0)|.
        let (stp, end, n) = search(|a| ((a - 100.0).powi(2), 2.0 * (a - 100.0)), 1.0, 1e10);
        assert_eq!(end, Next::Converged);
        assert!((20.0..=180.0).contains(&stp), "stp {stp}");
        assert!(n <= 6, "{n} evaluations");
    }

    #[test]
    fn takes_a_good_first_step() {
        // The unit step is the minimiser of the quadratic: accepted at once.
        let (stp, end, n) = search(|a| ((a - 1.0).powi(2), 2.0 * (a - 1.0)), 1.0, 1e10);
        assert_eq!((stp, end, n), (1.0, Next::Converged, 1));
    }

    #[test]
    fn interpolates_back_from_a_long_step() {
        // phi = -a exp(-a) has its minimum at 1; from a step of 10 the cubic brings it back.
        let phi = |a: f64| (-a * (-a).exp(), (a - 1.0) * (-a).exp());
        let (stp, end, _) = search(phi, 10.0, 1e10);
        assert_eq!(end, Next::Converged);
        let (f, g) = phi(stp);
        assert!(f <= phi(0.0).0 + 1e-3 * stp * phi(0.0).1);
        assert!(g.abs() <= 0.9, "stp {stp}, g {g}");
    }

    #[test]
    fn stops_at_the_largest_step_allowed() {
        // A linear decrease has no minimiser: the search ends at stpmax with a warning.
        let (stp, end, _) = search(|a| (-a, -1.0), 0.5, 2.0);
        assert_eq!((stp, end), (2.0, Next::Warning));
    }
}
