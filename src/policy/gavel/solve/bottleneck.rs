//! A bound that settles water-filling's bottleneck tests without solving their LPs.
//!
//! A bottleneck test asks how far one class's normalised throughput `nt_k` can rise while
//! every class keeps its level: maximise `nt_k` over the base constraints (a capacity row
//! per type, a time row per group) and `nt_q >= lower_q` for every class `q`. For any
//! nonnegative multipliers, the Lagrangian gives an upper bound on that maximum: with
//! capacity multipliers `lambda_t`, group multipliers `rho_g` and a multiplier `a_q` on
//! every class's `nt_q` (the objective's own class included),
//!
//! ```text
//! a_k nt_k  <=  a_k lower_k + gap,
//! gap = sum_t lambda_t G_t + sum_g rho_g - sum_q a_q lower_q + R,
//! R = sum_v max(0, r_v) u_v,  r_v = sum_q a_q dnt_q/dv - lambda . dcap/dv - rho . dgroup/dv,
//! ```
//!
//! (`sum_q a_q nt_q` is at most the capacity and time terms plus `R` over the box of the
//! variables, and every other class's `nt_q` is at least its `lower_q`), where `u_v` bounds
//! variable `v` (a group row's fractions are at most `1 / weight`). The round's own LP
//! (raise every unfrozen class by `c`) gives such multipliers from its duals:
//! `a_q = y_q m_q + b_q` with `y_q` the dual of class `q`'s rise row (`m_q nt_q - c >= ...`)
//! and `b_q` that of its floor row (`nt_q >= ...`). With them every test's bound is
//! `lower_k + gap / a_k`, the same `gap` for every class. The bound holds whatever
//! the multipliers (an inexact dual only loosens it), so a class whose bound lies well below
//! the test's threshold cannot rise, and its LP would say so.

/// The round LP's duals, by role.
pub struct RoundDuals<'a> {
    /// Per type, the capacity row's dual.
    pub capacity: &'a [f64],
    /// Per group (class), its time row's dual.
    pub group: &'a [f64],
    /// Per class, the multiplier on its `nt`: `y_q m_q + b_q`.
    pub nt: &'a [f64],
}

/// The `gap` of every bottleneck test's bound (see the module's text), for a layout of
/// rows (`scale`: GPUs per row's fraction; `groups`: per class, `(row, weight)` whose
/// weighted fractions sum to at most 1; `nt`: per class, one job's `nt` as `(row,
/// coefficient per type)`), GPUs `counts`, the round's `duals` and the tests' lower bounds
/// `lower` (0 where a class has none). `None` when a variable with a positive reduced cost
/// has no bound, or the gap is not a number.
pub fn gap(
    counts: &[f64],
    scale: &[f64],
    groups: &[Vec<(usize, f64)>],
    nt: &[Vec<(usize, Vec<f64>)>],
    duals: &RoundDuals,
    lower: &[f64],
) -> Option<f64> {
    let n = counts.len();
    let pos = |v: f64| v.max(0.0);
    let mut reduced: Vec<Vec<f64>> = scale
        .iter()
        .map(|&s| duals.capacity.iter().map(|&l| -pos(l) * s).collect())
        .collect();
    let mut bound = vec![f64::INFINITY; scale.len()];
    for (g, rows) in groups.iter().enumerate() {
        let rho = pos(duals.group[g]);
        for &(r, w) in rows {
            for v in &mut reduced[r] {
                *v -= rho * w;
            }
            if w > 0.0 {
                bound[r] = bound[r].min(1.0 / w);
            }
        }
    }
    for (q, terms) in nt.iter().enumerate() {
        let a = pos(duals.nt[q]);
        for (r, coef) in terms {
            for (v, &c) in reduced[*r].iter_mut().zip(coef) {
                *v += a * c;
            }
        }
    }
    let mut slack = 0.0;
    for (row, &u) in reduced.iter().zip(&bound) {
        for &v in row.iter().take(n) {
            if v > 0.0 {
                if !u.is_finite() {
                    return None;
                }
                slack += v * u;
            }
        }
    }
    let capacity: f64 = duals
        .capacity
        .iter()
        .zip(counts)
        .map(|(&l, &g)| pos(l) * g)
        .sum();
    let time: f64 = duals.group.iter().map(|&r| pos(r)).sum();
    let floors: f64 = duals.nt.iter().zip(lower).map(|(&a, &l)| pos(a) * l).sum();
    let gap = capacity + time - floors + slack;
    gap.is_finite().then_some(gap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_solved_bounds() {
        // One type of 3 GPUs, two 1-GPU classes with nt = x, each at least 1: the largest
        // nt_0 is 1 (its row). Any multipliers bound it; good ones tightly.
        let (counts, scale) = ([3.0], [1.0, 1.0]);
        let groups = vec![vec![(0, 1.0)], vec![(1, 1.0)]];
        let nt = vec![vec![(0, vec![1.0])], vec![(1, vec![1.0])]];
        let lower = [1.0, 1.0];
        let bound = |capacity: &[f64], group: &[f64], a: &[f64]| {
            let d = RoundDuals {
                capacity,
                group,
                nt: a,
            };
            gap(&counts, &scale, &groups, &nt, &d, &lower).map(|g| lower[0] + g / a[0])
        };
        // The rows' duals: exact.
        assert_eq!(bound(&[0.0], &[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        // The capacity's: 3 - 1 for the other class.
        assert_eq!(bound(&[1.0], &[0.0, 0.0], &[1.0, 1.0]), Some(2.0));
        // None: the box of the variables makes up for it.
        assert_eq!(bound(&[0.0], &[0.0, 0.0], &[1.0, 1.0]), Some(1.0));
        // Negative duals count as 0.
        assert_eq!(bound(&[-1.0], &[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        // A variable with no bound and a positive reduced cost: no bound.
        let d = RoundDuals {
            capacity: &[0.0],
            group: &[],
            nt: &[1.0, 1.0],
        };
        assert_eq!(gap(&counts, &scale, &[], &nt, &d, &lower), None);
    }
}
