//! Pollux with goodput per GPU type (`pollux[per_type=true]`), the heterogeneity-aware form
//! Sia's evaluation sets beside Pollux as published.
//!
//! On a cluster of one type it is Pollux. On several, every interval:
//! 1. each job is given one GPU type: a running job keeps its own; the others, in Pollux's
//!    priority order (least attained service first), go to the type where their
//!    application's single-GPU speed (from its profile) times the type's GPUs over the
//!    jobs already given to it (plus one) is highest, ties to the earlier type;
//! 2. each type runs Pollux's own search over its servers and its jobs, with each job's
//!    throughput model fitted to the step times it has seen on that type only, and at most
//!    twice the GPUs it has run on there (so a job new to a type starts small, as Sia's
//!    jobs do);
//! 3. jobs pick their batch size with the model of the type they run on.
//!
//! Each type keeps its own search state (warm-start front and memoised speedups).

use super::scheduler::Pollux;
use super::{ElasticJobView, ElasticPolicy, ElasticView};
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::elastic::ElasticJobState;
use crate::workload::rigid::rigid_rate_on;

/// Pollux run once per GPU type.
#[derive(Debug, Clone)]
pub struct PerType {
    template: Pollux,
    searches: Vec<Pollux>,
}

impl PerType {
    /// Per-type searches, each a copy of `pollux`.
    pub fn new(pollux: Pollux) -> Self {
        PerType {
            template: pollux,
            searches: Vec::new(),
        }
    }
}

/// The servers of each type: (first server, servers), from the servers' types.
fn type_ranges(node_types: &[usize], types: usize) -> Vec<(usize, usize)> {
    let mut out = vec![(0, 0); types];
    for (n, &t) in node_types.iter().enumerate() {
        if let Some(r) = out.get_mut(t) {
            if r.1 == 0 {
                r.0 = n;
            }
            r.1 += 1;
        }
    }
    out
}

/// Job `j`'s speed on one GPU of type `name` (progress per second at its initial batch,
/// from its application's profile; a rigid job's on its own GPUs), 0 where the profile
/// cannot say.
fn single_gpu_speed(j: &ElasticJobView, name: &str) -> f64 {
    if let Some(r) = j.app.rigid() {
        // A rigid job runs at its own count only: its speed there ranks the types.
        return r.rate(name);
    }
    let key = j.app.knows_type(name).then_some(name);
    rigid_rate_on(j.app, key, 1, 1, None).unwrap_or(0.0)
}

impl ElasticPolicy for PerType {
    fn name(&self) -> &str {
        self.template.name()
    }

    fn adapts_batch(&self) -> bool {
        true
    }

    fn per_type_models(&self) -> bool {
        true
    }

    fn decide(&mut self, view: &ElasticView, rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError> {
        let types = view.gpu_types.len();
        if types <= 1 {
            return self.template.decide(view, rng);
        }
        if self.searches.len() != types {
            self.searches = vec![self.template.clone(); types];
        }
        let ranges = type_ranges(view.node_types, types);
        let type_of = |node: u32| view.node_types.get(node as usize).copied();
        let n = view.jobs.len();
        // 1. A type for every job.
        let mut assign: Vec<Option<usize>> = vec![None; n];
        let mut load = vec![0.0f64; types];
        for (i, j) in view.jobs.iter().enumerate() {
            if let Some(t) = j.state.allocation.first().and_then(|&v| type_of(v)) {
                assign[i] = Some(t);
                load[t] += 1.0;
            }
        }
        let mut waiting: Vec<usize> = (0..n).filter(|&i| assign[i].is_none()).collect();
        super::scheduler::by_priority(view, &mut waiting);
        for i in waiting {
            let j = &view.jobs[i];
            let mut best: Option<(usize, f64)> = None;
            for (t, name) in view.gpu_types.iter().enumerate() {
                let gpus = ranges[t].1 as f64 * f64::from(view.gpus_per_node);
                let score = single_gpu_speed(j, name) * gpus / (load[t] + 1.0);
                if score > 0.0 && best.is_none_or(|b| score > b.1) {
                    best = Some((t, score));
                }
            }
            if let Some((t, _)) = best {
                assign[i] = Some(t);
                load[t] += 1.0;
            }
        }
        // 2. One search per type.
        let mut out = vec![Vec::new(); n];
        for (t, &(first, count)) in ranges.iter().enumerate() {
            let idx: Vec<usize> = (0..n).filter(|&i| assign[i] == Some(t)).collect();
            if idx.is_empty() || count == 0 {
                continue;
            }
            let first = first as u32;
            let states: Vec<ElasticJobState> = idx
                .iter()
                .map(|&i| {
                    let mut s = view.jobs[i].state.clone();
                    let (obs, perf) = s.type_models.get(t).cloned().unwrap_or_default();
                    s.observations = obs;
                    s.perf = perf;
                    s.allocation = s
                        .allocation
                        .iter()
                        .filter(|&&v| type_of(v) == Some(t))
                        .map(|&v| v - first)
                        .collect();
                    s
                })
                .collect();
            let zeros = vec![0usize; count];
            let servers = &view.node_servers[first as usize..first as usize + count];
            let sub = ElasticView {
                now: view.now,
                num_nodes: count as u32,
                gpus_per_node: view.gpus_per_node,
                node_types: &zeros,
                node_servers: servers,
                gpu_types: &view.gpu_types[t..=t],
                restart_s: view.restart_s,
                jobs: idx
                    .iter()
                    .zip(&states)
                    .map(|(&i, s)| ElasticJobView {
                        state: s,
                        ..view.jobs[i].clone()
                    })
                    .collect(),
            };
            let allocs = self.searches[t].decide(&sub, rng)?;
            for (&i, a) in idx.iter().zip(allocs) {
                out[i] = a.into_iter().map(|v| v + first).collect();
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_contiguous_types() {
        assert_eq!(
            type_ranges(&[0, 0, 1, 1, 1, 2], 3),
            [(0, 2), (2, 3), (5, 1)]
        );
        assert_eq!(type_ranges(&[0, 0], 2), [(0, 2), (0, 0)]);
    }
}
