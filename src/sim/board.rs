//! What the stepping panel shows after a step, as data: the cluster with the jobs holding it
//! ([`Area`]s), a table of the jobs ([`Table`]), why an explaining policy chose what it
//! chose ([`Choices`]) and a line of counts. A stepped run builds it where it runs (the
//! page's worker) and the page draws it: the page never holds the simulation.

use super::explanation::Explanation;
use super::Mechanism;
use crate::model::cluster::ClusterSpec;
use crate::model::job::{JobId, JobSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Rows of the jobs' table a board carries unless every job is asked for.
pub const JOB_ROWS: usize = 40;

/// A stepped run after its last step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    /// Simulated seconds so far.
    pub now: f64,
    /// Steps done: rounds, ticks, events or slots.
    pub steps: u64,
    /// Whether every job is done.
    pub done: bool,
    /// The mechanism of the stepped policy (what one step is).
    pub mechanism: Mechanism,
    /// The id of the state's block, if it has one.
    pub id: Option<String>,
    /// Attributes of the state's block, by name without the `data-` prefix.
    pub data: Vec<(String, String)>,
    /// The cluster, in the order shown.
    pub areas: Vec<Area>,
    /// The jobs.
    pub table: Table,
    /// Why each job got what it got, for policies that say.
    pub choices: Option<Choices>,
    /// Counts: jobs finished, active, events of the last step, and the like.
    pub footer: String,
}

/// A part of the cluster's picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Area {
    /// A block per GPU type: its heading and GPUs (round-based runs).
    Types(Vec<(String, Vec<Gpu>)>),
    /// Servers under a title, in a container with this id.
    Servers {
        /// The heading.
        title: String,
        /// The container's id.
        id: String,
        /// The servers.
        servers: Vec<Server>,
    },
    /// One row of GPUs under a title, in a container with this id.
    Row {
        /// The heading.
        title: String,
        /// The container's id.
        id: String,
        /// The GPUs.
        gpus: Vec<Gpu>,
    },
    /// A sentence on how to read the picture.
    Note(String),
}

/// One server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// What it does.
    pub kind: ServerKind,
    /// Its tooltip.
    pub title: String,
    /// Attributes, by name without the `data-` prefix.
    pub data: Vec<(String, String)>,
    /// Its GPUs.
    pub gpus: Vec<Gpu>,
    /// CPUs in use and in all, when they count.
    pub cpus: Option<(u32, u32)>,
}

/// What a server does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerKind {
    /// Trains, or idles.
    Plain,
    /// An inference server serving the load.
    Serving,
    /// An inference server on loan to training.
    Loaned,
}

/// One GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gpu {
    /// What it is doing.
    pub kind: GpuKind,
    /// Its tooltip.
    pub title: String,
    /// The job holding it.
    pub job: Option<JobId>,
}

/// What a GPU is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuKind {
    /// Nothing.
    Idle,
    /// Training its job.
    Busy,
    /// Shared by its job and this second one.
    Shared(JobId),
    /// Its job reloads a checkpoint.
    Loading,
    /// Its job, suspended, finishes its epoch.
    Draining,
    /// Its job, suspended, writes its checkpoint.
    Saving,
    /// Kept for a waiting job.
    Kept,
    /// Serving inference.
    Serving,
}

impl Gpu {
    /// A GPU doing `kind` for `job`, with its tooltip.
    pub fn new(kind: GpuKind, job: Option<JobId>, title: String) -> Self {
        Gpu { kind, title, job }
    }
}

/// The jobs' table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Its id, if it has one.
    pub id: Option<String>,
    /// Column headings with their tooltips.
    pub heads: Vec<(String, Option<String>)>,
    /// The rows carried (the first [`JOB_ROWS`] unless all were asked for).
    pub rows: Vec<Row>,
    /// How many jobs the table has in all.
    pub total: usize,
    /// What its rows are ("active jobs").
    pub what: String,
}

impl Table {
    /// A table with these headings.
    pub fn new(id: Option<&str>, heads: &[&str], what: &str) -> Self {
        Table {
            id: id.map(str::to_string),
            heads: heads.iter().map(|h| (h.to_string(), None)).collect(),
            rows: Vec::new(),
            total: 0,
            what: what.into(),
        }
    }
}

impl Table {
    /// The rows of `jobs`, each made by `row`: the first [`JOB_ROWS`], or all when `all`.
    pub fn fill(&mut self, jobs: &[JobId], all: bool, row: impl FnMut(JobId) -> Row) {
        self.total = jobs.len();
        self.rows = jobs
            .iter()
            .take(shown(jobs.len(), all))
            .copied()
            .map(row)
            .collect();
    }
}

/// One job's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Attributes, by name without the `data-` prefix.
    pub data: Vec<(String, String)>,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// One cell of a job's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    /// The job, with its colour.
    Job(JobId),
    /// Text.
    Text(String),
    /// A share done, 0 to 1.
    Progress(f64),
    /// The job it shares GPUs with and the pair's allocation row, if any.
    Pair(Option<(JobId, String)>),
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl ToString) -> Self {
        Cell::Text(s.to_string())
    }
}

/// Why each job got what it got at the last decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choices {
    /// The decision.
    pub explanation: Explanation,
    /// GPU type names, in cluster order.
    pub types: Vec<String>,
    /// The application of each job decided for.
    pub apps: BTreeMap<JobId, String>,
}

/// How many of `n` rows to carry.
pub fn shown(n: usize, all: bool) -> usize {
    if all {
        n
    } else {
        n.min(JOB_ROWS)
    }
}

/// What a board shows beside its simulation's own state: the experiment's cluster and jobs
/// (as its trace gives them) and the run's counts so far.
#[derive(Debug, Clone, Copy)]
pub struct BoardContext<'a> {
    /// The experiment's cluster.
    pub cluster: &'a ClusterSpec,
    /// The experiment's jobs, as its trace gives them.
    pub jobs: &'a [JobSpec],
    /// Jobs finished so far.
    pub finished: usize,
    /// Events of the last step.
    pub events: usize,
    /// Suspensions so far.
    pub suspensions: usize,
    /// Seconds between the policies' decisions.
    pub round_s: f64,
    /// Carry every row of the jobs' table, not just the first [`JOB_ROWS`].
    pub all: bool,
}

/// A board with its picture, table and footer, the clock fields filled in by
/// the stepped run.
pub(crate) fn blank(id: Option<&str>, data: Vec<(&str, String)>, table: Table) -> Board {
    Board {
        now: 0.0,
        steps: 0,
        done: false,
        mechanism: Mechanism::Rounds,
        id: id.map(str::to_string),
        data: data.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        areas: Vec::new(),
        table,
        choices: None,
        footer: String::new(),
    }
}

/// A share done, `done` of `total`, between 0 and 1 (0 for no total).
pub(crate) fn fraction(done: f64, total: f64) -> f64 {
    if total > 0.0 {
        (done / total).clamp(0.0, 1.0)
    } else {
        0.0
    }
}
