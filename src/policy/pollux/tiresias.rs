//! Tiresias (Gu et al., NSDI'19) as Pollux's evaluation ran it: two queues of discretised
//! least attained service. Each job runs with the GPU count and batch size its user chose,
//! all or nothing. A running job's attained service is wall time x GPUs since it started;
//! past the threshold (16 GPU-hours) it moves to the back of the second queue. Every tick
//! the queues are walked in order and a job runs if its GPUs still fit (smaller jobs may
//! pass a big one that does not); running jobs keep their servers, and new ones take GPUs
//! from the servers with the most free GPUs. There is no starvation handling.

use super::{free_map, place_most_free, ElasticPolicy, ElasticView};
use crate::model::job::JobId;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::PolicyError;
use crate::rng::Rng;
use std::collections::BTreeMap;

/// Parameters of Tiresias.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "threshold_gpu_h",
    default: "16",
    help: "attained service (GPU-hours) at which a job moves to the second queue",
}];

#[derive(Debug, Clone, Default)]
struct JobBook {
    running: bool,
    last_check: f64,
    executed: f64,
}

/// The Tiresias policy for elastic workloads.
#[derive(Debug, Clone)]
pub struct Tiresias {
    name: String,
    threshold_gpu_s: f64,
    queues: [Vec<JobId>; 2],
    book: BTreeMap<JobId, JobBook>,
}

impl Tiresias {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
        Ok(Box::new(Tiresias {
            name: p.spec().to_string(),
            threshold_gpu_s: p.f64("threshold_gpu_h", 16.0, 1e-6, 1e9)? * 3600.0,
            queues: [Vec::new(), Vec::new()],
            book: BTreeMap::new(),
        }))
    }
}

impl ElasticPolicy for Tiresias {
    fn name(&self) -> &str {
        &self.name
    }

    fn adapts_batch(&self) -> bool {
        false
    }

    fn decide(&mut self, view: &ElasticView, _rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError> {
        let now = view.now.floor();
        let active: BTreeMap<JobId, usize> = view
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.id, i))
            .collect();
        for q in &mut self.queues {
            q.retain(|j| active.contains_key(j));
        }
        self.book.retain(|j, _| active.contains_key(j));
        for j in &view.jobs {
            if let std::collections::btree_map::Entry::Vacant(e) = self.book.entry(j.id) {
                e.insert(JobBook::default());
                self.queues[0].push(j.id);
            }
        }
        for j in &view.jobs {
            let replicas = f64::from(j.spec.scale_factor);
            let Some(b) = self.book.get_mut(&j.id) else {
                continue;
            };
            if b.running {
                b.executed += now - b.last_check;
                b.last_check = now;
                if b.executed * replicas >= self.threshold_gpu_s {
                    if let Some(pos) = self.queues[0].iter().position(|&x| x == j.id) {
                        self.queues[0].remove(pos);
                        self.queues[1].push(j.id);
                    }
                }
            } else {
                b.last_check = now;
            }
        }
        let mut alloc: Vec<Vec<u32>> = view
            .jobs
            .iter()
            .map(|j| j.state.allocation.clone())
            .collect();
        let mut free = view.total_gpus();
        for q in &self.queues {
            for id in q {
                let (Some(&i), Some(b)) = (active.get(id), self.book.get_mut(id)) else {
                    continue;
                };
                let want = view.jobs[i].spec.scale_factor;
                if want <= free {
                    b.running = true;
                    free -= want;
                } else {
                    b.running = false;
                    alloc[i].clear();
                }
            }
        }
        let mut free_gpus = free_map(view, &alloc);
        for q in &self.queues {
            for id in q {
                let (Some(&i), Some(b)) = (active.get(id), self.book.get(id)) else {
                    continue;
                };
                if b.running && alloc[i].is_empty() {
                    alloc[i] = place_most_free(&mut free_gpus, view.jobs[i].spec.scale_factor);
                }
            }
        }
        Ok(alloc)
    }
}
