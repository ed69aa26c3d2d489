//! Max-min fairness (Gavel's LAS as an LP).
//!
//! `_perf`: maximise `min_j sum_t c[j][t] x[j][t]` with `c[j][t] = T[j][t] s_j / (w_j P_j)`,
//! where `T` is the job's throughput, `s_j` its scale factor, `w_j` its priority weight and
//! `P_j = sum_t T[j][t] N_t / N` its throughput under an equal share of every type. Plain:
//! every throughput is 1, so `c[j][t] = s_j / w_j` and all types are alike.

use super::solve::lp;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// Parameters (none yet; the list is kept for the registry).
pub const PARAMS: &[ParamInfo] = &[];

/// The max-min fairness policy, plain or `_perf`.
#[derive(Debug, Clone)]
pub struct MaxMinFairness {
    name: String,
    perf: bool,
}

impl MaxMinFairness {
    /// Build from registry parameters.
    pub fn build(p: &Params, perf: bool) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(MaxMinFairness {
            name: p.spec().to_string(),
            perf,
        }))
    }

    /// The LP's coefficients `c[j][t]`.
    pub fn coefficients(view: &PolicyView, perf: bool) -> Vec<Vec<f64>> {
        let counts = view.counts();
        let total: f64 = counts.iter().sum();
        view.jobs
            .iter()
            .map(|j| {
                let s = f64::from(j.scale());
                let w = j.spec.priority_weight;
                if perf {
                    let p: f64 = j
                        .throughput
                        .iter()
                        .zip(&counts)
                        .map(|(t, n)| t * n / total)
                        .sum();
                    j.throughput
                        .iter()
                        .map(|t| if p > 0.0 { t * s / (w * p) } else { 0.0 })
                        .collect()
                } else {
                    view.plain_row(j, s / w)
                }
            })
            .collect()
    }

    /// Solve the LP for `view` with the structured interior-point method
    /// ([`super::solve::ipm`]), or with Clarabel if that stalls.
    pub fn solve(view: &PolicyView, perf: bool) -> Result<Vec<Vec<f64>>, String> {
        Self::solve_with(view, perf, lp::max_min)
    }

    /// Solve the LP for `view` with Clarabel alone (the general path).
    pub fn solve_general(view: &PolicyView, perf: bool) -> Result<Vec<Vec<f64>>, String> {
        Self::solve_with(view, perf, lp::max_min_clarabel)
    }

    /// The LP's inputs for `view`, handed to `solver`. Clarabel runs without iterative
    /// refinement here: 20-30% faster, same tolerances (see `Lp`); bisection policies keep
    /// it, since their feasibility tests sit on the boundary.
    fn solve_with(
        view: &PolicyView,
        perf: bool,
        solver: impl Fn(&[f64], &[f64], &[Vec<f64>], bool) -> Result<Vec<Vec<f64>>, String>,
    ) -> Result<Vec<Vec<f64>>, String> {
        if view.jobs.is_empty() {
            return Ok(Vec::new());
        }
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let c = Self::coefficients(view, perf);
        solver(&scale, &view.counts(), &c, false)
    }
}

impl Policy for MaxMinFairness {
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
    use super::super::solve::ipm::BlockLp;
    use super::super::testing::World;
    use super::*;

    #[test]
    fn hand_solved_two_classes_two_types() {
        // One fast GPU (a) and one slow GPU (b). Jobs 0, 1: 4/s on a, 1/s on b; jobs 2, 3:
        // 1/s on both. Equal-share throughputs P = 2.5 and 1, so the normalised rates are
        // 1.6 x_a + 0.4 x_b and x_a + x_b. At the optimum jobs 2, 3 hold b (1/2 each) and
        // a share g of a each, jobs 0, 1 the rest of a: 1.6 (1/2 - g) = 1/2 + g, so
        // g = 0.3 / 2.6 and every job gets 1.6 / 2.6.
        let w = World::new(
            "a:1,b:1",
            &[
                (1, &[4.0, 1.0]),
                (1, &[4.0, 1.0]),
                (1, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
            ],
        );
        let x = MaxMinFairness::solve(&w.view(), true).unwrap();
        let c = MaxMinFairness::coefficients(&w.view(), true);
        assert!((c[0][0] - 1.6).abs() < 1e-12 && (c[2][1] - 1.0).abs() < 1e-12);
        for (r, cr) in x.iter().zip(&c) {
            let v = r[0] * cr[0] + r[1] * cr[1];
            assert!((v - 1.6 / 2.6).abs() < 1e-6, "{x:?}");
        }
        assert!(
            (x[2][0] - 0.3 / 2.6).abs() < 1e-6 && (x[2][1] - 0.5).abs() < 1e-6,
            "{x:?}"
        );
        assert!(super::super::solve::lp::satisfies_base(
            &x,
            &[1.0; 4],
            &[1.0, 1.0],
            1e-7
        ));
    }

    #[test]
    fn the_structured_method_reaches_clarabels_optimum() {
        // Random worlds of 1-40 jobs (1, 2, 4 or 8 GPUs) on 1-4 types, some throughputs zero
        // (never all of a job's): the structured method's allocation meets the base
        // constraints and its smallest normalised rate equals Clarabel's optimum to 1e-6.
        // (When the optimum is not unique the two may end at different optimal points.) At
        // most 5% of the LPs may stall and go to Clarabel.
        let mut rng = Rng::new(7);
        let mut worst = 0.0f64;
        let mut stalled = 0;
        for case in 0..300 {
            let types = 1 + rng.below(4) as usize;
            let names = ["a", "b", "c", "d"];
            let cluster: Vec<String> = (0..types)
                .map(|t| format!("{}:{}", names[t], 1 + rng.below(24)))
                .collect();
            let n = 1 + rng.below(40) as usize;
            let jobs: Vec<(u32, Vec<f64>)> = (0..n)
                .map(|_| {
                    let s = [1, 1, 1, 2, 4, 8][rng.below(6) as usize];
                    let fast = rng.below(types as u64) as usize;
                    let tp = (0..types)
                        .map(|k| {
                            if k != fast && rng.below(5) == 0 {
                                0.0
                            } else {
                                0.1 + 10.0 * rng.uniform()
                            }
                        })
                        .collect();
                    (s, tp)
                })
                .collect();
            let refs: Vec<(u32, &[f64])> = jobs.iter().map(|(s, t)| (*s, t.as_slice())).collect();
            let w = World::new(&cluster.join(","), &refs);
            let view = w.view();
            let scale: Vec<f64> = jobs.iter().map(|(s, _)| f64::from(*s)).collect();
            for perf in [true, false] {
                let c = MaxMinFairness::coefficients(&view, perf);
                let least = |x: &[Vec<f64>]| -> f64 {
                    x.iter()
                        .zip(&c)
                        .map(|(r, cr)| r.iter().zip(cr).map(|(a, b)| a * b).sum::<f64>())
                        .fold(f64::INFINITY, f64::min)
                };
                let counts = view.counts();
                let Some(a) = BlockLp::max_min(&scale, &counts, &c).solve_lp() else {
                    stalled += 1;
                    continue;
                };
                let b = MaxMinFairness::solve_general(&view, perf).unwrap();
                assert!(
                    super::super::solve::lp::satisfies_base(&a, &scale, &counts, 1e-7),
                    "case {case}: {a:?}"
                );
                let (ta, tb) = (least(&a), least(&b));
                let rel = (ta - tb).abs() / tb.abs().max(1e-9);
                worst = worst.max(rel);
                assert!(rel < 1e-6, "case {case} perf {perf}: {ta} vs {tb}");
            }
        }
        println!("largest relative difference in the optimum: {worst:.2e}; {stalled} of 600 LPs left to Clarabel");
        assert!(stalled <= 30, "{stalled} of 600 stalled");
    }

    #[test]
    fn a_dual_residual_at_the_rounding_floor_keeps_the_structured_point() {
        // A scaling LP of finish-time fairness from the `gavel` scenario (29 jobs on
        // 12:12:12): near the optimum its dual residual stops at about 5.7e-8, above the 2e-8
        // tolerance, while the gap keeps shrinking. The method returns its first iterate with
        // the gap within 1e-8 and that residual within five times the tolerance, which
        // meets the base constraints and Clarabel's optimum to 1e-7.
        let coef: Vec<Vec<f64>> = [
            [1.0055262782913135, 2.183651075142328, 3.502658092471022],
            [1.0350186399573251, 2.5338287308009475, 3.538883275646496],
            [0.5144292283012752, 1.0049955585651753, 1.4491683261770576],
            [0.20173103903184997, 0.8806245222928223, 2.5903246751962845],
            [0.7408054996074163, 1.5651532953130476, 2.145778245702387],
            [0.7988289899811248, 1.5606025237573409, 2.2503322932117555],
            [1.141735370275527, 4.58032872917876, 11.189507086572192],
            [0.4351147761972871, 1.018734646758142, 1.411893793521382],
            [1.025643336613611, 2.5108770543236463, 3.506827713624395],
            [0.4901746250709644, 1.1476463242311445, 1.5905562135301259],
            [0.5729536047215804, 1.1967126420098149, 1.8408404628133042],
            [0.2225839572719922, 0.8657068084645574, 1.997804729749612],
            [0.5742150572380665, 0.9802740305145942, 1.1366432611258606],
            [0.9637655037612465, 1.7001255379028812, 2.2535321021095522],
            [0.4698341875127224, 0.9926536982636986, 1.3608979674233113],
            [0.7843630073664424, 0.9854817272039919, 1.0458173431552567],
            [0.8557340171362765, 1.5494053410889832, 1.9951855164925205],
            [0.5330490352345085, 0.9651468212361606, 1.2428309204082242],
            [0.5209069754769567, 0.9211621914984224, 1.2232704731240354],
            [0.5667226263437469, 0.9674832906366572, 1.1218121956946576],
            [0.3684286498876385, 1.3297415078356973, 2.7233498911181773],
            [0.5355956264054273, 1.0223660016495475, 1.2441226170217377],
            [0.6381981713938611, 0.9499141477955506, 1.1226812666397872],
            [0.4120981041839369, 1.1234233909567715, 1.3329238009340023],
            [0.44293141223719323, 1.0190598777653728, 1.2764077860491363],
            [0.3756629656574574, 1.0797133446742417, 1.3018884260631867],
            [0.30593296349400856, 1.2273166672660798, 2.998270524932964],
            [0.4567787674081877, 1.0509187247066023, 1.3163120950868976],
            [0.4483243886424687, 0.9364029813033058, 1.4404197273182962],
        ]
        .iter()
        .map(|r| r.to_vec())
        .collect();
        let scale = [
            4.0, 4.0, 1.0, 1.0, 8.0, 2.0, 8.0, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0,
            1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0,
        ];
        let counts = [12.0, 12.0, 12.0];
        let least = |x: &[Vec<f64>]| -> f64 {
            x.iter()
                .zip(&coef)
                .map(|(r, c)| r.iter().zip(c).map(|(a, b)| a * b).sum::<f64>())
                .fold(f64::INFINITY, f64::min)
        };
        let a = BlockLp::max_min(&scale, &counts, &coef)
            .solve_lp()
            .expect("the structured method returns a point");
        assert!(super::super::solve::lp::satisfies_base(
            &a, &scale, &counts, 1e-7
        ));
        let b = super::super::solve::lp::max_min_clarabel(&scale, &counts, &coef, true).unwrap();
        let (ta, tb) = (least(&a), least(&b));
        assert!((ta - tb).abs() <= 1e-7 * tb, "{ta} vs {tb}");
    }

    #[test]
    fn identical_types_settle_on_the_centre_of_the_optimal_face() {
        // Plain max-min fairness on three identical types of 12 GPUs: 40 jobs of 83 GPUs in
        // all, each valued at its scale factor per unit of time. Every job gets the same
        // rate t = 36 / 40 = 0.9, job j its time 0.9 / s_j, and the centre of the optimal
        // face splits it equally over the types. The dual residual stays above its tolerance
        // here while the primal iterates converge; the method returns them (it used to hand
        // this LP to Clarabel).
        let mut scale = vec![4.0, 8.0, 2.0, 4.0, 8.0, 8.0, 4.0, 2.0, 8.0, 2.0, 4.0];
        scale.resize(40, 1.0);
        let coef: Vec<Vec<f64>> = scale.iter().map(|&s| vec![s; 3]).collect();
        let counts = [12.0; 3];
        let classes = super::super::solve::job_classes::JobClasses::new(&scale, &coef);
        assert_eq!(classes.first.len(), 4);
        let (c_scale, c_coef) = (classes.firsts(&scale), classes.firsts(&coef));
        let by_class = BlockLp::max_min(&c_scale, &counts, &c_coef)
            .with_members(&classes.of)
            .solve_lp()
            .expect("the structured method returns a point");
        let by_job = BlockLp::max_min(&scale, &counts, &coef)
            .solve_lp()
            .expect("the structured method returns a point");
        for (j, s) in scale.iter().enumerate() {
            for x in [&by_class[classes.of[j]], &by_job[j]] {
                for &v in x {
                    assert!((v - 0.3 / s).abs() < 1e-9, "job {j}: {x:?}");
                }
            }
        }
    }

    #[test]
    fn plain_gives_equal_shares() {
        // 3 single-GPU jobs on 2 GPUs of one type: each gets 2/3.
        let w = World::new("a:2", &[(1, &[1.0]), (1, &[5.0]), (1, &[9.0])]);
        let x = MaxMinFairness::solve(&w.view(), false).unwrap();
        for r in &x {
            assert!((r[0] - 2.0 / 3.0).abs() < 1e-6, "{x:?}");
        }
        // A 2-GPU job and a 1-GPU job on 2 GPUs: the objective s*x equalises GPU-time:
        // 2 x0 = x1, 2 x0 + x1 <= 2  =>  x0 = 0.5, x1 = 1.
        let w = World::new("a:2", &[(2, &[1.0]), (1, &[1.0])]);
        let x = MaxMinFairness::solve(&w.view(), false).unwrap();
        assert!(
            (x[0][0] - 0.5).abs() < 1e-6 && (x[1][0] - 1.0).abs() < 1e-6,
            "{x:?}"
        );
    }
}
