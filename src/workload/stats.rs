//! The shape of a trace: how many jobs, how much GPU time, how large and how long they
//! are, and how arrivals spread over time. Computed from a [`Trace`] alone (no I/O), for
//! `orrery trace-stats` and for charts.
//!
//! For a trace of durations (Philly, Helios, Acme) a job's work is its run time in seconds,
//! so GPU-hours are `duration x GPUs / 3600`. Other traces give work in steps of a
//! profile: their statistics say so and report no GPU-hours.
//!
//! Arrivals are counted per hour and per day. With dates (traces of durations) the bins
//! are calendar hours and days (UTC, or the file's clock when it writes none), the first
//! bin being the one of the first arrival; otherwise they start at arrival 0.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::dates::{format_day, format_time};
use super::Trace;
use crate::math::percentile;
use crate::order;

const HOUR: f64 = 3600.0;
const DAY: f64 = 86_400.0;

/// Intervals of [`TraceStats::work_quantiles`]: the work at every half percent.
pub const QUANTILE_STEPS: usize = 200;

/// Jobs of one GPU count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuCount {
    /// GPUs per job.
    pub gpus: u32,
    /// Jobs of that size.
    pub jobs: usize,
    /// Their GPU-hours (traces of durations).
    pub gpu_hours: Option<f64>,
}

/// Jobs of one value of a label (virtual cluster, status, job type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelCount {
    /// The value.
    pub name: String,
    /// Jobs with it.
    pub jobs: usize,
    /// Their GPU-hours (traces of durations).
    pub gpu_hours: Option<f64>,
}

/// Order statistics of a list of values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Smallest.
    pub min: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// The finite values of `values`, ascending.
fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    order::sort_floats(&mut v);
    v
}

impl Spread {
    /// The spread of `values` (all 0 when empty), percentiles interpolated as numpy does.
    pub fn of(values: &[f64]) -> Self {
        Self::of_sorted(&sorted(values))
    }

    /// The spread of finite values sorted in ascending order.
    fn of_sorted(v: &[f64]) -> Self {
        if v.is_empty() {
            return Spread::default();
        }
        Spread {
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min: v.first().copied().unwrap_or(0.0),
            p50: percentile(v, 50.0),
            p90: percentile(v, 90.0),
            p95: percentile(v, 95.0),
            p99: percentile(v, 99.0),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// Arrivals in one day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DayCount {
    /// The day: `YYYY-MM-DD` with dates, else `day N` (from 0).
    pub day: String,
    /// Jobs submitted that day.
    pub jobs: usize,
    /// Their GPU-hours (traces of durations).
    pub gpu_hours: Option<f64>,
}

/// The shape of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceStats {
    /// The trace's name.
    pub name: String,
    /// Its format (`Philly CSV (Sia)`, ..., or `Orrery/Gavel/Pollux` for traces of steps).
    pub format: String,
    /// Jobs.
    pub jobs: usize,
    /// Whether work is run time in seconds (a trace of durations) rather than steps.
    pub durations: bool,
    /// Rows or entries of the file (traces of durations), with those left out by reason.
    pub rows: Option<usize>,
    /// Rows left out, by reason.
    pub dropped: Vec<LabelCount>,
    /// Total GPU-hours (traces of durations).
    pub gpu_hours: Option<f64>,
    /// Total GPUs asked for, summed over jobs.
    pub gpus_total: u64,
    /// Date of the first arrival (traces with dates).
    pub first_arrival: Option<String>,
    /// Date of the last arrival (traces with dates).
    pub last_arrival: Option<String>,
    /// Seconds from the first arrival to the last.
    pub span_s: f64,
    /// Jobs by GPU count, smallest first.
    pub by_gpus: Vec<GpuCount>,
    /// Spread of the GPU counts.
    pub gpus: Spread,
    /// Spread of the work: seconds for a trace of durations, else steps.
    pub work: Spread,
    /// The work's distribution: its value at the fractions 0, 1/200, ..., 1 of the jobs
    /// ([`QUANTILE_STEPS`] + 1 values, interpolated as numpy does; empty without jobs),
    /// enough to draw its CDF.
    pub work_quantiles: Vec<f64>,
    /// Jobs by virtual cluster (entity), most jobs first; empty when none is recorded.
    pub by_vc: Vec<LabelCount>,
    /// Jobs by status, most first; empty when none is recorded.
    pub by_status: Vec<LabelCount>,
    /// Jobs by job type, most first.
    pub by_type: Vec<LabelCount>,
    /// Date of the start of the first hour bin (traces with dates).
    pub first_hour: Option<String>,
    /// Arrivals in each hour from the first arrival's hour to the last's.
    pub per_hour: Vec<usize>,
    /// Spread of the hourly arrivals (jobs per hour).
    pub jobs_per_hour: Spread,
    /// Arrivals by hour of the day (0 to 23; of the trace's clock with dates).
    pub by_hour_of_day: Vec<usize>,
    /// Arrivals and GPU-hours per day, from the first arrival's day to the last's.
    pub per_day: Vec<DayCount>,
}

/// Sort labels by jobs (most first), then name.
fn labels(map: BTreeMap<String, (usize, f64)>, durations: bool) -> Vec<LabelCount> {
    let mut v: Vec<LabelCount> = map
        .into_iter()
        .map(|(name, (jobs, h))| LabelCount {
            name,
            jobs,
            gpu_hours: durations.then_some(h),
        })
        .collect();
    order::sort_by(&mut v, |a, b| {
        b.jobs.cmp(&a.jobs).then_with(|| a.name.cmp(&b.name))
    });
    v
}

impl TraceStats {
    /// The statistics of `trace`.
    pub fn of(trace: &Trace) -> Self {
        let durations = trace.is_timed();
        let origin = trace.origin.as_ref();
        let start = origin.map(|o| o.start_s);
        let hours =
            |j: &crate::model::job::JobSpec| j.total_steps * f64::from(j.scale_factor) / HOUR;
        let opt = |v: f64| durations.then_some(v);

        let mut by_gpus: BTreeMap<u32, (usize, f64)> = BTreeMap::new();
        let mut by_vc: BTreeMap<String, (usize, f64)> = BTreeMap::new();
        let mut by_status: BTreeMap<String, (usize, f64)> = BTreeMap::new();
        let mut by_type: BTreeMap<String, (usize, f64)> = BTreeMap::new();
        let statuses = origin.filter(|o| o.has_statuses()).map(|o| &o.statuses);
        for (i, j) in trace.jobs.iter().enumerate() {
            let h = hours(j);
            // A label is copied once, when it is first seen.
            let add = |m: &mut BTreeMap<String, (usize, f64)>, k: &str| match m.get_mut(k) {
                Some(e) => {
                    e.0 += 1;
                    e.1 += h;
                }
                None => {
                    m.insert(k.to_string(), (1, h));
                }
            };
            if let Some(vc) = &j.entity {
                add(&mut by_vc, vc);
            }
            if let Some(s) = statuses.and_then(|s| s.get(i)) {
                add(&mut by_status, s);
            }
            add(&mut by_type, &j.job_type);
            let e = by_gpus.entry(j.scale_factor).or_default();
            e.0 += 1;
            e.1 += h;
        }

        // Bins: with dates, aligned on the clock's hours and days.
        let first = trace
            .jobs
            .iter()
            .map(|j| j.arrival)
            .fold(f64::INFINITY, f64::min);
        let first = if first.is_finite() { first } else { 0.0 };
        let last = trace.jobs.iter().map(|j| j.arrival).fold(first, f64::max);
        let clock = |a: f64| start.unwrap_or(0.0) + a;
        let hour0 = (clock(first) / HOUR).floor();
        let day0 = (clock(first) / DAY).floor();
        let bin = |t: f64, width: f64, first_bin: f64| -> usize {
            ((t / width).floor() - first_bin).max(0.0) as usize
        };
        let mut per_hour = vec![0usize; bin(clock(last), HOUR, hour0) + 1];
        let mut day_jobs = vec![(0usize, 0.0f64); bin(clock(last), DAY, day0) + 1];
        let mut by_hour_of_day = vec![0usize; 24];
        for j in &trace.jobs {
            let t = clock(j.arrival);
            if let Some(c) = per_hour.get_mut(bin(t, HOUR, hour0)) {
                *c += 1;
            }
            if let Some(d) = day_jobs.get_mut(bin(t, DAY, day0)) {
                d.0 += 1;
                d.1 += hours(j);
            }
            let hod = ((t.rem_euclid(DAY)) / HOUR).floor() as usize;
            if let Some(c) = by_hour_of_day.get_mut(hod.min(23)) {
                *c += 1;
            }
        }
        let per_day = day_jobs
            .iter()
            .enumerate()
            .map(|(k, &(jobs, h))| DayCount {
                day: match start {
                    Some(_) => format_day((day0 + k as f64) * DAY),
                    None => format!("day {k}"),
                },
                jobs,
                gpu_hours: opt(h),
            })
            .collect();
        let hourly: Vec<f64> = per_hour.iter().map(|&c| c as f64).collect();
        let gpus: Vec<f64> = trace
            .jobs
            .iter()
            .map(|j| f64::from(j.scale_factor))
            .collect();
        let work = sorted(&trace.jobs.iter().map(|j| j.total_steps).collect::<Vec<_>>());
        let work_quantiles = if work.is_empty() {
            Vec::new()
        } else {
            (0..=QUANTILE_STEPS)
                .map(|k| percentile(&work, 100.0 * k as f64 / QUANTILE_STEPS as f64))
                .collect()
        };
        TraceStats {
            name: trace.name.clone(),
            format: origin.map_or_else(
                || "Orrery/Gavel/Pollux (work in steps)".to_string(),
                |o| o.format.label().to_string(),
            ),
            jobs: trace.jobs.len(),
            durations,
            rows: origin.map(|o| o.rows),
            dropped: origin
                .map(|o| {
                    o.dropped
                        .iter()
                        .map(|d| LabelCount {
                            name: d.reason.clone(),
                            jobs: d.rows,
                            gpu_hours: None,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            gpu_hours: opt(trace.jobs.iter().map(hours).sum()),
            gpus_total: trace.jobs.iter().map(|j| u64::from(j.scale_factor)).sum(),
            first_arrival: start.map(|_| format_time(clock(first))),
            last_arrival: start.map(|_| format_time(clock(last))),
            span_s: last - first,
            by_gpus: by_gpus
                .into_iter()
                .map(|(g, (jobs, h))| GpuCount {
                    gpus: g,
                    jobs,
                    gpu_hours: opt(h),
                })
                .collect(),
            gpus: Spread::of(&gpus),
            work: Spread::of_sorted(&work),
            work_quantiles,
            by_vc: labels(by_vc, durations),
            by_status: labels(by_status, durations),
            by_type: labels(by_type, durations),
            first_hour: start.map(|_| format_time(hour0 * HOUR)),
            jobs_per_hour: Spread::of(&hourly),
            per_hour,
            by_hour_of_day,
            per_day,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::cluster_log::read_cluster_log;

    const LOG: &str = "\
timestamp,duration,num_gpus,gpu_time,cluster
2017-10-03 23:30:00,3600,1,3600,a
2017-10-03 23:50:00,7200,4,28800,b
2017-10-04 00:10:00,1800,2,3600,a
2017-10-05 01:00:00,360,1,360,a
";

    #[test]
    fn hand_computed() {
        let t = read_cluster_log(LOG, "p.csv").unwrap();
        let s = TraceStats::of(&t);
        assert_eq!(s.jobs, 4);
        assert!(s.durations);
        // 1 + 8 + 1 + 0.1 GPU-hours.
        assert!((s.gpu_hours.unwrap() - 10.1).abs() < 1e-9);
        assert_eq!(s.gpus_total, 8);
        assert_eq!(s.first_arrival.as_deref(), Some("2017-10-03 23:30:00"));
        assert_eq!(s.last_arrival.as_deref(), Some("2017-10-05 01:00:00"));
        assert_eq!(s.span_s, 91_800.0);
        let g: Vec<_> = s.by_gpus.iter().map(|c| (c.gpus, c.jobs)).collect();
        assert_eq!(g, [(1, 2), (2, 1), (4, 1)]);
        assert_eq!(s.work.max, 7200.0);
        assert_eq!(s.work.min, 360.0);
        assert_eq!(s.work.p50, (1800.0 + 3600.0) / 2.0);
        assert_eq!(s.work_quantiles.len(), QUANTILE_STEPS + 1);
        assert_eq!(s.work_quantiles[0], 360.0);
        assert_eq!(s.work_quantiles[QUANTILE_STEPS / 2], s.work.p50);
        assert_eq!(s.work_quantiles[QUANTILE_STEPS], 7200.0);
        assert!(s.work_quantiles.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(s.by_vc[0].name, "a");
        assert_eq!(s.by_vc[0].jobs, 3);
        assert!(s.by_status.is_empty());
        // Hours from 2017-10-03 23:00 to 2017-10-05 01:00: 27 bins.
        assert_eq!(s.first_hour.as_deref(), Some("2017-10-03 23:00:00"));
        assert_eq!(s.per_hour.len(), 27);
        assert_eq!((s.per_hour[0], s.per_hour[1], s.per_hour[26]), (2, 1, 1));
        assert_eq!(s.per_hour.iter().sum::<usize>(), 4);
        assert_eq!(s.jobs_per_hour.max, 2.0);
        assert_eq!(
            (
                s.by_hour_of_day[23],
                s.by_hour_of_day[0],
                s.by_hour_of_day[1]
            ),
            (2, 1, 1)
        );
        let days: Vec<_> = s.per_day.iter().map(|d| (d.day.as_str(), d.jobs)).collect();
        assert_eq!(
            days,
            [("2017-10-03", 2), ("2017-10-04", 1), ("2017-10-05", 1)]
        );
        assert!((s.per_day[0].gpu_hours.unwrap() - 9.0).abs() < 1e-9);
    }

    #[test]
    fn traces_of_steps() {
        let t = Trace::parse(
            "job_type,arrival_s,total_steps,scale_factor\nA,0,100,2\nB,90000,50,1\n",
            "s.csv",
        )
        .unwrap();
        let s = TraceStats::of(&t);
        assert!(!s.durations && s.gpu_hours.is_none());
        assert_eq!(s.first_arrival, None);
        let days: Vec<_> = s.per_day.iter().map(|d| (d.day.as_str(), d.jobs)).collect();
        assert_eq!(days, [("day 0", 1), ("day 1", 1)]);
        assert_eq!(s.per_hour.len(), 26);
        assert_eq!(s.by_type.len(), 2);
    }
}
