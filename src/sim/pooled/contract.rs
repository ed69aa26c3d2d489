//! The contract of Aryl's pools: the [`PooledPolicy`] trait its policies implement, what a
//! policy sees in a tick ([`PoolView`]) and what it decides ([`PoolPlan`]).

use super::{PooledJob, Server};
use crate::model::job::JobId;

/// What a pooled policy decides in a tick.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoolPlan {
    /// Loaned servers to return (at least the number asked).
    pub reclaim: Vec<usize>,
    /// Whether to loan idle inference servers to training.
    pub loan: bool,
    /// Queued jobs to start, with their placements.
    pub start: Vec<(JobId, Vec<(usize, u32)>)>,
    /// Running jobs to give more GPUs, with the extra placements.
    pub grow: Vec<(JobId, Vec<(usize, u32)>)>,
}

/// What a pooled policy sees.
#[derive(Debug)]
pub struct PoolView<'a> {
    /// Time (s).
    pub now: f64,
    /// Servers.
    pub servers: &'a [Server],
    /// Jobs by id.
    pub jobs: &'a [PooledJob],
    /// Queued job ids in arrival order.
    pub queue: Vec<JobId>,
    /// Running job ids.
    pub running: Vec<JobId>,
    /// Loaned servers the inference side needs back now.
    pub must_reclaim: usize,
    /// Inference servers the load leaves idle (loaned or not).
    pub idle_inference: usize,
    /// Restart delay (s).
    pub restart_s: f64,
    /// Seconds of running between checkpoints.
    pub checkpoint_s: f64,
}

/// A scheduler for the pooled simulator.
pub trait PooledPolicy {
    /// Its spec.
    fn name(&self) -> &str;
    /// Decide the tick. Reclaims are applied first, then starts, then growth; the
    /// simulator checks capacities and ignores what does not fit.
    fn plan(&mut self, view: &PoolView) -> PoolPlan;
}
