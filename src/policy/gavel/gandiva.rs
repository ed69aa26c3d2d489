//! Gandiva (Xiao et al., OSDI'18) as Gavel runs it (`gandiva`): time slicing, with random
//! packing of pairs onto the same GPUs when the cluster is oversubscribed.
//!
//! Each time the job set changes:
//! - pairs formed earlier are dropped when either job has finished or when the pair slows
//!   down: its normalised throughput `sum_t sum_(i in pair) C_i[t] / T_i[t]`, summed over
//!   every GPU type as Gavel does, is below `threshold` (1), or a colocated throughput is 0
//!   on some type;
//! - if the jobs ask for no more GPUs than the cluster has, every job gets an equal time
//!   slice and nothing is packed;
//! - otherwise (given colocated throughputs; without any, jobs only time-slice) the jobs
//!   not in a kept pair form a pool (by id), and as many attempts as the
//!   pool had jobs each draw two distinct jobs from the pool at random; two jobs of equal
//!   scale factor become a pair and leave the pool (an attempt on unequal ones is used up).
//!
//! The kept and new pairs and the jobs left alone then get equal time slices: with `M` of
//! them, a row's fraction on type `t` is `W_t / M / scale`, divided by the row's sum when
//! that exceeds 1. There is no LP; the mechanism's priorities turn the slices into rotation.
//! Random draws use the experiment's seeded generator, not Python's, so the pairs differ
//! from Gavel's for the same seed (their distribution is the same).

use crate::model::job::JobId;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use crate::workload::Colocation;
use std::collections::BTreeSet;

/// Parameters.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "threshold",
    default: "1",
    help: "A pair is broken up when its normalised throughput (colocated over isolated rates, summed over jobs and GPU types) falls below this.",
}];

/// The Gandiva policy.
#[derive(Debug, Clone)]
pub struct Gandiva {
    name: String,
    threshold: f64,
    /// Pairs formed so far (lower id first).
    pairs: BTreeSet<(JobId, JobId)>,
}

impl Gandiva {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(Gandiva::new(
            p.spec(),
            p.f64("threshold", 1.0, 0.0, 1e9)?,
        )))
    }

    /// A new policy with no pairs.
    pub fn new(name: &str, threshold: f64) -> Self {
        Gandiva {
            name: name.into(),
            threshold,
            pairs: BTreeSet::new(),
        }
    }

    /// The pairs formed so far.
    pub fn pairs(&self) -> &BTreeSet<(JobId, JobId)> {
        &self.pairs
    }

    /// Normalised throughput of the pair of view positions `a < b` summed over every GPU
    /// type, or 0 if either job has no colocated throughput on some type.
    pub fn gain(view: &PolicyView, col: &Colocation, a: usize, b: usize) -> f64 {
        let (ja, jb) = (&view.jobs[a], &view.jobs[b]);
        let mut sum = 0.0;
        for t in 0..view.cluster.num_types() {
            let (ra, rb) = col.rates(ja.id, jb.id, t);
            if ra <= 0.0 || rb <= 0.0 || ja.throughput[t] <= 0.0 || jb.throughput[t] <= 0.0 {
                return 0.0;
            }
            sum += ra / ja.throughput[t] + rb / jb.throughput[t];
        }
        sum
    }
}

impl Policy for Gandiva {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, rng: &mut Rng) -> Result<Decision, PolicyError> {
        let pos = |id: JobId| view.jobs.binary_search_by_key(&id, |j| j.id).ok();
        // Drop pairs with a finished job or that slow down.
        let kept: BTreeSet<(JobId, JobId)> = self
            .pairs
            .iter()
            .copied()
            .filter(|&(a, b)| match (pos(a), pos(b), view.colocation) {
                (Some(pa), Some(pb), Some(col)) => Self::gain(view, col, pa, pb) >= self.threshold,
                _ => false,
            })
            .collect();
        self.pairs = kept;
        let requested: u64 = view.jobs.iter().map(|j| u64::from(j.scale())).sum();
        let available: u64 = view.cluster.counts().iter().map(|&c| u64::from(c)).sum();
        // Without colocated throughputs no pair could train: time slicing only.
        let packing = requested > available && view.colocation.is_some_and(|c| !c.is_empty());
        if packing {
            let paired: BTreeSet<JobId> = self.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            let mut pool: Vec<usize> = (0..view.jobs.len())
                .filter(|&j| !paired.contains(&view.jobs[j].id))
                .collect();
            let attempts = pool.len();
            for _ in 0..attempts {
                if pool.len() < 2 {
                    break;
                }
                let n = pool.len() as u64;
                let first = rng.below(n) as usize;
                let mut second = rng.below(n - 1) as usize;
                if second >= first {
                    second += 1;
                }
                let (a, b) = (pool[first], pool[second]);
                if view.jobs[a].scale() != view.jobs[b].scale() {
                    continue;
                }
                pool.retain(|&j| j != a && j != b);
                let (ia, ib) = (view.jobs[a].id, view.jobs[b].id);
                self.pairs.insert((ia.min(ib), ia.max(ib)));
            }
        }
        // Rows scheduled: the pairs (only when packing) and the jobs in none of them.
        let in_pair: BTreeSet<JobId> = if packing {
            self.pairs.iter().flat_map(|&(a, b)| [a, b]).collect()
        } else {
            BTreeSet::new()
        };
        let pairs: Vec<(JobId, JobId)> = if packing {
            self.pairs.iter().copied().collect()
        } else {
            Vec::new()
        };
        let alone = view
            .jobs
            .iter()
            .filter(|j| !in_pair.contains(&j.id))
            .count();
        let m = (alone + pairs.len()) as f64;
        let counts = view.counts();
        let slice = |scale: u32| -> Vec<f64> {
            let s = f64::from(scale);
            let mut row: Vec<f64> = counts.iter().map(|w| w / m / s).collect();
            let sum: f64 = row.iter().sum();
            if sum > 1.0 {
                row.iter_mut().for_each(|x| *x /= sum);
            }
            row
        };
        let fractions = view
            .jobs
            .iter()
            .map(|j| {
                if in_pair.contains(&j.id) {
                    vec![0.0; counts.len()]
                } else {
                    slice(j.scale())
                }
            })
            .collect();
        let pair_fractions = pairs
            .iter()
            .map(|&(a, _)| slice(pos(a).map_or(1, |p| view.jobs[p].scale())))
            .collect();
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions,
            pairs,
            pair_fractions,
        }))
    }

    fn traits(&self) -> PolicyTraits {
        super::solve::packed::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{PairSpec, World};
    use super::*;

    /// Two jobs and their colocated rates per type, owned.
    type OwnedPair = (usize, usize, Vec<(f64, f64)>);

    fn alloc(d: Decision) -> Allocation {
        match d {
            Decision::Allocation(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn time_slices_without_packing_when_the_jobs_fit() {
        // Two GPUs of a, one of b; three single-GPU jobs fit: 1/3 of each type's GPUs each.
        let w = World::new("a:2,b:1", &[(1, &[1.0, 1.0][..]); 3]).with_pairs(&[(
            0,
            1,
            &[(0.9, 0.9), (0.9, 0.9)],
        )]);
        let mut p = Gandiva::new("gandiva", 1.0);
        let a = alloc(p.decide(&w.view(), &mut Rng::new(0)).unwrap());
        assert!(a.pairs.is_empty());
        for r in &a.fractions {
            assert!((r[0] - 2.0 / 3.0).abs() < 1e-12 && (r[1] - 1.0 / 3.0).abs() < 1e-12);
        }
    }

    #[test]
    fn packs_random_pairs_and_drops_those_that_slow_down() {
        // One GPU, four single-GPU jobs: oversubscribed. Pairs (0,1) and (2,3) gain 1.8;
        // every other pair gains 0.8 (it slows both jobs down).
        let mut pairs: Vec<OwnedPair> = Vec::new();
        for a in 0..4 {
            for b in a + 1..4 {
                let r = if (a, b) == (0, 1) || (a, b) == (2, 3) {
                    0.9
                } else {
                    0.4
                };
                pairs.push((a, b, vec![(r, r)]));
            }
        }
        let spec: Vec<PairSpec> = pairs
            .iter()
            .map(|(a, b, r)| (*a, *b, r.as_slice()))
            .collect();
        let w = World::new("a:1", &[(1, &[1.0][..]); 4]).with_pairs(&spec);
        let v = w.view();
        // The same jobs on four GPUs: no packing, so no new pairs, only the clean-up.
        let roomy = World::new("a:4", &[(1, &[1.0][..]); 4]).with_pairs(&spec);
        let mut seen_good = false;
        for seed in 0..40 {
            let mut p = Gandiva::new("gandiva", 1.0);
            let mut rng = Rng::new(seed);
            let a = alloc(p.decide(&v, &mut rng).unwrap());
            // Four attempts over a pool of four: at least one pair, every job at most once.
            assert!(!a.pairs.is_empty());
            let mut members: Vec<usize> = a.pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
            crate::order::sort(&mut members);
            members.dedup();
            assert_eq!(members.len(), 2 * a.pairs.len());
            // Rows: M = pairs + jobs alone, each 1/M of the GPU; paired jobs have no own row.
            let m = (a.pairs.len() + 4 - members.len()) as f64;
            for (i, r) in a.fractions.iter().enumerate() {
                let want = if members.contains(&i) { 0.0 } else { 1.0 / m };
                assert!((r[0] - want).abs() < 1e-12);
            }
            assert!(a
                .pair_fractions
                .iter()
                .all(|r| (r[0] - 1.0 / m).abs() < 1e-12));
            // Next call: pairs that slow down are gone, good ones stay.
            let before = p.pairs().clone();
            let b = alloc(p.decide(&roomy.view(), &mut rng).unwrap());
            assert!(b.pairs.is_empty());
            for pr in &before {
                let good = *pr == (0, 1) || *pr == (2, 3);
                assert_eq!(p.pairs().contains(pr), good, "{pr:?}");
                seen_good |= good;
            }
        }
        assert!(seen_good);
        // Same seed, same pairs.
        let run = |s| {
            let mut p = Gandiva::new("gandiva", 1.0);
            alloc(p.decide(&v, &mut Rng::new(s)).unwrap()).pairs
        };
        assert_eq!(run(3), run(3));
    }

    #[test]
    fn only_equal_scale_jobs_pair() {
        // Two GPUs; jobs of 1, 2, 2 GPUs ask for 5: only the two 2-GPU jobs can pair.
        let w = World::new("a:2", &[(1, &[1.0]), (2, &[1.0]), (2, &[1.0])]).with_pairs(&[(
            1,
            2,
            &[(0.9, 0.9)],
        )]);
        for seed in 0..20 {
            let mut p = Gandiva::new("gandiva", 1.0);
            let a = alloc(p.decide(&w.view(), &mut Rng::new(seed)).unwrap());
            assert!(a.pairs.iter().all(|&pr| pr == (1, 2)), "{:?}", a.pairs);
        }
    }
}
