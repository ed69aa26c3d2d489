//! Tetris's multi-resource packing as DL2 compares with it (its simulator's tetris_env):
//! servers are filled one at a time in index order. On a server, every active job scores
//! `align + weight x resr`, where `align` is the dot product of the server's free slots
//! (CPUs and GPU slots, a GPU counting as many slots as the server has CPUs per GPU) with
//! the job's bundle (a worker and a parameter server), `resr` is the bundle's slots times
//! the fraction of the job's work left, and `weight` is the mean `align` over the mean
//! `resr`. The best-scoring job below the worker cap (ties to the lower id) gets a bundle on
//! that server; scores are computed again, until the best job's bundle does not fit there,
//! and then the next server is filled. A server where `weight` is 0 is passed over.
//!
//! As in DL2's code, the work-left term raises a job's score: this Tetris favours jobs with
//! more work left, and a job keeps winning its server until it holds the cap of bundles.

use crate::model::job::JobId;
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotServer, SlotView};

/// The Tetris policy.
#[derive(Debug, Clone)]
pub struct Tetris {
    name: String,
    /// The slot the cursor belongs to.
    slot: Option<u64>,
    /// The server being filled.
    cursor: usize,
}

impl Tetris {
    /// Build from a spec.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        Ok(Box::new(Tetris {
            name: p.spec().to_string(),
            slot: None,
            cursor: 0,
        }))
    }

    /// The job that gets server `s`'s next bundle, if its bundle fits there (None: the
    /// server is done).
    fn pick(view: &SlotView, server: &SlotServer, s: usize) -> Option<JobId> {
        if view.active.is_empty() {
            return None;
        }
        let per_gpu = if server.gpus > 0 {
            f64::from(server.cpus) / f64::from(server.gpus)
        } else {
            0.0
        };
        let free_cpu = f64::from(server.free_cpus);
        let free_gpu = per_gpu * f64::from(server.free_gpus);
        let mut ids: Vec<JobId> = view.active.to_vec();
        ids.sort_unstable();
        let mut scored = Vec::with_capacity(ids.len());
        let (mut align_sum, mut resr_sum) = (0.0, 0.0);
        for &id in &ids {
            let (Some(j), Some(m)) = (view.jobs.get(id), view.model(id)) else {
                continue;
            };
            let cpu = f64::from(m.worker_cpus + m.ps_cpus);
            let gpu = per_gpu * f64::from(m.worker_gpus);
            let resr = (cpu + gpu) * (1.0 - j.progress / j.total);
            let align = free_cpu * cpu + free_gpu * gpu;
            align_sum += align;
            resr_sum += resr;
            scored.push((id, align, resr));
        }
        let n = scored.len() as f64;
        let weight = (align_sum / n) / (resr_sum / n);
        if weight == 0.0 {
            return None;
        }
        let mut ranked: Vec<(f64, JobId)> = scored
            .iter()
            .map(|&(id, align, resr)| (align + weight * resr, id))
            .collect();
        crate::order::sort_by(&mut ranked, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, id) in ranked {
            if view.jobs[id].workers >= view.max_workers {
                continue;
            }
            return view.can(SlotAction::AddBothOn(id, s)).then_some(id);
        }
        None
    }
}

impl SlotPolicy for Tetris {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SlotView, _rng: &mut Rng) -> SlotAction {
        if self.slot != Some(view.slot) {
            self.slot = Some(view.slot);
            self.cursor = 0;
        }
        while let Some(server) = view.servers.get(self.cursor) {
            if let Some(id) = Self::pick(view, server, self.cursor) {
                return SlotAction::AddBothOn(id, self.cursor);
            }
            self.cursor += 1;
        }
        SlotAction::Stop
    }
}
