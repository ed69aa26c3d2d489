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
//!
//! In the page's module (wasm32) the iteration and its products stay functions of their own
//! (`inline(never)`): V8 compiles a wasm function whole, in time that grows faster than its
//! size (see `WASM_OPT_PAGE` in `www/tools.sh`).

mod dense;
mod lanes;
mod normal;

use dense::LANES;
use lanes::{each1, each2, each3, each4, F4};

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
    /// When the LP's jobs are classes of identical jobs: each job's class, in job order
    /// (see [`BlockLp::with_members`]); `None` when every job is its own.
    pub members: Option<&'a [usize]>,
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

/// The sizes of one LP and where each kind of row sits in a flat vector over the rows:
/// `[bound (n K) | sum (n) | cap (K) | epi (n or 0)]`.
#[derive(Clone, Copy)]
struct Shape {
    /// Jobs (classes, with members).
    n: usize,
    k: usize,
    epi: bool,
}

impl Shape {
    fn sum0(&self) -> usize {
        self.n * self.k
    }
    fn cap0(&self) -> usize {
        self.sum0() + self.n
    }
    fn epi0(&self) -> usize {
        self.cap0() + self.k
    }
    fn rows(&self) -> usize {
        self.epi0() + if self.epi { self.n } else { 0 }
    }
    /// The four kinds of rows of a flat vector.
    fn parts<'v>(&self, v: &'v [f64]) -> [&'v [f64]; 4] {
        let (bound, rest) = v.split_at(self.sum0());
        let (sum, rest) = rest.split_at(self.n);
        let (cap, epi) = rest.split_at(self.k);
        [bound, sum, cap, epi]
    }
    /// `a . b`, summed per kind of row and then over the kinds.
    fn dot(&self, a: &[f64], b: &[f64]) -> f64 {
        self.dot_with(a, b, |x, y| x * y)
    }
    /// `sum f(a_i, b_i)`, summed per kind of row and then over the kinds.
    fn dot_with(&self, a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) -> f64 {
        let (pa, pb) = (self.parts(a), self.parts(b));
        let d = |i: usize| pa[i].iter().zip(pb[i]).map(|(&x, &y)| f(x, y)).sum::<f64>();
        d(0) + d(1) + d(2) + d(3)
    }
}

/// The factorised normal equations for one set of row weights `W = y / s`.
struct Normal {
    /// Per job, the inverse of its block `B_j` (`K x K`), [`LANES`] jobs to a group by lanes
    /// (entry `e` of job `j` at [`inv_index`]); the lanes of the last group past the last job
    /// hold the inverse of a padding block.
    inv: Vec<f64>,
    /// Per job, `B_j^-1 v_j` where `v_j` is the block's border with `t`.
    inv_v: Vec<f64>,
    /// With classes, each class's border Schur term (see [`BlockLp::with_members`]).
    schur: Vec<f64>,
    /// The reduced system (row-major `(K + 1) x (K + 1)`, or `K x K` without `t`), LU
    /// factorised with its pivots.
    reduced: Vec<f64>,
    pivots: Vec<usize>,
}

/// Where entry `e` (row-major) of job `j`'s block inverse sits in [`Normal::inv`] for `k`
/// types: the jobs' groups one after another, a group's entries one after another, each
/// entry's lanes (the group's jobs) side by side, as [`dense::spd_inverse`] writes them.
fn inv_index(k: usize, j: usize, e: usize) -> usize {
    (j / LANES * k * k + e) * LANES + j % LANES
}

/// Job `j`'s block inverse within [`Normal::inv`] for `k` types: its entry `e` (row-major)
/// at `e * LANES` of the slice, whose length is known, so that reading an entry below
/// `k * k` needs no further bounds check.
#[inline(always)]
fn inv_block(inv: &[f64], k: usize, j: usize) -> &[f64] {
    let at = inv_index(k, j, 0);
    let len = if k == 0 { 0 } else { (k * k - 1) * LANES + 1 };
    &inv[at..at + len]
}

/// Primal point: `x` (row-major `n x K`) and `t`.
#[derive(Clone)]
struct Point {
    x: Vec<f64>,
    t: f64,
}

impl Point {
    fn zeros(len: usize) -> Point {
        Point {
            x: vec![0.0; len],
            t: 0.0,
        }
    }
    fn norm_inf(&self) -> f64 {
        max(norm_inf(&self.x), self.t.abs())
    }
}

/// A Newton direction: primal `dz`, slacks `ds`, duals `dy`.
struct Direction {
    dz: Point,
    ds: Vec<f64>,
    dy: Vec<f64>,
}

/// Buffers of one solve, allocated once: an iteration allocates nothing.
struct Scratch {
    /// Rows: `W rp + rc / s`, `G dz` and `W G dz`.
    inner: Vec<f64>,
    gdz: Vec<f64>,
    wgdz: Vec<f64>,
    /// Points: `G' inner`, the right-hand side, `G'W G dz`, the residual, its correction.
    g_inner: Point,
    rhs: Point,
    m_dz: Point,
    res: Point,
    corr: Point,
    /// [`Kernels::solve_normal`]'s buffers.
    solve: SolveBuffers,
    /// [`LANES`] jobs' blocks (inverted straight into [`Normal::inv`]), and their bounds'
    /// weights, coefficients and the weights' reciprocals.
    block: Vec<f64>,
}

/// Buffers of one solve of the normal equations: `B^-1 r_x` per job and the reduced
/// right-hand side's permutation.
struct SolveBuffers {
    u: Vec<f64>,
    perm: Vec<f64>,
    /// With classes, each class's `v_j' r_x`.
    border: Vec<f64>,
}

/// The method's kernels for `K` GPU types: `K = 0` reads the count at run time, any other
/// `K` is the count itself, known to the compiler (unrolled loops, no bounds checks).
/// Every `K` performs the same operations in the same order, so the results are the same
/// bits whichever kernel runs.
struct Kernels<'l, 'a, const K: usize> {
    lp: &'l BlockLp<'a>,
    shape: Shape,
    /// `c[j][k]`, row-major (empty without rows).
    coef: Vec<f64>,
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
            members: None,
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
            members: None,
        }
    }

    /// The same LP where the jobs stand for classes of identical jobs (the same scale
    /// factor, rows and costs): `of[j]` is job `j`'s class, for every job in order. The
    /// method's iterates over all the jobs give the members of a class the same values,
    /// computed by the same operations, so it works per class and only its sums over the
    /// jobs (the types' rows, `t`'s terms, the reduced system, the gap) run over every
    /// job in order: the result is the LP over every job's, to the bit, at about the
    /// cost of the LP over the classes.
    pub fn with_members(self, of: &'a [usize]) -> Self {
        BlockLp {
            members: Some(of),
            ..self
        }
    }

    /// Solve; `x[j][k]` clipped to `[0, 1]`, or `None` if the method stalls.
    pub fn solve_lp(&self) -> Option<Vec<Vec<f64>>> {
        match self.counts.len() {
            1 => Kernels::<1>::new(self).solve(),
            2 => Kernels::<2>::new(self).solve(),
            3 => Kernels::<3>::new(self).solve(),
            4 => Kernels::<4>::new(self).solve(),
            _ => Kernels::<0>::new(self).solve(),
        }
    }
}

impl<'l, 'a, const K: usize> Kernels<'l, 'a, K> {
    fn new(lp: &'l BlockLp<'a>) -> Self {
        let shape = Shape {
            n: lp.scale.len(),
            k: lp.counts.len(),
            epi: lp.rows.is_some(),
        };
        let coef = lp
            .rows
            .as_ref()
            .map(|r| r.coef.iter().flat_map(|c| c.iter().copied()).collect())
            .unwrap_or_default();
        Kernels { lp, shape, coef }
    }

    /// The number of types.
    #[inline(always)]
    fn k(&self) -> usize {
        if K == 0 {
            self.shape.k
        } else {
            K
        }
    }
    fn has_t(&self) -> bool {
        self.lp.rows.as_ref().is_some_and(|r| r.with_t)
    }

    fn scratch(&self) -> Scratch {
        let (n, k, rows) = (self.shape.n, self.k(), self.shape.rows());
        let m = k + usize::from(self.has_t());
        Scratch {
            inner: vec![0.0; rows],
            gdz: vec![0.0; rows],
            wgdz: vec![0.0; rows],
            g_inner: Point::zeros(n * k),
            rhs: Point::zeros(n * k),
            m_dz: Point::zeros(n * k),
            res: Point::zeros(n * k),
            corr: Point::zeros(n * k),
            solve: SolveBuffers {
                u: vec![0.0; n * k],
                perm: vec![0.0; m],
                border: vec![0.0; if self.lp.members.is_some() { n } else { 0 }],
            },
            block: vec![0.0; LANES * (k * k + 3 * k)],
        }
    }

    fn normal(&self) -> Normal {
        let (n, k) = (self.shape.n, self.k());
        let ht = self.has_t();
        let m = k + usize::from(ht);
        Normal {
            inv: vec![0.0; n.div_ceil(LANES) * LANES * k * k],
            inv_v: vec![0.0; if ht { n * k } else { 0 }],
            schur: vec![0.0; if self.lp.members.is_some() { n } else { 0 }],
            reduced: vec![0.0; m * m],
            pivots: vec![0; m],
        }
    }

    fn direction_buffers(&self) -> Direction {
        Direction {
            dz: Point::zeros(self.shape.n * self.k()),
            ds: vec![0.0; self.shape.rows()],
            dy: vec![0.0; self.shape.rows()],
        }
    }

    /// `out = G z`.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn g(&self, p: &Point, out: &mut [f64]) {
        let (n, k, sh) = (self.shape.n, self.k(), self.shape);
        let (bound, rest) = out.split_at_mut(sh.sum0());
        let (sum, rest) = rest.split_at_mut(n);
        let (cap, epi) = rest.split_at_mut(k);
        let t = if self.has_t() { p.t } else { 0.0 };
        with_acc(k, |acc| {
            self.g_jobs(p, t, bound, sum, epi, acc);
            if let Some(of) = self.lp.members {
                for &c in of {
                    let s = self.lp.scale[c];
                    let xc = &p.x[c * k..(c + 1) * k];
                    for kk in 0..k {
                        acc[kk] += s * xc[kk];
                    }
                }
            }
            cap[..k].copy_from_slice(acc);
        });
    }

    /// The per-job rows of [`Kernels::g`], the types' rows summed into `cap` (`K` zeros)
    /// unless the jobs are classes (then the caller sums them over the members).
    #[inline(always)]
    fn g_jobs(
        &self,
        p: &Point,
        t: f64,
        bound: &mut [f64],
        sum: &mut [f64],
        epi: &mut [f64],
        cap: &mut [f64],
    ) {
        let (n, k, sh) = (self.shape.n, self.k(), self.shape);
        for j in 0..n {
            let xj = &p.x[j * k..(j + 1) * k];
            let bj = &mut bound[j * k..(j + 1) * k];
            let s = self.lp.scale[j];
            let mut total = 0.0;
            if self.lp.members.is_none() {
                for kk in 0..k {
                    let v = xj[kk];
                    bj[kk] = -v;
                    total += v;
                    cap[kk] += s * v;
                }
            } else {
                for kk in 0..k {
                    let v = xj[kk];
                    bj[kk] = -v;
                    total += v;
                }
            }
            sum[j] = total;
            if sh.epi {
                let cj = &self.coef[j * k..(j + 1) * k];
                let cx: f64 = cj.iter().zip(xj).map(|(c, v)| c * v).sum();
                epi[j] = t - cx;
            }
        }
    }

    /// `out = G' y`.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn gt(&self, y: &[f64], out: &mut Point) {
        let (n, k) = (self.shape.n, self.k());
        let [bound, sum, cap, epi] = self.shape.parts(y);
        let cap = &cap[..k];
        let mut t = 0.0;
        for j in 0..n {
            let yb = &bound[j * k..(j + 1) * k];
            let xj = &mut out.x[j * k..(j + 1) * k];
            let s = self.lp.scale[j];
            if self.shape.epi {
                let cj = &self.coef[j * k..(j + 1) * k];
                for kk in 0..k {
                    xj[kk] = -yb[kk] + sum[j] + s * cap[kk] - cj[kk] * epi[j];
                }
            } else {
                for kk in 0..k {
                    xj[kk] = -yb[kk] + sum[j] + s * cap[kk];
                }
            }
            if self.has_t() && self.lp.members.is_none() {
                t += epi[j];
            }
        }
        if let (true, Some(of)) = (self.has_t(), self.lp.members) {
            for &c in of {
                t += epi[c];
            }
        }
        out.t = t;
    }

    /// The right-hand side `h`.
    fn h(&self) -> Vec<f64> {
        let sh = self.shape;
        let mut h = vec![0.0; sh.rows()];
        h[sh.sum0()..sh.cap0()].fill(1.0);
        h[sh.cap0()..sh.epi0()].copy_from_slice(self.lp.counts);
        if let Some(b) = self.lp.rows.as_ref().and_then(|r| r.at_least) {
            for (e, b) in h[sh.epi0()..].iter_mut().zip(b) {
                *e = -b;
            }
        }
        h
    }

    /// The objective's gradient `q`.
    fn q(&self) -> Point {
        let (n, k) = (self.shape.n, self.k());
        let mut x = vec![0.0; n * k];
        if let Some(c) = self.lp.cost {
            for j in 0..n {
                x[j * k..(j + 1) * k].copy_from_slice(&c[j]);
            }
        }
        Point {
            x,
            t: -self.lp.t_weight,
        }
    }

    /// Newton's direction into `d` for residuals `rp = G z + s - h`, `rd = G' y + q` and
    /// complementarity target `rc` (of `Y ds + S dy = rc`).
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn direction(
        &self,
        f: &Normal,
        w: &[f64],
        s: &[f64],
        rp: &[f64],
        rd: &Point,
        rc: &[f64],
        sc: &mut Scratch,
        d: &mut Direction,
    ) {
        // dy = W (G dz + rp) + rc / s;  G' dy = -rd  =>  G'WG dz = -rd - G'(W rp + rc / s).
        let Scratch {
            inner,
            gdz,
            wgdz,
            g_inner,
            rhs,
            m_dz,
            res,
            corr,
            solve,
            ..
        } = sc;
        each4(inner, w, rp, rc, s, |_, w, rp, rc, s| w * rp + rc / s);
        self.gt(inner, g_inner);
        each2(&mut rhs.x, &rd.x, &g_inner.x, |_, a, b| -a - b);
        rhs.t = -rd.t - g_inner.t;
        self.solve_normal(f, rhs, &mut d.dz, solve);
        // Iterative refinement: G'dy + rd equals the normal equations' residual, which
        // the large weights near the optimum would otherwise leave at 1e-4 or so.
        let scale = rhs.norm_inf();
        let mut gdz_current = false;
        for _ in 0..2 {
            self.g(&d.dz, gdz);
            each2(wgdz, gdz, w, |_, a, b| a * b);
            self.gt(wgdz, m_dz);
            each2(&mut res.x, &rhs.x, &m_dz.x, |_, a, b| a - b);
            res.t = rhs.t - m_dz.t;
            if res.norm_inf() <= 1e-13 * scale {
                gdz_current = true;
                break;
            }
            self.solve_normal(f, res, corr, solve);
            each1(&mut d.dz.x, &corr.x, |v, c| v + c);
            d.dz.t += corr.t;
        }
        if !gdz_current {
            self.g(&d.dz, gdz);
        }
        each2(&mut d.ds, gdz, rp, |_, g, rp| -g - rp);
        each3(&mut d.dy, gdz, w, inner, |_, g, w, inner| w * g + inner);
    }

    /// Solve; `x[j][k]` clipped to `[0, 1]`, or `None` if the method stalls.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn solve(&self) -> Option<Vec<Vec<f64>>> {
        let (n, k, sh) = (self.shape.n, self.k(), self.shape);
        if n == 0 {
            return Some(Vec::new());
        }
        let rows_len = sh.rows();
        let h = self.h();
        let q = self.q();
        // Every job's rows, a class's once per member.
        let rows = match self.lp.members {
            None => rows_len as f64,
            Some(of) => {
                let full = Shape { n: of.len(), ..sh };
                full.rows() as f64
            }
        };
        let mut sc = self.scratch();
        let mut f = self.normal();
        // Start (as CVXOPT's): z minimises |G z - h| and y is the least-norm solution of
        // G' y + q = 0, both shifted into the interior. Not the last solve's point: from
        // there the method ends elsewhere on the optimal face, which Gavel's rounds follow
        // (see docs/benchmarks.md).
        let mut w = vec![1.0; rows_len];
        self.factor(&w, &mut f, &mut sc.block)?;
        let mut gth = Point::zeros(n * k);
        self.gt(&h, &mut gth);
        let mut z = Point::zeros(n * k);
        self.solve_normal(&f, &gth, &mut z, &mut sc.solve);
        let mut gz = vec![0.0; rows_len];
        self.g(&z, &mut gz);
        let mut s: Vec<f64> = h.iter().zip(&gz).map(|(a, b)| a - b).collect();
        let neg_q = Point {
            x: q.x.iter().map(|v| -v).collect(),
            t: -q.t,
        };
        let mut lambda = Point::zeros(n * k);
        self.solve_normal(&f, &neg_q, &mut lambda, &mut sc.solve);
        let mut y = vec![0.0; rows_len];
        self.g(&lambda, &mut y);
        for v in [&mut s, &mut y] {
            let lo = v.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            if lo <= 0.0 {
                v.iter_mut().for_each(|e| *e += 1.0 - lo);
            }
        }
        let (h_norm, q_norm) = (norm_inf(&h), q.norm_inf());
        let mut rp = vec![0.0; rows_len];
        let mut rc = vec![0.0; rows_len];
        let mut gty = Point::zeros(n * k);
        let mut rd = Point::zeros(n * k);
        let mut aff = self.direction_buffers();
        let mut dir = self.direction_buffers();
        // Mehrotra's method takes 10-15 iterations here; 40 without converging is a stall.
        // The last feasible iterate with a gap within 1e-6: returned if rounding stops the
        // method before the gap reaches 1e-8 (the weights y / s then span 20 decades).
        let mut best: Option<Point> = None;
        // The first iterate with the gap within 1e-8 and the dual residual within 5 times
        // its tolerance: returned instead of a stall. Near the optimum the weights amplify
        // the rounding of the normal equations' residual, and in some LPs the dual residual
        // then stops falling just above its tolerance (3e-8 on average where it is 2e-8)
        // while the gap keeps shrinking.
        let mut floor: Option<Point> = None;
        // Without a floor: the iterate with the smallest dual residual among those with the
        // gap within 1e-8 and the dual residual within 1e-5 (relative), returned instead of
        // a stall. In LPs with a large optimal face (identical GPU types, say) the dual
        // residual can stay at 1e-7-1e-6 while the primal iterates converge on the face's
        // centre, to the last bits of the objective.
        let mut settled: Option<(f64, Point)> = None;
        let clipped = |z: &Point| -> Vec<Vec<f64>> {
            (0..n)
                .map(|j| (0..k).map(|kk| z.x[j * k + kk].clamp(0.0, 1.0)).collect())
                .collect()
        };
        for _ in 0..40 {
            self.g(&z, &mut gz);
            each3(&mut rp, &gz, &s, &h, |_, g, s, h| g + s - h);
            self.gt(&y, &mut gty);
            each2(&mut rd.x, &gty.x, &q.x, |_, a, b| a + b);
            rd.t = gty.t + q.t;
            let (gap, qx) = match self.lp.members {
                None => (
                    sh.dot(&s, &y),
                    q.x.iter().zip(&z.x).map(|(a, b)| a * b).sum::<f64>(),
                ),
                Some(of) => {
                    // Each row's product once (`rc` is free until the predictor), summed
                    // once per member.
                    each2(&mut rc, &s, &y, |_, s, y| s * y);
                    (member_sum(&sh, of, &rc), member_dot(k, of, &q.x, &z.x))
                }
            };
            let pobj = qx + q.t * z.t;
            // Clarabel's tolerances for these LPs: feasibility 1e-8 (relative), and a gap of
            // 1e-8 absolute or relative.
            let primal_feasible = norm_inf(&rp) <= 1e-8 * (1.0 + h_norm);
            let rd_norm = rd.norm_inf();
            let feasible = primal_feasible && rd_norm <= 1e-8 * (1.0 + q_norm);
            let gap_within = |tol: f64| gap <= tol || gap <= tol * pobj.abs();
            if feasible && gap_within(1e-8) {
                return Some(clipped(&z));
            }
            if floor.is_none()
                && primal_feasible
                && rd_norm <= 5e-8 * (1.0 + q_norm)
                && gap_within(1e-8)
            {
                floor = Some(z.clone());
            }
            if primal_feasible
                && rd_norm <= 1e-5 * (1.0 + q_norm)
                && gap_within(1e-8)
                && settled.as_ref().is_none_or(|(r, _)| rd_norm < *r)
            {
                match &mut settled {
                    Some((r, p)) => {
                        *r = rd_norm;
                        p.clone_from(&z);
                    }
                    None => settled = Some((rd_norm, z.clone())),
                }
            }
            if feasible && gap_within(1e-6) {
                match &mut best {
                    Some(b) => b.clone_from(&z),
                    None => best = Some(z.clone()),
                }
            } else if let Some(b) = &best {
                return Some(clipped(b));
            }
            let mu = gap / rows;
            each2(&mut w, &y, &s, |_, y, s| y / s);
            if self.factor(&w, &mut f, &mut sc.block).is_none() {
                return stalled(&best, &floor, &settled).map(clipped);
            }
            // Predictor.
            each2(&mut rc, &s, &y, |_, s, y| -s * y);
            self.direction(&f, &w, &s, &rp, &rd, &rc, &mut sc, &mut aff);
            let a_aff = step(&sh, &s, &aff.ds).min(step(&sh, &y, &aff.dy)).min(1.0);
            let shifted = |v: &[f64], dv: &[f64], i: usize| v[i] + a_aff * dv[i];
            let mu_aff = if let Some(of) = self.lp.members {
                // Each row's product once (`rc` is free until the corrector).
                let a = F4::splat(a_aff);
                each4(&mut rc, &s, &aff.ds, &y, &aff.dy, |_, s, ds, y, dy| {
                    (s + a * ds) * (y + a * dy)
                });
                member_sum(&sh, of, &rc) / rows
            } else {
                let (ps, pds, py, pdy) = (
                    sh.parts(&s),
                    sh.parts(&aff.ds),
                    sh.parts(&y),
                    sh.parts(&aff.dy),
                );
                let d = |p: usize| {
                    (0..ps[p].len())
                        .map(|i| shifted(ps[p], pds[p], i) * shifted(py[p], pdy[p], i))
                        .sum::<f64>()
                };
                (d(0) + d(1) + d(2) + d(3)) / rows
            };
            let sigma = (mu_aff / mu).clamp(0.0, 1.0).powi(3);
            // Corrector.
            let target = sigma * mu;
            let target = F4::splat(target);
            each4(&mut rc, &s, &y, &aff.ds, &aff.dy, |_, s, y, ds, dy| {
                (target - s * y) - ds * dy
            });
            self.direction(&f, &w, &s, &rp, &rd, &rc, &mut sc, &mut dir);
            let a = (0.99 * step(&sh, &s, &dir.ds).min(step(&sh, &y, &dir.dy))).min(1.0);
            if a.is_nan() || a <= 0.0 {
                return stalled(&best, &floor, &settled).map(clipped);
            }
            z.t += a * dir.dz.t;
            let a = F4::splat(a);
            each1(&mut z.x, &dir.dz.x, |v, d| v + a * d);
            each1(&mut s, &dir.ds, |v, d| v + a * d);
            each1(&mut y, &dir.dy, |v, d| v + a * d);
        }
        stalled(&None, &floor, &settled).map(clipped)
    }
}

/// The iterate a stalled solve returns: the last one within the relaxed gap, else the first
/// with the dual residual near its tolerance, else the settled one (see [`Kernels::solve`]).
fn stalled<'p>(
    best: &'p Option<Point>,
    floor: &'p Option<Point>,
    settled: &'p Option<(f64, Point)>,
) -> Option<&'p Point> {
    best.as_ref()
        .or(floor.as_ref())
        .or(settled.as_ref().map(|(_, p)| p))
}

/// `sum v[i]` over the rows of the LP over every job, as [`Shape::dot`] sums: per kind of
/// row and then over the kinds, every job's rows in job order (a class's rows once per
/// member of `of`). Not generic over the number of types: the sums are cheap beside the
/// per-class work, and one copy keeps the page's module small.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn member_sum(sh: &Shape, of: &[usize], v: &[f64]) -> f64 {
    // Plain loops from -0.0, as `Iterator::sum` adds.
    let k = sh.k;
    let [bound, sum, cap, epi] = sh.parts(v);
    let (mut b, mut s, mut t, mut e) = (-0.0, -0.0, -0.0, -0.0);
    for &c in of {
        for x in &bound[c * k..(c + 1) * k] {
            b += x;
        }
    }
    for &c in of {
        s += sum[c];
    }
    for x in cap {
        t += x;
    }
    if sh.epi {
        for &c in of {
            e += epi[c];
        }
    }
    b + s + t + e
}

/// `a . b` over every job's `K` values in job order (a class's once per member of `of`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn member_dot(k: usize, of: &[usize], a: &[f64], b: &[f64]) -> f64 {
    of.iter()
        .flat_map(|&c| (c * k..(c + 1) * k).map(|i| a[i] * b[i]))
        .sum::<f64>()
}

/// The largest step `a` with `v + a dv >= 0` (infinite when `dv >= 0`), per kind of row.
/// The minimum of each kind runs in four independent lanes; a minimum does not depend on
/// the order it is taken in (quotients are positive, never zero, and NaNs are skipped as
/// `f64::min` skips them).
fn step(sh: &Shape, v: &[f64], dv: &[f64]) -> f64 {
    let part = |a: &[f64], b: &[f64]| {
        let quotient = |x: f64, d: f64| if d < 0.0 { -x / d } else { f64::INFINITY };
        let keep = |acc: f64, q: f64| if q < acc { q } else { acc };
        let inf = F4::splat(f64::INFINITY);
        let mut lanes = inf;
        let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
        let (ar, br) = (ac.remainder(), bc.remainder());
        for (x, d) in ac.zip(bc) {
            let (x, d) = (F4::load(x), F4::load(d));
            lanes = lanes.keep_less(d.if_negative(-x / d, inf));
        }
        let mut lanes = lanes.to_array();
        for (&x, &d) in ar.iter().zip(br) {
            lanes[0] = keep(lanes[0], quotient(x, d));
        }
        keep(keep(lanes[0], lanes[1]), keep(lanes[2], lanes[3]))
    };
    let (pv, pd) = (sh.parts(v), sh.parts(dv));
    part(pv[0], pd[0])
        .min(part(pv[1], pd[1]))
        .min(part(pv[2], pd[2]))
        .min(part(pv[3], pd[3]))
}

/// `f(acc)` with `len` zeros: up to sixteen in a local array, which the compiler keeps
/// in registers when the indices are constants, so that sums over the jobs do not go
/// through memory.
#[inline(always)]
fn with_acc<R>(len: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
    if len <= 16 {
        f(&mut [0.0; 16][..len])
    } else {
        f(&mut vec![0.0; len])
    }
}

/// `f64::max` (a NaN loses to a number) as two comparisons: on wasm32 `f64::max` is a
/// call of libm's `fmax`, which the hot loops here cannot afford.
#[inline(always)]
fn max(a: f64, b: f64) -> f64 {
    if b > a || a.is_nan() {
        b
    } else {
        a
    }
}

/// The largest `|v_i|` (NaNs skipped), in four independent lanes: [`max`] from 0 never
/// keeps a NaN, so the result does not depend on the order.
fn norm_inf(v: &[f64]) -> f64 {
    let mut lanes = F4::splat(0.0);
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        lanes = lanes.keep_greater(F4::load(c).abs());
    }
    let mut lanes = lanes.to_array();
    for &b in rest {
        lanes[0] = max(lanes[0], b.abs());
    }
    max(max(lanes[0], lanes[1]), max(lanes[2], lanes[3]))
}
