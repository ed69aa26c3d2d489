//! What an import of a public trace says it read: the summaries of Alibaba's spot GPU trace
//! (its node table model by model, its job table by kind and requested model) and of an
//! Acme job table (its GPU jobs by final state, their failures and the file's checks), as
//! [`Block`]s of text, tables and key/value pairs. `orrery import-alibaba-spot` and
//! `orrery import-acme` print them; the page's Import panel shows the same blocks as HTML,
//! cell for cell.

use crate::model::cluster::ClusterSpec;
use crate::workload::acme::{AcmeTable, FailureSummary};
use crate::workload::alibaba_spot::{JobTable, NodeTable};
use crate::workload::timed::Dropped;
use crate::workload::Trace;

/// One part of a summary.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A line of text.
    Line(String),
    /// A table: its header and rows (each as long as the header).
    Table {
        /// Column titles.
        header: &'static [&'static str],
        /// The rows' cells.
        rows: Vec<Vec<String>>,
    },
    /// Named values, one per line.
    Pairs(Vec<(String, String)>),
}

/// Columns of the node table's summary.
pub const NODE_COLUMNS: &[&str] = &[
    "gpu_model",
    "GPU type",
    "nodes",
    "GPUs",
    "GPUs per node (nodes)",
    "vCPUs",
    "per server",
];

/// Columns of the job table's summary.
pub const JOB_COLUMNS: &[&str] = &[
    "kind / requested model",
    "jobs",
    "share",
    "GPU-hours",
    "share",
];

/// Columns of an Acme table's states.
pub const ACME_COLUMNS: &[&str] = &["state", "GPU jobs", "share", "GPU-hours of run", "share"];

/// `part` as a percentage of `whole` with one decimal; `-` without a whole.
fn share(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1}%", 100.0 * part / whole)
    } else {
        "-".into()
    }
}

/// `1 (902), 4 (10), 8 (77)`: GPUs per node (nodes).
fn sizes(sizes: &[(u32, u64)]) -> String {
    let parts: Vec<String> = sizes.iter().map(|(g, n)| format!("{g} ({n})")).collect();
    parts.join(", ")
}

/// Rows left out, by reason: `2 without GPUs, 1 of no positive duration`, or `none`.
pub fn dropped(d: &[Dropped]) -> String {
    if d.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = d
        .iter()
        .map(|d| format!("{} {}", d.rows, d.reason))
        .collect();
    parts.join(", ")
}

/// The node table's summary: its size, each model's nodes, GPUs, node sizes, vCPUs and
/// GPUs per server, and the cluster it makes.
pub fn node_blocks(nodes: &NodeTable, cluster: &ClusterSpec) -> Vec<Block> {
    let rows = nodes
        .models
        .iter()
        .map(|m| {
            vec![
                m.model.clone(),
                m.gpu_type.clone(),
                m.nodes.to_string(),
                m.gpus.to_string(),
                sizes(&m.sizes),
                format!("{}", m.cpus),
                m.per_server().to_string(),
            ]
        })
        .collect();
    vec![
        Block::Line(format!(
            "node table {}: {} nodes, {} GPUs, {} GPU models",
            nodes.name,
            nodes.nodes(),
            nodes.gpus(),
            nodes.models.len()
        )),
        Block::Table {
            header: NODE_COLUMNS,
            rows,
        },
        Block::Line(format!("cluster: {cluster}")),
    ]
}

/// The job table's summary: the jobs kept (before sampling) and their GPU-hours, HP and
/// Spot and by requested model, what was left out, and the trace's jobs.
pub fn job_blocks(t: &JobTable) -> Vec<Block> {
    let s = &t.summary;
    let kept = s.hp.jobs + s.spot.jobs;
    let gpu_s = s.hp.gpu_s + s.spot.gpu_s;
    let row = |name: &str, n: usize, g: f64| {
        vec![
            name.to_string(),
            n.to_string(),
            share(n as f64, kept as f64),
            format!("{:.1}", g / 3600.0),
            share(g, gpu_s),
        ]
    };
    let mut rows = vec![
        row("HP", s.hp.jobs, s.hp.gpu_s),
        row("Spot", s.spot.jobs, s.spot.gpu_s),
    ];
    rows.extend(s.models.iter().map(|(m, v)| row(m, v.jobs, v.gpu_s)));
    let spot = t.trace.jobs.iter().filter(|j| j.spot).count();
    vec![
        Block::Line(format!(
            "job table {}: {} rows, {kept} jobs kept from {} organizations, submitted over {:.2} days (left out: {})",
            t.trace.name,
            s.rows,
            s.organizations,
            s.span_s / 86_400.0,
            dropped(&s.dropped)
        )),
        Block::Table {
            header: JOB_COLUMNS,
            rows,
        },
        Block::Line(format!(
            "trace: {} jobs ({} HP, {spot} Spot)",
            t.trace.jobs.len(),
            t.trace.jobs.len() - spot
        )),
    ]
}

/// A rate per node-day: four decimals, or three significant digits when below 0.01.
fn rate(v: Option<f64>) -> String {
    match v {
        None => "-".to_string(),
        Some(r) if r == 0.0 || r >= 0.01 => format!("{r:.4}"),
        Some(r) => format!("{r:.3e}"),
    }
}

/// An Acme table's summary: its rows, GPU jobs by final state with their run's GPU-hours,
/// its failures and their rates per node-day, the file's checks of its own columns, and
/// the trace of its GPU jobs.
pub fn acme_blocks(t: &AcmeTable, s: &FailureSummary, trace: &Trace) -> Vec<Block> {
    let gpu_s: f64 = s.states.iter().map(|(_, v)| v.gpu_s).sum();
    let rows = s
        .states
        .iter()
        .map(|(name, v)| {
            vec![
                name.clone(),
                v.jobs.to_string(),
                share(v.jobs as f64, s.gpu_jobs as f64),
                format!("{:.1}", v.gpu_s / 3600.0),
                share(v.gpu_s, gpu_s),
            ]
        })
        .collect();
    let of = |n: usize, rows: usize| format!("{n} of {rows} rows");
    let pair = |k: &str, v: String| (k.to_string(), v);
    let pairs = vec![
        pair(
            "FAILED",
            format!(
                "{} jobs, {:.1} GPU-hours (user and framework errors included)",
                s.failed.jobs,
                s.failed.gpu_s / 3600.0
            ),
        ),
        pair(
            "NODE_FAIL",
            format!(
                "{} jobs, {:.1} GPU-hours",
                s.node_fail.jobs,
                s.node_fail.gpu_s / 3600.0
            ),
        ),
        pair(
            "node-days of run",
            format!("{:.2} (node_num x run time of the GPU jobs)", s.node_days),
        ),
        pair(
            "NODE_FAIL rate",
            format!(
                "{} jobs per node-day of run (a lower bound of node failures under jobs)",
                rate(s.node_fail_per_node_day)
            ),
        ),
        pair(
            "FAILED rate",
            format!(
                "{} jobs per node-day of run (not a hardware rate)",
                rate(s.failed_per_node_day)
            ),
        ),
        pair("duration = run", of(s.duration_is_run, s.duration_rows)),
        pair(
            "duration = queue + run",
            of(s.duration_is_queue_and_run, s.duration_rows),
        ),
        pair(
            "gpu_time = duration x gpu_num",
            of(s.gpu_time_is_duration_x_gpus, s.gpu_time_rows),
        ),
        pair(
            "FAILED at fail_time",
            if s.failed_with_fail_time == 0 {
                "no FAILED job records a fail_time".to_string()
            } else {
                format!(
                    "{} of the {} FAILED jobs with a fail_time end then",
                    s.failed_at_end, s.failed_with_fail_time
                )
            },
        ),
    ];
    let left = trace
        .origin
        .as_ref()
        .map_or("none".to_string(), |o| dropped(&o.dropped));
    vec![
        Block::Line(format!(
            "Acme job trace {} ({:?} schema): {} rows, {} GPU jobs, {} CPU jobs",
            t.name, s.schema, s.rows, s.gpu_jobs, s.cpu_jobs
        )),
        Block::Table {
            header: ACME_COLUMNS,
            rows,
        },
        Block::Pairs(pairs),
        Block::Line(format!(
            "trace: {} jobs, run time end - start (left out: {left})",
            trace.jobs.len()
        )),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::acme::{read_acme, AcmeSampling};
    use crate::workload::alibaba_spot::{read_jobs, read_nodes, JobSampling};

    #[test]
    fn spot_blocks_by_model_and_kind() {
        let nodes = read_nodes(
            "gpu_model,gpu_capacity_num,cpu_num\nA10,1,128\nA10,1,64\nH800,8,192\n",
            "n.csv",
        )
        .unwrap();
        let cluster = nodes.cluster().unwrap();
        let b = node_blocks(&nodes, &cluster);
        assert_eq!(
            b[0],
            Block::Line("node table n.csv: 3 nodes, 10 GPUs, 2 GPU models".into())
        );
        let Block::Table { rows, .. } = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(rows[0], ["A10", "a10", "2", "2", "1 (2)", "192", "1"]);
        assert_eq!(b[2], Block::Line("cluster: a10:2,h800:8/8".into()));

        let jobs = "gpu_model,gpu_request,worker_num,submit_time,duration,job_type\n\
                    A10,1,1,0,3600,HP\nH800,1,8,60,1800,Spot\nH800,1,16,60,10,Spot\n";
        let t = read_jobs(jobs, "j.csv", Some(&cluster), &JobSampling::default()).unwrap();
        let b = job_blocks(&t);
        let Block::Table { rows, .. } = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(rows[0], ["HP", "1", "50.0%", "1.0", "20.0%"]);
        assert_eq!(rows[1], ["Spot", "1", "50.0%", "4.0", "80.0%"]);
        assert_eq!(rows[3], ["H800", "1", "50.0%", "4.0", "80.0%"]);
        assert_eq!(b[2], Block::Line("trace: 2 jobs (1 HP, 1 Spot)".into()));
        let Block::Line(title) = &b[0] else {
            panic!("{b:?}")
        };
        assert!(
            title.ends_with("(left out: 1 needing more GPUs than their model has)"),
            "{title}"
        );
    }

    #[test]
    fn acme_blocks_by_state() {
        let text = "gpu_num,node_num,state,submit_time,start_time,end_time\n\
                    8,1,FAILED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 01:00:10+08:00\n\
                    8,1,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 03:00:10+08:00\n\
                    0,1,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 03:00:10+08:00\n";
        let t = read_acme(text, "a.csv").unwrap();
        let s = t.summary();
        let trace = t.trace(&AcmeSampling::default()).unwrap();
        let b = acme_blocks(&t, &s, &trace);
        let Block::Table { rows, .. } = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(rows[0], ["COMPLETED", "1", "50.0%", "24.0", "75.0%"]);
        assert_eq!(rows[1], ["FAILED", "1", "50.0%", "8.0", "25.0%"]);
        let Block::Pairs(p) = &b[2] else {
            panic!("{b:?}")
        };
        assert_eq!(
            p[4].1,
            "6.0000 jobs per node-day of run (not a hardware rate)"
        );
        assert_eq!(
            b[3],
            Block::Line("trace: 2 jobs, run time end - start (left out: 1 CPU jobs)".into())
        );
    }
}
