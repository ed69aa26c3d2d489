//! `orrery import-alibaba-spot` and `orrery import-acme`: public cluster traces read into
//! an Orrery trace (and, for Alibaba's, a cluster and a profile), with a summary of what
//! they hold. The summary goes to standard output, or to standard error when the trace
//! does.

use super::*;
use orrery::workload::acme::{read_acme, AcmeSampling, AcmeTable, FailureSummary};
use orrery::workload::alibaba_spot::{self, JobSampling, JobTable, NodeTable};
use orrery::workload::timed::Dropped;

/// Flags of `orrery import-alibaba-spot`.
#[derive(Args, Debug)]
pub(crate) struct ImportAlibabaSpotArgs {
    /// node_info_df.csv (gpu_model, gpu_capacity_num, cpu_num, node_name): the cluster.
    #[arg(long, value_name = "FILE")]
    pub(crate) nodes: PathBuf,
    /// job_info_df.csv (job_name, organization, gpu_model, cpu_request, gpu_request,
    /// worker_num, submit_time, duration, job_type): the trace.
    #[arg(long, value_name = "FILE")]
    pub(crate) jobs: Option<PathBuf>,
    /// Jobs to keep (sampled uniformly, in arrival order) [default: all].
    #[arg(long, value_name = "N", requires = "jobs")]
    pub(crate) max_jobs: Option<usize>,
    /// Seed of the sampling.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Output format of the trace.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    pub(crate) format: TraceFormat,
    /// Write the trace to FILE instead of standard output.
    #[arg(long, value_name = "FILE", requires = "jobs")]
    pub(crate) out: Option<PathBuf>,
    /// Write the cluster (`type:count/per_server,...`, as --cluster takes it) to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) cluster_out: Option<PathBuf>,
    /// Write the throughput profile (each job makes 1 step/s on its requested GPU model
    /// only) to FILE.
    #[arg(long, value_name = "FILE", requires = "jobs")]
    pub(crate) profile_out: Option<PathBuf>,
}

/// Flags of `orrery import-acme`.
#[derive(Args, Debug)]
pub(crate) struct ImportAcmeArgs {
    /// Acme's trace_seren.csv or trace_kalos.csv.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// Jobs to keep (sampled uniformly, in arrival order) [default: all].
    #[arg(long, value_name = "N")]
    pub(crate) max_jobs: Option<usize>,
    /// Seed of the sampling.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Output format of the trace.
    #[arg(long, value_enum, default_value_t = TraceFormat::Csv)]
    pub(crate) format: TraceFormat,
    /// Write the trace to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

fn input(e: impl ToString) -> CliError {
    CliError::Input(e.to_string())
}

fn trace_text(trace: &Trace, format: TraceFormat) -> String {
    match format {
        TraceFormat::Csv => trace.to_csv(),
        TraceFormat::Json => format!("{}\n", trace.to_json()),
    }
}

/// Write the trace to `out` (the report to standard output) or to standard output (the
/// report to standard error).
fn emit(trace_text: &str, out: Option<(PathBuf, File)>, report: &str) -> CliResult<()> {
    match out {
        Some(out) => {
            write_file(out, trace_text)?;
            print_stdout(report)
        }
        None => {
            note(report.trim_end());
            print_stdout(trace_text)
        }
    }
}

pub(crate) fn cmd_import_alibaba_spot(a: ImportAlibabaSpotArgs) -> CliResult<()> {
    let node_text = read_file(&a.nodes, "node table")?;
    let job_text = a
        .jobs
        .as_deref()
        .map(|p| read_file(p, "job table"))
        .transpose()?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let cluster_out = a.cluster_out.as_deref().map(create_output).transpose()?;
    let profile_out = a.profile_out.as_deref().map(create_output).transpose()?;

    let nodes =
        alibaba_spot::read_nodes(&node_text, &a.nodes.display().to_string()).map_err(input)?;
    let cluster = nodes.cluster().map_err(input)?;
    let mut report = node_report(&nodes, &cluster);
    if let Some(out) = cluster_out {
        write_file(out, &format!("{cluster}\n"))?;
    }
    let (Some(text), Some(path)) = (job_text, a.jobs.as_deref()) else {
        return print_stdout(&report);
    };
    let sampling = JobSampling {
        max_jobs: a.max_jobs,
        seed: a.seed,
    };
    let jobs = alibaba_spot::read_jobs(
        &text,
        &path.display().to_string(),
        Some(&cluster),
        &sampling,
    )
    .map_err(input)?;
    report.push('\n');
    report.push_str(&job_report(&jobs));
    if let Some(out) = profile_out {
        let profile = alibaba_spot::profile(&jobs.trace);
        write_file(out, &format!("{}\n", profile.to_json()))?;
    }
    emit(&trace_text(&jobs.trace, a.format), out, &report)
}

/// `1 (902), 4 (10), 8 (77)`: GPUs per node (nodes).
fn sizes(sizes: &[(u32, u64)]) -> String {
    let parts: Vec<String> = sizes.iter().map(|(g, n)| format!("{g} ({n})")).collect();
    parts.join(", ")
}

fn node_report(nodes: &NodeTable, cluster: &ClusterSpec) -> String {
    let rows: Vec<Vec<String>> = nodes
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
    let mut s = format!(
        "node table {}: {} nodes, {} GPUs, {} GPU models\n",
        nodes.name,
        nodes.nodes(),
        nodes.gpus(),
        nodes.models.len()
    );
    s.push_str(&render_table(
        &[
            "gpu_model",
            "GPU type",
            "nodes",
            "GPUs",
            "GPUs per node (nodes)",
            "vCPUs",
            "per server",
        ],
        &rows,
    ));
    s.push_str(&format!("cluster: {cluster}\n"));
    s
}

fn dropped(d: &[Dropped]) -> String {
    if d.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = d
        .iter()
        .map(|d| format!("{} {}", d.rows, d.reason))
        .collect();
    parts.join(", ")
}

fn job_report(t: &JobTable) -> String {
    let s = &t.summary;
    let kept = s.hp.jobs + s.spot.jobs;
    let gpu_s = s.hp.gpu_s + s.spot.gpu_s;
    let share = |part: f64, whole: f64| {
        if whole > 0.0 {
            format!("{:.1}%", 100.0 * part / whole)
        } else {
            "-".into()
        }
    };
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
    let mut out = format!(
        "job table {}: {} rows, {kept} jobs kept from {} organizations, submitted over {:.2} days (left out: {})\n",
        t.trace.name,
        s.rows,
        s.organizations,
        s.span_s / 86_400.0,
        dropped(&s.dropped)
    );
    out.push_str(&render_table(
        &[
            "kind / requested model",
            "jobs",
            "share",
            "GPU-hours",
            "share",
        ],
        &rows,
    ));
    let spot = t.trace.jobs.iter().filter(|j| j.spot).count();
    out.push_str(&format!(
        "trace: {} jobs ({} HP, {spot} Spot)\n",
        t.trace.jobs.len(),
        t.trace.jobs.len() - spot
    ));
    out
}

pub(crate) fn cmd_import_acme(a: ImportAcmeArgs) -> CliResult<()> {
    let text = read_file(&a.file, "Acme job trace")?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let table = read_acme(&text, &a.file.display().to_string()).map_err(input)?;
    let sampling = AcmeSampling {
        max_jobs: a.max_jobs,
        seed: a.seed,
    };
    let trace = table.trace(&sampling).map_err(input)?;
    let report = acme_report(&table, &table.summary(), &trace);
    emit(&trace_text(&trace, a.format), out, &report)
}

fn acme_report(t: &AcmeTable, s: &FailureSummary, trace: &Trace) -> String {
    let gpu_s: f64 = s.states.iter().map(|(_, v)| v.gpu_s).sum();
    let share = |part: f64, whole: f64| {
        if whole > 0.0 {
            format!("{:.1}%", 100.0 * part / whole)
        } else {
            "-".into()
        }
    };
    let rows: Vec<Vec<String>> = s
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
    let mut out = format!(
        "Acme job trace {} ({:?} schema): {} rows, {} GPU jobs, {} CPU jobs\n",
        t.name, s.schema, s.rows, s.gpu_jobs, s.cpu_jobs
    );
    out.push_str(&render_table(
        &["state", "GPU jobs", "share", "GPU-hours of run", "share"],
        &rows,
    ));
    let rate = |v: Option<f64>| match v {
        None => "-".to_string(),
        Some(r) if r == 0.0 || r >= 0.01 => format!("{r:.4}"),
        Some(r) => format!("{r:.3e}"),
    };
    let of = |n: usize, rows: usize| format!("{n} of {rows} rows");
    out.push_str(&render_kv(&[
        (
            "FAILED".into(),
            format!(
                "{} jobs, {:.1} GPU-hours (user and framework errors included)",
                s.failed.jobs,
                s.failed.gpu_s / 3600.0
            ),
        ),
        (
            "NODE_FAIL".into(),
            format!(
                "{} jobs, {:.1} GPU-hours",
                s.node_fail.jobs,
                s.node_fail.gpu_s / 3600.0
            ),
        ),
        (
            "node-days of run".into(),
            format!("{:.2} (node_num x run time of the GPU jobs)", s.node_days),
        ),
        (
            "NODE_FAIL rate".into(),
            format!(
                "{} jobs per node-day of run (a lower bound of node failures under jobs)",
                rate(s.node_fail_per_node_day)
            ),
        ),
        (
            "FAILED rate".into(),
            format!(
                "{} jobs per node-day of run (not a hardware rate)",
                rate(s.failed_per_node_day)
            ),
        ),
        (
            "duration = run".into(),
            of(s.duration_is_run, s.duration_rows),
        ),
        (
            "duration = queue + run".into(),
            of(s.duration_is_queue_and_run, s.duration_rows),
        ),
        (
            "gpu_time = duration x gpu_num".into(),
            of(s.gpu_time_is_duration_x_gpus, s.gpu_time_rows),
        ),
        (
            "FAILED at fail_time".into(),
            if s.failed_with_fail_time == 0 {
                "no FAILED job records a fail_time".to_string()
            } else {
                format!(
                    "{} of the {} FAILED jobs with a fail_time end then",
                    s.failed_at_end, s.failed_with_fail_time
                )
            },
        ),
    ]));
    let left = trace
        .origin
        .as_ref()
        .map_or("none".to_string(), |o| dropped(&o.dropped));
    out.push_str(&format!(
        "trace: {} jobs, run time end - start (left out: {left})\n",
        trace.jobs.len()
    ));
    out
}
