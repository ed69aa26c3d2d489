//! Resolving an experiment: every input parsed and checked, the mechanism decided.

use super::*;
use crate::workload::timed;

/// The note of a profile-free run.
pub const PROFILE_FREE: &str = "profile-free: every job makes one step per second at its GPU count on any GPU type, so a job of a trace of durations runs for its traced duration";

impl Experiment {
    /// Parse and check every input.
    pub fn resolve(&self) -> Result<Resolved, ExperimentError> {
        let cluster = ClusterSpec::parse(&self.cluster)?;
        let kind = self.profile.job_model();
        let ps_models = match &self.profile {
            _ if kind != JobModel::ParameterServer => None,
            ProfileSource::Preset { name } => presets::ps_models(name).transpose()?,
            ProfileSource::Inline { name, text } => Some(PsModels::from_json(text, name)?),
            ProfileSource::Files { name, files } => Some(dl2_files::read_profile(name, files)?),
            _ => None,
        };
        if let Some(models) = ps_models {
            return self.resolve_ps(cluster, models);
        }
        if self.dl2_compat {
            return Err(ExperimentError::Invalid(
                "dl2_compat applies to parameter-server experiments (a profile of parameter-server models, such as DL2's folder)".into(),
            ));
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
        let (profile, mut apps) = match &self.profile {
            ProfileSource::Preset { name } => match presets::elastic_apps(name) {
                Some(apps) => (Profile::default(), Some(apps?)),
                None => (presets::profile(name)?, None),
            },
            ProfileSource::Inline { name, text } if kind == JobModel::Elastic => {
                (Profile::default(), Some(Apps::from_json(text, name)?))
            }
            ProfileSource::Inline { name, text } => (Profile::parse(text, name)?, None),
            ProfileSource::Files { name, files } => (
                Profile::default(),
                Some(Apps::from_pollux_files(name, files)?),
            ),
            ProfileSource::ProfileFree => {
                if matches!(self.workload, WorkloadSource::Generated(_)) {
                    return Err(ExperimentError::Invalid(
                        "a profile-free experiment runs a trace: the generator draws job types of a profile".into(),
                    ));
                }
                (Profile::default(), None)
            }
        };
        // Experiments outside Gavel-compatible mode take the GPU types in name order
        // whatever order the spec lists them in: the mechanisms visit types (or their
        // servers) in turn and break ties by position, so a listed order would otherwise
        // leak into the results. Gavel-compatible mode keeps the given order (Gavel's is
        // part of its mechanism), and so does an inference pool (its type is named).
        let mut cluster = cluster;
        if self.inference.is_none() && !self.gavel_compat {
            crate::order::sort_by(&mut cluster.types, |a, b| a.name.cmp(&b.name));
        }
        let trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Generated(g) => match &apps {
                Some(apps) => crate::workload::generator::generate_elastic(apps, g)?,
                None => generate(&profile, &cluster, g)?,
            },
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
        };
        let mut notes = Vec::new();
        let mut trace = self.prepared(trace, &mut notes)?;
        let mut warnings = Vec::new();
        let profile = if self.is_profile_free() {
            notes.push(PROFILE_FREE.to_string());
            timed::profile_free(&trace, &cluster)
        } else {
            if trace.is_timed() {
                if apps.is_some() {
                    return Err(ExperimentError::Invalid(format!(
                        "{} knows its jobs by duration and GPU count: it runs profile-free or with a round-based throughput profile, not with elastic applications",
                        trace.name
                    )));
                }
                warnings.extend(timed::assign_job_types(
                    &mut trace, &profile, &cluster, self.seed,
                )?);
                notes.push(format!(
                    "job types drawn from the profile for the jobs of {} (seed {}): each job's traced duration is its run time on its fastest GPU type",
                    trace.name, self.seed
                ));
            }
            profile
        };
        if self.policies.is_empty() {
            return Err(ExperimentError::Invalid("no policies to run".into()));
        }
        self.apply_slowdowns(apps.as_mut())?;
        match &apps {
            Some(apps) => {
                if self.gavel_compat {
                    return Err(ExperimentError::Invalid(
                        "gavel_compat applies to round-based experiments, not elastic ones".into(),
                    ));
                }
                check_elastic(&mut trace, apps, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(
                        p,
                        Mechanism::of_world(JobModel::Elastic, false, false),
                    )?;
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
                    policy::catalog::check(p, Mechanism::of_world(JobModel::Rigid, true, false))?;
                }
            }
            None if self.preemption.is_some() => {
                if self.gavel_compat {
                    return Err(ExperimentError::Invalid(
                        "gavel_compat applies to round-based experiments, not preemptive ones"
                            .into(),
                    ));
                }
                trace.check_against(&profile, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::of_world(JobModel::Rigid, false, true))?;
                }
            }
            None => {
                trace.check_against(&profile, &cluster)?;
                for p in &self.policies {
                    policy::catalog::check(p, Mechanism::of_world(JobModel::Rigid, false, false))?;
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
                    .find(|t| t.is_inference())
                    .ok_or_else(|| {
                        ExperimentError::Invalid(
                            "an inference pool needs a GPU type named 'inference' or 'inference-<model>' in the cluster (e.g. v100:128/8,inference:128/8 or v100:128/8,inference-t4:128/8)".into(),
                        )
                    })?;
                let servers = inf.count / inf.per_server.max(1);
                Some(match src {
                    InferenceSource::Diurnal(c) => diurnal(c, servers)?,
                    InferenceSource::Inline { name, text } => LoadCurve::parse_csv(text, name)?,
                })
            }
        };
        self.apply_restart_delays(&mut trace.jobs)?;
        apply_checkpoint_writes(&profile, &mut trace.jobs)?;
        if let Some(apps) = &apps {
            // Applications with delays of their own (Sia's) give them to their jobs.
            for j in trace.jobs.iter_mut().filter(|j| j.restart_s.is_none()) {
                j.restart_s = apps.index(&j.job_type).and_then(|k| apps.apps[k].restart_s);
            }
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
            restart: self.restart_model(),
            seed: self.seed,
            faults: self.faults.clone(),
            until: self.until_s,
            spot: self.spot_traces(&cluster)?,
            spot_warning_s: self
                .spot_warning_s
                .unwrap_or(crate::sim::DEFAULT_SPOT_WARNING_S),
            ..SimConfig::default()
        };
        self.check_faults()?;
        if !(sim.round_len.is_finite() && sim.round_len > 0.0) {
            return Err(ExperimentError::Invalid(
                "round_s must be a positive number".into(),
            ));
        }
        if let Some(c) = &self.preemption {
            if apps.is_some() {
                return Err(ExperimentError::Invalid(
                    "a preemption model goes with a round-based profile, not elastic applications"
                        .into(),
                ));
            }
            c.check().map_err(WorkloadError::from)?;
        }
        warnings.extend(if apps.is_none() {
            unused_types(&cluster, &trace, &profile)
        } else {
            partial_servers(&cluster)
        });
        Ok(Resolved {
            cluster,
            trace,
            profile,
            sim,
            models: apps.map_or(JobModels::Rigid, |a| JobModels::Elastic(Arc::new(a))),
            load,
            warnings,
            notes,
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
        let config = self.ps.unwrap_or(if self.dl2_compat {
            PsConfig::dl2()
        } else {
            PsConfig::default()
        });
        config.check()?;
        let trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Generated(g) => match g.dl2 {
                Some(d) => crate::workload::dl2_gen::generate(
                    &models,
                    d,
                    g.seed,
                    g.num_jobs,
                    self.round_s,
                )?,
                None => generate_ps(&models, g)?,
            },
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
        };
        let mut notes = Vec::new();
        let mut trace = self.prepared(trace, &mut notes)?;
        if trace.is_timed() {
            return invalid(
                "a trace of durations (Philly, Helios, Acme) runs profile-free or with a round-based throughput profile, not with parameter-server models",
            );
        }
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
                // A bundle of networks (the bundled file's form) gives its world's.
                let bad = |e: String| ExperimentError::Invalid(format!("network {name}: {e}"));
                let net = if text.contains(crate::policy::dl2::bundled::FORMAT) {
                    let nets = crate::policy::dl2::bundled::parse(text).map_err(bad)?;
                    crate::policy::dl2::bundled::World::of(self.dl2_compat).pick(nets)
                } else {
                    Mlp::from_json(text).map_err(|e| bad(e.to_string()))?
                };
                Some(Arc::new(net))
            }
        };
        let world = Mechanism::of_world(JobModel::ParameterServer, false, false);
        for p in &self.policies {
            policy::catalog::check(p, world)?;
            // The other families' policies run the jobs as rigid ones.
            if policy::catalog::runner_of(p, world)? != world {
                continue;
            }
            policy::dl2::check_with(p, network.as_deref(), models.models.len(), self.dl2_compat)
                .map_err(|e| match e {
                    PolicyError::Failed { reason, .. } => ExperimentError::Invalid(format!(
                        "network {}: {reason}",
                        match &self.network {
                            Some(NetworkSource::Inline { name, .. }) => name.as_str(),
                            None => "(bundled)",
                        }
                    )),
                    e => e.into(),
                })?;
        }
        self.apply_restart_delays(&mut trace.jobs)?;
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
            dl2_compat: self.dl2_compat,
            // DL2-compatible mode charges nothing, as DL2 does.
            restart: RestartModel::delay(if self.dl2_compat {
                0.0
            } else {
                self.restart_cost_s
            }),
            seed: self.seed,
            faults: self.faults.clone(),
            until: self.until_s,
            spot: self.spot_traces(&cluster)?,
            spot_warning_s: self
                .spot_warning_s
                .unwrap_or(crate::sim::DEFAULT_SPOT_WARNING_S),
            ..SimConfig::default()
        };
        self.check_faults()?;
        Ok(Resolved {
            cluster,
            trace,
            profile: Profile::default(),
            sim,
            load: None,
            models: JobModels::ParameterServer(PsSetup {
                models: Arc::new(models),
                config,
                network,
            }),
            warnings: Vec::new(),
            notes,
        })
    }

    /// Whether the experiment runs without a profile (see [`ProfileSource::ProfileFree`]).
    pub fn is_profile_free(&self) -> bool {
        matches!(self.profile, ProfileSource::ProfileFree)
    }

    /// The trace of a bundled or uploaded workload as the experiment reads it, before any
    /// profile: its trace filter applied and its arrivals scaled by the load factor (the
    /// jobs' work is still seconds for a trace of durations, which a profile would turn into
    /// steps of the job types it draws). None for a generated workload, whose jobs are drawn
    /// from the profile. The page's Trace shape panel charts it.
    pub fn read_trace(&self) -> Result<Option<Trace>, ExperimentError> {
        let trace = match &self.workload {
            WorkloadSource::Preset { name } => presets::trace(name)?,
            WorkloadSource::Inline { name, text } => Trace::parse(text, name)?,
            WorkloadSource::Generated(_) => return Ok(None),
        };
        self.prepared(trace, &mut Vec::new()).map(Some)
    }

    /// The trace filtered and its arrivals scaled by the load factor; notes say so.
    fn prepared(&self, trace: Trace, notes: &mut Vec<String>) -> Result<Trace, ExperimentError> {
        let mut trace = self.filtered(trace, notes)?;
        self.apply_load(&mut trace, notes)?;
        let spot_jobs = trace.jobs.iter().filter(|j| j.spot).count();
        if spot_jobs > 0 {
            notes.push(format!(
                "{spot_jobs} spot jobs: they {}",
                crate::sim::SPOT_JOBS
            ));
        }
        Ok(trace)
    }

    /// The trace after the experiment's filter; a note says what the filter kept.
    fn filtered(&self, trace: Trace, notes: &mut Vec<String>) -> Result<Trace, ExperimentError> {
        let Some(f) = self.trace_filter.as_ref().filter(|f| !f.is_empty()) else {
            return Ok(trace);
        };
        let before = trace.jobs.len();
        let kept = f.apply(trace, self.seed)?;
        notes.push(format!(
            "trace filter ({}): {} of {before} jobs kept",
            f.describe(),
            kept.jobs.len()
        ));
        Ok(kept)
    }

    /// Compress the arrivals by the load factor; a note says so (none at 1).
    fn apply_load(
        &self,
        trace: &mut Trace,
        notes: &mut Vec<String>,
    ) -> Result<(), ExperimentError> {
        crate::workload::load::scale_arrivals(trace, self.load_factor)?;
        if self.load_factor != 1.0 {
            notes.push(format!(
                "load x{}: arrivals compressed in time by {} about the first one",
                self.load_factor, self.load_factor
            ));
        }
        Ok(())
    }

    /// Give each application listed in `slowdown` its factor (refused without elastic
    /// applications, for an application the profile does not have, or outside 0.01 to 100).
    fn apply_slowdowns(&self, apps: Option<&mut Apps>) -> Result<(), ExperimentError> {
        if self.slowdown.is_empty() {
            return Ok(());
        }
        let apps = apps.ok_or_else(|| {
            ExperimentError::Invalid(
                "slowdowns go with a profile of elastic applications (e.g. Sia's folders)".into(),
            )
        })?;
        for (name, &f) in &self.slowdown {
            if !(f.is_finite() && (0.01..=100.0).contains(&f)) {
                return Err(ExperimentError::Invalid(format!(
                    "slowdown '{name}': {f} must be a factor between 0.01 and 100"
                )));
            }
            let k = apps.index(name).ok_or_else(|| {
                ExperimentError::Invalid(format!(
                    "slowdown '{name}': not an application of the profile ({})",
                    apps.names().join(", ")
                ))
            })?;
            apps.apps[k].slowdown = f;
        }
        Ok(())
    }

    /// Whether the experiment's profile is one of elastic applications (Pollux-style)
    /// ([`ProfileSource::job_model`]).
    pub fn is_elastic(&self) -> bool {
        self.profile.job_model() == JobModel::Elastic
    }

    /// Whether the experiment's profile is one of parameter-server models (DL2-style): it
    /// then runs in the slot simulator ([`ProfileSource::job_model`]).
    pub fn is_ps(&self) -> bool {
        self.profile.job_model() == JobModel::ParameterServer
    }
}

impl ProfileSource {
    /// The kind of jobs the profile describes: parameter-server models, elastic
    /// applications, or throughputs of rigid jobs (a profile-free run's too). Decided here
    /// once, from the bundled profiles' lists or an uploaded file's format marker, for the
    /// resolution, the page and the CLI.
    pub fn job_model(&self) -> JobModel {
        match self {
            ProfileSource::Preset { name }
                if presets::PS_PROFILES.iter().any(|b| b.name == name) =>
            {
                JobModel::ParameterServer
            }
            ProfileSource::Preset { name }
                if presets::ELASTIC_PROFILES.iter().any(|b| b.name == name) =>
            {
                JobModel::Elastic
            }
            ProfileSource::Inline { text, .. } => Self::inline_job_model(text),
            ProfileSource::Files { files, .. } if dl2_files::is_profile_folder(files) => {
                JobModel::ParameterServer
            }
            ProfileSource::Files { .. } => JobModel::Elastic,
            ProfileSource::Preset { .. } | ProfileSource::ProfileFree => JobModel::Rigid,
        }
    }

    /// The kind of jobs an uploaded profile's text describes, from its format marker.
    pub fn inline_job_model(text: &str) -> JobModel {
        if PsModels::is_ps_json(text) {
            JobModel::ParameterServer
        } else if Apps::is_apps_json(text) {
            JobModel::Elastic
        } else {
            JobModel::Rigid
        }
    }
}

/// One warning per GPU type of the cluster on which no job of the trace can run (no
/// throughput in the profile at the job's scale factor, or fewer GPUs than it needs).
/// GPUs of a type that make no whole server: the elastic mechanism leaves them idle.
fn partial_servers(cluster: &ClusterSpec) -> Vec<String> {
    cluster
        .types
        .iter()
        .filter_map(|t| {
            let per = t.per_server.max(1);
            let left = t.count % per;
            (left > 0).then(|| {
                format!(
                    "{}: {left} of its {} GPUs make no whole server of {per} and stay idle (they count in utilization)",
                    t.name, t.count
                )
            })
        })
        .collect()
}

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
        .filter(|(t, u)| !u && t.count > 0 && !t.is_inference())
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
    // A job runs on one type at a time: the largest type's whole servers bound its size.
    let total = cluster
        .types
        .iter()
        .map(|t| t.count - t.count % t.per_server.max(1))
        .max()
        .unwrap_or(0);
    for (i, job) in trace.jobs.iter_mut().enumerate() {
        let line = trace.lines.get(i).copied().unwrap_or(0);
        let Some(app) = apps.index(&job.job_type).map(|k| &apps.apps[k]) else {
            return Err(WorkloadError::field(
                &trace.name,
                line,
                "application",
                match apps.unread.iter().find(|u| u.0 == job.job_type) {
                    Some((name, why)) => {
                        format!("'{name}' was not read from the profile's folder: {why}")
                    }
                    None => format!(
                        "'{}' is not an application of the profile ({})",
                        job.job_type,
                        apps.names().join(", ")
                    ),
                },
            ));
        };
        if job.scale_factor > total {
            return Err(WorkloadError::field(
                &trace.name,
                line,
                "num_replicas",
                format!(
                    "{} GPUs asked, the cluster's largest GPU type has {total} in whole servers",
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

/// Each job without a checkpoint write time of its own takes its type's, when its profile
/// entry gives one; every one is checked.
fn apply_checkpoint_writes(
    profile: &Profile,
    jobs: &mut [crate::model::job::JobSpec],
) -> Result<(), ExperimentError> {
    for j in jobs.iter_mut() {
        if j.checkpoint_write_s.is_none() {
            j.checkpoint_write_s =
                (profile.job_types.get(&j.job_type)).and_then(|p| p.checkpoint_write_s);
        }
        if let Some(w) = j.checkpoint_write_s {
            if !(w.is_finite() && (0.0..=86_400.0).contains(&w)) {
                return Err(ExperimentError::Invalid(format!(
                    "job type '{}': a checkpoint write of {w} s must be between 0 and 86,400 s",
                    j.job_type
                )));
            }
        }
    }
    Ok(())
}
