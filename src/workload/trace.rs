//! Traces: lists of jobs, read from Orrery's JSON or CSV or from Gavel's `.trace` files.
//!
//! - Orrery's JSON: `{"format": "orrery-trace", "version": 1, "jobs": [{"job_type": "...",
//!   "arrival_s": 0, "total_steps": 1000, "scale_factor": 1, "priority_weight": 1, "slo_s":
//!   3600}]}` (or a bare array of jobs). Optional keys: `scale_factor`, `priority_weight`,
//!   `slo_s`, `epoch_steps`, `min_gpus`, `max_gpus`, `batch_size`, `entity` (the user or
//!   team a job belongs to, for hierarchical policies; `default` when absent), `spot`
//!   (`true` for a spot job, Alibaba's `Spot` job type; `false` when absent).
//! - Orrery's CSV: a header naming the columns, of which `job_type`, `arrival_s` and
//!   `total_steps` are required and the optional keys above may follow in any order.
//! - Gavel's `.trace`: tab-separated lines of 10 fields (job_type, command,
//!   working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor,
//!   priority_weight, SLO (-1 = none), arrival_time); the older 9-field form without
//!   working_directory and the 7-field form (..., total_steps, arrival_time, scale_factor)
//!   are read too.
//! - The Pollux simulator's workload CSV: `name,time,application,num_replicas,batch_size`
//!   (submission time in seconds; the application names an elastic application of the
//!   profile; replicas and batch size are the user's choice, which the non-adaptive
//!   baselines keep). Jobs read from it are elastic: their work is the application's.
//! - Cluster traces that know jobs by duration and GPU count ([`super::timed`]): Philly's
//!   job log (JSON, [`super::philly`]), and the CSV job tables of Helios, Acme and Philly
//!   as Sia's artifact processed it ([`super::cluster_log`]). Their jobs' work is their
//!   duration in seconds and [`Trace::origin`] says where they came from.
//!
//! The format is found from the content: JSON is a Philly job log when its first entry has
//! the log's keys; a CSV header naming `gpu_num` and `submit_time`, or `num_gpus`,
//! `timestamp` and `duration`, is a cluster job table; otherwise as above.

use super::csv::{quote, records, split_line, Records};
use super::timed::Origin;
use super::{cluster_log, philly};
use super::{line_of_offset, parse_count, parse_nonneg, Profile, WorkloadError};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use serde::{Deserialize, Serialize};

/// The latest arrival a trace may have: 100 years (s). Later arrivals are refused, as the
/// trace's statistics bin its arrivals by the hour and a simulation would have nothing to do
/// for centuries.
pub const MAX_ARRIVAL_S: f64 = 100.0 * 365.25 * 86_400.0;

/// The longest a job may run alone on its fastest GPU type: 10 years (s). A simulation of
/// longer jobs would step through millions of rounds.
pub const MAX_JOB_S: f64 = 10.0 * 365.25 * 86_400.0;

/// A trace: jobs in file order (job id = position) and the line each came from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Trace {
    /// Name of the source (file name or preset), for messages.
    pub name: String,
    /// The jobs.
    pub jobs: Vec<JobSpec>,
    /// 1-based source line of each job (0 when generated).
    #[serde(default)]
    pub lines: Vec<usize>,
    /// For a trace of durations (Philly, Helios, Acme): its format, the date of arrival 0
    /// and each job's status. Its jobs' `total_steps` are then seconds (one step per
    /// second at their GPU count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// The formats [`Trace::parse`] tells apart.
enum Format {
    PhillyLog,
    Json,
    Gavel,
    JobTable,
    Pollux,
    Dl2,
    Csv,
}

impl Format {
    /// The format of a trace's text, from its opening.
    fn of(text: &str) -> Format {
        let t = text.trim_start();
        if philly::looks_like(t) {
            return Format::PhillyLog;
        }
        if t.starts_with('{') || t.starts_with('[') {
            return Format::Json;
        }
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .unwrap_or("");
        let header: Vec<String> = split_line(first.trim_start_matches('\u{feff}'), ',')
            .iter()
            .map(|c| c.trim().to_ascii_lowercase())
            .collect();
        if first.contains('\t') && !first.contains(',') {
            Format::Gavel
        } else if cluster_log::detect(&header).is_some() {
            Format::JobTable
        } else if header.iter().any(|c| c == "application") {
            Format::Pollux
        } else if super::dl2_trace::is_trace_header(&header) {
            Format::Dl2
        } else {
            Format::Csv
        }
    }
}

#[derive(Serialize, Deserialize)]
struct TraceFile {
    format: String,
    version: u32,
    jobs: Vec<JobSpec>,
}

const CSV_COLUMNS: [&str; 12] = [
    "job_type",
    "arrival_s",
    "total_steps",
    "scale_factor",
    "priority_weight",
    "slo_s",
    "epoch_steps",
    "min_gpus",
    "max_gpus",
    "batch_size",
    "entity",
    "spot",
];

impl Trace {
    /// A trace from jobs (no source lines).
    pub fn from_jobs(name: &str, jobs: Vec<JobSpec>) -> Self {
        let lines = vec![0; jobs.len()];
        Trace {
            name: name.into(),
            jobs,
            lines,
            origin: None,
        }
    }

    /// Whether the trace knows its jobs by duration (seconds at one step per second) rather
    /// than by work in a profile's steps.
    pub fn is_timed(&self) -> bool {
        self.origin.is_some()
    }

    /// Keep the jobs whose entry in `keep` is true (with their lines and statuses).
    pub fn retain(&mut self, keep: &[bool]) {
        let kept = |i: usize| keep.get(i).copied().unwrap_or(false);
        let mut i = 0;
        self.jobs.retain(|_| {
            i += 1;
            kept(i - 1)
        });
        let mut i = 0;
        self.lines.retain(|_| {
            i += 1;
            kept(i - 1)
        });
        if let Some(o) = &mut self.origin {
            let mut i = 0;
            o.statuses.retain(|_| {
                i += 1;
                kept(i - 1)
            });
        }
    }

    /// Read a trace in any accepted format, detected from its content.
    pub fn parse(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let t = text.trim_start();
        if t.is_empty() {
            return Err(WorkloadError::file(file, "the trace is empty"));
        }
        let trace = match Format::of(text) {
            Format::PhillyLog => philly::read_philly(text, file)?,
            Format::Json => Self::parse_json(text, file)?,
            Format::Gavel => Self::parse_gavel(text, file)?,
            Format::JobTable => cluster_log::read_cluster_log(text, file)?,
            Format::Pollux => Self::parse_pollux(text, file)?,
            Format::Dl2 => super::dl2_trace::read_trace(text, file)?,
            Format::Csv => Self::parse_csv(text, file)?,
        };
        trace.validate()?;
        Ok(trace)
    }

    /// Whether `text` is a trace of durations (Philly, Helios, Acme), from its format alone.
    pub fn is_timed_text(text: &str) -> bool {
        matches!(Format::of(text), Format::PhillyLog | Format::JobTable)
    }

    fn parse_json(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let jobs: Vec<JobSpec> = if text.trim_start().starts_with('[') {
            serde_json::from_str(text)
                .map_err(|e| WorkloadError::field(file, e.line(), json_field(&e), e.to_string()))?
        } else {
            let f: TraceFile = serde_json::from_str(text)
                .map_err(|e| WorkloadError::field(file, e.line(), json_field(&e), e.to_string()))?;
            if f.format != "orrery-trace" {
                return Err(WorkloadError::field(
                    file,
                    1,
                    "format",
                    format!("expected 'orrery-trace', found '{}'", f.format),
                ));
            }
            if f.version != 1 {
                return Err(WorkloadError::field(
                    file,
                    1,
                    "version",
                    format!("version {} is not supported (1 is)", f.version),
                ));
            }
            f.jobs
        };
        // Line of each job: the line of its "job_type" key, in order.
        let mut lines = Vec::with_capacity(jobs.len());
        let mut from = 0;
        for _ in &jobs {
            match text[from..].find("\"job_type\"") {
                Some(o) => {
                    lines.push(line_of_offset(text, from + o));
                    from += o + 1;
                }
                None => lines.push(0),
            }
        }
        Ok(Trace {
            name: file.into(),
            jobs,
            lines,
            origin: None,
        })
    }

    fn parse_csv(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let recs = records(text, ',');
        let header = recs
            .first()
            .ok_or_else(|| WorkloadError::file(file, "no header"))?;
        let cols: Vec<String> = header
            .fields
            .iter()
            .map(|f| f.trim().to_ascii_lowercase())
            .collect();
        for c in &cols {
            if !CSV_COLUMNS.contains(&c.as_str()) {
                return Err(WorkloadError::field(
                    file,
                    header.line,
                    c.as_str(),
                    format!("unknown column (known: {})", CSV_COLUMNS.join(", ")),
                ));
            }
        }
        for req in ["job_type", "arrival_s", "total_steps"] {
            if !cols.iter().any(|c| c == req) {
                return Err(WorkloadError::field(
                    file,
                    header.line,
                    req,
                    "missing column",
                ));
            }
        }
        let mut jobs = Vec::new();
        let mut lines = Vec::new();
        for r in &recs[1..] {
            if r.fields.len() != cols.len() {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    "row",
                    format!("expected {} fields, found {}", cols.len(), r.fields.len()),
                ));
            }
            let mut job = JobSpec::new("", 0.0, 0.0);
            for (c, v) in cols.iter().zip(&r.fields) {
                let v = v.trim();
                let opt = |v: &str| !v.is_empty();
                match c.as_str() {
                    "job_type" => {
                        if v.is_empty() {
                            return Err(WorkloadError::field(file, r.line, "job_type", "empty"));
                        }
                        job.job_type = v.to_string();
                    }
                    "arrival_s" => job.arrival = parse_nonneg(file, r.line, c, v)?,
                    "total_steps" => job.total_steps = parse_nonneg(file, r.line, c, v)?,
                    "scale_factor" if opt(v) => job.scale_factor = parse_count(file, r.line, c, v)?,
                    "priority_weight" if opt(v) => {
                        job.priority_weight = parse_nonneg(file, r.line, c, v)?
                    }
                    "slo_s" if opt(v) => job.slo = Some(parse_nonneg(file, r.line, c, v)?),
                    "epoch_steps" if opt(v) => {
                        job.epoch_steps = Some(parse_nonneg(file, r.line, c, v)?)
                    }
                    "min_gpus" if opt(v) => job.min_gpus = Some(parse_count(file, r.line, c, v)?),
                    "max_gpus" if opt(v) => job.max_gpus = Some(parse_count(file, r.line, c, v)?),
                    "batch_size" if opt(v) => {
                        job.batch_size = Some(parse_count(file, r.line, c, v)?)
                    }
                    "entity" if opt(v) => job.entity = Some(v.to_string()),
                    "spot" if opt(v) => {
                        job.spot = match v.to_ascii_lowercase().as_str() {
                            "true" | "1" => true,
                            "false" | "0" => false,
                            _ => {
                                return Err(WorkloadError::field(
                                    file,
                                    r.line,
                                    c,
                                    format!("'{v}' is not true or false"),
                                ))
                            }
                        }
                    }
                    _ => {}
                }
            }
            jobs.push(job);
            lines.push(r.line);
        }
        Ok(Trace {
            name: file.into(),
            jobs,
            lines,
            origin: None,
        })
    }

    fn parse_pollux(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let recs = records(text, ',');
        let header = recs
            .first()
            .ok_or_else(|| WorkloadError::file(file, "no header"))?;
        let cols: Vec<String> = header
            .fields
            .iter()
            .map(|f| f.trim().to_ascii_lowercase())
            .collect();
        let col = |n: &str| cols.iter().position(|c| c == n);
        let (Some(ct), Some(ca)) = (col("time"), col("application")) else {
            let missing = if col("time").is_none() {
                "time"
            } else {
                "application"
            };
            return Err(WorkloadError::field(
                file,
                header.line,
                missing,
                "missing column",
            ));
        };
        let (cr, cb) = (col("num_replicas"), col("batch_size"));
        let mut jobs = Vec::new();
        let mut lines = Vec::new();
        for r in &recs[1..] {
            let get = |i: usize, name: &str| {
                r.fields
                    .get(i)
                    .map(|s| s.trim())
                    .ok_or_else(|| WorkloadError::field(file, r.line, name, "missing value"))
            };
            let app = get(ca, "application")?;
            if app.is_empty() {
                return Err(WorkloadError::field(file, r.line, "application", "empty"));
            }
            let mut job = JobSpec::new(
                app,
                parse_nonneg(file, r.line, "time", get(ct, "time")?)?,
                1.0,
            );
            if let Some(i) = cr {
                job.scale_factor =
                    parse_count(file, r.line, "num_replicas", get(i, "num_replicas")?)?;
            }
            if let Some(i) = cb {
                job.batch_size = Some(parse_count(
                    file,
                    r.line,
                    "batch_size",
                    get(i, "batch_size")?,
                )?);
            }
            jobs.push(job);
            lines.push(r.line);
        }
        Ok(Trace {
            name: file.into(),
            jobs,
            lines,
            origin: None,
        })
    }

    fn parse_gavel(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let mut jobs = Vec::new();
        let mut lines = Vec::new();
        let mut rows = Records::new(text, '\t');
        while let Some((line, f)) = rows.next_record() {
            // Field names and positions of the three known layouts.
            let (steps, scale, weight, slo, arrival) = match f.len() {
                10 => (5, Some(6), Some(7), Some(8), 9),
                9 => (4, Some(5), Some(6), Some(7), 8),
                7 => (4, Some(6), None, None, 5),
                n => {
                    return Err(WorkloadError::field(
                        file,
                        line,
                        "row",
                        format!("expected 10 tab-separated fields (Gavel trace), found {n}"),
                    ));
                }
            };
            let job_type = f[0].trim();
            if job_type.is_empty() {
                return Err(WorkloadError::field(file, line, "job_type", "empty"));
            }
            let mut job = JobSpec::new(
                job_type,
                parse_nonneg(file, line, "arrival_time", &f[arrival])?,
                parse_nonneg(file, line, "total_steps", &f[steps])?,
            );
            if let Some(c) = scale {
                job.scale_factor = parse_count(file, line, "scale_factor", &f[c])?;
            }
            if let Some(c) = weight {
                job.priority_weight = parse_nonneg(file, line, "priority_weight", &f[c])?;
            }
            if let Some(c) = slo {
                let t = f[c].trim();
                let v: f64 = t.parse().map_err(|_| {
                    WorkloadError::field(file, line, "SLO", format!("'{t}' is not a number"))
                })?;
                if !v.is_finite() {
                    return Err(WorkloadError::field(
                        file,
                        line,
                        "SLO",
                        format!("'{t}' is not a finite number"),
                    ));
                }
                job.slo = if v < 0.0 { None } else { Some(v) };
            }
            jobs.push(job);
            lines.push(line);
        }
        Ok(Trace {
            name: file.into(),
            jobs,
            lines,
            origin: None,
        })
    }

    /// Values every job must have: positive work and weight.
    fn validate(&self) -> Result<(), WorkloadError> {
        if self.jobs.is_empty() {
            return Err(WorkloadError::file(&self.name, "the trace has no jobs"));
        }
        for (i, j) in self.jobs.iter().enumerate() {
            let line = self.lines.get(i).copied().unwrap_or(0);
            let fail = |field: &str, reason: String| {
                Err(WorkloadError::field(&self.name, line, field, reason))
            };
            if j.job_type.trim().is_empty() {
                return fail("job_type", "empty".into());
            }
            if !(j.arrival.is_finite() && j.arrival >= 0.0) {
                return fail(
                    "arrival_s",
                    format!("{} must be a non-negative number", j.arrival),
                );
            }
            if j.arrival > MAX_ARRIVAL_S {
                return fail(
                    "arrival_s",
                    format!(
                        "{} s is later than the limit of {MAX_ARRIVAL_S} s (100 years)",
                        j.arrival
                    ),
                );
            }
            if !(j.total_steps.is_finite() && j.total_steps > 0.0) {
                return fail(
                    "total_steps",
                    format!("{} must be a positive number", j.total_steps),
                );
            }
            if j.scale_factor == 0 {
                return fail("scale_factor", "must be at least 1".into());
            }
            if !(j.priority_weight.is_finite() && j.priority_weight > 0.0) {
                return fail(
                    "priority_weight",
                    format!("{} must be a positive number", j.priority_weight),
                );
            }
            if let Some(s) = j.slo {
                if !(s.is_finite() && s >= 0.0) {
                    return fail("slo_s", format!("{s} must be a non-negative number"));
                }
            }
        }
        Ok(())
    }

    /// Check every job can run: its type is in the profile with a throughput at its scale
    /// factor on a GPU type of the cluster that has enough GPUs, and it runs there alone for
    /// at most [`MAX_JOB_S`]. Errors name the trace line.
    pub fn check_against(
        &self,
        profile: &Profile,
        cluster: &ClusterSpec,
    ) -> Result<(), WorkloadError> {
        for (i, j) in self.jobs.iter().enumerate() {
            let line = self.lines.get(i).copied().unwrap_or(0);
            let Some(p) = profile.job_types.get(&j.job_type) else {
                return Err(WorkloadError::field(
                    &self.name,
                    line,
                    "job_type",
                    format!("'{}' is not in the profile", j.job_type),
                ));
            };
            let Some(by_gpu) = p.throughputs.get(&j.scale_factor) else {
                return Err(WorkloadError::field(
                    &self.name,
                    line,
                    "scale_factor",
                    format!(
                        "the profile has no throughput for '{}' at scale factor {}",
                        j.job_type, j.scale_factor
                    ),
                ));
            };
            let ok = cluster.types.iter().any(|t| {
                t.count >= j.scale_factor && by_gpu.get(&t.name).is_some_and(|&v| v > 0.0)
            });
            if !ok {
                return Err(WorkloadError::field(&self.name, line, "scale_factor", format!("'{}' at scale factor {} has no throughput on a GPU type of the cluster with {} GPUs", j.job_type, j.scale_factor, j.scale_factor)));
            }
            let fastest = cluster
                .types
                .iter()
                .filter(|t| t.count >= j.scale_factor)
                .filter_map(|t| by_gpu.get(&t.name).copied())
                .fold(0.0, f64::max);
            let alone = j.total_steps / fastest;
            if alone > MAX_JOB_S {
                return Err(WorkloadError::field(
                    &self.name,
                    line,
                    "total_steps",
                    format!(
                        "{} steps take {alone:.3e} s alone on the fastest GPU type, more than the limit of {MAX_JOB_S} s (10 years)",
                        j.total_steps
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The Pollux simulator's workload CSV (`name,time,application,num_replicas,batch_size`)
    /// for elastic jobs; names are `<application>-<id>` and times whole seconds.
    pub fn to_pollux_csv(&self) -> String {
        let mut out = String::from("name,time,application,num_replicas,batch_size\n");
        for (i, j) in self.jobs.iter().enumerate() {
            out.push_str(&format!(
                "{},{},{},{},{}\n",
                quote(&format!("{}-{i}", j.job_type)),
                j.arrival.round(),
                quote(&j.job_type),
                j.scale_factor,
                j.batch_size.map(|b| b.to_string()).unwrap_or_default()
            ));
        }
        out
    }

    /// Orrery's JSON trace.
    pub fn to_json(&self) -> String {
        let f = TraceFile {
            format: "orrery-trace".into(),
            version: 1,
            jobs: self.jobs.clone(),
        };
        serde_json::to_string_pretty(&f).unwrap_or_default()
    }

    /// Orrery's CSV trace.
    /// The `entity` column is written only when some job names an entity, the `spot`
    /// column only when some job is a spot job.
    pub fn to_csv(&self) -> String {
        let entities = self.jobs.iter().any(|j| j.entity.is_some());
        let spots = self.jobs.iter().any(|j| j.spot);
        let mut out =
            String::from("job_type,arrival_s,total_steps,scale_factor,priority_weight,slo_s");
        out.push_str(if entities { ",entity" } else { "" });
        out.push_str(if spots { ",spot\n" } else { "\n" });
        for j in &self.jobs {
            out.push_str(&format!(
                "{},{},{},{},{},{}",
                quote(&j.job_type),
                j.arrival,
                j.total_steps,
                j.scale_factor,
                j.priority_weight,
                j.slo.map(|s| s.to_string()).unwrap_or_default()
            ));
            if entities {
                out.push(',');
                out.push_str(&j.entity.as_deref().map(quote).unwrap_or_default());
            }
            if spots {
                out.push_str(if j.spot { ",true" } else { ",false" });
            }
            out.push('\n');
        }
        out
    }
}

fn json_field(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde names missing or unknown fields in backquotes.
    msg.split('`')
        .nth(1)
        .map(str::to_string)
        .unwrap_or_else(|| "json".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAVEL: &str = "ResNet-18 (batch size 64)\tpython3 main.py\timage_classification/cifar10\t--num_steps\t1\t1646636\t1\t1\t-1.000000\t0.000000\nLM (batch size 5)\tpython main.py\tlm\t--steps\t1\t869104\t4\t2\t3600\t12.5\n";

    #[test]
    fn gavel_trace() {
        let t = Trace::parse(GAVEL, "x.trace").unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.jobs[0].total_steps, 1646636.0);
        assert_eq!(t.jobs[0].slo, None);
        assert_eq!(t.jobs[1].scale_factor, 4);
        assert_eq!(t.jobs[1].priority_weight, 2.0);
        assert_eq!(t.jobs[1].slo, Some(3600.0));
        assert_eq!(t.jobs[1].arrival, 12.5);
        assert_eq!(t.lines, [1, 2]);
    }

    #[test]
    fn csv_and_json_round_trip() {
        let t = Trace::parse(GAVEL, "x.trace").unwrap();
        let c = Trace::parse(&t.to_csv(), "x.csv").unwrap();
        assert_eq!(c.jobs, t.jobs);
        let j = Trace::parse(&t.to_json(), "x.json").unwrap();
        assert_eq!(j.jobs, t.jobs);
        assert_eq!(j.lines.len(), 2);
        // Entities: a column (empty = the default entity) and a JSON key; old files parse.
        let mut e = t.clone();
        e.jobs[1].entity = Some("team, b".into());
        let c = Trace::parse(&e.to_csv(), "x.csv").unwrap();
        assert_eq!(c.jobs, e.jobs);
        assert_eq!(c.jobs[0].entity(), crate::model::job::DEFAULT_ENTITY);
        assert_eq!(c.jobs[1].entity(), "team, b");
        let j = Trace::parse(&e.to_json(), "x.json").unwrap();
        assert_eq!(j.jobs, e.jobs);
        assert!(!t.to_json().contains("entity") && !t.to_csv().contains("entity"));
        // Spot jobs: a column and a JSON key, written only when a job is one.
        let mut s = t.clone();
        s.jobs[0].spot = true;
        let c = Trace::parse(&s.to_csv(), "x.csv").unwrap();
        assert_eq!(c.jobs, s.jobs);
        assert_eq!(Trace::parse(&s.to_json(), "x.json").unwrap().jobs, s.jobs);
        assert!(!t.to_json().contains("spot") && !t.to_csv().contains("spot"));
        let e = Trace::parse(
            "job_type,arrival_s,total_steps,spot\nA,0,1,maybe\n",
            "x.csv",
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "x.csv:2: field 'spot': 'maybe' is not true or false"
        );
    }

    #[test]
    fn errors_name_file_line_field() {
        let cases = [
            (
                "job_type,total_steps\nA,1\n",
                "x.csv:1: field 'arrival_s': missing column",
            ),
            (
                "job_type,arrival_s,total_steps\nA,0,many\n",
                "x.csv:2: field 'total_steps': 'many' is not a number",
            ),
            (
                "job_type,arrival_s,total_steps\nA,-5,10\n",
                "x.csv:2: field 'arrival_s': -5 is negative",
            ),
            (
                "job_type,arrival_s,total_steps\nA,NaN,10\n",
                "x.csv:2: field 'arrival_s': 'NaN' is not a finite number",
            ),
            (
                "job_type,arrival_s,total_steps\nA,1,10\nB,1,0\n",
                "x.csv:3: field 'total_steps': 0 must be a positive number",
            ),
            (
                "job_type,arrival_s,total_steps,scale_factor\nA,1,10,1.5\n",
                "x.csv:2: field 'scale_factor': 1.5 is not a positive whole number",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(Trace::parse(text, "x.csv").unwrap_err().to_string(), want);
        }
        let e = Trace::parse("A\tb\tc\n", "g.trace")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.trace:1: field 'row'"), "{e}");
        let bad = GAVEL.replace("869104", "x");
        assert_eq!(
            Trace::parse(&bad, "g.trace").unwrap_err().to_string(),
            "g.trace:2: field 'total_steps': 'x' is not a number"
        );
        let e = Trace::parse("{\"format\":\"orrery-trace\",\"version\":1,\"jobs\":[{\"job_type\":\"A\",\"arrival_s\":0}]}", "t.json").unwrap_err().to_string();
        assert!(e.contains("total_steps"), "{e}");
    }

    #[test]
    fn check_against_profile() {
        let t = Trace::parse(GAVEL, "x.trace").unwrap();
        let mut p = Profile::default();
        p.set("ResNet-18 (batch size 64)", 1, "v100", 10.0);
        let c = ClusterSpec::parse("v100:4").unwrap();
        let e = t.check_against(&p, &c).unwrap_err().to_string();
        assert_eq!(
            e,
            "x.trace:2: field 'job_type': 'LM (batch size 5)' is not in the profile"
        );
        p.set("LM (batch size 5)", 1, "v100", 10.0);
        let e = t.check_against(&p, &c).unwrap_err().to_string();
        assert!(e.starts_with("x.trace:2: field 'scale_factor'"), "{e}");
        p.set("LM (batch size 5)", 4, "v100", 10.0);
        t.check_against(&p, &c).unwrap();
        let small = ClusterSpec::parse("v100:2").unwrap();
        assert!(t.check_against(&p, &small).is_err());
    }
}
