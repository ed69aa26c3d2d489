//! Reader of cluster job tables in CSV that record each job's submission, GPUs and
//! duration: Helios, Acme and Philly as Sia's artifact processed it.
//!
//! # Input formats
//!
//! Each has a header row; columns are found by name (any case, any order) and the others
//! are ignored.
//!
//! - Helios (github.com/S-Lab-System-Group/HeliosData, SenseTime, 2020), `cluster_log.csv`
//!   of each cluster (Earth, Saturn, Uranus, Venus): `job_id,user,vc,gpu_num,cpu_num,
//!   node_num,state,submit_time,start_time,end_time,duration,queue`. `state` is
//!   `COMPLETED`, `CANCELLED`, `FAILED`, `TIMEOUT` or `NODE_FAIL`; `duration` is
//!   `end_time - start_time` in seconds; times are `YYYY-MM-DD HH:MM:SS`.
//! - Acme (github.com/InternLM/AcmeTrace, Shanghai AI Lab, 2023), `trace_seren.csv`:
//!   `job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,
//!   duration,queue,gpu_time`; `trace_kalos.csv` adds `mem_per_pod_GB,
//!   shared_mem_per_pod,fail_time,stop_time`. `type` is the workload kind (`Pretrain`,
//!   `SFT`, `Evaluation`, `Debug`, `Other`...); times carry an offset
//!   (`2023-03-01 00:18:22+08:00`).
//! - Philly as processed by Sia's artifact (siasosp23/artifacts): `timestamp,duration,
//!   num_gpus,gpu_time,cluster`, one row per job: submission, seconds, GPUs, GPU-seconds,
//!   virtual cluster.
//!
//! Which one a file is: `num_gpus` with `timestamp` and `duration` is Sia's Philly CSV;
//! `gpu_num` with `submit_time` is Helios when there is a `vc` column, Acme otherwise.
//!
//! # Columns read and conventions
//!
//! - Submission: `submit_time` (`timestamp`), a date-time as [`super::dates`] reads it or a
//!   number of seconds.
//! - GPUs: `gpu_num` (`num_gpus`), a whole number; rows with 0 (CPU jobs) are left out.
//! - Duration: `duration` in seconds; when it is empty (or the column absent), `end_time -
//!   start_time`. Rows without one, or with none positive, are left out. Acme's Kalos table
//!   (its header has `fail_time` or `stop_time`, as [`super::acme`] tells it) records
//!   `duration = end_time - submit_time`, the queue included: its duration is `end_time -
//!   start_time` whenever it has those columns, and its `duration` is only checked to be a
//!   number.
//! - Virtual cluster (the job's entity): `vc` (`cluster`); status: `state`; job type:
//!   Acme's `type`, else the format's name.
//! - Blank lines and lines starting with `#` are skipped, quoted fields read as
//!   [`super::csv`] reads them.
//!
//! The rest (ordering, arrivals) is [`super::timed`]'s. Errors name the file, line and
//! column.

use super::csv::Records;
use super::dates::parse_time;
use super::timed::{assemble, Drops, TimedFormat, TimedJob};
use super::{Trace, WorkloadError};

/// The format of a CSV header (its columns, trimmed and in lower case), if it is one of
/// these job tables.
pub fn detect(columns: &[String]) -> Option<TimedFormat> {
    let has = |c: &str| columns.iter().any(|h| h == c);
    if has("num_gpus") && has("timestamp") && has("duration") {
        Some(TimedFormat::PhillyCsv)
    } else if has("gpu_num") && has("submit_time") {
        Some(if has("vc") {
            TimedFormat::Helios
        } else {
            TimedFormat::Acme
        })
    } else {
        None
    }
}

/// Where the columns read are.
struct Columns {
    submit: (usize, &'static str),
    gpus: (usize, &'static str),
    duration: Option<usize>,
    start: Option<usize>,
    end: Option<usize>,
    vc: Option<usize>,
    status: Option<usize>,
    kind: Option<usize>,
    width: usize,
    /// Acme's Kalos table with its start and end columns: the duration is `end_time -
    /// start_time`, not the `duration` column (which holds the queue too).
    run_from_times: bool,
}

/// Read a Helios, Acme or Sia Philly job table (see the module documentation).
pub fn read_cluster_log(text: &str, file: &str) -> Result<Trace, WorkloadError> {
    let mut records = Records::new(text, ',');
    let Some((header_line, header)) = records.next_record() else {
        return Err(WorkloadError::file(file, "no header"));
    };
    let names: Vec<String> = header
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let Some(format) = detect(&names) else {
        return Err(WorkloadError::file(
            file,
            "not a Helios, Acme or Philly (Sia) job table",
        ));
    };
    let mut cols = columns(&names, file, header_line)?;
    let kalos =
        format == TimedFormat::Acme && names.iter().any(|n| n == "fail_time" || n == "stop_time");
    cols.run_from_times = kalos && cols.start.is_some() && cols.end.is_some();
    let mut found = Vec::new();
    let mut drops = Drops::default();
    let mut rows = 0;
    while let Some((line, fields)) = records.next_record() {
        rows += 1;
        if fields.len() != cols.width {
            return Err(WorkloadError::field(
                file,
                line,
                "row",
                format!(
                    "expected {} fields (as the header), found {}",
                    cols.width,
                    fields.len()
                ),
            ));
        }
        let get = |i: usize| fields.get(i).map_or("", str::trim);
        let opt = |i: Option<usize>| i.map(get).filter(|v| !v.is_empty());
        let gpus = whole(file, line, cols.gpus.1, get(cols.gpus.0))?;
        let submit = time(file, line, cols.submit.1, get(cols.submit.0))?;
        let recorded = match cols.duration {
            Some(i) => number(file, line, "duration", get(i))?,
            None => None,
        };
        let mut duration = recorded.filter(|_| !cols.run_from_times);
        if duration.is_none() {
            if let (Some(s), Some(e)) = (cols.start, cols.end) {
                let s = time(file, line, "start_time", get(s))?;
                let e = time(file, line, "end_time", get(e))?;
                duration = s.zip(e).map(|(s, e)| e - s);
            }
        }
        let reason = match (gpus, submit, duration) {
            (0, ..) => Some("without GPUs"),
            (_, None, _) => Some("without a submission time"),
            (_, _, None) => Some("without a duration"),
            (_, _, Some(d)) if d <= 0.0 => Some("of no positive duration"),
            _ => None,
        };
        if let Some(r) = reason {
            drops.add(r);
            continue;
        }
        let (Some(submit_s), Some(duration_s)) = (submit, duration) else {
            continue;
        };
        found.push(TimedJob {
            line,
            submit_s,
            duration_s,
            gpus,
            vc: opt(cols.vc).map(str::to_string),
            status: opt(cols.status).unwrap_or("").to_string(),
            kind: opt(cols.kind).map(str::to_string),
        });
    }
    assemble(file, format, found, rows, drops)
}

fn columns(names: &[String], file: &str, line: usize) -> Result<Columns, WorkloadError> {
    let find = |aliases: &[&'static str]| {
        aliases
            .iter()
            .find_map(|a| names.iter().position(|n| n == a).map(|i| (i, *a)))
    };
    let need = |aliases: &[&'static str]| {
        find(aliases).ok_or_else(|| {
            let name = aliases.first().copied().unwrap_or("?");
            WorkloadError::field(file, line, name, "missing column")
        })
    };
    let cols = Columns {
        submit: need(&["submit_time", "timestamp"])?,
        gpus: need(&["gpu_num", "num_gpus"])?,
        duration: find(&["duration"]).map(|c| c.0),
        start: find(&["start_time"]).map(|c| c.0),
        end: find(&["end_time"]).map(|c| c.0),
        vc: find(&["vc", "cluster"]).map(|c| c.0),
        status: find(&["state", "status"]).map(|c| c.0),
        kind: find(&["type"]).map(|c| c.0),
        width: names.len(),
        run_from_times: false,
    };
    if cols.duration.is_none() && (cols.start.is_none() || cols.end.is_none()) {
        return Err(WorkloadError::field(
            file,
            line,
            "duration",
            "missing column (and no start_time and end_time to take it from)",
        ));
    }
    Ok(cols)
}

/// A finite number; `None` when empty or `NaN` (not recorded).
fn number(file: &str, line: usize, field: &str, text: &str) -> Result<Option<f64>, WorkloadError> {
    if text.is_empty() || text.eq_ignore_ascii_case("nan") || text == "None" {
        return Ok(None);
    }
    let v: f64 = text.parse().map_err(|_| {
        WorkloadError::field(file, line, field, format!("'{text}' is not a number"))
    })?;
    if !v.is_finite() {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("'{text}' is not a finite number"),
        ));
    }
    Ok(Some(v))
}

/// A whole number of GPUs; 0 when not recorded.
fn whole(file: &str, line: usize, field: &str, text: &str) -> Result<u32, WorkloadError> {
    let v = number(file, line, field, text)?.unwrap_or(0.0);
    if v < 0.0 || v.fract() != 0.0 || v > f64::from(u32::MAX) {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("'{text}' is not a whole number of GPUs"),
        ));
    }
    Ok(v as u32)
}

/// A date-time or a number of seconds; `None` when not recorded.
fn time(file: &str, line: usize, field: &str, text: &str) -> Result<Option<f64>, WorkloadError> {
    if text.is_empty() || text.eq_ignore_ascii_case("nan") || text == "None" || text == "NaT" {
        return Ok(None);
    }
    if let Ok(v) = text.parse::<f64>() {
        if v.is_finite() {
            return Ok(Some(v));
        }
    }
    parse_time(text).map(Some).ok_or_else(|| {
        WorkloadError::field(
            file,
            line,
            field,
            format!("'{text}' is not a date-time (YYYY-MM-DD HH:MM:SS) or a number of seconds"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(h: &str) -> Vec<String> {
        h.split(',').map(str::to_string).collect()
    }

    #[test]
    fn detection() {
        let d = |h: &str| detect(&cols(h));
        assert_eq!(
            d("timestamp,duration,num_gpus,gpu_time,cluster"),
            Some(TimedFormat::PhillyCsv)
        );
        assert_eq!(
            d("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue"),
            Some(TimedFormat::Helios)
        );
        assert_eq!(
            d("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time"),
            Some(TimedFormat::Acme)
        );
        assert_eq!(d("job_type,arrival_s,total_steps"), None);
        assert_eq!(d("name,time,application,num_replicas,batch_size"), None);
    }

    #[test]
    fn duration_from_start_and_end_when_absent() {
        let text = "submit_time,gpu_num,start_time,end_time,duration,vc\n\
                    2020-06-09 18:00:00,2,2020-06-09 18:00:10,2020-06-09 18:01:10,,vcA\n\
                    2020-06-09 18:00:05,1,2020-06-09 18:00:10,,,vcB\n\
                    100,1,,,30,vcB\n";
        let t = read_cluster_log(text, "h.csv").unwrap();
        let got: Vec<_> = t
            .jobs
            .iter()
            .map(|j| (j.total_steps, j.scale_factor))
            .collect();
        // The row of seconds (100) sorts first: its date is 1970.
        assert_eq!(got, [(30.0, 1), (60.0, 2)]);
        let o = t.origin.unwrap();
        assert_eq!(o.dropped[0].reason, "without a duration");
        assert!(!o.has_statuses());
    }

    #[test]
    fn kalos_duration_is_end_minus_start_not_the_queue_too() {
        let kalos = "state,gpu_num,submit_time,start_time,end_time,fail_time,duration,queue\n\
                     FAILED,8,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,18,10.0\n\
                     COMPLETED,8,2023-05-17 11:02:00+00:00,,,,30,5.0\n";
        let t = read_cluster_log(kalos, "k.csv").unwrap();
        let steps: Vec<f64> = t.jobs.iter().map(|j| j.total_steps).collect();
        assert_eq!(steps, [8.0]);
        let o = t.origin.unwrap();
        assert_eq!(o.dropped[0].reason, "without a duration");
        let bad = kalos.replace(",18,", ",x,");
        assert!(read_cluster_log(&bad, "k.csv").is_err());
        // Seren's table (no fail_time, no stop_time) keeps its duration column.
        let seren = "state,gpu_num,submit_time,start_time,end_time,duration,queue\n\
                     FAILED,8,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,18,10.0\n";
        let t = read_cluster_log(seren, "s.csv").unwrap();
        assert_eq!(t.jobs[0].total_steps, 18.0);
    }

    #[test]
    fn errors_name_line_and_column() {
        let h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
        let cases = [
            ("2017-10-09 07:01:55,66.0,1.5,66.0,c\n", "x:2: field 'num_gpus': '1.5' is not a whole number of GPUs"),
            ("2017-10-09 07:01:55,sixty,1,66.0,c\n", "x:2: field 'duration': 'sixty' is not a number"),
            ("2017-10-09,66.0,1,66.0,c\n\n2017-10-9 07:01:55,66.0,1,66.0,c\n", "x:4: field 'timestamp': '2017-10-9 07:01:55' is not a date-time (YYYY-MM-DD HH:MM:SS) or a number of seconds"),
            ("2017-10-09 07:01:55,66.0,1,66.0\n", "x:2: field 'row': expected 5 fields (as the header), found 4"),
            ("2017-10-09 07:01:55,66.0,0,0,c\n", "x: none of its 1 jobs can run: 1 without GPUs"),
        ];
        for (rows, want) in cases {
            let e = read_cluster_log(&format!("{h}{rows}"), "x").unwrap_err();
            assert_eq!(e.to_string(), want);
        }
        let e = read_cluster_log("submit_time,gpu_num,vc\n1,1,a\n", "x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x:1: field 'duration': missing column (and no start_time and end_time to take it from)"
        );
    }
}
