//! Filters of a trace: a range of submission times, virtual clusters, statuses, and a
//! seeded sample of at most so many jobs.
//!
//! Applied in this order, to any trace:
//!
//! - `from` / `to`: keep jobs submitted at or after `from` and before `to`. A number is
//!   seconds after the trace's first arrival (its arrival times as read); a date-time
//!   (`2017-10-03`, `2017-10-03 12:00:00`, with an optional offset; see [`super::dates`])
//!   is a date of the trace's own clock, for the traces that record dates (Philly,
//!   Helios, Acme).
//! - `vcs`: keep jobs of these virtual clusters (their entity, exactly as written).
//! - `statuses`: keep jobs with these statuses (any case: `Pass`, `completed`...), for the
//!   traces that record them.
//! - `max_jobs`: when more jobs remain, keep that many, drawn uniformly without
//!   replacement (stream `"trace-sample"` of the experiment's seed), in arrival order.
//!
//! When any filter is set the arrivals are re-based so the first kept job arrives at 0
//! (and [`super::timed::Origin::start_s`] moves with it). An empty filter changes nothing.

use serde::{Deserialize, Serialize};

use super::dates::{format_time, parse_time};
use super::pai::choose;
use super::{Trace, WorkloadError};
use crate::rng::Rng;

/// Name used in errors about the filter itself.
pub const FILTER: &str = "trace filter";

/// A point in a trace's time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimePoint {
    /// Seconds after the trace's first arrival.
    Seconds(f64),
    /// A date-time of the trace's clock (`2017-10-03 12:00:00`).
    Date(String),
}

impl TimePoint {
    /// A number of seconds, or else a date-time; `None` if the text is neither.
    pub fn parse(text: &str) -> Option<TimePoint> {
        let t = text.trim();
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(TimePoint::Seconds(v)),
            Ok(_) => None,
            Err(_) => parse_time(t).map(|_| TimePoint::Date(t.to_string())),
        }
    }

    /// The point in seconds after arrival 0 of a trace whose arrival 0 is at date
    /// `start_s` (if it has dates).
    fn offset(&self, start_s: Option<f64>, key: &str) -> Result<f64, WorkloadError> {
        match self {
            TimePoint::Seconds(v) if v.is_finite() => Ok(*v),
            TimePoint::Seconds(v) => Err(WorkloadError::file(
                FILTER,
                format!("{key} {v} is not a finite number of seconds"),
            )),
            TimePoint::Date(d) => {
                let at = parse_time(d).ok_or_else(|| {
                    WorkloadError::file(
                        FILTER,
                        format!("{key} '{d}' is not a date-time (YYYY-MM-DD[ HH:MM:SS]) or a number of seconds"),
                    )
                })?;
                let start = start_s.ok_or_else(|| {
                    WorkloadError::file(
                        FILTER,
                        format!("{key} '{d}' is a date, and this trace records no dates: give seconds after its first arrival"),
                    )
                })?;
                Ok(at - start)
            }
        }
    }
}

/// Which jobs of a trace to keep.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TraceFilter {
    /// Keep jobs submitted at or after this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<TimePoint>,
    /// Keep jobs submitted before this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<TimePoint>,
    /// Keep jobs of these virtual clusters (all when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vcs: Vec<String>,
    /// Keep jobs with these statuses, in any case (all when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statuses: Vec<String>,
    /// Keep at most this many jobs, sampled with the experiment's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_jobs: Option<usize>,
}

impl TraceFilter {
    /// Whether the filter keeps every job.
    pub fn is_empty(&self) -> bool {
        self.from.is_none()
            && self.to.is_none()
            && self.vcs.is_empty()
            && self.statuses.is_empty()
            && self.max_jobs.is_none()
    }

    /// The filter in words, e.g. `submitted from 2017-10-03 to 2017-10-10, vc 6214e9,
    /// status Pass, at most 1000 jobs sampled`.
    pub fn describe(&self) -> String {
        let point = |p: &TimePoint| match p {
            TimePoint::Seconds(v) => format!("{v} s"),
            TimePoint::Date(d) => d.clone(),
        };
        let mut parts = Vec::new();
        match (&self.from, &self.to) {
            (Some(a), Some(b)) => {
                parts.push(format!("submitted from {} to {}", point(a), point(b)))
            }
            (Some(a), None) => parts.push(format!("submitted from {}", point(a))),
            (None, Some(b)) => parts.push(format!("submitted before {}", point(b))),
            (None, None) => {}
        }
        if !self.vcs.is_empty() {
            parts.push(format!("vc {}", self.vcs.join(" or ")));
        }
        if !self.statuses.is_empty() {
            parts.push(format!("status {}", self.statuses.join(" or ")));
        }
        if let Some(n) = self.max_jobs {
            parts.push(format!("at most {n} jobs sampled"));
        }
        parts.join(", ")
    }

    /// The jobs of `trace` the filter keeps (see the module documentation); `seed` seeds
    /// the sample. An error names what is wrong with the filter, or says what each part
    /// kept when no job remains.
    pub fn apply(&self, mut trace: Trace, seed: u64) -> Result<Trace, WorkloadError> {
        if self.is_empty() {
            return Ok(trace);
        }
        if self.max_jobs == Some(0) {
            return Err(WorkloadError::file(FILTER, "max_jobs must be at least 1"));
        }
        let start_s = trace.origin.as_ref().map(|o| o.start_s);
        let from = self
            .from
            .as_ref()
            .map(|p| p.offset(start_s, "from"))
            .transpose()?;
        let to = self
            .to
            .as_ref()
            .map(|p| p.offset(start_s, "to"))
            .transpose()?;
        if let (Some(a), Some(b)) = (from, to) {
            if a >= b {
                return Err(WorkloadError::file(
                    FILTER,
                    "the range is empty: from must come before to",
                ));
            }
        }
        if !self.vcs.is_empty() && trace.jobs.iter().all(|j| j.entity.is_none()) {
            return Err(WorkloadError::file(
                &trace.name,
                "the trace records no virtual cluster (entity) to filter on",
            ));
        }
        let statuses = trace.origin.as_ref().filter(|o| o.has_statuses());
        if !self.statuses.is_empty() && statuses.is_none() {
            return Err(WorkloadError::file(
                &trace.name,
                "the trace records no job status to filter on",
            ));
        }
        let n = trace.jobs.len();
        let mut keep = vec![true; n];
        let mut steps = Vec::new();
        let mut count = |keep: &[bool], what: String| {
            steps.push(format!("{what}: {}", keep.iter().filter(|&&k| k).count()));
        };
        if from.is_some() || to.is_some() {
            for (k, j) in keep.iter_mut().zip(&trace.jobs) {
                *k &= from.is_none_or(|a| j.arrival >= a) && to.is_none_or(|b| j.arrival < b);
            }
            let date = |o: Option<f64>| match (o, start_s) {
                (Some(v), Some(s)) => format_time(s + v),
                (Some(v), None) => format!("{v} s"),
                (None, _) => "-".into(),
            };
            count(
                &keep,
                format!("submitted in [{}, {})", date(from), date(to)),
            );
        }
        if !self.vcs.is_empty() {
            for (k, j) in keep.iter_mut().zip(&trace.jobs) {
                *k &= j.entity.as_ref().is_some_and(|e| self.vcs.contains(e));
            }
            count(&keep, format!("and of vc {}", self.vcs.join(" or ")));
        }
        if let Some(o) = statuses.filter(|_| !self.statuses.is_empty()) {
            for (k, s) in keep.iter_mut().zip(&o.statuses) {
                *k &= self.statuses.iter().any(|w| w.eq_ignore_ascii_case(s));
            }
            count(
                &keep,
                format!("and with status {}", self.statuses.join(" or ")),
            );
        }
        let left: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        if left.is_empty() {
            return Err(WorkloadError::file(
                &trace.name,
                format!(
                    "the filter keeps none of its {n} jobs ({})",
                    steps.join("; ")
                ),
            ));
        }
        if let Some(max) = self.max_jobs {
            let picks = choose(left.len(), max, &mut Rng::for_purpose(seed, "trace-sample"));
            keep = vec![false; n];
            for p in picks {
                if let Some(&i) = left.get(p) {
                    keep[i] = true;
                }
            }
        }
        trace.retain(&keep);
        let base = trace
            .jobs
            .iter()
            .map(|j| j.arrival)
            .fold(f64::INFINITY, f64::min);
        if base.is_finite() {
            for j in &mut trace.jobs {
                j.arrival -= base;
            }
            if let Some(o) = &mut trace.origin {
                o.start_s += base;
            }
        }
        Ok(trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::cluster_log::read_cluster_log;

    // Six jobs over three days of two virtual clusters (invented).
    const LOG: &str = "\
job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
1,u1,vcA,1,4,1,COMPLETED,2020-06-01 00:00:00,2020-06-01 00:00:00,2020-06-01 01:00:00,3600,0
2,u2,vcB,2,8,1,FAILED,2020-06-01 12:00:00,2020-06-01 12:00:00,2020-06-01 12:10:00,600,0
3,u1,vcA,4,16,1,COMPLETED,2020-06-02 00:00:00,2020-06-02 00:00:00,2020-06-02 02:00:00,7200,0
4,u3,vcB,8,32,1,CANCELLED,2020-06-02 06:00:00,2020-06-02 06:00:00,2020-06-02 06:30:00,1800,0
5,u2,vcA,1,4,1,COMPLETED,2020-06-03 00:00:00,2020-06-03 00:00:00,2020-06-03 00:01:40,100,0
6,u3,vcB,1,4,1,COMPLETED,2020-06-03 18:00:00,2020-06-03 18:00:00,2020-06-03 18:00:50,50,0
";

    fn trace() -> Trace {
        read_cluster_log(LOG, "log.csv").unwrap()
    }

    fn lines(t: &Trace) -> Vec<usize> {
        t.lines.clone()
    }

    #[test]
    fn time_range_by_date_and_by_seconds() {
        let f = TraceFilter {
            from: Some(TimePoint::Date("2020-06-01 12:00:00".into())),
            to: Some(TimePoint::Date("2020-06-03".into())),
            ..TraceFilter::default()
        };
        let t = f.apply(trace(), 0).unwrap();
        assert_eq!(lines(&t), [3, 4, 5]);
        // Re-based: the first kept job arrives at 0; the origin moves with it.
        let arrivals: Vec<f64> = t.jobs.iter().map(|j| j.arrival).collect();
        assert_eq!(arrivals, [0.0, 43_200.0, 64_800.0]);
        assert_eq!(
            format_time(t.origin.as_ref().unwrap().start_s),
            "2020-06-01 12:00:00"
        );
        let by_seconds = TraceFilter {
            from: Some(TimePoint::Seconds(43_200.0)),
            to: Some(TimePoint::Seconds(172_800.0)),
            ..TraceFilter::default()
        };
        assert_eq!(by_seconds.apply(trace(), 0).unwrap(), t);
    }

    #[test]
    fn vc_and_status() {
        let f = TraceFilter {
            vcs: vec!["vcB".into()],
            statuses: vec!["completed".into(), "Cancelled".into()],
            ..TraceFilter::default()
        };
        let t = f.apply(trace(), 0).unwrap();
        assert_eq!(lines(&t), [5, 7]);
        assert_eq!(
            t.origin.as_ref().unwrap().statuses,
            ["CANCELLED", "COMPLETED"]
        );
        assert_eq!(t.jobs[0].arrival, 0.0);
        assert_eq!(t.jobs[1].arrival, 36.0 * 3600.0);
    }

    #[test]
    fn sample_is_seeded_and_in_order() {
        let f = TraceFilter {
            max_jobs: Some(3),
            ..TraceFilter::default()
        };
        let a = f.apply(trace(), 5).unwrap();
        assert_eq!(a.jobs.len(), 3);
        assert_eq!(a, f.apply(trace(), 5).unwrap());
        assert!(a.lines.windows(2).all(|w| w[0] < w[1]));
        assert!((0..30).any(|s| f.apply(trace(), s).unwrap().lines != a.lines));
        let all = TraceFilter {
            max_jobs: Some(100),
            ..TraceFilter::default()
        };
        assert_eq!(all.apply(trace(), 5).unwrap(), trace());
    }

    #[test]
    fn errors() {
        let e = |f: TraceFilter| f.apply(trace(), 0).unwrap_err().to_string();
        let none = TraceFilter {
            vcs: vec!["vcA".into()],
            statuses: vec!["FAILED".into()],
            ..TraceFilter::default()
        };
        assert_eq!(
            e(none),
            "log.csv: the filter keeps none of its 6 jobs (and of vc vcA: 3; and with status FAILED: 0)"
        );
        let backwards = TraceFilter {
            from: Some(TimePoint::Seconds(10.0)),
            to: Some(TimePoint::Seconds(5.0)),
            ..TraceFilter::default()
        };
        assert!(e(backwards).contains("from must come before to"));
        let bad_date = TraceFilter {
            to: Some(TimePoint::Date("June".into())),
            ..TraceFilter::default()
        };
        assert!(e(bad_date).starts_with("trace filter: to 'June' is not a date-time"));
        let zero = TraceFilter {
            max_jobs: Some(0),
            ..TraceFilter::default()
        };
        assert!(e(zero).contains("at least 1"));
        // A trace without dates, statuses or entities.
        let plain =
            Trace::parse("job_type,arrival_s,total_steps\nA,0,10\nA,5,10\n", "p.csv").unwrap();
        let dated = TraceFilter {
            from: Some(TimePoint::Date("2020-06-01".into())),
            ..TraceFilter::default()
        };
        let msg = dated.apply(plain.clone(), 0).unwrap_err().to_string();
        assert!(msg.contains("records no dates"), "{msg}");
        let status = TraceFilter {
            statuses: vec!["Pass".into()],
            ..TraceFilter::default()
        };
        let msg = status.apply(plain.clone(), 0).unwrap_err().to_string();
        assert!(msg.contains("no job status"), "{msg}");
        let secs = TraceFilter {
            from: Some(TimePoint::Seconds(1.0)),
            ..TraceFilter::default()
        };
        let t = secs.apply(plain, 0).unwrap();
        assert_eq!((t.lines.clone(), t.jobs[0].arrival), (vec![3], 0.0));
    }

    #[test]
    fn parse_points_and_describe() {
        assert_eq!(TimePoint::parse("3600"), Some(TimePoint::Seconds(3600.0)));
        assert_eq!(
            TimePoint::parse(" 2017-10-03 "),
            Some(TimePoint::Date("2017-10-03".into()))
        );
        assert_eq!(TimePoint::parse("soon"), None);
        assert_eq!(TimePoint::parse("inf"), None);
        let f = TraceFilter {
            from: Some(TimePoint::Date("2017-10-03".into())),
            vcs: vec!["a".into(), "b".into()],
            max_jobs: Some(10),
            ..TraceFilter::default()
        };
        assert_eq!(
            f.describe(),
            "submitted from 2017-10-03, vc a or b, at most 10 jobs sampled"
        );
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(
            json,
            r#"{"from":"2017-10-03","vcs":["a","b"],"max_jobs":10}"#
        );
        assert_eq!(serde_json::from_str::<TraceFilter>(&json).unwrap(), f);
        let secs: TraceFilter = serde_json::from_str(r#"{"to": 86400}"#).unwrap();
        assert_eq!(secs.to, Some(TimePoint::Seconds(86400.0)));
    }
}
