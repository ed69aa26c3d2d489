//! The one stepping interface every mechanism implements ([`Stepper`], with the `stepper!`
//! macro that implements it for a simulator), so that running, comparing, progress and the
//! page's stepper need no knowledge of which mechanism runs a policy; and [`Mechanism`] with
//! what the rest of the code asks of one as data (its [`JobModel`], capabilities, words for
//! the page, typical cost).
//!
//! Each mechanism is a folder of `src/sim/` holding its simulator, the contract its policies
//! implement and its `stepper.rs`: its [`Stepper`] and the board the page's stepper draws.
//! Where each lives (each is the one its paper's fidelity needs):
//! - [`Mechanism::Rounds`]: [`super::Simulator`] (`rounds/`): Gavel's rounds,
//!   allocations turned into per-round placements by priorities; classic and Gavel policies.
//! - [`Mechanism::Elastic`]: [`super::elastic::ElasticSimulator`]: Pollux's whole-second
//!   ticks, goodput-driven GPU counts and batch sizes; Pollux, its baselines and Sia.
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

/// What a mechanism's jobs are: what the page offers as traces and profiles for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobModel {
    /// Rigid jobs: a GPU count and a throughput per GPU type (Gavel's rounds, Aryl's
    /// pools, PickyMan's events).
    Rigid,
    /// Elastic jobs of applications with a goodput model (Pollux's ticks).
    Elastic,
    /// Jobs of workers and parameter servers with a speed function (DL2's slots).
    ParameterServer,
}

/// Which mechanism runs a policy.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// Gavel's rounds (classic and Gavel policies).
    #[default]
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

    /// The mechanism of a world whose jobs are `jobs`, with or without an inference `pool`
    /// and PickyMan's `checkpoint` model: DL2's slots for parameter-server jobs, else
    /// PickyMan's events under the checkpoint model, Aryl's pools beside an inference pool,
    /// Pollux's ticks for elastic jobs, Gavel's rounds for rigid ones.
    pub fn of_world(jobs: JobModel, pool: bool, checkpoint: bool) -> Mechanism {
        match jobs {
            JobModel::ParameterServer => Mechanism::Slots,
            _ if checkpoint => Mechanism::Preemptive,
            _ if pool => Mechanism::Pooled,
            JobModel::Elastic => Mechanism::Elastic,
            JobModel::Rigid => Mechanism::Rounds,
        }
    }

    /// What its jobs are.
    pub fn jobs(self) -> JobModel {
        match self {
            Mechanism::Elastic => JobModel::Elastic,
            Mechanism::Slots => JobModel::ParameterServer,
            Mechanism::Rounds | Mechanism::Pooled | Mechanism::Preemptive => JobModel::Rigid,
        }
    }

    /// Whether it runs an inference pool beside the training pool (Aryl's loans).
    pub fn inference_pool(self) -> bool {
        self == Mechanism::Pooled
    }

    /// Whether it runs PickyMan's overhead model: suspensions drain to the epoch's end,
    /// checkpoint and reload.
    pub fn preemption_model(self) -> bool {
        self == Mechanism::Preemptive
    }

    /// What one step is, for people: `round`, `tick`, `event` or `slot`.
    pub fn step_noun(self) -> &'static str {
        match self {
            Mechanism::Rounds => "round",
            Mechanism::Elastic | Mechanism::Pooled => "tick",
            Mechanism::Preemptive => "event",
            Mechanism::Slots => "slot",
        }
    }

    /// The heading of the page's stepper.
    pub fn stepper_title(self) -> &'static str {
        match self {
            Mechanism::Preemptive => "Step through events",
            Mechanism::Slots => "Step through slots",
            Mechanism::Elastic | Mechanism::Pooled => "Step through ticks",
            Mechanism::Rounds => "Step through rounds",
        }
    }

    /// The page stepper's help line: its keys and what its picture shows.
    pub fn stepper_help(self) -> &'static str {
        match self {
            Mechanism::Slots => "Keys: space plays or pauses, → steps one slot. Every server is shown with the jobs whose workers hold its GPUs, and every active job with its workers and parameter servers in the slot just simulated.",
            Mechanism::Preemptive => "Keys: space plays or pauses, → steps to the next event (an arrival, a completion, the end of a suspension or a reload). Every GPU is shown with the job holding it.",
            Mechanism::Pooled => "Keys: space plays or pauses, → steps one tick. Training and inference servers are shown with the jobs on them; inference servers serving the load are hatched, loaned ones outlined.",
            Mechanism::Elastic => "Keys: space plays or pauses, → steps one scheduling interval. Every job is shown on the servers it holds.",
            Mechanism::Rounds => "Keys: space plays or pauses, → steps one round.",
        }
    }

    /// Milliseconds one job costs one run in the page's worker before any run was
    /// measured (the bundled scenarios and generated traces of 1,000 and 4,000 jobs, in
    /// Chromium on two cores: the cost of a job grows with how many wait with it, so these
    /// are the larger workloads' figures).
    pub fn typical_ms_per_job(self) -> f64 {
        match self {
            Mechanism::Rounds => 10.0,
            Mechanism::Elastic => 80.0,
            Mechanism::Pooled => 0.5,
            Mechanism::Preemptive => 0.2,
            Mechanism::Slots => 0.2,
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

/// `impl Stepper` for a mechanism's simulator, whose inherent methods carry the trait's
/// names (`step_round`, `now`, `is_done`, `job_done`, `policy_name`): its mechanism, its
/// board function and, with `counts_steps`, its own count of steps (`round`).
macro_rules! stepper {
    ($t:ty, $m:expr, $board:path) => {
        $crate::sim::shell::stepper!(@impl $t, $m, $board, {});
    };
    ($t:ty, $m:expr, $board:path, counts_steps) => {
        $crate::sim::shell::stepper!(@impl $t, $m, $board, {
            fn steps_done(&self) -> Option<u64> {
                Some(self.round())
            }
        });
    };
    (@impl $t:ty, $m:expr, $board:path, { $($extra:tt)* }) => {
        impl $crate::sim::Stepper for $t {
            fn step(&mut self) -> Option<$crate::sim::RoundReport> {
                self.step_round()
            }
            fn now(&self) -> f64 {
                <$t>::now(self)
            }
            fn is_done(&self) -> bool {
                <$t>::is_done(self)
            }
            fn job_done(&self, job: $crate::model::job::JobId) -> bool {
                <$t>::job_done(self, job)
            }
            fn policy_name(&self) -> &str {
                <$t>::policy_name(self)
            }
            fn mechanism(&self) -> $crate::sim::Mechanism {
                $m
            }
            fn board(
                &self,
                ctx: &$crate::sim::board::BoardContext,
            ) -> $crate::sim::board::Board {
                $board(self, ctx)
            }
            $($extra)*
        }
    };
}
pub(crate) use stepper;
