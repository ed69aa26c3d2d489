//! The one stepping interface every mechanism implements, so that running, comparing,
//! progress and the page's stepper need no knowledge of which mechanism runs a policy.
//!
//! Each mechanism is a folder of `src/sim/` holding its simulator, the contract its policies
//! implement and its `stepper.rs`: its [`Stepper`] and the board the page's stepper draws.
//! Where each lives (each is the one its paper's fidelity needs):
//! - [`Mechanism::Rounds`]: [`super::Simulator`] (`rounds/`): Gavel's rounds,
//!   allocations turned into per-round placements by priorities; classic and Gavel policies.
//! - [`Mechanism::Elastic`]: [`super::elastic::ElasticSimulator`]: Pollux's whole-second
//!   ticks, goodput-driven GPU counts and batch sizes; Pollux and its baselines.
//! - [`Mechanism::Pooled`]: [`super::pooled::PooledSimulator`]: a training pool and an
//!   inference pool whose idle servers are loaned out; Aryl.
//! - [`Mechanism::Preemptive`]: [`super::preemptive::PreemptiveSimulator`]: event-driven,
//!   suspensions drain to the epoch's end, checkpoint and reload; PickyMan and its baselines.
//! - [`Mechanism::Slots`]: [`super::slots::SlotSimulator`]: DL2's slots of workers and
//!   parameter servers on servers of GPUs and CPUs; DL2 and its heuristics.

use super::board::{Board, BoardContext};
use super::RoundReport;
use crate::model::job::JobId;
use serde::{Deserialize, Serialize};

/// Which mechanism runs a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// Gavel's rounds (classic and Gavel policies).
    Rounds,
    /// Pollux's ticks of elastic jobs.
    Elastic,
    /// Aryl's training and inference pools.
    Pooled,
    /// PickyMan's event-driven preemption with suspend and resume costs.
    Preemptive,
    /// DL2's slots of workers and parameter servers.
    Slots,
}

impl Mechanism {
    /// Every mechanism, in listing order.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::Rounds,
        Mechanism::Elastic,
        Mechanism::Pooled,
        Mechanism::Preemptive,
        Mechanism::Slots,
    ];

    /// Short name (`rounds`, `elastic`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Rounds => "rounds",
            Mechanism::Elastic => "elastic",
            Mechanism::Pooled => "pooled",
            Mechanism::Preemptive => "preemptive",
            Mechanism::Slots => "slots",
        }
    }

    /// What an experiment needs for this mechanism to run it, in words for messages.
    pub fn needs(self) -> &'static str {
        match self {
            Mechanism::Rounds => "rigid jobs with per-GPU-type throughputs, from a round-based profile such as gavel-types",
            Mechanism::Elastic => "elastic jobs with a goodput model, from a profile of applications such as pollux-apps or Pollux's folders",
            Mechanism::Pooled => "an inference pool: a cluster type named 'inference' (or 'inference-<model>') and a load curve",
            Mechanism::Preemptive => "a preemption model: suspensions drain to the epoch's end, checkpoint and reload",
            Mechanism::Slots => "parameter-server jobs, from a profile of parameter-server models such as dl2-models",
        }
    }
}

/// A simulation of one policy, stepped one scheduling step at a time: a round, a tick, a
/// slot or an event, depending on the mechanism.
pub trait Stepper {
    /// Simulate the next step; `None` once the simulation is over.
    fn step(&mut self) -> Option<RoundReport>;
    /// Simulated time (s).
    fn now(&self) -> f64;
    /// Whether every job has finished (or was dropped).
    fn is_done(&self) -> bool;
    /// Whether job `job` has finished (or was dropped).
    fn job_done(&self, job: JobId) -> bool;
    /// The policy's canonical spec.
    fn policy_name(&self) -> &str;
    /// The mechanism.
    fn mechanism(&self) -> Mechanism;
    /// What the run looks like now, for the page's stepper.
    fn board(&self, ctx: &BoardContext) -> Board;
    /// Steps done, for the simulators that count their own (rounds, ticks); `None` for the
    /// others, whose steps the caller counts.
    fn steps_done(&self) -> Option<u64> {
        None
    }
}
