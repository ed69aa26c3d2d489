//! The contract of PickyMan's events: the [`PreemptivePolicy`] trait its policies implement,
//! what a policy sees at an event ([`PreemptView`]) and what it decides ([`PreemptPlan`]).

use super::PreemptJob;
use crate::model::job::{JobId, JobSpec};
use crate::model::restart::RestartModel;
use crate::rng::Rng;
use crate::workload::Profile;

/// A suspension the policy asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Suspension {
    /// The running job to suspend.
    pub victim: JobId,
    /// The waiting job its GPUs go to.
    pub for_job: JobId,
    /// The time the policy expects to lose (s), if it predicts one.
    pub predicted_s: Option<f64>,
}

/// What a preemptive policy decides at an event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreemptPlan {
    /// Waiting jobs to start now, in order, on free GPUs (skipped if they do not fit).
    pub start: Vec<JobId>,
    /// Running jobs to suspend.
    pub suspend: Vec<Suspension>,
    /// Predicted execution times (s on its GPUs, without overheads) of jobs, for the
    /// record; a policy gives each job's once.
    pub predictions: Vec<(JobId, f64)>,
}

/// What a preemptive policy sees.
#[derive(Debug)]
pub struct PreemptView<'a> {
    /// Time (s).
    pub now: f64,
    /// GPUs of the cluster.
    pub total_gpus: u32,
    /// GPUs neither held nor kept for a waiting job.
    pub free_gpus: u32,
    /// GPUs of each type.
    pub total_by_type: &'a [u32],
    /// Free GPUs of each type.
    pub free_by_type: &'a [u32],
    /// Every job, by id.
    pub jobs: &'a [PreemptJob],
    /// Their trace entries.
    pub specs: &'a [JobSpec],
    /// Waiting jobs in arrival order (with those waiting for their victims).
    pub waiting: Vec<JobId>,
    /// Running jobs (training, not suspended), by id.
    pub running: Vec<JobId>,
    /// Jobs that have arrived and are not done, by id.
    pub live: &'a [JobId],
    /// What starts, suspensions and resumptions cost.
    pub model: &'a RestartModel,
    /// The profile (job types' preemption costs).
    pub profile: &'a Profile,
}

/// A scheduler for the preemptive simulator.
pub trait PreemptivePolicy {
    /// Its spec.
    fn name(&self) -> &str;
    /// Decide at an event.
    fn decide(&mut self, view: &PreemptView, rng: &mut Rng) -> PreemptPlan;
}
