//! Minimum-cost assignment (the Hungarian method in its shortest-augmenting-path form, as in
//! Jonker and Volgenant): assign every row of a `rows x cols` cost matrix (`rows <= cols`)
//! to a distinct column so that the total cost is as small as possible.
//!
//! Rows are added one at a time. For each, a Dijkstra-like search over reduced costs
//! `cost[i][j] - u[i] - v[j]` (never negative thanks to the dual potentials `u`, `v`) finds
//! the cheapest alternating path from the new row to a free column; the potentials are then
//! updated so that reduced costs stay non-negative and zero along the matching, and the path
//! is flipped. Each search is `O(rows x cols)` at worst, so the whole is `O(rows^2 x cols)`
//! (`O(n^3)` for a square matrix); in practice searches stop after a few rows.
//!
//! Costs come from a function of `(row, column)`, so large structured matrices need not be
//! stored. [`assign_positions`] solves AlloX's matching of jobs to machine queue positions
//! (an `m x (n m)` matrix) with only the columns that can matter.

use thiserror::Error;

/// Why an assignment could not be computed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AssignError {
    /// More rows than columns: not every row can get its own column.
    #[error("{rows} rows cannot each get one of {cols} columns")]
    TooManyRows {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// A cost is not a finite number.
    #[error("cost at row {row}, column {col} is not finite")]
    NotFinite {
        /// Row.
        row: usize,
        /// Column.
        col: usize,
    },
    /// The rows of a matrix have different lengths.
    #[error("row {0} has a different length from row 0")]
    Ragged(usize),
}

/// The assignment of a square or wide matrix given as rows: for each row, its column.
pub fn assign(cost: &[Vec<f64>]) -> Result<Vec<usize>, AssignError> {
    let cols = cost.first().map_or(0, Vec::len);
    if let Some(i) = cost.iter().position(|r| r.len() != cols) {
        return Err(AssignError::Ragged(i));
    }
    assign_with(cost.len(), cols, |i, j| cost[i][j])
}

/// The assignment of a `rows x cols` matrix whose entries `cost(row, col)` gives: for each
/// row, its column, the total cost being the smallest possible. `cost` is called
/// `O(rows x cols)` times per row at worst and must be finite.
pub fn assign_with(
    rows: usize,
    cols: usize,
    cost: impl Fn(usize, usize) -> f64,
) -> Result<Vec<usize>, AssignError> {
    if rows > cols {
        return Err(AssignError::TooManyRows { rows, cols });
    }
    let mut columns: Vec<usize> = (0..cols).collect();
    shortest_augmenting_paths(rows, &mut columns, |i, &j| cost(i, j), |_| None)
}

/// Jobs to machines at least total completion time (scheduling on unrelated machines):
/// job `i` takes `time(i, w) >= 0` on machine `w`, each machine runs its jobs one after the
/// other, and the sum of the jobs' completion times is minimised. For each job, its machine
/// and its position counted from the end of the machine's queue (0 runs last).
///
/// This is the assignment of jobs to the columns `(w, b)` ("`b`-th from the end on `w`") at
/// cost `(b + 1) time(i, w)`, a job delaying the `b` jobs after it, but with columns made as
/// they are needed: a free column keeps a zero dual potential, so of the free columns of a
/// machine only the one of the smallest `b` can end a cheapest augmenting path (the others
/// cost at least as much). Columns in play stay below `rows + machines`, rather than
/// `rows x machines`.
pub fn assign_positions(
    rows: usize,
    machines: usize,
    time: impl Fn(usize, usize) -> f64,
) -> Result<Vec<(usize, usize)>, AssignError> {
    if rows > 0 && machines == 0 {
        return Err(AssignError::TooManyRows { rows, cols: 0 });
    }
    for i in 0..rows {
        for w in 0..machines {
            let t = time(i, w);
            if !(t.is_finite() && t >= 0.0) {
                return Err(AssignError::NotFinite { row: i, col: w });
            }
        }
    }
    let mut columns: Vec<(usize, usize)> = (0..machines).map(|w| (w, 0)).collect();
    let a = shortest_augmenting_paths(
        rows,
        &mut columns,
        |i, &(w, b)| (b + 1) as f64 * time(i, w),
        |&(w, b)| Some((w, b + 1)),
    )?;
    Ok(a.into_iter().map(|c| columns[c]).collect())
}

/// The shortest-augmenting-path method over `columns` (column descriptions, costed by
/// `cost(row, column)`). When a path ends on a free column, `next` may add a new column
/// (it starts free, with a zero potential). For each row, the index of its column.
fn shortest_augmenting_paths<C>(
    rows: usize,
    columns: &mut Vec<C>,
    cost: impl Fn(usize, &C) -> f64,
    mut next: impl FnMut(&C) -> Option<C>,
) -> Result<Vec<usize>, AssignError> {
    const NONE: usize = usize::MAX;
    let mut u = vec![0.0_f64; rows];
    let mut v = vec![0.0_f64; columns.len()];
    let mut col_of = vec![NONE; rows];
    let mut row_of = vec![NONE; columns.len()];
    // Per search: tentative distances, predecessors, the columns not yet settled, and the
    // settled columns and visited rows (to update the potentials afterwards).
    let mut dist = vec![f64::INFINITY; columns.len()];
    let mut pred = vec![NONE; columns.len()];
    let mut remaining: Vec<usize> = Vec::with_capacity(columns.len());
    let mut settled: Vec<usize> = Vec::new();
    let mut visited: Vec<usize> = Vec::with_capacity(rows);
    for start in 0..rows {
        let cols = columns.len();
        remaining.clear();
        remaining.extend(0..cols);
        settled.clear();
        visited.clear();
        dist.iter_mut().for_each(|d| *d = f64::INFINITY);
        let mut i = start;
        let mut min_val = 0.0_f64;
        let sink = loop {
            visited.push(i);
            let (ui, mut best, mut best_k) = (u[i], f64::INFINITY, NONE);
            for (k, &j) in remaining.iter().enumerate() {
                let c = cost(i, &columns[j]);
                if !c.is_finite() {
                    return Err(AssignError::NotFinite { row: i, col: j });
                }
                let r = min_val + c - ui - v[j];
                if r < dist[j] {
                    dist[j] = r;
                    pred[j] = i;
                }
                // The nearest column; among equals, a free one ends the search sooner.
                if dist[j] < best || (dist[j] == best && row_of[j] == NONE) {
                    best = dist[j];
                    best_k = k;
                }
            }
            if best_k == NONE {
                // Every column is taken: more rows than columns.
                return Err(AssignError::TooManyRows { rows, cols });
            }
            let j = remaining.swap_remove(best_k);
            min_val = best;
            settled.push(j);
            if row_of[j] == NONE {
                break j;
            }
            i = row_of[j];
        };
        // Potentials: keep reduced costs non-negative and zero on the matching.
        u[start] += min_val;
        for &r in visited.iter().skip(1) {
            u[r] += min_val - dist[col_of[r]];
        }
        for &j in &settled {
            v[j] -= min_val - dist[j];
        }
        // Flip the path back from the sink.
        let mut j = sink;
        loop {
            let r = pred[j];
            row_of[j] = r;
            let prev = col_of[r];
            col_of[r] = j;
            if r == start {
                break;
            }
            j = prev;
        }
        if let Some(c) = next(&columns[sink]) {
            columns.push(c);
            v.push(0.0);
            row_of.push(NONE);
            dist.push(f64::INFINITY);
            pred.push(NONE);
        }
    }
    Ok(col_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn total(cost: &[Vec<f64>], a: &[usize]) -> f64 {
        a.iter().enumerate().map(|(i, &j)| cost[i][j]).sum()
    }

    /// The least total over every injective map of rows to columns.
    fn brute(cost: &[Vec<f64>]) -> f64 {
        fn go(cost: &[Vec<f64>], i: usize, used: &mut Vec<bool>) -> f64 {
            if i == cost.len() {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for j in 0..used.len() {
                if !used[j] {
                    used[j] = true;
                    best = best.min(cost[i][j] + go(cost, i + 1, used));
                    used[j] = false;
                }
            }
            best
        }
        go(cost, 0, &mut vec![false; cost[0].len()])
    }

    fn is_injective(a: &[usize], cols: usize) -> bool {
        let mut seen = vec![false; cols];
        a.iter()
            .all(|&j| j < cols && !std::mem::replace(&mut seen[j], true))
    }

    #[test]
    fn hand_solved() {
        // Row 0 -> 1 (1), row 1 -> 0 (2), row 2 -> 2 (2): total 5, the only optimum.
        let c = vec![
            vec![4.0, 1.0, 3.0],
            vec![2.0, 0.0, 5.0],
            vec![3.0, 2.0, 2.0],
        ];
        assert_eq!(assign(&c).unwrap(), vec![1, 0, 2]);
        // Wide: two rows, three columns. Row 0 -> 2 (1), row 1 -> 0 (2): total 3; giving row 0
        // column 0 (as cheap) would leave row 1 with 8 or 9.
        let w = vec![vec![1.0, 5.0, 1.0], vec![2.0, 9.0, 8.0]];
        let a = assign(&w).unwrap();
        assert_eq!(total(&w, &a), 3.0);
        assert_eq!(a, vec![2, 0]);
        // The counter-example to greedy: row 0 taking its 0 leaves row 1 with 100; the
        // optimum is 1 + 1. Then negative costs.
        let g = vec![vec![0.0, 1.0], vec![1.0, 100.0]];
        assert_eq!(assign(&g).unwrap(), vec![1, 0]);
        let n = vec![vec![-5.0, -1.0], vec![-4.0, -3.0]];
        assert_eq!(assign(&n).unwrap(), vec![0, 1]);
        assert!(assign(&[]).unwrap().is_empty());
    }

    #[test]
    fn errors() {
        assert_eq!(
            assign(&[vec![1.0], vec![2.0]]),
            Err(AssignError::TooManyRows { rows: 2, cols: 1 })
        );
        assert_eq!(
            assign(&[vec![1.0, f64::NAN]]),
            Err(AssignError::NotFinite { row: 0, col: 1 })
        );
        assert_eq!(
            assign(&[vec![1.0, 2.0], vec![1.0]]),
            Err(AssignError::Ragged(1))
        );
    }

    #[test]
    fn matches_brute_force_on_random_matrices() {
        let mut rng = Rng::new(7);
        for case in 0..400 {
            let rows = 1 + rng.below(6) as usize;
            let cols = rows + rng.below(3) as usize;
            // Small integer costs make ties common, which is where mistakes hide.
            let small = case % 2 == 0;
            let c: Vec<Vec<f64>> = (0..rows)
                .map(|_| {
                    (0..cols)
                        .map(|_| {
                            if small {
                                rng.below(4) as f64
                            } else {
                                rng.range(-50.0, 50.0)
                            }
                        })
                        .collect()
                })
                .collect();
            let a = assign(&c).unwrap();
            assert!(is_injective(&a, cols), "{c:?} {a:?}");
            let (got, want) = (total(&c, &a), brute(&c));
            assert!(
                (got - want).abs() < 1e-9,
                "case {case}: {got} vs {want} for {c:?}"
            );
        }
    }

    #[test]
    fn positions_match_the_full_matrix() {
        // Jobs on machines with queue positions, against the full m x (n m) matrix and,
        // for small cases, brute force.
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let m = 1 + rng.below(7) as usize;
            let n = 1 + rng.below(3) as usize;
            let t: Vec<Vec<f64>> = (0..m)
                .map(|_| {
                    (0..n)
                        .map(|_| {
                            if case % 2 == 0 {
                                rng.below(3) as f64
                            } else {
                                rng.range(0.0, 10.0)
                            }
                        })
                        .collect()
                })
                .collect();
            let full: Vec<Vec<f64>> = t
                .iter()
                .map(|r| (0..n * m).map(|c| (c / n + 1) as f64 * r[c % n]).collect())
                .collect();
            let want = total(&full, &assign(&full).unwrap());
            let a = assign_positions(m, n, |i, w| t[i][w]).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            assert!(a.iter().all(|&wb| seen.insert(wb)), "{a:?}");
            let got: f64 = a
                .iter()
                .enumerate()
                .map(|(i, &(w, b))| (b + 1) as f64 * t[i][w])
                .sum();
            assert!((got - want).abs() < 1e-9, "case {case}: {got} vs {want}");
            if m * n <= 12 && m <= 5 {
                assert!((want - brute(&full)).abs() < 1e-9);
            }
        }
        assert!(assign_positions(0, 0, |_, _| 1.0).unwrap().is_empty());
        assert!(assign_positions(1, 0, |_, _| 1.0).is_err());
        assert!(assign_positions(1, 1, |_, _| -1.0).is_err());
    }

    #[test]
    fn structured_costs_through_a_function() {
        // Jobs on machines with positions (AlloX's layout): cost (b + 1) x p[i][w] for
        // column b x n + w. Three jobs of 1, 2, 3 s on one machine run shortest first:
        // total completion time 1 + 3 + 6 = 10.
        let p = [1.0, 2.0, 3.0];
        let a = assign_with(3, 3, |i, col| (col + 1) as f64 * p[i]).unwrap();
        let t: f64 = a
            .iter()
            .enumerate()
            .map(|(i, &c)| (c + 1) as f64 * p[i])
            .sum();
        assert_eq!(t, 10.0);
        // The longest job takes block 0 (counted once: it runs last).
        assert_eq!(a, vec![2, 1, 0]);
    }
}
