//! FIFO with space sharing (Gavel's `fifo_packed`). Recomputed from scratch at every call:
//! jobs in id order each get the GPU type with room where they are fastest alone (ties to
//! the alphabetically first type); the first job with no type with room stops the pass
//! (strict FIFO), and a job that cannot run on its best type with room is skipped. Then the
//! jobs still queued, in id order, are packed: each goes onto the GPUs of the already-placed
//! single job `s` of its scale factor (in placing order) whose pair has the largest
//! normalised throughput `sum_(i in pair, C_i > 0) C_i / T_i` on `s`'s type, if that beats
//! `threshold` (1.5); the first queued job with no such partner stops the packing.
//! Allocations are whole: 1 on the chosen type for a single or a pair, 0 elsewhere, and
//! jobs with no share do not fill leftover GPUs.

use super::solve::packed;
use crate::model::job::JobId;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// Parameters.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "threshold",
    default: "1.5",
    help: "Smallest normalised pair throughput (sum of colocated over isolated rates) a queued job needs to be packed onto a placed one.",
}];

/// Where `fifo_packed` puts jobs (by position in the view).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Placement {
    /// Single jobs and their GPU types, in placing order.
    pub singles: Vec<(usize, usize)>,
    /// Pairs (lower position first) and their GPU types, in packing order.
    pub pairs: Vec<((usize, usize), usize)>,
}

/// The packed FIFO policy.
#[derive(Debug, Clone)]
pub struct FifoPacked {
    name: String,
    threshold: f64,
}

impl FifoPacked {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(FifoPacked {
            name: p.spec().to_string(),
            threshold: p.f64("threshold", 1.5, 0.0, 1e9)?,
        }))
    }

    /// Where the jobs of `view` go.
    pub fn place(view: &PolicyView, threshold: f64) -> Placement {
        let n = view.cluster.num_types();
        let mut avail: Vec<u32> = view.cluster.counts();
        let mut by_name: Vec<usize> = (0..n).collect();
        crate::order::sort_by(&mut by_name, |a, b| {
            view.cluster.types[*a]
                .name
                .cmp(&view.cluster.types[*b].name)
        });
        // Free types in alphabetical order.
        let mut free: Vec<usize> = by_name.iter().copied().filter(|&t| avail[t] > 0).collect();
        // Job ids ascending: the view's order.
        let mut queue = std::collections::VecDeque::from_iter(0..view.jobs.len());
        let mut singles: Vec<(usize, usize)> = Vec::new();
        while !free.is_empty() {
            let Some(j) = queue.pop_front() else { break };
            let job = &view.jobs[j];
            let mut best: Option<usize> = None;
            for &t in free.iter().filter(|&&t| avail[t] >= job.scale()) {
                if best.is_none_or(|b| job.throughput[t] > job.throughput[b]) {
                    best = Some(t);
                }
            }
            let Some(t) = best else { break };
            if job.throughput[t] > 0.0 {
                avail[t] -= job.scale();
                singles.push((j, t));
                if avail[t] == 0 {
                    free.retain(|&f| f != t);
                }
            }
        }
        let mut pairs: Vec<((usize, usize), usize)> = Vec::new();
        let Some(col) = view.colocation else {
            return Placement { singles, pairs };
        };
        while let Some(q) = queue.pop_front() {
            let mut best_score = threshold;
            let mut best: Option<usize> = None;
            for (k, &(s, t)) in singles.iter().enumerate() {
                if view.jobs[s].scale() != view.jobs[q].scale() {
                    continue;
                }
                let (a, b) = (s.min(q), s.max(q));
                let (ra, rb) = col.rates(view.jobs[a].id, view.jobs[b].id, t);
                let part = |r: f64, i: usize| {
                    let iso = view.jobs[i].throughput[t];
                    if r > 0.0 && iso > 0.0 {
                        r / iso
                    } else {
                        0.0
                    }
                };
                let score = part(ra, a) + part(rb, b);
                if score > best_score {
                    best_score = score;
                    best = Some(k);
                }
            }
            let Some(k) = best else { break };
            let (s, t) = singles.remove(k);
            pairs.push(((s.min(q), s.max(q)), t));
        }
        Placement { singles, pairs }
    }
}

impl Policy for FifoPacked {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let n = view.cluster.num_types();
        let Placement { singles, mut pairs } = Self::place(view, self.threshold);
        let mut fractions = vec![vec![0.0; n]; view.jobs.len()];
        for (j, t) in singles {
            fractions[j][t] = 1.0;
        }
        crate::order::sort(&mut pairs);
        let ids = |(a, b): (usize, usize)| -> (JobId, JobId) { (view.jobs[a].id, view.jobs[b].id) };
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: fractions.into(),
            pairs: pairs.iter().map(|&(p, _)| ids(p)).collect(),
            pair_fractions: pairs
                .iter()
                .map(|&(_, t)| {
                    (0..n)
                        .map(|k| if k == t { 1.0 } else { 0.0 })
                        .collect::<Vec<f64>>()
                })
                .collect(),
        }))
    }

    fn traits(&self) -> PolicyTraits {
        packed::traits(false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    fn decide(w: &World) -> Allocation {
        let mut p = FifoPacked {
            name: "fifo_packed".into(),
            threshold: 1.5,
        };
        match p.decide(&w.view(), &mut Rng::new(0)).unwrap() {
            Decision::Allocation(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn places_in_order_then_packs_the_queue() {
        // a:1, b:1 ("a" first alphabetically). Jobs 0 and 1 take a and b; jobs 2 and 3 wait.
        // Job 2 packs best with job 1 on b (0.9 + 0.9 > 1.5; with job 0 on a only 1.2); job 3
        // has no partner above 1.5 (job 0 on a: 1.4), so packing stops there.
        let w = World::new(
            "a:1,b:1",
            &[
                (1, &[2.0, 1.0]),
                (1, &[2.0, 1.0]),
                (1, &[2.0, 1.0]),
                (1, &[2.0, 1.0]),
            ],
        )
        .with_pairs(&[
            (0, 2, &[(1.2, 1.2), (0.0, 0.0)]),
            (1, 2, &[(0.0, 0.0), (0.9, 0.9)]),
            (0, 3, &[(1.4, 1.4), (0.0, 0.0)]),
        ]);
        let a = decide(&w);
        assert_eq!(
            a.fractions,
            vec![vec![1.0, 0.0], vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]]
        );
        assert_eq!(a.pairs, vec![(1, 2)]);
        assert_eq!(a.pair_fractions, vec![vec![0.0, 1.0]]);
        // A higher bar packs nothing.
        let mut p = FifoPacked {
            name: "fifo_packed[threshold=1.9]".into(),
            threshold: 1.9,
        };
        let Decision::Allocation(a) = p.decide(&w.view(), &mut Rng::new(0)).unwrap() else {
            panic!()
        };
        assert!(a.pairs.is_empty());
    }

    #[test]
    fn strict_fifo_and_scale_factors() {
        // a:3. Job 0 (2 GPUs) takes two; job 1 (2 GPUs) is next and finds no room, which
        // stops the pass (and, taken off the queue, it is not packed either); job 2 (2 GPUs)
        // packs with job 0 (0.8 + 0.8); job 3 (1 GPU) never pairs with a 2-GPU job.
        let w = World::new("a:3", &[(2, &[1.0]), (2, &[1.0]), (2, &[1.0]), (1, &[1.0])])
            .with_pairs(&[
                (0, 1, &[(0.9, 0.9)]),
                (0, 2, &[(0.8, 0.8)]),
                (0, 3, &[(0.9, 0.9)]),
            ]);
        let a = decide(&w);
        assert_eq!(a.fractions, vec![vec![0.0]; 4]);
        assert_eq!(a.pairs, vec![(0, 2)]);
        assert_eq!(a.pair_fractions, vec![vec![1.0]]);
    }
}
