//! Bounded limited-memory quasi-Newton minimisation over seven variables, the method that
//! fits Pollux's throughput model ([`super::fit_perf_params`]).
//!
//! Each iteration frees the variables not held at a bound by the gradient, takes the
//! quasi-Newton direction on them, and backtracks along the projected path `P(x + t d)`
//! until the Armijo condition `f(x_t) <= f(x) + c1 g.(x_t - x)` holds. The correction pairs
//! are kept with their projections onto the free variables, which change only when a
//! variable reaches or leaves a bound, so a direction costs two passes over at most ten
//! pairs.

/// Number of correction pairs kept by the quasi-Newton approximation.
const MEMORY: usize = 10;
/// Stop when the relative decrease of the objective falls below this.
const FTOL: f64 = 1e7 * f64::EPSILON;
/// Stop when the largest component of the projected gradient falls below this.
const PGTOL: f64 = 1e-5;
/// Maximum number of iterations.
const MAX_ITER: usize = 15000;
/// Maximum number of objective evaluations per line search.
const MAX_LS: usize = 20;
/// Sufficient-decrease (Armijo) constant of the line search.
const ARMIJO_C1: f64 = 1e-4;

/// A vector of the seven variables.
type V = [f64; 7];

fn dot(a: &V, b: &V) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `v` with the components of fixed variables set to 0.
fn mask(v: &V, free: &[bool; 7]) -> V {
    let mut out = [0.0; 7];
    for i in 0..7 {
        if free[i] {
            out[i] = v[i];
        }
    }
    out
}

/// A correction pair projected onto the free variables, with `s.y`, `y.y` and `1 / s.y`
/// there; `None` when it has no positive curvature there (it is then skipped, which keeps
/// the inverse Hessian positive definite).
#[derive(Clone, Copy)]
struct Projected {
    s: V,
    y: V,
    sy: f64,
    yy: f64,
    rho: f64,
}

impl Projected {
    fn of(s: &V, y: &V, free: &[bool; 7]) -> Option<Self> {
        let (s, y) = (mask(s, free), mask(y, free));
        let (sy, yy) = (dot(&s, &y), dot(&y, &y));
        (sy > f64::EPSILON * yy && sy > 0.0).then(|| Projected {
            s,
            y,
            sy,
            yy,
            rho: 1.0 / sy,
        })
    }
}

/// The correction pairs (step and gradient change), oldest first, and their projections
/// onto the free variables of the last direction.
struct Memory {
    pairs: Vec<(V, V)>,
    projected: Vec<Option<Projected>>,
    free: [bool; 7],
}

impl Memory {
    fn new() -> Self {
        Memory {
            pairs: Vec::with_capacity(MEMORY),
            projected: Vec::with_capacity(MEMORY),
            free: [false; 7],
        }
    }

    fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    fn clear(&mut self) {
        self.pairs.clear();
        self.projected.clear();
    }

    /// Keeps the pair `(s, y)`, dropping the oldest when full.
    fn push(&mut self, s: V, y: V) {
        if self.pairs.len() == MEMORY {
            self.pairs.remove(0);
            self.projected.remove(0);
        }
        self.projected.push(Projected::of(&s, &y, &self.free));
        self.pairs.push((s, y));
    }

    /// Quasi-Newton direction `-H g` restricted to the `free` variables, by the two-loop
    /// recursion over the pairs with positive curvature there.
    fn direction(&mut self, g: &V, free: &[bool; 7]) -> V {
        if *free != self.free {
            self.free = *free;
            self.projected.clear();
            for (s, y) in &self.pairs {
                self.projected.push(Projected::of(s, y, free));
            }
        }
        let mut q = mask(g, free);
        let mut alphas = [0.0; MEMORY];
        for (k, p) in self.projected.iter().enumerate().rev() {
            if let Some(p) = p {
                let a = p.rho * dot(&p.s, &q);
                alphas[k] = a;
                for (qi, yi) in q.iter_mut().zip(&p.y) {
                    *qi -= a * yi;
                }
            }
        }
        let h0 = match self.projected.iter().rev().flatten().next() {
            Some(p) => p.sy / p.yy,
            None => 1.0,
        };
        for v in q.iter_mut() {
            *v *= h0;
        }
        for (p, a) in self.projected.iter().zip(&alphas) {
            if let Some(p) = p {
                let b = p.rho * dot(&p.y, &q);
                for (qi, si) in q.iter_mut().zip(&p.s) {
                    *qi += si * (a - b);
                }
            }
        }
        for v in q.iter_mut() {
            *v = -*v;
        }
        q
    }
}

/// Projection onto the box `[lower, upper]`.
fn project(x: &mut V, lower: &V, upper: &V) {
    for i in 0..7 {
        x[i] = x[i].min(upper[i]).max(lower[i]);
    }
}

/// Largest component of the projected gradient `P(x - g) - x` over the non-fixed variables.
fn projected_gradient_norm(x: &V, g: &V, lower: &V, upper: &V) -> f64 {
    let mut norm: f64 = 0.0;
    for i in 0..7 {
        if lower[i] < upper[i] {
            let p = (x[i] - g[i]).min(upper[i]).max(lower[i]) - x[i];
            norm = norm.max(p.abs());
        }
    }
    norm
}

/// Minimises `fun` (which returns the value and writes the gradient) over the box
/// `[lower, upper]` from `x0`, by projected limited-memory BFGS.
///
/// It stops when the projected gradient is below `1e-5`, the relative decrease of `f` is
/// below `1e7 * machine epsilon`, after 15000 iterations, or when no decrease can be found.
/// Variables with `lower == upper` stay fixed.
pub fn minimize_bounded<F>(mut fun: F, x0: &V, lower: &V, upper: &V) -> V
where
    F: FnMut(&V, &mut V) -> f64,
{
    let mut x = *x0;
    project(&mut x, lower, upper);
    let mut g = [0.0; 7];
    let mut f = fun(&x, &mut g);
    if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return x;
    }
    let mut memory = Memory::new();

    for _ in 0..MAX_ITER {
        if projected_gradient_norm(&x, &g, lower, upper) <= PGTOL {
            break;
        }
        let mut free = [false; 7];
        for i in 0..7 {
            let held_low = x[i] <= lower[i] && g[i] > 0.0;
            let held_high = x[i] >= upper[i] && g[i] < 0.0;
            free[i] = lower[i] < upper[i] && !held_low && !held_high;
        }
        let mut d = memory.direction(&g, &free);
        let descent = dot(&g, &d) < 0.0;
        if !descent {
            memory.clear();
            d = memory.direction(&g, &free);
        }
        // Without curvature information the first trial step is at most of unit length.
        let d_norm = dot(&d, &d).sqrt();
        let mut t = if memory.is_empty() && d_norm > 1.0 {
            1.0 / d_norm
        } else {
            1.0
        };

        let mut accepted = None;
        for _ in 0..MAX_LS {
            let mut xt = [0.0; 7];
            for i in 0..7 {
                xt[i] = x[i] + t * d[i];
            }
            project(&mut xt, lower, upper);
            let mut step = [0.0; 7];
            for i in 0..7 {
                step[i] = xt[i] - x[i];
            }
            let slope = dot(&g, &step);
            let descent = slope < 0.0;
            if !descent {
                break;
            }
            let mut gt = [0.0; 7];
            let ft = fun(&xt, &mut gt);
            let finite = ft.is_finite() && gt.iter().all(|v| v.is_finite());
            if finite && ft <= f + ARMIJO_C1 * slope {
                accepted = Some((xt, ft, gt, step));
                break;
            }
            // Safeguarded minimiser of the quadratic through f(x), its slope and f(x_t).
            let next = if finite {
                let denom = 2.0 * (ft - f - slope);
                if denom > 0.0 {
                    -slope * t / denom
                } else {
                    0.5 * t
                }
            } else {
                0.5 * t
            };
            t = next.clamp(0.1 * t, 0.5 * t);
        }

        let Some((xt, ft, gt, s)) = accepted else {
            if memory.is_empty() {
                break;
            }
            memory.clear();
            continue;
        };
        let mut y = [0.0; 7];
        for i in 0..7 {
            y[i] = gt[i] - g[i];
        }
        if dot(&s, &y) > f64::EPSILON * dot(&y, &y) {
            memory.push(s, y);
        }
        let f_old = f;
        x = xt;
        f = ft;
        g = gt;
        if f_old - f <= FTOL * f_old.abs().max(f.abs()).max(1.0) {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_projections_give_the_directions_of_fresh_ones() {
        // Pairs pushed while the free variables change: each direction equals that of a
        // memory holding the same pairs and projecting them afresh.
        let mut rng = crate::rng::Rng::new(7);
        let v = |rng: &mut crate::rng::Rng| -> V {
            let mut out = [0.0; 7];
            for x in out.iter_mut() {
                *x = rng.range(-1.0, 1.0);
            }
            out
        };
        let mut kept = Memory::new();
        for step in 0..60 {
            let mut free = [true; 7];
            if step % 3 == 0 {
                for f in free.iter_mut() {
                    *f = rng.uniform() < 0.7;
                }
            }
            let g = v(&mut rng);
            let d = kept.direction(&g, &free);
            let mut fresh = Memory::new();
            for (s, y) in &kept.pairs {
                fresh.push(*s, *y);
            }
            let e = fresh.direction(&g, &free);
            assert_eq!(d.map(f64::to_bits), e.map(f64::to_bits), "step {step}");
            let s = v(&mut rng);
            // Mostly positive curvature, sometimes not (those pairs are skipped).
            let mut y = s;
            for (yi, n) in y.iter_mut().zip(v(&mut rng)) {
                *yi += 0.8 * n;
            }
            kept.push(s, y);
        }
        assert_eq!(kept.pairs.len(), MEMORY);
    }

    #[test]
    fn bounded_minimizer_on_quadratic() {
        // f = sum w_i (x_i - c_i)^2, minimum at the projection of c onto the box.
        let c = [3.0, -2.0, 0.5, 100.0, 1e-3, 7.0, 2.0];
        let w = [1.0, 10.0, 0.1, 1.0, 1e4, 1.0, 5.0];
        let fun = |x: &[f64; 7], g: &mut [f64; 7]| {
            let mut f = 0.0;
            for i in 0..7 {
                f += w[i] * (x[i] - c[i]) * (x[i] - c[i]);
                g[i] = 2.0 * w[i] * (x[i] - c[i]);
            }
            f
        };
        let lower = [0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 1.0];
        let upper = [10.0, 10.0, 10.0, 50.0, 10.0, 4.0, 10.0];
        let x = minimize_bounded(fun, &[1.0; 7], &lower, &upper);
        let expected = [3.0, 0.0, 0.5, 50.0, 1e-3, 4.0, 2.0];
        // Fixed and bound-held variables are exact.
        assert_eq!((x[1], x[3], x[5]), (0.0, 50.0, 4.0));
        // The others stop once an iteration gains less than 2.2e-9 relative to f = 2549.
        let mut g = [0.0; 7];
        let gap = fun(&x, &mut g) - fun(&expected, &mut g);
        assert!((0.0..1e-5).contains(&gap), "x = {x:?}, gap {gap}");
        for i in 0..7 {
            assert!((x[i] - expected[i]).abs() < 1e-3, "x = {x:?}");
        }
    }
}
