//! The [`Experiment`]: the one serialisable description of a run (cluster, workload,
//! profile, policies, seed, round length, knobs), what the CLI reads with `--config`, the
//! page edits and a share link carries.
//!
//! - this file: the schema ([`Experiment`] and its parts), its errors, what resolving gives;
//! - `resolve`: parsing and checking every input, and which mechanism runs the experiment;
//! - `run`: the simulations of each policy and the one orchestration of a run ([`Plan`]);
//! - `link`: the share-link codec (deflate, base64url, in the URL fragment);
//! - `sweep`: an experiment at one point of a sweep ([`SweepPoint`]);
//! - `restart`: the experiment's restart model and its name ([`RestartKind`]);
//! - `job_types`: the job types a trace and profile give ([`JobTypes`]);
//! - [`scenarios`]: the bundled scenarios and the paper claims they reproduce;
//! - [`stepping`]: one policy's run a step at a time, for the page's stepper;
//! - [`train`]: DL2's training in the experiment's world;
//! - [`edit`] and [`switch`]: the page's editing as pure functions (an edit as typed, and a
//!   profile or trace of another family).

pub mod edit;
mod faults;
mod job_types;
mod link;
mod resolve;
mod restart;
mod run;
pub mod scenarios;
pub mod stepping;
mod sweep;
pub mod switch;
pub mod train;

pub use crate::model::restart::{RestartModel, MAX_RESTART_S};
pub use restart::RestartKind;

pub use job_types::JobTypes;
pub use link::{base64url_decode, base64url_encode, linked_scenario, LinkError, LINK_CODEC};
pub use run::{run, run_with_progress, Outcome, Plan, Progress, Task};
pub use sweep::SweepPoint;

pub use crate::sim::setup::PsSetup;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::{DecodeError, Engine as _};

use crate::metrics::{Recorder, Summary};
use crate::model::cluster::{ClusterError, ClusterSpec};
use crate::model::job::JobSpec;
use crate::model::restart::PreemptionConfig;
use crate::nn::Mlp;
use crate::policy::{self, PolicyError, Spec, Split};
use crate::sim::elastic::ElasticSimulator;
use crate::sim::pooled::PooledSimulator;
use crate::sim::preemptive::PreemptiveSimulator;
use crate::sim::slots::SlotSimulator;
use crate::sim::{
    BuildError, JobModel, JobModels, Mechanism, RoundReport, Setup, SimConfig, SimError, Simulator,
    Stepper,
};
use crate::workload::dl2_files;
use crate::workload::inference::{diurnal, DiurnalConfig, LoadCurve};
use crate::workload::ps::generate_ps;
use crate::workload::{
    generate, presets, Apps, GeneratorConfig, InlineFile, Profile, PsConfig, PsModels, Trace,
    TraceFilter, WorkloadError,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

/// Current schema version of [`Experiment`].
pub const SCHEMA_VERSION: u32 = 1;

/// Where the jobs come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadSource {
    /// A bundled trace by name.
    Preset {
        /// Preset name.
        name: String,
    },
    /// The synthetic generator.
    Generated(GeneratorConfig),
    /// A file's contents (uploaded or read by the CLI).
    Inline {
        /// File name, for messages and format detection.
        name: String,
        /// The text.
        text: String,
    },
}

/// Where the throughputs come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProfileSource {
    /// A bundled profile by name.
    Preset {
        /// Preset name.
        name: String,
    },
    /// A file's contents.
    Inline {
        /// File name.
        name: String,
        /// The text.
        text: String,
    },
    /// A folder of files: the Pollux simulator's application folders (one sub-folder per
    /// application with `placements.csv`, `scalability.csv` and `validation-<batch>.csv`).
    Files {
        /// Folder name, for messages.
        name: String,
        /// The files, with paths relative to the folder.
        files: Vec<InlineFile>,
    },
    /// No profile: every job makes one step per second at its GPU count on any GPU type,
    /// so a job of a trace of durations (Philly, Helios, Acme) runs for its traced
    /// duration wherever it is placed (see [`crate::workload::timed`]).
    ProfileFree,
}

fn default_version() -> u32 {
    SCHEMA_VERSION
}
fn default_round() -> f64 {
    360.0
}
fn default_true() -> bool {
    true
}
fn default_load() -> f64 {
    1.0
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}

/// A complete, reproducible description of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Schema version (old versions are upgraded when read).
    #[serde(default = "default_version")]
    pub version: u32,
    /// Cluster spec text (`v100:36,p100:36,k80:36`, `36:36:36` or JSON).
    pub cluster: String,
    /// The jobs.
    pub workload: WorkloadSource,
    /// The throughputs.
    pub profile: ProfileSource,
    /// Policy specs to run (compared when several).
    pub policies: Vec<String>,
    /// Experiment seed: every random choice derives from it.
    #[serde(default)]
    pub seed: u64,
    /// Round length (s).
    #[serde(default = "default_round")]
    pub round_s: f64,
    /// Reproduce Gavel's simulator's mechanism.
    #[serde(default)]
    pub gavel_compat: bool,
    /// Seconds without progress each time a job starts or its GPUs change (see
    /// [`RestartModel`]; the delay of types `restart_by_type` does not list).
    #[serde(default)]
    pub restart_cost_s: f64,
    /// Restart delays of particular job types or applications (s), as Sia's simulator
    /// gives each application its own.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub restart_by_type: std::collections::BTreeMap<String, f64>,
    /// Per elastic application, how many times longer each step takes than its profile
    /// measured (Sia's simulator's per-application SLOWDOWN); 1 for applications not
    /// listed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub slowdown: std::collections::BTreeMap<String, f64>,
    /// Which jobs of the trace to keep: a range of submission times, virtual clusters,
    /// statuses and a sample of at most so many jobs (drawn with `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_filter: Option<TraceFilter>,
    /// Measure only jobs with ids in `[start, end)`; the run stops once they are done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<(usize, usize)>,
    /// The offered load: arrivals compressed in time by this factor about the first one
    /// (2: jobs arrive twice as fast; 0.5: half as fast; see [`crate::workload::load`]),
    /// after the trace filter, for any workload. 1 leaves the arrivals as they are.
    #[serde(default = "default_load", skip_serializing_if = "is_one")]
    pub load_factor: f64,
    /// Also run the isolated policy to compute finish-time fairness (rho).
    #[serde(default = "default_true")]
    pub fairness: bool,
    /// An inference pool's load (Aryl): the cluster's `inference` GPU type serves it, and
    /// its idle servers may be loaned to training.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference: Option<InferenceSource>,
    /// Preemption with PickyMan's overhead model: the experiment then runs in the
    /// preemptive simulator with PickyMan and its baselines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionConfig>,
    /// Settings of a parameter-server (DL2) experiment: CPUs per server and the most
    /// workers and parameter servers per job. Such an experiment is one whose profile is of
    /// parameter-server models (e.g. the bundled `dl2-models`); it runs in the slot
    /// simulator with the `dl2` family, with these defaults when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ps: Option<PsConfig>,
    /// The network of the `dl2` policy in a parameter-server experiment (a weights JSON
    /// written by `orrery dl2 train` or trained in the page); the bundled network when
    /// left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkSource>,
    /// Reproduce DL2's simulator's mechanism in a parameter-server experiment (see
    /// [`crate::sim::slots::compat`]): DL2's placement, no restart cost, DL2's forms of
    /// its heuristics.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dl2_compat: bool,
    /// Server failures and how jobs checkpoint (`None`: servers never fail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<crate::model::failure::Faults>,
    /// Stop every run at this time (s), its jobs left unfinished (`None`: to the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_s: Option<f64>,
    /// GPU types whose capacity follows a spot trace, by type name: the trace file's name
    /// and text (SkyPilot's JSON or Parcae's CSV; [`crate::model::spot`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub spot: std::collections::BTreeMap<String, SpotSource>,
    /// Seconds of warning before a spot instance is taken back (`None`: AWS's 120 s): a job
    /// whose checkpoint write fits in it loses only that write's work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_warning_s: Option<f64>,
}

/// A spot capacity trace given with an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpotSource {
    /// File name, for messages.
    pub name: String,
    /// The text.
    pub text: String,
}

/// Where a DL2 policy network comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NetworkSource {
    /// A weights JSON's contents (see [`crate::nn`]).
    Inline {
        /// File name, for messages.
        name: String,
        /// The text.
        text: String,
    },
}

/// Where an inference pool's load comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InferenceSource {
    /// The bundled day-shaped curve.
    Diurnal(DiurnalConfig),
    /// A CSV of `time_s,servers`.
    Inline {
        /// File name.
        name: String,
        /// The text.
        text: String,
    },
}

impl Default for Experiment {
    fn default() -> Self {
        scenarios::default_experiment()
    }
}

/// An error setting up or running an experiment.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ExperimentError {
    /// Bad cluster.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// Bad trace or profile.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// Bad policy spec.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// Bad simulation setup.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Bad experiment description.
    #[error("experiment: {0}")]
    Invalid(String),
}

impl From<BuildError> for ExperimentError {
    fn from(e: BuildError) -> Self {
        match e {
            BuildError::Policy(p) => ExperimentError::Policy(p),
            BuildError::Sim(s) => ExperimentError::Sim(s),
        }
    }
}

/// An experiment with its inputs parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The cluster.
    pub cluster: ClusterSpec,
    /// The jobs.
    pub trace: Trace,
    /// The throughputs.
    pub profile: Profile,
    /// Simulator settings, the restart model among them: when it has PickyMan's checkpoint
    /// model, the experiment is preemptive and runs in the preemptive simulator with
    /// PickyMan and its baselines.
    pub sim: SimConfig,
    /// What the jobs are: rigid (the profile's), elastic applications (the experiment
    /// then runs in the elastic simulator with the elastic policies: Pollux and its
    /// baselines) or parameter-server models (the slot simulator with the `dl2` family).
    pub models: JobModels,
    /// The inference load, when the experiment has an inference pool: it then runs in the
    /// pooled simulator with Aryl.
    pub load: Option<LoadCurve>,
    /// What the experiment runs but probably should not (a GPU type no job can use),
    /// one sentence each; the CLI prints them and the page shows them.
    pub warnings: Vec<String>,
    /// How the workload was read, one sentence each: the trace filter and what it kept, a
    /// profile-free run, job types drawn from the profile. The CLI's summary and the page
    /// show them.
    pub notes: Vec<String>,
}

/// The outcome of one policy's run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The numbers.
    pub summary: Summary,
    /// Everything recorded (per-job records, series).
    pub recorder: Recorder,
}

impl Experiment {
    /// Turn DL2-compatible mode on or off; on, the parameter-server settings become DL2's
    /// simulator's ([`crate::workload::PsConfig::dl2`]).
    pub fn set_dl2_compat(&mut self, on: bool) {
        self.dl2_compat = on;
        if on {
            self.ps = Some(crate::workload::PsConfig::dl2());
        }
    }

    /// Read an experiment from JSON, upgrading older schema versions.
    pub fn from_json(text: &str) -> Result<Self, ExperimentError> {
        let e: Experiment = serde_json::from_str(text)
            .map_err(|e| ExperimentError::Invalid(format!("line {}: {e}", e.line())))?;
        if e.version > SCHEMA_VERSION {
            return Err(ExperimentError::Invalid(format!(
                "schema version {} is newer than this build understands ({SCHEMA_VERSION})",
                e.version
            )));
        }
        Ok(Experiment {
            version: SCHEMA_VERSION,
            ..e
        })
    }

    /// Serialise to JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod steady_rounds;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_schema_versions_are_read() {
        // A version-1 experiment written without the optional keys.
        let text = r#"{"version":1,"cluster":"8:8:8","workload":{"kind":"preset","name":"default"},"profile":{"kind":"preset","name":"gavel-types"},"policies":["las"]}"#;
        let e = Experiment::from_json(text).unwrap();
        assert_eq!(e.round_s, 360.0);
        assert!(e.fairness);
        let newer = text.replace("\"version\":1", "\"version\":99");
        assert!(Experiment::from_json(&newer).is_err());
    }
}
