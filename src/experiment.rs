//! The [`Experiment`]: the one serialisable description of a run (cluster, workload,
//! profile, policies, seed, round length, knobs), what the CLI reads with `--config`, and
//! the functions that run it.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::{DecodeError, Engine as _};

use crate::cluster::{ClusterError, ClusterSpec};
use crate::metrics::{Recorder, Summary};
use crate::nn::Mlp;
use crate::policy::{self, PolicyError};
use crate::sim::elastic::{ElasticConfig, ElasticSimulator};
use crate::sim::pooled::{PooledConfig, PooledSimulator};
use crate::sim::preemptive::PreemptiveSimulator;
use crate::sim::slots::{SlotConfig, SlotSimulator};
use crate::sim::{Mechanism, RoundReport, SimConfig, SimError, Simulator, Stepper};
use crate::workload::inference::{diurnal, DiurnalConfig, LoadCurve};
use crate::workload::overhead::{OverheadModel, PreemptionConfig};
use crate::workload::ps::generate_ps;
use crate::workload::{
    generate, presets, Apps, GeneratorConfig, InlineFile, Profile, PsConfig, PsModels, Trace,
    WorkloadError,
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
    /// Elastic applications, when the profile is one: the experiment then runs in the
    /// elastic simulator with the elastic policies (Pollux and its baselines).
    pub apps: Option<Arc<Apps>>,
    /// The inference load, when the experiment has an inference pool: it then runs in the
    /// pooled simulator with Aryl.
    pub load: Option<LoadCurve>,
    /// The overhead model, when the experiment is preemptive: it then runs in the
    /// preemptive simulator with PickyMan and its baselines.
    pub preemption: Option<OverheadModel>,
    /// Parameter-server job types and settings, when the profile is one of them: the
    /// experiment then runs in the slot simulator with the `dl2` family.
    pub ps: Option<PsSetup>,
    /// What the experiment runs but probably should not (a GPU type no job can use),
    /// one sentence each; the CLI prints them and the page shows them.
    pub warnings: Vec<String>,
}

/// The parameter-server world of a DL2 experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct PsSetup {
    /// The job types.
    pub models: Arc<PsModels>,
    /// CPUs per server and per-job caps.
    pub config: PsConfig,
    /// The `dl2` policy's network when the experiment brings its own (else the bundled one).
    pub network: Option<Arc<Mlp>>,
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
        let ps_models = match &self.profile {
            ProfileSource::Preset { name } => presets::ps_models(name).transpose()?,
            ProfileSource::Inline { name, text } if PsModels::is_ps_json(text) => {
                Some(PsModels::from_json(text, name)?)
            }
            _ => None,
        };
        if let Some(models) = ps_models {
            return self.resolve_ps(cluster, models);
        }
        if self.ps.is_some() {
            return Err(ExperimentError::Invalid(
                "ps settings go with a profile of parameter-server models (e.g. the bundled dl2-models)".into(),
            ));
        }
        if self.network.is_some() {
            return Err(ExperimentError::Invalid(
                "a network goes with a parameter-server experiment (the dl2 policy's); this profile is not of parameter-server models".into(),
            ));
        }
        let (profile, apps) = match &self.profile {
            ProfileSource::Preset { name } => match presets::elastic_apps(name) {
                Some(apps) => (Profile::default(), Some(apps?)),
                None => (presets::profile(name)?, None),
            },
            ProfileSource::Inline { name, text } if Apps::is_apps_json(text) => {
                (Profile::default(), Some(Apps::from_json(text, name)?))
            }
            ProfileSource::Inline { name, text } => (Profile::parse(text, name)?, None),
            ProfileSource::Files { name, files } => (
                Profile::default(),
                Some(Apps::from_pollux_files(name, files)?),
            ),
        };
        // Round-based experiments outside Gavel-compatible mode take the GPU types in name
        // order whatever order the spec lists them in: the mechanism visits types in turn
        // and LP solvers break ties by position, so a listed order would otherwise leak
        // into the results. Gavel-compatible mode keeps the given order (Gavel's is part of
        // its mechanism).
        let mut cluster = cluster;
        if apps.is_none()
            && self.inference.is_none()
            && self.preemption.is_none()
            && !self.gavel_compat
        {
            cluster.types.sort_by(|a, b| a.name.cmp(&b.name));
        }
        let mut trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Generated(g) => match &apps {
                Some(apps) => crate::workload::generator::generate_elastic(apps, g)?,
                None => generate(&profile, &cluster, g)?,
            },
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
        };
        if self.policies.is_empty() {
            return Err(ExperimentError::Invalid("no policies to run".into()));
        }
        match &apps {
            Some(apps) => {
                if self.gavel_compat {
                    return Err(ExperimentError::Invalid(
                        "gavel_compat applies to round-based experiments, not elastic ones".into(),
                    ));
                }
                if cluster.types.len() != 1 {
                    return Err(ExperimentError::Invalid(format!(
                        "elastic experiments run on one GPU type in servers (e.g. gpu:64/4), not '{}'",
                        self.cluster
                    )));
                }
                check_elastic(&mut trace, apps, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::Elastic)?;
                }
            }
            None if self.inference.is_some() => {
                if self.preemption.is_some() {
                    return Err(ExperimentError::Invalid(
                        "an experiment has an inference pool or a preemption model, not both"
                            .into(),
                    ));
                }
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::Pooled)?;
                }
            }
            None if self.preemption.is_some() => {
                if self.gavel_compat {
                    return Err(ExperimentError::Invalid(
                        "gavel_compat applies to round-based experiments, not preemptive ones"
                            .into(),
                    ));
                }
                if cluster.types.len() != 1 {
                    return Err(ExperimentError::Invalid(format!(
                        "preemptive experiments run on one GPU type (e.g. v100:64), not '{}'",
                        self.cluster
                    )));
                }
                trace.check_against(&profile, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::Preemptive)?;
                }
            }
            None => {
                trace.check_against(&profile, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::Rounds)?;
                }
            }
        }
        let load = match &self.inference {
            None => None,
            Some(_) if apps.is_some() => {
                return Err(ExperimentError::Invalid(
                    "an inference pool goes with a round-based profile, not elastic applications"
                        .into(),
                ))
            }
            Some(src) => {
                let inf = cluster
                    .types
                    .iter()
                    .find(|t| t.name == "inference")
                    .ok_or_else(|| {
                        ExperimentError::Invalid(
                            "an inference pool needs a GPU type named 'inference' in the cluster (e.g. v100:128/8,inference:128/8)".into(),
                        )
                    })?;
                let servers = inf.count / inf.per_server.max(1);
                Some(match src {
                    InferenceSource::Diurnal(c) => diurnal(c, servers)?,
                    InferenceSource::Inline { name, text } => LoadCurve::parse_csv(text, name)?,
                })
            }
        };
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
        let preemption =
            match &self.preemption {
                Some(_) if apps.is_some() => return Err(ExperimentError::Invalid(
                    "a preemption model goes with a round-based profile, not elastic applications"
                        .into(),
                )),
                Some(c) => {
                    c.check()?;
                    Some(OverheadModel { config: *c })
                }
                None => None,
            };
        let warnings = if apps.is_none() {
            unused_types(&cluster, &trace, &profile)
        } else {
            Vec::new()
        };
        Ok(Resolved {
            cluster,
            trace,
            profile,
            sim,
            apps: apps.map(Arc::new),
            load,
            preemption,
            ps: None,
            warnings,
        })
    }

    /// Resolve a parameter-server (DL2) experiment.
    fn resolve_ps(
        &self,
        cluster: ClusterSpec,
        models: PsModels,
    ) -> Result<Resolved, ExperimentError> {
        let invalid = |m: &str| Err(ExperimentError::Invalid(m.into()));
        if self.gavel_compat {
            return invalid(
                "gavel_compat applies to round-based experiments, not parameter-server ones",
            );
        }
        if self.inference.is_some() || self.preemption.is_some() {
            return invalid(
                "a parameter-server experiment has no inference pool and no preemption model",
            );
        }
        if self.policies.is_empty() {
            return invalid("no policies to run");
        }
        let config = self.ps.unwrap_or_default();
        config.check()?;
        let mut trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Generated(g) => generate_ps(&models, g)?,
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
        };
        models.check_trace(&trace)?;
        for (job, m) in trace.jobs.iter_mut().filter_map(|j| {
            let k = models.index(&j.job_type)?;
            Some((j, &models.models[k]))
        }) {
            job.epoch_steps.get_or_insert(m.steps_per_epoch());
        }
        crate::sim::slots::check_jobs(&cluster, &config, &trace.jobs, &models)?;
        let network = match &self.network {
            None => None,
            Some(NetworkSource::Inline { name, text }) => {
                let net = Mlp::from_json(text)
                    .map_err(|e| ExperimentError::Invalid(format!("network {name}: {e}")))?;
                Some(Arc::new(net))
            }
        };
        for p in &self.policies {
            policy::catalog::check(p, Mechanism::Slots)?;
            policy::dl2::build_with(p, network.as_deref(), models.models.len()).map_err(
                |e| match e {
                    PolicyError::Failed { reason, .. } => ExperimentError::Invalid(format!(
                        "network {}: {reason}",
                        match &self.network {
                            Some(NetworkSource::Inline { name, .. }) => name.as_str(),
                            None => "(bundled)",
                        }
                    )),
                    e => e.into(),
                },
            )?;
        }
        if let Some((a, b)) = self.window {
            if a >= b || b > trace.jobs.len() {
                return Err(ExperimentError::Invalid(format!(
                    "window {a}:{b} must satisfy start < end <= number of jobs ({})",
                    trace.jobs.len()
                )));
            }
        }
        if !(self.round_s.is_finite() && self.round_s >= 1.0) {
            return invalid("round_s (the slot) must be at least 1 s");
        }
        if !(self.restart_cost_s.is_finite() && (0.0..=86_400.0).contains(&self.restart_cost_s)) {
            return invalid("restart_cost_s must be between 0 and 86,400 s");
        }
        let sim = SimConfig {
            round_len: self.round_s,
            gavel_compat: false,
            restart_cost: self.restart_cost_s,
            seed: self.seed,
            ..SimConfig::default()
        };
        Ok(Resolved {
            cluster,
            trace,
            profile: Profile::default(),
            sim,
            apps: None,
            load: None,
            preemption: None,
            ps: Some(PsSetup {
                models: Arc::new(models),
                config,
                network,
            }),
            warnings: Vec::new(),
        })
    }

    /// Whether the experiment's profile is one of elastic applications (Pollux-style).
    pub fn is_elastic(&self) -> bool {
        match &self.profile {
            ProfileSource::Preset { name } => presets::elastic_apps(name).is_some(),
            ProfileSource::Inline { text, .. } => Apps::is_apps_json(text),
            ProfileSource::Files { .. } => true,
        }
    }

    /// Whether the experiment's profile is one of parameter-server models (DL2-style): it
    /// then runs in the slot simulator.
    pub fn is_ps(&self) -> bool {
        match &self.profile {
            ProfileSource::Preset { name } => presets::PS_PROFILES.iter().any(|b| b.name == name),
            ProfileSource::Inline { text, .. } => PsModels::is_ps_json(text),
            ProfileSource::Files { .. } => false,
        }
    }
}

/// One warning per GPU type of the cluster on which no job of the trace can run (no
/// throughput in the profile at the job's scale factor, or fewer GPUs than it needs).
fn unused_types(cluster: &ClusterSpec, trace: &Trace, profile: &Profile) -> Vec<String> {
    let mut usable = vec![false; cluster.num_types()];
    let mut seen = std::collections::BTreeSet::new();
    for j in &trace.jobs {
        if !seen.insert((j.job_type.as_str(), j.scale_factor)) {
            continue;
        }
        let row = profile.throughputs_on(&j.job_type, j.scale_factor, cluster);
        for ((u, &v), t) in usable.iter_mut().zip(&row).zip(&cluster.types) {
            *u |= v > 0.0 && t.count >= j.scale_factor;
        }
    }
    cluster
        .types
        .iter()
        .zip(usable)
        .filter(|(t, u)| !u && t.count > 0 && t.name != "inference")
        .map(|(t, _)| {
            format!(
                "GPU type '{}' ({} GPUs): no job of the workload can run on it (the profile has no throughput for them there), so it stays idle",
                t.name, t.count
            )
        })
        .collect()
}

/// Check an elastic trace against its applications and set each job's work to its
/// application's (progress at the end of its last epoch).
fn check_elastic(
    trace: &mut Trace,
    apps: &Apps,
    cluster: &ClusterSpec,
) -> Result<(), WorkloadError> {
    let total = cluster
        .types
        .first()
        .map_or(0, |t| t.count - t.count % t.per_server.max(1));
    for (i, job) in trace.jobs.iter_mut().enumerate() {
        let line = trace.lines.get(i).copied().unwrap_or(0);
        let Some(app) = apps.index(&job.job_type).map(|k| &apps.apps[k]) else {
            return Err(WorkloadError::field(
                &trace.name,
                line,
                "application",
                format!(
                    "'{}' is not an application of the profile ({})",
                    job.job_type,
                    apps.names().join(", ")
                ),
            ));
        };
        if job.scale_factor > total {
            return Err(WorkloadError::field(
                &trace.name,
                line,
                "num_replicas",
                format!(
                    "{} GPUs asked, the cluster has {total} in whole servers",
                    job.scale_factor
                ),
            ));
        }
        if let Some(b) = job.batch_size {
            if b < app.init_batch_size || b > app.max_batch_size {
                return Err(WorkloadError::field(
                    &trace.name,
                    line,
                    "batch_size",
                    format!(
                        "{b} is outside {}'s batch sizes [{}, {}]",
                        app.name, app.init_batch_size, app.max_batch_size
                    ),
                ));
            }
        }
        job.total_steps = app.target_progress();
    }
    Ok(())
}

impl Resolved {
    /// Whether finish-time fairness (rho) can be computed: it needs the isolated policy,
    /// which exists for round-based experiments only.
    pub fn supports_fairness(&self) -> bool {
        self.mechanism() == Mechanism::Rounds
    }

    /// The simulator settings for a policy with its own scheduling interval, if it has
    /// one.
    fn sim_config(&self, interval: Option<f64>) -> SimConfig {
        SimConfig {
            round_len: interval.unwrap_or(self.sim.round_len),
            ..self.sim.clone()
        }
    }

    /// What the profile knows, in one line for people: its GPU types (a per-type profile)
    /// or that its models run on any one GPU type, and its job types.
    pub fn profile_types(&self) -> String {
        if let Some(apps) = &self.apps {
            format!(
                "elastic applications on any one GPU type: {}",
                apps.names().join(", ")
            )
        } else if let Some(ps) = &self.ps {
            format!(
                "parameter-server models on any one GPU type: {}",
                ps.models.names().join(", ")
            )
        } else {
            format!(
                "GPU types {}; job types {}",
                self.profile.gpu_types().join(", "),
                self.profile.job_type_names().join(", ")
            )
        }
    }

    /// The mechanism that runs this experiment's policies.
    pub fn mechanism(&self) -> Mechanism {
        if self.ps.is_some() {
            Mechanism::Slots
        } else if self.preemption.is_some() {
            Mechanism::Preemptive
        } else if self.load.is_some() {
            Mechanism::Pooled
        } else if self.apps.is_some() {
            Mechanism::Elastic
        } else {
            Mechanism::Rounds
        }
    }

    /// A simulation of one policy in the experiment's mechanism, ready to step.
    pub fn stepper(&self, policy_spec: &str) -> Result<Box<dyn Stepper>, ExperimentError> {
        let mechanism = self.mechanism();
        if policy::catalog::runner_of(policy_spec, mechanism)? != mechanism {
            return Ok(Box::new(self.rigid_simulator(policy_spec)?));
        }
        Ok(match (&self.ps, &self.preemption, &self.load, &self.apps) {
            (Some(ps), _, _, _) => Box::new(self.slot_simulator(policy_spec, ps)?),
            (None, Some(model), _, _) => Box::new(self.preemptive_simulator(policy_spec, model)?),
            (None, None, Some(load), _) => Box::new(self.pooled_simulator(policy_spec, load)?),
            (None, None, None, Some(apps)) => Box::new(self.elastic_simulator(policy_spec, apps)?),
            (None, None, None, None) => Box::new(self.simulator(policy_spec)?),
        })
    }

    /// A round-based simulator for a round-based policy in an elastic experiment: every job
    /// runs rigid at its user's GPU count and batch, with the throughput its application's
    /// model gives there ([`crate::workload::rigid`]).
    pub fn rigid_simulator(&self, policy_spec: &str) -> Result<Simulator, ExperimentError> {
        let apps = self.apps.as_ref().ok_or_else(|| {
            ExperimentError::Invalid("rigid runs are of elastic experiments".into())
        })?;
        let split = policy::catalog::split_interval(policy_spec)?;
        let p = policy::build(&split.spec)?;
        let (jobs, profile) =
            crate::workload::rigid::rigid_workload(apps, &self.trace.jobs, &self.cluster);
        Ok(Simulator::new(
            self.sim_config(split.interval),
            self.cluster.clone(),
            jobs,
            profile,
            p,
        )?)
    }

    /// A simulator for one policy.
    pub fn simulator(&self, policy_spec: &str) -> Result<Simulator, ExperimentError> {
        let split = policy::catalog::split_interval(policy_spec)?;
        let p = policy::build(&split.spec)?;
        Ok(Simulator::new(
            self.sim_config(split.interval),
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
        mut progress: impl FnMut(&RoundReport),
    ) -> Result<RunResult, ExperimentError> {
        let mut rec = Recorder::new(&self.trace.jobs, self.cluster.num_types());
        rec.preemption.enabled = self.preemption.is_some();
        let split = policy::catalog::split_interval(policy_spec)?;
        let mut sim = self.stepper(policy_spec)?;
        while let Some(report) = sim.step() {
            for e in &report.events {
                rec.observe(e);
            }
            progress(&report);
            if window.is_some_and(|(a, b)| (a..b).all(|j| sim.job_done(j))) {
                break;
            }
        }
        let name = split.name_with_interval(sim.policy_name());
        let summary = rec.summary(&name, &self.cluster, window, isolated_jct);
        Ok(RunResult {
            summary,
            recorder: rec,
        })
    }

    /// A slot (DL2) simulator for one policy of the `dl2` family.
    pub fn slot_simulator(
        &self,
        policy_spec: &str,
        ps: &PsSetup,
    ) -> Result<SlotSimulator, ExperimentError> {
        let split = policy::catalog::split_interval(policy_spec)?;
        let p =
            policy::dl2::build_with(&split.spec, ps.network.as_deref(), ps.models.models.len())?;
        self.slot_simulator_at(p, ps, split.interval)
    }

    /// A slot (DL2) simulator running `policy` (one built outside the registry, such as a
    /// policy being trained).
    pub fn slot_simulator_with(
        &self,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
        ps: &PsSetup,
    ) -> Result<SlotSimulator, ExperimentError> {
        self.slot_simulator_at(policy, ps, None)
    }

    /// [`Resolved::slot_simulator_with`] with the policy's own slot length, if it has one.
    fn slot_simulator_at(
        &self,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
        ps: &PsSetup,
        interval: Option<f64>,
    ) -> Result<SlotSimulator, ExperimentError> {
        let cfg = SlotConfig {
            slot_s: interval.unwrap_or(self.sim.round_len),
            restart_s: self.sim.restart_cost,
            ps: ps.config,
            seed: self.sim.seed,
            ..SlotConfig::default()
        };
        Ok(SlotSimulator::new(
            cfg,
            &self.cluster,
            self.trace.jobs.clone(),
            Arc::clone(&ps.models),
            policy,
        )?)
    }

    /// A preemptive (PickyMan) simulator for one policy.
    pub fn preemptive_simulator(
        &self,
        policy_spec: &str,
        model: &OverheadModel,
    ) -> Result<PreemptiveSimulator, ExperimentError> {
        let p = policy::pickyman::build(policy_spec)?;
        Ok(PreemptiveSimulator::new(
            &self.cluster,
            self.trace.jobs.clone(),
            self.profile.clone(),
            *model,
            self.sim.seed,
            p,
        )?)
    }

    /// A pooled (Aryl) simulator for one policy.
    pub fn pooled_simulator(
        &self,
        policy_spec: &str,
        load: &LoadCurve,
    ) -> Result<PooledSimulator, ExperimentError> {
        let split = policy::catalog::split_interval(policy_spec)?;
        let p = policy::aryl::build(&split.spec)?;
        let cfg = PooledConfig {
            tick: split.interval.unwrap_or(self.sim.round_len),
            restart_s: self.sim.restart_cost,
            ..PooledConfig::default()
        };
        Ok(PooledSimulator::new(
            cfg,
            self.cluster.clone(),
            self.trace.jobs.clone(),
            &self.profile,
            load.clone(),
            p,
        )?)
    }

    /// An elastic simulator for one policy (the experiment's profile must be elastic).
    pub fn elastic_simulator(
        &self,
        policy_spec: &str,
        apps: &Arc<Apps>,
    ) -> Result<ElasticSimulator, ExperimentError> {
        let split = policy::catalog::split_interval(policy_spec)?;
        let p = policy::pollux::build(&split.spec)?;
        let cfg = ElasticConfig {
            interval: split.interval.unwrap_or(self.sim.round_len),
            restart_s: self.sim.restart_cost,
            seed: self.sim.seed,
            ..ElasticConfig::default()
        };
        Ok(ElasticSimulator::new(
            cfg,
            self.cluster.clone(),
            self.trace.jobs.clone(),
            Arc::clone(apps),
            p,
        )?)
    }

    /// [`Resolved::run_policy`] as run `run` of `runs`, reporting [`Progress`] after every
    /// round.
    pub fn run_reporting(
        &self,
        policy_spec: &str,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
        (run, runs): (usize, usize),
        mut progress: impl FnMut(&Progress),
    ) -> Result<RunResult, ExperimentError> {
        let mut p = Progress {
            run,
            runs,
            policy: policy_spec.to_string(),
            jobs_done: 0,
            jobs: self.trace.jobs.len(),
        };
        self.run_policy(policy_spec, window, isolated_jct, |report| {
            p.jobs_done += report.jobs_ended();
            progress(&p);
        })
    }
}

/// Run every policy of the experiment (and the isolated baseline for rho when asked).
pub fn run(exp: &Experiment) -> Result<Vec<RunResult>, ExperimentError> {
    Ok(run_with_progress(exp, |_| {})?.results)
}

/// The results of every policy, and the isolated baseline's JCTs when fairness was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// One result per policy, in the experiment's order.
    pub results: Vec<RunResult>,
    /// JCT per job under the isolated policy (the denominators of rho).
    pub isolated_jct: Option<Vec<Option<f64>>>,
}

/// Progress of [`run_with_progress`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Which run (the policies in order, then the isolated baseline when fairness is on).
    pub run: usize,
    /// How many runs in all.
    pub runs: usize,
    /// Policy of the current run.
    pub policy: String,
    /// Jobs finished in the current run.
    pub jobs_done: usize,
    /// Jobs in the trace.
    pub jobs: usize,
}

impl Progress {
    /// Overall fraction done, 0..1.
    pub fn fraction(&self) -> f64 {
        if self.runs == 0 || self.jobs == 0 {
            return 0.0;
        }
        (self.run as f64 + self.jobs_done as f64 / self.jobs as f64) / self.runs as f64
    }
}

/// [`run`], reporting progress after every round.
pub fn run_with_progress(
    exp: &Experiment,
    mut progress: impl FnMut(&Progress),
) -> Result<Outcome, ExperimentError> {
    let r = exp.resolve()?;
    let plan = r.plan(exp);
    let results = plan
        .tasks
        .iter()
        .map(|t| r.run_task(&plan, t, &mut progress))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(r.finish(&plan, results))
}

/// One run of a [`Plan`]: one of the experiment's policies, or the isolated baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Position in the plan.
    pub index: usize,
    /// The policy's spec.
    pub policy: String,
    /// The isolated baseline (the denominators of rho), not one of the experiment's
    /// policies: it runs without a window.
    pub baseline: bool,
}

/// What running an experiment takes: every policy in the experiment's order, then the
/// isolated baseline when finish-time fairness (rho) is asked for and the mechanism has
/// it. The CLI runs the tasks in parallel, the page's worker one after the other
/// (showing each policy as it finishes), the library in order; [`Resolved::finish`] joins
/// them the same way for all three.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The runs, policies first.
    pub tasks: Vec<Task>,
    /// The window of measured jobs.
    pub window: Option<(usize, usize)>,
}

impl Plan {
    /// Whether the plan ends with the isolated baseline.
    pub fn has_baseline(&self) -> bool {
        self.tasks.last().is_some_and(|t| t.baseline)
    }
}

impl Resolved {
    /// The runs of `exp` (which this was resolved from).
    pub fn plan(&self, exp: &Experiment) -> Plan {
        let mut tasks: Vec<Task> = exp
            .policies
            .iter()
            .enumerate()
            .map(|(index, p)| Task {
                index,
                policy: p.clone(),
                baseline: false,
            })
            .collect();
        if exp.fairness && self.supports_fairness() {
            tasks.push(Task {
                index: tasks.len(),
                policy: policy::BASELINE.to_string(),
                baseline: true,
            });
        }
        Plan {
            tasks,
            window: exp.window,
        }
    }

    /// Run one task of `plan`, reporting [`Progress`] after every step.
    pub fn run_task(
        &self,
        plan: &Plan,
        task: &Task,
        progress: impl FnMut(&Progress),
    ) -> Result<RunResult, ExperimentError> {
        let window = if task.baseline { None } else { plan.window };
        self.run_reporting(
            &task.policy,
            window,
            None,
            (task.index, plan.tasks.len()),
            progress,
        )
    }

    /// Join the results of every task of `plan` (in the plan's order): the baseline's JCTs
    /// become the denominators of every policy's rho.
    pub fn finish(&self, plan: &Plan, mut results: Vec<RunResult>) -> Outcome {
        let iso = if plan.has_baseline() && results.len() == plan.tasks.len() {
            results.pop().map(|b| b.recorder.jcts())
        } else {
            None
        };
        if let Some(iso) = &iso {
            for res in &mut results {
                res.summary = res.recorder.summary(
                    &res.summary.policy,
                    &self.cluster,
                    plan.window,
                    Some(iso),
                );
            }
        }
        Outcome {
            results,
            isolated_jct: iso,
        }
    }
}

/// Why a share link could not be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LinkError {
    /// The link has no experiment in it.
    #[error("the link carries no experiment (expected '#x1.' followed by data)")]
    Missing,
    /// The link was made by a newer codec.
    #[error("the link uses codec '{0}', which this build does not know")]
    UnknownCodec(String),
    /// The data is not valid base64url.
    #[error("the link is garbled: {0}")]
    Garbled(String),
    /// The data is cut short or corrupt.
    #[error("the link is truncated or corrupt: {0}")]
    Corrupt(String),
    /// The experiment inside is invalid.
    #[error("the link's experiment is invalid: {0}")]
    Invalid(String),
}

/// Prefix of the current link codec: deflate-compressed JSON, base64url, in the fragment.
pub const LINK_CODEC: &str = "x1";

impl Experiment {
    /// The URL fragment (without `#`) that carries this experiment.
    pub fn to_fragment(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        format!("{LINK_CODEC}.{}", base64url_encode(&packed))
    }

    /// A full share link on `base` (the page's address, without fragment).
    pub fn to_link(&self, base: &str) -> String {
        let base = base.split('#').next().unwrap_or(base);
        format!("{base}#{}", self.to_fragment())
    }

    /// Read an experiment from a share link, its fragment, or the fragment's payload.
    pub fn from_link(link: &str) -> Result<Self, LinkError> {
        let frag = link.trim().rsplit_once('#').map_or(link.trim(), |(_, f)| f);
        if frag.is_empty() {
            return Err(LinkError::Missing);
        }
        let (codec, data) = frag.split_once('.').ok_or(LinkError::Missing)?;
        if codec != LINK_CODEC {
            return Err(LinkError::UnknownCodec(codec.chars().take(16).collect()));
        }
        let packed = base64url_decode(data).map_err(LinkError::Garbled)?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 64 << 20)
            .map_err(|e| LinkError::Corrupt(format!("{:?}", e.status)))?;
        let text = String::from_utf8(json).map_err(|_| LinkError::Corrupt("not UTF-8".into()))?;
        Experiment::from_json(&text).map_err(|e| LinkError::Invalid(e.to_string()))
    }
}

/// The decoder of links: the URL-safe alphabet, any padding or none, and bits past the last
/// byte ignored (as links written by earlier builds may have them).
const LINK_DECODER: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Base64url without padding.
pub fn base64url_encode(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// Decode base64url (padding and whitespace tolerated, anywhere; the standard alphabet's
/// `+` and `/` read as `-` and `_`).
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut clean = Vec::with_capacity(text.len());
    for (i, c) in text.bytes().enumerate() {
        match c {
            b'=' => {}
            c if c.is_ascii_whitespace() => {}
            b'+' => clean.push(b'-'),
            b'/' => clean.push(b'_'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => clean.push(c),
            _ => {
                return Err(format!(
                    "unexpected character '{}' at position {i}",
                    c as char
                ))
            }
        }
    }
    LINK_DECODER.decode(&clean).map_err(|e| match e {
        DecodeError::InvalidLength(_) => "the data ends in the middle of a byte".to_string(),
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trip() {
        for n in 0..40 {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64url_decode(&base64url_encode(&data)).unwrap(), data);
        }
        assert_eq!(base64url_encode(b"Man"), "TWFu");
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert!(base64url_decode("ab$c").is_err());
        // RFC 4648's vectors, without padding.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url_encode(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn base64url_decoding_is_lenient_and_errors_say_where() {
        let foo = b"foo".to_vec();
        // Padding, whitespace and the standard alphabet's + and / are accepted.
        assert_eq!(base64url_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64url_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64url_decode(" Zm\n9v\r\n").unwrap(), foo);
        assert_eq!(base64url_decode("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(base64url_decode("+/8").unwrap(), [0xfb, 0xff]);
        // Bits past the last byte are ignored.
        assert_eq!(base64url_decode("Zh").unwrap(), b"f");
        assert_eq!(
            base64url_decode("ab$c").unwrap_err(),
            "unexpected character '$' at position 2"
        );
        assert_eq!(
            base64url_decode("Zm9vY").unwrap_err(),
            "the data ends in the middle of a byte"
        );
    }

    /// An experiment fixed in JSON, so its link text does not follow the presets.
    const GOLDEN_EXPERIMENT: &str = r#"{"version":1,"cluster":"8:8:8","workload":{"kind":"inline","name":"w.csv","text":"job_type,arrival_s,total_steps\nResNet-18 (batch size 16),0,1000\n"},"profile":{"kind":"preset","name":"gavel-types"},"policies":["las","max_min_fairness_perf"],"seed":42}"#;

    #[test]
    fn link_text_is_unchanged() {
        let e = Experiment::from_json(GOLDEN_EXPERIMENT).unwrap();
        let frag = e.to_fragment();
        assert_eq!(
            frag,
            "x1.TU_NTsMwDH6VySeQsqkFNE15CA5cGYq8zoWwNIlstxtMe3fcIcTkg_3Z3498holYYsngWwddGkWJwcPGW4GDY-FDKrgHf4ZDzNYh5hQz2S3jQIaPq04mg0onNfhZdkG_KjlkjhOmIE6Lzl2pyja_kDyTLtvN4m6H2n0sJH7Tol3fu8a1TdNsM1wcVC59THQTW5mE9D_2HSdKyzlJroKSYhdt9q-QUIw34CkMMYceI2cSCZW4hzcHQmSGTw8OuIx5H0zzuG5Wjfv1DF0ZKtorPSYhI5EostpadOZemX-m4JVHuvwA"
        );
        assert_eq!(Experiment::from_link(&frag).unwrap(), e);
    }

    #[test]
    fn links_round_trip_and_fail_clearly() {
        let e = Experiment {
            seed: 42,
            policies: vec!["las".into(), "max_min_fairness_perf".into()],
            ..Experiment::default()
        };
        let link = e.to_link("http://127.0.0.1:8080/");
        assert!(link.starts_with("http://127.0.0.1:8080/#x1."));
        assert_eq!(Experiment::from_link(&link).unwrap(), e);
        assert_eq!(Experiment::from_link(&e.to_fragment()).unwrap(), e);
        let cut = &link[..link.len() - 10];
        assert!(matches!(
            Experiment::from_link(cut),
            Err(LinkError::Corrupt(_) | LinkError::Garbled(_))
        ));
        assert!(matches!(
            Experiment::from_link("http://x/#x1.@@@"),
            Err(LinkError::Garbled(_))
        ));
        assert!(matches!(
            Experiment::from_link("http://x/"),
            Err(LinkError::Missing)
        ));
        assert!(matches!(
            Experiment::from_link("http://x/#x9.AAAA"),
            Err(LinkError::UnknownCodec(_))
        ));
        let not_json = format!(
            "x1.{}",
            base64url_encode(&miniz_oxide::deflate::compress_to_vec(b"{nope", 6))
        );
        assert!(matches!(
            Experiment::from_link(&not_json),
            Err(LinkError::Invalid(_))
        ));
    }

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
