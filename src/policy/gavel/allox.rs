//! AlloX (Le et al., EuroSys'20) as Gavel runs it (`allox`, `allox[alpha=..]`): jobs are
//! matched to GPUs at least total completion time by a min-cost bipartite matching.
//!
//! The matching places single-GPU jobs only (Gavel's AlloX accepts no others): a multi-GPU
//! job gets no share and runs only on GPUs left idle. A job that holds a GPU keeps it until
//! it finishes (no preemption). The free GPUs are numbered per type (types in alphabetical order); the
//! waiting jobs, oldest first, are cut to the first `max(floor(alpha m), n)` of the `m`
//! waiting (`n` free GPUs). Job `i` takes `p[i][w] = remaining steps / throughput` seconds
//! on GPU `w` (a throughput of 0 counts as 1e-10 steps/s). Column `b n + w` of the cost
//! matrix stands for "on GPU `w`, `b + 1`-th from the end of its queue", costing
//! `(b + 1) p[i][w]` (a job delays the `b` jobs after it), so a minimum-cost assignment
//! ([`crate::policy::hungarian::assign_positions`], which makes only the columns that can
//! matter) minimises the sum of completion times. Each GPU's head
//! (the job of the largest `b`, which runs first) gets an allocation of 1 on the GPU's type;
//! the others wait. Recomputed when the job set changes; GPU types are not shuffled, and
//! jobs without a share may fill GPUs left idle.

use crate::model::job::JobId;
use crate::policy::hungarian;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;

/// Parameters.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "alpha",
    default: "1",
    help: "Share of the waiting jobs (oldest first) considered in each matching, at least as many as there are free GPUs.",
}];

/// Throughput used where a job cannot run (Gavel's stand-in for 0).
const TINY_THROUGHPUT: f64 = 1e-10;

/// The AlloX policy.
#[derive(Debug, Clone)]
pub struct Allox {
    name: String,
    alpha: f64,
    /// The GPU type each job holds (kept until it finishes).
    held: BTreeMap<JobId, usize>,
}

impl Allox {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(Allox::new(
            p.spec(),
            p.f64("alpha", 1.0, 0.0, 1e6)?,
        )))
    }

    /// A new policy holding no GPUs.
    pub fn new(name: &str, alpha: f64) -> Self {
        Allox {
            name: name.into(),
            alpha,
            held: BTreeMap::new(),
        }
    }

    /// One matching: for the waiting jobs (positions in `view`, oldest first) and the free
    /// GPUs (their types), the GPU type each matched head gets, by view position.
    pub fn heads(
        view: &PolicyView,
        waiting: &[usize],
        free: &[usize],
    ) -> Result<Vec<(usize, usize)>, hungarian::AssignError> {
        let (m, n) = (waiting.len(), free.len());
        if m == 0 || n == 0 {
            return Ok(Vec::new());
        }
        // p[i][w] flattened.
        let p: Vec<f64> = waiting
            .iter()
            .flat_map(|&j| {
                let job = &view.jobs[j];
                free.iter().map(move |&t| {
                    let thr = job.throughput[t];
                    job.steps_remaining.max(0.0) / if thr > 0.0 { thr } else { TINY_THROUGHPUT }
                })
            })
            .collect();
        let a = hungarian::assign_positions(m, n, |i, w| p[i * n + w])?;
        // Per GPU, the job with the largest block runs first.
        let mut head: Vec<Option<(usize, usize)>> = vec![None; n];
        for (i, &(w, b)) in a.iter().enumerate() {
            if head[w].is_none_or(|(hb, _)| b > hb) {
                head[w] = Some((b, i));
            }
        }
        Ok(head
            .iter()
            .enumerate()
            .filter_map(|(w, h)| h.map(|(_, i)| (waiting[i], free[w])))
            .collect())
    }
}

impl Policy for Allox {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let types = view.cluster.num_types();
        // Jobs that finished release their GPUs.
        self.held
            .retain(|id, _| view.jobs.binary_search_by_key(id, |j| j.id).is_ok());
        let mut free_count: Vec<u32> = view.cluster.counts();
        for &t in self.held.values() {
            free_count[t] = free_count[t].saturating_sub(1);
        }
        let mut by_name: Vec<usize> = (0..types).collect();
        crate::order::sort_by(&mut by_name, |a, b| {
            view.cluster.types[*a]
                .name
                .cmp(&view.cluster.types[*b].name)
        });
        let free: Vec<usize> = by_name
            .iter()
            .flat_map(|&t| std::iter::repeat_n(t, free_count[t] as usize))
            .collect();
        let mut waiting: Vec<usize> = (0..view.jobs.len())
            .filter(|&j| view.jobs[j].scale() == 1 && !self.held.contains_key(&view.jobs[j].id))
            .collect();
        // Oldest first (a stable sort: ties keep id order).
        crate::order::sort_by(&mut waiting, |&a, &b| {
            view.jobs[b]
                .time_since_arrival
                .total_cmp(&view.jobs[a].time_since_arrival)
        });
        let keep = ((self.alpha * waiting.len() as f64).floor() as usize).max(free.len());
        waiting.truncate(keep);
        let heads = Self::heads(view, &waiting, &free).map_err(|e| PolicyError::Failed {
            policy: self.name.clone(),
            reason: e.to_string(),
        })?;
        for (j, t) in heads {
            self.held.insert(view.jobs[j].id, t);
        }
        let fractions = view
            .jobs
            .iter()
            .map(|j| {
                let mut row = vec![0.0; types];
                if let Some(&t) = self.held.get(&j.id) {
                    row[t] = 1.0;
                }
                row
            })
            .collect();
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions,
            ..Default::default()
        }))
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    fn rows(d: Decision) -> Vec<Vec<f64>> {
        match d {
            Decision::Allocation(a) => a.fractions.to_vecs(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn shortest_first_on_one_gpu_and_no_preemption() {
        // One GPU, three jobs of 3000, 1000 and 2000 s: the shortest (job 1) runs first.
        let mut w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0]), (1, &[1.0])]);
        w.remaining = vec![3000.0, 1000.0, 2000.0];
        let mut p = Allox::new("allox", 1.0);
        let x = rows(p.decide(&w.view(), &mut Rng::new(0)).unwrap());
        assert_eq!(x, vec![vec![0.0], vec![1.0], vec![0.0]]);
        // A shorter job arriving does not preempt the holder.
        w.remaining = vec![3000.0, 900.0, 2000.0];
        w.specs
            .push(crate::model::job::JobSpec::new("t", 0.0, 10.0));
        w.thr.push(vec![1.0]);
        w.time.push(vec![0.0]);
        w.remaining.push(10.0);
        w.since.push(0.0);
        let x = rows(p.decide(&w.view(), &mut Rng::new(0)).unwrap());
        assert_eq!(x[1], vec![1.0]);
        assert_eq!(x.iter().map(|r| r[0]).sum::<f64>(), 1.0);
    }

    #[test]
    fn matching_uses_heterogeneity() {
        // Types a (1 GPU) and b (1 GPU). Job 0 is 10x faster on b, job 1 equally fast on
        // both: the matching puts 0 on b and 1 on a (100 + 500 = 600 s of completion time;
        // swapped 1000 + 500, both on b 100 + 600).
        let mut w = World::new("a:1,b:1", &[(1, &[0.1, 1.0]), (1, &[1.0, 1.0])]);
        w.remaining = vec![100.0, 500.0];
        let mut p = Allox::new("allox", 1.0);
        let x = rows(p.decide(&w.view(), &mut Rng::new(0)).unwrap());
        assert_eq!(x, vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    }

    #[test]
    fn heads_minimise_total_completion_time_by_brute_force() {
        // Two GPUs (types a, b), four jobs: compare the matching's total completion time
        // with every assignment of jobs to GPUs and order.
        let thr: [&[f64]; 4] = [&[1.0, 2.0], &[3.0, 1.0], &[1.0, 1.0], &[2.0, 5.0]];
        let mut w = World::new("a:1,b:1", &thr.iter().map(|t| (1, *t)).collect::<Vec<_>>());
        w.remaining = vec![400.0, 900.0, 300.0, 1000.0];
        let v = w.view();
        let (free, waiting) = (vec![0usize, 1], vec![0usize, 1, 2, 3]);
        let p = |j: usize, t: usize| w.remaining[j] / thr[j][t];
        // Best total: each GPU runs its jobs shortest first.
        let mut best = f64::INFINITY;
        for mask in 0..16u32 {
            let mut total = 0.0;
            for t in 0..2 {
                let mut ps: Vec<f64> = (0..4)
                    .filter(|&j| ((mask >> j) & 1) as usize == t)
                    .map(|j| p(j, t))
                    .collect();
                crate::order::sort_floats(&mut ps);
                let mut clock = 0.0;
                for q in ps {
                    clock += q;
                    total += clock;
                }
            }
            best = best.min(total);
        }
        let heads = Allox::heads(&v, &waiting, &free).unwrap();
        assert_eq!(heads.len(), 2);
        // The matching heads() makes must reach `best`, and each head is the job that runs
        // first on its GPU, which in an optimal queue is the shortest.
        let a = hungarian::assign_positions(4, 2, p).unwrap();
        let got: f64 = a
            .iter()
            .enumerate()
            .map(|(i, &(w, b))| (b + 1) as f64 * p(i, w))
            .sum();
        assert!((got - best).abs() < 1e-9, "{got} vs {best}");
        for &(j, t) in &heads {
            let on_t: Vec<usize> = (0..4).filter(|&i| a[i].0 == t).collect();
            assert!(on_t.contains(&j));
            assert!(on_t.iter().all(|&i| p(j, t) <= p(i, t)), "{heads:?} {a:?}");
        }
    }

    #[test]
    fn multi_gpu_jobs_get_no_share() {
        // Two GPUs, a 2-GPU job and a single-GPU one: only the latter is matched.
        let w = World::new("a:2", &[(2, &[1.0]), (1, &[1.0])]);
        let mut p = Allox::new("allox", 1.0);
        let x = rows(p.decide(&w.view(), &mut Rng::new(0)).unwrap());
        assert_eq!(x, vec![vec![0.0], vec![1.0]]);
    }
}
