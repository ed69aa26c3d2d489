//! `orrery import-alibaba-spot` and `orrery import-acme`: public cluster traces read into
//! an Orrery trace (and, for Alibaba's, a cluster and a profile), with a summary of what
//! they hold. The summary goes to standard output, or to standard error when the trace
//! does.

use super::*;
use orrery::view::import::{self, Block};
use orrery::workload::acme::{read_acme, AcmeSampling, AcmeTable, FailureSummary};
use orrery::workload::alibaba_spot::{self, JobSampling, JobTable, NodeTable};

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

/// A summary's blocks as text: lines, tables and key/value lines.
fn render(blocks: &[Block]) -> String {
    let mut s = String::new();
    for b in blocks {
        match b {
            Block::Line(l) => {
                s.push_str(l);
                s.push('\n');
            }
            Block::Table { header, rows } => s.push_str(&render_table(header, rows)),
            Block::Pairs(p) => s.push_str(&render_kv(p)),
        }
    }
    s
}

fn node_report(nodes: &NodeTable, cluster: &ClusterSpec) -> String {
    render(&import::node_blocks(nodes, cluster))
}

fn job_report(t: &JobTable) -> String {
    render(&import::job_blocks(t))
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
    render(&import::acme_blocks(t, s, trace))
}
