//! The pair-aware LP layout shared by Gavel's packing policies (space sharing).
//!
//! Rows are the active jobs (in id order), then pairs of jobs of equal scale factor (in
//! order of their ids), each with a variable per GPU type: `x[r][t]` is the fraction of time
//! row `r` runs on type `t`, for a pair both jobs on the same GPUs. Job `i` trains at
//! `eff_i(x) = sum_t T[i][t] x[i][t] + sum_(pairs p of i) sum_t C_i[p][t] x[p][t]` steps/s,
//! where `C_i[p][t]` is its colocated throughput in pair `p`. The constraints are those of
//! [`Lp::packed`]: per type, every row's scale factor of GPUs (a pair's once) within the
//! type's count; per job, its own row and its pairs' rows together at most 1.
//!
//! Pairs whose colocated throughput is 0 for both jobs on every type are left out (in Gavel's
//! throughputs every multi-GPU pair and a few single-GPU ones are such): they cannot add to
//! any objective, and leaving them out keeps the LP small. With `partners = K > 0` each job
//! also keeps only its `K` best partners by normalised pair gain
//! (`max_t C_i[p][t] / T[i][t] + C_j[p][t] / T[j][t]`, ties to the lower id), a pair staying
//! when either job keeps it.

use super::family::Family;
use super::lp::Lp;
pub use super::partner_classes::PartnerClasses;
use crate::policy::registry::ParamInfo;
use crate::policy::{Allocation, Decision, PolicyTraits, PolicyView, Recompute};
use std::rc::Rc;

/// The parameter shared by the packed LP policies.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "partners",
    default: "0",
    help: "Pair rows kept per job: its best partners by normalised pair gain (0 keeps every pair that can train).",
}];

/// The parameters of the packed bisections (finish-time fairness and makespan).
pub const BISECTION_PARAMS: &[ParamInfo] = &[
    PARAMS[0],
    ParamInfo {
        name: "by_class",
        default: "true",
        help: "Count pair time per job and partner class (same type and scale factor), split into pairs of jobs afterwards: the same optimum from a far smaller LP (false: one row per pair of jobs; `partners` > 0 implies it).",
    },
];

/// Largest accepted `partners`.
pub const MAX_PARTNERS: u64 = 1_000_000;

/// Traits of the packing policies: recomputed when the job set changes, GPU types in the
/// cluster's order (Gavel never shuffles them for packing policies), pairs in the mechanism.
pub(crate) fn traits(fill_with_zero_priority: bool) -> PolicyTraits {
    PolicyTraits {
        recompute: Recompute::OnJobSetChange,
        shuffle_types: false,
        fill_with_zero_priority,
        packing: true,
    }
}

/// Colocated steps/s of a pair on each GPU type: (first job's, second job's).
pub type PairRates = Vec<(f64, f64)>;

/// A candidate pair row: the two jobs (positions in the view) and their rates.
type Candidate = ((usize, usize), PairRates);

/// The rows of a packed LP for one view.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Number of single-job rows (the view's jobs, by position).
    pub singles: usize,
    /// Pair rows: positions of the two jobs in the view, lower first.
    pub pairs: Vec<(usize, usize)>,
    /// Colocated steps/s per pair and type: (first job's, second job's).
    pub rates: Vec<PairRates>,
    /// For each job (by position), the indices of the pairs it is in, ascending.
    pub member_of: Vec<Vec<usize>>,
}

impl Layout {
    /// The layout for `view`: every pair of jobs of equal scale factor with a positive
    /// colocated throughput somewhere, or with `partners > 0` the pairs among each job's
    /// best `partners`.
    pub fn new(view: &PolicyView, partners: usize) -> Self {
        let m = view.jobs.len();
        let n = view.cluster.num_types();
        let mut candidates: Vec<Candidate> = Vec::new();
        if let Some(col) = view.colocation.filter(|c| !c.is_empty()) {
            for a in 0..m {
                for b in a + 1..m {
                    if view.jobs[a].scale() != view.jobs[b].scale() {
                        continue;
                    }
                    let row = col.rates_row(view.jobs[a].id, view.jobs[b].id);
                    if row.len() == n && row.iter().any(|&(x, y)| x > 0.0 || y > 0.0) {
                        candidates.push(((a, b), row));
                    }
                }
            }
        }
        if partners > 0 {
            let gain = |(a, b): (usize, usize), row: &[(f64, f64)]| -> f64 {
                let ta = view.jobs[a].throughput;
                let tb = view.jobs[b].throughput;
                row.iter()
                    .enumerate()
                    .map(|(t, &(x, y))| {
                        let part = |r: f64, iso: f64| if iso > 0.0 { r / iso } else { 0.0 };
                        part(x, ta[t]) + part(y, tb[t])
                    })
                    .fold(0.0, f64::max)
            };
            let gains: Vec<f64> = candidates.iter().map(|(p, r)| gain(*p, r)).collect();
            let mut of_job: Vec<Vec<usize>> = vec![Vec::new(); m];
            for (c, ((a, b), _)) in candidates.iter().enumerate() {
                of_job[*a].push(c);
                of_job[*b].push(c);
            }
            let mut keep = vec![false; candidates.len()];
            for (i, list) in of_job.iter_mut().enumerate() {
                let other = |c: usize| {
                    let (a, b) = candidates[c].0;
                    if a == i {
                        b
                    } else {
                        a
                    }
                };
                crate::order::sort_by(list, |&x, &y| {
                    gains[y].total_cmp(&gains[x]).then(other(x).cmp(&other(y)))
                });
                for &c in list.iter().take(partners) {
                    keep[c] = true;
                }
            }
            let mut k = keep.iter();
            candidates.retain(|_| k.next().copied().unwrap_or(false));
        }
        let mut member_of = vec![Vec::new(); m];
        for (c, ((a, b), _)) in candidates.iter().enumerate() {
            member_of[*a].push(c);
            member_of[*b].push(c);
        }
        let (pairs, rates) = candidates.into_iter().unzip();
        Layout {
            singles: m,
            pairs,
            rates,
            member_of,
        }
    }

    /// Number of rows (singles, then pairs).
    pub fn rows(&self) -> usize {
        self.singles + self.pairs.len()
    }

    /// GPUs of each row (a pair's common scale factor).
    pub fn row_scales(&self, view: &PolicyView) -> Vec<f64> {
        let mut s: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        s.extend(
            self.pairs
                .iter()
                .map(|&(a, _)| f64::from(view.jobs[a].scale())),
        );
        s
    }

    /// The rows of each job: its own, then its pairs'.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        self.member_of
            .iter()
            .enumerate()
            .map(|(i, ps)| {
                std::iter::once(i)
                    .chain(ps.iter().map(|&p| self.singles + p))
                    .collect()
            })
            .collect()
    }

    /// An LP with the packed base constraints.
    pub fn lp(&self, view: &PolicyView) -> Lp {
        Lp::packed(&self.row_scales(view), &view.counts(), &self.groups())
    }

    /// For each job, its throughput terms scaled by `factor[job]`: `(row, coefficient per
    /// type)` for its own row (`thr[job]`) and each of its pairs (its colocated rates).
    pub fn terms(&self, thr: &[Vec<f64>], factor: &[f64]) -> Vec<Vec<(usize, Vec<f64>)>> {
        (0..self.singles)
            .map(|i| {
                let f = factor[i];
                let mut v = Vec::with_capacity(1 + self.member_of[i].len());
                v.push((i, thr[i].iter().map(|t| t * f).collect()));
                for &p in &self.member_of[i] {
                    let first = self.pairs[p].0 == i;
                    v.push((
                        self.singles + p,
                        self.rates[p]
                            .iter()
                            .map(|&(x, y)| if first { x * f } else { y * f })
                            .collect(),
                    ));
                }
                v
            })
            .collect()
    }

    /// Job `i`'s throughput under `x` (rows as in the layout) with throughputs `thr`.
    pub fn effective(&self, i: usize, thr: &[Vec<f64>], x: &[Vec<f64>]) -> f64 {
        let own: f64 = thr[i].iter().zip(&x[i]).map(|(a, b)| a * b).sum();
        let shared: f64 = self.member_of[i]
            .iter()
            .map(|&p| {
                let first = self.pairs[p].0 == i;
                self.rates[p]
                    .iter()
                    .zip(&x[self.singles + p])
                    .map(|(&(a, b), v)| if first { a * v } else { b * v })
                    .sum::<f64>()
            })
            .sum();
        own + shared
    }

    /// Single-job rows `singles` padded with zero pair rows.
    pub fn with_zero_pairs(&self, singles: Vec<Vec<f64>>, types: usize) -> Vec<Vec<f64>> {
        let mut x = singles;
        x.extend(std::iter::repeat_n(vec![0.0; types], self.pairs.len()));
        x
    }

    /// The decision for a solution `x` (rows as in the layout).
    pub fn decision(&self, view: &PolicyView, mut x: Vec<Vec<f64>>) -> Decision {
        let pair_fractions = x.split_off(self.singles.min(x.len()));
        Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: x.into(),
            pairs: self
                .pairs
                .iter()
                .map(|&(a, b)| (view.jobs[a].id, view.jobs[b].id))
                .collect(),
            pair_fractions: pair_fractions.into(),
        })
    }
}

/// Pair rows over classes of interchangeable jobs (same colocation class, scale factor and
/// throughputs, so the same rates alone and with any other job): a row per class (the time
/// each of its jobs runs alone) and a row per pair of classes whose jobs can share GPUs (the
/// time each such pair of jobs shares them), with the class sizes as multiplicities. An LP
/// symmetric in each class's jobs has a symmetric optimum, which this layout finds from a
/// few hundred rows where the per-job layout has one per pair of jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassPairs {
    /// Each class's jobs (positions in the view, ascending).
    pub classes: Vec<Vec<usize>>,
    /// Pair rows: two classes (the first <= the second) and the rates of a job of each.
    pub pairs: Vec<((usize, usize), PairRates)>,
}

/// The colocated rates of a job of class `a` with one of class `b` (two of its jobs when
/// `a == b`), each `classes[c]` holding jobs alike in their colocated rates; `None` when
/// they cannot share GPUs (no second job, unequal scale factors, or no positive rate).
pub(crate) fn class_rates(
    view: &PolicyView,
    col: &crate::workload::Colocation,
    classes: &[Vec<usize>],
    a: usize,
    b: usize,
) -> Option<PairRates> {
    let (ja, jb) = if a == b {
        (classes[a][0], *classes[a].get(1)?)
    } else {
        (classes[a][0], classes[b][0])
    };
    if view.jobs[ja].scale() != view.jobs[jb].scale() {
        return None;
    }
    let rates = col.rates_row(view.jobs[ja].id, view.jobs[jb].id);
    (rates.len() == view.cluster.num_types() && rates.iter().any(|&(x, y)| x > 0.0 || y > 0.0))
        .then_some(rates)
}

impl ClassPairs {
    /// The class-pair rows of `classes` (which must hold interchangeable jobs) in `view`.
    pub fn new(view: &PolicyView, classes: Vec<Vec<usize>>) -> Self {
        let mut pairs = Vec::new();
        if let Some(col) = view.colocation.filter(|c| !c.is_empty()) {
            for a in 0..classes.len() {
                for b in a..classes.len() {
                    if let Some(rates) = class_rates(view, col, &classes, a, b) {
                        pairs.push(((a, b), rates));
                    }
                }
            }
        }
        ClassPairs { classes, pairs }
    }

    /// The view's jobs by class: same colocation class, scale factor and throughputs, and
    /// the same `extra` key; `None` when two jobs of one colocation class train at
    /// different rates together (sharing a class's time evenly would then not be fair), or
    /// a job has no colocation class.
    pub fn partition(view: &PolicyView, extra: &[u64]) -> Option<Vec<Vec<usize>>> {
        let col = view.colocation;
        let mut index: std::collections::BTreeMap<(Option<u32>, u32, Vec<u64>, u64), usize> =
            std::collections::BTreeMap::new();
        let mut classes: Vec<Vec<usize>> = Vec::new();
        for (pos, j) in view.jobs.iter().enumerate() {
            let cc = match col {
                Some(c) => Some(c.class(j.id)?),
                None => None,
            };
            let key = (
                cc,
                j.scale(),
                j.throughput.iter().map(|t| t.to_bits()).collect(),
                extra[pos],
            );
            let next = classes.len();
            let c = *index.entry(key).or_insert(next);
            if c == next {
                classes.push(Vec::new());
            }
            classes[c].push(pos);
        }
        let symmetric = ClassPairs::new(view, classes.clone())
            .pairs
            .iter()
            .filter(|((a, b), _)| a == b)
            .all(|(_, rates)| rates.iter().all(|&(x, y)| x == y));
        symmetric.then_some(classes)
    }

    /// Number of rows: the classes, then the pairs.
    pub fn rows(&self) -> usize {
        self.classes.len() + self.pairs.len()
    }

    fn size(&self, c: usize) -> f64 {
        self.classes[c].len() as f64
    }

    /// GPUs of each row's fraction per type (multiplicities included).
    pub fn scale(&self, view: &PolicyView) -> Vec<f64> {
        let sf = |c: usize| f64::from(view.jobs[self.classes[c][0]].scale());
        let mut s: Vec<f64> = (0..self.classes.len())
            .map(|c| sf(c) * self.size(c))
            .collect();
        s.extend(self.pairs.iter().map(|((a, b), _)| {
            if a == b {
                sf(*a) * self.size(*a) * (self.size(*a) - 1.0) / 2.0
            } else {
                sf(*a) * self.size(*a) * self.size(*b)
            }
        }));
        s
    }

    /// Per class, the rows whose fractions one of its jobs sums (with multiplicities) to at
    /// most 1: its own and its pairs'.
    pub fn groups(&self) -> Vec<Vec<(usize, f64)>> {
        let k = self.classes.len();
        let mut g: Vec<Vec<(usize, f64)>> = (0..k).map(|c| vec![(c, 1.0)]).collect();
        for (p, ((a, b), _)) in self.pairs.iter().enumerate() {
            if a == b {
                g[*a].push((k + p, self.size(*a) - 1.0));
            } else {
                g[*a].push((k + p, self.size(*b)));
                g[*b].push((k + p, self.size(*a)));
            }
        }
        g
    }

    /// Per class, one job's throughput times `factor[class]`: `(row, coefficient per type)`
    /// for its own row and each pair row it is in.
    pub fn terms(&self, view: &PolicyView, factor: &[f64]) -> Vec<Vec<(usize, Vec<f64>)>> {
        let k = self.classes.len();
        let mut t: Vec<Vec<(usize, Vec<f64>)>> = (0..k)
            .map(|c| {
                let thr = view.jobs[self.classes[c][0]].throughput;
                vec![(c, thr.iter().map(|v| v * factor[c]).collect())]
            })
            .collect();
        for (p, ((a, b), rates)) in self.pairs.iter().enumerate() {
            let r = k + p;
            if a == b {
                let m = (self.size(*a) - 1.0) * factor[*a];
                t[*a].push((r, rates.iter().map(|&(x, _)| x * m).collect()));
            } else {
                let (ma, mb) = (self.size(*b) * factor[*a], self.size(*a) * factor[*b]);
                t[*a].push((r, rates.iter().map(|&(x, _)| x * ma).collect()));
                t[*b].push((r, rates.iter().map(|&(_, y)| y * mb).collect()));
            }
        }
        t
    }

    /// The allocation for a solution `x` (rows as here): every job its class's row, every
    /// pair of jobs their pair of classes' row.
    pub fn allocation(&self, view: &PolicyView, x: &[Vec<f64>]) -> Allocation {
        let k = self.classes.len();
        let m = view.jobs.len();
        let n = view.cluster.num_types();
        let mut of = vec![usize::MAX; m];
        for (c, members) in self.classes.iter().enumerate() {
            for &i in members {
                of[i] = c;
            }
        }
        let row_of: std::collections::BTreeMap<(usize, usize), usize> = self
            .pairs
            .iter()
            .enumerate()
            .map(|(p, (ab, _))| (*ab, k + p))
            .collect();
        let mut pairs = Vec::new();
        let mut pair_fractions = Vec::new();
        for a in 0..m {
            for b in a + 1..m {
                let (ca, cb) = (of[a], of[b]);
                if let Some(&r) = row_of.get(&(ca.min(cb), ca.max(cb))) {
                    pairs.push((view.jobs[a].id, view.jobs[b].id));
                    pair_fractions.push(x[r].clone());
                }
            }
        }
        Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: of
                .iter()
                .map(|&c| x.get(c).cloned().unwrap_or_else(|| vec![0.0; n]))
                .collect(),
            pairs,
            pair_fractions: pair_fractions.into(),
        }
    }
}

/// The rows of a packed LP: one per pair of jobs ([`Layout`]) or one per job and partner
/// class ([`PartnerClasses`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    /// A row per pair of jobs.
    Pairs(Layout),
    /// A row per job and partner class.
    Classes(PartnerClasses),
}

impl Rows {
    /// Partner classes when `by_class` and every pair is kept (`partners == 0`) and the view
    /// allows them; the per-pair layout otherwise.
    pub fn new(view: &PolicyView, partners: usize, by_class: bool) -> Self {
        if by_class && partners == 0 {
            if let Some(c) = PartnerClasses::new(view) {
                return Rows::Classes(c);
            }
        }
        Rows::Pairs(Layout::new(view, partners))
    }

    /// An LP with the packed base constraints (and, over classes, the balance rows).
    pub fn lp(&self, view: &PolicyView) -> Lp {
        match self {
            Rows::Pairs(l) => l.lp(view),
            Rows::Classes(c) => c.lp(view),
        }
    }

    /// Maximise the variable `add` returns after adding one row per job (in order) to the
    /// LP, each job's pair terms at its rates times `k[job]`: over partner classes by
    /// column generation ([`PartnerClasses::maximise`]).
    pub fn maximise(
        &self,
        view: &PolicyView,
        k: &[f64],
        add: impl Fn(&mut Lp) -> Option<good_lp::Variable>,
    ) -> Option<Vec<Vec<f64>>> {
        match self {
            Rows::Pairs(l) => {
                let mut lp = l.lp(view);
                let z = add(&mut lp)?;
                lp.maximise(z.into()).ok()
            }
            Rows::Classes(c) => c.maximise(view, k, add),
        }
    }

    /// The largest common factor `z` every job's scaled throughput can reach together, with
    /// the allocation reaching it: maximise `z` subject to `scale(j, terms[j]) >= z` for every
    /// job `j` (`scale` applied to each coefficient of job `j`'s terms; `k[j]` is the same
    /// scaling as one factor, for column generation), then the least over the jobs of
    /// `reached(j, effective throughput of j)`. None when the LP fails or the least is not
    /// a positive number. Makespan's rate and finish-time fairness's scaling share it: each
    /// passes its own arithmetic, so the numbers are those of its own formula, says
    /// whether the LPs keep Clarabel's iterative refinement ([`Lp::without_refinement`])
    /// and may pass a [`Family`] whose solver its LPs reuse ([`Lp::reuse`]).
    #[allow(clippy::too_many_arguments)]
    pub fn max_common_factor(
        &self,
        view: &PolicyView,
        thr: &[Vec<f64>],
        terms: &[Vec<(usize, Vec<f64>)>],
        k: &[f64],
        refine: bool,
        family: Option<&Rc<Family>>,
        scale: impl Fn(usize, f64) -> f64,
        reached: impl Fn(usize, f64) -> f64,
    ) -> Option<(Vec<Vec<f64>>, f64)> {
        let x = self.maximise(view, k, |lp| {
            lp.set_refinement(refine);
            if let Some(f) = family {
                lp.reuse(Rc::clone(f));
            }
            let z = lp.add_free();
            for (j, t) in terms.iter().enumerate() {
                let scaled: Vec<(usize, Vec<f64>)> = t
                    .iter()
                    .map(|(r, c)| (*r, c.iter().map(|&v| scale(j, v)).collect()))
                    .collect();
                lp.push_at_least_rows(&scaled, z);
            }
            Some(z)
        })?;
        let got = (0..terms.len())
            .map(|j| reached(j, self.effective(j, thr, &x)))
            .fold(f64::INFINITY, f64::min);
        (got.is_finite() && got > 0.0).then_some((x, got))
    }

    /// For each job, its throughput terms scaled by `factor[job]`.
    pub fn terms(&self, thr: &[Vec<f64>], factor: &[f64]) -> Vec<Vec<(usize, Vec<f64>)>> {
        match self {
            Rows::Pairs(l) => l.terms(thr, factor),
            Rows::Classes(c) => c.terms(thr, factor),
        }
    }

    /// Job `i`'s throughput under `x` with throughputs `thr`.
    pub fn effective(&self, i: usize, thr: &[Vec<f64>], x: &[Vec<f64>]) -> f64 {
        match self {
            Rows::Pairs(l) => l.effective(i, thr, x),
            Rows::Classes(c) => c.effective(i, thr, x),
        }
    }

    /// Single-job rows `singles` padded with zero rows.
    pub fn with_zero_pairs(&self, singles: Vec<Vec<f64>>, types: usize) -> Vec<Vec<f64>> {
        match self {
            Rows::Pairs(l) => l.with_zero_pairs(singles, types),
            Rows::Classes(c) => c.with_zero_pairs(singles, types),
        }
    }

    /// The decision for a solution `x`.
    pub fn decision(&self, view: &PolicyView, x: Vec<Vec<f64>>) -> Decision {
        match self {
            Rows::Pairs(l) => l.decision(view, x),
            Rows::Classes(c) => c.decision(view, x),
        }
    }
}

/// The decision for an LP's result over `rows`, or the solver's complaint as a policy
/// failure (the mechanism then keeps the previous allocation).
pub(crate) fn rows_decision(
    view: &PolicyView,
    rows: &Rows,
    policy: &str,
    solved: Result<Vec<Vec<f64>>, String>,
) -> Result<Decision, crate::policy::PolicyError> {
    Ok(rows.decision(view, solution(policy, solved)?))
}

/// The decision for an LP's result over `layout`, or the solver's complaint as a policy
/// failure (the mechanism then keeps the previous allocation).
pub(crate) fn decision(
    view: &PolicyView,
    layout: &Layout,
    policy: &str,
    solved: Result<Vec<Vec<f64>>, String>,
) -> Result<Decision, crate::policy::PolicyError> {
    Ok(layout.decision(view, solution(policy, solved)?))
}

/// An LP's solution, or the solver's complaint as the policy's failure.
fn solution(
    policy: &str,
    solved: Result<Vec<Vec<f64>>, String>,
) -> Result<Vec<Vec<f64>>, crate::policy::PolicyError> {
    solved.map_err(|reason| crate::policy::PolicyError::Failed {
        policy: policy.to_string(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::World;
    use super::*;

    #[test]
    fn layout_rows_and_pruning() {
        // Four single-GPU jobs and one 2-GPU job; pairs (0,1), (0,2), (1,2) train, (2,3)
        // does not, and the 2-GPU job pairs with nobody.
        let w = World::new(
            "a:2",
            &[
                (1, &[1.0]),
                (1, &[1.0]),
                (1, &[1.0]),
                (1, &[1.0]),
                (2, &[1.0]),
            ],
        )
        .with_pairs(&[
            (0, 1, &[(0.9, 0.9)]),
            (0, 2, &[(0.5, 0.5)]),
            (1, 2, &[(0.6, 0.7)]),
            (2, 3, &[(0.0, 0.0)]),
            (3, 4, &[(0.5, 0.5)]),
        ]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        assert_eq!(l.pairs, vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(l.member_of[2], vec![1, 2]);
        assert_eq!(l.groups()[0], vec![0, 5, 6]);
        assert_eq!(
            l.row_scales(&v),
            vec![1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]
        );
        let terms = l.terms(&w.thr, &[2.0; 5]);
        assert_eq!(
            terms[2],
            vec![(2, vec![2.0]), (6, vec![1.0]), (7, vec![1.4])]
        );
        // One partner each: 0 keeps 1 (gain 1.8), 1 keeps 0, 2 keeps 1 (gain 1.3 over 1.0).
        let l1 = Layout::new(&v, 1);
        assert_eq!(l1.pairs, vec![(0, 1), (1, 2)]);
        // Effective throughput and the decision's split.
        let x = vec![
            vec![0.0],
            vec![0.0],
            vec![0.5],
            vec![1.0],
            vec![0.0],
            vec![0.5],
            vec![0.0],
            vec![0.5],
        ];
        assert!((l.effective(2, &w.thr, &x) - (0.5 + 0.35)).abs() < 1e-12);
        let Decision::Allocation(a) = l.decision(&v, x) else {
            panic!()
        };
        assert_eq!(a.jobs, vec![0, 1, 2, 3, 4]);
        assert_eq!(a.pair_row(2, 1), Some(&[0.5][..]));
        assert_eq!(a.pair_row(0, 1), Some(&[0.5][..]));
        // No colocation data: no pairs.
        let plain = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        assert!(Layout::new(&plain.view(), 0).pairs.is_empty());
    }
}
