//! Dense kernels of the interior-point method: the jobs' `K x K` blocks inverted a few
//! jobs at a time, and the small reduced system's LU factorisation.

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
    for c in 0..k {
        let mut d: [f64; LANES] = std::array::from_fn(|l| a[at(c, c) + l]);
        for p in 0..c {
            for l in 0..LANES {
                d[l] -= a[at(c, p) + l] * a[at(c, p) + l];
            }
        }
        if d.iter().any(|d| d.is_nan() || *d <= 0.0) {
            return None;
        }
        for l in 0..LANES {
            d[l] = d[l].sqrt();
            a[at(c, c) + l] = d[l];
        }
        for r in c + 1..k {
            let mut v: [f64; LANES] = std::array::from_fn(|l| a[at(r, c) + l]);
            for p in 0..c {
                for l in 0..LANES {
                    v[l] -= a[at(r, p) + l] * a[at(c, p) + l];
                }
            }
            for l in 0..LANES {
                a[at(r, c) + l] = v[l] / d[l];
            }
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
            let mut v = [if r == i { 1.0 } else { 0.0 }; LANES];
            for p in i..r {
                for l in 0..LANES {
                    v[l] -= a[at(r, p) + l] * x[at(p, i) + l];
                }
            }
            for l in 0..LANES {
                x[at(r, i) + l] = v[l] / a[at(r, r) + l];
            }
        }
        for i in r + 1..k {
            x[at(r, i)..at(r, i) + LANES].fill(0.0);
        }
    }
    for r in (0..k).rev() {
        for i in 0..k {
            let mut v: [f64; LANES] = std::array::from_fn(|l| x[at(r, i) + l]);
            for p in r + 1..k {
                for l in 0..LANES {
                    v[l] -= a[at(p, r) + l] * x[at(p, i) + l];
                }
            }
            for l in 0..LANES {
                x[at(r, i) + l] = v[l] / a[at(r, r) + l];
            }
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
