//! Importer for Alibaba's spot GPU cluster trace (`cluster-trace-v2026-spot-gpu` in
//! github.com/alibaba/clusterdata, released with GFS, ASPLOS'26): its node table becomes an
//! Orrery cluster, its job table an Orrery [`Trace`] whose jobs run only on the GPU model
//! they requested, with the throughput profile that says so.
//!
//! Both tables are comma-separated with a header row; columns are found by name (any case,
//! any order) and others are ignored. Numbers may be written `20` or `20.0`. Blank lines
//! and lines starting with `#` are skipped and quoted fields read as [`super::csv`] reads
//! them. Every row must have as many fields as the header. Errors name the file, the line
//! and the column.
//!
//! # Node table (`node_info_df.csv`)
//!
//! - `gpu_model` (required, not empty): the node's GPU model. Each model is one GPU type of
//!   the cluster, named by [`gpu_type_name`] (`A100-SXM4-80GB` is `a100-sxm4-80gb`), in the
//!   order models first appear; two models with the same type name are an error.
//! - `gpu_capacity_num` (required): the node's GPUs, a whole number. A type's GPU count is
//!   the sum over the model's nodes.
//! - `cpu_num` (optional): the node's vCPUs, a non-negative number, summed per model for the
//!   summary only (the round-based jobs hold GPUs, not CPUs).
//! - `node_name` (optional): a name given twice is an error; it is not used otherwise.
//!
//! GPUs per server: a type's `per_server` is the node size most of the model's nodes have
//! (ties go to the larger size). In the released table every model has one node size but
//! `GPU-series-1`, whose 989 nodes are 902 of 1 GPU, 10 of 4 and 77 of 8: its 1,558 GPUs
//! become 1,558 one-GPU servers, so its jobs of 4 or 8 GPUs span servers where the real
//! cluster would hold them in one node. A model whose GPUs are not a whole number of
//! such servers keeps the rest as a part-server. The real nodes of each model, by size, are
//! kept in [`ModelNodes::sizes`]. Models without GPUs are left out of the cluster.
//!
//! # Job table (`job_info_df.csv`)
//!
//! - `gpu_model` (required): the requested model. The job's `job_type` is that model's GPU
//!   type name, and [`profile`] gives each job type 1 step/s on its own GPU type only, at
//!   every GPU count of its jobs, so a job runs on the model it asked for and nowhere else.
//! - `gpu_request` (GPUs per worker, may be fractional) and `worker_num` (a whole number),
//!   both required: the job's GPUs (`scale_factor`) are `ceil(gpu_request x worker_num)`,
//!   a product within 1e-9 of a whole number counting as that number (3 workers of 1/3
//!   GPU need 1 GPU, 2 workers of 0.5 need 1, 3 of 0.5 need 2).
//! - `submit_time` (required, seconds since the first submission): `arrival` is the
//!   submission relative to the earliest submission of the kept jobs, so the first arrival
//!   is 0. At most [`MAX_ARRIVAL_S`].
//! - `duration` (required, seconds): the work (`total_steps`), read as one step per second
//!   at the job's GPU count, as the PAI importer does. At most [`MAX_JOB_S`].
//! - `job_type` (required): `HP` or `Spot` (any case); `Spot` jobs have `spot = true`.
//! - `organization` (optional): the job's `entity` (its cost organization, for hierarchical
//!   policies); none when empty.
//! - `cpu_request` (optional): checked to be a non-negative number, not used.
//! - `job_name`: not read.
//!
//! Jobs left out, counted by reason in [`JobSummary::dropped`]: those needing no GPU
//! (`gpu_request` or `worker_num` 0), of no positive duration and, when a cluster is given,
//! those requesting a model it lacks or more GPUs than it has of that model.
//!
//! The kept jobs are ordered by submission (ties in file order; [`Trace::lines`] holds each
//! job's line). With `max_jobs`, that many are drawn uniformly without replacement (stream
//! `"alibaba-spot-sample"` of the seed) and kept in arrival order. Priority weight 1; no
//! SLO, epoch size, batch size or elasticity.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::table::{count_drop, none_left, sample, Table};
use super::timed::Dropped;
use super::trace::{MAX_ARRIVAL_S, MAX_JOB_S};
use super::{Profile, Trace, WorkloadError};
use crate::model::cluster::{ClusterSpec, GpuType};
use crate::model::job::JobSpec;

/// The GPU type name of a GPU model: lower case, each character other than a letter,
/// digit, `_` or `-` replaced by `-`.
pub fn gpu_type_name(model: &str) -> String {
    model
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The nodes of one GPU model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelNodes {
    /// The model as the table writes it.
    pub model: String,
    /// Its GPU type name in the cluster.
    pub gpu_type: String,
    /// Nodes.
    pub nodes: u64,
    /// GPUs over its nodes.
    pub gpus: u64,
    /// vCPUs over its nodes (those that record them).
    pub cpus: f64,
    /// `(GPUs per node, nodes)`, by increasing size.
    pub sizes: Vec<(u32, u64)>,
}

impl ModelNodes {
    /// GPUs per server of its GPU type: the size most of its nodes with GPUs have (ties to
    /// the larger); 1 if none has any.
    pub fn per_server(&self) -> u32 {
        self.sizes
            .iter()
            .filter(|(size, _)| *size > 0)
            .fold(None, |best: Option<(u32, u64)>, &(size, n)| match best {
                Some((_, m)) if m > n => best,
                _ => Some((size, n)),
            })
            .map_or(1, |(size, _)| size)
    }
}

/// A node table, model by model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeTable {
    /// The file's name.
    pub name: String,
    /// Models in the order they first appear.
    pub models: Vec<ModelNodes>,
}

impl NodeTable {
    /// Nodes over all models.
    pub fn nodes(&self) -> u64 {
        self.models.iter().map(|m| m.nodes).sum()
    }

    /// GPUs over all models.
    pub fn gpus(&self) -> u64 {
        self.models.iter().map(|m| m.gpus).sum()
    }

    /// The cluster: one GPU type per model with GPUs (see the module documentation), or
    /// an error if it has none or is larger than a cluster may be.
    pub fn cluster(&self) -> Result<ClusterSpec, WorkloadError> {
        let mut types = Vec::new();
        for m in self.models.iter().filter(|m| m.gpus > 0) {
            let count = u32::try_from(m.gpus).map_err(|_| {
                WorkloadError::file(&self.name, format!("{}: too many GPUs", m.model))
            })?;
            types.push(GpuType {
                name: m.gpu_type.clone(),
                count,
                per_server: m.per_server(),
                price_per_hour: None,
            });
        }
        let spec = ClusterSpec { types };
        spec.validate()
            .map_err(|e| WorkloadError::file(&self.name, e.to_string()))?;
        Ok(spec)
    }
}

/// Read a node table (see the module documentation).
pub fn read_nodes(text: &str, file: &str) -> Result<NodeTable, WorkloadError> {
    let mut table = Table::open(text, file)?;
    let c_model = table.need("gpu_model")?;
    let c_gpus = table.need("gpu_capacity_num")?;
    let c_cpus = table.find("cpu_num");
    let c_name = table.find("node_name");
    let mut models: Vec<ModelNodes> = Vec::new();
    let mut sizes: Vec<BTreeMap<u32, u64>> = Vec::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    while let Some(row) = table.next_row() {
        let row = row?;
        let model = row.text(c_model);
        if model.is_empty() {
            return Err(row.error(c_model, "empty"));
        }
        let gpus = row
            .whole(c_gpus)?
            .ok_or_else(|| row.error(c_gpus, "empty (a number is needed)"))?;
        let cpus = match c_cpus {
            Some(c) => row.number(c)?.unwrap_or(0.0),
            None => 0.0,
        };
        if let Some(c) = c_name {
            let name = row.text(c);
            if !name.is_empty() {
                if let Some(first) = names.insert(name.to_string(), row.line) {
                    return Err(row.error(c, format!("node '{name}' is also on line {first}")));
                }
            }
        }
        let k = match models.iter().position(|m| m.model == model) {
            Some(k) => k,
            None => {
                let gpu_type = gpu_type_name(model);
                if let Some(other) = models.iter().find(|m| m.gpu_type == gpu_type) {
                    return Err(row.error(
                        c_model,
                        format!(
                            "'{model}' and '{}' have the same GPU type name '{gpu_type}'",
                            other.model
                        ),
                    ));
                }
                models.push(ModelNodes {
                    model: model.to_string(),
                    gpu_type,
                    nodes: 0,
                    gpus: 0,
                    cpus: 0.0,
                    sizes: Vec::new(),
                });
                sizes.push(BTreeMap::new());
                models.len() - 1
            }
        };
        if let (Some(m), Some(s)) = (models.get_mut(k), sizes.get_mut(k)) {
            m.nodes += 1;
            m.gpus += u64::from(gpus);
            m.cpus += cpus;
            *s.entry(gpus).or_default() += 1;
        }
    }
    if models.is_empty() {
        return Err(WorkloadError::file(file, "the node table has no rows"));
    }
    for (m, s) in models.iter_mut().zip(sizes) {
        m.sizes = s.into_iter().collect();
    }
    Ok(NodeTable {
        name: file.to_string(),
        models,
    })
}

/// How to sample the job table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobSampling {
    /// Largest number of jobs to keep (at least 1); all when `None`.
    #[serde(default)]
    pub max_jobs: Option<usize>,
    /// Seed of the choice of jobs.
    #[serde(default)]
    pub seed: u64,
}

/// Jobs and GPU-seconds of one kind of job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Jobs.
    pub jobs: usize,
    /// GPUs x duration, summed (GPU-seconds).
    pub gpu_s: f64,
}

impl Share {
    fn add(&mut self, gpus: u32, duration: f64) {
        self.jobs += 1;
        self.gpu_s += f64::from(gpus) * duration;
    }
}

/// What a job table holds: the jobs kept before sampling, by kind and by model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobSummary {
    /// Rows of the table.
    pub rows: usize,
    /// `HP` jobs kept.
    pub hp: Share,
    /// `Spot` jobs kept.
    pub spot: Share,
    /// Jobs kept by requested model (as the table writes it), in order of first appearance.
    pub models: Vec<(String, Share)>,
    /// Organizations of the kept jobs.
    pub organizations: usize,
    /// Seconds from the first to the last submission of the kept jobs.
    pub span_s: f64,
    /// Rows left out, by reason.
    pub dropped: Vec<Dropped>,
}

/// A job table read into a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct JobTable {
    /// The (sampled) jobs.
    pub trace: Trace,
    /// The table's figures before sampling.
    pub summary: JobSummary,
}

/// A job found in the table.
struct Found {
    line: usize,
    submit: f64,
    duration: f64,
    gpus: u32,
    gpu_type: String,
    organization: Option<String>,
    spot: bool,
}

/// GPUs of `workers` workers of `per_worker` GPUs: the product rounded up, within 1e-9 of
/// a whole number counting as that number; `None` beyond `u32`.
pub fn job_gpus(per_worker: f64, workers: u32) -> Option<u32> {
    let x = per_worker * f64::from(workers);
    if !x.is_finite() || x < 0.0 {
        return None;
    }
    let r = x.round();
    let g = if (x - r).abs() < 1e-9 { r } else { x.ceil() };
    (g <= f64::from(u32::MAX)).then_some(g as u32)
}

/// Read a job table into a trace named after it (see the module documentation). With a
/// cluster, jobs it cannot run (a model it lacks, more GPUs than it has of theirs) are
/// left out.
pub fn read_jobs(
    text: &str,
    file: &str,
    cluster: Option<&ClusterSpec>,
    sampling: &JobSampling,
) -> Result<JobTable, WorkloadError> {
    if sampling.max_jobs == Some(0) {
        return Err(WorkloadError::file(
            "Alibaba spot sampling",
            "max_jobs must be at least 1",
        ));
    }
    let mut table = Table::open(text, file)?;
    let c_model = table.need("gpu_model")?;
    let c_gpu = table.need("gpu_request")?;
    let c_workers = table.need("worker_num")?;
    let c_submit = table.need("submit_time")?;
    let c_duration = table.need("duration")?;
    let c_kind = table.need("job_type")?;
    let c_org = table.find("organization");
    let c_cpu = table.find("cpu_request");
    let mut found = Vec::new();
    let mut summary = JobSummary::default();
    while let Some(row) = table.next_row() {
        let row = row?;
        summary.rows += 1;
        let model = row.text(c_model);
        if model.is_empty() {
            return Err(row.error(c_model, "empty"));
        }
        let kind = row.text(c_kind);
        let spot = if kind.eq_ignore_ascii_case("spot") {
            true
        } else if kind.eq_ignore_ascii_case("hp") {
            false
        } else {
            return Err(row.error(c_kind, format!("'{kind}' is neither HP nor Spot")));
        };
        let per_worker = row.required(c_gpu)?;
        let workers = row
            .whole(c_workers)?
            .ok_or_else(|| row.error(c_workers, "empty (a number is needed)"))?;
        if let Some(c) = c_cpu {
            row.number(c)?;
        }
        let submit = row.required(c_submit)?;
        if submit > MAX_ARRIVAL_S {
            return Err(row.error(
                c_submit,
                format!("{submit} s is later than the limit of {MAX_ARRIVAL_S} s (100 years)"),
            ));
        }
        let duration = row.required(c_duration)?;
        if duration > MAX_JOB_S {
            return Err(row.error(
                c_duration,
                format!("{duration} s is longer than the limit of {MAX_JOB_S} s (10 years)"),
            ));
        }
        let gpus = job_gpus(per_worker, workers).ok_or_else(|| {
            row.error(
                c_gpu,
                format!(
                    "{} GPUs for each of {workers} workers are too many",
                    row.text(c_gpu)
                ),
            )
        })?;
        let gpu_type = gpu_type_name(model);
        let fits = cluster.map(|c| c.types.iter().find(|t| t.name == gpu_type));
        let reason = match fits {
            _ if gpus == 0 => Some("without GPUs"),
            _ if duration <= 0.0 => Some("of no positive duration"),
            Some(None) => Some("requesting a GPU model the node table lacks"),
            Some(Some(t)) if t.count < gpus => Some("needing more GPUs than their model has"),
            _ => None,
        };
        if let Some(r) = reason {
            count_drop(&mut summary.dropped, r);
            continue;
        }
        found.push(Found {
            line: row.line,
            submit,
            duration,
            gpus,
            gpu_type,
            organization: c_org
                .map(|c| row.text(c))
                .filter(|o| !o.is_empty())
                .map(str::to_string),
            spot,
        });
        let share = match summary.models.iter().position(|(m, _)| m == model) {
            Some(k) => summary.models.get_mut(k),
            None => {
                summary.models.push((model.to_string(), Share::default()));
                summary.models.last_mut()
            }
        };
        if let Some((_, s)) = share {
            s.add(gpus, duration);
        }
        let kind = if spot {
            &mut summary.spot
        } else {
            &mut summary.hp
        };
        kind.add(gpus, duration);
    }
    if found.is_empty() {
        return Err(none_left(file, "job table", summary.rows, &summary.dropped));
    }
    crate::order::sort_by(&mut found, |a, b| {
        a.submit.total_cmp(&b.submit).then(a.line.cmp(&b.line))
    });
    let organizations: BTreeSet<&str> = found
        .iter()
        .filter_map(|f| f.organization.as_deref())
        .collect();
    summary.organizations = organizations.len();
    let first = found.first().map_or(0.0, |f| f.submit);
    summary.span_s = found.last().map_or(0.0, |f| f.submit) - first;

    let keep = sample(
        found.len(),
        sampling.max_jobs,
        sampling.seed,
        "alibaba-spot-sample",
    );
    let base = keep
        .first()
        .and_then(|&i| found.get(i))
        .map_or(0.0, |f| f.submit);
    let mut jobs = Vec::with_capacity(keep.len());
    let mut lines = Vec::with_capacity(keep.len());
    for f in keep.iter().filter_map(|&i| found.get(i)) {
        let mut job =
            JobSpec::new(f.gpu_type.clone(), f.submit - base, f.duration).with_scale(f.gpus);
        job.entity = f.organization.clone();
        job.spot = f.spot;
        jobs.push(job);
        lines.push(f.line);
    }
    Ok(JobTable {
        trace: Trace {
            name: file.to_string(),
            jobs,
            lines,
            origin: None,
        },
        summary,
    })
}

/// The profile of an imported trace: each job type (a GPU type) makes 1 step/s on that GPU
/// type only, at every GPU count of its jobs.
pub fn profile(trace: &Trace) -> Profile {
    let mut p = Profile::default();
    for j in &trace.jobs {
        p.set(&j.job_type, j.scale_factor, &j.job_type, 1.0);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: &str = "gpu_model,gpu_capacity_num,cpu_num,node_name\n\
                         S1,4,192,0\nS1,1,192,1\nA10,1,128,2\nA100-SXM4-80GB,8,128,3\n\
                         S1,1,128,5\nS1,8,192,6\nS1,1,192,7\n";

    const JOBS: &str = "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type\n\
                        1,13,A10,20,1,1,0,2764799,HP\n\
                        2,13,A10,8.0,1.0,1.0,0.0,15897599.0,HP\n\
                        3,57,A100-SXM4-80GB,15,1,16,9589663,41060,Spot\n\
                        4,57,A100-SXM4-80GB,15,1,94,9589663,71718,Spot\n";

    fn all() -> JobSampling {
        JobSampling::default()
    }

    #[test]
    fn node_table_by_model() {
        let t = read_nodes(NODES, "n.csv").unwrap();
        assert_eq!((t.nodes(), t.gpus()), (7, 24));
        let s1 = &t.models[0];
        assert_eq!((s1.gpu_type.as_str(), s1.nodes, s1.gpus), ("s1", 5, 15));
        assert_eq!(s1.cpus, 192.0 * 4.0 + 128.0);
        assert_eq!(s1.sizes, [(1, 3), (4, 1), (8, 1)]);
        assert_eq!(s1.per_server(), 1);
        let c = t.cluster().unwrap();
        assert_eq!(c.to_string(), "s1:15,a10:1,a100-sxm4-80gb:8/8");
    }

    #[test]
    fn per_server_ties_go_to_the_larger_size() {
        let m = |sizes: Vec<(u32, u64)>| ModelNodes {
            model: "x".into(),
            gpu_type: "x".into(),
            nodes: 0,
            gpus: 0,
            cpus: 0.0,
            sizes,
        };
        assert_eq!(m(vec![(1, 2), (8, 2)]).per_server(), 8);
        assert_eq!(m(vec![(1, 3), (8, 2)]).per_server(), 1);
        assert_eq!(m(vec![(0, 9), (4, 1)]).per_server(), 4);
        assert_eq!(m(vec![(0, 9)]).per_server(), 1);
    }

    #[test]
    fn node_table_errors() {
        let h = "gpu_model,gpu_capacity_num,node_name\n";
        for (rows, want) in [
            (
                "A10,1,0\nA10,1.5,1\n",
                "n:3: field 'gpu_capacity_num': 1.5 is not a whole number",
            ),
            (
                "A10,1,0\nA10,1,0\n",
                "n:3: field 'node_name': node '0' is also on line 2",
            ),
            (",1,0\n", "n:2: field 'gpu_model': empty"),
            (
                "A10,,0\n",
                "n:2: field 'gpu_capacity_num': empty (a number is needed)",
            ),
            (
                "A 10,1,0\na-10,1,1\n",
                "n:3: field 'gpu_model': 'a-10' and 'A 10' have the same GPU type name 'a-10'",
            ),
            (
                "A10,1\n",
                "n:2: field 'row': expected 3 fields (as the header), found 2",
            ),
            ("", "n: the node table has no rows"),
        ] {
            let e = read_nodes(&format!("{h}{rows}"), "n").unwrap_err();
            assert_eq!(e.to_string(), want, "{rows}");
        }
        let e = read_nodes("gpu_model,cpu_num\nA10,1\n", "n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "n:1: field 'gpu_capacity_num': missing column"
        );
        let none = read_nodes("gpu_model,gpu_capacity_num\ncpu,0\n", "n").unwrap();
        assert!(none.cluster().is_err());
    }

    #[test]
    fn jobs_in_arrival_order_with_model_spot_and_organization() {
        let t = read_jobs(JOBS, "j.csv", None, &all()).unwrap();
        let got: Vec<_> = t
            .trace
            .jobs
            .iter()
            .map(|j| {
                (
                    j.job_type.as_str(),
                    j.arrival,
                    j.total_steps,
                    j.scale_factor,
                    j.spot,
                    j.entity(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a10", 0.0, 2764799.0, 1, false, "13"),
                ("a10", 0.0, 15897599.0, 1, false, "13"),
                ("a100-sxm4-80gb", 9589663.0, 41060.0, 16, true, "57"),
                ("a100-sxm4-80gb", 9589663.0, 71718.0, 94, true, "57"),
            ]
        );
        assert_eq!(t.trace.lines, [2, 3, 4, 5]);
        let s = &t.summary;
        assert_eq!(
            (s.rows, s.hp.jobs, s.spot.jobs, s.organizations),
            (4, 2, 2, 2)
        );
        assert_eq!(s.spot.gpu_s, 16.0 * 41060.0 + 94.0 * 71718.0);
        assert_eq!(s.span_s, 9589663.0);
        let p = profile(&t.trace);
        assert_eq!(p.throughput("a10", 1, "a10"), Some(1.0));
        assert_eq!(
            p.throughput("a100-sxm4-80gb", 94, "a100-sxm4-80gb"),
            Some(1.0)
        );
        assert_eq!(p.throughput("a100-sxm4-80gb", 94, "a10"), None);
        assert_eq!(p.throughput("a100-sxm4-80gb", 1, "a100-sxm4-80gb"), None);
    }

    #[test]
    fn gpus_round_up_a_fractional_request() {
        assert_eq!(job_gpus(0.5, 2), Some(1));
        assert_eq!(job_gpus(0.5, 3), Some(2));
        assert_eq!(job_gpus(1.0 / 3.0, 3), Some(1));
        assert_eq!(job_gpus(0.1, 3), Some(1));
        assert_eq!(job_gpus(0.25, 1), Some(1));
        assert_eq!(job_gpus(0.0, 5), Some(0));
        assert_eq!(job_gpus(2.0, 0), Some(0));
        assert_eq!(job_gpus(1e300, 2), None);
    }

    #[test]
    fn a_cluster_leaves_out_what_it_cannot_run() {
        let nodes = read_nodes(NODES, "n").unwrap();
        let c = nodes.cluster().unwrap();
        let jobs = format!(
            "{JOBS}5,1,H800,1,1,1,5,10,HP\n6,1,A10,1,0.5,0,5,10,Spot\n7,1,A10,1,1,1,6,0,HP\n"
        );
        let t = read_jobs(&jobs, "j", Some(&c), &all()).unwrap();
        assert_eq!(t.trace.lines, [2, 3]);
        let d: Vec<_> = t
            .summary
            .dropped
            .iter()
            .map(|d| (d.reason.as_str(), d.rows))
            .collect();
        assert_eq!(
            d,
            [
                ("needing more GPUs than their model has", 2),
                ("requesting a GPU model the node table lacks", 1),
                ("without GPUs", 1),
                ("of no positive duration", 1)
            ]
        );
        let only_cut =
            "gpu_model,gpu_request,worker_num,submit_time,duration,job_type\nA10,0,1,0,1,HP\n";
        assert_eq!(
            read_jobs(only_cut, "j", None, &all())
                .unwrap_err()
                .to_string(),
            "j: none of its 1 jobs can run: 1 without GPUs"
        );
    }

    #[test]
    fn header_in_any_order_and_blank_lines() {
        let text = "\nJOB_TYPE,duration,submit_time,worker_num,gpu_request,gpu_model\n\n\
                    spot,10,100.0,2,0.5,A10\n# note\nhp,20,50,1,2,A10\n";
        let t = read_jobs(text, "j", None, &all()).unwrap();
        let got: Vec<_> = t
            .trace
            .jobs
            .iter()
            .map(|j| {
                (
                    j.arrival,
                    j.total_steps,
                    j.scale_factor,
                    j.spot,
                    j.entity.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [(0.0, 20.0, 2, false, None), (50.0, 10.0, 1, true, None)]
        );
        assert_eq!(t.trace.lines, [6, 4]);
    }

    #[test]
    fn job_errors_name_line_and_column() {
        let h = "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type\n";
        for (row, want) in [
            ("1,2,A10,1,1,1,0,10,Low\n", "j:2: field 'job_type': 'Low' is neither HP nor Spot"),
            ("1,2,A10,1,one,1,0,10,HP\n", "j:2: field 'gpu_request': 'one' is not a number"),
            ("1,2,A10,1,1,1.5,0,10,HP\n", "j:2: field 'worker_num': 1.5 is not a whole number"),
            ("1,2,A10,1,1,1,-3,10,HP\n", "j:2: field 'submit_time': -3 is negative"),
            ("1,2,A10,1,1,1,0,NaN,HP\n", "j:2: field 'duration': 'NaN' is not a finite number"),
            ("1,2,A10,x,1,1,0,10,HP\n", "j:2: field 'cpu_request': 'x' is not a number"),
            ("1,2,,1,1,1,0,10,HP\n", "j:2: field 'gpu_model': empty"),
            ("1,2,A10,1,1,1,0,,HP\n", "j:2: field 'duration': empty (a number is needed)"),
            ("1,2,A10,1,1,1,0,10\n", "j:2: field 'row': expected 9 fields (as the header), found 8"),
            ("1,2,A10,1,1,1,0,1e9,HP\n", "j:2: field 'duration': 1000000000 s is longer than the limit of 315576000 s (10 years)"),
            ("1,2,A10,1,1e300,1e10,0,1,HP\n", "j:2: field 'worker_num': 10000000000 is more than 4294967295"),
            ("1,2,A10,1,1e300,9,0,1,HP\n", "j:2: field 'gpu_request': 1e300 GPUs for each of 9 workers are too many"),
        ] {
            let e = read_jobs(&format!("{h}1,2,A10,1,1,1,0,10,HP\n\n{row}"), "j", None, &all())
                .unwrap_err();
            assert_eq!(e.to_string(), want.replace("j:2", "j:4"), "{row}");
        }
        let e = read_jobs("gpu_model,gpu_request\nA10,1\n", "j", None, &all()).unwrap_err();
        assert_eq!(e.to_string(), "j:1: field 'worker_num': missing column");
        let e = read_jobs(
            JOBS,
            "j",
            None,
            &JobSampling {
                max_jobs: Some(0),
                seed: 0,
            },
        );
        assert!(e.is_err());
    }

    #[test]
    fn sampling_is_seeded_and_rebased() {
        let mut text =
            String::from("gpu_model,gpu_request,worker_num,submit_time,duration,job_type\n");
        for k in 0..200 {
            text.push_str(&format!(
                "A10,1,{},{},{},{}\n",
                1 + k % 3,
                10 * k,
                100 + k,
                if k % 4 == 0 { "Spot" } else { "HP" }
            ));
        }
        let s = JobSampling {
            max_jobs: Some(20),
            seed: 3,
        };
        let a = read_jobs(&text, "j", None, &s).unwrap();
        assert_eq!(a, read_jobs(&text, "j", None, &s).unwrap());
        assert_eq!(a.trace.jobs.len(), 20);
        assert_eq!(a.trace.jobs[0].arrival, 0.0);
        assert!(a.trace.lines.windows(2).all(|w| w[0] < w[1]));
        let base = 10.0 * (a.trace.lines[0] - 2) as f64;
        for (j, &line) in a.trace.jobs.iter().zip(&a.trace.lines) {
            assert_eq!(j.arrival, 10.0 * (line - 2) as f64 - base);
        }
        assert_eq!(a.summary.hp.jobs + a.summary.spot.jobs, 200);
        let b = read_jobs(&text, "j", None, &JobSampling { seed: 4, ..s }).unwrap();
        assert_ne!(a.trace.lines, b.trace.lines);
    }
}
