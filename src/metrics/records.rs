//! What the recorder keeps: per-job records, suspensions, resizes, the per-round series,
//! and what slot and pooled runs add.

use crate::model::job::JobId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the recorder knows about one job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobRecord {
    /// Job id.
    pub id: JobId,
    /// Arrival (s).
    pub arrival: f64,
    /// First time it ran (s).
    pub first_start: Option<f64>,
    /// Completion (s).
    pub finish: Option<f64>,
    /// Given up on.
    pub dropped: bool,
    /// Restarts (placement changes).
    pub restarts: u32,
    /// Preemptions.
    pub preemptions: u32,
    /// GPU-seconds held, per type (half of a pair's when sharing GPUs with another job).
    pub gpu_seconds: Vec<f64>,
    /// Elastic jobs: every change of GPU count or batch size, in time order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resizes: Vec<ResizePoint>,
    /// Seconds of training: its slices minus their overheads, summed over its `Ran` events
    /// (a pooled job on both pools at once counts both; a job sharing GPUs counts the pair's
    /// slice).
    #[serde(default)]
    pub train_s: f64,
    /// Seconds it held GPUs without progress (restarts, checkpoints, reloads).
    #[serde(default)]
    pub overhead_s: f64,
    /// The policy's prediction of its training time (s), if the policy made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_s: Option<f64>,
    /// GPU-seconds held without progress at starts and restarts (overheads times GPUs).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub overhead_gpu_s: f64,
    /// Times a server failure stopped it.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub interruptions: u32,
    /// Times a spot instance it ran on was taken back.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub spot_preemptions: u32,
    /// GPU-seconds of computation spot preemptions took back.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub preempted_gpu_s: f64,
    /// Seconds of computation failures and spot preemptions took back.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost_s: f64,
    /// GPU-seconds of computation failures took back.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost_gpu_s: f64,
    /// Seconds of blocking checkpoint writes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checkpoint_s: f64,
    /// GPU-seconds of blocking checkpoint writes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checkpoint_gpu_s: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// One suspension of a preemptive run, from the decision to the job's resumption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuspensionRecord {
    /// The suspended job.
    pub job: JobId,
    /// The waiting job its GPUs went to.
    pub for_job: JobId,
    /// Decision time (s).
    pub decided: f64,
    /// Seconds to the end of its epoch.
    pub drain_s: f64,
    /// Seconds writing its checkpoint.
    pub save_s: f64,
    /// When its GPUs were free (s).
    pub released: Option<f64>,
    /// It finished before its epoch ended (no checkpoint, no resumption).
    pub finished_instead: bool,
    /// When it started again (s).
    pub resumed: Option<f64>,
    /// Seconds reloading when it started again.
    pub reload_s: Option<f64>,
    /// The overhead model's time lost (drain, checkpoint, reload), s.
    pub modelled_s: f64,
    /// The policy's predicted time lost (s), if it predicted one.
    pub predicted_s: Option<f64>,
}

impl SuspensionRecord {
    /// Seconds actually lost: from the decision to free GPUs, plus the reload (None while
    /// not yet resumed, unless it finished instead).
    pub fn lost_s(&self) -> Option<f64> {
        let released = self.released?;
        let suspend = released - self.decided;
        if self.finished_instead {
            return Some(suspend);
        }
        Some(suspend + self.reload_s?)
    }
}

/// What a preemptive run recorded about suspensions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuspensionLog {
    /// The run was preemptive (figures are reported even with no suspension).
    pub enabled: bool,
    /// Every suspension, in decision order.
    pub suspensions: Vec<SuspensionRecord>,
    /// Index of each job's latest suspension.
    #[serde(skip)]
    pub(super) open: BTreeMap<JobId, usize>,
}

/// An elastic job's configuration from a time on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ResizePoint {
    /// From this time (s).
    pub time: f64,
    /// GPUs held.
    pub gpus: u32,
    /// Servers spanned.
    pub nodes: u32,
    /// Total batch size.
    pub batch_size: u32,
}

impl JobRecord {
    /// Job completion time (s), if finished.
    pub fn jct(&self) -> Option<f64> {
        self.finish.map(|f| f - self.arrival)
    }
}

/// One point of the per-round series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Round start (s).
    pub start: f64,
    /// Round end (s).
    pub end: f64,
    /// Active (admitted, unfinished) jobs.
    pub active: usize,
    /// Jobs that ran.
    pub running: usize,
    /// Busy GPUs per type.
    pub busy_gpus: Vec<u32>,
}

/// What a slot (DL2) run recorded, summed over its slots.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PsRecord {
    /// Slots simulated.
    pub slots: u64,
    /// Reward of every slot, in order.
    pub rewards: Vec<f64>,
    /// Policy actions applied.
    pub actions: u64,
    /// Policy actions that could not be applied.
    pub invalid_actions: u64,
    /// Changes of a job's workers or parameter servers.
    pub reallocations: u64,
    /// Most workers any job held.
    pub max_workers: u32,
    /// Most parameter servers any job held.
    pub max_ps: u32,
    /// Workers x seconds of jobs that trained.
    pub worker_s: f64,
    /// Parameter servers x seconds of jobs that trained.
    pub ps_s: f64,
    /// Seconds jobs trained.
    pub job_s: f64,
    /// CPUs held by training jobs x slot seconds.
    pub busy_cpu_s: f64,
    /// CPUs of the cluster x slot seconds.
    pub total_cpu_s: f64,
}

/// The inference pool of a pooled (Aryl) run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoolRecord {
    /// Servers loaned, summed over loans.
    pub loans: u64,
    /// Servers reclaimed, summed over reclaims.
    pub reclaims: u64,
    /// Demand and loans per tick.
    pub series: Vec<PoolPoint>,
}

/// The inference pool at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PoolPoint {
    /// Time (s).
    pub time: f64,
    /// Inference servers needed.
    pub demand: u32,
    /// Inference servers loaned to training.
    pub loaned: u32,
}

impl SuspensionLog {
    pub(super) fn open_mut(&mut self, job: JobId) -> Option<&mut SuspensionRecord> {
        let i = *self.open.get(&job)?;
        self.suspensions.get_mut(i)
    }
}
