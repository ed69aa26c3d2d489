//! Max-min fairness with space sharing (Gavel's `max_min_fairness_packed`).
//!
//! Over the packed layout ([`super::solve::packed`]): maximise `min_i eff_i(x) s_i / (w_i P_i)`,
//! where `eff_i` is job `i`'s throughput alone and in its pairs, `s_i` its scale factor,
//! `w_i` its priority weight and `P_i = sum_t T[i][t] N_t / N` its throughput under an equal
//! share of every type (from its isolated throughputs). Without pairs this is exactly
//! `max_min_fairness_perf`; a pair row counts toward both of its jobs.
//!
//! The LP only depends on a job through its class: its type and scale factor (hence its
//! throughputs alone and with any other job) and its weight. By default (`by_class`) it is
//! solved over classes: one row per class (the time each of its jobs runs alone) and one per
//! pair of classes (the time each pair of their jobs shares GPUs), with the class sizes as
//! multiplicities in the constraints. Sharing every class's time evenly among its jobs and
//! pairs then gives an optimal solution of the per-job LP (the same optimum; where it is not
//! unique, another point of the optimal face) from an LP of a few hundred rows instead of
//! one row per pair of jobs (128,418 at 512 single-GPU jobs of Gavel's types). When two jobs of one type train at different rates
//! together (a profile whose `[this, other]` for a type with itself differ), sharing evenly
//! would not be fair and the per-job LP is solved instead; so it is with `by_class=false`
//! or `partners > 0`.

use super::solve::lp::Lp;
use super::solve::packed::{self, Layout, PairRates};
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;

/// Parameters.
pub const PARAMS: &[ParamInfo] = &[
    packed::PARAMS[0],
    ParamInfo {
        name: "by_class",
        default: "true",
        help: "Solve over classes of interchangeable jobs (same type, scale factor and weight) and share their time evenly: the same optimum from a far smaller LP (false: one row per job and pair).",
    },
];

/// The packed max-min fairness policy.
#[derive(Debug, Clone)]
pub struct MaxMinFairnessPacked {
    name: String,
    partners: usize,
    by_class: bool,
}

/// Classes of interchangeable jobs of a view.
#[derive(Debug, Clone, PartialEq)]
struct Classes {
    /// Class of each job (by position).
    of: Vec<usize>,
    /// Positions of each class's jobs, ascending.
    members: Vec<Vec<usize>>,
}

impl MaxMinFairnessPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(MaxMinFairnessPacked {
            name: p.spec().to_string(),
            partners: p.u64("partners", 0, 0, packed::MAX_PARTNERS)? as usize,
            by_class: p.bool("by_class", true)?,
        }))
    }

    /// Each job's factor `s_i / (w_i P_i)` (0 for a job that cannot run anywhere).
    pub fn factors(view: &PolicyView) -> Vec<f64> {
        let counts = view.counts();
        let total: f64 = counts.iter().sum();
        view.jobs
            .iter()
            .map(|j| {
                let p: f64 = j
                    .throughput
                    .iter()
                    .zip(&counts)
                    .map(|(t, n)| t * n / total)
                    .sum();
                if p > 0.0 {
                    f64::from(j.scale()) / (j.spec.priority_weight * p)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Solve the LP for `view` over `layout`: every row's fractions (singles, then pairs).
    pub fn solve(view: &PolicyView, layout: &Layout) -> Result<Vec<Vec<f64>>, String> {
        if view.jobs.is_empty() {
            return Ok(Vec::new());
        }
        let thr: Vec<Vec<f64>> = view.jobs.iter().map(|j| j.throughput.to_vec()).collect();
        let terms = layout.terms(&thr, &Self::factors(view));
        // No iterative refinement, as for the unpacked max-min LP (see `Lp`).
        let mut lp: Lp = layout.lp(view).without_refinement();
        let t = lp.add_free();
        for job in &terms {
            lp.push_at_least_rows(job, t);
        }
        lp.maximise(t.into())
    }

    /// The classes of interchangeable jobs, or `None` without colocation data.
    fn classes(view: &PolicyView) -> Option<Classes> {
        let col = view.colocation?;
        let mut index: BTreeMap<(u32, u32, u64, Vec<u64>), usize> = BTreeMap::new();
        let mut of = Vec::with_capacity(view.jobs.len());
        let mut members: Vec<Vec<usize>> = Vec::new();
        for (pos, j) in view.jobs.iter().enumerate() {
            let key = (
                col.class(j.id)?,
                j.scale(),
                j.spec.priority_weight.to_bits(),
                j.throughput.iter().map(|t| t.to_bits()).collect(),
            );
            let next = members.len();
            let c = *index.entry(key).or_insert(next);
            if c == next {
                members.push(Vec::new());
            }
            members[c].push(pos);
            of.push(c);
        }
        Some(Classes { of, members })
    }

    /// Solve over classes of interchangeable jobs and share each class's time evenly: the
    /// allocation, or `None` when sharing evenly would not be fair (two jobs of one type
    /// that train at different rates together) or there is no colocation data.
    pub fn solve_by_class(view: &PolicyView) -> Option<Result<Allocation, String>> {
        let col = view.colocation.filter(|c| !c.is_empty())?;
        let cl = Self::classes(view)?;
        let k = cl.members.len();
        let size: Vec<f64> = cl.members.iter().map(|m| m.len() as f64).collect();
        let rep = |c: usize| cl.members[c][0];
        let id = |pos: usize| view.jobs[pos].id;
        // Pair rows over classes: (a, b) with a <= b, rates of a's and b's job per type.
        let mut pair_rows: Vec<((usize, usize), PairRates)> = Vec::new();
        for a in 0..k {
            for b in a..k {
                let (ja, jb) = if a == b {
                    match cl.members[a].get(1) {
                        Some(&second) => (rep(a), second),
                        None => continue,
                    }
                } else {
                    (rep(a), rep(b))
                };
                if view.jobs[ja].scale() != view.jobs[jb].scale() {
                    continue;
                }
                let rates = col.rates_row(id(ja), id(jb));
                if !rates.iter().any(|&(x, y)| x > 0.0 || y > 0.0) {
                    continue;
                }
                // Two jobs of one type: which is "this" depends on their ids.
                if col.class(id(ja)) == col.class(id(jb)) && rates.iter().any(|&(x, y)| x != y) {
                    return None;
                }
                pair_rows.push(((a, b), rates));
            }
        }
        // Rows: classes, then pairs of classes. Each row's variables are one job's (or one
        // pair's) fractions; the multiplicities go into the constraints.
        let rows = k + pair_rows.len();
        let mut scale = Vec::with_capacity(rows);
        for (c, m) in cl.members.iter().enumerate() {
            scale.push(f64::from(view.jobs[m[0]].scale()) * size[c]);
        }
        let mut groups: Vec<Vec<(usize, f64)>> = (0..k).map(|c| vec![(c, 1.0)]).collect();
        let factors = Self::factors(view);
        let mut terms: Vec<Vec<(usize, Vec<f64>)>> = (0..k)
            .map(|c| {
                let f = factors[rep(c)];
                vec![(
                    c,
                    view.jobs[rep(c)].throughput.iter().map(|t| t * f).collect(),
                )]
            })
            .collect();
        for (p, ((a, b), rates)) in pair_rows.iter().enumerate() {
            let r = k + p;
            let sf = f64::from(view.jobs[rep(*a)].scale());
            let (fa, fb) = (factors[rep(*a)], factors[rep(*b)]);
            if a == b {
                let partners = size[*a] - 1.0;
                scale.push(sf * size[*a] * partners / 2.0);
                groups[*a].push((r, partners));
                terms[*a].push((r, rates.iter().map(|&(x, _)| x * partners * fa).collect()));
            } else {
                scale.push(sf * size[*a] * size[*b]);
                groups[*a].push((r, size[*b]));
                groups[*b].push((r, size[*a]));
                terms[*a].push((r, rates.iter().map(|&(x, _)| x * size[*b] * fa).collect()));
                terms[*b].push((r, rates.iter().map(|&(_, y)| y * size[*a] * fb).collect()));
            }
        }
        let mut lp = Lp::grouped(&scale, &view.counts(), &groups).without_refinement();
        let t = lp.add_free();
        for job in &terms {
            lp.push_at_least_rows(job, t);
        }
        let x = match lp.maximise(t.into()) {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        // Every job gets its class's row, every pair of jobs its pair of classes' row.
        let row_of: BTreeMap<(usize, usize), usize> = pair_rows
            .iter()
            .enumerate()
            .map(|(p, (ab, _))| (*ab, k + p))
            .collect();
        let m = view.jobs.len();
        let mut pairs = Vec::new();
        let mut pair_fractions = Vec::new();
        for a in 0..m {
            for b in a + 1..m {
                let (ca, cb) = (cl.of[a], cl.of[b]);
                if let Some(&r) = row_of.get(&(ca.min(cb), ca.max(cb))) {
                    pairs.push((id(a), id(b)));
                    pair_fractions.push(x[r].clone());
                }
            }
        }
        Some(Ok(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: cl.of.iter().map(|&c| x[c].clone()).collect(),
            pairs,
            pair_fractions: pair_fractions.into(),
        }))
    }
}

impl Policy for MaxMinFairnessPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        if self.by_class && self.partners == 0 {
            if let Some(solved) = Self::solve_by_class(view) {
                return solved
                    .map(Decision::Allocation)
                    .map_err(|reason| PolicyError::Failed {
                        policy: self.name.clone(),
                        reason,
                    });
            }
        }
        let layout = Layout::new(view, self.partners);
        packed::decision(view, &layout, &self.name, Self::solve(view, &layout))
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(true)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::max_min_fairness::MaxMinFairness;
    use super::super::solve::lp::satisfies_packed;
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_pair_beats_time_sharing() {
        // Two jobs on one GPU at 1 step/s alone, 0.8 and 0.7 together. Time-shared, each gets
        // 0.5. With job 1 alone for b, the pair for p = 1 - b (job 0 alone only lowers the
        // minimum): job 0 gets 0.8 p, job 1 gets b + 0.7 p. Equal at 0.8 - 0.8 b = 0.7 + 0.3 b:
        // b = 1/11, p = 10/11, both 8/11 (more than 0.7, the pair all the time).
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.8, 0.7)])]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        assert!((x[2][0] - 10.0 / 11.0).abs() < 1e-5, "{x:?}");
        assert!(
            x[0][0] < 1e-5 && (x[1][0] - 1.0 / 11.0).abs() < 1e-5,
            "{x:?}"
        );
        for i in 0..2 {
            assert!(
                (l.effective(i, &w.thr, &x) - 8.0 / 11.0).abs() < 1e-5,
                "{x:?}"
            );
        }
        assert!(satisfies_packed(
            &x,
            &l.row_scales(&v),
            &[1.0],
            &l.groups(),
            1e-7
        ));
    }

    #[test]
    fn hand_solved_pair_mixed_with_time_sharing() {
        // Colocated rates 0.9 and 0.3: sharing all the time gives min 0.3 < 0.5. With job 0
        // alone for a, job 1 alone for b and the pair for p (a + b + p = 1), equal rates
        // a + 0.9 p = b + 0.3 p give 2a + 1.6 p = 1 and the rate 0.5 + 0.1 p, largest at
        // a = 0: p = 0.625, b = 0.375, both 0.5625.
        let w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]).with_pairs(&[(0, 1, &[(0.9, 0.3)])]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        assert!((x[2][0] - 0.625).abs() < 1e-5, "{x:?}");
        assert!(x[0][0] < 1e-5 && (x[1][0] - 0.375).abs() < 1e-5, "{x:?}");
        for i in 0..2 {
            assert!((l.effective(i, &w.thr, &x) - 0.5625).abs() < 1e-5);
        }
    }

    #[test]
    fn hand_solved_pairs_on_the_type_where_sharing_is_free() {
        // Four jobs at 1 step/s alone on a:1 and b:1 (P = 1). Sharing is free on b (1.0 each)
        // and costly on a (0.4 each). A GPU of a yields at most 1 step/s in all, of b 2: the
        // jobs can get at most 3/4 each, reached with singles on a and pairs on b only.
        let free: &[(f64, f64)] = &[(0.4, 0.4), (1.0, 1.0)];
        let one: &[f64] = &[1.0, 1.0];
        let w = World::new("a:1,b:1", &[(1, one); 4]).with_pairs(&[
            (0, 1, free),
            (0, 2, free),
            (0, 3, free),
            (1, 2, free),
            (1, 3, free),
            (2, 3, free),
        ]);
        let v = w.view();
        let l = Layout::new(&v, 0);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        for i in 0..4 {
            assert!((l.effective(i, &w.thr, &x) - 0.75).abs() < 1e-5, "{x:?}");
            assert!(x[i][1] < 1e-5, "{x:?}");
        }
        let pairs_on = |t: usize| x[4..].iter().map(|r| r[t]).sum::<f64>();
        assert!(
            pairs_on(0) < 1e-5 && (pairs_on(1) - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        let singles_on_a: f64 = x[..4].iter().map(|r| r[0]).sum();
        assert!((singles_on_a - 1.0).abs() < 1e-5, "{x:?}");
        assert!(satisfies_packed(
            &x,
            &l.row_scales(&v),
            &[1.0, 1.0],
            &l.groups(),
            1e-7
        ));
    }

    #[test]
    fn without_pairs_it_is_max_min_fairness_perf() {
        let w = World::new(
            "a:1,b:1",
            &[
                (1, &[4.0, 1.0]),
                (1, &[4.0, 1.0]),
                (1, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
            ],
        );
        let v = w.view();
        let packed = MaxMinFairnessPacked::solve(&v, &Layout::new(&v, 0)).unwrap();
        let perf = MaxMinFairness::solve(&v, true).unwrap();
        for (a, b) in packed.iter().flatten().zip(perf.iter().flatten()) {
            assert!((a - b).abs() < 1e-6, "{packed:?} vs {perf:?}");
        }
    }

    /// Jobs of types A (x3), B (x2) and C on a:2,b:1, with colocated throughputs between
    /// every pair of types (symmetric within a type unless `asymmetric`) and a weight of 2
    /// on one A job.
    /// Seven jobs of three types (one weighted) with colocated rates on a:2, b:1; with
    /// `asymmetric`, two jobs of one type train at different rates together.
    pub(crate) fn classy_world(asymmetric: bool) -> World {
        use crate::workload::profile::ColocatedEntry;
        use crate::workload::{Colocation, Profile};
        let types = [("A", [3.0, 1.0]), ("B", [2.0, 1.5]), ("C", [1.0, 1.0])];
        let jobs = ["A", "A", "A", "B", "B", "C", "A"];
        let thr: Vec<&[f64]> = jobs
            .iter()
            .map(|j| &types.iter().find(|t| t.0 == *j).unwrap().1[..])
            .collect();
        let list: Vec<(u32, &[f64])> = thr.iter().map(|t| (1, *t)).collect();
        let mut w = World::new("a:2,b:1", &list);
        for (s, j) in w.specs.iter_mut().zip(jobs) {
            s.job_type = j.into();
        }
        w.specs[6].priority_weight = 2.0;
        let mut p = Profile::default();
        let gain = [[0.45, 0.6, 0.7], [0.6, 0.5, 0.9], [0.7, 0.9, 0.2]];
        for (x, (tx, ix)) in types.iter().enumerate() {
            for (gpu, g) in ["a", "b"].iter().enumerate() {
                p.set(tx, 1, g, ix[gpu]);
            }
            for (y, (ty, iy)) in types.iter().enumerate() {
                for (gpu, g) in ["a", "b"].iter().enumerate() {
                    let f = gain[x][y] * if gpu == 0 { 1.0 } else { 0.8 };
                    p.job_types
                        .get_mut(*tx)
                        .unwrap()
                        .colocated
                        .push(ColocatedEntry {
                            scale: 1,
                            with: ty.to_string(),
                            with_scale: 1,
                            gpu: g.to_string(),
                            this: ix[gpu] * f,
                            other: iy[gpu]
                                * gain[y][x]
                                * if gpu == 0 { 1.0 } else { 0.8 }
                                * if asymmetric && x == y { 0.5 } else { 1.0 },
                        });
                }
            }
        }
        w.colocation = Some(Colocation::new(&p, &w.cluster, &w.specs));
        w
    }

    #[test]
    fn by_class_reaches_the_per_job_optimum() {
        let w = classy_world(false);
        let v = w.view();
        let f = MaxMinFairnessPacked::factors(&v);
        let l = Layout::new(&v, 0);
        assert_eq!(l.pairs.len(), 21);
        let x = MaxMinFairnessPacked::solve(&v, &l).unwrap();
        let per_job = (0..7)
            .map(|i| l.effective(i, &w.thr, &x) * f[i])
            .fold(f64::INFINITY, f64::min);
        let a = MaxMinFairnessPacked::solve_by_class(&v).unwrap().unwrap();
        // The class solution as rows of the per-job layout (same pair order).
        assert_eq!(
            a.pairs,
            l.pairs.iter().map(|&(p, q)| (p, q)).collect::<Vec<_>>()
        );
        let rows: Vec<Vec<f64>> = a
            .fractions
            .iter()
            .chain(&a.pair_fractions)
            .map(<[f64]>::to_vec)
            .collect();
        assert!(satisfies_packed(
            &rows,
            &l.row_scales(&v),
            &[2.0, 1.0],
            &l.groups(),
            1e-7
        ));
        let effs: Vec<f64> = (0..7)
            .map(|i| l.effective(i, &w.thr, &rows) * f[i])
            .collect();
        let by_class = effs.iter().copied().fold(f64::INFINITY, f64::min);
        assert!((by_class - per_job).abs() < 1e-6, "{by_class} vs {per_job}");
        // Jobs of one class get the same share; the weighted A job is a class of its own.
        assert_eq!(a.fractions[0], a.fractions[2]);
        assert_eq!(a.pair_row(0, 3), a.pair_row(2, 4));
        assert_ne!(a.fractions[0], a.fractions[6]);
        // Two jobs of one type training at different rates together: no class solution,
        // and the policy solves the per-job LP.
        let asym = classy_world(true);
        let v = asym.view();
        assert!(MaxMinFairnessPacked::solve_by_class(&v).is_none());
        let mut p = MaxMinFairnessPacked {
            name: "max_min_fairness_packed".into(),
            partners: 0,
            by_class: true,
        };
        let Ok(Decision::Allocation(a)) = p.decide(&v, &mut Rng::new(0)) else {
            panic!()
        };
        assert_eq!(a.pairs.len(), 21);
    }
}
