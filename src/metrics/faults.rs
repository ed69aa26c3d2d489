//! What failures and checkpoints cost a run: server failures by category, interruptions,
//! each job's effective training time ratio (ETTR) and the GPU-hours lost by cause.

use super::records::JobRecord;
use super::Recorder;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the recorder keeps of failures and checkpoints.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FaultRecord {
    /// Whether the run had failures or checkpoints configured (the figures are reported).
    pub on: bool,
    /// Server failures, in time order: (time, server, category).
    pub failures: Vec<(f64, u32, String)>,
    /// In a GPU domain, the failures of one GPU: (index in `failures`, the GPU's index in
    /// its server).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_gpus: Vec<(usize, u32)>,
    /// Interruptions of jobs by failures, in time order: (time, job).
    pub interruptions: Vec<(f64, usize)>,
    /// Jobs stopped by spot instances taken back, in time order: (time, job).
    #[serde(default)]
    pub spot_preemptions: Vec<(f64, usize)>,
    /// Per GPU type: whether its capacity follows a spot trace.
    #[serde(default)]
    pub spot_types: Vec<bool>,
    /// Per GPU type: dollars of its GPU time at its spot trace's prices (types whose trace
    /// has them).
    #[serde(default)]
    pub spot_priced: Vec<Option<f64>>,
    /// Per GPU type: its spot trace when it has prices, and GPUs per instance.
    #[serde(skip)]
    pub prices: Vec<Option<(std::sync::Arc<crate::model::spot::CapacityTrace>, u32)>>,
}

impl FaultRecord {
    /// Record the spot types of a run on `cluster` (`spot`: type index and trace).
    pub fn set_spot(
        &mut self,
        spot: &[(usize, std::sync::Arc<crate::model::spot::CapacityTrace>)],
        cluster: &crate::model::cluster::ClusterSpec,
    ) {
        let n = cluster.types.len();
        self.spot_types = vec![false; n];
        self.spot_priced = vec![None; n];
        self.prices = vec![None; n];
        for (t, trace) in spot {
            if *t >= n {
                continue;
            }
            self.spot_types[*t] = true;
            if trace.prices.is_some() {
                self.spot_priced[*t] = Some(0.0);
                self.prices[*t] = Some((trace.clone(), cluster.types[*t].per_server.max(1)));
            }
        }
    }

    /// `gpus` GPUs of type `ty` held from `start` to `end` (charged `share` of them).
    pub fn charge(&mut self, ty: usize, gpus: u32, (start, end): (f64, f64), share: f64) {
        let Some(Some((trace, per))) = self.prices.get(ty) else {
            return;
        };
        let cost = trace.cost_between(start, end).unwrap_or(0.0) * f64::from(gpus) * share
            / f64::from(*per);
        if let Some(Some(c)) = self.spot_priced.get_mut(ty) {
            *c += cost;
        }
    }
}

/// GPU-hours lost, by cause.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LostGpuHours {
    /// Computation taken back by failures (the work since the last checkpoint).
    pub rolled_back: f64,
    /// Restarts: GPUs held while jobs start again (every start and restart).
    pub restarts: f64,
    /// Blocking checkpoint writes.
    pub checkpoints: f64,
    /// Computation taken back by spot preemptions (the work since the last checkpoint, or
    /// only a write's work after a warning the write fits in).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub preempted: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// Failure and checkpoint figures of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FaultFigures {
    /// Server failures.
    pub server_failures: u64,
    /// Server failures by cause category.
    pub failures_by_category: BTreeMap<String, u64>,
    /// Interruptions of measured jobs by server failures.
    pub interruptions: u64,
    /// Measured jobs stopped by spot instances taken back.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub spot_preemptions: u64,
    /// Mean over measured jobs that started of productive time over wall time from their
    /// first start to their end (or the end of the run): productive time is computation
    /// kept, without restarts, checkpoint writes, rolled-back work or waiting.
    pub ettr: Option<f64>,
    /// GPU-hours lost by cause.
    pub lost_gpu_hours: LostGpuHours,
}

impl Recorder {
    /// A job's effective training time ratio, if it started.
    pub fn ettr(&self, r: &JobRecord) -> Option<f64> {
        let start = r.first_start?;
        let end = r.finish.unwrap_or(self.end_time);
        let wall = end - start;
        let productive = (r.train_s - r.checkpoint_s - r.lost_s).max(0.0);
        (wall > 0.0).then(|| (productive / wall).min(1.0))
    }

    /// Failure and checkpoint figures (None for runs without them).
    pub(super) fn fault_figures(&self, jobs: &[&JobRecord]) -> Option<FaultFigures> {
        if !self.faults.on {
            return None;
        }
        let mut by_category = BTreeMap::new();
        for (_, _, c) in &self.faults.failures {
            *by_category.entry(c.clone()).or_insert(0) += 1;
        }
        let ettrs: Vec<f64> = jobs.iter().filter_map(|r| self.ettr(r)).collect();
        Some(FaultFigures {
            server_failures: self.faults.failures.len() as u64,
            failures_by_category: by_category,
            interruptions: jobs.iter().map(|r| u64::from(r.interruptions)).sum(),
            spot_preemptions: jobs.iter().map(|r| u64::from(r.spot_preemptions)).sum(),
            ettr: (!ettrs.is_empty()).then(|| super::mean(&ettrs)),
            lost_gpu_hours: LostGpuHours {
                rolled_back: jobs.iter().map(|r| r.lost_gpu_s).sum::<f64>() / 3600.0,
                restarts: jobs.iter().map(|r| r.overhead_gpu_s).sum::<f64>() / 3600.0,
                checkpoints: jobs.iter().map(|r| r.checkpoint_gpu_s).sum::<f64>() / 3600.0,
                preempted: jobs.iter().map(|r| r.preempted_gpu_s).sum::<f64>() / 3600.0,
            },
        })
    }
}
