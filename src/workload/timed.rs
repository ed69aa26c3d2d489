//! Traces that know a job only by its duration and GPU count (Philly, Helios, Acme), and
//! the two ways such jobs run.
//!
//! The readers ([`super::philly`], [`super::cluster_log`]) give `TimedJob`s; `assemble`
//! makes them a [`Trace`] the same way for every format:
//!
//! - jobs are ordered by submission (ties in file order); [`Trace::lines`] holds each
//!   job's line; `arrival` is its submission relative to the earliest one, so the first
//!   arrival is 0, and [`Origin::start_s`] keeps the earliest submission's date;
//! - `total_steps` is the duration in seconds, read as one step per second at the traced
//!   GPU count (`scale_factor`), as the PAI importer does; `entity` is the virtual cluster
//!   (so hierarchical policies share the cluster among them); `job_type` is the format's
//!   own job kind where it records one (Acme's `type`) and its name otherwise;
//! - priority weight 1; no SLO, epoch, batch size or elasticity.
//!
//! Such a trace runs in one of two ways:
//!
//! - profile-free ([`profile_free`], the experiment's profile
//!   [`crate::experiment::ProfileSource::ProfileFree`]): every job makes one step per
//!   second on any GPU type of the cluster at its GPU count, so it runs for its traced
//!   duration wherever it is placed;
//! - with a throughput profile ([`assign_job_types`]): each job draws a job type of the
//!   profile that runs at its GPU count (uniformly, stream `"trace-job-types"` of the
//!   experiment's seed) and its work becomes its duration times that type's throughput on
//!   its fastest GPU type of the cluster, so the traced duration is its run time there
//!   (Gavel's generator takes V100, its fastest type, as this reference).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::{Profile, Trace, WorkloadError};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use crate::order;
use crate::rng::Rng;

/// Formats of traces of durations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimedFormat {
    /// Philly's `cluster_job_log` (JSON).
    PhillyJobLog,
    /// Philly as Sia's artifact processed it (`timestamp,duration,num_gpus,gpu_time,cluster`).
    PhillyCsv,
    /// Helios's `cluster_log.csv` (SenseTime).
    Helios,
    /// Acme's `trace_seren.csv` / `trace_kalos.csv` (Shanghai AI Lab).
    Acme,
}

impl TimedFormat {
    /// The format's name for people.
    pub fn label(self) -> &'static str {
        match self {
            TimedFormat::PhillyJobLog => "Philly job log",
            TimedFormat::PhillyCsv => "Philly CSV (Sia)",
            TimedFormat::Helios => "Helios cluster log",
            TimedFormat::Acme => "Acme job trace",
        }
    }

    /// The job type of its jobs when a row names none.
    pub fn job_type(self) -> &'static str {
        match self {
            TimedFormat::PhillyJobLog | TimedFormat::PhillyCsv => "philly",
            TimedFormat::Helios => "helios",
            TimedFormat::Acme => "acme",
        }
    }
}

/// Rows of a file that gave no job, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    /// Why (e.g. "no GPU").
    pub reason: String,
    /// How many rows.
    pub rows: usize,
}

/// Where the jobs of a trace of durations came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// The format read.
    pub format: TimedFormat,
    /// Date of arrival 0 (the earliest kept submission), in seconds since 1970-01-01 UTC.
    pub start_s: f64,
    /// Each job's status as the file records it (`Pass`, `COMPLETED`...); empty strings
    /// when the format records none.
    pub statuses: Vec<String>,
    /// Jobs (rows or log entries) in the file.
    pub rows: usize,
    /// Rows that gave no job, by reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
}

impl Origin {
    /// Whether the format records job statuses.
    pub fn has_statuses(&self) -> bool {
        self.statuses.iter().any(|s| !s.is_empty())
    }
}

/// A job as a reader found it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimedJob {
    /// 1-based line of the row or log entry.
    pub line: usize,
    /// Submission, seconds since 1970-01-01 UTC.
    pub submit_s: f64,
    /// Run time (s), positive.
    pub duration_s: f64,
    /// GPUs, at least 1.
    pub gpus: u32,
    /// Virtual cluster, if recorded.
    pub vc: Option<String>,
    /// Status as recorded ("" if none).
    pub status: String,
    /// Job kind, if the format records one.
    pub kind: Option<String>,
}

/// Counts of rows dropped by reason, in the order reasons first occur.
#[derive(Debug, Default)]
pub(crate) struct Drops(Vec<Dropped>);

impl Drops {
    /// Count one row dropped for `reason`.
    pub fn add(&mut self, reason: &str) {
        match self.0.iter_mut().find(|d| d.reason == reason) {
            Some(d) => d.rows += 1,
            None => self.0.push(Dropped {
                reason: reason.to_string(),
                rows: 1,
            }),
        }
    }
}

/// The trace of the jobs found in `file` (see the module documentation); `rows` is how
/// many the file holds. An error says why when no job remains.
pub(crate) fn assemble(
    file: &str,
    format: TimedFormat,
    mut found: Vec<TimedJob>,
    rows: usize,
    drops: Drops,
) -> Result<Trace, WorkloadError> {
    if found.is_empty() {
        let why: Vec<String> = drops
            .0
            .iter()
            .map(|d| format!("{} {}", d.rows, d.reason))
            .collect();
        return Err(WorkloadError::file(
            file,
            if rows == 0 {
                format!("the {} has no jobs", format.label())
            } else {
                format!(
                    "none of its {rows} jobs can run: {}",
                    if why.is_empty() {
                        "none has a duration".to_string()
                    } else {
                        why.join(", ")
                    }
                )
            },
        ));
    }
    order::sort_by(&mut found, |a, b| {
        a.submit_s.total_cmp(&b.submit_s).then(a.line.cmp(&b.line))
    });
    let start_s = found.first().map_or(0.0, |j| j.submit_s);
    let mut jobs = Vec::with_capacity(found.len());
    let mut lines = Vec::with_capacity(found.len());
    let mut statuses = Vec::with_capacity(found.len());
    for f in found {
        let kind = f.kind.filter(|k| !k.is_empty());
        let mut job = JobSpec::new(
            kind.unwrap_or_else(|| format.job_type().to_string()),
            f.submit_s - start_s,
            f.duration_s,
        )
        .with_scale(f.gpus);
        job.entity = f.vc.filter(|v| !v.is_empty());
        jobs.push(job);
        lines.push(f.line);
        statuses.push(f.status);
    }
    Ok(Trace {
        name: file.to_string(),
        jobs,
        lines,
        origin: Some(Origin {
            format,
            start_s,
            statuses,
            rows,
            dropped: drops.0,
        }),
    })
}

/// The profile of a profile-free run: every job type of the trace at each of its GPU
/// counts makes one step per second on every GPU type of the cluster.
pub fn profile_free(trace: &Trace, cluster: &ClusterSpec) -> Profile {
    let mut p = Profile::default();
    for j in &trace.jobs {
        for t in &cluster.types {
            p.set(&j.job_type, j.scale_factor, &t.name, 1.0);
        }
    }
    p
}

/// Give each job of a trace of durations a job type of `profile`, drawn uniformly (stream
/// `"trace-job-types"` of `seed`) among the types with a throughput at its GPU count on a
/// GPU type of `cluster` that has that many GPUs, and the work of its duration on that
/// type's fastest such GPU type. Jobs at a GPU count no type runs at are left out; the
/// warning saying so is returned. An error when no job remains.
pub fn assign_job_types(
    trace: &mut Trace,
    profile: &Profile,
    cluster: &ClusterSpec,
    seed: u64,
) -> Result<Option<String>, WorkloadError> {
    // Per GPU count: (job type, steps/s on its fastest GPU type), in name order.
    let mut by_scale: BTreeMap<u32, Vec<(String, f64)>> = BTreeMap::new();
    for j in &trace.jobs {
        let s = j.scale_factor;
        by_scale.entry(s).or_insert_with(|| {
            profile
                .job_types
                .keys()
                .filter_map(|name| {
                    let best = cluster
                        .types
                        .iter()
                        .filter(|t| t.count >= s)
                        .filter_map(|t| profile.throughput(name, s, &t.name))
                        .filter(|v| v.is_finite() && *v > 0.0)
                        .fold(0.0, f64::max);
                    (best > 0.0).then(|| (name.clone(), best))
                })
                .collect()
        });
    }
    let mut rng = Rng::for_purpose(seed, "trace-job-types");
    let mut keep = vec![true; trace.jobs.len()];
    let mut left_out: BTreeMap<u32, usize> = BTreeMap::new();
    for (job, k) in trace.jobs.iter_mut().zip(keep.iter_mut()) {
        let options = by_scale
            .get(&job.scale_factor)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if options.is_empty() {
            *k = false;
            *left_out.entry(job.scale_factor).or_default() += 1;
            continue;
        }
        let pick = rng.below(options.len() as u64) as usize;
        if let Some((name, speed)) = options.get(pick) {
            job.job_type = name.clone();
            job.total_steps *= speed;
        }
    }
    if left_out.is_empty() {
        return Ok(None);
    }
    let counts: Vec<String> = left_out
        .iter()
        .map(|(g, n)| format!("{n} at {g} GPUs"))
        .collect();
    let total: usize = left_out.values().sum();
    if total == trace.jobs.len() {
        return Err(WorkloadError::file(
            &trace.name,
            format!(
                "no job type of the profile runs at the GPU counts of its jobs ({}) on a GPU type of the cluster with that many GPUs; run it profile-free or give a profile with these counts",
                counts.join(", ")
            ),
        ));
    }
    trace.retain(&keep);
    Ok(Some(format!(
        "{total} jobs of {} were left out: no job type of the profile runs at their GPU counts on a GPU type of the cluster ({})",
        trace.name,
        counts.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(line: usize, submit_s: f64, duration_s: f64, gpus: u32) -> TimedJob {
        TimedJob {
            line,
            submit_s,
            duration_s,
            gpus,
            vc: Some(format!("vc{}", line % 2)),
            status: "Pass".into(),
            kind: None,
        }
    }

    #[test]
    fn assembled_by_submission() {
        let found = vec![
            timed(3, 1000.0, 60.0, 2),
            timed(1, 400.0, 30.0, 1),
            timed(2, 1000.0, 90.0, 8),
        ];
        let t = assemble("x", TimedFormat::Helios, found, 5, Drops::default()).unwrap();
        assert_eq!(t.lines, [1, 2, 3]);
        let got: Vec<_> = t
            .jobs
            .iter()
            .map(|j| {
                (
                    j.arrival,
                    j.total_steps,
                    j.scale_factor,
                    j.entity.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0.0, 30.0, 1, Some("vc1")),
                (600.0, 90.0, 8, Some("vc0")),
                (600.0, 60.0, 2, Some("vc1"))
            ]
        );
        assert!(t.jobs.iter().all(|j| j.job_type == "helios"));
        let o = t.origin.unwrap();
        assert_eq!((o.start_s, o.rows), (400.0, 5));
        assert!(o.has_statuses());
    }

    #[test]
    fn nothing_left_says_why() {
        let mut d = Drops::default();
        d.add("without GPUs");
        d.add("without GPUs");
        d.add("unfinished");
        let e = assemble("x.csv", TimedFormat::Acme, Vec::new(), 3, d).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.csv: none of its 3 jobs can run: 2 without GPUs, 1 unfinished"
        );
        let e = assemble("x.csv", TimedFormat::Acme, Vec::new(), 0, Drops::default());
        assert_eq!(
            e.unwrap_err().to_string(),
            "x.csv: the Acme job trace has no jobs"
        );
    }

    fn trace() -> Trace {
        let found = vec![
            timed(1, 0.0, 100.0, 1),
            timed(2, 10.0, 200.0, 2),
            timed(3, 20.0, 300.0, 3),
            timed(4, 30.0, 400.0, 1),
        ];
        assemble("t", TimedFormat::PhillyCsv, found, 4, Drops::default()).unwrap()
    }

    #[test]
    fn profile_free_runs_anywhere_at_one_step_per_second() {
        let t = trace();
        let c = ClusterSpec::parse("a:4,b:8").unwrap();
        let p = profile_free(&t, &c);
        for s in [1, 2, 3] {
            for g in ["a", "b"] {
                assert_eq!(p.throughput("philly", s, g), Some(1.0));
            }
        }
        assert_eq!(p.throughput("philly", 4, "a"), None);
        t.check_against(&p, &c).unwrap();
    }

    #[test]
    fn sampled_types_take_the_fastest_type_as_reference() {
        let mut p = Profile::default();
        p.set("A", 1, "a", 2.0);
        p.set("A", 1, "b", 5.0);
        p.set("B", 1, "a", 3.0);
        p.set("B", 2, "a", 4.0);
        p.set("B", 2, "b", 9.0); // b has 1 GPU: not a reference at 2 GPUs
        let c = ClusterSpec::parse("a:4,b:1").unwrap();
        let mut t = trace();
        let warn = assign_job_types(&mut t, &p, &c, 7).unwrap().unwrap();
        assert!(warn.contains("1 jobs of t were left out"), "{warn}");
        assert!(warn.contains("1 at 3 GPUs"), "{warn}");
        assert_eq!(t.lines, [1, 2, 4]);
        assert_eq!(t.origin.as_ref().unwrap().statuses.len(), 3);
        for j in &t.jobs {
            let want = match (j.job_type.as_str(), j.scale_factor) {
                ("A", 1) => 5.0,
                ("B", 1) => 3.0,
                ("B", 2) => 4.0,
                other => panic!("{other:?}"),
            };
            let duration = [100.0, 200.0, 400.0][t.jobs.iter().position(|x| x == j).unwrap()];
            assert_eq!(j.total_steps, duration * want);
        }
        // The same seed draws the same types; the draw follows the seed.
        let mut again = trace();
        assign_job_types(&mut again, &p, &c, 7).unwrap();
        assert_eq!(again, t);
        let kinds = |seed| {
            let mut t = trace();
            assign_job_types(&mut t, &p, &c, seed).unwrap();
            t.jobs
                .iter()
                .map(|j| j.job_type.clone())
                .collect::<Vec<_>>()
        };
        assert!((0..20).any(|s| kinds(s) != kinds(7)));
        // No type at any count: an error.
        let mut none = trace();
        let e = assign_job_types(&mut none, &Profile::default(), &c, 0).unwrap_err();
        assert!(e.to_string().contains("profile-free"), "{e}");
    }
}
