//! Reader of Philly's job log (`cluster_job_log` in github.com/msr-fiddle/philly-traces,
//! Microsoft's Philly clusters, August to December 2017).
//!
//! # Input format
//!
//! A JSON array with one object per job:
//!
//! ```json
//! [{"status": "Pass", "vc": "ee9e8c", "jobid": "application_..._14199", "user": "ce2f4c",
//!   "submitted_time": "2017-10-07 01:11:39",
//!   "attempts": [{"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
//!                 "detail": [{"ip": "m47", "gpus": ["gpu0", "gpu1"]}]}]}]
//! ```
//!
//! `status` is `Pass`, `Killed` or `Failed`; `vc` is the virtual cluster; each attempt is
//! one scheduling of the job, on the servers (`ip`) and GPUs its `detail` lists. Times are
//! `YYYY-MM-DD HH:MM:SS`; a time not recorded is `"None"`, `null` or empty. Keys other than
//! those read below (`jobid`, `user`, `ip`) are ignored.
//!
//! # Conventions
//!
//! - GPUs: those of the last attempt that lists any (the attempt that ended the job; a
//!   job's attempts normally have one size). The published analysis notebook counts the
//!   first attempt's.
//! - Duration: from the first recorded attempt start to the last attempt's end, so the
//!   gaps between attempts (the job waiting to be rescheduled) count as run time, as in
//!   the notebook's `run_time`.
//! - Submission: `submitted_time`; the virtual cluster becomes the job's entity and
//!   `status` its status (for the status filter).
//! - Left out, and counted by reason in [`super::timed::Origin::dropped`]: jobs without
//!   attempts, without GPUs, without a submission or start time, still running when the
//!   log was taken (the last attempt has no end) or of no positive duration.
//!
//! The rest (ordering, arrivals, job type `philly`) is [`super::timed`]'s.
//!
//! Errors name the file, the line of the job's entry (or of the bad value) and the key, by
//! its path in the entry (`attempts[1].end_time`).

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::dates::parse_time;
use super::timed::{assemble, Drops, TimedFormat, TimedJob};
use super::{Trace, WorkloadError};

#[derive(Deserialize)]
struct Job {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    vc: Option<String>,
    submitted_time: Option<String>,
    attempts: Option<Vec<Attempt>>,
}

#[derive(Deserialize)]
struct Attempt {
    #[serde(default)]
    start_time: Option<String>,
    #[serde(default)]
    end_time: Option<String>,
    #[serde(default)]
    detail: Option<Vec<Detail>>,
}

#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    gpus: Option<Vec<IgnoredAny>>,
}

/// Whether a JSON text looks like a Philly job log: an array whose first entry has the
/// log's keys (and not Orrery's `job_type`).
pub fn looks_like(text: &str) -> bool {
    let t = text.trim_start().trim_start_matches('\u{feff}');
    if !t.starts_with('[') {
        return false;
    }
    // The first entry's keys come first: look at its opening.
    let head: String = t.chars().take(2000).collect();
    let first = head.split('}').next().unwrap_or("");
    !first.contains("\"job_type\"")
        && ["\"submitted_time\"", "\"attempts\"", "\"jobid\""]
            .iter()
            .any(|k| first.contains(k))
}

/// Read a Philly job log (see the module documentation).
pub fn read_philly(text: &str, file: &str) -> Result<Trace, WorkloadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let entries: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| {
        WorkloadError::field(
            file,
            e.line(),
            "json",
            format!("not a JSON array of jobs: {e}"),
        )
    })?;
    let base = text.as_ptr() as usize;
    let mut lines = LineCounter::new(text);
    let mut found = Vec::new();
    let mut drops = Drops::default();
    for raw in &entries {
        let at = (raw.get().as_ptr() as usize).saturating_sub(base);
        let line = lines.line_at(at);
        let job = parse_entry(raw.get(), file, line)?;
        match job_of(&job, raw.get(), file, line)? {
            Ok(t) => found.push(t),
            Err(reason) => drops.add(reason),
        }
    }
    assemble(file, TimedFormat::PhillyJobLog, found, entries.len(), drops)
}

/// One entry, with errors naming the key's path and line.
fn parse_entry(raw: &str, file: &str, line: usize) -> Result<Job, WorkloadError> {
    let mut de = serde_json::Deserializer::from_str(raw);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // A key's path and the line of its value, or for the entry as a whole its line.
        let (field, line) = match path.as_str() {
            "." | "" => ("entry".to_string(), line),
            p => (p.to_string(), line + inner.line().saturating_sub(1)),
        };
        WorkloadError::field(file, line, field, inner.to_string())
    })
}

/// The job of an entry, or why it gives none.
fn job_of(
    job: &Job,
    raw: &str,
    file: &str,
    line: usize,
) -> Result<Result<TimedJob, &'static str>, WorkloadError> {
    let time = |text: &Option<String>, key: &str| -> Result<Option<f64>, WorkloadError> {
        let Some(t) = text.as_deref().map(str::trim) else {
            return Ok(None);
        };
        if t.is_empty() || t == "None" {
            return Ok(None);
        }
        parse_time(t).map(Some).ok_or_else(|| {
            // The line of the value itself, found in the entry's text.
            let at = raw.find(&format!("\"{t}\"")).unwrap_or(0);
            let line = line + raw[..at].matches('\n').count();
            WorkloadError::field(
                file,
                line,
                key,
                format!("'{t}' is not a date-time (YYYY-MM-DD HH:MM:SS)"),
            )
        })
    };
    let submit = time(&job.submitted_time, "submitted_time")?;
    let attempts = job.attempts.as_deref().unwrap_or(&[]);
    let mut starts = Vec::with_capacity(attempts.len());
    let mut ends = Vec::with_capacity(attempts.len());
    for (i, a) in attempts.iter().enumerate() {
        starts.push(time(&a.start_time, &format!("attempts[{i}].start_time"))?);
        ends.push(time(&a.end_time, &format!("attempts[{i}].end_time"))?);
    }
    if attempts.is_empty() {
        return Ok(Err("without attempts"));
    }
    let gpus: usize = attempts
        .iter()
        .rev()
        .map(|a| {
            a.detail
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .map(|d| d.gpus.as_ref().map_or(0, Vec::len))
                .sum::<usize>()
        })
        .find(|&g| g > 0)
        .unwrap_or(0);
    if gpus == 0 {
        return Ok(Err("without GPUs"));
    }
    let Ok(gpus) = u32::try_from(gpus) else {
        return Err(WorkloadError::field(
            file,
            line,
            "attempts",
            format!("{gpus} GPUs is more than {}", u32::MAX),
        ));
    };
    let Some(submit) = submit else {
        return Ok(Err("without a submission time"));
    };
    let Some(start) = starts.iter().flatten().next().copied() else {
        return Ok(Err("never started"));
    };
    let Some(end) = ends.last().copied().flatten() else {
        return Ok(Err("still running at the end of the log"));
    };
    let duration = end - start;
    if duration.is_nan() || duration <= 0.0 {
        return Ok(Err("of no positive duration"));
    }
    Ok(Ok(TimedJob {
        line,
        submit_s: submit,
        duration_s: duration,
        gpus,
        vc: job.vc.clone(),
        status: job.status.clone().unwrap_or_default(),
        kind: None,
    }))
}

/// 1-based line numbers of increasing byte offsets of a text.
struct LineCounter<'t> {
    text: &'t [u8],
    at: usize,
    line: usize,
}

impl<'t> LineCounter<'t> {
    fn new(text: &'t str) -> Self {
        LineCounter {
            text: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The line of byte `offset` (offsets asked in increasing order).
    fn line_at(&mut self, offset: usize) -> usize {
        let to = offset.min(self.text.len());
        if to > self.at {
            let seen = self.text.get(self.at..to).unwrap_or(&[]);
            self.line += seen.iter().filter(|&&b| b == b'\n').count();
            self.at = to;
        }
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"[
  {"status": "Pass", "vc": "v1", "jobid": "a", "user": "u",
   "attempts": [
     {"start_time": "2017-10-03 00:01:00", "end_time": "2017-10-03 00:02:00",
      "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]},
     {"start_time": "2017-10-03 00:03:00", "end_time": "2017-10-03 01:00:00",
      "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1"]}, {"ip": "m3", "gpus": ["gpu0", "gpu1"]}]}
   ],
   "submitted_time": "2017-10-03 00:00:30"},
  {"status": "Killed", "vc": "v2", "jobid": "b", "user": "u", "attempts": [],
   "submitted_time": "2017-10-03 00:00:00"},
  {"status": "Failed", "vc": "v2", "jobid": "c", "user": "u",
   "attempts": [{"start_time": "2017-10-02 23:59:00", "end_time": "None",
                 "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}],
   "submitted_time": "2017-10-02 23:58:00"},
  {"status": "Killed", "vc": "v1", "jobid": "d", "user": "u",
   "attempts": [{"start_time": null, "end_time": "2017-10-03 00:10:00",
                 "detail": [{"ip": "m1", "gpus": ["gpu0"]}]},
                {"start_time": "2017-10-03 00:11:00", "end_time": "2017-10-03 00:20:00",
                 "detail": []}],
   "submitted_time": "2017-10-03 00:00:00"}
]"#;

    #[test]
    fn conventions() {
        let t = read_philly(LOG, "log").unwrap();
        // d first (submitted 00:00:00, 1 GPU, 00:11 to 00:20), then a (30 s later).
        assert_eq!(t.lines, [16, 2]);
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
            [(0.0, 540.0, 1, Some("v1")), (30.0, 3540.0, 4, Some("v1"))]
        );
        let o = t.origin.unwrap();
        assert_eq!(o.statuses, ["Killed", "Pass"]);
        assert_eq!(o.rows, 4);
        let dropped: Vec<_> = o
            .dropped
            .iter()
            .map(|d| (d.reason.as_str(), d.rows))
            .collect();
        assert_eq!(
            dropped,
            [
                ("without attempts", 1),
                ("still running at the end of the log", 1)
            ]
        );
    }

    #[test]
    fn errors_name_line_and_key() {
        let bad = LOG.replace("\"2017-10-03 00:03:00\"", "\"03/10/2017\"");
        let e = read_philly(&bad, "log").unwrap_err().to_string();
        assert_eq!(
            e,
            "log:6: field 'attempts[1].start_time': '03/10/2017' is not a date-time (YYYY-MM-DD HH:MM:SS)"
        );
        let bad = LOG.replace("\"gpus\": [\"gpu0\"]}]},", "\"gpus\": 3}]},");
        let e = read_philly(&bad, "log").unwrap_err().to_string();
        assert!(
            e.starts_with("log:18: field 'attempts[0].detail[0].gpus'"),
            "{e}"
        );
        let bad = LOG.replace("\"2017-10-02 23:58:00\"", "5");
        let e = read_philly(&bad, "log").unwrap_err().to_string();
        assert!(e.starts_with("log:15: field 'submitted_time'"), "{e}");
        // A missing key is a value not recorded: that job is left out.
        let bad = LOG.replace("\"submitted_time\": \"2017-10-03 00:00:30\"", "\"x\": 1");
        let t = read_philly(&bad, "log").unwrap();
        assert_eq!(t.lines, [16]);
        let o = t.origin.unwrap();
        assert!(o
            .dropped
            .iter()
            .any(|d| d.reason == "without a submission time"));
        let e = read_philly("[{\"jobid\": 1,}]", "log")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("log:1: field 'json'"), "{e}");
        let e = read_philly("[\n{\"jobid\": \"x\"},\n 7]", "log")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("log:3: field 'entry': invalid type"), "{e}");
        let e = read_philly("[]", "log").unwrap_err().to_string();
        assert_eq!(e, "log: the Philly job log has no jobs");
    }

    #[test]
    fn detection() {
        assert!(looks_like(LOG));
        assert!(looks_like("\u{feff}[{\"jobid\": \"x\"}]"));
        assert!(!looks_like("[{\"job_type\": \"A\", \"attempts\": 1}]"));
        assert!(!looks_like("{\"format\": \"orrery-trace\"}"));
        assert!(!looks_like("[]"));
    }
}
