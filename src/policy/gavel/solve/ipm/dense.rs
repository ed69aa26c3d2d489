//! Dense kernels of the interior-point method: the jobs' `K x K` blocks inverted a few
//! jobs at a time, and the small reduced system's LU factorisation.

use super::lanes::F4;

/// Jobs whose blocks are inverted together: their operations are interleaved (and
/// vectorised where the target allows), each job's the same as alone.
pub(super) const LANES: usize = 4;

/// Invert [`LANES`] symmetric positive definite matrices (`k x k`, entry `e` of lane `l`
/// at `a[e * LANES + l]`, overwritten) into `out`, laid out alike, by Cholesky; `None` if
/// one is not positive definite. `K` as in the method's kernels: 0 reads `k`, any
/// other value is `k` itself.
pub(super) fn spd_inverse<const K: usize>(a: &mut [f64], out: &mut [f64], k: usize) -> Option<()> {
    let k = if K == 0 { k } else { K };
    let at = |r: usize, c: usize| (r * k + c) * LANES;
    let ld = |v: &[f64], r: usize, c: usize| F4::load(&v[at(r, c)..]);
    for c in 0..k {
        let mut d = ld(a, c, c);
        for p in 0..c {
            let v = ld(a, c, p);
            d = d - v * v;
        }
        if d.to_array().iter().any(|d| d.is_nan() || *d <= 0.0) {
            return None;
        }
        let d = d.sqrt();
        d.store(&mut a[at(c, c)..]);
        for r in c + 1..k {
            let mut v = ld(a, r, c);
            for p in 0..c {
                v = v - ld(a, r, p) * ld(a, c, p);
            }
            (v / d).store(&mut a[at(r, c)..]);
        }
    }
    // The inverse X solves L L' X = I. Its columns are independent: they are solved
    // together, row by row, so that their divisions overlap; within a column the
    // operations are those of one forward and one back substitution, in order. Above
    // row i the forward solve of column i gives exact zeros (0 - 0 / d), set rather than
    // computed, and their products add nothing to the rows below.
    let x = out;
    for r in 0..k {
        for i in 0..=r {
            let mut v = F4::splat(if r == i { 1.0 } else { 0.0 });
            for p in i..r {
                v = v - ld(a, r, p) * ld(x, p, i);
            }
            (v / ld(a, r, r)).store(&mut x[at(r, i)..]);
        }
        for i in r + 1..k {
            x[at(r, i)..at(r, i) + LANES].fill(0.0);
        }
    }
    for r in (0..k).rev() {
        for i in 0..k {
            let mut v = ld(x, r, i);
            for p in r + 1..k {
                v = v - ld(a, p, r) * ld(x, p, i);
            }
            (v / ld(a, r, r)).store(&mut x[at(r, i)..]);
        }
    }
    Some(())
}

/// LU factorisation with partial pivoting of the `m x m` row-major `a` in place, the
/// row order into `piv`.
pub(super) fn lu(a: &mut [f64], piv: &mut [usize], m: usize) -> Option<()> {
    for (i, p) in piv.iter_mut().enumerate() {
        *p = i;
    }
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
    Some(())
}

/// Solve with [`lu`]'s factors, `b` overwritten by the solution (`pb`: a buffer of `m`).
pub(super) fn lu_solve(a: &[f64], piv: &[usize], b: &mut [f64], pb: &mut [f64], m: usize) {
    for (o, &p) in pb.iter_mut().zip(piv) {
        *o = b[p];
    }
    b.copy_from_slice(pb);
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
