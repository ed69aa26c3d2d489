//! The simulator's shell and its mechanisms: what every mechanism shares (settings, errors,
//! the report of a step, events, the one stepping interface) and one folder per mechanism.
//!
//! - [`rounds`]: Gavel's rounds (classic and Gavel policies);
//! - [`elastic`]: Pollux's ticks of elastic jobs (Pollux, its baselines, Sia);
//! - [`pooled`]: Aryl's training and inference pools;
//! - [`preemptive`]: PickyMan's event-driven preemption;
//! - [`slots`]: DL2's slots of workers and parameter servers.

pub mod board;
pub mod elastic;
pub mod events;
pub mod explanation;
pub mod faults;
pub mod pooled;
pub mod preemptive;
pub mod rounds;
pub mod setup;
pub mod shell;
pub mod slots;

pub use events::SimEvent;
pub use rounds::Simulator;
pub use setup::{JobModels, Setup};
pub use shell::{JobModel, Mechanism, Stepper};

use crate::model::job::{JobId, JobSpec};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// An error from building or running a policy.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PolicyError {
    /// The spec names no known policy.
    #[error("unknown policy '{0}' (see `orrery policies`)")]
    Unknown(String),
    /// A parameter in the spec is unknown or has a bad value.
    #[error("policy '{policy}': parameter '{param}': {reason}")]
    Param {
        /// Policy name.
        policy: String,
        /// Parameter name.
        param: String,
        /// What is wrong.
        reason: String,
    },
    /// The policy exists, but not for the experiment's mechanism.
    #[error("policy '{policy}' cannot run in this experiment, which runs in the {mechanism} mechanism: it runs in {runs_in}; this experiment's policies are {alternatives}")]
    Unsupported {
        /// Policy name.
        policy: String,
        /// The experiment's mechanism.
        mechanism: String,
        /// The mechanisms that run the policy, each with what it needs.
        runs_in: String,
        /// The policies the experiment's mechanism runs.
        alternatives: String,
    },
    /// The spec text is malformed.
    #[error("malformed policy spec '{0}': expected name or name[key=value,...]")]
    Syntax(String),
    /// The policy could not reach a decision (an LP failed, say). The mechanism keeps the
    /// previous decision.
    #[error("policy '{policy}' failed: {reason}")]
    Failed {
        /// Policy name.
        policy: String,
        /// What went wrong.
        reason: String,
    },
}

/// Why a policy's simulation cannot be built: its policy or its setup.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BuildError {
    /// The policy cannot be built from its spec.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The simulation cannot be set up.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// Simulator settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// Round length (s).
    pub round_len: f64,
    /// Reproduce Gavel's simulator's mechanism.
    pub gavel_compat: bool,
    /// Reproduce DL2's simulator's mechanism (parameter-server experiments; see
    /// [`slots::compat`]).
    #[serde(default)]
    pub dl2_compat: bool,
    /// What a job pays when it starts or its placement changes (default mode only).
    pub restart: crate::model::restart::RestartModel,
    /// Minimum seconds between allocation resets; `None` = 1920 in Gavel-compatible mode, 0
    /// otherwise.
    pub min_reset_interval: Option<f64>,
    /// Experiment seed.
    pub seed: u64,
    /// Safety limit on the number of rounds.
    pub max_rounds: u64,
    /// Server failures and checkpoints (`None`: servers never fail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<crate::model::failure::Faults>,
    /// Stop the run at this time (s), its jobs left unfinished (`None`: run to the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<f64>,
    /// GPU types whose capacity follows a spot trace: (type index, instances over time, GPUs
    /// per instance). Read from the experiment's `spot` at resolution.
    #[serde(skip)]
    pub spot: Vec<(usize, std::sync::Arc<crate::model::spot::CapacityTrace>)>,
    /// Seconds of warning before a spot instance is taken back.
    #[serde(default = "default_spot_warning")]
    pub spot_warning_s: f64,
}

/// AWS's two minutes of warning before a spot instance is taken back.
pub const DEFAULT_SPOT_WARNING_S: f64 = 120.0;

/// What spot jobs (a workload's `spot` column) do, for the experiment's notes.
pub const SPOT_JOBS: &str = "yield to high-priority jobs in every mechanism: a high-priority job its policy leaves waiting takes the GPUs of the last-ranked spot jobs (rounds), suspends the spot jobs started last (PickyMan's events), or takes the GPUs of the spot jobs that arrived last (Pollux's ticks, Aryl's pools); in DL2's slots high-priority jobs get their first tasks first";

fn default_spot_warning() -> f64 {
    DEFAULT_SPOT_WARNING_S
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            round_len: 360.0,
            gavel_compat: false,
            dl2_compat: false,
            restart: crate::model::restart::RestartModel::default(),
            min_reset_interval: None,
            seed: 0,
            max_rounds: 50_000_000,
            faults: None,
            until: None,
            spot: Vec::new(),
            spot_warning_s: DEFAULT_SPOT_WARNING_S,
        }
    }
}

/// Why a simulation cannot be set up.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// A job is invalid or cannot run on this cluster with this profile.
    #[error("job {job} ({job_type}): {reason}")]
    Job {
        /// Job id.
        job: JobId,
        /// Its type.
        job_type: String,
        /// What is wrong.
        reason: String,
    },
    /// A setting is invalid.
    #[error("invalid setting '{field}': {reason}")]
    Config {
        /// The setting.
        field: String,
        /// What is wrong.
        reason: String,
    },
}

/// What happened in one round.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoundReport {
    /// Round number (0-based).
    pub round: u64,
    /// Start (s).
    pub start: f64,
    /// End (s).
    pub end: f64,
    /// Events of the round, in order.
    pub events: Vec<SimEvent>,
}

impl RoundReport {
    /// Jobs that finished or were dropped in this round.
    pub fn jobs_ended(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, SimEvent::Finished { .. } | SimEvent::Dropped { .. }))
            .count()
    }
}

/// Job ids in order of arrival, ties by id: the order every simulator admits jobs in.
pub(crate) fn arrival_order(specs: &[JobSpec]) -> Vec<JobId> {
    let mut order: Vec<JobId> = (0..specs.len()).collect();
    crate::order::sort_by(&mut order, |&a, &b| {
        specs[a]
            .arrival
            .total_cmp(&specs[b].arrival)
            .then(a.cmp(&b))
    });
    order
}
