//! What the panels report and show, below both the App and the panels: each panel's own
//! messages (its edits as data, which the App handles) and the plain data the panels
//! display (refused values, the PAI form, the trace's shape, a filter field's text).

use crate::shared::Shared;
use crate::worker::FromWorker;
use orrery::workload::{InlineFile, TimePoint, TraceFilter, TraceStats};

/// The profile select's value of a profile-free experiment.
pub const PROFILE_FREE: &str = "profile-free";

/// Edits of the Workload panel: the trace and the profile.
pub enum WorkloadMsg {
    /// Pick a bundled trace.
    TracePreset(String),
    /// Edit a generator field.
    Generator(&'static str, String),
    /// Use the generator's settings.
    Generate,
    /// A trace file's text arrived: file name, text.
    TraceFile(String, String),
    /// A trace file could not be read.
    FileError(String),
    /// Edit a field of the trace filter (`from`, `to`, `vcs`, `statuses`, `max_jobs`).
    Filter(&'static str, String),
    /// Pick a bundled profile.
    ProfilePreset(String),
    /// A profile file's text arrived: file name, text.
    ProfileFile(String, String),
    /// A profile folder's files arrived: folder name, files, files skipped.
    ProfileFolder(String, Vec<InlineFile>, usize),
    /// A profile file or folder could not be read.
    ProfileFileError(String),
}

/// Which PAI table a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaiTable {
    /// `pai_job_table.csv`.
    Jobs,
    /// `pai_task_table.csv`.
    Tasks,
}

/// Messages of the PAI import block.
pub enum PaiMsg {
    /// A table's text arrived: table, file name, text.
    File(PaiTable, String, String),
    /// A table could not be read.
    FileError(String),
    /// Edit a sampling field (`max_jobs`, `seed`, `elastic`).
    Field(&'static str, String),
    /// Sample the tables into the experiment's workload.
    Import,
}

/// Edits of the Cluster panel.
pub enum ClusterMsg {
    /// Set the cluster spec text (applied when valid).
    Text(String),
    /// Pick a cluster preset.
    Preset(String),
    /// Edit one cell of the cluster table: (row, column, value).
    Cell(usize, &'static str, String),
    /// Add a GPU type row.
    AddType,
    /// Remove a GPU type row.
    RemoveType(usize),
}

/// Edits of the Policies panel.
pub enum PolicyMsg {
    /// Toggle a policy.
    Toggle(String),
    /// Set a policy's parameters text.
    Params(String, String),
}

/// Edits of the Run settings panel: the core's edits of an experiment, values as typed.
pub use orrery::experiment::edit::Edit as SettingsMsg;

/// Edits of the Inference pool panel.
pub enum PoolMsg {
    /// Edit a field of the diurnal inference load.
    Field(&'static str, String),
    /// An inference load CSV's text arrived: file name, text.
    File(String, String),
    /// An inference load file could not be read.
    FileError(String),
    /// Give the experiment an inference pool (true) or take it away.
    Enable(bool),
}

/// Edits of the Preemption panel.
pub enum PreemptMsg {
    /// Edit a field of the overhead model (`read_gbps`, `write_gbps`, `noise`,
    /// `default_epoch_s`).
    Field(&'static str, String),
    /// Make the experiment preemptive (true) or round-based again.
    Preemptive(bool),
}

/// Edits of the Failures & spot panel, values as typed.
pub enum FaultsMsg {
    /// Edit a field: `rate` (failures per server-day), `repair` (s), `checkpoint` (s or
    /// `auto`), `write` (s) or `until` (s, empty for none).
    Field(&'static str, String),
    /// Llama 3's failure rate.
    Llama3,
    /// No failures or checkpoints (the stop time and the spot traces stay).
    Off,
    /// The weight of a cause (its index in the causes in use), as typed.
    Cause(usize, String),
    /// Back to Llama 3's mix of causes.
    Llama3Causes,
    /// A spot trace's text arrived for a GPU type: type, file name, text.
    SpotFile(String, String, String),
    /// A spot trace could not be read: type, why.
    SpotFileError(String, String),
    /// Take a GPU type's spot trace away.
    SpotRemove(String),
}

/// Edits of the DL2 panel.
pub enum Dl2Msg {
    /// Edit a field of the parameter-server settings (`cpus_per_server`, `max_workers`,
    /// `max_ps`).
    Field(&'static str, String),
    /// A weights file's text arrived: file name, text.
    NetworkFile(String, String),
    /// A weights file could not be read.
    NetworkFileError(String),
    /// Back to the bundled network.
    Bundled,
}

/// DL2's training in its worker.
pub enum TrainMsg {
    /// Edit a training setting.
    Field(&'static str, String),
    /// Start training.
    Start,
    /// Stop training.
    Cancel,
    /// A message from the training worker.
    Worker(FromWorker),
    /// Put the trained network into the experiment.
    UseTrained,
    /// Download the trained network's weights JSON.
    DownloadWeights,
    /// Download the learning curve CSV.
    DownloadCurve,
    /// A learning curve could not be drawn.
    ChartError(String),
}

/// The comparison in the worker.
pub enum RunMsg {
    /// Compare every selected policy in the worker (after a confirmation when the run is
    /// expected to be long).
    Compare,
    /// Start the long run the confirmation describes.
    Confirm,
    /// Drop the long run the confirmation describes.
    Dismiss,
    /// Stop the comparison.
    Cancel,
    /// A message from the worker.
    Worker(FromWorker),
    /// A message from one worker (by index) of a run shared among several.
    Pool(usize, FromWorker),
    /// Show the results the run in progress has reported so far, if it is still the run
    /// of this number (a later run ignores an earlier run's timer).
    ShowPartial(u64),
    /// Download results: summaries CSV or JSON, per-job or per-round CSV.
    Download(Export),
    /// A chart of the results could not be drawn.
    ChartError(String),
}

/// What a download button exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// Summaries as CSV.
    SummaryCsv,
    /// Summaries as JSON.
    SummaryJson,
    /// Per-job rows of every policy.
    JobsCsv,
    /// Per-round rows of every policy.
    RoundsCsv,
    /// Elastic jobs' changes of GPU count and batch size, every policy.
    ResizesCsv,
    /// Suspensions of preemptive runs, every policy.
    SuspensionsCsv,
    /// The results' experiment, for `orrery run --config`.
    ExperimentJson,
}

/// How the suspensions' table is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// By decision time.
    #[default]
    Time,
    /// By time lost, largest first.
    Lost,
}

/// What the result panels show.
pub enum ViewMsg {
    /// Focus a policy (index) in the utilization chart.
    FocusPolicy(usize),
    /// Pick the job of the elastic panel.
    ElasticJob(usize),
    /// Set the epoch of the goodput chart.
    ElasticEpoch(u32),
    /// Show this result (index) in the preemption panel.
    PreemptPolicy(usize),
    /// Sort the suspensions' table.
    PreemptSort(SortBy),
    /// Chart the capacity of this spot GPU type.
    SpotType(String),
}

/// Stepping through one policy's run (in its worker).
pub enum StepMsg {
    /// Pick the policy to step through.
    Policy(String),
    /// One step.
    Step,
    /// Play or pause.
    TogglePlay,
    /// Timer tick while playing (generation).
    Tick(u64),
    /// Set the play speed (ms per step).
    Speed(String),
    /// Finish the stepping run.
    RunToEnd,
    /// Back to the start.
    Reset,
    /// Show every row of the jobs' table (or the first ones).
    AllRows(bool),
    /// The stepping worker of this session answered.
    Answer(u64, Box<crate::worker::FromWorker>),
}

/// A refused value: its field, why, and what was typed (the field keeps showing it).
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// The field's id.
    pub id: &'static str,
    /// Why the value was refused.
    pub why: String,
    /// The value as typed.
    pub typed: String,
}

/// A PAI table read: its file name, text and number of lines.
pub struct PaiFile {
    /// The file's name.
    pub name: String,
    /// The file's text.
    pub text: String,
    /// Lines of the text.
    pub lines: usize,
}

/// The PAI block's state: the tables read and the sampling fields as typed.
#[derive(Clone, PartialEq)]
pub struct PaiForm {
    /// `pai_job_table.csv`, once read.
    pub jobs: Option<Shared<PaiFile>>,
    /// `pai_task_table.csv`, once read.
    pub tasks: Option<Shared<PaiFile>>,
    /// Most jobs sampled, as typed.
    pub max_jobs: String,
    /// Seed of the sampling, as typed.
    pub seed: String,
    /// Share of the sampled jobs made elastic, as typed.
    pub elastic: String,
    /// The block's last error.
    pub error: Option<String>,
}

/// The Trace shape panel's contents.
pub struct TraceShape {
    /// The statistics, or why the trace could not be read.
    pub stats: Result<TraceStats, String>,
    /// Milliseconds computing them (reading the trace included when it was read again).
    pub ms: f64,
}

/// The value of the filter's field, as the panel shows it.
pub fn filter_field(f: Option<&TraceFilter>, field: &str) -> String {
    let Some(f) = f else {
        return String::new();
    };
    let point = |p: &Option<TimePoint>| match p {
        Some(TimePoint::Seconds(v)) => v.to_string(),
        Some(TimePoint::Date(d)) => d.clone(),
        None => String::new(),
    };
    match field {
        "from" => point(&f.from),
        "to" => point(&f.to),
        "vcs" => f.vcs.join(", "),
        "statuses" => f.statuses.join(", "),
        _ => f.max_jobs.map(|n| n.to_string()).unwrap_or_default(),
    }
}
