//! Importer for the Alibaba PAI GPU cluster trace (`cluster-trace-gpu-v2020` in
//! github.com/alibaba/clusterdata): its job and task tables become an Orrery [`Trace`].
//!
//! # Input format
//!
//! Both tables are comma-separated and released without a header row; the column names
//! ship separately as `pai_job_table.header` and `pai_task_table.header`:
//!
//! - `pai_job_table.csv`: `job_name,inst_id,user,status,start_time,end_time`. `status` is
//!   one of `Terminated`, `Failed`, `Running`, `Waiting`; only `Terminated` jobs succeeded.
//!   `start_time` is the job's submission time.
//! - `pai_task_table.csv`: `job_name,task_name,inst_num,status,start_time,end_time,
//!   plan_cpu,plan_mem,plan_gpu,gpu_type`. A job has one or more tasks (roles such as
//!   `ps`, `worker`, `evaluator`); a task has `inst_num` instances, each requesting
//!   `plan_gpu` percent of one GPU (100 = one GPU, 50 = half a GPU). `start_time` is the
//!   task's launch time.
//!
//! Times are seconds, shifted by a constant, and may be fractional (`4550879.0`). A time
//! that is empty, `NaN` or not positive counts as not recorded (the dataset's own analysis
//! code treats a 0 start time as missing). An empty or `NaN` `plan_gpu` reads as 0 (no
//! GPU). Only the columns used below are parsed; `inst_id`, `user`, the task `status`,
//! `plan_cpu`, `plan_mem` and `gpu_type` are not read. A file may begin with a header row
//! (a first field of `job_name`): its columns are then found by name, in any order, and
//! extra columns are ignored. Blank lines and lines starting with `#` are skipped, as in
//! [`super::csv::records`]; quoted fields are read as that module reads them.
//!
//! # Conventions
//!
//! - Kept jobs: every job row needs a `start_time`. With `only_terminated`, a job's row
//!   must also say `Terminated` and record its `end_time`, and a task row must record its
//!   start and end times; other rows are skipped. Without it, every status is kept: a task
//!   without a start time still adds its GPUs but no times, and a task without an end time
//!   takes its job's end time if recorded. Task rows without `inst_num` are skipped.
//! - A job's row is its first row in the job table (later rows with the same `job_name`
//!   are ignored). Task rows naming a job that is absent from the job table, or skipped
//!   there, are skipped.
//! - GPUs (`scale_factor`): the sum over the job's tasks of `ceil(inst_num * plan_gpu /
//!   100)`, so a task of two half-GPU instances needs one GPU and one of three needs two
//!   (a product within 1e-9 of a whole number counts as that number, so three instances
//!   of 33.333...% need one GPU). Jobs whose tasks request no GPU are dropped.
//! - `job_type`: the `task_name` of the task requesting the most GPUs (the first such task
//!   in file order on ties), or `pai` if that name is empty.
//! - Work (`total_steps`): the job's duration in seconds, from its earliest task start to
//!   its latest task end (all of its tasks, GPU or not), read as one step per second at
//!   its traced GPU count. A throughput profile for these job types should therefore give
//!   1 step/s at `scale_factor` GPUs. Jobs without a start and an end, or with a duration
//!   that is not positive, are dropped.
//! - `arrival`: the job's submission (`start_time` in the job table), relative to the
//!   earliest submission of the sampled jobs, so the first arrival is 0. Jobs are ordered
//!   by submission (ties in job-table line order); [`Trace::lines`] holds each job's line
//!   in the job table.
//! - Sampling: when more than `max_jobs` jobs remain, `max_jobs` of them are drawn
//!   uniformly without replacement (stream `"pai-sample"` of the seed) and kept in arrival
//!   order.
//! - Elasticity: among the sampled jobs with at least 2 GPUs, `round(elastic_fraction x
//!   count)` are drawn uniformly (stream `"pai-elastic"`) and made elastic with
//!   `min_gpus` = their GPUs and `max_gpus` = twice their GPUs; all other jobs leave both
//!   unset. Priority weight is 1, and no SLO, epoch size or batch size is set.

use csv::StringRecord;
use serde::{Deserialize, Serialize};

use super::csv::Records;
use super::trace::Trace;
use super::WorkloadError;
use crate::model::job::JobSpec;
use crate::rng::Rng;

/// Columns of `pai_job_table.csv`, in file order.
pub const JOB_COLUMNS: [&str; 6] = [
    "job_name",
    "inst_id",
    "user",
    "status",
    "start_time",
    "end_time",
];

/// Columns of `pai_task_table.csv`, in file order.
pub const TASK_COLUMNS: [&str; 10] = [
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
];

// Indices into `JOB_COLUMNS` and `TASK_COLUMNS` of the columns read.
const JOB_NAME: usize = 0;
const JOB_STATUS: usize = 3;
const JOB_START: usize = 4;
const JOB_END: usize = 5;
const TASK_JOB: usize = 0;
const TASK_NAME: usize = 1;
const TASK_INST: usize = 2;
const TASK_START: usize = 4;
const TASK_END: usize = 5;
const TASK_GPU: usize = 8;

/// Name used in errors about the sampling parameters.
const SAMPLING: &str = "PAI sampling";

/// How to sample the PAI trace into an Orrery trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaiSampling {
    /// Largest number of jobs to keep (at least 1); more are sampled down uniformly.
    pub max_jobs: usize,
    /// Seed of the random choices (which jobs are kept, which are elastic).
    #[serde(default)]
    pub seed: u64,
    /// Keep only jobs whose status is `Terminated` (finished successfully); default true.
    #[serde(default = "default_true")]
    pub only_terminated: bool,
    /// Share (0 to 1) of the sampled jobs with 2 or more GPUs that are made elastic.
    #[serde(default)]
    pub elastic_fraction: f64,
}

fn default_true() -> bool {
    true
}

impl Default for PaiSampling {
    /// 1000 jobs, seed 0, only terminated jobs, none elastic.
    fn default() -> Self {
        PaiSampling {
            max_jobs: 1000,
            seed: 0,
            only_terminated: true,
            elastic_fraction: 0.0,
        }
    }
}

impl PaiSampling {
    /// The sampling of the page's import form, its fields as typed (only terminated jobs
    /// kept), or which field is wrong.
    pub fn from_fields(max_jobs: &str, seed: &str, elastic: &str) -> Result<Self, String> {
        let max_jobs = match max_jobs.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "max jobs: '{max_jobs}' is not a whole number of at least 1"
                ))
            }
        };
        let seed = seed
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("seed: '{seed}' is not a whole number of 0 or more"))?;
        let elastic_fraction = match elastic.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && (0.0..=1.0).contains(&f) => f,
            _ => {
                return Err(format!(
                    "elastic share: '{elastic}' is not a number from 0 to 1"
                ))
            }
        };
        Ok(PaiSampling {
            max_jobs,
            seed,
            only_terminated: true,
            elastic_fraction,
        })
    }
}

/// Read the PAI job and task tables, each given as `(text, file name)`, and sample them
/// into a trace named after the job table. See the module documentation for the format
/// and conventions.
///
/// Errors name the file, line and column of a malformed value, and say why when no job
/// remains.
pub fn read_pai(
    job_table: (&str, &str),
    task_table: (&str, &str),
    sampling: &PaiSampling,
) -> Result<Trace, WorkloadError> {
    let (job_text, job_file) = job_table;
    let (task_text, task_file) = task_table;
    if sampling.max_jobs == 0 {
        return Err(WorkloadError::file(SAMPLING, "max_jobs must be at least 1"));
    }
    let fraction = sampling.elastic_fraction;
    if !(fraction.is_finite() && (0.0..=1.0).contains(&fraction)) {
        return Err(WorkloadError::file(
            SAMPLING,
            format!("elastic_fraction {fraction} must be between 0 and 1"),
        ));
    }
    let only_terminated = sampling.only_terminated;

    let mut jobs = read_jobs(job_text, job_file, only_terminated)?;
    let task_rows = read_tasks(task_text, task_file, only_terminated, &mut jobs)?;
    if task_rows == 0 {
        return Err(WorkloadError::file(task_file, "the task table has no rows"));
    }

    let mut found = Vec::new();
    let mut lost = Losses::default();
    let job_stats = JobStats::of(&jobs.rows);
    for acc in jobs.rows.into_iter().filter_map(|r| r.job.ok()) {
        if !acc.has_tasks {
            lost.no_tasks += 1;
        } else if acc.gpus == 0 {
            lost.no_gpu += 1;
        } else if let (Some(start), Some(end)) = (acc.first_start, acc.last_end) {
            let duration = end - start;
            if duration > 0.0 && duration.is_finite() {
                let job_type = match acc.top_task {
                    Some((_, name)) if !name.is_empty() => name,
                    _ => "pai".to_string(),
                };
                found.push(Found {
                    submit: acc.submit,
                    line: acc.line,
                    gpus: u32::try_from(acc.gpus).unwrap_or(u32::MAX),
                    duration,
                    job_type,
                });
            } else {
                lost.no_duration += 1;
            }
        } else {
            lost.no_times += 1;
        }
    }
    if found.is_empty() {
        return Err(empty_result(
            job_file,
            task_file,
            &job_stats,
            &lost,
            only_terminated,
        ));
    }
    crate::order::sort_by(&mut found, |a, b| {
        a.submit.total_cmp(&b.submit).then(a.line.cmp(&b.line))
    });

    let keep = choose(
        found.len(),
        sampling.max_jobs,
        &mut Rng::for_purpose(sampling.seed, "pai-sample"),
    );
    let base = keep
        .first()
        .and_then(|&i| found.get(i))
        .map_or(0.0, |f| f.submit);
    let mut specs = Vec::with_capacity(keep.len());
    let mut lines = Vec::with_capacity(keep.len());
    for &i in &keep {
        let Some(f) = found.get(i) else { continue };
        let mut job = JobSpec::new(f.job_type.clone(), (f.submit - base).max(0.0), f.duration);
        job.scale_factor = f.gpus;
        specs.push(job);
        lines.push(f.line);
    }

    let multi: Vec<usize> = (0..specs.len())
        .filter(|&i| specs.get(i).is_some_and(|j| j.scale_factor >= 2))
        .collect();
    let count = (fraction * multi.len() as f64).round() as usize;
    let picks = choose(
        multi.len(),
        count,
        &mut Rng::for_purpose(sampling.seed, "pai-elastic"),
    );
    for p in picks {
        if let Some(job) = multi.get(p).and_then(|&i| specs.get_mut(i)) {
            job.min_gpus = Some(job.scale_factor);
            job.max_gpus = Some(job.scale_factor.saturating_mul(2));
        }
    }

    Ok(Trace {
        name: job_file.to_string(),
        jobs: specs,
        lines,
        origin: None,
    })
}

/// A job's row from the job table with what its tasks add up to.
#[derive(Debug)]
struct JobAcc {
    line: usize,
    submit: f64,
    end: Option<f64>,
    has_tasks: bool,
    gpus: u64,
    first_start: Option<f64>,
    last_end: Option<f64>,
    top_task: Option<(u64, String)>,
}

/// A job that made it into the candidate list.
struct Found {
    submit: f64,
    line: usize,
    gpus: u32,
    duration: f64,
    job_type: String,
}

/// Why a job-table row yields no job.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Skip {
    NotTerminated,
    NoSubmit,
    NoEnd,
    Repeated,
}

/// One row of the job table.
struct JobRow {
    name: String,
    job: Result<JobAcc, Skip>,
}

/// Why job-table rows were skipped.
#[derive(Default)]
struct JobStats {
    rows: usize,
    not_terminated: usize,
    no_submit: usize,
    no_end: usize,
    repeated: usize,
}

impl JobStats {
    fn of(rows: &[JobRow]) -> Self {
        let mut s = JobStats {
            rows: rows.len(),
            ..JobStats::default()
        };
        for r in rows {
            match r.job {
                Ok(_) => {}
                Err(Skip::NotTerminated) => s.not_terminated += 1,
                Err(Skip::NoSubmit) => s.no_submit += 1,
                Err(Skip::NoEnd) => s.no_end += 1,
                Err(Skip::Repeated) => s.repeated += 1,
            }
        }
        s
    }

    fn kept(&self) -> usize {
        self.rows
            .saturating_sub(self.not_terminated + self.no_submit + self.no_end + self.repeated)
    }
}

/// Why kept jobs yielded no trace job.
#[derive(Default)]
struct Losses {
    no_tasks: usize,
    no_gpu: usize,
    no_times: usize,
    no_duration: usize,
}

/// The job table's rows in file order, with an index from job name to the first row of
/// that name.
struct Jobs {
    rows: Vec<JobRow>,
    /// `(hash of name, row)` of the first row of each name, sorted by hash, then name.
    index: Vec<(u64, usize)>,
    /// `index[starts[b]..starts[b + 1]]` holds the hashes whose top bits equal `b`.
    starts: Vec<usize>,
    shift: u32,
}

impl Jobs {
    fn new(rows: Vec<JobRow>) -> Self {
        let mut jobs = Jobs {
            rows,
            index: Vec::new(),
            starts: Vec::new(),
            shift: 63,
        };
        let rows = &jobs.rows;
        let name = |i: usize| rows.get(i).map_or("", |r| r.name.as_ref());
        let mut index: Vec<(u64, usize)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (fnv1a(&r.name), i))
            .collect();
        index.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| name(a.1).cmp(name(b.1)))
                .then(a.1.cmp(&b.1))
        });
        let mut repeated = Vec::new();
        index.dedup_by(|later, first| {
            let same = later.0 == first.0 && name(later.1) == name(first.1);
            if same {
                repeated.push(later.1);
            }
            same
        });
        let bits = (usize::BITS - index.len().saturating_sub(1).leading_zeros()).clamp(1, 32);
        let shift = 64 - bits;
        let mut starts = vec![0usize; (1usize << bits) + 1];
        for &(h, _) in &index {
            if let Some(c) = usize::try_from(h >> shift)
                .ok()
                .and_then(|b| starts.get_mut(b + 1))
            {
                *c += 1;
            }
        }
        let mut total = 0;
        for c in &mut starts {
            total += *c;
            *c = total;
        }
        for r in repeated {
            if let Some(row) = jobs.rows.get_mut(r) {
                row.job = Err(Skip::Repeated);
            }
        }
        jobs.index = index;
        jobs.starts = starts;
        jobs.shift = shift;
        jobs
    }

    fn name(&self, row: usize) -> &str {
        self.rows.get(row).map_or("", |r| r.name.as_ref())
    }

    /// The first row named `name`.
    fn find(&self, name: &str) -> Option<usize> {
        let h = fnv1a(name);
        let b = usize::try_from(h >> self.shift).ok()?;
        let bucket = self
            .index
            .get(*self.starts.get(b)?..*self.starts.get(b + 1)?)?;
        let k = bucket
            .binary_search_by(|&(eh, i)| eh.cmp(&h).then_with(|| self.name(i).cmp(name)))
            .ok()?;
        bucket.get(k).map(|&(_, i)| i)
    }
}

/// 64-bit FNV-1a.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn read_jobs(text: &str, file: &str, only_terminated: bool) -> Result<Jobs, WorkloadError> {
    let mut rows = Vec::new();
    let required = [JOB_NAME, JOB_STATUS, JOB_START, JOB_END];
    scan(text, file, &JOB_COLUMNS, &required, |row| {
        let name = row.key(JOB_NAME);
        if name.is_empty() {
            return Err(row.error(JOB_NAME, "empty"));
        }
        let terminated = row.text(JOB_STATUS).eq_ignore_ascii_case("Terminated");
        let submit = row.time(JOB_START)?;
        let end = row.time(JOB_END)?;
        let job = match submit {
            _ if only_terminated && !terminated => Err(Skip::NotTerminated),
            None => Err(Skip::NoSubmit),
            Some(_) if only_terminated && end.is_none() => Err(Skip::NoEnd),
            Some(submit) => Ok(JobAcc {
                line: row.line,
                submit,
                end,
                has_tasks: false,
                gpus: 0,
                first_start: None,
                last_end: None,
                top_task: None,
            }),
        };
        rows.push(JobRow { name, job });
        Ok(())
    })?;
    if rows.is_empty() {
        return Err(WorkloadError::file(file, "the job table has no rows"));
    }
    Ok(Jobs::new(rows))
}

/// Add each task row to its job; returns the number of task rows.
fn read_tasks(
    text: &str,
    file: &str,
    only_terminated: bool,
    jobs: &mut Jobs,
) -> Result<usize, WorkloadError> {
    let mut rows = 0;
    let required = [
        TASK_JOB, TASK_NAME, TASK_INST, TASK_START, TASK_END, TASK_GPU,
    ];
    scan(text, file, &TASK_COLUMNS, &required, |row| {
        rows += 1;
        let job_name = row.text(TASK_JOB);
        if job_name.is_empty() {
            return Err(row.error(TASK_JOB, "empty"));
        }
        let inst = row.amount(TASK_INST)?;
        let percent = row.amount(TASK_GPU)?.unwrap_or(0.0);
        let start = row.time(TASK_START)?;
        let end = row.time(TASK_END)?;
        let Some(Ok(job)) = jobs
            .find(job_name)
            .and_then(|i| jobs.rows.get_mut(i))
            .map(|r| &mut r.job)
        else {
            return Ok(());
        };
        if only_terminated && (start.is_none() || end.is_none()) {
            return Ok(());
        }
        let Some(inst) = inst else {
            return Ok(());
        };
        let gpus = task_gpus(inst, percent)
            .and_then(|g| g.checked_add(job.gpus))
            .filter(|&total| total <= u64::from(u32::MAX))
            .ok_or_else(|| {
                row.error(
                    TASK_GPU,
                    format!(
                        "the job's GPUs (sum of ceil(inst_num * plan_gpu / 100)) exceed {}",
                        u32::MAX
                    ),
                )
            })?;
        let task_share = gpus - job.gpus;
        job.gpus = gpus;
        job.has_tasks = true;
        if task_share > 0 && job.top_task.as_ref().is_none_or(|(g, _)| task_share > *g) {
            job.top_task = Some((task_share, row.key(TASK_NAME)));
        }
        let end = if only_terminated {
            end
        } else {
            end.or(job.end)
        };
        if let Some(s) = start {
            job.first_start = Some(job.first_start.map_or(s, |t| t.min(s)));
        }
        if let Some(e) = end {
            job.last_end = Some(job.last_end.map_or(e, |t| t.max(e)));
        }
        Ok(())
    })?;
    Ok(rows)
}

/// GPUs of a task: `ceil(inst_num * plan_gpu / 100)`, a value within 1e-9 of a whole
/// number counting as that number; `None` if beyond `u32`.
fn task_gpus(inst: f64, percent: f64) -> Option<u64> {
    let x = inst * percent / 100.0;
    if !x.is_finite() {
        return None;
    }
    let r = x.round();
    let g = if (x - r).abs() < 1e-9 { r } else { x.ceil() };
    (g <= f64::from(u32::MAX)).then_some(g.max(0.0) as u64)
}

/// `k` of the indices `0..n` drawn uniformly without replacement, in increasing order.
pub(crate) fn choose(n: usize, k: usize, rng: &mut Rng) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    if k >= n {
        return idx;
    }
    for i in 0..k {
        let j = i + rng.below((n - i) as u64) as usize;
        idx.swap(i, j);
    }
    idx.truncate(k);
    idx.sort_unstable();
    idx
}

fn empty_result(
    job_file: &str,
    task_file: &str,
    stats: &JobStats,
    lost: &Losses,
    only_terminated: bool,
) -> WorkloadError {
    let kept = stats.kept();
    if kept == 0 {
        let mut why = Vec::new();
        if stats.not_terminated > 0 {
            why.push(format!(
                "{} not Terminated (only_terminated is set)",
                stats.not_terminated
            ));
        }
        if stats.no_submit > 0 {
            why.push(format!("{} without a start_time", stats.no_submit));
        }
        if stats.no_end > 0 {
            why.push(format!("{} without an end_time", stats.no_end));
        }
        if stats.repeated > 0 {
            why.push(format!("{} repeating an earlier job_name", stats.repeated));
        }
        return WorkloadError::file(
            job_file,
            format!(
                "no usable job among its {} rows: {}",
                stats.rows,
                why.join(", ")
            ),
        );
    }
    let mut why = Vec::new();
    if lost.no_tasks > 0 {
        let usable = if only_terminated {
            "usable task rows (with start and end times and inst_num)"
        } else {
            "usable task rows (with inst_num)"
        };
        why.push(format!("{} have no {usable}", lost.no_tasks));
    }
    if lost.no_gpu > 0 {
        why.push(format!("{} request no GPU", lost.no_gpu));
    }
    if lost.no_times > 0 {
        why.push(format!("{} lack a task start or end time", lost.no_times));
    }
    if lost.no_duration > 0 {
        why.push(format!("{} have no positive duration", lost.no_duration));
    }
    WorkloadError::file(
        task_file,
        format!(
            "none of the {kept} jobs kept from {job_file} yields a GPU job: {}",
            why.join(", ")
        ),
    )
}

/// Where each documented column sits in the rows of a file, and how many fields rows have.
struct Layout {
    pos: Vec<Option<usize>>,
    width: usize,
}

/// One data row of a table.
struct Row<'r> {
    file: &'r str,
    line: usize,
    fields: &'r StringRecord,
    layout: &'r Layout,
    columns: &'static [&'static str],
}

impl Row<'_> {
    fn raw(&self, col: usize) -> Option<&str> {
        self.layout
            .pos
            .get(col)
            .copied()
            .flatten()
            .and_then(|p| self.fields.get(p))
    }

    fn text(&self, col: usize) -> &str {
        self.raw(col).map_or("", str::trim)
    }

    /// The field, trimmed, as an owned string.
    fn key(&self, col: usize) -> String {
        self.text(col).to_string()
    }

    fn error(&self, col: usize, reason: impl Into<String>) -> WorkloadError {
        let field = self.columns.get(col).copied().unwrap_or("?");
        WorkloadError::field(self.file, self.line, field, reason)
    }

    /// A number; `None` when empty or `NaN`.
    fn number(&self, col: usize) -> Result<Option<f64>, WorkloadError> {
        let t = self.text(col);
        if t.is_empty() || t.eq_ignore_ascii_case("nan") {
            return Ok(None);
        }
        let v: f64 = t
            .parse()
            .map_err(|_| self.error(col, format!("'{t}' is not a number")))?;
        if !v.is_finite() {
            return Err(self.error(col, format!("'{t}' is not a finite number")));
        }
        Ok(Some(v))
    }

    /// A timestamp; `None` when not recorded (empty, `NaN` or not positive).
    fn time(&self, col: usize) -> Result<Option<f64>, WorkloadError> {
        Ok(self.number(col)?.filter(|&v| v > 0.0))
    }

    /// A non-negative quantity; `None` when empty or `NaN`.
    fn amount(&self, col: usize) -> Result<Option<f64>, WorkloadError> {
        match self.number(col)? {
            Some(v) if v < 0.0 => Err(self.error(col, format!("{v} is negative"))),
            v => Ok(v),
        }
    }
}

/// Call `each` on every data row of a table, once, in file order. An optional header row
/// (first field equal to the first column's name) places the columns by name; `required`
/// lists the columns it must name. Rows of the wrong width are errors.
fn scan(
    text: &str,
    file: &str,
    columns: &'static [&'static str],
    required: &[usize],
    mut each: impl FnMut(&Row<'_>) -> Result<(), WorkloadError>,
) -> Result<(), WorkloadError> {
    let mut layout: Option<Layout> = None;
    let mut records = Records::new(text, ',');
    while let Some((line, fields)) = records.next_record() {
        if layout.is_none() {
            let first = fields.get(0).map_or("", str::trim);
            if columns
                .first()
                .is_some_and(|c| first.eq_ignore_ascii_case(c))
            {
                layout = Some(header_layout(file, line, fields, columns, required)?);
                continue;
            }
            layout = Some(Layout {
                pos: (0..columns.len()).map(Some).collect(),
                width: columns.len(),
            });
        }
        let Some(layout) = layout.as_ref() else {
            continue;
        };
        if fields.len() != layout.width {
            return Err(WorkloadError::field(
                file,
                line,
                "row",
                format!(
                    "expected {} fields ({}), found {}",
                    layout.width,
                    columns.join(","),
                    fields.len()
                ),
            ));
        }
        each(&Row {
            file,
            line,
            fields,
            layout,
            columns,
        })?;
    }
    Ok(())
}

fn header_layout(
    file: &str,
    line: usize,
    header: &StringRecord,
    columns: &[&str],
    required: &[usize],
) -> Result<Layout, WorkloadError> {
    let pos: Vec<Option<usize>> = columns
        .iter()
        .map(|c| header.iter().position(|h| h.trim().eq_ignore_ascii_case(c)))
        .collect();
    for &r in required {
        if pos.get(r).copied().flatten().is_none() {
            let name = columns.get(r).copied().unwrap_or("?");
            return Err(WorkloadError::field(
                file,
                line,
                name,
                "missing from the header row",
            ));
        }
    }
    Ok(Layout {
        pos,
        width: header.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_import_form_is_read_or_its_wrong_field_named() {
        let s = PaiSampling::from_fields(" 200", "7", "0.25").unwrap();
        assert_eq!(
            s,
            PaiSampling {
                max_jobs: 200,
                seed: 7,
                only_terminated: true,
                elastic_fraction: 0.25
            }
        );
        let d = PaiSampling::default();
        let typed = (
            d.max_jobs.to_string(),
            d.seed.to_string(),
            d.elastic_fraction.to_string(),
        );
        assert_eq!(
            PaiSampling::from_fields(&typed.0, &typed.1, &typed.2),
            Ok(d)
        );
        for (fields, named) in [
            (("0", "1", "0"), "max jobs: '0'"),
            (("10", "-1", "0"), "seed: '-1'"),
            (("10", "1", "1.5"), "elastic share: '1.5'"),
            (("10", "1", "NaN"), "elastic share: 'NaN'"),
        ] {
            let e = PaiSampling::from_fields(fields.0, fields.1, fields.2).unwrap_err();
            assert!(e.starts_with(named), "{e}");
        }
    }

    // Invented rows in the documented column order (no header, as released).
    const JOBS: &str = "\
j1,i1,u1,Terminated,1000,5000
j2,i2,u2,Terminated,1200.5,3000
j3,i3,u1,Failed,1300,1400
j4,i4,u3,Running,1500,
j5,i5,u2,Terminated,900,2000
j6,i6,u4,Terminated,2000,2600
j7,i7,u4,Terminated,3000,3000
j8,i8,u5,Terminated,4000,4100
";

    const TASKS: &str = "\
j1,ps,1.0,Terminated,1010,4990,600.0,29.3,,
j1,worker,4.0,Terminated,1020,5000,400.0,10,50.0,V100
j1,evaluator,1.0,Terminated,1030,2000,100,5,100,V100
j2,tensorflow,1.0,Terminated,1250,2250.5,600,29,25.0,MISC
j3,PyTorchWorker,8,Failed,1310,,600,29,100,P100
j4,PyTorchWorker,2,Running,1600,,600,29,100,T4
j5,worker,1,Terminated,950,1950,600,20,,
j5,ps,1,Terminated,950,1950,600,20,0,
j6,worker,1,Terminated,0,0,600,20,100,V100
j6,worker,1,Terminated,2100,2700,600,20,100,V100
j99,worker,1,Terminated,10,20,1,1,100,V100
j7,worker,1,Terminated,3000,3000,600,20,100,V100
j8,,1,Terminated,4010,4100,100,1,100,V100
";

    fn sampling(max_jobs: usize) -> PaiSampling {
        PaiSampling {
            max_jobs,
            ..PaiSampling::default()
        }
    }

    fn read(jobs: &str, tasks: &str, s: &PaiSampling) -> Result<Trace, WorkloadError> {
        read_pai((jobs, "jobs.csv"), (tasks, "tasks.csv"), s)
    }

    fn job(t: &str, arrival: f64, steps: f64, gpus: u32) -> JobSpec {
        JobSpec::new(t, arrival, steps).with_scale(gpus)
    }

    #[test]
    fn hand_computed_terminated_jobs() {
        let trace = read(JOBS, TASKS, &sampling(100)).unwrap();
        assert_eq!(trace.name, "jobs.csv");
        // j1: 2 GPUs (4 x 50%) + 1 GPU; largest task worker; 5000 - 1010 s.
        // j2: ceil(0.25) = 1 GPU. j6: the row with 0 times is skipped. j8: empty task name.
        // j3 (Failed), j4 (Running), j5 (no GPU), j7 (zero duration) are dropped.
        assert_eq!(
            trace.jobs,
            vec![
                job("worker", 0.0, 3990.0, 3),
                job("tensorflow", 200.5, 1000.5, 1),
                job("worker", 1000.0, 600.0, 1),
                job("pai", 3000.0, 90.0, 1),
            ]
        );
        assert_eq!(trace.lines, vec![1, 2, 6, 8]);
    }

    #[test]
    fn all_statuses_when_not_only_terminated() {
        let s = PaiSampling {
            only_terminated: false,
            ..sampling(100)
        };
        let trace = read(JOBS, TASKS, &s).unwrap();
        // j3's task has no end time: its job's 1400 is used. j4 has no end anywhere.
        // j6 counts the GPU of its unlaunched task too.
        assert_eq!(
            trace.jobs,
            vec![
                job("worker", 0.0, 3990.0, 3),
                job("tensorflow", 200.5, 1000.5, 1),
                job("PyTorchWorker", 300.0, 90.0, 8),
                job("worker", 1000.0, 600.0, 2),
                job("pai", 3000.0, 90.0, 1),
            ]
        );
        assert_eq!(trace.lines, vec![1, 2, 3, 6, 8]);
    }

    #[test]
    fn header_rows_crlf_bom_quotes_and_comments() {
        let jobs = "\u{feff}job_name,inst_id,user,status,start_time,end_time\r\n\
                    # invented\r\n\
                    \"a,1\",i,u,Terminated,10,20\r\n\
                    \r\n\
                    b,i,u,terminated,12,30\r\n";
        // Reordered columns, an extra one, no gpu_type.
        let tasks = "job_name,plan_gpu,task_name,inst_num,status,start_time,end_time,extra\n\
                     \"a,1\",150,worker,1,Terminated,11,19,x\n\
                     b,300,ps,2,Terminated,13,25,y\n";
        let trace = read(jobs, tasks, &sampling(10)).unwrap();
        assert_eq!(
            trace.jobs,
            vec![job("worker", 0.0, 8.0, 2), job("ps", 2.0, 12.0, 6)]
        );
        assert_eq!(trace.lines, vec![3, 5]);
    }

    #[test]
    fn largest_task_names_the_type_first_on_ties() {
        let jobs = "j,i,u,Terminated,100,200\n";
        let tasks = "j,ps,1,Terminated,100,200,1,1,50,V100\n\
                     j,chief,1,Terminated,100,200,1,1,100,V100\n\
                     j,worker,3,Terminated,100,200,1,1,33,V100\n";
        // ps ceil(0.5) = 1, chief 1, worker ceil(0.99) = 1: a three-way tie keeps ps.
        let trace = read(jobs, tasks, &sampling(1)).unwrap();
        assert_eq!(trace.jobs, vec![job("ps", 0.0, 100.0, 3)]);
    }

    #[test]
    fn gpu_rounding() {
        assert_eq!(task_gpus(1.0, 50.0), Some(1));
        assert_eq!(task_gpus(2.0, 50.0), Some(1));
        assert_eq!(task_gpus(3.0, 50.0), Some(2));
        assert_eq!(task_gpus(8.0, 100.0), Some(8));
        assert_eq!(task_gpus(10.0, 10.0), Some(1));
        assert_eq!(task_gpus(3.0, 33.333333333333336), Some(1));
        assert_eq!(task_gpus(1.0, 0.0), Some(0));
        assert_eq!(task_gpus(1e300, 1e300), None);
        assert_eq!(task_gpus(1e9, 1e3), None);
    }

    fn field_error(e: WorkloadError) -> (String, usize, String) {
        match e {
            WorkloadError::Field {
                file, line, field, ..
            } => (file, line, field),
            other => panic!("expected a field error, got {other}"),
        }
    }

    #[test]
    fn malformed_numbers_name_file_line_and_column() {
        let jobs = "j1,i,u,Terminated,1000,5000\nj2,i,u,Running,12x,\n";
        let e = read(jobs, TASKS, &sampling(5)).unwrap_err();
        assert_eq!(
            field_error(e.clone()),
            ("jobs.csv".into(), 2, "start_time".into())
        );
        assert!(e.to_string().contains("'12x' is not a number"), "{e}");

        let tasks = "j1,worker,1,Terminated,1000,2000,1,1,100,V100\n\n\
                     j1,worker,1,Terminated,1000,2000,1,1,5%,V100\n";
        let e = read(JOBS, tasks, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 3, "plan_gpu".into()));

        let tasks = "j1,worker,-1,Terminated,1000,2000,1,1,100,V100\n";
        let e = read(JOBS, tasks, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "inst_num".into()));

        let tasks = "j1,worker,1,Terminated,1000,inf,1,1,100,V100\n";
        let e = read(JOBS, tasks, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "end_time".into()));

        // Checked on every row, even of jobs that are skipped.
        let tasks = "j99,worker,one,Terminated,1000,2000,1,1,100,V100\n";
        let e = read(JOBS, tasks, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "inst_num".into()));

        let tasks = "j1,worker,1e9,Terminated,1000,2000,1,1,1000,V100\n";
        let e = read(JOBS, tasks, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "plan_gpu".into()));
    }

    #[test]
    fn structural_errors() {
        let e = read("j1,i,u,Terminated,1000\n", TASKS, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("jobs.csv".into(), 1, "row".into()));
        let e = read(",i,u,Terminated,1,2\n", TASKS, &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("jobs.csv".into(), 1, "job_name".into()));
        let e = read(JOBS, "job_name,task_name,inst_num\n", &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "start_time".into()));
        let e = read(JOBS, "j1,worker,1,Terminated,1,2,3,4,5,6,7\n", &sampling(5)).unwrap_err();
        assert_eq!(field_error(e), ("tasks.csv".into(), 1, "row".into()));
    }

    fn file_error(e: WorkloadError) -> (String, String) {
        match e {
            WorkloadError::File { file, reason } => (file, reason),
            other => panic!("expected a file error, got {other}"),
        }
    }

    #[test]
    fn empty_results_say_why() {
        let (f, why) = file_error(read("", TASKS, &sampling(5)).unwrap_err());
        assert_eq!(
            (f.as_str(), why.as_str()),
            ("jobs.csv", "the job table has no rows")
        );
        let (f, why) = file_error(read(JOBS, "# nothing\n\n", &sampling(5)).unwrap_err());
        assert_eq!(
            (f.as_str(), why.as_str()),
            ("tasks.csv", "the task table has no rows")
        );

        let jobs = "a,i,u,Failed,1,2\nb,i,u,Running,3,\nc,i,u,Terminated,,9\n";
        let (f, why) = file_error(read(jobs, TASKS, &sampling(5)).unwrap_err());
        assert_eq!(f, "jobs.csv");
        assert!(why.contains("2 not Terminated"), "{why}");
        assert!(why.contains("1 without a start_time"), "{why}");

        let jobs =
            "j5,i,u,Terminated,900,2000\nj7,i,u,Terminated,3000,3000\nzz,i,u,Terminated,1,2\n";
        let (f, why) = file_error(read(jobs, TASKS, &sampling(5)).unwrap_err());
        assert_eq!(f, "tasks.csv");
        assert!(why.contains("none of the 3 jobs"), "{why}");
        assert!(why.contains("1 request no GPU"), "{why}");
        assert!(why.contains("1 have no positive duration"), "{why}");
        assert!(why.contains("1 have no usable task rows"), "{why}");

        let (f, _) = file_error(read(JOBS, TASKS, &sampling(0)).unwrap_err());
        assert_eq!(f, SAMPLING);
        for bad in [-0.1, 1.5, f64::NAN] {
            let s = PaiSampling {
                elastic_fraction: bad,
                ..sampling(5)
            };
            let (f, why) = file_error(read(JOBS, TASKS, &s).unwrap_err());
            assert_eq!(f, SAMPLING);
            assert!(why.contains("elastic_fraction"), "{why}");
        }
    }

    #[test]
    fn elastic_multi_gpu_jobs() {
        let s = PaiSampling {
            only_terminated: false,
            elastic_fraction: 1.0,
            ..sampling(100)
        };
        let trace = read(JOBS, TASKS, &s).unwrap();
        let bounds: Vec<_> = trace
            .jobs
            .iter()
            .map(|j| (j.scale_factor, j.min_gpus, j.max_gpus))
            .collect();
        assert_eq!(
            bounds,
            vec![
                (3, Some(3), Some(6)),
                (1, None, None),
                (8, Some(8), Some(16)),
                (2, Some(2), Some(4)),
                (1, None, None),
            ]
        );
        // Half of 3 multi-GPU jobs rounds to 2.
        let s = PaiSampling {
            elastic_fraction: 0.5,
            ..s
        };
        let trace = read(JOBS, TASKS, &s).unwrap();
        let elastic = trace.jobs.iter().filter(|j| j.min_gpus.is_some()).count();
        assert_eq!(elastic, 2);
        for j in &trace.jobs {
            if let (Some(lo), Some(hi)) = (j.min_gpus, j.max_gpus) {
                assert_eq!((lo, hi), (j.scale_factor, 2 * j.scale_factor));
            }
        }
    }

    /// Invented tables of `n` jobs with ties in submission time.
    fn synthetic(n: usize) -> (String, String) {
        let mut jobs = String::new();
        let mut tasks = String::new();
        for k in 0..n {
            let submit = 100 + 5 * (k / 2);
            jobs.push_str(&format!(
                "job{k},i,u,Terminated,{submit},{}\n",
                submit + 999
            ));
            let gpus = 25 * (1 + k % 8);
            tasks.push_str(&format!(
                "job{k},worker,{},Terminated,{},{},600,29,{gpus},V100\n",
                1 + k % 3,
                submit + 1,
                submit + 2 + k
            ));
        }
        (jobs, tasks)
    }

    #[test]
    fn sampling_is_seeded_bounded_and_ordered() {
        let (jobs, tasks) = synthetic(300);
        let full = read(&jobs, &tasks, &sampling(1000)).unwrap();
        assert_eq!(full.jobs.len(), 300);
        let s = PaiSampling {
            max_jobs: 40,
            seed: 7,
            elastic_fraction: 0.3,
            ..PaiSampling::default()
        };
        let a = read(&jobs, &tasks, &s).unwrap();
        let b = read(&jobs, &tasks, &s).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.jobs.len(), 40);
        assert_eq!(a.lines.len(), 40);
        assert_eq!(a.jobs.first().map(|j| j.arrival), Some(0.0));
        assert!(a.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(a.lines.windows(2).all(|w| w[0] < w[1]));
        // Each sampled job is the full trace's job from the same line, re-based.
        let base = full.jobs[a.lines[0] - 1].arrival;
        for (j, &line) in a.jobs.iter().zip(&a.lines) {
            let f = &full.jobs[line - 1];
            assert_eq!(
                (j.arrival, j.total_steps, j.scale_factor),
                (f.arrival - base, f.total_steps, f.scale_factor)
            );
        }
        let other = read(
            &jobs,
            &tasks,
            &PaiSampling {
                seed: 8,
                ..s.clone()
            },
        )
        .unwrap();
        assert_ne!(a.lines, other.lines);
        let one = read(&jobs, &tasks, &sampling(1)).unwrap();
        assert_eq!(one.jobs.len(), 1);
        assert_eq!(one.jobs[0].arrival, 0.0);
    }

    #[test]
    fn first_row_of_a_job_name_wins() {
        let jobs = "d,i,u,Failed,10,20\nd,i,u,Terminated,10,20\ne,i,u,Terminated,50,90\n\
                    e,i,u,Terminated,1,99\n";
        let tasks = "d,worker,1,Terminated,11,19,1,1,100,V100\n\
                     e,worker,1,Terminated,60,80,1,1,100,V100\n";
        let trace = read(jobs, tasks, &sampling(5)).unwrap();
        assert_eq!(trace.jobs, vec![job("worker", 0.0, 20.0, 1)]);
        assert_eq!(trace.lines, vec![3]);
        let (_, why) = file_error(
            read(
                "d,i,u,Failed,1,2\nd,i,u,Terminated,1,2\n",
                tasks,
                &sampling(5),
            )
            .unwrap_err(),
        );
        assert!(
            why.contains("1 not Terminated") && why.contains("1 repeating"),
            "{why}"
        );
    }

    #[test]
    fn name_index_finds_every_first_row() {
        let rows: Vec<JobRow> = (0..1000)
            .map(|k| JobRow {
                name: format!("n{}", k % 700),
                job: Err(Skip::NoSubmit),
            })
            .collect();
        let jobs = Jobs::new(rows);
        for k in 0..700 {
            assert_eq!(jobs.find(&format!("n{k}")), Some(k));
        }
        assert_eq!(jobs.find("n700"), None);
        assert_eq!(jobs.find(""), None);
        let repeated = jobs
            .rows
            .iter()
            .filter(|r| matches!(r.job, Err(Skip::Repeated)))
            .count();
        assert_eq!(repeated, 300);
        assert_eq!(Jobs::new(Vec::new()).find("x"), None);
    }

    #[test]
    fn choose_is_a_sorted_subset() {
        let mut rng = Rng::for_purpose(3, "test");
        let c = choose(50, 10, &mut rng);
        assert_eq!(c.len(), 10);
        assert!(c.windows(2).all(|w| w[0] < w[1]) && c.iter().all(|&i| i < 50));
        assert_eq!(choose(3, 10, &mut rng), vec![0, 1, 2]);
        assert!(choose(0, 0, &mut rng).is_empty());
    }

    #[test]
    fn sampling_serde_defaults() {
        let s: PaiSampling = serde_json::from_str(r#"{"max_jobs": 10}"#).unwrap();
        assert_eq!(s, sampling(10));
        let back: PaiSampling = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn odd_input_never_panics() {
        let pieces = [
            "j1",
            "",
            ",",
            "\"",
            "\"\"",
            "Terminated",
            "1e308",
            "-0",
            "NaN",
            "1.5",
            "\u{e9}",
            "\r",
            "\n",
            "#",
            " ",
            "100",
            "job_name",
            "99999999999",
        ];
        let mut rng = Rng::for_purpose(1, "fuzz");
        for _ in 0..300 {
            let mut make = || {
                let mut t = String::new();
                for _ in 0..rng.below(60) {
                    t.push_str(pieces[rng.below(pieces.len() as u64) as usize]);
                    if rng.below(2) == 0 {
                        t.push(',');
                    }
                }
                t
            };
            let (j, t) = (make(), make());
            for only in [true, false] {
                let s = PaiSampling {
                    only_terminated: only,
                    elastic_fraction: 0.5,
                    ..sampling(3)
                };
                if let Ok(trace) = read(&j, &t, &s) {
                    assert!(!trace.jobs.is_empty() && trace.jobs.len() <= 3);
                }
            }
        }
    }
}
