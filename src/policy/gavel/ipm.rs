//! A primal-dual interior-point method for the structure every Gavel LP shares: jobs x a
//! few GPU types, per-job rows, a handful of coupling rows and at most one global variable.
//!
//! The LP, over `x[j][k] >= 0` (job `j`'s time fraction on type `k`) and an optional free
//! epigraph variable `t`:
//!
//! ```text
//! minimise    sum_jk q[j][k] x[j][k] - wt t
//! subject to  sum_k x[j][k]            <= 1        (each job: at most all of its time)
//!             sum_j s_j x[j][k]         <= N_k      (each type: its GPUs)
//!             e_t t - sum_k c[j][k] x[j][k] <= -b_j (each job: an optional row, e.g. t <= c_j . x_j)
//! ```
//!
//! Newton's normal equations `G' W G` are block-diagonal (one `K x K` block per job) plus
//! `K` rank-one coupling terms (the types' rows) and one border (`t`). Eliminating the
//! blocks leaves a dense system of `K + 1` unknowns, so an iteration costs `O(n K^3)`
//! with no sparse ordering or factorisation of a KKT matrix of `3nK` rows.
//!
//! Mehrotra's predictor-corrector with one step length for both sides, to Clarabel's
//! tolerances (`1e-8`). Like Clarabel (the general solver of [`super::lp`]) it ends inside
//! the optimal face when the optimum is not unique, which Gavel's round-based fidelity
//! depends on, but not at the same point: the two paths differ. Pure `f64` arithmetic
//! (`+ - * / sqrt`), so native and wasm give identical bits. `None` when the method stalls
//! (an empty interior, say); callers then solve the same LP with Clarabel.

/// One structured LP.
pub struct BlockLp<'a> {
    /// Each job's scale factor `s_j` (GPUs it uses).
    pub scale: &'a [f64],
    /// GPUs of each type `N_k`.
    pub counts: &'a [f64],
    /// The optional per-job rows: `t * e_t - c[j] . x[j] <= -b[j]`.
    pub rows: Option<Rows<'a>>,
    /// Objective coefficients on `x` (minimised); `None` for zero.
    pub cost: Option<&'a [Vec<f64>]>,
    /// Weight of `t` in the objective (maximised); 0 when there is no `t`.
    pub t_weight: f64,
}

/// Per-job rows `e_t t - c[j] . x[j] <= -b[j]`.
pub struct Rows<'a> {
    /// `c[j][k]`.
    pub coef: &'a [Vec<f64>],
    /// `b[j]` (the row reads `c[j] . x[j] >= b[j] + e_t t`); `None` for zeros.
    pub at_least: Option<&'a [f64]>,
    /// Whether the rows hold `t` (`e_t = 1`) or not (`e_t = 0`).
    pub with_t: bool,
}

/// Slacks or duals of every row, grouped by kind.
#[derive(Clone)]
struct RowVec {
    bound: Vec<f64>,
    sum: Vec<f64>,
    cap: Vec<f64>,
    epi: Vec<f64>,
}

impl RowVec {
    fn filled(n: usize, k: usize, epi: bool, v: f64) -> RowVec {
        RowVec {
            bound: vec![v; n * k],
            sum: vec![v; n],
            cap: vec![v; k],
            epi: vec![v; if epi { n } else { 0 }],
        }
    }
    fn iter(&self) -> impl Iterator<Item = &f64> {
        self.bound
            .iter()
            .chain(&self.sum)
            .chain(&self.cap)
            .chain(&self.epi)
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut f64> {
        self.bound
            .iter_mut()
            .chain(&mut self.sum)
            .chain(&mut self.cap)
            .chain(&mut self.epi)
    }
    fn len(&self) -> usize {
        self.bound.len() + self.sum.len() + self.cap.len() + self.epi.len()
    }
    fn dot(&self, o: &RowVec) -> f64 {
        let d = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        d(&self.bound, &o.bound)
            + d(&self.sum, &o.sum)
            + d(&self.cap, &o.cap)
            + d(&self.epi, &o.epi)
    }
    fn zip3(&self, o: &RowVec, p: &RowVec, f: impl Fn(f64, f64, f64) -> f64) -> RowVec {
        let m = |a: &[f64], b: &[f64], c: &[f64]| {
            a.iter()
                .zip(b)
                .zip(c)
                .map(|((&x, &y), &z)| f(x, y, z))
                .collect()
        };
        RowVec {
            bound: m(&self.bound, &o.bound, &p.bound),
            sum: m(&self.sum, &o.sum, &p.sum),
            cap: m(&self.cap, &o.cap, &p.cap),
            epi: m(&self.epi, &o.epi, &p.epi),
        }
    }
    fn zip_map(&self, o: &RowVec, f: impl Fn(f64, f64) -> f64) -> RowVec {
        let m = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect();
        RowVec {
            bound: m(&self.bound, &o.bound),
            sum: m(&self.sum, &o.sum),
            cap: m(&self.cap, &o.cap),
            epi: m(&self.epi, &o.epi),
        }
    }
}

/// The factorised normal equations for one set of row weights `W = y / s`.
struct Normal {
    /// Per job, the inverse of its block `B_j` (row-major `K x K`).
    inv: Vec<f64>,
    /// Per job, `B_j^-1 v_j` where `v_j` is the block's border with `t`.
    inv_v: Vec<f64>,
    /// The reduced system (row-major `(K + 1) x (K + 1)`, or `K x K` without `t`), LU
    /// factorised with its pivots.
    reduced: Vec<f64>,
    pivots: Vec<usize>,
}

/// Primal point: `x` (row-major `n x K`) and `t`.
#[derive(Clone)]
struct Point {
    x: Vec<f64>,
    t: f64,
}

impl<'a> BlockLp<'a> {
    /// `max t` subject to `c[j] . x[j] >= t` for every job (max-min fairness's LP).
    pub fn max_min(scale: &'a [f64], counts: &'a [f64], coef: &'a [Vec<f64>]) -> Self {
        BlockLp {
            scale,
            counts,
            rows: Some(Rows {
                coef,
                at_least: None,
                with_t: true,
            }),
            cost: None,
            t_weight: 1.0,
        }
    }

    /// Any point with `c[j] . x[j] >= b[j]` for every job: the analytic centre of that set.
    pub fn feasible(
        scale: &'a [f64],
        counts: &'a [f64],
        coef: &'a [Vec<f64>],
        at_least: &'a [f64],
    ) -> Self {
        BlockLp {
            scale,
            counts,
            rows: Some(Rows {
                coef,
                at_least: Some(at_least),
                with_t: false,
            }),
            cost: None,
            t_weight: 0.0,
        }
    }

    fn n(&self) -> usize {
        self.scale.len()
    }
    fn k(&self) -> usize {
        self.counts.len()
    }
    fn has_t(&self) -> bool {
        self.rows.as_ref().is_some_and(|r| r.with_t)
    }
    fn has_epi(&self) -> bool {
        self.rows.is_some()
    }

    /// `G z`.
    fn g(&self, p: &Point) -> RowVec {
        let (n, k) = (self.n(), self.k());
        let mut r = RowVec::filled(n, k, self.has_epi(), 0.0);
        for j in 0..n {
            let xj = &p.x[j * k..(j + 1) * k];
            let mut sum = 0.0;
            for (kk, &v) in xj.iter().enumerate() {
                r.bound[j * k + kk] = -v;
                sum += v;
                r.cap[kk] += self.scale[j] * v;
            }
            r.sum[j] = sum;
            if let Some(rows) = &self.rows {
                let cx: f64 = rows.coef[j].iter().zip(xj).map(|(c, v)| c * v).sum();
                r.epi[j] = if rows.with_t { p.t } else { 0.0 } - cx;
            }
        }
        r
    }

    /// `G' y`.
    fn gt(&self, y: &RowVec) -> Point {
        let (n, k) = (self.n(), self.k());
        let mut x = vec![0.0; n * k];
        let mut t = 0.0;
        for j in 0..n {
            for kk in 0..k {
                let mut v = -y.bound[j * k + kk] + y.sum[j] + self.scale[j] * y.cap[kk];
                if let Some(rows) = &self.rows {
                    v -= rows.coef[j][kk] * y.epi[j];
                }
                x[j * k + kk] = v;
            }
            if self.has_t() {
                t += y.epi[j];
            }
        }
        Point { x, t }
    }

    /// The right-hand side `h`.
    fn h(&self) -> RowVec {
        let (n, k) = (self.n(), self.k());
        let mut h = RowVec::filled(n, k, self.has_epi(), 0.0);
        h.sum.fill(1.0);
        h.cap.copy_from_slice(self.counts);
        if let Some(b) = self.rows.as_ref().and_then(|r| r.at_least) {
            for (e, b) in h.epi.iter_mut().zip(b) {
                *e = -b;
            }
        }
        h
    }

    /// The objective's gradient `q`.
    fn q(&self) -> Point {
        let (n, k) = (self.n(), self.k());
        let mut x = vec![0.0; n * k];
        if let Some(c) = self.cost {
            for j in 0..n {
                x[j * k..(j + 1) * k].copy_from_slice(&c[j]);
            }
        }
        Point {
            x,
            t: -self.t_weight,
        }
    }

    /// Factorise `G' W G` for row weights `w`.
    fn factor(&self, w: &RowVec) -> Option<Normal> {
        let (n, k) = (self.n(), self.k());
        let ht = self.has_t();
        let m = k + usize::from(ht);
        let mut inv = vec![0.0; n * k * k];
        let mut inv_v = vec![0.0; if ht { n * k } else { 0 }];
        let mut red = vec![0.0; m * m];
        let mut b = vec![0.0; k * k];
        for j in 0..n {
            // The block B = B~ + w_e c c' with B~ = diag(w_bound) + w_sum 11', each with a
            // regularisation of 1e-11 times its largest term (bounds, sum row, own row) on
            // its diagonal so that Cholesky keeps positive pivots when one row's weight
            // swamps the bounds' (the solves are refined against the exact matrix). B^-1 is formed from B's factor; the
            // border's Schur term d_j - v'B^-1 v (v = -w_e c) equals w_e / (1 + w_e g) with
            // g = c'B~^-1 c, from B~'s factor, which avoids subtracting nearly equal terms.
            let ws = w.sum[j];
            let bound = &w.bound[j * k..(j + 1) * k];
            let epi_top = self.rows.as_ref().map_or(0.0, |rows| {
                w.epi[j] * rows.coef[j].iter().fold(0.0f64, |a, &c| a.max(c * c))
            });
            let top = bound.iter().fold(ws, |a, &b| a.max(b + ws)) + epi_top;
            let reg = 1e-11 * top;
            for r in 0..k {
                for c in 0..k {
                    b[r * k + c] = ws;
                }
                b[r * k + r] += bound[r] + reg;
            }
            let bi = &mut inv[j * k * k..(j + 1) * k * k];
            if let Some(rows) = &self.rows {
                let we = w.epi[j];
                let cj = &rows.coef[j];
                // g = c'B~^-1 c in closed form (B~ = diag(d) + w_sum 11', e = 1 / d,
                // S = sum e, cm = e'c / S): sum e (c - cm)^2 + S cm^2 / (1 + w_sum S).
                let (mut total, mut ec) = (0.0, 0.0);
                for r in 0..k {
                    let e = 1.0 / (bound[r] + reg);
                    total += e;
                    ec += e * cj[r];
                }
                let cm = ec / total;
                let mut g = total * cm * cm / (1.0 + ws * total);
                for r in 0..k {
                    let e = 1.0 / (bound[r] + reg);
                    g += e * (cj[r] - cm) * (cj[r] - cm);
                }
                let p = we / (1.0 + we * g);
                for r in 0..k {
                    for c in 0..k {
                        b[r * k + c] += we * cj[r] * cj[c];
                    }
                }
                spd_inverse(&mut b, bi, k)?;
                if ht {
                    let iv = &mut inv_v[j * k..(j + 1) * k];
                    for r in 0..k {
                        iv[r] = -we * (0..k).map(|c| bi[r * k + c] * cj[c]).sum::<f64>();
                    }
                    red[k * m + k] -= p;
                }
            } else {
                spd_inverse(&mut b, bi, k)?;
            }
            let s = self.scale[j];
            for r in 0..k {
                for c in 0..k {
                    red[r * m + c] += s * s * bi[r * k + c];
                }
            }
            if ht {
                let iv = &inv_v[j * k..(j + 1) * k];
                for r in 0..k {
                    red[r * m + k] += s * iv[r];
                    red[k * m + r] += s * iv[r];
                }
            }
        }
        for r in 0..k {
            red[r * m + r] += 1.0 / w.cap[r];
        }
        let pivots = lu(&mut red, m)?;
        Some(Normal {
            inv,
            inv_v,
            reduced: red,
            pivots,
        })
    }

    /// Solve `G' W G dz = rhs` with the factorisation.
    fn solve(&self, f: &Normal, rhs: &Point) -> Point {
        let (n, k) = (self.n(), self.k());
        let ht = self.has_t();
        let m = k + usize::from(ht);
        let mut u = vec![0.0; n * k]; // B^-1 r_x
        let mut red = vec![0.0; m];
        for j in 0..n {
            let bi = &f.inv[j * k * k..(j + 1) * k * k];
            let rx = &rhs.x[j * k..(j + 1) * k];
            let uj = &mut u[j * k..(j + 1) * k];
            for r in 0..k {
                uj[r] = (0..k).map(|c| bi[r * k + c] * rx[c]).sum();
            }
            for r in 0..k {
                red[r] += self.scale[j] * uj[r];
            }
            if ht {
                let iv = &f.inv_v[j * k..(j + 1) * k];
                red[k] += iv.iter().zip(rx).map(|(a, b)| a * b).sum::<f64>();
            }
        }
        if ht {
            red[k] -= rhs.t;
        }
        lu_solve(&f.reduced, &f.pivots, &mut red, m);
        let dt = if ht { red[k] } else { 0.0 };
        let mut x = vec![0.0; n * k];
        for j in 0..n {
            let bi = &f.inv[j * k * k..(j + 1) * k * k];
            let s = self.scale[j];
            for r in 0..k {
                let mut v = u[j * k + r];
                for c in 0..k {
                    v -= bi[r * k + c] * s * red[c];
                }
                if ht {
                    v -= f.inv_v[j * k + r] * dt;
                }
                x[j * k + r] = v;
            }
        }
        Point { x, t: dt }
    }

    /// Newton's direction for residuals `rp = G z + s - h`, `rd = G' y + q` and
    /// complementarity target `rc` (of `Y ds + S dy = rc`).
    fn direction(
        &self,
        f: &Normal,
        w: &RowVec,
        s: &RowVec,
        rp: &RowVec,
        rd: &Point,
        rc: &RowVec,
    ) -> (Point, RowVec, RowVec) {
        // dy = W (G dz + rp) + rc / s;  G' dy = -rd  =>  G'WG dz = -rd - G'(W rp + rc / s).
        let inner = w.zip3(rp, &rc.zip_map(s, |c, sv| c / sv), |w, r, c| w * r + c);
        let g_inner = self.gt(&inner);
        let rhs = Point {
            x: rd.x.iter().zip(&g_inner.x).map(|(a, b)| -a - b).collect(),
            t: -rd.t - g_inner.t,
        };
        let mut dz = self.solve(f, &rhs);
        // Iterative refinement: G'dy + rd equals the normal equations' residual, which
        // the large weights near the optimum would otherwise leave at 1e-4 or so.
        let scale = norm_inf(rhs.x.iter().chain([&rhs.t]));
        for _ in 0..2 {
            let m_dz = self.gt(&self.g(&dz).zip_map(w, |a, b| a * b));
            let res = Point {
                x: rhs.x.iter().zip(&m_dz.x).map(|(a, b)| a - b).collect(),
                t: rhs.t - m_dz.t,
            };
            if norm_inf(res.x.iter().chain([&res.t])) <= 1e-13 * scale {
                break;
            }
            let corr = self.solve(f, &res);
            for (v, c) in dz.x.iter_mut().zip(&corr.x) {
                *v += c;
            }
            dz.t += corr.t;
        }
        let gdz = self.g(&dz);
        let ds = gdz.zip_map(rp, |a, b| -a - b);
        let dy = gdz.zip3(w, &inner, |g, w, i| w * g + i);
        (dz, ds, dy)
    }

    /// Solve; `x[j][k]` clipped to `[0, 1]`, or `None` if the method stalls.
    pub fn solve_lp(&self) -> Option<Vec<Vec<f64>>> {
        let (n, k) = (self.n(), self.k());
        if n == 0 {
            return Some(Vec::new());
        }
        let h = self.h();
        let q = self.q();
        let rows = h.len() as f64;
        // Start (as CVXOPT's): z minimises |G z - h| and y is the least-norm solution of
        // G' y + q = 0, both shifted into the interior.
        let ones = RowVec::filled(n, k, self.has_epi(), 1.0);
        let f0 = self.factor(&ones)?;
        let mut z = self.solve(&f0, &self.gt(&h));
        let mut s = h.zip_map(&self.g(&z), |a, b| a - b);
        let neg_q = Point {
            x: q.x.iter().map(|v| -v).collect(),
            t: -q.t,
        };
        let lambda = self.solve(&f0, &neg_q);
        let mut y = self.g(&lambda);
        for v in [&mut s, &mut y] {
            let lo = v.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            if lo <= 0.0 {
                v.iter_mut().for_each(|e| *e += 1.0 - lo);
            }
        }
        let (h_norm, q_norm) = (norm_inf(h.iter()), norm_inf(q.x.iter().chain([&q.t])));
        // Mehrotra's method takes 10-15 iterations here; 40 without converging is a stall.
        // The last feasible iterate with a gap within 1e-6: returned if rounding stops the
        // method before the gap reaches 1e-8 (the weights y / s then span 20 decades).
        let mut best: Option<Point> = None;
        let clipped = |z: &Point| -> Vec<Vec<f64>> {
            (0..n)
                .map(|j| (0..k).map(|kk| z.x[j * k + kk].clamp(0.0, 1.0)).collect())
                .collect()
        };
        for _ in 0..40 {
            let gz = self.g(&z);
            let rp = gz.zip_map(&s, |a, b| a + b).zip_map(&h, |a, b| a - b);
            let gty = self.gt(&y);
            let rd = Point {
                x: gty.x.iter().zip(&q.x).map(|(a, b)| a + b).collect(),
                t: gty.t + q.t,
            };
            let gap = s.dot(&y);
            let pobj = q.x.iter().zip(&z.x).map(|(a, b)| a * b).sum::<f64>() + q.t * z.t;
            // Clarabel's tolerances for these LPs: feasibility 1e-8 (relative), and a gap of
            // 1e-8 absolute or relative.
            let feasible = norm_inf(rp.iter()) <= 1e-8 * (1.0 + h_norm)
                && norm_inf(rd.x.iter().chain([&rd.t])) <= 1e-8 * (1.0 + q_norm);
            let gap_within = |tol: f64| gap <= tol || gap <= tol * pobj.abs();
            if feasible && gap_within(1e-8) {
                return Some(clipped(&z));
            }
            if feasible && gap_within(1e-6) {
                best = Some(z.clone());
            } else if let Some(b) = &best {
                return Some(clipped(b));
            }
            let mu = gap / rows;
            let w = y.zip_map(&s, |a, b| a / b);
            let Some(f) = self.factor(&w) else {
                return best.as_ref().map(clipped);
            };
            // Predictor.
            let rc = s.zip_map(&y, |a, b| -a * b);
            let (_, ds_a, dy_a) = self.direction(&f, &w, &s, &rp, &rd, &rc);
            let a_aff = step(&s, &ds_a).min(step(&y, &dy_a)).min(1.0);
            let mu_aff = s
                .zip_map(&ds_a, |a, b| a + a_aff * b)
                .dot(&y.zip_map(&dy_a, |a, b| a + a_aff * b))
                / rows;
            let sigma = (mu_aff / mu).clamp(0.0, 1.0).powi(3);
            // Corrector.
            let rc = s
                .zip_map(&y, |a, b| sigma * mu - a * b)
                .zip3(&ds_a, &dy_a, |a, d, e| a - d * e);
            let (dz, ds, dy) = self.direction(&f, &w, &s, &rp, &rd, &rc);
            let a = (0.99 * step(&s, &ds).min(step(&y, &dy))).min(1.0);
            if a.is_nan() || a <= 0.0 {
                return best.as_ref().map(clipped);
            }
            for (v, d) in z.x.iter_mut().zip(&dz.x) {
                *v += a * d;
            }
            z.t += a * dz.t;
            s = s.zip_map(&ds, |v, d| v + a * d);
            y = y.zip_map(&dy, |v, d| v + a * d);
        }
        None
    }
}

/// The largest step `a` with `v + a dv >= 0` (infinite when `dv >= 0`).
fn step(v: &RowVec, dv: &RowVec) -> f64 {
    let part = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .filter(|(_, &d)| d < 0.0)
            .map(|(&x, &d)| -x / d)
            .fold(f64::INFINITY, f64::min)
    };
    part(&v.bound, &dv.bound)
        .min(part(&v.sum, &dv.sum))
        .min(part(&v.cap, &dv.cap))
        .min(part(&v.epi, &dv.epi))
}

fn norm_inf<'a>(v: impl Iterator<Item = &'a f64>) -> f64 {
    v.fold(0.0, |a, &b| a.max(b.abs()))
}

/// Invert the symmetric positive definite `a` (`k x k`, overwritten) into `out` by
/// Cholesky; `None` if it is not positive definite.
fn spd_inverse(a: &mut [f64], out: &mut [f64], k: usize) -> Option<()> {
    for c in 0..k {
        let mut d = a[c * k + c];
        for p in 0..c {
            d -= a[c * k + p] * a[c * k + p];
        }
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        a[c * k + c] = d;
        for r in c + 1..k {
            let mut v = a[r * k + c];
            for p in 0..c {
                v -= a[r * k + p] * a[c * k + p];
            }
            a[r * k + c] = v / d;
        }
    }
    // Columns of the inverse: solve L L' x = e_i (on the stack for up to 16 types).
    let mut stack = [0.0f64; 16];
    let mut heap = Vec::new();
    let x: &mut [f64] = if k <= 16 {
        &mut stack[..k]
    } else {
        heap.resize(k, 0.0);
        &mut heap
    };
    for i in 0..k {
        for r in 0..k {
            let mut v = if r == i { 1.0 } else { 0.0 };
            for p in 0..r {
                v -= a[r * k + p] * x[p];
            }
            x[r] = v / a[r * k + r];
        }
        for r in (0..k).rev() {
            let mut v = x[r];
            for p in r + 1..k {
                v -= a[p * k + r] * x[p];
            }
            x[r] = v / a[r * k + r];
        }
        for r in 0..k {
            out[r * k + i] = x[r];
        }
    }
    Some(())
}

/// LU factorisation with partial pivoting of the `m x m` row-major `a` in place.
fn lu(a: &mut [f64], m: usize) -> Option<Vec<usize>> {
    let mut piv: Vec<usize> = (0..m).collect();
    for c in 0..m {
        let p = (c..m).max_by(|&i, &j| a[i * m + c].abs().total_cmp(&a[j * m + c].abs()))?;
        let pivot = a[p * m + c].abs();
        if pivot.is_nan() || pivot == 0.0 {
            return None;
        }
        if p != c {
            for col in 0..m {
                a.swap(p * m + col, c * m + col);
            }
            piv.swap(p, c);
        }
        for r in c + 1..m {
            let f = a[r * m + c] / a[c * m + c];
            a[r * m + c] = f;
            for col in c + 1..m {
                a[r * m + col] -= f * a[c * m + col];
            }
        }
    }
    Some(piv)
}

/// Solve with [`lu`]'s factors, `b` overwritten by the solution.
fn lu_solve(a: &[f64], piv: &[usize], b: &mut [f64], m: usize) {
    let pb: Vec<f64> = piv.iter().map(|&p| b[p]).collect();
    b.copy_from_slice(&pb);
    for r in 0..m {
        for c in 0..r {
            b[r] -= a[r * m + c] * b[c];
        }
    }
    for r in (0..m).rev() {
        for c in r + 1..m {
            b[r] -= a[r * m + c] * b[c];
        }
        b[r] /= a[r * m + r];
    }
}
