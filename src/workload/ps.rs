//! Parameter-server job types as DL2 schedules them: each job trains with some workers
//! (one GPU and a few CPUs each) and some parameter servers (CPUs only), and its speed
//! depends on both.
//!
//! The speed function is analytic, in the style of Optimus and DL2. For `w` workers and `p`
//! parameter servers, one synchronous step (every worker processes its batch, pushes its
//! gradients and pulls the new parameters) takes
//!
//! ```text
//! t_step = t_compute + max(t_ps, t_worker) + t_overhead + t_sync * w
//! t_compute = batch * flops_per_sample / (gpu_tflops * 1e12 * gpu_efficiency)
//! t_ps      = 2 * S * w / (p * B_ps)      (each PS holds S/p of the model and exchanges
//!                                          it with every worker, both ways)
//! t_worker  = 2 * S / B_worker            (each worker pushes and pulls the whole model)
//! ```
//!
//! with `S` the model in bytes (4 bytes per parameter) and the bandwidths per PS and per
//! worker. Communication does not overlap computation, and placement does not change the
//! speed (tasks on one server are assumed not to share a link). Speed is counted in
//! single-worker steps per second, `w / t_step`, so a job's work is `epochs * dataset /
//! batch` steps whatever its allocation.
//!
//! The bundled profile (`traces/dl2_models.json`, preset `dl2-models`) holds eight model
//! types in the spirit of DL2's evaluation; its figures are Orrery's own estimates from
//! public figures, with a source line per model.

use super::trace::MAX_JOB_S;
use super::{line_of_offset, GeneratorConfig, Trace, WorkloadError};
use crate::model::job::JobSpec;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The hardware every job type runs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    /// Peak FP32 rate of one GPU (TFLOP/s).
    pub gpu_tflops: f64,
    /// Share of the peak a training step reaches (0..1].
    pub gpu_efficiency: f64,
    /// Bandwidth of one worker (Gbit/s).
    pub worker_gbps: f64,
    /// Bandwidth of one parameter server (Gbit/s).
    pub ps_gbps: f64,
    /// Fixed seconds per step (kernel launches, data loading not hidden).
    pub step_overhead_s: f64,
    /// Seconds per step per worker for the synchronisation barrier.
    pub sync_s_per_worker: f64,
    /// Where the figures come from.
    #[serde(default)]
    pub source: String,
    /// Peak FP32 rates (TFLOP/s) of named GPU types; a worker's compute time scales with
    /// `gpu_tflops` over its type's rate. A cluster of one type this does not name runs at
    /// `gpu_tflops`.
    #[serde(default)]
    pub gpu_types: std::collections::BTreeMap<String, f64>,
}

/// One parameter-server job type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PsModel {
    /// Name (a job's `job_type`).
    pub name: String,
    /// Parameters, in millions.
    pub params_m: f64,
    /// Training FLOPs per sample (forward and backward), in GFLOP.
    pub gflops_per_sample: f64,
    /// Batch per worker.
    pub batch: u32,
    /// Samples per epoch.
    pub dataset: f64,
    /// Range of epochs a job of this type trains for (the generator draws in it).
    pub epochs: [f64; 2],
    /// GPUs per worker.
    pub worker_gpus: u32,
    /// CPUs per worker.
    pub worker_cpus: u32,
    /// CPUs per parameter server.
    pub ps_cpus: u32,
    /// Where the figures come from.
    pub source: String,
    /// Seconds of computation per step on one worker.
    pub compute_s: f64,
    /// Model size (GB).
    pub model_gb: f64,
    /// Bandwidth of a worker (GB/s).
    pub worker_gbs: f64,
    /// Bandwidth of a parameter server (GB/s).
    pub ps_gbs: f64,
    /// Fixed seconds per step.
    pub step_overhead_s: f64,
    /// Seconds per step per worker.
    pub sync_s_per_worker: f64,
    /// A measured speed function (DL2's profile): when present, it gives the speed and the
    /// analytic model above is not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<SpeedTable>,
}

/// A speed function measured at every count of parameter servers and workers from 1 to
/// `max`, as DL2's simulator evaluates it: the speed of `p` parameter servers and `w`
/// workers is `values[(p - 1) * max + (w - 1)] / epoch_size`, in epochs per second (a
/// job's work is then its number of epochs). Counts beyond `max` take the value at `max`;
/// a value below zero (a failed measurement's interpolant) is no progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedTable {
    /// The largest count measured or interpolated, for both roles.
    pub max: u32,
    /// Samples per epoch: the table's speeds are samples per second.
    pub epoch_size: f64,
    /// The speeds, parameter servers major.
    pub values: Vec<f64>,
}

impl SpeedTable {
    /// Epochs per second with `w` workers and `p` parameter servers (0 when either is 0).
    pub fn speed(&self, w: u32, p: u32) -> f64 {
        if w == 0 || p == 0 || self.max == 0 {
            return 0.0;
        }
        let (w, p) = (w.min(self.max), p.min(self.max));
        let k = (p as usize - 1) * self.max as usize + (w as usize - 1);
        self.values
            .get(k)
            .map_or(0.0, |&v| v.max(0.0) / self.epoch_size)
    }
}

impl PsModel {
    /// Seconds per synchronous step with `w` workers and `p` parameter servers (infinite
    /// when either is zero).
    pub fn step_time(&self, w: u32, p: u32) -> f64 {
        self.step_time_at(w, p, 1.0)
    }

    /// [`PsModel::step_time`] with GPUs `compute` times as fast as the profile's hardware
    /// (the slowest worker's, in a synchronous step).
    pub fn step_time_at(&self, w: u32, p: u32, compute: f64) -> f64 {
        if w == 0 || p == 0 || compute.is_nan() || compute <= 0.0 {
            return f64::INFINITY;
        }
        let (w, p) = (f64::from(w), f64::from(p));
        let t_ps = 2.0 * self.model_gb * w / (p * self.ps_gbs);
        let t_worker = 2.0 * self.model_gb / self.worker_gbs;
        self.compute_s / compute
            + t_ps.max(t_worker)
            + self.step_overhead_s
            + self.sync_s_per_worker * w
    }

    /// Training speed in single-worker steps per second (`w / step_time`); 0 when either
    /// count is zero.
    pub fn speed(&self, w: u32, p: u32) -> f64 {
        self.speed_at(w, p, 1.0)
    }

    /// [`PsModel::speed`] with GPUs `compute` times as fast as the profile's hardware.
    pub fn speed_at(&self, w: u32, p: u32, compute: f64) -> f64 {
        if let Some(t) = &self.table {
            return t.speed(w, p);
        }
        if w == 0 || p == 0 {
            return 0.0;
        }
        f64::from(w) / self.step_time_at(w, p, compute)
    }

    /// Steps in one epoch (`dataset / batch`).
    pub fn steps_per_epoch(&self) -> f64 {
        self.dataset / f64::from(self.batch.max(1))
    }

    /// Which side limits a step: true when the parameter servers' links take longer than
    /// the workers' (adding a PS helps more than the workers' own links allow).
    pub fn ps_bound(&self, w: u32, p: u32) -> bool {
        if p == 0 {
            return true;
        }
        2.0 * self.model_gb * f64::from(w) / (f64::from(p) * self.ps_gbs)
            > 2.0 * self.model_gb / self.worker_gbs
    }
}

/// A profile of parameter-server job types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PsModels {
    /// File or preset name, for messages.
    pub name: String,
    /// The hardware.
    pub hardware: Hardware,
    /// Job types, in file order (a type's index is its position).
    pub models: Vec<PsModel>,
}

/// The format tag of a parameter-server profile.
pub const PS_FORMAT: &str = "orrery-ps-models";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PsFile {
    format: String,
    #[allow(dead_code)]
    #[serde(default)]
    version: u32,
    hardware: Hardware,
    worker_cpus: u32,
    ps_cpus: u32,
    #[serde(default = "one")]
    worker_gpus: u32,
    models: Vec<ModelEntry>,
    #[allow(dead_code)]
    #[serde(default)]
    source: String,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelEntry {
    name: String,
    params_m: f64,
    gflops_per_sample: f64,
    batch: u32,
    dataset: f64,
    epochs: [f64; 2],
    #[serde(default)]
    worker_gpus: Option<u32>,
    #[serde(default)]
    worker_cpus: Option<u32>,
    #[serde(default)]
    ps_cpus: Option<u32>,
    #[serde(default)]
    source: String,
}

/// Byte offset of the entry whose `"name"` is `model` (after the `models` key).
fn entry_offset(text: &str, model: &str) -> Option<usize> {
    let mut at = text.find("\"models\"")?;
    let want = format!("\"{model}\"");
    while let Some(i) = text[at..].find("\"name\"") {
        let key = at + i;
        let rest = text[key + 6..].trim_start();
        if let Some(value) = rest.strip_prefix(':') {
            if value.trim_start().starts_with(&want) {
                return Some(key);
            }
        }
        at = key + 6;
    }
    None
}

/// The line of `field` in the entry of `model` (anywhere in the file when `model` is None
/// or the entry does not write the field; the entry's line, or 1, when nothing is found).
fn line_of_field(text: &str, model: Option<&str>, field: &str) -> usize {
    let key = format!("\"{field}\"");
    let entry = model.and_then(|m| {
        let name = entry_offset(text, m)?;
        let open = text[..name].rfind('{').unwrap_or(name);
        let close = text[name..].find('}').map_or(text.len(), |i| name + i);
        Some((open, close))
    });
    let found = entry
        .and_then(|(a, b)| text[a..b].find(&key).map(|i| a + i))
        .or_else(|| text.find(&key))
        .or(entry.map(|(a, _)| a))
        .unwrap_or(0);
    line_of_offset(text, found)
}

impl PsModels {
    /// Whether `text` is a parameter-server profile (by its format tag).
    pub fn is_ps_json(text: &str) -> bool {
        let t = text.trim_start();
        t.starts_with('{') && t.contains(&format!("\"{PS_FORMAT}\""))
    }

    /// Read a profile; errors name the file, the line and the field.
    pub fn from_json(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let f: PsFile = serde_json::from_str(text)
            .map_err(|e| WorkloadError::field(file, e.line(), "json", e.to_string()))?;
        let bad = |model: Option<&str>, field: &str, reason: String| {
            WorkloadError::field(file, line_of_field(text, model, field), field, reason)
        };
        if f.format != PS_FORMAT {
            return Err(bad(
                None,
                "format",
                format!("'{}' is not {PS_FORMAT}", f.format),
            ));
        }
        let h = &f.hardware;
        let positive = [
            ("gpu_tflops", h.gpu_tflops),
            ("worker_gbps", h.worker_gbps),
            ("ps_gbps", h.ps_gbps),
        ];
        for (field, v) in positive {
            if !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(bad(None, field, format!("{v} must be a positive number")));
            }
        }
        for (t, &v) in &h.gpu_types {
            if t.is_empty() || !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(bad(
                    None,
                    "gpu_types",
                    format!("'{t}': {v} must be a positive number of TFLOP/s"),
                ));
            }
        }
        if !(h.gpu_efficiency.is_finite() && h.gpu_efficiency > 0.0 && h.gpu_efficiency <= 1.0) {
            return Err(bad(
                None,
                "gpu_efficiency",
                format!("{} must be in (0, 1]", h.gpu_efficiency),
            ));
        }
        for (field, v) in [
            ("step_overhead_s", h.step_overhead_s),
            ("sync_s_per_worker", h.sync_s_per_worker),
        ] {
            if !(v.is_finite() && (0.0..=3600.0).contains(&v)) {
                return Err(bad(None, field, format!("{v} must be in [0, 3600] s")));
            }
        }
        if f.models.is_empty() {
            return Err(bad(None, "models", "no models".into()));
        }
        let mut models: Vec<PsModel> = Vec::with_capacity(f.models.len());
        for m in f.models {
            let name = m.name.trim().to_string();
            let at = Some(m.name.as_str());
            if name.is_empty() {
                return Err(bad(at, "name", "must not be empty".into()));
            }
            if models.iter().any(|o| o.name == name) {
                return Err(bad(at, "name", format!("'{name}' appears twice")));
            }
            for (field, v) in [
                ("params_m", m.params_m),
                ("gflops_per_sample", m.gflops_per_sample),
                ("dataset", m.dataset),
            ] {
                if !(v.is_finite() && v > 0.0 && v <= 1e12) {
                    return Err(bad(at, field, format!("{v} must be a positive number")));
                }
            }
            if m.batch == 0 || m.batch > 1 << 20 {
                return Err(bad(
                    at,
                    "batch",
                    format!("{} must be 1 to 1,048,576", m.batch),
                ));
            }
            let [lo, hi] = m.epochs;
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo && hi <= 1e6) {
                return Err(bad(
                    at,
                    "epochs",
                    format!("[{lo}, {hi}] must be a range of positive numbers, low first"),
                ));
            }
            let worker_gpus = m.worker_gpus.unwrap_or(f.worker_gpus);
            let worker_cpus = m.worker_cpus.unwrap_or(f.worker_cpus);
            let ps_cpus = m.ps_cpus.unwrap_or(f.ps_cpus);
            if worker_gpus > 64 || worker_cpus > 1024 || worker_gpus + worker_cpus == 0 {
                return Err(bad(
                    at,
                    "worker_cpus",
                    format!(
                        "a worker needs at least one GPU or CPU (at most 64 and 1,024); it asks {worker_gpus} GPUs and {worker_cpus} CPUs"
                    ),
                ));
            }
            if ps_cpus == 0 || ps_cpus > 1024 {
                return Err(bad(at, "ps_cpus", format!("{ps_cpus} must be 1 to 1,024")));
            }
            let compute_s = f64::from(m.batch) * m.gflops_per_sample * 1e9
                / (h.gpu_tflops * 1e12 * h.gpu_efficiency);
            models.push(PsModel {
                name,
                params_m: m.params_m,
                gflops_per_sample: m.gflops_per_sample,
                batch: m.batch,
                dataset: m.dataset,
                epochs: m.epochs,
                worker_gpus,
                worker_cpus,
                ps_cpus,
                source: m.source,
                compute_s,
                model_gb: m.params_m * 4e6 / 1e9,
                worker_gbs: h.worker_gbps / 8.0,
                ps_gbs: h.ps_gbps / 8.0,
                step_overhead_s: h.step_overhead_s,
                sync_s_per_worker: h.sync_s_per_worker,
                table: None,
            });
        }
        Ok(PsModels {
            name: file.to_string(),
            hardware: f.hardware,
            models,
        })
    }

    /// GPU types the profile has rates for, in name order.
    pub fn gpu_types(&self) -> Vec<String> {
        self.hardware.gpu_types.keys().cloned().collect()
    }

    /// How many times as fast as the profile's hardware GPU type `name` computes, if the
    /// profile names it.
    pub fn compute_factor(&self, name: &str) -> Option<f64> {
        let t = self.hardware.gpu_types.get(name)?;
        (self.hardware.gpu_tflops > 0.0).then(|| t / self.hardware.gpu_tflops)
    }

    /// The index of the type named `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.models.iter().position(|m| m.name == name)
    }

    /// Type names in order.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }

    /// Check a trace against the profile: every job's type is a model of it and its work
    /// is positive. Errors name the trace's line and field.
    pub fn check_trace(&self, trace: &Trace) -> Result<(), WorkloadError> {
        for (i, j) in trace.jobs.iter().enumerate() {
            let line = trace.lines.get(i).copied().unwrap_or(0);
            if self.index(&j.job_type).is_none() {
                return Err(WorkloadError::field(
                    &trace.name,
                    line,
                    "job_type",
                    format!(
                        "'{}' is not a model of the parameter-server profile ({})",
                        j.job_type,
                        self.names().join(", ")
                    ),
                ));
            }
            if !(j.total_steps.is_finite() && j.total_steps > 0.0) {
                return Err(WorkloadError::field(
                    &trace.name,
                    line,
                    "total_steps",
                    format!("{} must be positive", j.total_steps),
                ));
            }
            if !(j.arrival.is_finite() && j.arrival >= 0.0) {
                return Err(WorkloadError::field(
                    &trace.name,
                    line,
                    "arrival_s",
                    format!("{} must be non-negative", j.arrival),
                ));
            }
            // At its fastest (as many workers and parameter servers as a job may hold, on
            // the fastest GPUs) a job must end within the limit of every trace.
            let fastest = self
                .index(&j.job_type)
                .map(|k| &self.models[k])
                .map_or(0.0, |m| {
                    let compute = self
                        .gpu_types()
                        .iter()
                        .filter_map(|t| self.compute_factor(t))
                        .fold(1.0, f64::max);
                    (0..=13)
                        .map(|e| 1u32 << e)
                        .chain([MAX_TASKS])
                        .map(|w| m.speed_at(w, w, compute))
                        .fold(0.0, f64::max)
                });
            let alone = j.total_steps / fastest;
            if alone > MAX_JOB_S {
                return Err(WorkloadError::field(
                    &trace.name,
                    line,
                    "total_steps",
                    format!(
                        "{} steps take {alone:.3e} s even at the fastest, more than the limit of {MAX_JOB_S} s (10 years)",
                        j.total_steps
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Most workers (and parameter servers) one job may hold.
const MAX_TASKS: u32 = 10_000;

/// Settings of a parameter-server (DL2) experiment beyond the cluster spec.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsConfig {
    /// CPUs of each server (the cluster spec gives its GPUs).
    #[serde(default = "default_cpus")]
    pub cpus_per_server: u32,
    /// Most workers one job may hold.
    #[serde(default = "default_max_tasks")]
    pub max_workers: u32,
    /// Most parameter servers one job may hold.
    #[serde(default = "default_max_tasks")]
    pub max_ps: u32,
    /// Workers (and as many parameter servers) a job holds when a policy of another family
    /// runs it as a rigid job ([`super::ps_rigid`]).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub rigid_workers: u32,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn default_cpus() -> u32 {
    32
}
fn default_max_tasks() -> u32 {
    16
}

impl Default for PsConfig {
    fn default() -> Self {
        PsConfig {
            cpus_per_server: default_cpus(),
            max_workers: default_max_tasks(),
            max_ps: default_max_tasks(),
            rigid_workers: 1,
        }
    }
}

impl PsConfig {
    /// DL2's simulator's: nodes of 8 CPU slots (a CPU slot is a CPU), at most 16 workers
    /// and 16 parameter servers per job.
    pub fn dl2() -> Self {
        PsConfig {
            cpus_per_server: 8,
            max_workers: 16,
            max_ps: 16,
            rigid_workers: 1,
        }
    }

    /// Check the settings, naming the bad field.
    pub fn check(&self) -> Result<(), WorkloadError> {
        let bad = |field: &str, reason: &str| Err(WorkloadError::field("ps", 0, field, reason));
        if self.cpus_per_server == 0 || self.cpus_per_server > 100_000 {
            return bad("cpus_per_server", "must be 1 to 100,000");
        }
        if self.max_workers == 0 || self.max_workers > MAX_TASKS {
            return bad("max_workers", "must be 1 to 10,000");
        }
        if self.max_ps == 0 || self.max_ps > MAX_TASKS {
            return bad("max_ps", "must be 1 to 10,000");
        }
        if self.rigid_workers == 0 || self.rigid_workers > self.max_workers.min(self.max_ps) {
            return bad(
                "rigid_workers",
                "must be 1 to the most workers and parameter servers per job",
            );
        }
        Ok(())
    }
}

/// Generate parameter-server jobs: Poisson arrivals at `jobs_per_hour` (whole seconds), a
/// model type drawn uniformly, epochs drawn uniformly in the type's range and multiplied by
/// `duration_scale`; a job's work is its epochs times the type's steps per epoch. The
/// multi-GPU, priority and elastic options do not apply (nor does `cfg.dl2`: DL2's generator
/// is [`super::dl2_gen::generate`]).
pub fn generate_ps(models: &PsModels, cfg: &GeneratorConfig) -> Result<Trace, WorkloadError> {
    let name = "generated";
    cfg.check(name)?;
    if models.models.is_empty() {
        return Err(WorkloadError::file(name, "the profile has no models"));
    }
    let mut rng = Rng::for_purpose(cfg.seed, "ps-workload");
    let mut t = 0.0f64;
    let mut jobs = Vec::with_capacity(cfg.num_jobs);
    for i in 0..cfg.num_jobs {
        if cfg.jobs_per_hour > 0.0 && i > 0 {
            t += rng.exponential(cfg.jobs_per_hour / 3600.0);
        }
        let m = &models.models[rng.below(models.models.len() as u64) as usize];
        let epochs = rng.range(m.epochs[0], m.epochs[1]) * cfg.duration_scale;
        let per_epoch = m.steps_per_epoch();
        let mut job = JobSpec::new(m.name.clone(), t.round(), (epochs * per_epoch).max(1.0));
        job.epoch_steps = Some(per_epoch);
        job.batch_size = Some(m.batch);
        jobs.push(job);
    }
    Ok(Trace::from_jobs(name, jobs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"{
  "format": "orrery-ps-models",
  "version": 1,
  "hardware": {"gpu_tflops": 10, "gpu_efficiency": 0.5, "worker_gbps": 8, "ps_gbps": 8,
               "step_overhead_s": 0.01, "sync_s_per_worker": 0.001},
  "worker_cpus": 2,
  "ps_cpus": 4,
  "models": [
    {"name": "a", "params_m": 25, "gflops_per_sample": 10, "batch": 50,
     "dataset": 5000, "epochs": [1, 2]}
  ]
}"#;

    #[test]
    fn hand_computed_step_time() {
        let m = PsModels::from_json(TINY, "t.json").unwrap();
        let a = &m.models[0];
        // compute = 50 * 10e9 / (10e12 * 0.5) = 0.1 s; S = 0.1 GB; B = 1 GB/s.
        assert!((a.compute_s - 0.1).abs() < 1e-12);
        assert!((a.model_gb - 0.1).abs() < 1e-12);
        // w = 1, p = 1: 0.1 + max(0.2, 0.2) + 0.01 + 0.001 = 0.311 s.
        assert!((a.step_time(1, 1) - 0.311).abs() < 1e-12);
        // w = 4, p = 1: PS side 2 * 0.1 * 4 / 1 = 0.8 s.
        assert!((a.step_time(4, 1) - (0.1 + 0.8 + 0.01 + 0.004)).abs() < 1e-12);
        assert!((a.speed(4, 1) - 4.0 / 0.914).abs() < 1e-12);
        assert!(a.ps_bound(4, 1) && !a.ps_bound(4, 4));
        assert_eq!(a.speed(0, 3), 0.0);
        assert_eq!(a.steps_per_epoch(), 100.0);
    }

    #[test]
    fn a_job_longer_than_ten_years_at_its_fastest_is_refused() {
        let m = PsModels::from_json(TINY, "t.json").unwrap();
        // At 10,000 workers and parameter servers a step takes 0.1 + 0.2 + 0.01 + 10 s for
        // 10,000 single-worker steps: about 970 steps/s, 3.1e11 steps in 10 years.
        let trace = |steps: &str| {
            Trace::parse(
                &format!("job_type,arrival_s,total_steps\na,0,1000\na,5,{steps}\n"),
                "t.csv",
            )
            .unwrap()
        };
        m.check_trace(&trace("1e9")).unwrap();
        let e = m.check_trace(&trace("1e12")).unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { line: 3, field, .. } if field == "total_steps"),
            "{e}"
        );
        assert!(e.to_string().contains("10 years"), "{e}");
    }

    #[test]
    fn bad_fields_are_named_with_their_line() {
        let e = PsModels::from_json(&TINY.replace("\"batch\": 50", "\"batch\": 0"), "t.json")
            .unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { line: 9, field, .. } if field == "batch"),
            "{e}"
        );
        let e = PsModels::from_json(&TINY.replace("[1, 2]", "[3, 2]"), "t.json").unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { line: 10, field, .. } if field == "epochs"),
            "{e}"
        );
        let e = PsModels::from_json(&TINY.replace("0.5,", "1.5,"), "t.json").unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { line: 4, field, .. } if field == "gpu_efficiency"),
            "{e}"
        );
        let e = PsModels::from_json(&TINY.replace("\"ps_cpus\": 4", "\"ps_cpus\": 0"), "t.json")
            .unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { field, .. } if field == "ps_cpus"),
            "{e}"
        );
        let e =
            PsModels::from_json(&TINY.replace("\"dataset\"", "\"datset\""), "t.json").unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Field { field, .. } if field == "json"),
            "{e}"
        );
        assert!(PsModels::is_ps_json(TINY));
    }
}
