//! Newton's normal equations `G' W G`: factorised by eliminating the jobs' blocks (a few
//! jobs at a time) into a reduced system of `K` or `K + 1` unknowns, and solved with that
//! factorisation.

use super::dense::{lu, lu_solve, spd_inverse, LANES};
use super::lanes::F4;
use super::{inv_block, inv_index, max, with_acc, Kernels, Normal, Point, SolveBuffers};

impl<const K: usize> Kernels<'_, '_, K> {
    /// Factorise `G' W G` for row weights `w` into `f`. The jobs' blocks are formed and
    /// inverted [`LANES`] at a time, each job's by the same operations as alone (their
    /// chains of divisions and square roots overlap); the reduced system then gathers
    /// them in job order.
    pub(super) fn factor(&self, w: &[f64], f: &mut Normal, buf: &mut [f64]) -> Option<()> {
        let k = self.k();
        let m = k + usize::from(self.has_t());
        let [_, _, w_cap, _] = self.shape.parts(w);
        let Normal {
            inv,
            inv_v,
            schur,
            reduced,
            pivots,
        } = f;
        with_acc(m * m, |red| {
            self.factor_jobs(w, inv, inv_v, schur, buf, red)?;
            reduced.copy_from_slice(red);
            Some(())
        })?;
        for r in 0..k {
            reduced[r * m + r] += 1.0 / w_cap[r];
        }
        lu(reduced, pivots, m)
    }

    /// The jobs' part of [`Kernels::factor`]: their blocks' inverses into `inv`, their
    /// borders into `inv_v` and their terms of the reduced system summed into `red`
    /// (`m x m` zeros), in job order. With classes, each class's border Schur term goes
    /// to `schur` and the terms are summed once per member afterwards.
    #[inline(always)]
    fn factor_jobs(
        &self,
        w: &[f64],
        inv: &mut [f64],
        inv_v: &mut [f64],
        schur: &mut [f64],
        buf: &mut [f64],
        red: &mut [f64],
    ) -> Option<()> {
        let (n, k) = (self.shape.n, self.k());
        let ht = self.has_t();
        let w_epi = self.shape.parts(w)[3];
        let (blocks, lanes) = buf.split_at_mut(LANES * k * k);
        for j0 in (0..n).step_by(LANES) {
            let p = self.lane_blocks(w, j0, blocks, lanes);
            spd_inverse::<K>(blocks, &mut inv[inv_index(k, j0, 0)..], k)?;
            for (l, &p) in p.iter().enumerate().take(n - j0) {
                let j = j0 + l;
                let block = inv_block(inv, k, j);
                let bi = |e: usize| block[e * LANES];
                if self.shape.epi && ht {
                    let we = w_epi[j];
                    let cj = &self.coef[j * k..(j + 1) * k];
                    let iv = &mut inv_v[j * k..(j + 1) * k];
                    for (r, v) in iv.iter_mut().enumerate() {
                        *v = -we * (0..k).map(|c| bi(r * k + c) * cj[c]).sum::<f64>();
                    }
                }
                match self.lp.members {
                    None => self.terms(inv, inv_v).add(j, self.lp.scale[j], p, red),
                    Some(_) => schur[j] = p,
                }
            }
        }
        if let Some(of) = self.lp.members {
            self.terms(inv, inv_v)
                .add_members(of, self.lp.scale, schur, red);
        }
        Some(())
    }

    /// The jobs' terms of the reduced system from the blocks' inverses and borders.
    #[inline(always)]
    fn terms<'f>(&self, inv: &'f [f64], inv_v: &'f [f64]) -> Terms<'f> {
        Terms {
            k: self.k(),
            with_t: self.has_t(),
            epi: self.shape.epi,
            inv,
            inv_v,
        }
    }

    /// The blocks `B_j` of jobs `j0..j0 + LANES` into `b` (entry `e` of lane `l` at
    /// `e * LANES + l`) and their border's Schur terms `p_j` (returned); lanes past the
    /// last job hold the identity (plus its regularisation) and `p = 0`.
    ///
    /// The block B = B~ + w_e c c' with B~ = diag(w_bound) + w_sum 11', each with a
    /// regularisation of 1e-11 times its largest term (bounds, sum row, own row) on its
    /// diagonal so that Cholesky keeps positive pivots when one row's weight swamps the
    /// bounds' (the solves are refined against the exact matrix). B^-1 is formed from B's
    /// factor; the border's Schur term d_j - v'B^-1 v (v = -w_e c) equals
    /// w_e / (1 + w_e g) with g = c'B~^-1 c, from B~'s factor, which avoids subtracting
    /// nearly equal terms.
    fn lane_blocks(&self, w: &[f64], j0: usize, b: &mut [f64], buf: &mut [f64]) -> [f64; LANES] {
        let (n, k, epi) = (self.shape.n, self.k(), self.shape.epi);
        let [w_bound, w_sum, _, w_epi] = self.shape.parts(w);
        let live = |l: usize| j0 + l < n;
        let ws: [f64; LANES] = std::array::from_fn(|l| if live(l) { w_sum[j0 + l] } else { 0.0 });
        let we: [f64; LANES] =
            std::array::from_fn(|l| if live(l) && epi { w_epi[j0 + l] } else { 0.0 });
        // The lanes' bounds' weights, coefficients and reciprocals, entry `r` of lane `l`
        // at `r * LANES + l`.
        let (bnd, rest) = buf.split_at_mut(k * LANES);
        let (cl, recip) = rest.split_at_mut(k * LANES);
        for l in 0..LANES {
            for r in 0..k {
                let (bv, cv) = if live(l) {
                    let c = if epi {
                        self.coef[(j0 + l) * k + r]
                    } else {
                        0.0
                    };
                    (w_bound[(j0 + l) * k + r], c)
                } else {
                    (1.0, 0.0)
                };
                bnd[r * LANES + l] = bv;
                cl[r * LANES + l] = cv;
            }
        }
        let bound = |r: usize, l: usize| bnd[r * LANES + l];
        let c = |r: usize, l: usize| cl[r * LANES + l];
        let mut reg = [0.0; LANES];
        for l in 0..LANES {
            let epi_top = if epi {
                we[l] * (0..k).fold(0.0f64, |a, r| max(a, c(r, l) * c(r, l)))
            } else {
                0.0
            };
            let top = (0..k).fold(ws[l], |a, r| max(a, bound(r, l) + ws[l])) + epi_top;
            reg[l] = 1e-11 * top;
        }
        let (ws, reg) = (F4::load(&ws), F4::load(&reg));
        let bound = |r: usize| F4::load(&bnd[r * LANES..]);
        let c = |r: usize| F4::load(&cl[r * LANES..]);
        let at = |r: usize, cc: usize| (r * k + cc) * LANES;
        for r in 0..k {
            for cc in 0..k {
                ws.store(&mut b[at(r, cc)..]);
            }
            (ws + (bound(r) + reg)).store(&mut b[at(r, r)..]);
        }
        let mut p = [0.0; LANES];
        if !epi {
            return p;
        }
        // g = c'B~^-1 c in closed form (B~ = diag(d) + w_sum 11', e = 1 / d, S = sum e,
        // cm = e'c / S): sum e (c - cm)^2 + S cm^2 / (1 + w_sum S).
        let (mut total, mut ec) = (F4::splat(0.0), F4::splat(0.0));
        for r in 0..k {
            let e = F4::splat(1.0) / (bound(r) + reg);
            e.store(&mut recip[r * LANES..]);
            total = total + e;
            ec = ec + e * c(r);
        }
        let cm = ec / total;
        let mut g = total * cm * cm / (F4::splat(1.0) + ws * total);
        for r in 0..k {
            let d = c(r) - cm;
            g = g + F4::load(&recip[r * LANES..]) * d * d;
        }
        let we = F4::load(&we);
        (we / (F4::splat(1.0) + we * g)).store(&mut p);
        for r in 0..k {
            for cc in 0..k {
                (F4::load(&b[at(r, cc)..]) + we * c(r) * c(cc)).store(&mut b[at(r, cc)..]);
            }
        }
        p
    }

    /// Solve `G' W G x = rhs` with the factorisation into `out`.
    pub(super) fn solve_normal(
        &self,
        f: &Normal,
        rhs: &Point,
        out: &mut Point,
        buf: &mut SolveBuffers,
    ) {
        let m = self.k() + usize::from(self.has_t());
        // The reduced right-hand side, then its solution, in accumulators.
        with_acc(m, |acc| self.solve_normal_in(f, rhs, out, buf, acc));
    }

    /// [`Kernels::solve_normal`] with `acc` (`K` or `K + 1` zeros) for the reduced system.
    #[inline(always)]
    fn solve_normal_in(
        &self,
        f: &Normal,
        rhs: &Point,
        out: &mut Point,
        buf: &mut SolveBuffers,
        acc: &mut [f64],
    ) {
        let (n, k) = (self.shape.n, self.k());
        let ht = self.has_t();
        let m = k + usize::from(ht);
        let u = &mut buf.u; // B^-1 r_x
        let border = &mut buf.border; // v_j' r_x per class
        let members = self.lp.members;
        for j in 0..n {
            let rx = &rhs.x[j * k..(j + 1) * k];
            let uj = &mut u[j * k..(j + 1) * k];
            let block = inv_block(&f.inv, k, j);
            let bi = |e: usize| block[e * LANES];
            for (r, v) in uj.iter_mut().enumerate() {
                *v = (0..k).map(|c| bi(r * k + c) * rx[c]).sum();
            }
            let vr = if ht {
                let iv = &f.inv_v[j * k..(j + 1) * k];
                iv.iter().zip(rx).map(|(a, b)| a * b).sum::<f64>()
            } else {
                0.0
            };
            if members.is_some() {
                border[j] = vr;
                continue;
            }
            let s = self.lp.scale[j];
            for r in 0..k {
                acc[r] += s * uj[r];
            }
            if ht {
                acc[k] += vr;
            }
        }
        if let Some(of) = members {
            for &c in of {
                let s = self.lp.scale[c];
                for r in 0..k {
                    acc[r] += s * u[c * k + r];
                }
                if ht {
                    acc[k] += border[c];
                }
            }
        }
        if ht {
            acc[k] -= rhs.t;
        }
        lu_solve(&f.reduced, &f.pivots, acc, &mut buf.perm, m);
        let red = &*acc;
        let dt = if ht { red[k] } else { 0.0 };
        for j in 0..n {
            let s = self.lp.scale[j];
            let uj = &u[j * k..(j + 1) * k];
            let xj = &mut out.x[j * k..(j + 1) * k];
            let block = inv_block(&f.inv, k, j);
            let bi = |e: usize| block[e * LANES];
            for r in 0..k {
                let mut v = uj[r];
                for (c, &red) in red[..k].iter().enumerate() {
                    v -= bi(r * k + c) * s * red;
                }
                if ht {
                    v -= f.inv_v[j * k + r] * dt;
                }
                xj[r] = v;
            }
        }
        out.t = dt;
    }
}

/// The jobs' terms of the reduced system, from their blocks' inverses and borders.
struct Terms<'f> {
    k: usize,
    with_t: bool,
    epi: bool,
    inv: &'f [f64],
    inv_v: &'f [f64],
}

impl Terms<'_> {
    /// Job `j`'s terms (scale factor `s`, border Schur term `p`) added to `red`.
    #[inline(always)]
    fn add(&self, j: usize, s: f64, p: f64, red: &mut [f64]) {
        let k = self.k;
        let m = k + usize::from(self.with_t);
        let block = inv_block(self.inv, k, j);
        let bi = |e: usize| block[e * LANES];
        if self.epi && self.with_t {
            red[k * m + k] -= p;
        }
        for r in 0..k {
            for c in 0..k {
                red[r * m + c] += s * s * bi(r * k + c);
            }
        }
        if self.with_t {
            let iv = &self.inv_v[j * k..(j + 1) * k];
            for r in 0..k {
                red[r * m + k] += s * iv[r];
                red[k * m + r] += s * iv[r];
            }
        }
    }

    /// Every member's terms in job order (`of[j]`: job `j`'s class, whose Schur term is
    /// `schur[of[j]]`). Not generic over the number of types: one copy for every kernel.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn add_members(&self, of: &[usize], scale: &[f64], schur: &[f64], red: &mut [f64]) {
        for &c in of {
            self.add(c, scale[c], schur[c], red);
        }
    }
}
