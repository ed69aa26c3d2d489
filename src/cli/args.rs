//! The command line: every command, its flags and their parsers.

use super::*;
use orrery::model::failure::checkpoint::Interval;

/// Orrery: a GPU cluster scheduling simulator (Gavel's policies, classic baselines and more).
#[derive(Parser, Debug)]
#[command(name = "orrery", version, about, long_about = None)]
#[command(propagate_version = true, arg_required_else_help = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Run one policy on an experiment and print its metrics.
    Run(RunArgs),
    /// Run several policies on the same experiment and compare their metrics.
    Compare(CompareArgs),
    /// Sweep an experiment over policies, seeds, loads and cluster sizes, in shards if asked;
    /// one CSV row (or JSON object) per cell. `orrery sweep merge` joins shards' outputs.
    Sweep(Box<SweepArgs>),
    /// Write a synthetic trace (Gavel's generator recipe).
    Generate(GenerateArgs),
    /// Sample the Alibaba PAI GPU trace (cluster-trace-gpu-v2020) into an Orrery trace.
    ImportPai(ImportPaiArgs),
    /// Read Alibaba's spot GPU trace (cluster-trace-v2026-spot-gpu): its node table as a
    /// cluster, its job table as a trace with the profile that keeps each job on its model.
    ImportAlibabaSpot(ImportAlibabaSpotArgs),
    /// Read an Acme job trace (Seren or Kalos) into a trace of its GPU jobs, with their final
    /// states and failures.
    ImportAcme(ImportAcmeArgs),
    /// Print a trace's shape: jobs, GPU-hours, GPU counts, durations, arrivals over time.
    TraceStats(TraceStatsArgs),
    /// List every scheduling policy with its parameters and the paper it comes from (also
    /// `orrery list`).
    #[command(visible_alias = "list")]
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
pub(crate) enum Dl2Command {
    /// Train DL2: a supervised warm-up on DRF's decisions, then actor-critic reinforcement
    /// learning in the slot simulator, on workloads of the experiment's generator.
    Train(Box<Dl2TrainArgs>),
    /// Write the bundled networks' file (`traces/dl2_weights.json`) from two weights files
    /// written by `orrery dl2 train`: Orrery's slot world's and DL2-compatible mode's.
    Bundle(Dl2BundleArgs),
}

/// Flags of `orrery dl2 bundle`.
#[derive(Args, Debug)]
pub(crate) struct Dl2BundleArgs {
    /// The network for Orrery's slot world (trained with `--preset dl2`).
    #[arg(long, value_name = "FILE")]
    pub(crate) slots: PathBuf,
    /// The network for DL2-compatible mode (trained with `--dl2-compat`).
    #[arg(long, value_name = "FILE")]
    pub(crate) dl2_compat: PathBuf,
    /// Write the bundle here [default: standard output].
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// Flags of `orrery dl2 train`.
#[derive(Args, Debug)]
pub(crate) struct Dl2TrainArgs {
    /// Bundled scenario whose cluster, models and generator the episodes use.
    #[arg(long, default_value = "dl2")]
    pub(crate) preset: String,
    /// Experiment JSON instead of the scenario.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Train on DL2's workload generator at this scale (`testbed`, `base` or `large`; the
    /// episodes draw their own seeds), with --profile DL2's profile folder; the cluster and
    /// slot length are the scale's.
    #[arg(long, value_name = "SCALE", value_parser = parse_dl2_workload)]
    pub(crate) dl2_workload: Option<Dl2Workload>,
    /// Profile of the episodes' jobs (a file or DL2's profile folder) [default: the
    /// scenario's].
    #[arg(long, value_name = "PATH")]
    pub(crate) profile: Option<PathBuf>,
    /// Train in DL2-compatible mode (DL2's placement and its simulator's rules).
    #[arg(long)]
    pub(crate) dl2_compat: bool,
    /// Training seed.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Reinforcement-learning iterations (each several rollouts of one workload).
    #[arg(long)]
    pub(crate) iterations: Option<usize>,
    /// Passes over DRF's decisions in the warm-up.
    #[arg(long)]
    pub(crate) warmup_epochs: Option<usize>,
    /// Jobs in the network's window (DL2 schedules the first 20 at its base scale).
    #[arg(long)]
    pub(crate) window: Option<usize>,
    /// Jobs per episode.
    #[arg(long)]
    pub(crate) episode_jobs: Option<usize>,
    /// Episodes of DRF's decisions in the warm-up.
    #[arg(long)]
    pub(crate) warmup_episodes: Option<usize>,
    /// Learning rate of the warm-up.
    #[arg(long)]
    pub(crate) warmup_lr: Option<f64>,
    /// Learning rate of reinforcement learning.
    #[arg(long)]
    pub(crate) rl_lr: Option<f64>,
    /// Rollouts per reinforcement-learning iteration.
    #[arg(long)]
    pub(crate) rollouts: Option<usize>,
    /// Weight of the KL penalty toward the warm-up's policy.
    #[arg(long)]
    pub(crate) kl: Option<f64>,
    /// Branched credit: copies of the greedy actor's episode per branched slot (0:
    /// independent rollouts).
    #[arg(long)]
    pub(crate) branches: Option<usize>,
    /// Slots after the branched one that count in a branch's return.
    #[arg(long)]
    pub(crate) horizon: Option<usize>,
    /// Branch at single decisions (trying the actor's most probable actions there) instead
    /// of whole slots.
    #[arg(long)]
    pub(crate) decision_credit: bool,
    /// Credit of the independent rollouts: `exact` (every decision is credited with what
    /// each allowed action would add to its slot's reward) or `slot` (the clipped
    /// actor-critic update on each slot's discounted return against the rollouts'
    /// baseline).
    #[arg(long, value_parser = ["exact", "slot"])]
    pub(crate) credit: Option<String>,
    /// What exact credit counts as an action's gain: `work` (the share of its job's whole
    /// work it adds in the slot: DL2's reward) or `left` (the share of its job's work left).
    #[arg(long, value_parser = ["work", "left"])]
    pub(crate) gain: Option<String>,
    /// Temperature of the exact-credit step (smaller: larger steps).
    #[arg(long)]
    pub(crate) temperature: Option<f64>,
    /// Label smoothing of the warm-up (share of each target spread over the allowed
    /// actions).
    #[arg(long)]
    pub(crate) smoothing: Option<f64>,
    /// The dl2-family policy the warm-up imitates.
    #[arg(long)]
    pub(crate) teacher: Option<String>,
    /// Held-out episodes of each evaluation (and of the warm-up's agreement).
    #[arg(long)]
    pub(crate) eval_episodes: Option<usize>,
    /// Write the trained network's weights here (JSON).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Write the learning curve here (CSV).
    #[arg(long, value_name = "FILE")]
    pub(crate) curve: Option<PathBuf>,
}

/// Flags that describe an experiment (shared by `run` and `compare`).
#[derive(Args, Debug)]
pub(crate) struct ExperimentArgs {
    /// Experiment JSON to start from; the other flags override its fields.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "link"])]
    pub(crate) config: Option<PathBuf>,
    /// Share link of the web playground (or its `#x1.` fragment) to start from; the other flags
    /// override its fields.
    #[arg(long, value_name = "URL", conflicts_with = "preset")]
    pub(crate) link: Option<String>,
    /// Bundled scenario to start from (see `orrery presets`) [default: default].
    #[arg(long, value_name = "NAME")]
    pub(crate) preset: Option<String>,
    /// Trace file: Orrery CSV or JSON, Gavel's tab-separated `.trace`, the Pollux workload
    /// CSV, Philly's job log (JSON), or the job tables of Helios, Acme or Philly (Sia's CSV).
    /// A trace of durations (the last four) runs profile-free unless --profile is given.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Throughput profile file: Orrery JSON or CSV, or Gavel's throughputs JSON [default: the
    /// scenario's profile]. With a trace of durations, each job draws a job type of it.
    #[arg(long, value_name = "FILE", conflicts_with = "profile_free")]
    pub(crate) profile: Option<PathBuf>,
    /// Run without a profile: every job makes one step per second at its GPU count on any
    /// GPU type (a job of a trace of durations runs for its traced duration).
    #[arg(long)]
    pub(crate) profile_free: bool,
    #[command(flatten)]
    pub(crate) filter: FilterArgs,
    /// Cluster: `v100:36,p100:36,k80:36`, `36:36:36` (v100:p100:k80) or JSON (`sweep`:
    /// repeat for several).
    #[arg(long, value_name = "SPEC")]
    pub(crate) cluster: Vec<String>,
    /// Experiment seed (every random choice derives from it).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// Round length in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive_seconds, allow_hyphen_values = true)]
    pub(crate) round: Option<f64>,
    /// Measure only jobs with ids in [A, B); the run stops once they are done.
    #[arg(long, value_name = "A:B", value_parser = parse_window, allow_hyphen_values = true)]
    pub(crate) window: Option<Window>,
    /// Reproduce the mechanism of Gavel's simulator.
    #[arg(long)]
    pub(crate) gavel_compat: bool,
    /// Reproduce the mechanism of DL2's simulator (parameter-server experiments: DL2's
    /// placement, no restart cost, DL2's forms of its heuristics).
    #[arg(long)]
    pub(crate) dl2_compat: bool,
    /// DL2's workload generator: `SCALE[:SEED[:TRACE]]` (`testbed`, `base` or `large`;
    /// numpy's seed, 9973 by default; the trace of the seed, 0 by default), as DL2's
    /// simulator draws its traces. Needs DL2's profile folder (--profile); the cluster
    /// and slot length default to the scale's.
    #[arg(long, value_name = "SCALE[:SEED[:TRACE]]", value_parser = parse_dl2_workload, conflicts_with = "trace")]
    pub(crate) dl2_workload: Option<Dl2Workload>,
    /// Seconds without progress each time a job starts or its GPUs change (the delay of
    /// job types `--restart-type` does not name).
    #[arg(long, value_name = "SECONDS", value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    pub(crate) restart_cost: Option<f64>,
    /// Server failures per server-day (each server fails as a Poisson process of this
    /// rate, the same failures for every policy; Llama 3's 54 days: 0.003789). A failure
    /// stops the jobs on the server, takes back their work since their last checkpoint and
    /// hands them back to their policy.
    #[arg(long, value_name = "RATE", value_parser = parse_nonneg, allow_hyphen_values = true)]
    pub(crate) failures: Option<f64>,
    /// Seconds a failed server is away (0, the default: a spare takes its place at once).
    #[arg(long, value_name = "SECONDS", value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    pub(crate) repair_s: Option<f64>,
    /// What a failure takes: `server` (the default: every job on it stops) or `gpu` (a
    /// failure of a GPU cause takes one GPU of its server, drawn uniformly: only the job on
    /// it stops, and with a repair time only that GPU is away).
    #[arg(long, value_name = "server|gpu", value_parser = parse_domain)]
    pub(crate) failure_domain: Option<orrery::model::failure::Domain>,
    /// Seconds of computation between a job's checkpoints, or `auto`: Daly's optimum for
    /// each job's mean time to failure and the write time (default 3600).
    #[arg(long, value_name = "SECONDS|auto", value_parser = parse_checkpoint_interval)]
    pub(crate) checkpoint_s: Option<Interval>,
    /// Seconds each checkpoint write blocks a job (default 0: writes in the background).
    #[arg(long, value_name = "SECONDS", value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    pub(crate) checkpoint_write_s: Option<f64>,
    /// A GPU type's capacity follows a spot trace, `TYPE=FILE` (repeatable): SkyPilot's
    /// spot-traces JSON or Parcae's add/remove CSV, in instances of the type's GPUs per
    /// server; GPUs the trace does not hold are not placed, and jobs on them are preempted.
    #[arg(long, value_name = "TYPE=FILE", value_parser = parse_type_file)]
    pub(crate) spot: Vec<(String, PathBuf)>,
    /// Seconds of warning before a spot instance is taken back (default 120, AWS's): a job
    /// whose checkpoint write fits in it writes one and loses only that write's work, else
    /// it loses its work since its last checkpoint.
    #[arg(long, value_name = "SECONDS", value_parser = parse_nonneg_seconds, allow_hyphen_values = true)]
    pub(crate) spot_warning_s: Option<f64>,
    /// Stop every run at this time (s), reporting the jobs left unfinished.
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive_seconds, allow_hyphen_values = true)]
    pub(crate) until: Option<f64>,
    /// A job type's (or application's) own restart delay, `TYPE=SECONDS` (repeatable), as
    /// Sia gives each application its own: e.g. `--restart-type cifar10=50`.
    #[arg(long, value_name = "TYPE=SECONDS", value_parser = parse_type_seconds)]
    pub(crate) restart_type: Vec<(String, f64)>,
    /// An elastic application's slowdown, `APP=FACTOR` (repeatable): its steps take that many
    /// times as long as its profile measured, as Sia's simulator slows each application
    /// (e.g. `--slowdown cifar10=1.8`).
    #[arg(long, value_name = "APP=FACTOR", value_parser = parse_app_factor)]
    pub(crate) slowdown: Vec<(String, f64)>,
    /// Offered load: arrivals compressed in time by FACTOR about the first one (2: jobs
    /// arrive twice as fast; 0.5: half as fast), for a trace or a generated workload.
    #[arg(long, value_name = "FACTOR", value_parser = parse_load)]
    pub(crate) load: Option<f64>,
    /// Skip the isolated baseline run (no finish-time fairness rho).
    #[arg(long)]
    pub(crate) no_fairness: bool,
    /// Weights JSON of the `dl2` policy's network (written by `orrery dl2 train`) for a
    /// parameter-server experiment [default: the bundled network].
    #[arg(long, value_name = "FILE")]
    pub(crate) network: Option<PathBuf>,
}

/// Which jobs of the trace to keep (the experiment's `trace_filter`).
#[derive(Args, Debug, Default)]
pub(crate) struct FilterArgs {
    /// Keep jobs submitted at or after TIME: seconds after the trace's first arrival, or a
    /// date-time of the trace's clock (`2017-10-03`, `2017-10-03 12:00:00`).
    #[arg(long, value_name = "TIME", value_parser = parse_time_point, allow_hyphen_values = true)]
    pub(crate) from: Option<TimePoint>,
    /// Keep jobs submitted before TIME (as --from).
    #[arg(long, value_name = "TIME", value_parser = parse_time_point, allow_hyphen_values = true)]
    pub(crate) to: Option<TimePoint>,
    /// Keep jobs of this virtual cluster (`vc`, Sia's `cluster`; an Orrery trace's
    /// `entity`); repeat or separate with commas for several.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub(crate) vc: Vec<String>,
    /// Keep jobs with this status, in any case (Philly: Pass, Killed, Failed; Helios and
    /// Acme: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL); repeat or separate with
    /// commas for several.
    #[arg(long, value_name = "STATUS", value_delimiter = ',')]
    pub(crate) status: Vec<String>,
    /// Keep at most N of the jobs left, sampled uniformly with the seed, in arrival order.
    #[arg(long, value_name = "N", value_parser = parse_num_jobs)]
    pub(crate) max_jobs: Option<usize>,
}

impl FilterArgs {
    /// `filter` with the flags given set over it (None when nothing filters).
    pub(crate) fn over(&self, filter: Option<TraceFilter>) -> Option<TraceFilter> {
        let mut f = filter.unwrap_or_default();
        if let Some(t) = &self.from {
            f.from = Some(t.clone());
        }
        if let Some(t) = &self.to {
            f.to = Some(t.clone());
        }
        if !self.vc.is_empty() {
            f.vcs = self.vc.clone();
        }
        if !self.status.is_empty() {
            f.statuses = self.status.clone();
        }
        if let Some(n) = self.max_jobs {
            f.max_jobs = Some(n);
        }
        (!f.is_empty()).then_some(f)
    }
}

#[derive(Args, Debug)]
pub(crate) struct TraceStatsArgs {
    /// The trace file (any format --trace reads).
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) filter: FilterArgs,
    /// Seed of the sample (--max-jobs).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub(crate) format: ListFormat,
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) exp: ExperimentArgs,
    /// Policy spec, `name` or `name[key=value,...]` [default: the scenario's first policy].
    #[arg(long, value_name = "SPEC")]
    pub(crate) policy: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub(crate) format: OutputFormat,
    /// Also write one CSV row per job (arrival, start, finish, JCT, rho, restarts) to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) jobs_csv: Option<PathBuf>,
    /// Also write one CSV row per round (start, end, active and running jobs, busy GPUs per
    /// type) to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) series_csv: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct LinkArgs {
    #[command(flatten)]
    pub(crate) exp: ExperimentArgs,
    /// Policy spec to include; repeat for several [default: the scenario's policies].
    #[arg(long, value_name = "SPEC")]
    pub(crate) policy: Vec<String>,
    /// Address of the page the link opens.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/")]
    pub(crate) base: String,
}

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    pub(crate) exp: ExperimentArgs,
    /// Policy spec to run; repeat for several [default: the scenario's policies].
    #[arg(long, value_name = "SPEC")]
    pub(crate) policy: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub(crate) format: OutputFormat,
    /// Also write the summaries as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// `orrery sweep`: a grid of runs of one experiment, or `orrery sweep merge`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct SweepArgs {
    #[command(subcommand)]
    pub(crate) command: Option<SweepCommand>,
    /// The base experiment (`--preset`, `--config`, `--link`, `--trace`... as for `run`);
    /// `--cluster` may be repeated, each cluster an axis value.
    #[command(flatten)]
    pub(crate) exp: ExperimentArgs,
    /// Policy spec to sweep; repeat for several [default: the experiment's policies].
    #[arg(long, value_name = "SPEC")]
    pub(crate) policy: Vec<String>,
    /// Seeds, comma-separated; ranges `A..B` (B excluded) and `A..=B` are allowed. Each sets
    /// the experiment seed and a generated workload's seed [default: the experiment's].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_seeds, conflicts_with = "seed")]
    pub(crate) seeds: Vec<SeedRange>,
    /// Arrival rates of a generated workload in jobs/hour, comma-separated (0 = every job
    /// at t = 0) [default: the generator's, or the rates of the preset's figure against the
    /// load (gavel-load)].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_rate, allow_hyphen_values = true)]
    pub(crate) rates: Vec<f64>,
    /// Load factors, comma-separated: arrivals compressed in time by each (as `--load`), for
    /// a trace or a generated workload [default: the experiment's, 1].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_load, conflicts_with = "load", allow_hyphen_values = true)]
    pub(crate) loads: Vec<f64>,
    /// Failure rates, comma-separated, in failures per server-day (as `--failures`; an
    /// experiment without failure settings gets a spare at once, Llama 3's causes and its
    /// checkpoint settings) [default: the experiment's].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_nonneg, allow_hyphen_values = true)]
    pub(crate) failure_rates: Vec<f64>,
    /// Checkpoint intervals, comma-separated: seconds of computation, or `auto` (Daly's
    /// interval for each job's mean time to failure) [default: the experiment's].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_checkpoint_interval)]
    pub(crate) checkpoint_intervals: Vec<Interval>,
    /// Cluster sizes, comma-separated factors: every GPU type's servers times each, rounded
    /// to whole servers [default: 1].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_cluster_scale, allow_hyphen_values = true)]
    pub(crate) cluster_scales: Vec<f64>,
    /// Generate the workload: N jobs drawn from the experiment's profile (replacing a
    /// bundled trace; for a generated workload, its number of jobs).
    #[arg(long, value_name = "N", value_parser = parse_num_jobs, conflicts_with = "trace")]
    pub(crate) num_jobs: Option<usize>,
    /// A generated workload draws multi-GPU jobs (scale factors 1/2/4/8).
    #[arg(long)]
    pub(crate) multi_gpu: bool,
    /// A generated workload gives 20% of its jobs priority weight 5.
    #[arg(long)]
    pub(crate) priority_weights: bool,
    /// Run only shard K of N (K from 1): the cells whose index modulo N is K - 1. `orrery
    /// sweep merge` joins the shards' outputs.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub(crate) shard: Option<Shard>,
    /// Output format: one CSV row or one JSON object per cell.
    #[arg(long, value_enum, default_value_t = SweepFormat::Csv)]
    pub(crate) format: SweepFormat,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// `orrery sweep <command>`.
#[derive(Subcommand, Debug)]
pub(crate) enum SweepCommand {
    /// Join the outputs of a sweep's shards into the output of the whole sweep (exactly what
    /// the sweep without --shard writes); refuses outputs of different sweeps and reports
    /// missing and duplicate cells.
    Merge(MergeArgs),
}

/// Flags of `orrery sweep merge`.
#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// The shards' outputs (CSV or JSON, all of one format).
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SweepFormat {
    /// One CSV row per cell.
    Csv,
    /// One JSON object per cell, with the whole summary.
    Json,
}

/// Shard `k` of `n` (`k` from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    pub(crate) k: usize,
    pub(crate) n: usize,
}

/// At most this many shards.
pub(crate) const MAX_SHARDS: usize = 1_000_000;

pub(crate) fn parse_shard(s: &str) -> Result<Shard, String> {
    let (k, n) = s
        .trim()
        .split_once('/')
        .ok_or_else(|| format!("'{s}' is not K/N (e.g. 2/8: shard 2 of 8)"))?;
    let num = |t: &str| -> Result<usize, String> {
        t.trim()
            .parse()
            .map_err(|_| format!("'{}' is not a whole number", t.trim()))
    };
    let (k, n) = (num(k)?, num(n)?);
    if n == 0 || n > MAX_SHARDS {
        return Err(format!("{n} shards: give 1 to {MAX_SHARDS}"));
    }
    if k == 0 || k > n {
        return Err(format!("shard {k} of {n}: K runs from 1 to N"));
    }
    Ok(Shard { k, n })
}

pub(crate) fn parse_cluster_scale(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if !(v > 0.0 && v <= 1000.0) {
        return Err(format!("{v} must be a factor above 0 and at most 1000"));
    }
    Ok(v)
}

#[derive(Args, Debug)]
pub(crate) struct GenerateArgs {
    /// Number of jobs [default: 100; 160 with --apps, as in Pollux's workloads].
    #[arg(long, value_name = "N", value_parser = parse_num_jobs)]
    pub(crate) num_jobs: Option<usize>,
    /// Poisson arrival rate in jobs/hour, 0 = every job at t = 0 [default: 0; 20 with
    /// --apps, Pollux's 160 jobs over 8 hours].
    #[arg(long, value_name = "RATE", value_parser = parse_rate, allow_hyphen_values = true)]
    pub(crate) jobs_per_hour: Option<f64>,
    /// Draw multi-GPU jobs (scale factors 1/2/4/8 with probabilities 0.7/0.1/0.15/0.05).
    #[arg(long)]
    pub(crate) multi_gpu: bool,
    /// Give 20% of the jobs priority weight 5.
    #[arg(long)]
    pub(crate) priority_weights: bool,
    /// Workload seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Throughput profile file [default: the bundled gavel-types profile].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
    /// Cluster whose GPU types the jobs may run on.
    #[arg(long, value_name = "SPEC", default_value = "v100:36,p100:36,k80:36")]
    pub(crate) cluster: String,
    /// Generate elastic jobs (Pollux's workload) for these applications: a bundled name
    /// (pollux-apps), an orrery-elastic-apps JSON file or a Pollux application folder. The
    /// CSV output is then the Pollux simulator's workload format.
    #[arg(long, value_name = "SOURCE")]
    pub(crate) apps: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    pub(crate) format: TraceFormat,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ImportPaiArgs {
    /// pai_job_table.csv (job_name, inst_id, user, status, start_time, end_time).
    #[arg(long, value_name = "FILE")]
    pub(crate) jobs: PathBuf,
    /// pai_task_table.csv (job_name, task_name, inst_num, status, start_time, end_time,
    /// plan_cpu, plan_mem, plan_gpu, gpu_type).
    #[arg(long, value_name = "FILE")]
    pub(crate) tasks: PathBuf,
    /// Jobs to keep (sampled uniformly, in arrival order).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub(crate) max_jobs: usize,
    /// Seed of the sampling.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Share of the multi-GPU jobs made elastic (up to twice their GPUs).
    #[arg(long, value_name = "SHARE", default_value_t = 0.0)]
    pub(crate) elastic_fraction: f64,
    /// Keep jobs of every status, not only the terminated ones.
    #[arg(long)]
    pub(crate) all_statuses: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    pub(crate) format: TraceFormat,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub(crate) format: ListFormat,
}

#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    /// Fewer repetitions (a quick look, noisier numbers).
    #[arg(long)]
    pub(crate) quick: bool,
    /// Directory with Gavel's reference inputs (static100_seed0.trace,
    /// simulation_throughputs.json) for the static run [default: ../shared/reference/gavel
    /// if present].
    #[arg(long, value_name = "DIR")]
    pub(crate) reference: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub(crate) format: ListFormat,
    /// Run only the benchmark groups whose name contains WORD: lp, lp all (one solve of
    /// every LP policy at 128 and 512 jobs), lp bisections (the packed finish-time and
    /// makespan bisections at 512 jobs, minutes), mechanism, static,
    /// continuous, elastic (pollux), pooled (aryl), philly (the Philly trace replayed by
    /// four policies, when ../shared/reference/sia/philly.csv is there), preemptive
    /// (pickyman), allox, dl2, sia (decisions at 64 and 2,048 GPUs, one stepped interval),
    /// catalog (every catalog policy on every bundled scenario, slowest first, minutes;
    /// only when asked).
    #[arg(long, value_name = "WORD")]
    pub(crate) only: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    /// Aligned, human-readable table.
    Table,
    /// JSON.
    Json,
    /// CSV.
    Csv,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TraceFormat {
    /// Orrery's CSV trace.
    Csv,
    /// Orrery's JSON trace.
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListFormat {
    /// Aligned, human-readable table.
    Table,
    /// JSON.
    Json,
}

/// A window of job ids `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window(pub(crate) usize, pub(crate) usize);

/// Seeds `start..=end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeedRange(pub(crate) u64, pub(crate) u64);

/// At most this many seeds in a sweep.
pub(crate) const MAX_SEEDS: u64 = 100_000;

pub(crate) fn parse_window(s: &str) -> Result<Window, String> {
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

pub(crate) fn parse_time_point(s: &str) -> Result<TimePoint, String> {
    TimePoint::parse(s).ok_or_else(|| {
        format!(
            "'{}' is neither seconds nor a date-time (YYYY-MM-DD[ HH:MM:SS])",
            s.trim()
        )
    })
}

pub(crate) fn parse_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a number", s.trim()))?;
    if !v.is_finite() {
        return Err(format!("'{}' is not a finite number", s.trim()));
    }
    Ok(v)
}

pub(crate) fn parse_positive_seconds(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v <= 0.0 {
        return Err(format!("{v} must be a positive number of seconds"));
    }
    Ok(v)
}

pub(crate) fn parse_nonneg_seconds(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v < 0.0 {
        return Err(format!("{v} must be a non-negative number of seconds"));
    }
    Ok(v)
}

pub(crate) fn parse_nonneg(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v < 0.0 {
        return Err(format!("{v} must be at least 0"));
    }
    Ok(v)
}

pub(crate) fn parse_type_file(s: &str) -> Result<(String, PathBuf), String> {
    let (t, f) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not TYPE=FILE"))?;
    if t.trim().is_empty() || f.trim().is_empty() {
        return Err(format!("'{s}' is not TYPE=FILE"));
    }
    Ok((t.trim().to_string(), PathBuf::from(f.trim())))
}

pub(crate) fn parse_checkpoint_interval(s: &str) -> Result<Interval, String> {
    if s.trim() == "auto" {
        return Ok(Interval::Auto);
    }
    let v = parse_f64(s)?;
    if v <= 0.0 {
        return Err(format!("{v} must be a positive number of seconds or auto"));
    }
    Ok(Interval::Every(v))
}

pub(crate) fn parse_domain(s: &str) -> Result<orrery::model::failure::Domain, String> {
    orrery::model::failure::Domain::parse(s)
}

pub(crate) fn parse_type_seconds(s: &str) -> Result<(String, f64), String> {
    let (t, v) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("'{s}' is not TYPE=SECONDS"))?;
    let t = t.trim();
    if t.is_empty() {
        return Err(format!("'{s}' names no job type"));
    }
    Ok((t.to_string(), parse_nonneg_seconds(v.trim())?))
}

pub(crate) fn parse_app_factor(s: &str) -> Result<(String, f64), String> {
    let (t, v) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("'{s}' is not APP=FACTOR"))?;
    let t = t.trim();
    if t.is_empty() {
        return Err(format!("'{s}' names no application"));
    }
    let f = parse_f64(v.trim())?;
    if !(0.01..=100.0).contains(&f) {
        return Err(format!("{f} is not a factor between 0.01 and 100"));
    }
    Ok((t.to_string(), f))
}

pub(crate) fn parse_rate(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v < 0.0 {
        return Err(format!("{v} jobs/hour must not be negative"));
    }
    Ok(v)
}

pub(crate) fn parse_load(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    orrery::workload::load::check_load_factor(v).map_err(|_| {
        let (lo, hi) = orrery::workload::load::LOAD_FACTOR_RANGE;
        format!("{v} must be a factor between {lo} and {hi}")
    })?;
    Ok(v)
}

pub(crate) fn parse_num_jobs(s: &str) -> Result<usize, String> {
    let v: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a whole number", s.trim()))?;
    if v == 0 || v > 1_000_000 {
        return Err(format!("{v} must be between 1 and 1000000"));
    }
    Ok(v)
}

pub(crate) fn parse_seeds(s: &str) -> Result<SeedRange, String> {
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

/// `--dl2-workload`'s value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dl2Workload {
    pub(crate) scale: orrery::workload::dl2_gen::Dl2Scale,
    pub(crate) seed: u32,
    pub(crate) trace: u32,
}

fn parse_dl2_workload(s: &str) -> Result<Dl2Workload, String> {
    use orrery::workload::dl2_gen::Dl2Scale;
    let mut parts = s.split(':');
    let scale = parts.next().unwrap_or_default();
    let scale = Dl2Scale::from_name(scale)
        .ok_or_else(|| format!("'{scale}' is not one of DL2's scales (testbed, base, large)"))?;
    let num = |p: Option<&str>, what: &str, default: u32| -> Result<u32, String> {
        match p {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<u32>()
                .map_err(|_| format!("'{v}' is not a {what} (a whole number, 0 to 4,294,967,295)")),
        }
    };
    let seed = num(parts.next(), "seed", 9973)?;
    let trace = num(parts.next(), "trace number", 0)?;
    if parts.next().is_some() {
        return Err(format!(
            "'{s}': SCALE[:SEED[:TRACE]] has at most three parts"
        ));
    }
    Ok(Dl2Workload { scale, seed, trace })
}
