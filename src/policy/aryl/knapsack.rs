//! The multiple-choice knapsack Aryl solves to size elastic jobs: one group per job, one
//! option per number of extra workers (weight = GPUs, value = predicted JCT reduction), at
//! most one option per group, total weight within the free GPUs; solved exactly by dynamic
//! programming over the capacity in O(groups x capacity x options).

/// One option of a group: its weight (GPUs) and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// GPUs it takes.
    pub weight: u32,
    /// What it is worth (larger is better; must be finite).
    pub value: f64,
}

/// The best selection: total value and, per group, the index of the chosen option (None
/// when the group takes nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Sum of the chosen options' values.
    pub value: f64,
    /// Chosen option per group.
    pub chosen: Vec<Option<usize>>,
}

/// Choose at most one option per group to maximise the total value with total weight at
/// most `capacity`. Options with a non-finite or negative value are never chosen. Ties go
/// to the selection found first: fewer GPUs in earlier groups.
pub fn solve(groups: &[Vec<Choice>], capacity: u32) -> Selection {
    let cap = capacity as usize;
    let n = groups.len();
    // best[g][c]: best value using groups 0..g with weight at most c; pick[g][c]: the
    // option of group g-1 on that best path.
    let mut best = vec![0.0f64; cap + 1];
    let mut picks: Vec<Vec<Option<u32>>> = Vec::with_capacity(n);
    for group in groups {
        let mut next = best.clone();
        let mut pick = vec![None; cap + 1];
        for (i, o) in group.iter().enumerate() {
            if !(o.value.is_finite() && o.value >= 0.0) {
                continue;
            }
            let w = o.weight as usize;
            if w > cap {
                continue;
            }
            for c in w..=cap {
                let v = best[c - w] + o.value;
                if v > next[c] {
                    next[c] = v;
                    pick[c] = Some(i as u32);
                }
            }
        }
        best = next;
        picks.push(pick);
    }
    let mut chosen = vec![None; n];
    let mut c = cap;
    for g in (0..n).rev() {
        if let Some(i) = picks[g][c] {
            chosen[g] = Some(i as usize);
            c -= groups[g][i as usize].weight as usize;
        }
    }
    Selection {
        value: best[cap],
        chosen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn brute(groups: &[Vec<Choice>], capacity: u32) -> f64 {
        fn go(groups: &[Vec<Choice>], left: u32) -> f64 {
            let Some((first, rest)) = groups.split_first() else {
                return 0.0;
            };
            let mut best = go(rest, left);
            for o in first {
                if o.weight <= left && o.value >= 0.0 {
                    best = best.max(o.value + go(rest, left - o.weight));
                }
            }
            best
        }
        go(groups, capacity)
    }

    #[test]
    fn matches_exhaustive_search_on_random_cases() {
        let mut rng = Rng::new(11);
        for case in 0..500 {
            let n = 1 + rng.below(5) as usize;
            let groups: Vec<Vec<Choice>> = (0..n)
                .map(|_| {
                    (0..1 + rng.below(4))
                        .map(|k| Choice {
                            weight: (k as u32 + 1) * (1 + rng.below(3) as u32),
                            value: (rng.uniform() * 100.0).round(),
                        })
                        .collect()
                })
                .collect();
            let cap = rng.below(16) as u32;
            let s = solve(&groups, cap);
            let b = brute(&groups, cap);
            assert!(
                (s.value - b).abs() < 1e-9,
                "case {case}: {} vs {b}",
                s.value
            );
            let (mut w, mut v) = (0, 0.0);
            for (g, c) in s.chosen.iter().enumerate() {
                if let Some(i) = c {
                    w += groups[g][*i].weight;
                    v += groups[g][*i].value;
                }
            }
            assert!(w <= cap, "case {case}: weight {w} over {cap}");
            assert!(
                (v - s.value).abs() < 1e-9,
                "case {case}: the selection adds up"
            );
        }
    }

    #[test]
    fn hand_made_case() {
        // Job A: +1 GPU saves 10, +2 save 14; job B: +1 saves 9, +3 save 30. With 3 GPUs
        // the best is B's +3 (30) rather than A+2 and B+1 (23).
        let g = vec![
            vec![
                Choice {
                    weight: 1,
                    value: 10.0,
                },
                Choice {
                    weight: 2,
                    value: 14.0,
                },
            ],
            vec![
                Choice {
                    weight: 1,
                    value: 9.0,
                },
                Choice {
                    weight: 3,
                    value: 30.0,
                },
            ],
        ];
        let s = solve(&g, 3);
        assert_eq!(s.chosen, vec![None, Some(1)]);
        assert_eq!(s.value, 30.0);
        let s = solve(&g, 4);
        assert_eq!(s.chosen, vec![Some(0), Some(1)]);
        assert_eq!(solve(&g, 0).chosen, vec![None, None]);
        assert_eq!(solve(&[], 5).value, 0.0);
    }

    #[test]
    fn bad_values_are_never_chosen() {
        let g = vec![vec![
            Choice {
                weight: 1,
                value: f64::NAN,
            },
            Choice {
                weight: 1,
                value: -3.0,
            },
            Choice {
                weight: 1,
                value: f64::INFINITY,
            },
        ]];
        assert_eq!(solve(&g, 2).chosen, vec![None]);
    }
}
