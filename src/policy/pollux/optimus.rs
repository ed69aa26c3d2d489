//! Optimus+Oracle (Peng et al., EuroSys'18) as Pollux's evaluation ran it. Batch sizes stay
//! as the users chose them. Every tick each active job first gets one GPU (in submission
//! order, while GPUs last); then GPUs go one at a time to the job whose predicted remaining
//! time drops most: (step time on r GPUs - step time on r + 1) x remaining iterations,
//! with step times from the measurements themselves (the oracle) on an ideally packed
//! placement. A job keeps its servers if its GPU count did not change; the others are
//! placed on the servers with the most free GPUs, smallest jobs first.

use super::{free_map, place_most_free, ElasticPolicy, ElasticView};
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::workload::ElasticApp;

/// The Optimus+Oracle policy.
#[derive(Debug, Clone)]
pub struct Optimus {
    name: String,
}

impl Optimus {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
        Ok(Box::new(Optimus {
            name: p.spec().to_string(),
        }))
    }
}

/// Predicted seconds per optimiser step of `app` at total batch `batch` on `r` GPUs packed
/// onto servers of `per_node`, accumulation included.
pub fn predict_step_time(app: &ElasticApp, batch: u32, r: u32, per_node: u32) -> Option<f64> {
    if r == 0 || per_node == 0 {
        return None;
    }
    let placement = crate::workload::elastic::packed_placement(r, per_node);
    let rf = f64::from(r);
    let local = (f64::from(batch) / rf - 1e-8).ceil();
    let mut accum = ((local / f64::from(app.max_local_bsz) - 1e-8).ceil() - 1.0).max(0.0);
    if r == 1 {
        accum = accum.max(1.0);
    }
    let atomic = (local / (accum + 1.0) - 1e-8)
        .ceil()
        .min((f64::from(app.max_batch_size) / (rf * (accum + 1.0))).floor())
        .max(1.0);
    let (step, sync) = app.step_time(&placement, atomic as u32)?;
    Some(step + (step - sync) * accum)
}

impl ElasticPolicy for Optimus {
    fn name(&self) -> &str {
        &self.name
    }

    fn adapts_batch(&self) -> bool {
        false
    }

    fn decide(&mut self, view: &ElasticView, _rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError> {
        let n = view.jobs.len();
        let per_node = view.gpus_per_node;
        let mut free = view.total_gpus();
        let mut replicas = vec![0u32; n];
        let mut gain = vec![0.0f64; n];
        let info: Vec<(u32, u32, f64)> = view
            .jobs
            .iter()
            .map(|j| {
                let batch = j.state.target_batch.unwrap_or(j.app.init_batch_size);
                let max_r = j
                    .app
                    .max_replicas
                    .unwrap_or(batch / j.app.min_local_bsz.max(1))
                    .max(1);
                let ce = j.app.max_epochs.saturating_sub(1);
                let remaining = if ce <= j.state.epoch {
                    1.0
                } else {
                    j.app.iteration(f64::from(batch), ce)
                        - j.app.iteration(f64::from(batch), j.state.epoch)
                };
                (batch, max_r, remaining)
            })
            .collect();
        let gain_of = |i: usize, r: u32, free: u32| -> f64 {
            let (batch, max_r, remaining) = info[i];
            if r + 1 > max_r || free < 1 {
                return 0.0;
            }
            let app = view.jobs[i].app;
            match (
                predict_step_time(app, batch, r, per_node),
                predict_step_time(app, batch, r + 1, per_node),
            ) {
                (Some(a), Some(b)) if (a - b).is_finite() => (a - b) * remaining,
                _ => 0.0,
            }
        };
        for i in 0..n {
            if free < 1 {
                continue;
            }
            replicas[i] = 1;
            free -= 1;
            gain[i] = gain_of(i, 1, free);
        }
        while free > 0 {
            let mut best: Option<usize> = None;
            for i in 0..n {
                if gain[i] > 0.0 && best.is_none_or(|b| gain[i] > gain[b]) {
                    best = Some(i);
                }
            }
            let Some(j) = best else { break };
            replicas[j] += 1;
            gain[j] = gain_of(j, replicas[j], free);
            free -= 1;
        }
        let mut alloc: Vec<Vec<u32>> = view
            .jobs
            .iter()
            .zip(&replicas)
            .map(|(j, &r)| {
                if j.state.allocation.len() == r as usize {
                    j.state.allocation.clone()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut free_gpus = free_map(view, &alloc);
        let mut order: Vec<usize> = (0..n).collect();
        crate::order::sort_by_key(&mut order, |&i| replicas[i]);
        for i in order {
            if replicas[i] > 0 && alloc[i].len() != replicas[i] as usize {
                alloc[i] = place_most_free(&mut free_gpus, replicas[i]);
            }
        }
        Ok(alloc)
    }
}
