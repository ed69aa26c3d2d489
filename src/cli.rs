//! The native command-line interface: `orrery run | compare | sweep | generate | policies |
//! presets | bench`.
//!
//! Exit codes: 0 on success, 2 for bad input (a file that cannot be read or parsed, a bad
//! spec, a bad flag value), 1 for any other failure. Errors go to stderr as `error: <message>`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orrery::cluster::ClusterSpec;
use orrery::experiment::{
    Experiment, ExperimentError, NetworkSource, Outcome, Plan, ProfileSource, Progress, Resolved,
    RunResult, Task, WorkloadSource,
};
use orrery::job::JobSpec;
use orrery::metrics::{csv_num, csv_opt, summaries_csv, Summary};
use orrery::policy::gavel::max_min_fairness::MaxMinFairness;
use orrery::policy::{self, catalog, JobView, PolicyError, PolicyView};
use orrery::sim::{Mechanism, SimConfig, SimEvent, Simulator};
use orrery::workload::csv::quote;
use orrery::workload::{generate, presets, GeneratorConfig, Profile, Trace};
use rayon::prelude::*;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

// ---------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------

/// Orrery: a GPU cluster scheduling simulator (Gavel's policies, classic baselines and more).
#[derive(Parser, Debug)]
#[command(name = "orrery", version, about, long_about = None)]
#[command(propagate_version = true, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one policy on an experiment and print its metrics.
    Run(RunArgs),
    /// Run several policies on the same experiment and compare their metrics.
    Compare(CompareArgs),
    /// Sweep policies x arrival rates x seeds on synthetic workloads; one CSV row per cell.
    Sweep(SweepArgs),
    /// Write a synthetic trace (Gavel's generator recipe).
    Generate(GenerateArgs),
    /// Sample the Alibaba PAI GPU trace (cluster-trace-gpu-v2020) into an Orrery trace.
    ImportPai(ImportPaiArgs),
    /// List every scheduling policy with its parameters.
    Policies(ListArgs),
    /// List the bundled scenarios, traces and throughput profiles.
    Presets(ListArgs),
    /// Time the LP solver, the round mechanism and whole runs against performance targets.
    Bench(BenchArgs),
    /// Print the share link of an experiment: opening it in a browser shows the same run.
    Link(LinkArgs),
    /// DL2's neural scheduler: train it.
    #[command(subcommand)]
    Dl2(Dl2Command),
}

/// `orrery dl2 ...`.
#[derive(Subcommand, Debug)]
enum Dl2Command {
    /// Train DL2: a supervised warm-up on DRF's decisions, then actor-critic reinforcement
    /// learning in the slot simulator, on workloads of the experiment's generator.
    Train(Dl2TrainArgs),
}

/// Flags of `orrery dl2 train`.
#[derive(Args, Debug)]
struct Dl2TrainArgs {
    /// Bundled scenario whose cluster, models and generator the episodes use.
    #[arg(long, default_value = "dl2")]
    preset: String,
    /// Experiment JSON instead of the scenario.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Training seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Reinforcement-learning iterations (each several rollouts of one workload).
    #[arg(long)]
    iterations: Option<usize>,
    /// Passes over DRF's decisions in the warm-up.
    #[arg(long)]
    warmup_epochs: Option<usize>,
    /// Jobs per episode.
    #[arg(long)]
    episode_jobs: Option<usize>,
    /// Episodes of DRF's decisions in the warm-up.
    #[arg(long)]
    warmup_episodes: Option<usize>,
    /// Learning rate of the warm-up.
    #[arg(long)]
    warmup_lr: Option<f64>,
    /// Learning rate of reinforcement learning.
    #[arg(long)]
    rl_lr: Option<f64>,
    /// Rollouts per reinforcement-learning iteration.
    #[arg(long)]
    rollouts: Option<usize>,
    /// Weight of the KL penalty toward the warm-up's policy.
    #[arg(long)]
    kl: Option<f64>,
    /// Branched credit: copies of the greedy actor's episode per branched slot (0:
    /// independent rollouts).
    #[arg(long)]
    branches: Option<usize>,
    /// Slots after the branched one that count in a branch's return.
    #[arg(long)]
    horizon: Option<usize>,
    /// Branch at single decisions (trying the actor's most probable actions there) instead
    /// of whole slots.
    #[arg(long)]
    decision_credit: bool,
    /// Credit of the independent rollouts: `exact` (every decision is credited with what
    /// each allowed action would add to its slot's reward) or `slot` (the clipped
    /// actor-critic update on each slot's discounted return against the rollouts'
    /// baseline).
    #[arg(long, value_parser = ["exact", "slot"])]
    credit: Option<String>,
    /// Temperature of the exact-credit step (smaller: larger steps).
    #[arg(long)]
    temperature: Option<f64>,
    /// Label smoothing of the warm-up (share of each target spread over the allowed
    /// actions).
    #[arg(long)]
    smoothing: Option<f64>,
    /// The dl2-family policy the warm-up imitates.
    #[arg(long)]
    teacher: Option<String>,
    /// Held-out episodes of each evaluation (and of the warm-up's agreement).
    #[arg(long)]
    eval_episodes: Option<usize>,
    /// Write the trained network's weights here (JSON).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the learning curve here (CSV).
    #[arg(long, value_name = "FILE")]
    curve: Option<PathBuf>,
}

/// Flags that describe an experiment (shared by `run` and `compare`).
#[derive(Args, Debug)]
struct ExperimentArgs {
    /// Experiment JSON to start from; the other flags override its fields.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "link"])]
    config: Option<PathBuf>,
    /// Share link of the web playground (or its `#x1.` fragment) to start from; the other flags
    /// override its fields.
    #[arg(long, value_name = "URL", conflicts_with = "preset")]
    link: Option<String>,
    /// Bundled scenario to start from (see `orrery presets`) [default: default].
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// Trace file: Orrery CSV or JSON, or Gavel's tab-separated `.trace`.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Throughput profile file: Orrery JSON or CSV, or Gavel's throughputs JSON [default: the
    /// scenario's profile].
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// Cluster: `v100:36,p100:36,k80:36`, `36:36:36` (v100:p100:k80) or JSON.
    #[arg(long, value_name = "SPEC")]
    cluster: Option<String>,
    /// Experiment seed (every random choice derives from it).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Round length in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive_seconds, allow_hyphen_values = true)]
    round: Option<f64>,
    /// Measure only jobs with ids in [A, B); the run stops once they are done.
    #[arg(long, value_name = "A:B", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<Window>,
    /// Reproduce the mechanism of Gavel's simulator.
    #[arg(long)]
    gavel_compat: bool,
    /// Seconds lost when a job's placement changes.
    #[arg(long, value_name = "SECONDS", value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    restart_cost: Option<f64>,
    /// Skip the isolated baseline run (no finish-time fairness rho).
    #[arg(long)]
    no_fairness: bool,
    /// Weights JSON of the `dl2` policy's network (written by `orrery dl2 train`) for a
    /// parameter-server experiment [default: the bundled network].
    #[arg(long, value_name = "FILE")]
    network: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    exp: ExperimentArgs,
    /// Policy spec, `name` or `name[key=value,...]` [default: the scenario's first policy].
    #[arg(long, value_name = "SPEC")]
    policy: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Also write one CSV row per job (arrival, start, finish, JCT, rho, restarts) to FILE.
    #[arg(long, value_name = "FILE")]
    jobs_csv: Option<PathBuf>,
    /// Also write one CSV row per round (start, end, active and running jobs, busy GPUs per
    /// type) to FILE.
    #[arg(long, value_name = "FILE")]
    series_csv: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct LinkArgs {
    #[command(flatten)]
    exp: ExperimentArgs,
    /// Policy spec to include; repeat for several [default: the scenario's policies].
    #[arg(long, value_name = "SPEC")]
    policy: Vec<String>,
    /// Address of the page the link opens.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/")]
    base: String,
}

#[derive(Args, Debug)]
struct CompareArgs {
    #[command(flatten)]
    exp: ExperimentArgs,
    /// Policy spec to run; repeat for several [default: the scenario's policies].
    #[arg(long, value_name = "SPEC")]
    policy: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    format: OutputFormat,
    /// Also write the summaries as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct SweepArgs {
    /// Policy spec to sweep; repeat for several [default: the default scenario's policies].
    #[arg(long, value_name = "SPEC")]
    policy: Vec<String>,
    /// Arrival rates in jobs/hour, comma-separated (0 = every job at t = 0).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "0.5,1,2", value_parser = parse_rate, allow_hyphen_values = true)]
    rates: Vec<f64>,
    /// Seeds, comma-separated; ranges `A..B` (B excluded) and `A..=B` are allowed.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "0,1,2", value_parser = parse_seeds)]
    seeds: Vec<SeedRange>,
    /// Jobs per generated workload.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = parse_num_jobs)]
    num_jobs: usize,
    /// Draw multi-GPU jobs (scale factors 1/2/4/8).
    #[arg(long)]
    multi_gpu: bool,
    /// Give 20% of the jobs priority weight 5.
    #[arg(long)]
    priority_weights: bool,
    /// Cluster spec [default: the default scenario's cluster].
    #[arg(long, value_name = "SPEC")]
    cluster: Option<String>,
    /// Throughput profile file [default: the bundled gavel-types profile].
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// Round length in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 360.0, value_parser = parse_positive_seconds, allow_hyphen_values = true)]
    round: f64,
    /// Reproduce the mechanism of Gavel's simulator.
    #[arg(long)]
    gavel_compat: bool,
    /// Seconds lost when a job's placement changes.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    restart_cost: f64,
    /// Measure only jobs with ids in [A, B).
    #[arg(long, value_name = "A:B", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<Window>,
    /// Skip the isolated baseline runs (the max_rho column stays empty).
    #[arg(long)]
    no_fairness: bool,
    /// Write the CSV to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct GenerateArgs {
    /// Number of jobs [default: 100; 160 with --apps, as in Pollux's workloads].
    #[arg(long, value_name = "N", value_parser = parse_num_jobs)]
    num_jobs: Option<usize>,
    /// Poisson arrival rate in jobs/hour, 0 = every job at t = 0 [default: 0; 20 with
    /// --apps, Pollux's 160 jobs over 8 hours].
    #[arg(long, value_name = "RATE", value_parser = parse_rate, allow_hyphen_values = true)]
    jobs_per_hour: Option<f64>,
    /// Draw multi-GPU jobs (scale factors 1/2/4/8 with probabilities 0.7/0.1/0.15/0.05).
    #[arg(long)]
    multi_gpu: bool,
    /// Give 20% of the jobs priority weight 5.
    #[arg(long)]
    priority_weights: bool,
    /// Workload seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Throughput profile file [default: the bundled gavel-types profile].
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// Cluster whose GPU types the jobs may run on.
    #[arg(long, value_name = "SPEC", default_value = "v100:36,p100:36,k80:36")]
    cluster: String,
    /// Generate elastic jobs (Pollux's workload) for these applications: a bundled name
    /// (pollux-apps), an orrery-elastic-apps JSON file or a Pollux application folder. The
    /// CSV output is then the Pollux simulator's workload format.
    #[arg(long, value_name = "SOURCE")]
    apps: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    format: TraceFormat,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ImportPaiArgs {
    /// pai_job_table.csv (job_name, inst_id, user, status, start_time, end_time).
    #[arg(long, value_name = "FILE")]
    jobs: PathBuf,
    /// pai_task_table.csv (job_name, task_name, inst_num, status, start_time, end_time,
    /// plan_cpu, plan_mem, plan_gpu, gpu_type).
    #[arg(long, value_name = "FILE")]
    tasks: PathBuf,
    /// Jobs to keep (sampled uniformly, in arrival order).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_jobs: usize,
    /// Seed of the sampling.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Share of the multi-GPU jobs made elastic (up to twice their GPUs).
    #[arg(long, value_name = "SHARE", default_value_t = 0.0)]
    elastic_fraction: f64,
    /// Keep jobs of every status, not only the terminated ones.
    #[arg(long)]
    all_statuses: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    format: TraceFormat,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    format: ListFormat,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Fewer repetitions (a quick look, noisier numbers).
    #[arg(long)]
    quick: bool,
    /// Directory with Gavel's reference inputs (static100_seed0.trace,
    /// simulation_throughputs.json) for the static run [default: ../shared/reference/gavel
    /// if present].
    #[arg(long, value_name = "DIR")]
    reference: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    format: ListFormat,
    /// Run only the benchmark groups whose name contains WORD: lp, lp all (one solve of
    /// every LP policy at 128 and 512 jobs), lp bisections (the packed finish-time and
    /// makespan bisections at 512 jobs, minutes), mechanism, static,
    /// continuous, elastic (pollux), pooled (aryl), preemptive (pickyman), allox,
    /// dl2.
    #[arg(long, value_name = "WORD")]
    only: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OutputFormat {
    /// Aligned, human-readable table.
    Table,
    /// JSON.
    Json,
    /// CSV.
    Csv,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum TraceFormat {
    /// Orrery's CSV trace.
    Csv,
    /// Orrery's JSON trace.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ListFormat {
    /// Aligned, human-readable table.
    Table,
    /// JSON.
    Json,
}

/// A window of job ids `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window(usize, usize);

/// Seeds `start..=end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SeedRange(u64, u64);

/// At most this many seeds in a sweep.
const MAX_SEEDS: u64 = 100_000;

fn parse_window(s: &str) -> Result<Window, String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| "expected A:B, job ids [A, B) (e.g. 10:60)".to_string())?;
    let a: usize = a
        .trim()
        .parse()
        .map_err(|_| format!("start '{}' is not a whole number", a.trim()))?;
    let b: usize = b
        .trim()
        .parse()
        .map_err(|_| format!("end '{}' is not a whole number", b.trim()))?;
    if a >= b {
        return Err(format!("start {a} must be less than end {b}"));
    }
    Ok(Window(a, b))
}

fn parse_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a number", s.trim()))?;
    if !v.is_finite() {
        return Err(format!("'{}' is not a finite number", s.trim()));
    }
    Ok(v)
}

fn parse_positive_seconds(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v <= 0.0 {
        return Err(format!("{v} must be a positive number of seconds"));
    }
    Ok(v)
}

fn parse_nonneg_seconds(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v < 0.0 {
        return Err(format!("{v} must be a non-negative number of seconds"));
    }
    Ok(v)
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v < 0.0 {
        return Err(format!("{v} jobs/hour must not be negative"));
    }
    Ok(v)
}

fn parse_num_jobs(s: &str) -> Result<usize, String> {
    let v: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a whole number", s.trim()))?;
    if v == 0 || v > 1_000_000 {
        return Err(format!("{v} must be between 1 and 1000000"));
    }
    Ok(v)
}

fn parse_seeds(s: &str) -> Result<SeedRange, String> {
    let s = s.trim();
    let num = |t: &str| -> Result<u64, String> {
        t.trim()
            .parse()
            .map_err(|_| format!("seed '{}' is not a whole number", t.trim()))
    };
    let range = match s.split_once("..") {
        None => {
            let v = num(s)?;
            SeedRange(v, v)
        }
        Some((a, b)) => {
            let a = num(a)?;
            let end = match b.strip_prefix('=') {
                Some(b) => num(b)?,
                None => num(b)?
                    .checked_sub(1)
                    .ok_or_else(|| format!("range '{s}' is empty"))?,
            };
            if end < a {
                return Err(format!("range '{s}' is empty"));
            }
            SeedRange(a, end)
        }
    };
    if range.1 - range.0 >= MAX_SEEDS {
        return Err(format!("range '{s}' has more than {MAX_SEEDS} seeds"));
    }
    Ok(range)
}

// ---------------------------------------------------------------------------------------
// Errors and I/O
// ---------------------------------------------------------------------------------------

/// A failed command.
#[derive(Debug)]
enum CliError {
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

type CliResult<T> = Result<T, CliError>;

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
        Command::Sweep(a) => cmd_sweep(a),
        Command::Generate(a) => cmd_generate(a),
        Command::ImportPai(a) => cmd_import_pai(a),
        Command::Policies(a) => cmd_policies(a),
        Command::Presets(a) => cmd_presets(a),
        Command::Bench(a) => cmd_bench(a),
        Command::Link(a) => cmd_link(a),
        Command::Dl2(Dl2Command::Train(a)) => cmd_dl2_train(a),
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
fn read_folder(dir: &Path) -> CliResult<Vec<orrery::workload::InlineFile>> {
    let list = |d: &Path| -> CliResult<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(|e| CliError::Input(format!("cannot read folder '{}': {e}", d.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        v.sort();
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

fn read_file(path: &Path, what: &str) -> CliResult<String> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("cannot read {what} '{}': {e}", path.display())))
}

/// Create an output file up front, so a bad path fails before any work is done.
fn create_output(path: &Path) -> CliResult<(PathBuf, File)> {
    File::create(path)
        .map(|f| (path.to_path_buf(), f))
        .map_err(|e| CliError::Input(format!("cannot create '{}': {e}", path.display())))
}

fn write_file(out: (PathBuf, File), text: &str) -> CliResult<()> {
    let (path, mut f) = out;
    f.write_all(text.as_bytes())
        .and_then(|_| f.flush())
        .map_err(|e| CliError::Failure(format!("cannot write '{}': {e}", path.display())))
}

fn print_stdout(text: &str) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| CliError::Failure(format!("cannot write to standard output: {e}")))
}

fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> CliResult<String> {
    serde_json::to_string_pretty(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| CliError::Failure(format!("cannot serialise JSON: {e}")))
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress_bar(len: u64, prefix: &str) -> ProgressBar {
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

fn scenario_names() -> String {
    presets::SCENARIOS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The experiment from `--config` or `--preset`, with the flags applied over it.
fn build_experiment(a: &ExperimentArgs) -> CliResult<Experiment> {
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
            presets::scenario(name)
                .ok_or_else(|| {
                    CliError::Input(format!(
                        "unknown preset '{name}' (bundled: {})",
                        scenario_names()
                    ))
                })?
                .experiment()
        }
    };
    if let Some(path) = &a.trace {
        exp.workload = WorkloadSource::Inline {
            name: path.display().to_string(),
            text: read_file(path, "trace")?,
        };
    }
    let was_elastic = exp.is_elastic();
    if let Some(path) = &a.profile {
        exp.profile = if path.is_dir() {
            ProfileSource::Files {
                name: path.display().to_string(),
                files: read_folder(path)?,
            }
        } else {
            ProfileSource::Inline {
                name: path.display().to_string(),
                text: read_file(path, "profile")?,
            }
        };
    }
    if exp.is_elastic() && !was_elastic {
        // Pollux's settings unless the flags say otherwise.
        exp.round_s = 60.0;
        exp.restart_cost_s = 30.0;
        exp.cluster = "gpu:64/4".into();
        exp.policies = catalog::names_for(Mechanism::Elastic)
            .into_iter()
            .map(String::from)
            .collect();
    }
    if exp.is_elastic() {
        exp.fairness = false;
    }
    if let Some(c) = &a.cluster {
        exp.cluster = c.clone();
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
    if let Some(c) = a.restart_cost {
        exp.restart_cost_s = c;
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

fn workload_label(exp: &Experiment, r: &Resolved) -> String {
    let n = r.trace.jobs.len();
    match &exp.workload {
        WorkloadSource::Preset { name } => format!("bundled trace '{name}' ({n} jobs)"),
        WorkloadSource::Inline { name, .. } => format!("{name} ({n} jobs)"),
        WorkloadSource::Generated(g) => format!(
            "generated ({n} jobs, {} jobs/h, seed {})",
            g.jobs_per_hour, g.seed
        ),
    }
}

/// Run the experiment's plan (its policies and, when rho is asked for, the isolated
/// baseline) in parallel; the results in the experiment's order, with rho.
fn run_plan(r: &Resolved, exp: &Experiment, pb: &ProgressBar) -> CliResult<Outcome> {
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

// ---------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------

/// Columns aligned: the first left-aligned, the others right-aligned.
fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let ncol = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate().take(ncol) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(ncol) {
            if i == 0 {
                s.push_str(&format!("{c:<w$}", w = width[i]));
            } else {
                s.push_str(&format!("  {c:>w$}", w = width[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    out.push_str(&line(
        &width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    ));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// Key/value lines with the keys padded to one width.
fn render_kv(rows: &[(String, String)]) -> String {
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}\n"))
        .collect()
}

fn hours(s: f64) -> String {
    format!("{:.2}", s / 3600.0)
}

fn dur(s: f64) -> String {
    format!("{:.2} h ({:.0} s)", s / 3600.0, s)
}

fn opt3(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())
}

fn summary_kv(
    s: &Summary,
    exp: &Experiment,
    r: &Resolved,
    fairness: bool,
) -> Vec<(String, String)> {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let mut rows = vec![
        kv("policy", s.policy.clone()),
        kv("workload", workload_label(exp, r)),
        kv(
            "cluster",
            format!("{} ({} GPUs)", exp.cluster.trim(), r.cluster.total_gpus()),
        ),
        kv(
            "seed / round",
            format!(
                "{} / {} s{}",
                exp.seed,
                exp.round_s,
                if exp.gavel_compat {
                    ", Gavel-compatible"
                } else {
                    ""
                }
            ),
        ),
    ];
    if let Some((a, b)) = exp.window {
        rows.push(kv("window", format!("job ids [{a}, {b})")));
    }
    rows.extend([
        kv("jobs finished", s.num_jobs.to_string()),
        kv("jobs unfinished", s.unfinished.to_string()),
        kv("avg JCT", dur(s.avg_jct_s)),
        kv("median JCT", dur(s.median_jct_s)),
        kv("p95 JCT", dur(s.p95_jct_s)),
        kv("p99 JCT", dur(s.p99_jct_s)),
        kv("makespan", dur(s.makespan_s)),
        kv("avg wait", dur(s.avg_wait_s)),
        kv("p99 wait", dur(s.p99_wait_s)),
        kv("time lost", dur(s.time_lost_s)),
        kv("utilization", format!("{:.1} %", s.utilization * 100.0)),
    ]);
    for t in &r.cluster.types {
        if let Some(u) = s.utilization_by_type.get(&t.name) {
            rows.push(kv(
                &format!("  utilization {}", t.name),
                format!("{:.1} %", u * 100.0),
            ));
        }
    }
    let no_rho = if fairness {
        "-".to_string()
    } else {
        "- (--no-fairness)".to_string()
    };
    let rho = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or(no_rho.clone());
    rows.extend([
        kv("max rho", rho(s.max_rho)),
        kv("mean rho", rho(s.mean_rho)),
        kv("Jain index (rho)", rho(s.jain_index)),
        kv("restarts", s.restarts.to_string()),
        kv("preemptions", s.preemptions.to_string()),
        kv("GPU-hours", format!("{:.1} GPU-h", s.gpu_hours)),
        kv(
            "cost",
            s.cost
                .map(|c| format!("${c:.2}"))
                .unwrap_or_else(|| "- (no prices)".into()),
        ),
        kv("rounds", s.rounds.to_string()),
        kv("policy failures", s.policy_failures.to_string()),
    ]);
    if let Some(e) = s.elastic {
        rows.extend([
            kv("resizes", e.resizes.to_string()),
            kv(
                "avg GPUs per running job",
                format!("{:.2} (max {})", e.avg_gpus, e.max_gpus),
            ),
            kv("avg batch size", format!("{:.0}", e.avg_batch_size)),
        ]);
    }
    if let Some(p) = s.preemption {
        let pct = |v: Option<f64>| {
            v.map(|x| format!("{:.1} %", x * 100.0))
                .unwrap_or_else(|| "- (no predictions)".into())
        };
        rows.extend([
            kv(
                "suspensions",
                format!("{} ({} finished first)", p.suspensions, p.finished_instead),
            ),
            kv("time suspending", dur(p.suspend_s)),
            kv("time reloading", dur(p.resume_s)),
            kv("avg wait to first start", dur(p.avg_first_wait_s)),
            kv("prediction error (duration)", pct(p.duration_error)),
            kv("prediction error (time lost)", pct(p.overhead_error)),
            kv("overhead model error", pct(p.model_error)),
        ]);
    }
    rows
}

// ---------------------------------------------------------------------------------------
// run / compare
// ---------------------------------------------------------------------------------------

fn cmd_dl2_train(a: Dl2TrainArgs) -> CliResult<()> {
    use orrery::policy::dl2::train::{TrainConfig, Trainer};
    let exp = match &a.config {
        Some(path) => Experiment::from_json(&read_file(path, "experiment")?)?,
        None => presets::scenario(&a.preset)
            .ok_or_else(|| CliError::Input(format!("no bundled scenario '{}'", a.preset)))?
            .experiment(),
    };
    let mut cfg = TrainConfig {
        seed: a.seed,
        ..TrainConfig::default()
    };
    if let Some(v) = a.iterations {
        cfg.iterations = v;
    }
    if let Some(v) = a.warmup_epochs {
        cfg.warmup_epochs = v;
    }
    if let Some(v) = a.episode_jobs {
        cfg.episode_jobs = v;
    }
    if let Some(v) = a.warmup_episodes {
        cfg.warmup_episodes = v;
    }
    if let Some(v) = a.warmup_lr {
        cfg.warmup_lr = v;
    }
    if let Some(v) = a.rl_lr {
        cfg.rl_lr = v;
    }
    if let Some(v) = a.rollouts {
        cfg.rollouts = v;
    }
    if let Some(v) = a.kl {
        cfg.kl = v;
    }
    if let Some(v) = a.branches {
        cfg.branches = v;
    }
    if let Some(v) = a.horizon {
        cfg.horizon = v;
    }
    if a.decision_credit {
        cfg.decision_credit = true;
        cfg.branches = cfg.branches.max(1);
    }
    if let Some(c) = &a.credit {
        cfg.exact_credit = c == "exact";
    }
    if let Some(v) = a.temperature {
        cfg.temperature = v;
    }
    if let Some(v) = a.smoothing {
        cfg.warmup_smoothing = v;
    }
    if let Some(v) = &a.teacher {
        cfg.teacher = v.clone();
    }
    if let Some(v) = a.eval_episodes {
        cfg.eval_episodes = v;
    }
    let out = a.out.as_deref().map(create_output).transpose()?;
    let curve_out = a.curve.as_deref().map(create_output).transpose()?;
    let mut t = Trainer::new(&exp, cfg.clone()).map_err(CliError::Input)?;
    let pb = progress_bar((cfg.warmup_epochs + cfg.iterations) as u64, "dl2 train");
    pb.set_message(format!("warm-up on {}", cfg.teacher));
    let agreement = t.warmup(|_, _| pb.inc(1)).map_err(CliError::Failure)?;
    note(&format!(
        "warm-up: {:.1}% of held-out decisions equal {}'s",
        agreement * 100.0,
        cfg.teacher
    ));
    let (r0, j0) = t.evaluate().map_err(CliError::Failure)?;
    note(&format!(
        "after warm-up: {r0:.4} reward per slot, average JCT {j0:.0} s on held-out episodes"
    ));
    for _ in 0..cfg.iterations {
        t.rl_iteration().map_err(CliError::Failure)?;
        if let Some(p) = t.curve.last() {
            if let (Some(r), Some(j)) = (p.reward_per_slot, p.avg_jct_s) {
                pb.set_message(format!("reward/slot {r:.4}, avg JCT {j:.0} s"));
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let (r1, j1) = t.evaluate().map_err(CliError::Failure)?;
    note(&format!(
        "after {} iterations: {r1:.4} reward per slot, average JCT {j1:.0} s on held-out episodes",
        cfg.iterations
    ));
    let mut net = t.policy.clone();
    net.round_to_f32();
    let json = net.to_json_with_description(Some(&format!(
        "DL2 policy trained by `orrery dl2 train --preset {} --seed {}` ({} warm-up epochs, {} iterations, {} jobs per episode)",
        a.preset, cfg.seed, cfg.warmup_epochs, cfg.iterations, cfg.episode_jobs
    )));
    match out {
        Some(o) => write_file(o, &(json + "\n"))?,
        None => print_stdout(&(json + "\n"))?,
    }
    if let Some(o) = curve_out {
        write_file(o, &t.curve_csv())?;
    }
    Ok(())
}

/// Print the experiment's warnings to standard error, one line each.
fn print_warnings(r: &Resolved) {
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
}

fn cmd_link(a: LinkArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    if !a.policy.is_empty() {
        exp.policies = a.policy.clone();
    }
    exp.resolve().map_err(|e| CliError::Input(e.to_string()))?;
    println!("{}", exp.to_link(&a.base));
    Ok(())
}

fn cmd_run(a: RunArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    let spec = match a.policy {
        Some(p) => p,
        None => exp.policies.first().cloned().ok_or_else(|| {
            CliError::Input("the experiment lists no policies; give --policy".into())
        })?,
    };
    exp.policies = vec![spec];
    let jobs_out = a.jobs_csv.as_deref().map(create_output).transpose()?;
    let series_out = a.series_csv.as_deref().map(create_output).transpose()?;
    let r = exp.resolve()?;
    print_warnings(&r);
    let runs = r.plan(&exp).tasks.len() as u64;
    let pb = progress_bar(r.trace.jobs.len() as u64 * runs, "run");
    let result = run_plan(&r, &exp, &pb);
    pb.finish_and_clear();
    let Outcome {
        mut results,
        isolated_jct: iso,
    } = result?;
    let res = results.remove(0);
    if let Some(out) = jobs_out {
        write_file(out, &res.recorder.jobs_csv(iso.as_deref()))?;
    }
    if let Some(out) = series_out {
        write_file(out, &res.recorder.series_csv(&r.cluster))?;
    }
    let text = match a.format {
        OutputFormat::Json => to_json(&res.summary)?,
        OutputFormat::Csv => summaries_csv(std::slice::from_ref(&res.summary)),
        OutputFormat::Table => render_kv(&summary_kv(&res.summary, &exp, &r, exp.fairness)),
    };
    print_stdout(&text)
}

fn cmd_compare(a: CompareArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    if !a.policy.is_empty() {
        exp.policies = a.policy.clone();
    }
    let out = a.out.as_deref().map(create_output).transpose()?;
    let r = exp.resolve()?;
    print_warnings(&r);
    let runs = r.plan(&exp).tasks.len() as u64;
    let pb = progress_bar(r.trace.jobs.len() as u64 * runs, "compare");
    let result = run_plan(&r, &exp, &pb);
    pb.finish_and_clear();
    let results = result?.results;
    let summaries: Vec<Summary> = results.into_iter().map(|r| r.summary).collect();
    if let Some(out) = out {
        write_file(out, &summaries_csv(&summaries))?;
    }
    let text = match a.format {
        OutputFormat::Json => to_json(&summaries)?,
        OutputFormat::Csv => summaries_csv(&summaries),
        OutputFormat::Table => {
            let preemptive = r.preemption.is_some();
            let mut s = format!(
                "workload: {}; cluster: {} ({} GPUs); seed {}; {}{}{}\n\n",
                workload_label(&exp, &r),
                exp.cluster.trim(),
                r.cluster.total_gpus(),
                exp.seed,
                if preemptive {
                    "preemptive (suspensions finish the epoch, checkpoint, reload)".to_string()
                } else {
                    format!("{} s rounds", exp.round_s)
                },
                if exp.gavel_compat {
                    "; Gavel-compatible"
                } else {
                    ""
                },
                exp.window
                    .map(|(a, b)| format!("; window [{a}, {b})"))
                    .unwrap_or_default()
            );
            let rows: Vec<Vec<String>> = summaries
                .iter()
                .map(|s| {
                    vec![
                        s.policy.clone(),
                        s.num_jobs.to_string(),
                        hours(s.avg_jct_s),
                        hours(s.p99_jct_s),
                        hours(s.makespan_s),
                        hours(s.avg_wait_s),
                        format!("{:.1}", s.utilization * 100.0),
                        if preemptive {
                            hours(s.time_lost_s)
                        } else {
                            opt3(s.max_rho)
                        },
                        if preemptive {
                            s.preemptions.to_string()
                        } else {
                            s.restarts.to_string()
                        },
                    ]
                })
                .collect();
            let (c7, c8) = if preemptive {
                ("time lost (h)", "preemptions")
            } else {
                ("max rho", "restarts")
            };
            s.push_str(&render_table(
                &[
                    "policy",
                    "jobs",
                    "avg JCT (h)",
                    "p99 JCT (h)",
                    "makespan (h)",
                    "avg wait (h)",
                    "util (%)",
                    c7,
                    c8,
                ],
                &rows,
            ));
            s
        }
    };
    print_stdout(&text)
}

// ---------------------------------------------------------------------------------------
// sweep
// ---------------------------------------------------------------------------------------

fn cmd_sweep(a: SweepArgs) -> CliResult<()> {
    let base = presets::default_experiment();
    let policies = if a.policy.is_empty() {
        base.policies.clone()
    } else {
        a.policy.clone()
    };
    for p in &policies {
        policy::build(p).map_err(|e| CliError::Input(e.to_string()))?;
    }
    let mut rates = a.rates.clone();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let mut seeds: Vec<u64> = Vec::new();
    for SeedRange(s, e) in &a.seeds {
        seeds.extend(*s..=*e);
        if seeds.len() as u64 > MAX_SEEDS {
            return Err(CliError::Input(format!(
                "--seeds: more than {MAX_SEEDS} seeds"
            )));
        }
    }
    seeds.sort_unstable();
    seeds.dedup();
    if rates.is_empty() || seeds.is_empty() {
        return Err(CliError::Input(
            "--rates and --seeds must not be empty".into(),
        ));
    }
    let profile = match &a.profile {
        Some(path) => ProfileSource::Inline {
            name: path.display().to_string(),
            text: read_file(path, "profile")?,
        },
        None => base.profile.clone(),
    };
    if let ProfileSource::Inline { text, .. } = &profile {
        if orrery::workload::Apps::is_apps_json(text) {
            return Err(CliError::Input(
                "sweep covers round-based experiments; for elastic (Pollux) workloads run `orrery compare` per seed".into(),
            ));
        }
    }
    let cluster = a.cluster.clone().unwrap_or(base.cluster.clone());
    let out = a.out.as_deref().map(create_output).transpose()?;

    // One workload per (rate, seed), in output order.
    let mut workloads: Vec<(f64, u64, Experiment)> = Vec::new();
    for &rate in &rates {
        for &seed in &seeds {
            let exp = Experiment {
                version: orrery::experiment::SCHEMA_VERSION,
                cluster: cluster.clone(),
                workload: WorkloadSource::Generated(GeneratorConfig {
                    num_jobs: a.num_jobs,
                    jobs_per_hour: rate,
                    multi_gpu: a.multi_gpu,
                    priority_weights: a.priority_weights,
                    elastic_fraction: 0.0,
                    duration_scale: 1.0,
                    seed,
                }),
                profile: profile.clone(),
                policies: policies.clone(),
                seed,
                round_s: a.round,
                gavel_compat: a.gavel_compat,
                restart_cost_s: a.restart_cost,
                window: a.window.map(|Window(s, e)| (s, e)),
                fairness: !a.no_fairness,
                inference: None,
                preemption: None,
                ps: None,
                network: None,
            };
            workloads.push((rate, seed, exp));
        }
    }
    let resolved: Vec<Resolved> = workloads
        .par_iter()
        .map(|(_, _, e)| e.resolve())
        .collect::<Result<Vec<_>, _>>()?;

    // Every workload's plan (its policies, then the isolated baseline when rho is asked
    // for), all tasks of all plans in parallel.
    let plans: Vec<Plan> = workloads
        .iter()
        .zip(&resolved)
        .map(|((_, _, e), r)| r.plan(e))
        .collect();
    let tasks: Vec<(usize, &Task)> = plans
        .iter()
        .enumerate()
        .flat_map(|(w, plan)| plan.tasks.iter().map(move |t| (w, t)))
        .collect();
    let pb = progress_bar(tasks.len() as u64, "sweep");
    let results: Vec<Result<RunResult, ExperimentError>> = tasks
        .par_iter()
        .map(|&(w, t)| {
            let res = resolved[w].run_task(&plans[w], t, |_| {});
            pb.inc(1);
            res
        })
        .collect();
    pb.finish_and_clear();
    let mut results = results.into_iter();
    let mut outcomes = Vec::with_capacity(plans.len());
    for (plan, r) in plans.iter().zip(&resolved) {
        let runs = results
            .by_ref()
            .take(plan.tasks.len())
            .collect::<Result<Vec<_>, _>>()?;
        outcomes.push(r.finish(plan, runs));
    }

    let mut csv = String::from(
        "policy,jobs_per_hour,seed,num_jobs,avg_jct_s,p99_jct_s,makespan_s,avg_wait_s,utilization,max_rho\n",
    );
    let mut rows: Vec<(usize, usize, String)> = Vec::new();
    for (w, outcome) in outcomes.iter().enumerate() {
        for (p, res) in outcome.results.iter().enumerate() {
            let s = &res.summary;
            let (rate, seed, _) = &workloads[w];
            let line = format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
                quote(&s.policy),
                rate,
                seed,
                s.num_jobs,
                csv_num(s.avg_jct_s),
                csv_num(s.p99_jct_s),
                csv_num(s.makespan_s),
                csv_num(s.avg_wait_s),
                csv_num(s.utilization),
                csv_opt(s.max_rho)
            );
            rows.push((p, w, line));
        }
    }
    // Policy order first, then rate, then seed (workloads are already in rate, seed order).
    rows.sort_by_key(|(p, w, _)| (*p, *w));
    for (_, _, line) in rows {
        csv.push_str(&line);
    }
    match out {
        Some(out) => {
            let path = out.0.clone();
            write_file(out, &csv)?;
            note(&format!(
                "wrote {} rows to {}",
                csv.lines().count() - 1,
                path.display()
            ));
            Ok(())
        }
        None => print_stdout(&csv),
    }
}

// ---------------------------------------------------------------------------------------
// generate
// ---------------------------------------------------------------------------------------

fn load_profile(path: Option<&Path>) -> CliResult<(Profile, String)> {
    match path {
        Some(p) => {
            let text = read_file(p, "profile")?;
            let name = p.display().to_string();
            let prof = Profile::parse(&text, &name).map_err(|e| CliError::Input(e.to_string()))?;
            Ok((prof, name))
        }
        None => {
            let name = presets::PROFILES
                .first()
                .map(|b| b.name)
                .unwrap_or("gavel-types");
            let prof = presets::profile(name).map_err(|e| CliError::Failure(e.to_string()))?;
            Ok((prof, format!("bundled profile '{name}'")))
        }
    }
}

fn cmd_import_pai(a: ImportPaiArgs) -> CliResult<()> {
    let jobs = read_file(&a.jobs, "PAI job table")?;
    let tasks = read_file(&a.tasks, "PAI task table")?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let sampling = orrery::workload::pai::PaiSampling {
        max_jobs: a.max_jobs,
        seed: a.seed,
        only_terminated: !a.all_statuses,
        elastic_fraction: a.elastic_fraction,
    };
    let trace = orrery::workload::pai::read_pai(
        (&jobs, &a.jobs.display().to_string()),
        (&tasks, &a.tasks.display().to_string()),
        &sampling,
    )
    .map_err(|e| CliError::Input(e.to_string()))?;
    let text = match a.format {
        TraceFormat::Csv => trace.to_csv(),
        TraceFormat::Json => format!("{}\n", trace.to_json()),
    };
    match out {
        Some(out) => write_file(out, &text),
        None => print_stdout(&text),
    }
}

/// Elastic applications from a bundled name, a JSON file or a Pollux folder.
fn load_apps(source: &Path) -> CliResult<orrery::workload::Apps> {
    let name = source.display().to_string();
    let apps = if let Some(bundled) = presets::elastic_apps(&name) {
        bundled
    } else if source.is_dir() {
        orrery::workload::Apps::from_pollux_files(&name, &read_folder(source)?)
    } else {
        orrery::workload::Apps::from_json(&read_file(source, "applications")?, &name)
    };
    apps.map_err(|e| CliError::Input(e.to_string()))
}

fn cmd_generate(a: GenerateArgs) -> CliResult<()> {
    let elastic = a.apps.is_some();
    let cfg = GeneratorConfig {
        num_jobs: a.num_jobs.unwrap_or(if elastic { 160 } else { 100 }),
        jobs_per_hour: a.jobs_per_hour.unwrap_or(if elastic { 20.0 } else { 0.0 }),
        multi_gpu: a.multi_gpu,
        priority_weights: a.priority_weights,
        elastic_fraction: 0.0,
        duration_scale: 1.0,
        seed: a.seed,
    };
    if let Some(source) = &a.apps {
        let apps = load_apps(source)?;
        let out = a.out.as_deref().map(create_output).transpose()?;
        let trace = orrery::workload::generator::generate_elastic(&apps, &cfg)
            .map_err(|e| CliError::Input(e.to_string()))?;
        let text = match a.format {
            TraceFormat::Csv => trace.to_pollux_csv(),
            TraceFormat::Json => format!("{}\n", trace.to_json()),
        };
        return match out {
            Some(out) => write_file(out, &text),
            None => print_stdout(&text),
        };
    }
    let (profile, _) = load_profile(a.profile.as_deref())?;
    let cluster = ClusterSpec::parse(&a.cluster).map_err(|e| CliError::Input(e.to_string()))?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let trace = generate(&profile, &cluster, &cfg).map_err(|e| CliError::Input(e.to_string()))?;
    let text = match a.format {
        TraceFormat::Csv => trace.to_csv(),
        TraceFormat::Json => {
            let mut s = trace.to_json();
            s.push('\n');
            s
        }
    };
    match out {
        Some(out) => write_file(out, &text),
        None => print_stdout(&text),
    }
}

// ---------------------------------------------------------------------------------------
// policies / presets
// ---------------------------------------------------------------------------------------

#[derive(serde::Serialize)]
struct ParamJson {
    name: &'static str,
    default: &'static str,
    help: &'static str,
}

/// A catalog entry in `orrery policies --format json`: its first implementation's family,
/// description and parameters, then every mechanism's.
#[derive(serde::Serialize)]
struct PolicyJson {
    name: &'static str,
    family: &'static str,
    description: &'static str,
    params: Vec<ParamJson>,
    mechanisms: Vec<&'static str>,
    implementations: Vec<ImplementationJson>,
}

#[derive(serde::Serialize)]
struct ImplementationJson {
    mechanism: &'static str,
    family: &'static str,
    description: &'static str,
    params: Vec<ParamJson>,
}

fn params_json(params: &'static [policy::ParamInfo]) -> Vec<ParamJson> {
    params
        .iter()
        .map(|q| ParamJson {
            name: q.name,
            default: q.default,
            help: q.help,
        })
        .collect()
}

fn cmd_policies(a: ListArgs) -> CliResult<()> {
    let list = catalog::catalog();
    let text = match a.format {
        ListFormat::Json => {
            let v: Vec<PolicyJson> = list
                .iter()
                .filter_map(|e| {
                    let first = e.implementations.first()?;
                    Some(PolicyJson {
                        name: e.name,
                        family: first.family,
                        description: first.description,
                        params: params_json(first.params),
                        mechanisms: e.mechanisms().iter().map(|m| m.name()).collect(),
                        implementations: e
                            .implementations
                            .iter()
                            .map(|i| ImplementationJson {
                                mechanism: i.mechanism.name(),
                                family: i.family,
                                description: i.description,
                                params: params_json(i.params),
                            })
                            .collect(),
                    })
                })
                .collect();
            to_json(&v)?
        }
        ListFormat::Table => {
            let name_w = list.iter().map(|p| p.name.len()).max().unwrap_or(0).max(6);
            let mech_w = 10;
            let mut s = format!(
                "{:<name_w$}  {:<mech_w$}  FAMILY: DESCRIPTION (parameters: key=default  help)\n",
                "POLICY", "MECHANISM"
            );
            for e in &list {
                for (k, i) in e.implementations.iter().enumerate() {
                    s.push_str(&format!(
                        "{:<name_w$}  {:<mech_w$}  {}: {}\n",
                        if k == 0 { e.name } else { "" },
                        i.mechanism.name(),
                        i.family,
                        i.description
                    ));
                    for q in i.params {
                        s.push_str(&format!(
                            "{:name_w$}  {:mech_w$}    {}={}  {}\n",
                            "", "", q.name, q.default, q.help
                        ));
                    }
                }
            }
            s.push_str("\nSpecs: `name` or `name[key=value,...]`, e.g. --policy las. A name is one policy; the\nexperiment's mechanism picks its implementation:\n");
            for m in Mechanism::ALL {
                s.push_str(&format!("  {:<mech_w$}  {}\n", m.name(), m.needs()));
            }
            s
        }
    };
    print_stdout(&text)
}

fn cmd_presets(a: ListArgs) -> CliResult<()> {
    let text = match a.format {
        ListFormat::Json => {
            let bundled = |list: &[presets::Bundled]| -> Vec<serde_json::Value> {
                list.iter()
                    .map(|b| {
                        serde_json::json!({
                            "name": b.name,
                            "description": b.description,
                            "file": b.file,
                        })
                    })
                    .collect()
            };
            let scenarios: Vec<serde_json::Value> = presets::SCENARIOS
                .iter()
                .map(|s| {
                    let e = s.experiment();
                    serde_json::json!({
                        "name": s.name,
                        "description": s.description,
                        "cluster": e.cluster,
                        "policies": e.policies,
                    })
                })
                .collect();
            to_json(&serde_json::json!({
                "scenarios": scenarios,
                "traces": bundled(presets::TRACES),
                "profiles": bundled(presets::PROFILES),
            }))?
        }
        ListFormat::Table => {
            let mut s = String::from("Scenarios (--preset NAME):\n");
            let w = presets::SCENARIOS
                .iter()
                .map(|s| s.name.len())
                .chain(presets::TRACES.iter().map(|b| b.name.len()))
                .chain(presets::PROFILES.iter().map(|b| b.name.len()))
                .chain(presets::ELASTIC_PROFILES.iter().map(|b| b.name.len()))
                .chain(presets::PS_PROFILES.iter().map(|b| b.name.len()))
                .max()
                .unwrap_or(0);
            for sc in presets::SCENARIOS {
                let e = sc.experiment();
                s.push_str(&format!("  {:<w$}  {}\n", sc.name, sc.description));
                s.push_str(&format!(
                    "  {:<w$}  cluster {}; policies: {}\n",
                    "",
                    e.cluster,
                    e.policies.join(", ")
                ));
            }
            s.push_str("\nBundled traces:\n");
            for b in presets::TRACES {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
            }
            s.push_str("\nBundled throughput profiles:\n");
            for b in presets::PROFILES {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
                if let Ok(p) = Profile::parse(b.text, b.file) {
                    s.push_str(&format!(
                        "  {:<w$}  GPU types: {}\n  {:<w$}  job types: {}\n",
                        "",
                        p.gpu_types().join(", "),
                        "",
                        p.job_type_names().join(", ")
                    ));
                }
            }
            s.push_str("\nBundled elastic-application and parameter-server profiles (each model runs on any one GPU type):\n");
            for b in presets::ELASTIC_PROFILES.iter().chain(presets::PS_PROFILES) {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
            }
            s
        }
    };
    print_stdout(&text)
}

// ---------------------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------------------

#[derive(serde::Serialize, Debug)]
struct BenchRow {
    name: String,
    input: String,
    reps: usize,
    /// How `time_s` summarises the repetitions: "median" or "mean".
    stat: &'static str,
    time_s: f64,
    min_s: f64,
    target_s: Option<f64>,
    ratio: Option<f64>,
}

impl BenchRow {
    /// A row reporting the median of `times`.
    fn new(name: String, input: String, times: Vec<f64>, target_s: Option<f64>) -> Self {
        Self::with_stat(name, input, times, target_s, "median")
    }

    fn with_stat(
        name: String,
        input: String,
        mut times: Vec<f64>,
        target_s: Option<f64>,
        stat: &'static str,
    ) -> Self {
        times.sort_by(f64::total_cmp);
        let time_s = if stat == "mean" {
            orrery::metrics::mean(&times)
        } else {
            orrery::metrics::percentile(&times, 50.0)
        };
        BenchRow {
            name,
            input,
            reps: times.len(),
            stat,
            time_s,
            min_s: times.first().copied().unwrap_or(0.0),
            target_s,
            ratio: target_s.map(|t| time_s / t),
        }
    }
}

fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// GPUs per type so that `n` single-GPU jobs contend (about half run at once).
fn scaled_cluster(n: usize) -> CliResult<ClusterSpec> {
    let per = n.div_ceil(6).max(1);
    ClusterSpec::parse(&format!("{per}:{per}:{per}")).map_err(|e| CliError::Failure(e.to_string()))
}

fn gen_jobs(
    profile: &Profile,
    cluster: &ClusterSpec,
    n: usize,
    jobs_per_hour: f64,
) -> CliResult<Trace> {
    let cfg = GeneratorConfig {
        num_jobs: n,
        jobs_per_hour,
        multi_gpu: false,
        priority_weights: false,
        elastic_fraction: 0.0,
        duration_scale: 1.0,
        seed: 0,
    };
    generate(profile, cluster, &cfg).map_err(|e| CliError::Failure(e.to_string()))
}

/// The owned data behind a hand-built [`PolicyView`] (every job active at t = 0).
struct BenchWorld {
    cluster: ClusterSpec,
    specs: Vec<JobSpec>,
    thr: Vec<Vec<f64>>,
    time: Vec<f64>,
}

impl BenchWorld {
    fn new(cluster: ClusterSpec, specs: Vec<JobSpec>, profile: &Profile) -> Self {
        let thr = specs
            .iter()
            .map(|s| profile.throughputs_on(&s.job_type, s.scale_factor, &cluster))
            .collect();
        let time = vec![0.0; cluster.num_types()];
        BenchWorld {
            cluster,
            specs,
            thr,
            time,
        }
    }

    fn view(&self) -> PolicyView<'_> {
        PolicyView {
            now: 0.0,
            round_len: 360.0,
            cluster: &self.cluster,
            jobs: self
                .specs
                .iter()
                .enumerate()
                .map(|(i, s)| JobView {
                    id: i,
                    spec: s,
                    throughput: &self.thr[i],
                    steps_remaining: s.total_steps,
                    attained_service: 0.0,
                    time_since_arrival: 0.0,
                    time_on_type: &self.time,
                    running_on: None,
                    rounds_run: 0,
                })
                .collect(),
            colocation: None,
            gavel_compat: false,
        }
    }
}

/// A slot policy that times every decision of the policy it wraps (seconds and decisions,
/// shared with the caller).
struct TimedPolicy {
    inner: Box<dyn orrery::sim::slots::SlotPolicy>,
    spent: std::rc::Rc<std::cell::Cell<(f64, u64)>>,
}

impl orrery::sim::slots::SlotPolicy for TimedPolicy {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act(
        &mut self,
        view: &orrery::sim::slots::SlotView,
        rng: &mut orrery::rng::Rng,
    ) -> orrery::sim::slots::SlotAction {
        let t0 = Instant::now();
        let a = self.inner.act(view, rng);
        let (s, n) = self.spent.get();
        self.spent.set((s + t0.elapsed().as_secs_f64(), n + 1));
        a
    }
}

fn bench_dl2(rows: &mut Vec<BenchRow>, quick: bool, progress: &dyn Fn(&str)) -> CliResult<()> {
    use orrery::policy::dl2::learned::{bundled, Dl2, Mode};
    use orrery::policy::dl2::train::{TrainConfig, Trainer};
    let fail = |e: String| CliError::Failure(format!("dl2 bench: {e}"));
    let exp = presets::dl2_experiment();
    let net = bundled().map_err(fail)?;
    let shape = net
        .sizes()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("-");
    // Inference: every decision of the bundled network over a whole run of the scenario.
    progress("dl2 inference per decision");
    let reps = if quick { 1 } else { 5 };
    let (mut per_decision, mut per_slot) = (Vec::new(), Vec::new());
    let (mut decisions, mut slots) = (0, 0);
    for _ in 0..reps {
        let dl2 = Dl2::new("dl2", net.clone(), Mode::Greedy).map_err(fail)?;
        let spent = std::rc::Rc::new(std::cell::Cell::new((0.0, 0u64)));
        let policy = TimedPolicy {
            inner: Box::new(dl2),
            spent: std::rc::Rc::clone(&spent),
        };
        let r = exp.resolve().map_err(|e| fail(e.to_string()))?;
        let ps =
            r.ps.as_ref()
                .ok_or_else(|| fail("not a DL2 experiment".into()))?;
        let mut sim = r
            .slot_simulator_with(Box::new(policy), ps)
            .map_err(|e| fail(e.to_string()))?;
        let mut obs = orrery::sim::slots::NoObserver;
        let t0 = Instant::now();
        let mut n = 0u64;
        while sim.step_slot(&mut obs).is_some() {
            n += 1;
        }
        per_slot.push(t0.elapsed().as_secs_f64() / n.max(1) as f64);
        slots = n;
        let (secs, count) = spent.get();
        per_decision.push(secs / count.max(1) as f64);
        decisions = count;
    }
    rows.push(BenchRow::new(
        "dl2 inference per decision (encode, forward, masked softmax)".into(),
        format!("bundled {shape} network on the dl2 scenario's {decisions} decisions"),
        per_decision,
        None,
    ));
    let slot_s = orrery::metrics::percentile(&per_slot, 50.0);
    rows.push(BenchRow::new(
        format!(
            "dl2 slot simulator per slot ({:.0} slots/s)",
            1.0 / slot_s.max(1e-12)
        ),
        format!("dl2 scenario (320 jobs), bundled network, {slots} slots"),
        per_slot,
        None,
    ));
    // Training throughput with the defaults of `orrery dl2 train`.
    progress("dl2 warm-up");
    let cfg = TrainConfig {
        warmup_epochs: if quick { 2 } else { 5 },
        ..TrainConfig::default()
    };
    let mut t = Trainer::new(&exp, cfg.clone()).map_err(fail)?;
    let (secs, res) = time_it(|| t.warmup(|_, _| {}));
    res.map_err(fail)?;
    let examples = t.warmup_examples * cfg.warmup_epochs;
    rows.push(BenchRow::new(
        format!(
            "dl2 warm-up ({:.0} examples/s)",
            examples as f64 / secs.max(1e-12)
        ),
        format!(
            "{} DRF episodes of {} jobs, {} examples x {} epochs, batch {}",
            cfg.warmup_episodes, cfg.episode_jobs, t.warmup_examples, cfg.warmup_epochs, cfg.batch
        ),
        vec![secs],
        None,
    ));
    progress("dl2 reinforcement-learning iterations");
    let iters = if quick { 2 } else { 10 };
    let (mut times, mut slots) = (Vec::new(), 0usize);
    for _ in 0..iters {
        let (secs, res) = time_it(|| t.rl_iteration());
        res.map_err(fail)?;
        times.push(secs);
        slots += t.last_rollouts.slots;
    }
    let total: f64 = times.iter().sum();
    rows.push(BenchRow::with_stat(
        format!(
            "dl2 RL iteration ({:.0} slots/s)",
            slots as f64 / total.max(1e-12)
        ),
        format!(
            "{} rollouts of {} jobs, {} updates of {} examples (eval every {})",
            cfg.rollouts, cfg.episode_jobs, cfg.updates, cfg.batch, cfg.eval_every
        ),
        times,
        None,
        "mean",
    ));
    Ok(())
}

fn time_it<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t0 = Instant::now();
    let v = f();
    (t0.elapsed().as_secs_f64(), v)
}

fn reference_dir(given: Option<&Path>) -> CliResult<Option<PathBuf>> {
    let has_files = |d: &Path| {
        d.join("static100_seed0.trace").is_file() && d.join("simulation_throughputs.json").is_file()
    };
    if let Some(d) = given {
        if has_files(d) {
            return Ok(Some(d.to_path_buf()));
        }
        return Err(CliError::Input(format!(
            "--reference '{}' lacks static100_seed0.trace or simulation_throughputs.json",
            d.display()
        )));
    }
    let candidates = [
        PathBuf::from("../shared/reference/gavel"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/gavel"),
    ];
    Ok(candidates.into_iter().find(|d| has_files(d)))
}

/// A whole run of `max_min_fairness_perf` in Gavel-compatible mode, repeated.
fn bench_whole_run(exp: &Experiment, reps: usize) -> CliResult<(Vec<f64>, usize)> {
    let r = exp.resolve()?;
    let mut times = Vec::with_capacity(reps);
    let mut finished = 0;
    for _ in 0..reps {
        let policy = exp
            .policies
            .first()
            .map_or("max_min_fairness_perf", String::as_str);
        let (t, res) = time_it(|| r.run_policy(policy, None, None, |_| {}));
        let res = res?;
        finished = res.summary.num_jobs;
        times.push(t);
    }
    Ok((times, finished))
}

/// The throughputs with colocated pairs for the packed benchmarks: Gavel's when the
/// reference folder is there, else `profile` with seeded synthetic pair throughputs.
fn bench_pair_profile(
    reference: Option<&Path>,
    profile: &Profile,
    profile_name: &str,
) -> CliResult<(Profile, String)> {
    use orrery::workload::profile::ColocatedEntry;
    Ok(match reference_dir(reference)? {
        Some(d) => {
            let f = d.join("simulation_throughputs.json");
            let text = read_file(&f, "profile")?;
            let p = Profile::parse(&text, &f.display().to_string())
                .map_err(|e| CliError::Input(e.to_string()))?;
            (p, format!("Gavel's {}", f.display()))
        }
        None => {
            // Each pair of types shares at 0.3-1x its isolated rates, the same factor
            // for both of two jobs of one type.
            let mut p = profile.clone();
            let mut rng = orrery::rng::Rng::new(0);
            let names = p.job_type_names();
            for (i, x) in names.iter().enumerate() {
                for y in &names[i..] {
                    for g in p.gpu_types() {
                        let (Some(tx), Some(ty)) = (p.throughput(x, 1, &g), p.throughput(y, 1, &g))
                        else {
                            continue;
                        };
                        let fx = rng.range(0.3, 1.0);
                        let fy = if x == y { fx } else { rng.range(0.3, 1.0) };
                        for (a, b, ta, tb) in [(x, y, tx * fx, ty * fy), (y, x, ty * fy, tx * fx)] {
                            if let Some(jt) = p.job_types.get_mut(a) {
                                jt.colocated.push(ColocatedEntry {
                                    scale: 1,
                                    with: b.clone(),
                                    with_scale: 1,
                                    gpu: g.clone(),
                                    this: ta,
                                    other: tb,
                                });
                            }
                            if x == y {
                                break;
                            }
                        }
                    }
                }
            }
            (
                p,
                format!("{profile_name} with seeded synthetic pair throughputs (0.3-1x isolated)"),
            )
        }
    })
}

fn cmd_bench(a: BenchArgs) -> CliResult<()> {
    if cfg!(debug_assertions) {
        note("warning: this is a debug build; use `cargo run --release -- bench` for meaningful timings");
    }
    let (profile, profile_name) = load_profile(None)?;
    let mut rows: Vec<BenchRow> = Vec::new();
    let on = |group: &str| a.only.as_deref().is_none_or(|w| group.contains(w));
    let progress = |what: &str| {
        if std::io::stderr().is_terminal() {
            note(&format!("bench: {what}..."));
        }
    };

    // (a) One max_min_fairness_perf LP solve.
    for &n in &[32usize, 128, 512, 2048] {
        if !on("lp") {
            break;
        }
        progress(&format!("LP at {n} jobs"));
        let cluster = scaled_cluster(n)?;
        let label = format!(
            "{n} single-GPU jobs ({profile_name}, seed 0) on {}",
            cluster_label(&cluster)
        );
        let trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        let world = BenchWorld::new(cluster, trace.jobs, &profile);
        let view = world.view();
        let reps = match (a.quick, n >= 2048) {
            (true, _) => 2,
            (false, true) => 3,
            (false, false) => 7,
        };
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let (t, res) = time_it(|| MaxMinFairness::solve(&view, true));
            res.map_err(|e| CliError::Failure(format!("LP at {n} jobs failed: {e}")))?;
            times.push(t);
        }
        let target = (n == 512).then_some(0.010);
        rows.push(BenchRow::new(
            format!("LP max_min_fairness_perf, {n} jobs"),
            label,
            times,
            target,
        ));
    }

    // (a') One max_min_fairness_packed LP solve (space sharing): every pair of single-GPU
    // jobs that can share GPUs is a row (Gavel's simulator takes 49 s at 512 jobs). Gavel's
    // throughputs with their colocated pairs when the reference folder is there, else the
    // bundled profile with seeded synthetic pair throughputs.
    if on("lp packed") {
        use orrery::workload::Colocation;
        let (pair_profile, pair_source) =
            bench_pair_profile(a.reference.as_deref(), &profile, &profile_name)?;
        // The policy as registered (solved over classes of interchangeable jobs), then one
        // row per job and pair as Gavel's LP has it.
        for (n, spec, target) in [
            (128usize, "max_min_fairness_packed", None),
            (512, "max_min_fairness_packed", Some(1.0)),
            (128, "max_min_fairness_packed[by_class=false]", None),
            (512, "max_min_fairness_packed[by_class=false]", None),
        ] {
            progress(&format!("packed LP at {n} jobs, {spec}"));
            let cluster = scaled_cluster(n)?;
            let trace = gen_jobs(&pair_profile, &cluster, n, 0.0)?;
            let world = BenchWorld::new(cluster.clone(), trace.jobs, &pair_profile);
            let col = Colocation::new(&pair_profile, &cluster, &world.specs);
            let mut view = world.view();
            view.colocation = Some(&col);
            let per_job = spec.contains("by_class=false");
            let reps = match (a.quick, n >= 512, per_job) {
                (true, _, _) | (false, true, true) => 1,
                (false, true, false) => 5,
                (false, false, _) => 7,
            };
            let mut times = Vec::with_capacity(reps);
            let mut pairs = 0;
            for _ in 0..reps {
                let mut pol = policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
                let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
                match res {
                    Ok(orrery::policy::Decision::Allocation(alloc)) => pairs = alloc.pairs.len(),
                    Ok(_) => return Err(CliError::Failure(format!("{spec} gave no allocation"))),
                    Err(e) => {
                        return Err(CliError::Failure(format!(
                            "packed LP at {n} jobs failed: {e}"
                        )))
                    }
                }
                times.push(t);
            }
            rows.push(BenchRow::new(
                format!(
                    "LP max_min_fairness_packed, {n} jobs{}",
                    if per_job {
                        ", one row per job and pair"
                    } else {
                        ""
                    }
                ),
                format!(
                    "{n} single-GPU jobs ({pair_source}, seed 0) on {}; {pairs} pairs; {}",
                    cluster_label(&cluster),
                    if per_job {
                        "by_class=false"
                    } else {
                        "solved over classes of jobs"
                    }
                ),
                times,
                target,
            ));
        }
    }

    // (a'') One AlloX matching (min-cost assignment of the waiting jobs to the free GPUs
    // and their queue positions; Gavel's simulator takes 104 s at 512 jobs).
    for (n, target) in [(128usize, None), (512, Some(1.0))] {
        use orrery::policy::Policy as _;
        if !on("lp allox") {
            break;
        }
        progress(&format!("AlloX matching at {n} jobs"));
        let cluster = scaled_cluster(n)?;
        let label = format!(
            "{n} single-GPU jobs ({profile_name}, seed 0) on {}, none placed yet",
            cluster_label(&cluster)
        );
        let trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        let world = BenchWorld::new(cluster, trace.jobs, &profile);
        let view = world.view();
        let reps = if a.quick { 1 } else { 3 };
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let mut pol = orrery::policy::gavel::allox::Allox::new("allox", 1.0);
            let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
            res.map_err(|e| CliError::Failure(format!("AlloX at {n} jobs failed: {e}")))?;
            times.push(t);
        }
        rows.push(BenchRow::new(
            format!("AlloX matching, {n} jobs"),
            label,
            times,
            target,
        ));
    }

    // (a'') One solve of every LP policy at 128 and 512 single-GPU jobs on the 3-type
    // cluster (Gavel's throughputs and pairs when the reference is there): priced at AWS's
    // on-demand rates (for the cost policies), every fourth job with a deadline at three
    // times its duration on its fastest type (for the SLO policies), jobs spread over four
    // entities (for hierarchical). Packed policies get the colocated pairs.
    // The per-pair bisections at 512 jobs (finish_time_fairness_packed and
    // min_total_duration_packed: a row per pair of jobs, 128,418 at 512) take minutes: they
    // form the group "lp bisections", run by `--only lp` but not `--only "lp all"`.
    if on("lp all") || on("lp bisections") {
        use orrery::workload::Colocation;
        let (pair_profile, pair_source) =
            bench_pair_profile(a.reference.as_deref(), &profile, &profile_name)?;
        const LP_POLICIES: [&str; 17] = [
            "max_min_fairness",
            "max_min_fairness_perf",
            "max_min_fairness_packed",
            "finish_time_fairness",
            "finish_time_fairness_perf",
            "finish_time_fairness_packed",
            "min_total_duration",
            "min_total_duration_perf",
            "min_total_duration_packed",
            "max_sum_throughput_perf",
            "max_min_fairness_water_filling",
            "max_min_fairness_water_filling_perf",
            "max_min_fairness_water_filling_packed",
            "hierarchical[weights=e0:2;e1:1;e2:1;e3:0.5]",
            "max_sum_throughput_normalized_by_cost_perf",
            "max_sum_throughput_normalized_by_cost_perf_slos",
            "max_sum_throughput_normalized_by_cost_packed_slos",
        ];
        for n in [128usize, 512] {
            let mut cluster = scaled_cluster(n)?;
            for t in &mut cluster.types {
                t.price_per_hour = match t.name.as_str() {
                    "v100" => Some(3.06),
                    "p100" => Some(1.35),
                    "k80" => Some(0.9),
                    _ => None,
                };
            }
            let mut trace = gen_jobs(&pair_profile, &cluster, n, 0.0)?;
            for (i, j) in trace.jobs.iter_mut().enumerate() {
                j.entity = Some(format!("e{}", i % 4));
                if i % 4 == 0 {
                    let best = pair_profile
                        .throughputs_on(&j.job_type, j.scale_factor, &cluster)
                        .into_iter()
                        .fold(0.0, f64::max);
                    if best > 0.0 {
                        j.slo = Some(3.0 * j.total_steps / best);
                    }
                }
            }
            let world = BenchWorld::new(cluster.clone(), trace.jobs, &pair_profile);
            let col = Colocation::new(&pair_profile, &cluster, &world.specs);
            for spec in LP_POLICIES {
                let name = spec.split('[').next().unwrap_or(spec);
                let slow = n >= 512
                    && matches!(
                        name,
                        "finish_time_fairness_packed" | "min_total_duration_packed"
                    );
                if !on(if slow { "lp bisections" } else { "lp all" }) {
                    continue;
                }
                progress(&format!("{name} at {n} jobs"));
                let mut view = world.view();
                let packed = policy::build(spec)
                    .map_err(|e| CliError::Failure(e.to_string()))?
                    .traits()
                    .packing;
                if packed {
                    view.colocation = Some(&col);
                }
                // The per-pair bisections at 512 jobs: one repetition.
                let reps = match (a.quick, n >= 512, slow) {
                    (true, _, _) | (false, _, true) => 1,
                    (false, true, false) => 3,
                    (false, false, false) => 5,
                };
                let mut times = Vec::with_capacity(reps);
                for _ in 0..reps {
                    let mut pol =
                        policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
                    let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
                    res.map_err(|e| CliError::Failure(format!("{spec} at {n} jobs failed: {e}")))?;
                    times.push(t);
                }
                let target = match (name, n) {
                    ("finish_time_fairness_perf", 512) => Some(0.050),
                    ("max_min_fairness_packed", 512) => Some(1.0),
                    _ => None,
                };
                rows.push(BenchRow::new(
                    format!("LP solve {name}, {n} jobs"),
                    format!(
                        "{n} single-GPU jobs ({pair_source}, seed 0) on {}{}",
                        cluster_label(&cluster),
                        if packed { ", with pairs" } else { "" }
                    ),
                    times,
                    target,
                ));
            }
        }
    }

    // (b) The mechanism per round at 2048 active jobs. Jobs are made long enough that none
    // finishes, so after the first round (the LP solve) the allocation is not recomputed and
    // a round is the mechanism alone; rounds where the policy decided are left out.
    if on("mechanism") {
        let n = 2048;
        let cluster = scaled_cluster(n)?;
        let mut trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        for j in &mut trace.jobs {
            j.total_steps *= 1e6;
        }
        let rounds = if a.quick { 10 } else { 50 };
        for (spec, target, what) in [
            (
                "max_min_fairness_perf",
                Some(0.001),
                "allocation mechanism, LP excluded",
            ),
            ("las", None, "order mechanism, decide (a sort) included"),
        ] {
            progress(&format!("rounds at {n} jobs with {spec}"));
            let pol = policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
            let mut sim = Simulator::new(
                SimConfig::default(),
                cluster.clone(),
                trace.jobs.clone(),
                profile.clone(),
                pol,
            )
            .map_err(|e| CliError::Failure(e.to_string()))?;
            // Warm-up round: admission and the first decision.
            sim.step_round();
            let mut times = Vec::with_capacity(rounds);
            let mut skipped = 0;
            for _ in 0..rounds {
                let (t, rep) = time_it(|| sim.step_round());
                let Some(rep) = rep else { break };
                let decided = rep
                    .events
                    .iter()
                    .any(|e| matches!(e, SimEvent::Decided { .. }));
                if decided && spec != "las" {
                    skipped += 1;
                } else {
                    times.push(t);
                }
            }
            if times.is_empty() {
                return Err(CliError::Failure(format!(
                    "no round of {spec} could be measured"
                )));
            }
            rows.push(BenchRow::with_stat(
                format!("round at {n} active jobs, {spec}"),
                format!(
                    "{what}; mean of {} rounds{}; {} on {}",
                    times.len(),
                    if skipped > 0 {
                        format!(" ({skipped} with a decision skipped)")
                    } else {
                        String::new()
                    },
                    profile_name,
                    cluster_label(&cluster)
                ),
                times,
                target,
                "mean",
            ));
        }
    }

    // (c) A whole static run: 100 jobs at t = 0 on 36:36:36.
    if on("static") {
        progress("static run of 100 jobs");
        let reference = reference_dir(a.reference.as_deref())?;
        let (workload, prof, input) = match &reference {
            Some(d) => {
                let trace = d.join("static100_seed0.trace");
                let thr = d.join("simulation_throughputs.json");
                (
                    WorkloadSource::Inline {
                        name: trace.display().to_string(),
                        text: read_file(&trace, "trace")?,
                    },
                    ProfileSource::Inline {
                        name: thr.display().to_string(),
                        text: read_file(&thr, "profile")?,
                    },
                    format!("Gavel reference {}", trace.display()),
                )
            }
            None => (
                WorkloadSource::Generated(GeneratorConfig {
                    num_jobs: 100,
                    jobs_per_hour: 0.0,
                    multi_gpu: false,
                    priority_weights: false,
                    elastic_fraction: 0.0,
                    duration_scale: 1.0,
                    seed: 0,
                }),
                ProfileSource::Preset {
                    name: "gavel-types".into(),
                },
                "generated 100 jobs at t = 0 (seed 0), bundled gavel-types profile".to_string(),
            ),
        };
        let exp = bench_experiment(workload, prof);
        let (times, finished) = bench_whole_run(&exp, if a.quick { 2 } else { 5 })?;
        rows.push(BenchRow::new(
            "static run, 100 jobs, max_min_fairness_perf".into(),
            format!("{input}; 36:36:36, Gavel-compatible, {finished} jobs finished"),
            times,
            Some(0.050),
        ));
    }

    // (d) A continuous run: 1,500 jobs at 5 jobs/hour.
    if on("continuous") {
        progress("continuous run of 1500 jobs");
        let exp = bench_experiment(
            WorkloadSource::Generated(GeneratorConfig {
                num_jobs: 1500,
                jobs_per_hour: 5.0,
                multi_gpu: false,
                priority_weights: false,
                elastic_fraction: 0.0,
                duration_scale: 1.0,
                seed: 0,
            }),
            ProfileSource::Preset {
                name: "gavel-types".into(),
            },
        );
        let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 3 })?;
        rows.push(BenchRow::new(
            "continuous run, 1500 jobs, max_min_fairness_perf".into(),
            format!("generated at 5 jobs/h (seed 0), bundled gavel-types profile; 36:36:36, Gavel-compatible, {finished} jobs finished"),
            times,
            Some(0.100),
        ));
    }

    // (e) Pollux's setting: 160 elastic jobs over 8 hours on 16 servers x 4 GPUs, each
    // elastic policy in turn (Pollux's own Python simulator needs up to about 30 minutes).
    for (policy, target) in [
        ("pollux", Some(10.0)),
        ("tiresias", None),
        ("optimus", None),
    ] {
        if !on("elastic pollux") {
            break;
        }
        progress(&format!("160-job elastic run with {policy}"));
        let exp = Experiment {
            policies: vec![policy.into()],
            ..presets::pollux_experiment()
        };
        let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 3 })?;
        rows.push(BenchRow::new(
            format!("elastic run, 160 jobs, {policy}"),
            format!("bundled pollux scenario (generated, seed 1, pollux-apps profile); 16 servers x 4 GPUs, 60 s ticks; {finished} jobs finished"),
            times,
            target,
        ));
    }

    // (f) Aryl at scale: 50,000 jobs over about 15 days on 2,048 training GPUs with 2,048
    // inference GPUs under a daily load.
    if on("pooled aryl") {
        progress("50,000-job pooled run with aryl");
        let mut exp = presets::aryl_experiment();
        exp.cluster = "v100:2048/8,inference:2048/8".into();
        exp.policies = vec!["aryl".into()];
        exp.workload = WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 50_000,
            jobs_per_hour: 139.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.5,
            duration_scale: 1.0,
            seed: 1,
        });
        let (times, finished) = bench_whole_run(&exp, 1)?;
        rows.push(BenchRow::new(
            "pooled run, 50,000 jobs, aryl".into(),
            format!("generated at 139 jobs/h (15 days of arrivals, half elastic, seed 1), gavel-types profile; v100:2048/8 + inference:2048/8, diurnal load, 60 s ticks; {finished} jobs finished"),
            times,
            Some(30.0),
        ));
    }

    // (g') DL2: the bundled network's inference per decision, the slot simulator running
    // it on the dl2 scenario, and training throughput.
    if on("dl2") {
        bench_dl2(&mut rows, a.quick, &progress)?;
    }

    // (g) PickyMan: one choice of victims among 1,000 running jobs, then whole preemptive
    // runs.
    if on("preemptive pickyman") {
        use orrery::policy::pickyman::victims::{greedy, Candidate};
        progress("victim choice among 1,000 running jobs");
        let mut rng = orrery::rng::Rng::new(0);
        let cands: Vec<Candidate> = (0..1000)
            .map(|job| Candidate {
                job,
                gpus: [1, 1, 2, 4, 8][rng.below(5) as usize],
                release_s: rng.range(0.0, 3600.0),
                loss_s: rng.range(5.0, 120.0),
            })
            .collect();
        for need in [1u32, 8, 64] {
            let reps = if a.quick { 5 } else { 51 };
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let (t, c) = time_it(|| greedy(&cands, need));
                c.ok_or_else(|| CliError::Failure("no victims found".into()))?;
                times.push(t);
            }
            rows.push(BenchRow::new(
                format!(
                    "victim choice, 1,000 running jobs, {need} GPU{} needed",
                    if need == 1 { "" } else { "s" }
                ),
                "1,000 candidates of 1-8 GPUs, releases 0-3,600 s, losses 5-120 s (seed 0); greedy sweep".into(),
                times,
                (need == 8).then_some(0.001),
            ));
        }
        for policy in ["pickyman", "srtf"] {
            progress(&format!("pickyman scenario with {policy}"));
            let exp = Experiment {
                policies: vec![policy.into()],
                ..presets::pickyman_experiment()
            };
            let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 5 })?;
            rows.push(BenchRow::new(
                format!("preemptive run, 400 jobs, {policy}"),
                format!("bundled pickyman scenario (generated at 20 jobs/h, durations / 10, seed 1); v100:32; {finished} jobs finished"),
                times,
                None,
            ));
        }
        progress("20,000-job preemptive run with pickyman");
        let mut exp = presets::pickyman_experiment();
        exp.cluster = "v100:2048".into();
        exp.policies = vec!["pickyman".into()];
        exp.workload = WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 20_000,
            jobs_per_hour: 600.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 0.1,
            seed: 1,
        });
        let (times, finished) = bench_whole_run(&exp, 1)?;
        rows.push(BenchRow::new(
            "preemptive run, 20,000 jobs, pickyman".into(),
            format!("generated at 600 jobs/h (durations / 10, seed 1), gavel-types profile; v100:2048; {finished} jobs finished"),
            times,
            None,
        ));
    }

    let text = match a.format {
        ListFormat::Json => to_json(&rows)?,
        ListFormat::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.name.clone(),
                        format!("{} ({})", fmt_time(r.time_s), r.stat),
                        r.reps.to_string(),
                        r.target_s.map(fmt_time).unwrap_or_else(|| "-".into()),
                        r.ratio
                            .map(|x| format!("{x:.2}x"))
                            .unwrap_or_else(|| "-".into()),
                    ]
                })
                .collect();
            let mut s = render_table(&["benchmark", "time", "reps", "target", "ratio"], &table);
            s.push_str("\nInputs:\n");
            for r in &rows {
                s.push_str(&format!("  {}: {}\n", r.name, r.input));
            }
            s
        }
    };
    print_stdout(&text)
}

fn cluster_label(c: &ClusterSpec) -> String {
    c.types
        .iter()
        .map(|t| format!("{}:{}", t.name, t.count))
        .collect::<Vec<_>>()
        .join(",")
}

fn bench_experiment(workload: WorkloadSource, profile: ProfileSource) -> Experiment {
    Experiment {
        cluster: "36:36:36".into(),
        workload,
        profile,
        policies: vec!["max_min_fairness_perf".into()],
        seed: 0,
        round_s: 360.0,
        gavel_compat: true,
        restart_cost_s: 0.0,
        window: None,
        fairness: false,
        ..presets::default_experiment()
    }
}
