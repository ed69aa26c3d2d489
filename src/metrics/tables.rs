//! Results as tables: per-job and per-round CSV, the summaries' CSV, and per-round series
//! binned for charts.

use super::records::SeriesPoint;
use super::summary::Summary;
use super::Recorder;
use crate::model::cluster::ClusterSpec;
use crate::workload::csv::quote;

impl Recorder {
    /// Per-job rows as CSV: id, arrival, first start, finish, JCT and rho.
    pub fn jobs_csv(&self, isolated_jct: Option<&[Option<f64>]>) -> String {
        let mut out =
            String::from("job_id,arrival_s,start_s,finish_s,jct_s,rho,restarts,preemptions\n");
        let f = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
        for r in &self.jobs {
            let rho =
                isolated_jct.and_then(|iso| Some(r.jct()? / iso.get(r.id).copied().flatten()?));
            out.push_str(&format!(
                "{},{:.3},{},{},{},{},{},{}\n",
                r.id,
                r.arrival,
                f(r.first_start),
                f(r.finish),
                f(r.jct()),
                rho.map(|x| format!("{x:.6}")).unwrap_or_default(),
                r.restarts,
                r.preemptions
            ));
        }
        out
    }

    /// Per-round rows as CSV: round, start, end, active and running jobs, busy GPUs per type.
    pub fn series_csv(&self, cluster: &ClusterSpec) -> String {
        series_csv(&self.series, cluster)
    }
}

/// Time-weighted averages of a per-round quantity over `bins` equal spans of the run, so
/// that charts of long runs show the trend rather than every round's jitter.
pub fn binned(
    series: &[SeriesPoint],
    bins: usize,
    value: impl Fn(&SeriesPoint) -> f64,
) -> Vec<(f64, f64)> {
    let t0 = series.first().map_or(0.0, |p| p.start);
    let t1 = series.iter().map(|p| p.end).fold(t0, f64::max);
    if series.is_empty() || t1 <= t0 || bins == 0 {
        return Vec::new();
    }
    let width = (t1 - t0) / bins as f64;
    let mut sum = vec![0.0; bins];
    let mut weight = vec![0.0; bins];
    for p in series {
        let v = value(p);
        let (mut a, b) = (p.start, p.end);
        while a < b {
            let k = (((a - t0) / width) as usize).min(bins - 1);
            let edge = (t0 + (k + 1) as f64 * width).min(b);
            let w = (edge - a).max(0.0);
            sum[k] += v * w;
            weight[k] += w;
            if edge <= a {
                break;
            }
            a = edge;
        }
    }
    (0..bins)
        .filter(|&k| weight[k] > 0.0)
        .map(|k| (t0 + (k as f64 + 0.5) * width, sum[k] / weight[k]))
        .collect()
}

/// Per-round rows as CSV: round, start, end, active and running jobs, busy GPUs per type.
pub fn series_csv(series: &[SeriesPoint], cluster: &ClusterSpec) -> String {
    let mut out = String::from("round,start_s,end_s,active,running");
    for t in &cluster.types {
        out.push_str(&format!(",busy_{}", t.name));
    }
    out.push('\n');
    for (i, p) in series.iter().enumerate() {
        out.push_str(&format!(
            "{i},{:.3},{:.3},{},{}",
            p.start, p.end, p.active, p.running
        ));
        for b in &p.busy_gpus {
            out.push_str(&format!(",{b}"));
        }
        out.push('\n');
    }
    out
}

/// A number for CSV: the shortest text that reads back as the same value.
pub fn csv_num(v: f64) -> String {
    v.to_string()
}

/// An optional number for CSV (empty when absent).
pub fn csv_opt(v: Option<f64>) -> String {
    v.map(csv_num).unwrap_or_default()
}

/// Summaries as CSV, one row each (every field of [`Summary`]; utilization per type after
/// overall utilization).
pub fn summaries_csv(summaries: &[Summary]) -> String {
    let types: Vec<String> = summaries
        .first()
        .map(|s| s.utilization_by_type.keys().cloned().collect())
        .unwrap_or_default();
    let mut header: Vec<String> = [
        "policy",
        "num_jobs",
        "unfinished",
        "avg_jct_s",
        "median_jct_s",
        "p95_jct_s",
        "p99_jct_s",
        "makespan_s",
        "avg_wait_s",
        "utilization",
    ]
    .map(String::from)
    .to_vec();
    header.extend(types.iter().map(|t| quote(&format!("utilization_{t}"))));
    header.extend(
        [
            "max_rho",
            "mean_rho",
            "jain_index",
            "restarts",
            "preemptions",
            "gpu_hours",
            "cost",
            "rounds",
            "policy_failures",
            "resizes",
            "avg_gpus",
            "avg_batch_size",
            "p99_wait_s",
            "time_lost_s",
            "suspensions",
            "avg_first_wait_s",
            "avg_workers",
            "avg_ps",
            "total_reward",
            "cpu_utilization",
        ]
        .map(String::from),
    );
    let mut out = header.join(",") + "\n";
    for s in summaries {
        let mut row = vec![
            quote(&s.policy),
            s.num_jobs.to_string(),
            s.unfinished.to_string(),
            csv_num(s.avg_jct_s),
            csv_num(s.median_jct_s),
            csv_num(s.p95_jct_s),
            csv_num(s.p99_jct_s),
            csv_num(s.makespan_s),
            csv_num(s.avg_wait_s),
            csv_num(s.utilization),
        ];
        row.extend(
            types
                .iter()
                .map(|t| csv_opt(s.utilization_by_type.get(t).copied())),
        );
        row.extend([
            csv_opt(s.max_rho),
            csv_opt(s.mean_rho),
            csv_opt(s.jain_index),
            s.restarts.to_string(),
            s.preemptions.to_string(),
            csv_num(s.gpu_hours),
            csv_opt(s.cost),
            s.rounds.to_string(),
            s.policy_failures.to_string(),
            s.elastic.map(|e| e.resizes.to_string()).unwrap_or_default(),
            csv_opt(s.elastic.map(|e| e.avg_gpus)),
            csv_opt(s.elastic.map(|e| e.avg_batch_size)),
            csv_num(s.p99_wait_s),
            csv_num(s.time_lost_s),
            s.preemption
                .map(|p| p.suspensions.to_string())
                .unwrap_or_default(),
            csv_opt(s.preemption.map(|p| p.avg_first_wait_s)),
            csv_opt(s.ps.map(|p| p.avg_workers)),
            csv_opt(s.ps.map(|p| p.avg_ps)),
            csv_opt(s.ps.map(|p| p.total_reward)),
            csv_opt(s.ps.map(|p| p.cpu_utilization)),
        ]);
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}
