//! Switching an experiment's family (round-based, elastic applications or parameter-server
//! models) when a person picks a profile or uploads a trace of another: the experiment takes
//! that family's settings, and the family's workload or cluster where its own do not fit.
//! Pure: the caller says whether an experiment resolves (the page keeps its last
//! resolutions), and applies the experiment it gets back.

use super::{scenarios, Experiment, ProfileSource, WorkloadSource};
use crate::model::cluster::ClusterSpec;
use crate::sim::JobModel;
use crate::workload::{presets, Apps, Profile, PsModels};

/// Whether an experiment resolves, and why not.
pub type Resolves<'a> = dyn FnMut(&Experiment) -> Result<(), String> + 'a;

/// The experiment's workload, for people.
pub fn workload_label(exp: &Experiment) -> String {
    match &exp.workload {
        WorkloadSource::Preset { name } => format!("bundled trace '{name}'"),
        WorkloadSource::Generated(crate::workload::GeneratorConfig {
            dl2: Some(d),
            num_jobs,
            seed,
            ..
        }) => format!(
            "DL2's generator: {num_jobs} jobs, {} scale, numpy seed {seed}, trace {}",
            d.scale.name(),
            d.trace
        ),
        WorkloadSource::Generated(g) => format!(
            "generated{}: {} jobs, {} jobs/h,{} seed {}",
            if exp.is_elastic() { " (elastic)" } else { "" },
            g.num_jobs,
            g.jobs_per_hour,
            if g.duration_scale == 1.0 {
                String::new()
            } else {
                format!(" durations × {},", g.duration_scale)
            },
            g.seed
        ),
        WorkloadSource::Inline { name, .. } => format!("uploaded '{name}'"),
    }
}

/// The bundled scenario of the family of experiments whose jobs are of `family`'s model,
/// whose settings a switch adopts.
pub fn family_scenario(family: JobModel) -> Experiment {
    match family {
        JobModel::Rigid => scenarios::default_experiment(),
        JobModel::Elastic => scenarios::pollux_experiment(),
        JobModel::ParameterServer => scenarios::dl2_experiment(),
    }
}

/// The family's name for people.
pub fn family_label(family: JobModel) -> &'static str {
    match family {
        JobModel::Rigid => "Round-based",
        JobModel::Elastic => "Elastic-applications",
        JobModel::ParameterServer => "Parameter-server (DL2)",
    }
}

/// Give `c` the settings of its profile's family (Pollux's for elastic applications, DL2's
/// for parameter-server models, the default scenario's otherwise): policies, round length,
/// restart cost, fairness, DL2's server settings, and for elastic and parameter-server
/// experiments a one-type cluster. Returns what changed, for people.
pub fn adopt_family(c: &mut Experiment, family: JobModel) -> Vec<String> {
    let d = family_scenario(family);
    let mut changed = vec![
        format!("policies {}", d.policies.join(", ")),
        format!(
            "{} {} s",
            if family == JobModel::ParameterServer {
                "slot"
            } else {
                "round"
            },
            d.round_s
        ),
        format!("restart cost {} s", d.restart_cost_s),
    ];
    c.policies = d.policies;
    c.round_s = d.round_s;
    c.restart_cost_s = d.restart_cost_s;
    c.fairness = d.fairness;
    c.gavel_compat = false;
    c.window = None;
    if family != JobModel::Rigid && c.preemption.take().is_some() {
        changed.push("no preemption model (it goes with round-based profiles)".into());
    }
    if family == JobModel::ParameterServer {
        if c.inference.take().is_some() {
            changed.push("no inference pool (it goes with round-based profiles)".into());
        }
        c.ps = d.ps;
        if let Some(p) = d.ps {
            changed.push(format!("{} CPUs per server", p.cpus_per_server));
        }
    } else {
        c.ps = None;
        if std::mem::take(&mut c.dl2_compat) {
            changed.push("no DL2-compatible mode (it goes with parameter-server profiles)".into());
        }
        if c.network.take().is_some() {
            changed.push("the dl2 policy's network dropped".into());
        }
    }
    let types = ClusterSpec::parse(&c.cluster).map_or(0, |k| k.types.len());
    if family != JobModel::Rigid && types != 1 {
        changed.push(format!("cluster {}", d.cluster));
        c.cluster = d.cluster;
    }
    changed
}

/// An uploaded profile, read as whichever kind it is (elastic applications,
/// parameter-server models or throughputs per GPU type), as the experiment's profile source;
/// why it cannot be read, if it cannot.
pub fn uploaded_profile(name: String, text: String) -> Result<ProfileSource, String> {
    let parsed = match ProfileSource::inline_job_model(&text) {
        JobModel::Elastic => Apps::from_json(&text, &name).map(drop),
        JobModel::ParameterServer => PsModels::from_json(&text, &name).map(drop),
        JobModel::Rigid => Profile::parse(&text, &name).map(drop),
    };
    parsed
        .map(|()| ProfileSource::Inline { name, text })
        .map_err(|e| e.to_string())
}

/// Name of the inline workload a PAI import makes.
pub const PAI_SAMPLE_NAME: &str = "pai-sample.csv";

/// The Alibaba PAI job and task tables, each `(text, file name)`, sampled as `sampling`
/// says into an inline workload (so a share link carries the sample, not the tables), with
/// its number of jobs; why not, naming the file, line and column of a bad value.
pub fn pai_sample(
    jobs: (&str, &str),
    tasks: (&str, &str),
    sampling: &crate::workload::pai::PaiSampling,
) -> Result<(WorkloadSource, usize), String> {
    let trace = crate::workload::pai::read_pai(jobs, tasks, sampling).map_err(|e| e.to_string())?;
    let n = trace.jobs.len();
    let source = WorkloadSource::Inline {
        name: PAI_SAMPLE_NAME.into(),
        text: trace.to_csv(),
    };
    Ok((source, n))
}

/// The workload, then the cluster, of scenario `d` in `c` while `c` does not resolve
/// without them; what changed is added to `changed`.
pub fn fit_to_scenario(
    c: &mut Experiment,
    d: Experiment,
    changed: &mut Vec<String>,
    resolves: &mut Resolves,
) {
    if resolves(c).is_err() && c.workload != d.workload {
        c.workload = d.workload;
        changed.push(format!("workload: {}", workload_label(c)));
    }
    if resolves(c).is_err() && c.cluster != d.cluster {
        changed.push(format!("cluster {}", d.cluster));
        c.cluster = d.cluster;
    }
}

/// `exp` with a new profile. When it changes the family from `current`, the experiment takes
/// that family's settings, and the family's default workload and cluster where its own do
/// not fit; the note says what changed. The caller resolves what it gets back.
pub fn with_profile(
    exp: &Experiment,
    current: JobModel,
    profile: ProfileSource,
    resolves: &mut Resolves,
) -> (Experiment, Option<String>) {
    let mut c = Experiment {
        profile,
        ..exp.clone()
    };
    let family = c.profile.job_model();
    if family == current {
        return (c, None);
    }
    let mut changed = adopt_family(&mut c, family);
    fit_to_scenario(&mut c, family_scenario(family), &mut changed, resolves);
    let note = format!(
        "{} profile: switched to {}.",
        family_label(family),
        changed.join("; ")
    );
    (c, Some(note))
}

/// `exp` with an uploaded trace. If its jobs do not fit the current profile but do fit a
/// bundled profile of another family (a Pollux workload on a throughput profile, say), the
/// experiment switches to that profile and its family's settings, and the note says so;
/// else the error is the trace's own.
pub fn with_trace(
    exp: &Experiment,
    current: JobModel,
    name: String,
    text: String,
    resolves: &mut Resolves,
) -> Result<(Experiment, Option<String>), String> {
    let c = Experiment {
        workload: WorkloadSource::Inline { name, text },
        ..exp.clone()
    };
    let first_error = match resolves(&c) {
        Ok(()) => return Ok((c, None)),
        Err(e) => e,
    };
    let named = |list: &[presets::Bundled], f: JobModel| {
        list.iter().map(|p| (p.name, f)).collect::<Vec<_>>()
    };
    let others: Vec<(&str, JobModel)> = match current {
        JobModel::Rigid => [
            named(presets::ELASTIC_PROFILES, JobModel::Elastic),
            named(presets::PS_PROFILES, JobModel::ParameterServer),
        ]
        .concat(),
        JobModel::Elastic | JobModel::ParameterServer => named(presets::PROFILES, JobModel::Rigid),
    };
    for (other, family) in others {
        let mut alt = Experiment {
            profile: ProfileSource::Preset { name: other.into() },
            ..c.clone()
        };
        let changed = adopt_family(&mut alt, family);
        if resolves(&alt).is_ok() {
            let note = format!(
                "The trace's jobs fit the bundled profile '{other}': switched to it, with {}.",
                changed.join("; ")
            );
            return Ok((alt, Some(note)));
        }
    }
    Err(first_error)
}

/// `exp` with an uploaded trace of durations (Philly, Helios, Acme) whose largest job takes
/// `largest` GPUs: it runs profile-free, with the round-based family's settings when the
/// experiment was of another family; the note says so. An error says when the cluster has
/// no GPU type as large as the largest job.
pub fn with_timed_trace(
    exp: &Experiment,
    current: JobModel,
    name: String,
    text: String,
    largest: u32,
    resolves: &mut Resolves,
) -> Result<(Experiment, String), String> {
    let mut c = Experiment {
        workload: WorkloadSource::Inline {
            name: name.clone(),
            text,
        },
        profile: ProfileSource::ProfileFree,
        ..exp.clone()
    };
    let changed = if current == JobModel::Rigid {
        Vec::new()
    } else {
        adopt_family(&mut c, JobModel::Rigid)
    };
    let was_free = exp.is_profile_free();
    // The cluster's largest GPU type: a trace of durations needs one as large as its
    // largest job.
    let biggest = ClusterSpec::parse(&c.cluster)
        .ok()
        .and_then(|k| k.types.into_iter().rev().max_by_key(|t| t.count));
    resolves(&c).map_err(|e| match biggest {
        Some(t) if largest > t.count => {
            let servers = if largest.is_multiple_of(8) { "/8" } else { "" };
            format!(
                "{e}: its largest job takes {largest} GPUs and the cluster's largest GPU type, {}, has {}; give a GPU type at least {largest} GPUs first ({}:{largest}{servers}, say), then upload the trace again",
                t.name, t.count, t.name
            )
        }
        _ => e,
    })?;
    let mut note = format!(
        "'{name}' knows its jobs by duration and GPU count: each runs for its traced duration on any GPU type"
    );
    if !was_free {
        note.push_str(
            " (the profile is now 'profile-free'; pick a profile to draw job types of it instead)",
        );
    }
    if !changed.is_empty() {
        note.push_str(&format!("; switched to {}", changed.join("; ")));
    }
    note.push('.');
    Ok((c, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolves(e: &Experiment) -> Result<(), String> {
        e.resolve().map(drop).map_err(|e| e.to_string())
    }

    fn preset(name: &str) -> ProfileSource {
        ProfileSource::Preset { name: name.into() }
    }

    #[test]
    fn a_pai_sample_is_an_inline_trace_of_the_sampled_jobs() {
        // Two finished jobs: one worker task on 2 V100s (100 s), one on 1 T4 (50 s).
        let jobs = "j1,i1,u1,Terminated,1000,1100\nj2,i2,u2,Terminated,1010,1060\n";
        let tasks = "j1,worker,1.0,Terminated,1000,1100,200,10,200,V100\n\
                     j2,worker,1.0,Terminated,1010,1060,100,5,100,T4\n";
        let sampling = crate::workload::pai::PaiSampling::default();
        let (source, n) = pai_sample((jobs, "jobs.csv"), (tasks, "tasks.csv"), &sampling).unwrap();
        assert_eq!(n, 2);
        let WorkloadSource::Inline { name, text } = source else {
            panic!("not inline")
        };
        assert_eq!(name, PAI_SAMPLE_NAME);
        let trace = crate::workload::Trace::parse(&text, &name).unwrap();
        assert_eq!(trace.jobs.len(), 2);
        assert_eq!(trace.jobs[0].scale_factor, 2);
        let bad = pai_sample(
            ("j1,i1,u1,Terminated,x,1100\n", "jobs.csv"),
            (tasks, "tasks.csv"),
            &sampling,
        );
        assert!(bad.unwrap_err().contains("jobs.csv"));
    }

    #[test]
    fn a_profile_of_another_family_brings_its_settings() {
        let exp = scenarios::default_experiment();
        let (same, note) =
            with_profile(&exp, JobModel::Rigid, preset("gavel-types"), &mut resolves);
        assert_eq!((same.policies.clone(), note), (exp.policies.clone(), None));
        let (c, note) = with_profile(&exp, JobModel::Rigid, preset("pollux-apps"), &mut resolves);
        let note = note.expect("a family switch says so");
        assert!(
            note.starts_with(
                "Elastic-applications profile: switched to policies pollux, tiresias, optimus"
            ),
            "{note}"
        );
        assert_eq!(c.policies, scenarios::pollux_experiment().policies);
        let r = c.resolve().expect("the switched experiment resolves");
        assert_eq!(r.mechanism().jobs(), JobModel::Elastic);
    }

    #[test]
    fn an_uploaded_profile_is_read_as_its_kind() {
        for b in presets::PROFILES
            .iter()
            .chain(presets::ELASTIC_PROFILES)
            .chain(presets::PS_PROFILES)
        {
            let source = uploaded_profile(b.name.into(), b.text.into()).unwrap();
            assert!(matches!(source, ProfileSource::Inline { .. }), "{}", b.name);
        }
        assert!(uploaded_profile("x.json".into(), "{".into()).is_err());
        // A bundled profile is of the same kind by name as by its text.
        for (list, kind) in [
            (presets::PROFILES, JobModel::Rigid),
            (presets::ELASTIC_PROFILES, JobModel::Elastic),
            (presets::PS_PROFILES, JobModel::ParameterServer),
        ] {
            for b in list {
                assert_eq!(preset(b.name).job_model(), kind, "{}", b.name);
                assert_eq!(ProfileSource::inline_job_model(b.text), kind, "{}", b.name);
            }
        }
        assert_eq!(ProfileSource::ProfileFree.job_model(), JobModel::Rigid);
        let folder = ProfileSource::Files {
            name: "apps".into(),
            files: Vec::new(),
        };
        assert_eq!(folder.job_model(), JobModel::Elastic);
    }

    #[test]
    fn a_trace_that_fits_another_family_switches_to_it() {
        let exp = Experiment {
            cluster: "v100:16/4".into(),
            ..scenarios::pollux_experiment()
        };
        assert!(exp.resolve().is_ok());
        let text = presets::TRACES[0].text.to_string();
        let (c, note) = with_trace(
            &exp,
            JobModel::Elastic,
            "default.csv".into(),
            text,
            &mut resolves,
        )
        .unwrap();
        let note = note.expect("a family switch says so");
        assert!(
            note.starts_with("The trace's jobs fit the bundled profile 'gavel-types'"),
            "{note}"
        );
        assert_eq!(c.profile.job_model(), JobModel::Rigid);
        assert!(c.resolve().is_ok());
        // A text no family takes gives its own error.
        assert!(with_trace(
            &exp,
            JobModel::Elastic,
            "x.csv".into(),
            "not a trace".into(),
            &mut resolves
        )
        .is_err());
    }

    #[test]
    fn a_trace_of_durations_runs_profile_free_and_names_a_cluster_too_small() {
        let text = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n\
                    1,u,vc,1,4,1,COMPLETED,2020-07-01 08:00:00,2020-07-01 08:00:05,2020-07-01 09:00:05,3600,5\n\
                    2,u,vc,16,4,2,COMPLETED,2020-07-01 08:10:00,2020-07-01 08:10:05,2020-07-01 09:10:05,3600,5\n";
        let exp = Experiment {
            cluster: "v100:12,p100:8".into(),
            ..scenarios::default_experiment()
        };
        let err = with_timed_trace(
            &exp,
            JobModel::Rigid,
            "helios.csv".into(),
            text.into(),
            16,
            &mut resolves,
        )
        .unwrap_err();
        assert!(
            err.contains(
                "its largest job takes 16 GPUs and the cluster's largest GPU type, v100, has 12"
            ),
            "{err}"
        );
        let big = Experiment {
            cluster: "v100:16,p100:8".into(),
            ..exp
        };
        let (c, note) = with_timed_trace(
            &big,
            JobModel::Rigid,
            "helios.csv".into(),
            text.into(),
            16,
            &mut resolves,
        )
        .unwrap();
        assert_eq!(c.profile, ProfileSource::ProfileFree);
        assert!(
            note.starts_with("'helios.csv' knows its jobs by duration and GPU count"),
            "{note}"
        );
    }
}
