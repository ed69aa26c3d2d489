//! The [`Experiment`]: the one serialisable description of a run (cluster, workload,
//! profile, policies, seed, round length, knobs), what the CLI reads with `--config`, and
//! the functions that run it.

use crate::cluster::{ClusterError, ClusterSpec};
use crate::metrics::{Recorder, Summary};
use crate::policy::{self, PolicyError};
use crate::sim::{RoundReport, SimConfig, SimError, Simulator};
use crate::workload::{generate, presets, GeneratorConfig, Profile, Trace, WorkloadError};
use serde::{Deserialize, Serialize};
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
    /// Seconds lost when a job's placement changes.
    #[serde(default)]
    pub restart_cost_s: f64,
    /// Measure only jobs with ids in `[start, end)`; the run stops once they are done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<(usize, usize)>,
    /// Also run the isolated policy to compute finish-time fairness (rho).
    #[serde(default = "default_true")]
    pub fairness: bool,
}

impl Default for Experiment {
    fn default() -> Self {
        presets::default_experiment()
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

/// An experiment with its inputs parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The cluster.
    pub cluster: ClusterSpec,
    /// The jobs.
    pub trace: Trace,
    /// The throughputs.
    pub profile: Profile,
    /// Simulator settings.
    pub sim: SimConfig,
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

    /// Parse and check every input.
    pub fn resolve(&self) -> Result<Resolved, ExperimentError> {
        let cluster = ClusterSpec::parse(&self.cluster)?;
        let profile = match &self.profile {
            ProfileSource::Preset { name } => presets::profile(name)?,
            ProfileSource::Inline { name, text } => Profile::parse(text, name)?,
        };
        let trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Generated(g) => generate(&profile, &cluster, g)?,
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
        };
        trace.check_against(&profile, &cluster)?;
        if self.policies.is_empty() {
            return Err(ExperimentError::Invalid("no policies to run".into()));
        }
        for p in &self.policies {
            policy::build(p)?;
        }
        if let Some((a, b)) = self.window {
            if a >= b || b > trace.jobs.len() {
                return Err(ExperimentError::Invalid(format!(
                    "window {a}:{b} must satisfy start < end <= number of jobs ({})",
                    trace.jobs.len()
                )));
            }
        }
        let sim = SimConfig {
            round_len: self.round_s,
            gavel_compat: self.gavel_compat,
            restart_cost: self.restart_cost_s,
            seed: self.seed,
            ..SimConfig::default()
        };
        if !(sim.round_len.is_finite() && sim.round_len > 0.0) {
            return Err(ExperimentError::Invalid(
                "round_s must be a positive number".into(),
            ));
        }
        Ok(Resolved {
            cluster,
            trace,
            profile,
            sim,
        })
    }
}

impl Resolved {
    /// A simulator for one policy.
    pub fn simulator(&self, policy_spec: &str) -> Result<Simulator, ExperimentError> {
        let p = policy::build(policy_spec)?;
        Ok(Simulator::new(
            self.sim.clone(),
            self.cluster.clone(),
            self.trace.jobs.clone(),
            self.profile.clone(),
            p,
        )?)
    }

    /// Run one policy to the end (or until the window's jobs are done), calling `progress`
    /// after every round.
    pub fn run_policy(
        &self,
        policy_spec: &str,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
        mut progress: impl FnMut(&RoundReport, &Simulator),
    ) -> Result<RunResult, ExperimentError> {
        let mut sim = self.simulator(policy_spec)?;
        let mut rec = Recorder::new(&self.trace.jobs, self.cluster.num_types());
        while let Some(report) = sim.step_round() {
            for e in &report.events {
                rec.observe(e);
            }
            progress(&report, &sim);
            if let Some((a, b)) = window {
                if sim.states()[a..b].iter().all(|s| s.is_done()) {
                    break;
                }
            }
        }
        let summary = rec.summary(sim.policy_name(), &self.cluster, window, isolated_jct);
        Ok(RunResult {
            summary,
            recorder: rec,
        })
    }

    /// JCTs under the isolated policy (the rho baseline).
    pub fn isolated_jcts(&self) -> Result<Vec<Option<f64>>, ExperimentError> {
        Ok(self
            .run_policy("isolated", None, None, |_, _| {})?
            .recorder
            .jcts())
    }
}

/// Run every policy of the experiment (and the isolated baseline for rho when asked).
pub fn run(exp: &Experiment) -> Result<Vec<RunResult>, ExperimentError> {
    let r = exp.resolve()?;
    let iso = if exp.fairness {
        Some(r.isolated_jcts()?)
    } else {
        None
    };
    exp.policies
        .iter()
        .map(|p| r.run_policy(p, exp.window, iso.as_deref(), |_, _| {}))
        .collect()
}
