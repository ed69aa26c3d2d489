//! Water-filling max-min fairness with space sharing (Gavel's
//! `max_min_fairness_water_filling_packed`).
//!
//! The loop of [`super::max_min_fairness_water_filling`] over the packed layout: a job's
//! normalised throughput is `nt_i = eff_i(x) / P_i`, where `eff_i` counts its time alone and
//! in its pairs at their colocated rates and `P_i` is its equal-share throughput from its
//! isolated rates; the constraints are the packed base constraints (a pair's GPUs counted
//! once, a job's own and pair rows at most 1). Every round's LP and bottleneck tests are
//! solved over classes of interchangeable jobs with a row per pair of classes
//! ([`super::solve::packed::ClassPairs`]); when two jobs of one type train at different rates
//! together, every job is a class of its own (pairs of jobs, as in Gavel's layout).

use super::max_min_fairness_water_filling::{fill, normalised, ClassLayout, Problem};
use super::solve::packed::{self, ClassPairs};
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// Parameters (none).
pub const PARAMS: &[ParamInfo] = &[];

/// The packed water-filling policy.
#[derive(Debug, Clone)]
pub struct WaterFillingPacked {
    name: String,
}

impl WaterFillingPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(WaterFillingPacked {
            name: p.spec().to_string(),
        }))
    }

    /// Solve for `view`: the allocation and each job's final level.
    pub fn solve(view: &PolicyView) -> Result<(Allocation, Vec<f64>), String> {
        Self::solve_by(view, true)
    }

    /// Solve over classes of interchangeable jobs (`by_class`) or with every job a class of
    /// its own (Gavel's layout, a row per pair of jobs).
    pub fn solve_by(view: &PolicyView, by_class: bool) -> Result<(Allocation, Vec<f64>), String> {
        let m = view.jobs.len();
        let (coef, runnable) = normalised(view, true);
        // 1 / P_i per job (0 for a job that cannot run).
        let inv_p: Vec<f64> = view
            .jobs
            .iter()
            .zip(&coef)
            .map(|(j, c)| {
                j.throughput
                    .iter()
                    .zip(c)
                    .find(|(t, _)| **t > 0.0)
                    .map_or(0.0, |(t, c)| c / t)
            })
            .collect();
        let static_classes = ClassPairs::partition(view, &vec![0; m])
            .filter(|_| by_class)
            .unwrap_or_else(|| (0..m).map(|i| vec![i]).collect());
        let mut static_class = vec![0; m];
        for (c, members) in static_classes.iter().enumerate() {
            for &i in members {
                static_class[i] = c;
            }
        }
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        // Gavel's M: the largest normalised rate alone or in a pair, times the scale factor.
        let stat = ClassPairs::new(view, static_classes.clone());
        let mut big_m = coef
            .iter()
            .zip(&scale)
            .flat_map(|(c, s)| c.iter().map(move |v| v * s))
            .fold(0.0, f64::max);
        for ((a, b), rates) in &stat.pairs {
            let (ra, rb) = (stat.classes[*a][0], stat.classes[*b][0]);
            for &(x, y) in rates {
                big_m = big_m
                    .max(x * inv_p[ra] * scale[ra])
                    .max(y * inv_p[rb] * scale[rb]);
            }
        }
        let layout = |classes: &[Vec<usize>]| {
            let cp = ClassPairs::new(view, classes.to_vec());
            let f: Vec<f64> = classes.iter().map(|c| inv_p[c[0]]).collect();
            ClassLayout {
                scale: cp.scale(view),
                groups: cp.groups(),
                nt: cp.terms(view, &f),
            }
        };
        let w: Vec<f64> = view.jobs.iter().map(|j| j.spec.priority_weight).collect();
        let weights = |_: &[bool]| w.clone();
        let problem = Problem {
            counts: view.counts(),
            scale,
            static_class,
            big_m,
            runnable,
            weights: &weights,
            layout: &layout,
        };
        let filled = fill(&problem)?;
        let alloc = ClassPairs::new(view, filled.classes.clone()).allocation(view, &filled.x);
        Ok((alloc, filled.levels))
    }
}

impl Policy for WaterFillingPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        if view.jobs.is_empty() {
            return Ok(Decision::Allocation(Allocation::default()));
        }
        Self::solve(view)
            .map(|(a, _)| Decision::Allocation(a))
            .map_err(|reason| PolicyError::Failed {
                policy: self.name.clone(),
                reason,
            })
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::max_min_fairness_water_filling::WaterFilling;
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_pair_then_second_level() {
        // a:1, b:1. Jobs 0 and 1 run only on a (1 step/s; P = 1/2, nt = 2 x), together on a
        // at 0.8 each; job 2 runs on both at 1 step/s (P = 1). Round one: jobs 0 and 1 share
        // a (pair p on a, alone t0, t1): nt0 = 2 (t0 + 0.8 p), with t0 + t1 + p <= 1 on a;
        // symmetric best t0 = t1 = 0, p = 1: nt = 1.6 each, while job 2 has b: nt2 = 1 alone.
        // So c = 1 first (job 2 on b, full row): job 2 is frozen at 1; round two raises jobs
        // 0 and 1 to 1.6 (the pair all the time), where they freeze.
        let w = World::new(
            "a:1,b:1",
            &[(1, &[1.0, 0.0]), (1, &[1.0, 0.0]), (1, &[1.0, 1.0])],
        )
        .with_pairs(&[(0, 1, &[(0.8, 0.8), (0.0, 0.0)])]);
        let (a, levels) = WaterFillingPacked::solve(&w.view()).unwrap();
        let want = [1.6, 1.6, 1.0];
        for (l, v) in levels.iter().zip(want) {
            assert!((l - v).abs() < 1e-4, "{levels:?}");
        }
        assert_eq!(a.pairs, vec![(0, 1)]);
        assert!((a.pair_fractions[0][0] - 1.0).abs() < 1e-4, "{a:?}");
        assert!((a.fractions[2][1] - 1.0).abs() < 1e-4, "{a:?}");
        // Without pairs it is the _perf water-filling.
        let plain = World::new(
            "a:1,b:1",
            &[(1, &[1.0, 0.0]), (1, &[1.0, 0.0]), (1, &[1.0, 1.0])],
        );
        let (a, _) = WaterFillingPacked::solve(&plain.view()).unwrap();
        let x = WaterFilling::solve(&plain.view(), true).unwrap();
        for (r, q) in a.fractions.iter().flatten().zip(x.iter().flatten()) {
            assert!((r - q).abs() < 1e-5, "{a:?} vs {x:?}");
        }
    }

    #[test]
    fn classes_reach_the_per_job_levels() {
        // Seven jobs of three types on a:2, b:1 with colocated rates: the levels over
        // classes equal those of the per-job layout (every pair of jobs a row).
        let w = super::super::max_min_fairness_packed::tests::classy_world(false);
        let v = w.view();
        let (a, by_class) = WaterFillingPacked::solve_by(&v, true).unwrap();
        let (b, per_job) = WaterFillingPacked::solve_by(&v, false).unwrap();
        assert_eq!(a.pairs, b.pairs);
        for (x, y) in by_class.iter().zip(&per_job) {
            assert!((x - y).abs() < 1e-4, "{by_class:?} vs {per_job:?}");
        }
        // Interchangeable jobs get the same share.
        assert_eq!(a.fractions[0], a.fractions[2]);
    }
}
