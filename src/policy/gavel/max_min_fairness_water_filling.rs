//! Max-min fairness by water-filling (Gavel's `max_min_fairness_water_filling`, plain and
//! `_perf`).
//!
//! Plain max-min fairness raises the least normalised share and stops; jobs that could get
//! more without hurting it may be left below what they could have. Water-filling repeats
//! the LP: every round raises all unfrozen jobs together, then freezes the *bottleneck* jobs
//! (those that cannot rise further while every other job keeps its level), and goes on with
//! the rest until no job can rise.
//!
//! With `nt_i(x) = sum_t T[i][t] x[i][t] / P_i` (`P_i` as in `max_min_fairness_perf`; plain:
//! every throughput 1, so `nt_i = sum_t x[i][t]`), scale factor `s_i` and weight `w_i`, each
//! iteration solves
//!
//! ```text
//! maximise c  s.t.  (nt_i - l_i) s_i / w_i >= c   for every unfrozen job i,
//!                   nt_i >= l_i                    for every job,
//!                   c <= M  (when some job is frozen or has weight 0),
//!                   base constraints,
//! ```
//!
//! where `l_i` is the level a job has reached (its frozen level once frozen) and `M = max
//! T[i][t] s_i / P_i`, then raises every unfrozen job's level by `c w_i / s_i`. Gavel finds
//! the bottlenecks with a MILP (the largest set of jobs that can all rise by 0.01% at once);
//! Orrery instead asks, for each unfrozen job, whether it can rise by 0.01% while the others
//! keep their levels (and by at least 1e-6 of an equal share), by one LP, and freezes it if
//! not. Jobs whose share in the round's own
//! solution already lies 0.01% above their level skip that LP, and so do jobs that a bound
//! from the round's duals shows cannot rise by half that ([`super::solve::bottleneck`]):
//! the LP would freeze them too.
//!
//! Every LP depends on a job only through its class: its normalised throughputs, scale
//! factor, weight, level and whether it is frozen. The LPs are solved over classes, a row
//! per class with its size as a multiplicity in the capacity constraints (an LP that is
//! symmetric in a class's jobs has a symmetric optimum), and one bottleneck LP is solved per
//! class: a class is frozen when its jobs cannot all rise together. The allocation is the
//! last round's solution, shared evenly within each class.
//!
//! Priority weights can be reweighted per round (Gavel's entity reweighting, used by
//! [`super::hierarchical`]); here they are the jobs' own.

use super::solve::bottleneck::{self, RoundDuals};
use super::solve::lp::Lp;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use good_lp::Expression;
use std::collections::BTreeMap;

/// Parameters (none).
pub const PARAMS: &[ParamInfo] = &[];

/// A job rises only if it can by this factor (Gavel's slack).
pub const SLACK: f64 = 1.0001;

/// ... and by at least this much (in units of `nt`, where 1 is an equal share).
pub const RISE_EPS: f64 = 1e-6;

/// Lower bounds `nt_i >= l_i` are relaxed by this relative amount, so that an LP whose
/// frozen jobs sit exactly at their optimum stays strictly feasible for the interior-point
/// solver.
const RELAX: f64 = 1e-7;

/// The LP of one round over a partition of the jobs into classes: rows of variables, each
/// with its GPUs per type (multiplicities included), per class the groups of rows whose
/// fractions sum to at most 1 for each of its jobs, and per class the terms of one job's
/// normalised throughput `nt`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassLayout {
    /// GPUs each row's fraction uses per type (scale factor times multiplicity).
    pub scale: Vec<f64>,
    /// Per class: `(row, multiplicity)` whose weighted sum of fractions is at most 1.
    pub groups: Vec<Vec<(usize, f64)>>,
    /// Per class: one job's `nt` as `(row, coefficient per type)`.
    pub nt: Vec<Vec<(usize, Vec<f64>)>>,
}

impl ClassLayout {
    /// One job's `nt` in class `c` under `x`.
    pub fn nt_of(&self, c: usize, x: &[Vec<f64>]) -> f64 {
        self.nt[c]
            .iter()
            .map(|(r, coef)| coef.iter().zip(&x[*r]).map(|(a, b)| a * b).sum::<f64>())
            .sum()
    }

    fn lp(&self, counts: &[f64]) -> Lp {
        Lp::grouped(&self.scale, counts, &self.groups)
    }

    fn nt_expr(&self, lp: &Lp, c: usize, factor: f64) -> Expression {
        let terms: Vec<(usize, Vec<f64>)> = self.nt[c]
            .iter()
            .map(|(r, coef)| (*r, coef.iter().map(|v| v * factor).collect()))
            .collect();
        lp.rows_expr(&terms)
    }
}

/// What the water-filling loop needs from a policy.
pub struct Problem<'a> {
    /// GPUs per type.
    pub counts: Vec<f64>,
    /// Each job's scale factor.
    pub scale: Vec<f64>,
    /// Each job's class of interchangeable jobs before levels and weights split them
    /// (same normalised throughputs, alone and in any pair, and scale factor).
    pub static_class: Vec<usize>,
    /// Gavel's `M`: the largest `T[i][t] s_i / P_i`.
    pub big_m: f64,
    /// Whether a job can run at all (`P_i > 0`); jobs that cannot are left out of the
    /// minimum (as if of weight 0).
    pub runnable: Vec<bool>,
    /// The weights of a round given which jobs are frozen.
    pub weights: &'a dyn Fn(&[bool]) -> Vec<f64>,
    /// The LP layout for a partition of the jobs (positions) into classes.
    pub layout: &'a dyn Fn(&[Vec<usize>]) -> ClassLayout,
}

/// The result of water-filling.
#[derive(Debug, Clone, PartialEq)]
pub struct Filled {
    /// The classes of the last solved round (job positions, ascending).
    pub classes: Vec<Vec<usize>>,
    /// Its layout.
    pub layout: ClassLayout,
    /// Its solution, row by row (fractions clipped to [0, 1]).
    pub x: Vec<Vec<f64>>,
    /// Each job's level (frozen or reached), in units of `nt`.
    pub levels: Vec<f64>,
    /// Rounds of the loop (LPs raising the levels).
    pub rounds: usize,
    /// Bottleneck tests settled by an LP of their own (the others by the round's solution
    /// or its duals).
    pub test_lps: usize,
}

/// Run the water-filling loop.
pub fn fill(p: &Problem) -> Result<Filled, String> {
    let m = p.scale.len();
    let mut frozen: Vec<Option<f64>> = vec![None; m];
    let mut level = vec![0.0; m];
    let mut last: Option<Filled> = None;
    let mut test_lps = 0;
    for round in 0..=m {
        let mask: Vec<bool> = frozen.iter().map(Option::is_some).collect();
        let w = (p.weights)(&mask);
        let active: Vec<bool> = (0..m)
            .map(|i| frozen[i].is_none() && w[i] > 0.0 && p.runnable[i])
            .collect();
        if !active.iter().any(|&a| a) {
            break;
        }
        // Classes: static class, weight, frozen level or reached level.
        let mut index: BTreeMap<(usize, u64, bool, u64, bool), usize> = BTreeMap::new();
        let mut classes: Vec<Vec<usize>> = Vec::new();
        for i in 0..m {
            let lower = frozen[i].unwrap_or(level[i]);
            let key = (
                p.static_class[i],
                w[i].to_bits(),
                frozen[i].is_some(),
                lower.to_bits(),
                active[i],
            );
            let next = classes.len();
            let c = *index.entry(key).or_insert(next);
            if c == next {
                classes.push(Vec::new());
            }
            classes[c].push(i);
        }
        let layout = (p.layout)(&classes);
        let rep: Vec<usize> = classes.iter().map(|c| c[0]).collect();
        let mult = |i: usize| p.scale[i] / w[i];
        // The round's LP.
        let mut lp = layout.lp(&p.counts).without_refinement();
        let c = lp.add_free();
        // Each class's rise and floor rows, for the bottleneck bound.
        let mut rise_row = vec![None; rep.len()];
        let mut floor_row = vec![None; rep.len()];
        for (k, &i) in rep.iter().enumerate() {
            if active[i] {
                rise_row[k] = Some(lp.constraints());
                let e = layout.nt_expr(&lp, k, mult(i)) - c;
                lp.push(e.geq(mult(i) * level[i]));
            }
            let l = frozen[i].unwrap_or(level[i]);
            if l > 0.0 {
                floor_row[k] = Some(lp.constraints());
                let e = layout.nt_expr(&lp, k, 1.0);
                lp.push(e.geq(l * (1.0 - RELAX)));
            }
        }
        if active.iter().any(|&a| !a) {
            lp.push(Expression::from(c).leq(p.big_m));
        }
        let (x, duals) = match lp.maximise_with_duals(c.into()) {
            Ok(x) => x,
            Err(e) => match last {
                Some(f) => return Ok(f),
                None => return Err(e),
            },
        };
        let mut rise = rep
            .iter()
            .enumerate()
            .filter(|(_, &i)| active[i])
            .map(|(k, &i)| mult(i) * (layout.nt_of(k, &x) - level[i]))
            .fold(f64::INFINITY, f64::min)
            .max(0.0);
        if active.iter().any(|&a| !a) {
            rise = rise.min(p.big_m);
        }
        for i in 0..m {
            if active[i] {
                level[i] += rise / mult(i);
            }
        }
        // Bottlenecks: classes whose jobs cannot all rise by the slack while every job
        // keeps its level; settled by the round's duals when their bound lies well below
        // the slack, by an LP otherwise.
        let lower: Vec<f64> = rep
            .iter()
            .map(|&j| {
                let l = frozen[j].unwrap_or(level[j]);
                if l > 0.0 {
                    l * (1.0 - RELAX)
                } else {
                    0.0
                }
            })
            .collect();
        let dual = |row: Option<usize>| row.and_then(|r| duals.get(r)).copied().unwrap_or(0.0);
        let on_nt: Vec<f64> = rep
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                // Only a class with a rise row has a rise dual: a frozen class may weigh 0
                // (hierarchical's reweighting), where `mult` is infinite.
                let rise = rise_row[k].map_or(0.0, |r| dual(Some(r)).max(0.0) * mult(i));
                rise + dual(floor_row[k]).max(0.0)
            })
            .collect();
        let n = p.counts.len();
        let gap = (duals.len() >= n + layout.groups.len())
            .then(|| {
                let d = RoundDuals {
                    capacity: &duals[..n],
                    group: &duals[n..n + layout.groups.len()],
                    nt: &on_nt,
                };
                bottleneck::gap(
                    &p.counts,
                    &layout.scale,
                    &layout.groups,
                    &layout.nt,
                    &d,
                    &lower,
                )
            })
            .flatten();
        let mut newly: Vec<usize> = Vec::new();
        for (k, &i) in rep.iter().enumerate() {
            if !active[i] || layout.nt_of(k, &x) >= SLACK * level[i] + RISE_EPS {
                continue;
            }
            if let Some(g) = gap.filter(|_| on_nt[k] > 0.0) {
                // Half the slack below the threshold: far beyond the solver's accuracy.
                let bound = lower[k] + g / on_nt[k];
                if bound <= (1.0 + (SLACK - 1.0) / 2.0) * level[i] + RISE_EPS / 2.0 {
                    newly.push(k);
                    continue;
                }
            }
            test_lps += 1;
            let mut test = layout.lp(&p.counts);
            for (q, &j) in rep.iter().enumerate() {
                let l = frozen[j].unwrap_or(level[j]);
                if l > 0.0 {
                    let e = layout.nt_expr(&test, q, 1.0);
                    test.push(e.geq(l * (1.0 - RELAX)));
                }
            }
            let obj = layout.nt_expr(&test, k, 1.0);
            let can_rise = test
                .maximise(obj)
                .map(|y| layout.nt_of(k, &y) >= SLACK * level[i] + RISE_EPS)
                .unwrap_or(false);
            if !can_rise {
                newly.push(k);
            }
        }
        for &k in &newly {
            for &j in &classes[k] {
                frozen[j] = Some(level[j]);
            }
        }
        last = Some(Filled {
            classes,
            layout,
            x,
            levels: (0..m).map(|i| frozen[i].unwrap_or(level[i])).collect(),
            rounds: round + 1,
            test_lps,
        });
        if newly.is_empty() {
            break;
        }
    }
    match last {
        Some(f) => Ok(f),
        // No job can run: nothing to allocate.
        None => Ok(Filled {
            classes: Vec::new(),
            layout: ClassLayout {
                scale: Vec::new(),
                groups: Vec::new(),
                nt: Vec::new(),
            },
            x: Vec::new(),
            levels: vec![0.0; m],
            rounds: 0,
            test_lps: 0,
        }),
    }
}

/// The per-job normalised throughput coefficients `T[i][t] / P_i` (plain: 1 on every type)
/// and whether each job can run (`P_i > 0`).
pub fn normalised(view: &PolicyView, perf: bool) -> (Vec<Vec<f64>>, Vec<bool>) {
    let counts = view.counts();
    let total: f64 = counts.iter().sum();
    view.jobs
        .iter()
        .map(|j| {
            if !perf {
                let runs = j.throughput.iter().any(|&t| t > 0.0);
                return (view.plain_row(j, 1.0), runs);
            }
            let p: f64 = j
                .throughput
                .iter()
                .zip(&counts)
                .map(|(t, n)| t * n / total)
                .sum();
            if p > 0.0 {
                (j.throughput.iter().map(|t| t / p).collect(), true)
            } else {
                (vec![0.0; counts.len()], false)
            }
        })
        .unzip()
}

/// Water-filling over single jobs (no space sharing) with `weights` per round: each job's
/// fractions per type, shared evenly within its class.
pub fn solve_with(
    view: &PolicyView,
    perf: bool,
    weights: &dyn Fn(&[bool]) -> Vec<f64>,
) -> Result<(Vec<Vec<f64>>, Filled), String> {
    let m = view.jobs.len();
    let (coef, runnable) = normalised(view, perf);
    let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
    let mut index: BTreeMap<(u32, Vec<u64>), usize> = BTreeMap::new();
    let static_class: Vec<usize> = view
        .jobs
        .iter()
        .zip(&coef)
        .map(|(j, c)| {
            let next = index.len();
            *index
                .entry((j.scale(), c.iter().map(|v| v.to_bits()).collect()))
                .or_insert(next)
        })
        .collect();
    let big_m = coef
        .iter()
        .zip(&scale)
        .flat_map(|(c, s)| c.iter().map(move |v| v * s))
        .fold(0.0, f64::max);
    let layout = |classes: &[Vec<usize>]| ClassLayout {
        scale: classes
            .iter()
            .map(|c| scale[c[0]] * c.len() as f64)
            .collect(),
        groups: (0..classes.len()).map(|k| vec![(k, 1.0)]).collect(),
        nt: classes
            .iter()
            .enumerate()
            .map(|(k, c)| vec![(k, coef[c[0]].clone())])
            .collect(),
    };
    let problem = Problem {
        counts: view.counts(),
        scale: scale.clone(),
        static_class,
        big_m,
        runnable,
        weights,
        layout: &layout,
    };
    let filled = fill(&problem)?;
    let mut x = vec![vec![0.0; view.cluster.num_types()]; m];
    for (k, members) in filled.classes.iter().enumerate() {
        for &i in members {
            x[i].clone_from(&filled.x[k]);
        }
    }
    Ok((x, filled))
}

/// The water-filling max-min fairness policy, plain or `_perf`.
#[derive(Debug, Clone)]
pub struct WaterFilling {
    name: String,
    perf: bool,
}

impl WaterFilling {
    /// Build from registry parameters.
    pub fn build(p: &Params, perf: bool) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(WaterFilling {
            name: p.spec().to_string(),
            perf,
        }))
    }

    /// Solve for `view` with the jobs' own priority weights.
    pub fn solve(view: &PolicyView, perf: bool) -> Result<Vec<Vec<f64>>, String> {
        let w: Vec<f64> = view.jobs.iter().map(|j| j.spec.priority_weight).collect();
        solve_with(view, perf, &|_| w.clone()).map(|(x, _)| x)
    }
}

impl Policy for WaterFilling {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        super::allocation(view, &self.name, Self::solve(view, self.perf))
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(self.perf)
    }
}

#[cfg(test)]
mod tests {
    use super::super::max_min_fairness::MaxMinFairness;
    use super::super::solve::lp::satisfies_base;
    use super::super::testing::World;
    use super::*;

    fn rate(x: &[f64], t: &[f64]) -> f64 {
        x.iter().zip(t).map(|(a, b)| a * b).sum()
    }

    #[test]
    fn hand_solved_a_job_limited_by_its_row_frees_capacity() {
        // One type, plain; a 2-GPU job (0) and two 1-GPU jobs (1, 2). Round one maximises c
        // with 2 x0 >= c, x1 >= c, x2 >= c, 2 x0 + x1 + x2 <= GPUs and rows <= 1.
        // 3 GPUs: c = 1 (x0 = 0.5, x1 = x2 = 1) fills the type; nobody can rise.
        let w = World::new("a:3", &[(2, &[1.0]), (1, &[1.0]), (1, &[1.0])]);
        let x = WaterFilling::solve(&w.view(), false).unwrap();
        assert!(
            (x[0][0] - 0.5).abs() < 1e-5 && (x[1][0] - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        // 4 GPUs: the rows of jobs 1 and 2 cap c at 1 (x0 >= 0.5); they are frozen at 1.
        // Round two raises job 0 alone: 2 x0 + 2 <= 4, so x0 = 1.
        let w = World::new("a:4", &[(2, &[1.0]), (1, &[1.0]), (1, &[1.0])]);
        let x = WaterFilling::solve(&w.view(), false).unwrap();
        assert!((x[0][0] - 1.0).abs() < 1e-5, "{x:?}");
        assert!(
            (x[1][0] - 1.0).abs() < 1e-5 && (x[2][0] - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        assert!(satisfies_base(&x, &[2.0, 1.0, 1.0], &[4.0], 1e-6));
    }

    #[test]
    fn hand_solved_perf_levels() {
        // Types a:1, b:1. Job 0 runs only on a (2 steps/s), job 1 only on b (1 step/s), job
        // 2 on both (1 step/s). P = 1, 1/2, 1: nt0 = 2 xa0, nt1 = 2 xb1, nt2 = xa2 + xb2.
        // Round one: xa0 = xb1 = c/2 and xa2 + xb2 = c with xa0 + xa2 <= 1, xb1 + xb2 <= 1:
        // 2c <= 2, c = 1, unique (xa2 = xb2 = 1/2); both types are full, all frozen at 1.
        let w = World::new(
            "a:1,b:1",
            &[(1, &[2.0, 0.0]), (1, &[0.0, 1.0]), (1, &[1.0, 1.0])],
        );
        let v = w.view();
        let wts = [1.0, 1.0, 1.0];
        let (x, f) = solve_with(&v, true, &|_| wts.to_vec()).unwrap();
        for (i, l) in f.levels.iter().enumerate() {
            assert!((l - 1.0).abs() < 1e-5, "job {i}: {:?}", f.levels);
        }
        assert!(
            (x[0][0] - 0.5).abs() < 1e-5 && (x[1][1] - 0.5).abs() < 1e-5,
            "{x:?}"
        );
        assert!(
            (x[2][0] - 0.5).abs() < 1e-5 && (x[2][1] - 0.5).abs() < 1e-5,
            "{x:?}"
        );
        // With b:2, P = 2/3, 2/3, 1: nt0 = 3 xa0, nt1 = 1.5 xb1, nt2 = xa2 + xb2. Round one:
        // job 2's row caps c at 1; it is frozen at 1. Round two raises jobs 0 and 1 by c':
        // xb1 <= 1 caps job 1 at 1.5 (c' = 0.5), frozen. Round three raises job 0 with job 2
        // moved to b (b: 1 + 1 = 2): xa0 = 1, nt0 = 3.
        let w = World::new(
            "a:1,b:2",
            &[(1, &[2.0, 0.0]), (1, &[0.0, 1.0]), (1, &[1.0, 1.0])],
        );
        let (x, f) = solve_with(&w.view(), true, &|_| wts.to_vec()).unwrap();
        let want = [3.0, 1.5, 1.0];
        for (l, w) in f.levels.iter().zip(want) {
            assert!((l - w).abs() < 1e-5, "{:?}", f.levels);
        }
        assert_eq!(f.rounds, 3);
        assert!(
            (x[0][0] - 1.0).abs() < 1e-5 && (x[1][1] - 1.0).abs() < 1e-5,
            "{x:?}"
        );
        assert!((x[2][1] - 1.0).abs() < 1e-5, "{x:?}");
    }

    #[test]
    fn frozen_jobs_of_weight_zero_settle_their_tests_by_the_duals() {
        // Hierarchical's reweighting gives frozen jobs weight 0. Random worlds solved with
        // that and with constant weights reach the same levels (a frozen job's weight plays
        // no part), and the round's duals settle as many bottleneck tests either way.
        let mut rng = crate::rng::Rng::new(5);
        let (mut zero, mut one) = (0, 0);
        for _ in 0..20 {
            let n = 4 + rng.below(8) as usize;
            let thr: Vec<Vec<f64>> = (0..n)
                .map(|_| (0..3).map(|_| 0.1 + rng.uniform()).collect())
                .collect();
            let jobs: Vec<(u32, &[f64])> = thr
                .iter()
                .map(|t| (1 + rng.below(2) as u32, t.as_slice()))
                .collect();
            let w = World::new("a:2,b:3,c:2", &jobs);
            let v = w.view();
            let (_, f0) = solve_with(&v, true, &|frozen| {
                frozen.iter().map(|&f| if f { 0.0 } else { 1.0 }).collect()
            })
            .unwrap();
            let (_, f1) = solve_with(&v, true, &|_| vec![1.0; n]).unwrap();
            for (a, b) in f0.levels.iter().zip(&f1.levels) {
                assert!(
                    (a - b).abs() < 1e-5 * b.max(1.0),
                    "{:?} {:?}",
                    f0.levels,
                    f1.levels
                );
            }
            zero += f0.test_lps;
            one += f1.test_lps;
        }
        assert!(zero <= one, "{zero} LPs with weight 0, {one} with weight 1");
    }

    #[test]
    fn hand_solved_rises_past_plain_max_min() {
        // Types a:1, b:1. Jobs 0, 1 run only on a at 1 step/s; job 2 at 1 on a and 2 on b.
        // P = 1/2, 1/2, 3/2: nt0 = 2 xa0, nt1 = 2 xa1, nt2 = (xa2 + 2 xb2) / 1.5. Round one:
        // a caps jobs 0 and 1 at c = 1 (xa0 = xa1 = 1/2, xa2 = 0), both frozen; job 2 needs
        // only xb2 >= 3/4. Round two raises job 2 alone to all of b: 4/3.
        let w = World::new(
            "a:1,b:1",
            &[(1, &[1.0, 0.0]), (1, &[1.0, 0.0]), (1, &[1.0, 2.0])],
        );
        let v = w.view();
        let wts = [1.0; 3];
        let (x, f) = solve_with(&v, true, &|_| wts.to_vec()).unwrap();
        assert!((f.levels[0] - 1.0).abs() < 1e-5 && (f.levels[1] - 1.0).abs() < 1e-5);
        assert!((f.levels[2] - 4.0 / 3.0).abs() < 1e-5, "{:?}", f.levels);
        assert!(f.rounds >= 2, "{}", f.rounds);
        assert!((x[2][1] - 1.0).abs() < 1e-5 && x[2][0] < 1e-5, "{x:?}");
        assert!((x[0][0] - 0.5).abs() < 1e-5, "{x:?}");
        // Plain max-min on the same jobs stops at the least share: its job 2 need not take
        // all of b (the centre of the optimal face gives it less).
        let mm = MaxMinFairness::solve(&v, true).unwrap();
        let nt2 = rate(&mm[2], &[1.0 / 1.5, 2.0 / 1.5]);
        assert!(nt2 < 4.0 / 3.0 - 1e-3, "{mm:?}");
    }

    #[test]
    fn weights_scale_the_rise() {
        // One type of 1 GPU; two 1-GPU jobs with weights 1 and 3: levels rise at w/s, so
        // x0 = 1/4, x1 = 3/4.
        let mut w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0])]);
        w.specs[1].priority_weight = 3.0;
        let x = WaterFilling::solve(&w.view(), true).unwrap();
        assert!(
            (x[0][0] - 0.25).abs() < 1e-5 && (x[1][0] - 0.75).abs() < 1e-5,
            "{x:?}"
        );
    }
}
