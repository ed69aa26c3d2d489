//! The native command-line interface: `orrery run | compare | sweep | generate | policies |
//! presets | bench`.
//!
//! Exit codes: 0 on success, 2 for bad input (a file that cannot be read or parsed, a bad
//! spec, a bad flag value), 1 for any other failure. Errors go to stderr as `error: <message>`.

use orrery::experiment::scenarios;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orrery::experiment::{
    Experiment, ExperimentError, NetworkSource, Outcome, ProfileSource, Progress, Resolved,
    WorkloadSource,
};
use orrery::metrics::{summaries_csv, Summary};
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::policy::gavel::max_min_fairness::MaxMinFairness;
use orrery::policy::{self, catalog, JobView, PolicyError, PolicyView};
use orrery::sim::{SimConfig, SimEvent, Simulator};
use orrery::workload::csv::quote;
use orrery::workload::{
    generate, presets, GeneratorConfig, Profile, TimePoint, Trace, TraceFilter, TraceStats,
};
use rayon::prelude::*;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

mod args;
mod bench;
mod dl2;
mod format;
mod generate;
mod import;
mod list;
mod run;
mod summary_json;
mod sweep;
mod trace_stats;

use args::*;
use bench::*;
use dl2::*;
use format::*;
use generate::*;
use import::*;
use list::*;
use run::*;
use summary_json::*;
use sweep::*;
use trace_stats::*;

// ---------------------------------------------------------------------------------------
// Errors and I/O
// ---------------------------------------------------------------------------------------

/// A failed command.
#[derive(Debug)]
pub(crate) enum CliError {
    /// Bad input (file, spec, flag value): exit code 2.
    Input(String),
    /// Anything else: exit code 1.
    Failure(String),
}

impl CliError {
    fn code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Failure(_) => 1,
        }
    }

    /// The same error, its message prefixed with where it happened.
    pub(crate) fn within(self, place: &str) -> CliError {
        match self {
            CliError::Input(m) => CliError::Input(format!("{place}: {m}")),
            CliError::Failure(m) => CliError::Failure(format!("{place}: {m}")),
        }
    }

    fn message(&self) -> &str {
        match self {
            CliError::Input(m) | CliError::Failure(m) => m,
        }
    }
}

impl From<ExperimentError> for CliError {
    fn from(e: ExperimentError) -> Self {
        match e {
            ExperimentError::Policy(PolicyError::Failed { .. }) => CliError::Failure(e.to_string()),
            _ => CliError::Input(e.to_string()),
        }
    }
}

pub(crate) type CliResult<T> = Result<T, CliError>;

/// The CLI's entry point; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    let result = match cli.command {
        Command::Run(a) => cmd_run(a),
        Command::Compare(a) => cmd_compare(a),
        Command::Sweep(a) => cmd_sweep(*a),
        Command::Generate(a) => cmd_generate(a),
        Command::ImportPai(a) => cmd_import_pai(a),
        Command::ImportAlibabaSpot(a) => cmd_import_alibaba_spot(a),
        Command::ImportAcme(a) => cmd_import_acme(a),
        Command::TraceStats(a) => cmd_trace_stats(a),
        Command::Policies(a) => cmd_policies(a),
        Command::Presets(a) => cmd_presets(a),
        Command::Bench(a) => cmd_bench(a),
        Command::Link(a) => cmd_link(a),
        Command::Dl2(Dl2Command::Train(a)) => cmd_dl2_train(*a),
        Command::Dl2(Dl2Command::Bundle(a)) => cmd_dl2_bundle(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {}", e.message());
            e.code()
        }
    }
}

/// The files of a profile folder and of its sub-folders (one level), with paths relative
/// to it, sorted.
pub(crate) fn read_folder(dir: &Path) -> CliResult<Vec<orrery::workload::InlineFile>> {
    let list = |d: &Path| -> CliResult<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(|e| CliError::Input(format!("cannot read folder '{}': {e}", d.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        orrery::order::sort(&mut v);
        Ok(v)
    };
    let mut files = Vec::new();
    for entry in list(dir)? {
        let inner = if entry.is_dir() {
            list(&entry)?
        } else {
            vec![entry.clone()]
        };
        for f in inner.into_iter().filter(|f| f.is_file()) {
            let rel = f
                .strip_prefix(dir)
                .unwrap_or(&f)
                .to_string_lossy()
                .replace('\\', "/");
            let ok = rel.ends_with(".csv") || rel.ends_with(".json");
            if ok {
                files.push(orrery::workload::InlineFile {
                    text: read_file(&f, "profile file")?,
                    path: rel,
                });
            }
        }
    }
    Ok(files)
}

pub(crate) fn read_file(path: &Path, what: &str) -> CliResult<String> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("cannot read {what} '{}': {e}", path.display())))
}

/// Create an output file up front, so a bad path fails before any work is done.
pub(crate) fn create_output(path: &Path) -> CliResult<(PathBuf, File)> {
    File::create(path)
        .map(|f| (path.to_path_buf(), f))
        .map_err(|e| CliError::Input(format!("cannot create '{}': {e}", path.display())))
}

pub(crate) fn write_file(out: (PathBuf, File), text: &str) -> CliResult<()> {
    let (path, mut f) = out;
    f.write_all(text.as_bytes())
        .and_then(|_| f.flush())
        .map_err(|e| CliError::Failure(format!("cannot write '{}': {e}", path.display())))
}

/// Write `text` to standard output. When the reader has gone (`orrery ... | head`), the
/// process ends quietly with status 0, as a Unix filter would, rather than report an error
/// for output nobody reads.
pub(crate) fn print_stdout(text: &str) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.map_err(|e| CliError::Failure(format!("cannot write to standard output: {e}"))),
    }
}

pub(crate) fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

pub(crate) fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> CliResult<String> {
    serde_json::to_string_pretty(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| CliError::Failure(format!("cannot serialise JSON: {e}")))
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub(crate) fn progress_bar(len: u64, prefix: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg} (eta {eta})",
    ) {
        pb.set_style(style);
    }
    pb.set_prefix(prefix.to_string());
    pb
}

// ---------------------------------------------------------------------------------------
// Building and running experiments
// ---------------------------------------------------------------------------------------

pub(crate) fn scenario_names() -> String {
    scenarios::SCENARIOS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The experiment from `--config` or `--preset`, with the flags applied over it.
pub(crate) fn build_experiment(a: &ExperimentArgs) -> CliResult<Experiment> {
    let mut exp = match (&a.config, &a.link) {
        (Some(path), _) => {
            let text = read_file(path, "config")?;
            Experiment::from_json(&text)
                .map_err(|e| CliError::Input(format!("{}: {e}", path.display())))?
        }
        (None, Some(link)) => {
            Experiment::from_link(link).map_err(|e| CliError::Input(format!("--link: {e}")))?
        }
        (None, None) => {
            let name = a.preset.as_deref().unwrap_or("default");
            scenarios::scenario(name)
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "unknown preset '{name}' (bundled: {})",
                        scenario_names()
                    ))
                })?
                .experiment()
        }
    };
    let mut timed_trace = false;
    if let Some(path) = &a.trace {
        let text = read_file(path, "trace")?;
        timed_trace = Trace::is_timed_text(&text);
        exp.workload = WorkloadSource::Inline {
            name: path.display().to_string(),
            text,
        };
    }
    if let Some(w) = a.dl2_workload {
        dl2_workload(&mut exp, w);
    }
    exp.trace_filter = a.filter.over(exp.trace_filter.take());
    let was_elastic = exp.is_elastic();
    let was_ps = exp.is_ps();
    // A trace of durations runs profile-free unless a profile is given (the summary's
    // notes say which).
    if a.profile_free || (timed_trace && a.profile.is_none()) {
        exp.profile = ProfileSource::ProfileFree;
        if was_elastic || was_ps {
            // The elastic and parameter-server scenarios' settings do not fit round-based
            // jobs: start from the default scenario's.
            let d = scenarios::default_experiment();
            exp.round_s = d.round_s;
            exp.restart_cost_s = d.restart_cost_s;
            exp.policies = d.policies;
            exp.fairness = d.fairness;
            exp.ps = None;
            exp.network = None;
        }
    }
    if let Some(path) = &a.profile {
        exp.profile = profile_source(path)?;
    }
    if exp.is_elastic() && !was_elastic {
        // Pollux's settings unless the flags say otherwise.
        exp.round_s = 60.0;
        exp.restart_cost_s = 30.0;
        exp.cluster = "gpu:64/4".into();
        exp.policies = catalog::elastic_policies()
            .iter()
            .map(|p| p.name.to_string())
            .collect();
    }
    match a.cluster.as_slice() {
        [] => {}
        [c] => exp.cluster = c.clone(),
        many => {
            return Err(CliError::Input(format!(
                "--cluster given {} times: an experiment has one cluster (`orrery sweep` takes several)",
                many.len()
            )))
        }
    }
    if let Some(f) = a.load {
        exp.load_factor = f;
    }
    if let Some(s) = a.seed {
        exp.seed = s;
    }
    if let Some(r) = a.round {
        exp.round_s = r;
    }
    if let Some(Window(s, e)) = a.window {
        exp.window = Some((s, e));
    }
    if a.gavel_compat {
        exp.gavel_compat = true;
    }
    if a.dl2_compat {
        exp.set_dl2_compat(true);
    }
    if let Some(c) = a.restart_cost {
        exp.restart_cost_s = c;
    }
    apply_faults(a, &mut exp);
    if let Some(w) = a.spot_warning_s {
        exp.spot_warning_s = Some(w);
    }
    for (ty, path) in &a.spot {
        let text = read_file(path, "spot trace")?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        exp.spot
            .insert(ty.clone(), orrery::experiment::SpotSource { name, text });
    }
    for (t, v) in &a.slowdown {
        exp.slowdown.insert(t.clone(), *v);
    }
    for (t, v) in &a.restart_type {
        exp.restart_by_type.insert(t.clone(), *v);
    }
    if a.no_fairness {
        exp.fairness = false;
    }
    if let Some(path) = &a.network {
        exp.network = Some(NetworkSource::Inline {
            name: path.display().to_string(),
            text: read_file(path, "network")?,
        });
    }
    Ok(exp)
}

/// DL2's generator at `w`'s scale, seed and trace, on the scale's cluster and slots.
pub(crate) fn dl2_workload(exp: &mut Experiment, w: Dl2Workload) {
    exp.workload = WorkloadSource::Generated(orrery::workload::GeneratorConfig {
        num_jobs: w.scale.jobs(),
        seed: u64::from(w.seed),
        dl2: Some(orrery::workload::dl2_gen::Dl2Arrivals {
            scale: w.scale,
            trace: w.trace,
        }),
        ..Default::default()
    });
    exp.cluster = format!("gpu:{}/2", 2 * w.scale.nodes());
    exp.round_s = w.scale.slot_s();
}

/// The profile at `path`: a file, or a folder (Pollux's applications, or DL2's profile
/// folder, of which only its two tables are kept so that a link carries just them).
pub(crate) fn profile_source(path: &std::path::Path) -> CliResult<ProfileSource> {
    Ok(if path.is_dir() {
        let files = read_folder(path)?;
        ProfileSource::Files {
            name: path.display().to_string(),
            files: if orrery::workload::dl2_files::is_profile_folder(&files) {
                orrery::workload::dl2_files::profile_files(files)
            } else {
                files
            },
        }
    } else {
        ProfileSource::Inline {
            name: path.display().to_string(),
            text: read_file(path, "profile")?,
        }
    })
}

pub(crate) fn workload_label(exp: &Experiment, r: &Resolved) -> String {
    let n = r.trace.jobs.len();
    match &exp.workload {
        WorkloadSource::Preset { name } => format!("bundled trace '{name}' ({n} jobs)"),
        WorkloadSource::Inline { name, .. } => format!("{name} ({n} jobs)"),
        WorkloadSource::Generated(g) => match g.dl2 {
            Some(d) => format!(
                "DL2's generator ({n} jobs, {} scale, numpy seed {}, trace {})",
                d.scale.name(),
                g.seed,
                d.trace
            ),
            None => format!(
                "generated ({n} jobs, {} jobs/h, seed {})",
                g.jobs_per_hour, g.seed
            ),
        },
    }
}

/// Run the experiment's plan (its policies and, when rho is asked for, the isolated
/// baseline) in parallel; the results in the experiment's order, with rho.
pub(crate) fn run_plan(r: &Resolved, exp: &Experiment, pb: &ProgressBar) -> CliResult<Outcome> {
    let plan = r.plan(exp);
    let results = plan
        .tasks
        .par_iter()
        .map(|t| {
            let mut shown = 0;
            r.run_task(&plan, t, |p: &Progress| {
                pb.inc((p.jobs_done - shown) as u64);
                shown = p.jobs_done;
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(r.finish(&plan, results))
}

/// The failure, checkpoint and stop flags into the experiment: any of them sets its
/// failures (a rate of 0 when `--failures` is not given, so checkpoints alone cost their
/// writes) and keeps what the experiment (a preset's) already had for the others.
fn apply_faults(a: &ExperimentArgs, exp: &mut Experiment) {
    use orrery::model::failure::{FailureModel, Faults};
    let any = a.failures.is_some()
        || a.repair_s.is_some()
        || a.failure_domain.is_some()
        || a.checkpoint_s.is_some()
        || a.checkpoint_write_s.is_some();
    if any {
        let f = exp.faults.get_or_insert_with(|| Faults {
            failures: FailureModel::with_rate(0.0),
            checkpoint: Default::default(),
        });
        if let Some(r) = a.failures {
            f.failures.per_server_day = r;
        }
        if let Some(r) = a.repair_s {
            f.failures.repair_s = r;
        }
        if let Some(d) = a.failure_domain {
            f.failures.domain = d;
        }
        if let Some(i) = a.checkpoint_s {
            f.checkpoint.interval = i;
        }
        if let Some(w) = a.checkpoint_write_s {
            f.checkpoint.write_s = w;
        }
    }
    if let Some(u) = a.until {
        exp.until_s = Some(u);
    }
}
