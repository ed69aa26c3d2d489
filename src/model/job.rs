//! Jobs: the immutable description from a trace ([`JobSpec`]) and the simulator's
//! per-job state ([`JobState`]).

use crate::model::cluster::TypeIdx;
use serde::{Deserialize, Serialize};

/// Identifier of a job: its position in the trace (0-based).
pub type JobId = usize;

/// A job as a trace describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    /// Job type (model and batch size); the key into the throughput profile.
    pub job_type: String,
    /// Arrival time in seconds.
    #[serde(rename = "arrival_s")]
    pub arrival: f64,
    /// Total work in training steps (iterations).
    pub total_steps: f64,
    /// GPUs the job needs at once (gang-scheduled on one GPU type).
    #[serde(default = "one_u32")]
    pub scale_factor: u32,
    /// Priority weight (larger = more important).
    #[serde(default = "one_f64")]
    pub priority_weight: f64,
    /// Service-level objective: a deadline in seconds after arrival.
    #[serde(default, rename = "slo_s", skip_serializing_if = "Option::is_none")]
    pub slo: Option<f64>,
    /// Steps per epoch, for policies that model epochs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch_steps: Option<f64>,
    /// Smallest GPU count an elastic job accepts (defaults to `scale_factor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_gpus: Option<u32>,
    /// Largest GPU count an elastic job can use (defaults to `scale_factor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_gpus: Option<u32>,
    /// Batch size chosen by the user, for policies that keep it fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u32>,
    /// The entity (user, team) the job belongs to, for hierarchical policies; jobs
    /// without one form the entity [`DEFAULT_ENTITY`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// Seconds without progress each time the job starts or its GPUs change, when the
    /// experiment's restart model gives its type a delay of its own (Sia's per-application
    /// delays); otherwise the experiment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_s: Option<f64>,
    /// Seconds each periodic checkpoint write blocks it, when its type's profile entry gives
    /// one; otherwise the experiment's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_write_s: Option<f64>,
    /// A spot job (Alibaba's `Spot` job type): it runs on capacity that high-priority jobs
    /// leave free and is preempted first when they need it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spot: bool,
}

/// The entity of jobs that name none.
pub const DEFAULT_ENTITY: &str = "default";

fn one_u32() -> u32 {
    1
}
fn one_f64() -> f64 {
    1.0
}

impl JobSpec {
    /// A single-GPU job of `job_type` arriving at `arrival` with `total_steps` of work.
    pub fn new(job_type: impl Into<String>, arrival: f64, total_steps: f64) -> Self {
        JobSpec {
            job_type: job_type.into(),
            arrival,
            total_steps,
            scale_factor: 1,
            priority_weight: 1.0,
            slo: None,
            epoch_steps: None,
            min_gpus: None,
            max_gpus: None,
            batch_size: None,
            entity: None,
            restart_s: None,
            checkpoint_write_s: None,
            spot: false,
        }
    }

    /// The job's entity ([`DEFAULT_ENTITY`] when it names none).
    pub fn entity(&self) -> &str {
        self.entity.as_deref().unwrap_or(DEFAULT_ENTITY)
    }

    /// Set the scale factor (builder style).
    pub fn with_scale(mut self, scale: u32) -> Self {
        self.scale_factor = scale;
        self
    }
}

/// Where a job runs during a round.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Placement {
    /// The GPU type.
    pub gpu_type: TypeIdx,
    /// Indices of the GPUs within that type (0-based), sorted.
    pub gpus: GpuIds,
}

impl PartialEq for Placement {
    fn eq(&self, other: &Self) -> bool {
        self.gpu_type == other.gpu_type && self.gpus == other.gpus
    }
}

impl Eq for Placement {}

pub use super::gpu_ids::GpuIds;

/// What the simulator knows about a job as it runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobState {
    /// Admitted into the active set (at a round boundary after arrival).
    pub admitted: bool,
    /// Steps completed so far.
    pub steps_done: f64,
    /// Time the job finished, if it has.
    pub finish_time: Option<f64>,
    /// Time it first ran, if it has.
    pub first_start: Option<f64>,
    /// GPU-seconds of service received so far (GPUs x seconds).
    pub attained_service: f64,
    /// Wall-clock seconds run so far on each GPU type.
    pub time_on_type: Vec<f64>,
    /// Rounds the job ran in.
    pub rounds_run: u64,
    /// Times the job's placement changed while it had run before (restarts).
    pub restarts: u32,
    /// Times the job was running and was then stopped while unfinished.
    pub preemptions: u32,
    /// Its placement in the last round it ran, if any.
    pub last_placement: Option<Placement>,
    /// Seconds of a restart delay still to pay (a delay longer than a round carries on).
    pub restart_left: f64,
    /// Whether it ran in the previous round.
    pub ran_last_round: bool,
}

impl JobState {
    /// A fresh state for a cluster of `num_types` GPU types.
    pub fn new(num_types: usize) -> Self {
        JobState {
            time_on_type: vec![0.0; num_types],
            ..Default::default()
        }
    }

    /// Whether the job has finished.
    pub fn is_done(&self) -> bool {
        self.finish_time.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_are_equal_on_one_type_and_the_same_gpus() {
        let p = |ids: &[u32], t| Placement {
            gpu_type: t,
            gpus: ids.iter().copied().collect(),
        };
        assert_eq!(p(&[1, 2], 0), p(&[1, 2], 0));
        assert_ne!(p(&[1, 2], 0), p(&[1, 2], 1));
        assert_ne!(p(&[1, 2], 0), p(&[1, 3], 0));
    }
}
