//! Pair time over classes of partners: the packed LP of [`super::packed`] with a row per job
//! and partner class instead of a row per pair of jobs.
//!
//! Two jobs of one colocation class (same type and scale factor) train at the same rates
//! with any partner, so a job's throughput depends only on how long it shares GPUs with each
//! class, not with which job of it. Row `(i, c)` is the time job `i` shares GPUs of each type
//! with jobs of class `c`; job `i` trains at
//! `eff_i = sum_t T[i][t] x[i][t] + sum_c sum_t C[class(i), c][t] y[i, c][t]`. The pair time
//! must add up from both sides, per type `t`:
//! - between classes `a != b`: `sum_(i in a) y[i, b][t] = sum_(j in b) y[j, a][t]`; any such
//!   totals are a transportation problem over the complete bipartite graph of the two
//!   classes, always solvable (the north-west corner rule gives a solution);
//! - within a class `a`: `2 y[i, a][t] <= S[a][t] = sum_(j in a) y[j, a][t]` (no job pairs with
//!   itself); then the times are realised by laying them end to end on a circle of length
//!   `S` and pairing each point with the point half way round (each job's arc is at most
//!   half of it, so never meets itself).
//!
//! A pair's GPUs count once, so every pair row counts half its scale factor toward a type's
//! capacity (each pair's time appears in two rows). With `k` classes this LP has about
//! `m k` rows where the per-pair one has `m^2 / 2`, and the same optimal value: every
//! per-pair solution sums to a feasible point here, and every point here splits into pairs
//! ([`PartnerClasses::decision`]). Within a class the colocated rates must be symmetric (true
//! of Gavel's throughputs: a job type paired with itself gives both the same rate);
//! [`PartnerClasses::new`] declines otherwise.

use super::lp::Lp;
use crate::policy::{Allocation, Decision, PolicyView};
use good_lp::Variable;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Times below which a piece of a split is left out (the solver's own accuracy).
const TINY: f64 = 1e-12;

/// Rounds of column generation before every pair joins the LP.
pub const MAX_ROUNDS: usize = 8;

/// How far a pair's gain must exceed its cost at the duals to join the LP (relative).
const PRICE_TOL: f64 = 1e-9;

/// The packed LP's rows over partner classes.
#[derive(Debug, Clone, PartialEq)]
pub struct PartnerClasses {
    /// Number of single-job rows (the view's jobs, by position).
    singles: usize,
    /// Members of each class (positions, ascending).
    classes: Vec<Vec<usize>>,
    /// Pair rows: (job position, partner class), after the single rows.
    rows: Vec<(usize, usize)>,
    /// Job's steps/s per type in each pair row.
    rates: Vec<Vec<f64>>,
    /// For each job, its pair rows (indices into `rows`), by partner class.
    member_of: Vec<Vec<usize>>,
    /// Pairs of classes whose jobs can share GPUs (first <= second).
    links: Vec<(usize, usize)>,
    /// Per link and type, whether sharing there can pay (a positive rate, not dominated).
    link_live: Vec<Vec<bool>>,
    /// Each link's rates per type: (a job of the first class's, of the second's).
    link_rates: Vec<Vec<(f64, f64)>>,
    /// Per link and type, whether its rows are in the LP (grown by [`PartnerClasses::maximise`]).
    active: RefCell<Vec<Vec<bool>>>,
    /// The link of each pair row.
    row_link: Vec<usize>,
    /// `row_of[(job, class)]`: index into `rows`.
    row_of: BTreeMap<(usize, usize), usize>,
    /// For each class that can pair within itself, its total row `S` (after the pair rows).
    totals: Vec<(usize, usize)>,
}

impl PartnerClasses {
    /// The rows for `view`, or `None` when some class pairs with itself at unequal rates
    /// (the per-pair layout is needed then) or there is no colocation data.
    pub fn new(view: &PolicyView) -> Option<Self> {
        let col = view.colocation.filter(|c| !c.is_empty())?;
        let m = view.jobs.len();
        let n = view.cluster.num_types();
        let mut index: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut classes: Vec<Vec<usize>> = Vec::new();
        let mut class_of: Vec<Option<usize>> = vec![None; m];
        for (pos, j) in view.jobs.iter().enumerate() {
            let Some(cc) = col.class(j.id) else { continue };
            let next = classes.len();
            let c = *index.entry((cc, j.scale())).or_insert(next);
            if c == next {
                classes.push(Vec::new());
            }
            classes[c].push(pos);
            class_of[pos] = Some(c);
        }
        // A class's throughputs alone, when all its jobs share them.
        let alone = |members: &[usize]| -> Option<&[f64]> {
            let first = view.jobs[members[0]].throughput;
            members
                .iter()
                .all(|&i| view.jobs[i].throughput == first)
                .then_some(first)
        };
        let mut links = Vec::new();
        let mut link_rates: Vec<Vec<(f64, f64)>> = Vec::new();
        for a in 0..classes.len() {
            for b in a..classes.len() {
                let Some(r) = super::packed::class_rates(view, col, &classes, a, b) else {
                    continue;
                };
                if a == b && r.iter().any(|&(x, y)| x != y) {
                    return None;
                }
                let r = without_dominated(r, alone(&classes[a]), alone(&classes[b]));
                if r.iter().all(|&(x, y)| x == 0.0 && y == 0.0) {
                    continue;
                }
                links.push((a, b));
                link_rates.push(r);
            }
        }
        let mut rows = Vec::new();
        let mut rates = Vec::new();
        let mut member_of = vec![Vec::new(); m];
        let mut row_of = BTreeMap::new();
        let mut row_link = Vec::new();
        for (pos, c) in class_of.iter().enumerate() {
            let Some(a) = *c else { continue };
            for (l, &(x, y)) in links.iter().enumerate() {
                let (partner, first) = match (x == a, y == a) {
                    (true, _) => (y, true),
                    (false, true) => (x, false),
                    _ => continue,
                };
                let r = &link_rates[l];
                row_of.insert((pos, partner), rows.len());
                member_of[pos].push(rows.len());
                rows.push((pos, partner));
                row_link.push(l);
                rates.push(r.iter().map(|&(u, v)| if first { u } else { v }).collect());
            }
        }
        let totals = links
            .iter()
            .filter(|(a, b)| a == b)
            .enumerate()
            .map(|(k, &(a, _))| (a, m + rows.len() + k))
            .collect();
        let link_live: Vec<Vec<bool>> = link_rates
            .iter()
            .map(|r| r.iter().map(|&(x, y)| x > 0.0 || y > 0.0).collect())
            .collect();
        let active = RefCell::new(vec![vec![false; n]; links.len()]);
        Some(PartnerClasses {
            singles: m,
            link_rates,
            active,
            classes,
            rows,
            rates,
            member_of,
            links,
            link_live,
            row_link,
            row_of,
            totals,
        })
    }

    /// Number of pair rows (job, partner class).
    pub fn pair_rows(&self) -> usize {
        self.rows.len()
    }

    /// Number of LP rows: singles, pair rows, then a total row per class pairing within itself.
    pub fn rows(&self) -> usize {
        self.singles + self.rows.len() + self.totals.len()
    }

    /// An LP with the packed base constraints and the balance rows.
    pub fn lp(&self, view: &PolicyView) -> Lp {
        let n = view.cluster.num_types();
        let mut scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        scale.extend(
            self.rows
                .iter()
                .map(|&(i, _)| f64::from(view.jobs[i].scale()) / 2.0),
        );
        scale.extend(std::iter::repeat_n(0.0, self.totals.len()));
        let groups: Vec<Vec<(usize, f64)>> = (0..self.singles)
            .map(|i| {
                std::iter::once((i, 1.0))
                    .chain(self.member_of[i].iter().map(|&r| (self.singles + r, 1.0)))
                    .collect()
            })
            .collect();
        let active = self.active.borrow();
        let first_total = self.singles + self.rows.len();
        let mut lp = Lp::grouped_live(&scale, &view.counts(), &groups, |r, t| {
            if r < self.singles {
                true
            } else if r < first_total {
                active[self.row_link[r - self.singles]][t]
            } else {
                let a = self.totals[r - first_total].0;
                self.links
                    .iter()
                    .position(|&l| l == (a, a))
                    .is_some_and(|l| active[l][t])
            }
        });
        let row = |i: usize, c: usize| self.singles + self.row_of[&(i, c)];
        for (l, &(a, b)) in self.links.iter().enumerate() {
            for t in 0..n {
                if !active[l][t] {
                    continue;
                }
                if a != b {
                    let mut e = good_lp::Expression::with_capacity(
                        self.classes[a].len() + self.classes[b].len(),
                    );
                    for &i in &self.classes[a] {
                        e.add_mul(1.0, lp.x[row(i, b)][t]);
                    }
                    for &j in &self.classes[b] {
                        e.add_mul(-1.0, lp.x[row(j, a)][t]);
                    }
                    lp.push(e.eq(0.0));
                    continue;
                }
                let Some(&(_, s)) = self.totals.iter().find(|(c, _)| *c == a) else {
                    continue;
                };
                let total = lp.x[s][t];
                let mut e = good_lp::Expression::with_capacity(self.classes[a].len() + 1);
                e.add_mul(1.0, total);
                for &i in &self.classes[a] {
                    e.add_mul(-1.0, lp.x[row(i, a)][t]);
                }
                lp.push(e.eq(0.0));
                for &i in &self.classes[a] {
                    let mut e = good_lp::Expression::with_capacity(2);
                    e.add_mul(2.0, lp.x[row(i, a)][t]);
                    e.add_mul(-1.0, total);
                    lp.push(e.leq(0.0));
                }
            }
        }
        lp
    }

    /// Maximise the variable `add` returns after adding its rows (one per job, in order,
    /// each job's pair rows at its rates times `k[job]`, as `z <= ...`) to the LP, by column
    /// generation: the LP starts without pair rows (or with those of earlier calls), and
    /// each solve's duals price every pair of classes and type left out; those that could
    /// raise the objective join and the LP is solved again, until none can (then the
    /// optimum is that of the whole LP). After [`MAX_ROUNDS`] rounds every pair joins.
    /// `None` when `add` declines or the solver fails.
    pub fn maximise(
        &self,
        view: &PolicyView,
        k: &[f64],
        add: impl Fn(&mut Lp) -> Option<Variable>,
    ) -> Option<Vec<Vec<f64>>> {
        for round in 0..=MAX_ROUNDS {
            let mut lp = self.lp(view);
            let base = lp.constraints();
            let z = add(&mut lp)?;
            let (x, duals) = lp.maximise_with_duals(z.into()).ok()?;
            if round == MAX_ROUNDS {
                return Some(x);
            }
            let grew = if round + 1 == MAX_ROUNDS {
                *self.active.borrow_mut() = self.link_live.clone();
                true
            } else {
                self.price(view, &duals, base, k)
            };
            if !grew {
                return Some(x);
            }
        }
        None
    }

    /// Add to the LP every pair of classes and type whose pair of jobs would raise the
    /// objective at the duals `d` (capacity rows first, then the jobs' time rows, the
    /// jobs' rows of the caller from `base`): a pair of jobs `i`, `j` sharing `w` of type
    /// `t` gains `w (nu_i k_i C_i - mu_i + nu_j k_j C_j - mu_j - s lambda_t)`. Whether any
    /// joined.
    fn price(&self, view: &PolicyView, d: &[f64], base: usize, k: &[f64]) -> bool {
        let n = view.cluster.num_types();
        let m = self.singles;
        let dual = |r: usize| d.get(r).copied().unwrap_or(0.0);
        let gain = |i: usize, rate: f64| dual(base + i) * k[i] * rate - dual(n + i);
        let mut active = self.active.borrow_mut();
        let mut grew = false;
        for (l, &(a, b)) in self.links.iter().enumerate() {
            let s = f64::from(view.jobs[self.classes[a][0]].scale());
            for t in 0..n {
                if active[l][t] || !self.link_live[l][t] {
                    continue;
                }
                let (ra, rb) = self.link_rates[l][t];
                let best = if a == b {
                    let (mut first, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
                    for &i in &self.classes[a] {
                        let g = gain(i, ra);
                        if g > first {
                            second = first;
                            first = g;
                        } else if g > second {
                            second = g;
                        }
                    }
                    first + second
                } else {
                    let top = |c: usize, rate: f64| {
                        self.classes[c]
                            .iter()
                            .map(|&i| gain(i, rate))
                            .fold(f64::NEG_INFINITY, f64::max)
                    };
                    top(a, ra) + top(b, rb)
                };
                let cost = s * dual(t);
                if best > cost + PRICE_TOL * (1.0 + cost.abs()) {
                    active[l][t] = true;
                    grew = true;
                }
            }
        }
        debug_assert!(m == k.len());
        grew
    }

    /// For each job, its throughput terms scaled by `factor[job]`: its own row (`thr[job]`)
    /// and each of its pair rows (its colocated rates with that class).
    pub fn terms(&self, thr: &[Vec<f64>], factor: &[f64]) -> Vec<Vec<(usize, Vec<f64>)>> {
        (0..self.singles)
            .map(|i| {
                let f = factor[i];
                std::iter::once((i, thr[i].iter().map(|t| t * f).collect()))
                    .chain(self.member_of[i].iter().map(|&r| {
                        (
                            self.singles + r,
                            self.rates[r].iter().map(|v| v * f).collect(),
                        )
                    }))
                    .collect()
            })
            .collect()
    }

    /// Job `i`'s throughput under `x` (rows as here) with throughputs `thr`.
    pub fn effective(&self, i: usize, thr: &[Vec<f64>], x: &[Vec<f64>]) -> f64 {
        let own: f64 = thr[i].iter().zip(&x[i]).map(|(a, b)| a * b).sum();
        let shared: f64 = self.member_of[i]
            .iter()
            .map(|&r| {
                self.rates[r]
                    .iter()
                    .zip(&x[self.singles + r])
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
            })
            .sum();
        own + shared
    }

    /// Single-job rows `singles` padded with zero pair and total rows.
    pub fn with_zero_pairs(&self, singles: Vec<Vec<f64>>, types: usize) -> Vec<Vec<f64>> {
        let mut x = singles;
        x.extend(std::iter::repeat_n(
            vec![0.0; types],
            self.rows.len() + self.totals.len(),
        ));
        x
    }

    /// The decision for a solution `x` (rows as here): each job's own row, and the pair
    /// time split into pairs of jobs (ascending by ids), each job sharing GPUs with a class
    /// for at most its row's time.
    pub fn decision(&self, view: &PolicyView, x: Vec<Vec<f64>>) -> Decision {
        let n = view.cluster.num_types();
        let get = |i: usize, c: usize, t: usize| -> f64 {
            x.get(self.singles + self.row_of[&(i, c)])
                .and_then(|r| r.get(t))
                .copied()
                .unwrap_or(0.0)
        };
        let mut split: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        let mut add = |p: usize, q: usize, t: usize, w: f64| {
            if w > TINY && p != q {
                split
                    .entry((p.min(q), p.max(q)))
                    .or_insert_with(|| vec![0.0; n])[t] += w;
            }
        };
        for (l, &(a, b)) in self.links.iter().enumerate() {
            for t in (0..n).filter(|&t| self.link_live[l][t]) {
                if a == b {
                    let d: Vec<(usize, f64)> =
                        self.classes[a].iter().map(|&i| (i, get(i, a, t))).collect();
                    split_within(&d, |p, q, w| add(p, q, t, w));
                } else {
                    let da: Vec<(usize, f64)> =
                        self.classes[a].iter().map(|&i| (i, get(i, b, t))).collect();
                    let db: Vec<(usize, f64)> =
                        self.classes[b].iter().map(|&j| (j, get(j, a, t))).collect();
                    split_between(&da, &db, |p, q, w| add(p, q, t, w));
                }
            }
        }
        let mut singles = x;
        singles.truncate(self.singles);
        let (pairs, pair_fractions): (Vec<_>, Vec<Vec<f64>>) = split
            .into_iter()
            .map(|((p, q), row)| ((view.jobs[p].id, view.jobs[q].id), row))
            .unzip();
        Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: singles.into(),
            pairs,
            pair_fractions: pair_fractions.into(),
        })
    }
}

/// A pair's rates with the types where sharing is dominated set to 0: where each job trains
/// no faster together than alone and their shares of their rates alone sum to at most 1
/// (`x / Ta + y / Tb <= 1`), the same steps come from running the two alone on the same
/// type for those shares of the time, which takes no more GPU time and no more of either
/// job's time. The LP's optimal value is then the same without the pair on that type, and
/// its rows and balance rows for that type are left out. Without both classes' rates alone
/// (their jobs differ) nothing is left out.
fn without_dominated(
    rates: Vec<(f64, f64)>,
    a: Option<&[f64]>,
    b: Option<&[f64]>,
) -> Vec<(f64, f64)> {
    let (Some(ta), Some(tb)) = (a, b) else {
        return rates;
    };
    rates
        .into_iter()
        .enumerate()
        .map(|(t, (x, y))| {
            let (ua, ub) = (
                ta.get(t).copied().unwrap_or(0.0),
                tb.get(t).copied().unwrap_or(0.0),
            );
            let dominated = ua > 0.0 && ub > 0.0 && x <= ua && y <= ub && x / ua + y / ub <= 1.0;
            if dominated {
                (0.0, 0.0)
            } else {
                (x, y)
            }
        })
        .collect()
}

/// Split the pair time between two classes: `a[k] = (job, time with the other class)`, and
/// likewise `b`; the north-west corner rule gives each job at most its time and pairs at
/// most `|a| + |b| - 1` jobs. Whatever one side has beyond the other's total (the solver's
/// tolerance) stays unpaired.
fn split_between(a: &[(usize, f64)], b: &[(usize, f64)], mut emit: impl FnMut(usize, usize, f64)) {
    let (mut p, mut q) = (0, 0);
    let (mut ra, mut rb) = match (a.first(), b.first()) {
        (Some(x), Some(y)) => (x.1, y.1),
        _ => return,
    };
    while p < a.len() && q < b.len() {
        let w = ra.min(rb).max(0.0);
        emit(a[p].0, b[q].0, w);
        ra -= w;
        rb -= w;
        if ra <= rb {
            p += 1;
            ra = a.get(p).map_or(0.0, |v| v.1);
        } else {
            q += 1;
            rb = b.get(q).map_or(0.0, |v| v.1);
        }
    }
}

/// Split the pair time within a class: `d[k] = (job, time with its own class)`. The times
/// are laid end to end on `[0, D)` and the point at `u` pairs with the point at `u + D/2`;
/// a job whose time exceeds `D/2` (by the solver's tolerance) would meet itself there, and
/// that piece stays unpaired.
fn split_within(d: &[(usize, f64)], mut emit: impl FnMut(usize, usize, f64)) {
    let mut ends = Vec::with_capacity(d.len());
    let mut acc = 0.0;
    for &(_, v) in d {
        acc += v.max(0.0);
        ends.push(acc);
    }
    let half = acc / 2.0;
    if half <= 0.0 {
        return;
    }
    let mut p = 0;
    let mut q = ends.iter().position(|&e| e > half).unwrap_or(d.len());
    let mut u = 0.0;
    while u < half && p < d.len() && q < d.len() {
        let next = ends[p].min(ends[q] - half).min(half);
        let w = next - u;
        if w > 0.0 && p != q {
            emit(d[p].0, d[q].0, w);
        }
        u = next;
        if ends[p] <= u {
            p += 1;
        }
        if ends[q] - half <= u {
            q += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(f: impl FnOnce(&mut dyn FnMut(usize, usize, f64))) -> BTreeMap<(usize, usize), f64> {
        let mut m = BTreeMap::new();
        f(&mut |p, q, w| *m.entry((p.min(q), p.max(q))).or_insert(0.0) += w);
        m
    }

    fn per_job(m: &BTreeMap<(usize, usize), f64>, jobs: usize) -> Vec<f64> {
        let mut v = vec![0.0; jobs];
        for (&(p, q), &w) in m {
            v[p] += w;
            v[q] += w;
        }
        v
    }

    #[test]
    fn between_classes_every_job_gets_its_time() {
        // Class {0, 1} with 0.5 and 0.3, class {2, 3, 4} with 0.2, 0.4, 0.2: north-west
        // corner pairs (0,2) 0.2, (0,3) 0.3, (1,3) 0.1, (1,4) 0.2.
        let a = [(0, 0.5), (1, 0.3)];
        let b = [(2, 0.2), (3, 0.4), (4, 0.2)];
        let m = collect(|e| split_between(&a, &b, &mut *e));
        let want = [((0, 2), 0.2), ((0, 3), 0.3), ((1, 3), 0.1), ((1, 4), 0.2)];
        assert_eq!(m.len(), want.len(), "{m:?}");
        for (k, w) in want {
            assert!((m[&k] - w).abs() < 1e-12, "{m:?}");
        }
    }

    #[test]
    fn within_a_class_no_job_meets_itself() {
        // Times 0.5, 0.25, 0.25 (D = 1, half 0.5): job 0 covers [0, 0.5) and pairs with the
        // other two over their whole arcs.
        let d = [(0, 0.5), (1, 0.25), (2, 0.25)];
        let m = collect(|e| split_within(&d, &mut *e));
        assert_eq!(m.len(), 2, "{m:?}");
        assert!((m[&(0, 1)] - 0.25).abs() < 1e-12 && (m[&(0, 2)] - 0.25).abs() < 1e-12);
        // Random times with none above half the total: every job gets exactly its time.
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..200 {
            let k = 2 + (rng.uniform() * 8.0) as usize;
            let mut d: Vec<(usize, f64)> = (0..k).map(|i| (i, rng.uniform())).collect();
            let total: f64 = d.iter().map(|v| v.1).sum();
            for v in &mut d {
                v.1 = v.1.min(total / 2.0 - 1e-9);
            }
            let total: f64 = d.iter().map(|v| v.1).sum();
            let largest = d.iter().map(|v| v.1).fold(0.0, f64::max);
            if 2.0 * largest > total {
                continue;
            }
            let m = collect(|e| split_within(&d, &mut *e));
            assert!(m.keys().all(|(p, q)| p != q));
            for (got, want) in per_job(&m, k).iter().zip(&d) {
                assert!((got - want.1).abs() < 1e-9, "{got} vs {want:?}");
            }
        }
    }

    /// Random worlds of single-GPU jobs in three classes on two types: both layouts reach
    /// the same optimal rho and makespan, and the pairs split from the class rows give each
    /// job the throughput its rows promised, within the packed constraints.
    #[test]
    fn class_rows_reach_the_per_pair_optimum() {
        use super::super::super::finish_time_fairness_packed::FinishTimeFairnessPacked;
        use super::super::super::min_total_duration_packed::MinTotalDurationPacked;
        use super::super::super::testing::World;
        use super::super::lp::satisfies_packed;
        use super::super::packed::{Layout, Rows};
        let mut rng = crate::rng::Rng::new(11);
        let mut shared = 0.0;
        for case in 0..6 {
            let m = 5 + case;
            let class_of: Vec<u32> = (0..m).map(|i| (i % 3) as u32).collect();
            let base: Vec<Vec<f64>> = (0..3)
                .map(|_| vec![rng.range(0.5, 2.0), rng.range(0.1, 1.0)])
                .collect();
            let jobs: Vec<(u32, Vec<f64>)> = class_of
                .iter()
                .map(|&c| (1, base[c as usize].clone()))
                .collect();
            let refs: Vec<(u32, &[f64])> = jobs.iter().map(|(s, t)| (*s, t.as_slice())).collect();
            let mut pairs = Vec::new();
            for a in 0..3u32 {
                for b in a..3u32 {
                    let row: Vec<(f64, f64)> = (0..2)
                        .map(|t| {
                            let x = rng.range(0.3, 0.9) * base[a as usize][t];
                            let y = rng.range(0.3, 0.9) * base[b as usize][t];
                            if a == b {
                                (x, x)
                            } else {
                                (x, y)
                            }
                        })
                        .collect();
                    pairs.push(((a, b), row));
                }
            }
            let mut w = World::new("a:2,b:2", &refs).with_classes(&class_of, &pairs);
            for i in 0..m {
                w.remaining[i] = rng.range(500.0, 5000.0);
                w.since[i] = rng.range(0.0, 300.0);
            }
            let v = w.view();
            let by_pair = Rows::Pairs(Layout::new(&v, 0));
            let by_class = Rows::new(&v, 0, true);
            let Rows::Classes(c) = &by_class else {
                panic!("no class rows")
            };
            // Each job: a row toward each other class, and toward its own if it has company,
            // unless sharing never pays between the two classes.
            let alone = (0..3).filter(|&k| class_of.iter().filter(|&&c| c == k).count() == 1);
            assert!(c.pair_rows() <= m * 3 - alone.count());
            let zero = vec![0.0; m];
            let (_, rho_p) = FinishTimeFairnessPacked::solve(&v, &by_pair, &zero).unwrap();
            let (x, rho_c) = FinishTimeFairnessPacked::solve(&v, &by_class, &zero).unwrap();
            assert!((rho_p - rho_c).abs() <= 3e-5 * rho_p, "{rho_p} vs {rho_c}");
            let (_, t_p) = MinTotalDurationPacked::solve(&v, &by_pair).unwrap();
            let (_, t_c) = MinTotalDurationPacked::solve(&v, &by_class).unwrap();
            assert!((t_p - t_c).abs() <= 1e-6 * t_p, "{t_p} vs {t_c}");
            // Split into pairs: each job's throughput as its rows promised.
            let promised: Vec<f64> = (0..m).map(|i| by_class.effective(i, &w.thr, &x)).collect();
            let Decision::Allocation(a) = by_class.decision(&v, x) else {
                panic!()
            };
            shared += a.pair_fractions.iter().flatten().sum::<f64>();
            let l = Layout::new(&v, 0);
            let mut rows = a.fractions.to_vecs();
            for &(p, q) in &l.pairs {
                rows.push(a.pair_row(p, q).map_or(vec![0.0; 2], <[f64]>::to_vec));
            }
            assert!(a.pairs.iter().all(|&(p, q)| l.pairs.contains(&(p, q))));
            assert!(satisfies_packed(
                &rows,
                &l.row_scales(&v),
                &[2.0, 2.0],
                &l.groups(),
                1e-7
            ));
            for (i, want) in promised.iter().enumerate() {
                let got = l.effective(i, &w.thr, &rows);
                assert!(
                    (got - want).abs() <= 1e-7 * want.max(1.0),
                    "job {i}: {got} vs {want}"
                );
            }
        }
        // The optima pair jobs (the pairs' rows were priced in).
        assert!(shared > 0.5, "{shared}");
    }
}
