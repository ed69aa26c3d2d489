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
    /// Interruptions of jobs, in time order: (time, job).
    pub interruptions: Vec<(f64, usize)>,
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
}

/// Failure and checkpoint figures of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FaultFigures {
    /// Server failures.
    pub server_failures: u64,
    /// Server failures by cause category.
    pub failures_by_category: BTreeMap<String, u64>,
    /// Interruptions of measured jobs.
    pub interruptions: u64,
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
            ettr: (!ettrs.is_empty()).then(|| super::mean(&ettrs)),
            lost_gpu_hours: LostGpuHours {
                rolled_back: jobs.iter().map(|r| r.lost_gpu_s).sum::<f64>() / 3600.0,
                restarts: jobs.iter().map(|r| r.overhead_gpu_s).sum::<f64>() / 3600.0,
                checkpoints: jobs.iter().map(|r| r.checkpoint_gpu_s).sum::<f64>() / 3600.0,
            },
        })
    }
}
