//! Elastic applications: how fast a job trains and how much each example is worth as its
//! GPU count, placement and batch size change (the model of Pollux, OSDI'21).
//!
//! An [`ElasticApp`] answers four questions the elastic simulator and its policies ask:
//! - [`ElasticApp::step_time`]: seconds per step (and the synchronisation part of it) for a
//!   placement (GPUs on each node) and a per-GPU batch size;
//! - [`ElasticApp::grad_stats`]: the gradient statistics (squared norm and variance) at a
//!   total batch size and epoch, which give the statistical efficiency;
//! - [`ElasticApp::progress_at_epoch`]: progress milestones, in steps at the initial batch
//!   size; a job is done when it reaches the milestone of its last epoch;
//! - [`ElasticApp::iteration`]: iterations needed at a fixed batch size to finish an epoch
//!   (what Optimus predicts remaining time from).
//!
//! Two kinds of application exist. *Measured* ones are read from the Pollux simulator's
//! application folders (`placements.csv`, `scalability.csv`, `validation-<batch>.csv`) and
//! answer by interpolating the measurements exactly as that simulator does. *Modelled* ones
//! come from Orrery's own JSON (`orrery-elastic-apps`): Pollux's throughput model with
//! given parameters, a dataset size, and a gradient noise scale that grows geometrically
//! over training.

use super::csv::records;
use super::interp::LinearNd;
use super::{parse_nonneg, WorkloadError};
use crate::policy::pollux::goodput::{GoodputFunction, GradParams, PerfParams};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One row of a validation file: the state after an epoch at one batch size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ValidationRow {
    progress: f64,
    iteration: f64,
    grad_sqr: f64,
    grad_var: f64,
}

/// Validation rows of one batch size.
type BatchRows = (u32, Vec<ValidationRow>);

/// An application measured on real hardware (the Pollux simulator's inputs).
#[derive(Debug, Clone)]
pub struct MeasuredApp {
    /// Validation rows by batch size, ascending.
    validation: Vec<(u32, Vec<ValidationRow>)>,
    /// Measured (local batch, step time, sync time) rows per placement shape (GPUs per
    /// node, in its lexicographically smallest rotation), sorted by local batch.
    placements: BTreeMap<Vec<u32>, Vec<[f64; 3]>>,
    /// Interpolation over (nodes, replicas, local batch) for shapes not measured.
    nd: Option<LinearNd>,
    /// Min progress over batch sizes at the end of each epoch.
    milestones: Vec<f64>,
}

/// Pollux's throughput-model parameters as stored in Orrery's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerfSpec {
    /// Compute time per step: constant part (s).
    pub alpha_c: f64,
    /// Compute time per step: per example on a GPU (s).
    pub beta_c: f64,
    /// Cross-node synchronisation: constant part (s).
    pub alpha_n: f64,
    /// Cross-node synchronisation: per extra replica (s).
    pub beta_n: f64,
    /// Within-node synchronisation: constant part (s).
    pub alpha_r: f64,
    /// Within-node synchronisation: per extra replica (s).
    pub beta_r: f64,
    /// Overlap of compute and synchronisation (1 = none, larger = more).
    pub gamma: f64,
}

impl From<PerfSpec> for PerfParams {
    fn from(p: PerfSpec) -> Self {
        PerfParams {
            alpha_c: p.alpha_c,
            beta_c: p.beta_c,
            alpha_n: p.alpha_n,
            beta_n: p.beta_n,
            alpha_r: p.alpha_r,
            beta_r: p.beta_r,
            gamma: p.gamma,
        }
    }
}

/// An application described by Pollux's model with given parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelledApp {
    /// Throughput-model parameters.
    pub perf: PerfSpec,
    /// Examples per epoch.
    pub dataset_size: f64,
    /// Gradient noise scale (examples) at the start and at the end of training; it grows
    /// geometrically in between.
    pub noise_scale: [f64; 2],
}

/// Where an application's answers come from.
#[derive(Debug, Clone)]
pub enum AppModel {
    /// Measurements (the Pollux simulator's application folders).
    Measured(Box<MeasuredApp>),
    /// Pollux's model with given parameters.
    Modelled(ModelledApp),
}

/// One elastic application.
#[derive(Debug, Clone)]
pub struct ElasticApp {
    /// Name (the job type of the jobs that run it).
    pub name: String,
    /// Smallest total batch size (the one progress is counted in).
    pub init_batch_size: u32,
    /// Largest total batch size.
    pub max_batch_size: u32,
    /// Smallest per-GPU batch.
    pub min_local_bsz: u32,
    /// Largest per-GPU batch (more needs gradient accumulation).
    pub max_local_bsz: u32,
    /// Epochs to train.
    pub max_epochs: u32,
    /// A batch size every policy must use, if the application cannot adapt it.
    pub fixed_batch_size: Option<u32>,
    /// Most GPUs the application can use, if it is limited.
    pub max_replicas: Option<u32>,
    /// Where its numbers come from.
    pub model: AppModel,
    /// Where the data come from, for people.
    pub source: String,
    /// (GPUs, total batch) configurations users typically choose for a fixed-size run, for
    /// the workload generator (derived from the batch range when empty).
    pub user_configs: Vec<[u32; 2]>,
}

/// The best configuration of an application at one GPU count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// GPUs.
    pub gpus: u32,
    /// Servers spanned.
    pub nodes: u32,
    /// Goodput-maximising total batch size.
    pub batch_size: u32,
    /// Examples per second.
    pub throughput: f64,
    /// Statistical efficiency at that batch (1 at the initial batch size).
    pub efficiency: f64,
    /// Throughput x efficiency.
    pub goodput: f64,
}

/// The applications of an elastic workload, by name.
#[derive(Debug, Clone, Default)]
pub struct Apps {
    /// Applications sorted by name.
    pub apps: Vec<ElasticApp>,
}

impl Apps {
    /// Index of an application by name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.apps.iter().position(|a| a.name == name)
    }

    /// Names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.apps.iter().map(|a| a.name.clone()).collect()
    }
}

impl PartialEq for Apps {
    fn eq(&self, other: &Self) -> bool {
        self.names() == other.names()
    }
}

/// The lexicographically smallest rotation of a placement with its empty nodes dropped.
pub fn normalize_placement(placement: &[u32]) -> Vec<u32> {
    let p: Vec<u32> = placement.iter().copied().filter(|&g| g > 0).collect();
    let mut best = p.clone();
    for k in 1..p.len() {
        let rot: Vec<u32> = p[k..].iter().chain(&p[..k]).copied().collect();
        if rot < best {
            best = rot;
        }
    }
    best
}

/// `gpus` GPUs packed onto servers of `per_node`: full servers, the remainder on one more.
pub fn packed_placement(gpus: u32, per_node: u32) -> Vec<u32> {
    let per_node = per_node.max(1);
    let mut placement = vec![per_node; (gpus / per_node) as usize];
    if !gpus.is_multiple_of(per_node) {
        placement.push(gpus % per_node);
    }
    placement
}

/// Linear interpolation between two rows bracketing `b` (exact when they coincide).
fn lerp_batch(b: f64, lo: (u32, f64), hi: (u32, f64)) -> f64 {
    if lo.0 == hi.0 {
        lo.1
    } else {
        let (l, u) = (f64::from(lo.0), f64::from(hi.0));
        ((b - l) * hi.1 + (u - b) * lo.1) / (u - l)
    }
}

/// Piecewise-linear interpolation in sorted knots, as scipy's `interp1d` computes it
/// (the segment is found by a left binary search, so an interior knot is evaluated on the
/// segment to its left). None outside the knots.
fn interp1d(rows: &[[f64; 3]], x: f64) -> Option<(f64, f64)> {
    let n = rows.len();
    let first = rows.first()?;
    let last = rows.last()?;
    if x < first[0] || x > last[0] {
        return None;
    }
    if n == 1 {
        return Some((first[1], first[2]));
    }
    let i = rows.partition_point(|r| r[0] < x).clamp(1, n - 1);
    let (lo, hi) = (rows[i - 1], rows[i]);
    let dx = hi[0] - lo[0];
    if dx == 0.0 {
        return Some((lo[1], lo[2]));
    }
    let at = |k: usize| (hi[k] - lo[k]) / dx * (x - lo[0]) + lo[k];
    Some((at(1), at(2)))
}

impl MeasuredApp {
    /// Validation rows bracketing total batch `b` (clamped to the measured range).
    fn bracket(&self, b: f64) -> Option<(&BatchRows, &BatchRows)> {
        let first = self.validation.first()?;
        let last = self.validation.last()?;
        let lower = self
            .validation
            .iter()
            .rev()
            .find(|(k, _)| f64::from(*k) <= b)
            .unwrap_or(first);
        let upper = self
            .validation
            .iter()
            .find(|(k, _)| f64::from(*k) >= b)
            .unwrap_or(last);
        Some((lower, upper))
    }

    fn row_value(rows: &[ValidationRow], epoch: u32, f: impl Fn(&ValidationRow) -> f64) -> f64 {
        rows.get(epoch as usize)
            .or(rows.last())
            .map(f)
            .unwrap_or(0.0)
    }

    fn interp_field(&self, b: f64, epoch: u32, f: impl Fn(&ValidationRow) -> f64 + Copy) -> f64 {
        let Some((lo, hi)) = self.bracket(b) else {
            return 0.0;
        };
        let b = b.clamp(f64::from(lo.0.min(hi.0)), f64::from(hi.0.max(lo.0)));
        lerp_batch(
            b,
            (lo.0, Self::row_value(&lo.1, epoch, f)),
            (hi.0, Self::row_value(&hi.1, epoch, f)),
        )
    }
}

/// Python's `math.ceil(x - 1e-8)`, the rounding Pollux uses for batch arithmetic.
pub(crate) fn ceil_eps(x: f64) -> f64 {
    (x - 1e-8).ceil()
}

impl ElasticApp {
    /// `local` examples per GPU, lowered so that `replicas` GPUs with `accum` accumulation
    /// steps stay within the largest total batch (and at least 1).
    pub fn capped_local(&self, replicas: u32, local: f64, accum: f64) -> f64 {
        let count = f64::from(replicas) * (accum + 1.0);
        local
            .min((f64::from(self.max_batch_size) / count).floor())
            .max(1.0)
    }

    /// Examples per GPU and gradient-accumulation steps for the total batch `batch` on
    /// `replicas` GPUs (without one, the initial batch, at least the smallest local batch
    /// on every GPU), as the elastic simulator runs a fixed batch: accumulation when a
    /// GPU's share exceeds the largest local batch (and always above the initial batch on
    /// one GPU).
    pub fn fixed_batch(&self, replicas: u32, batch: Option<f64>) -> (u32, u32) {
        let rf = f64::from(replicas);
        let init = f64::from(self.init_batch_size);
        let b = batch.unwrap_or_else(|| init.max(f64::from(self.min_local_bsz) * rf));
        let local = ceil_eps(b / rf);
        let mut accum = (ceil_eps(local / f64::from(self.max_local_bsz)) - 1.0).max(0.0);
        if replicas == 1 && b > init {
            accum = accum.max(1.0);
        }
        let atomic = self.capped_local(replicas, ceil_eps(local / (accum + 1.0)), accum);
        (atomic as u32, accum as u32)
    }

    /// Progress (steps at the initial batch size) at the end of epoch `epoch` (0 at 0).
    pub fn progress_at_epoch(&self, epoch: u32) -> f64 {
        if epoch == 0 {
            return 0.0;
        }
        match &self.model {
            AppModel::Measured(m) => {
                let i = (epoch as usize - 1).min(m.milestones.len().saturating_sub(1));
                m.milestones.get(i).copied().unwrap_or(0.0)
            }
            AppModel::Modelled(m) => {
                f64::from(epoch) * m.dataset_size / f64::from(self.init_batch_size)
            }
        }
    }

    /// Progress at which a job of this application is done.
    pub fn target_progress(&self) -> f64 {
        self.progress_at_epoch(self.max_epochs)
    }

    /// Iterations at total batch `batch` by the end of epoch `epoch + 1`.
    pub fn iteration(&self, batch: f64, epoch: u32) -> f64 {
        match &self.model {
            AppModel::Measured(m) => m.interp_field(batch, epoch, |r| r.iteration),
            AppModel::Modelled(m) => f64::from(epoch + 1) * m.dataset_size / batch.max(1.0),
        }
    }

    /// Gradient statistics at total batch `batch` during epoch `epoch` (0-based).
    pub fn grad_stats(&self, batch: f64, epoch: u32) -> GradParams {
        match &self.model {
            AppModel::Measured(m) => GradParams {
                sqr: m.interp_field(batch, epoch, |r| r.grad_sqr),
                var: m.interp_field(batch, epoch, |r| r.grad_var),
            },
            AppModel::Modelled(m) => {
                let span = f64::from(self.max_epochs.saturating_sub(1).max(1));
                let f = (f64::from(epoch) / span).min(1.0);
                let [a, b] = m.noise_scale;
                let phi = a * crate::math::powf(b / a, f);
                GradParams {
                    sqr: 1.0,
                    var: phi / f64::from(self.init_batch_size),
                }
            }
        }
    }

    /// (step time, synchronisation time) in seconds for `placement` (GPUs per node) at
    /// `local_bsz` examples per GPU, or None where the application cannot say.
    pub fn step_time(&self, placement: &[u32], local_bsz: u32) -> Option<(f64, f64)> {
        let shape = normalize_placement(placement);
        if shape.is_empty() {
            return None;
        }
        let nodes = shape.len() as u32;
        let replicas: u32 = shape.iter().sum();
        match &self.model {
            AppModel::Measured(m) => {
                if let Some(rows) = m.placements.get(&shape) {
                    if let Some(v) = interp1d(rows, f64::from(local_bsz)) {
                        return Some(v);
                    }
                }
                let q = [
                    f64::from(nodes.min(16)),
                    f64::from(replicas),
                    f64::from(local_bsz),
                ];
                m.nd.as_ref()?.eval(q).map(|v| (v[0], v[1]))
            }
            AppModel::Modelled(m) => {
                let g = GoodputFunction::new(
                    m.perf.into(),
                    GradParams { sqr: 1.0, var: 0.0 },
                    f64::from(self.init_batch_size),
                );
                let b = f64::from(local_bsz);
                let step = g.optim_time(nodes, replicas, b);
                let sync = (step - g.accum_time(b)).max(0.0);
                Some((step, sync))
            }
        }
    }

    /// Statistical efficiency of total batch `batch` during `epoch`: progress per example
    /// relative to the initial batch size (1 there, lower for larger batches).
    pub fn efficiency(&self, batch: f64, epoch: u32) -> f64 {
        let scale = batch / f64::from(self.init_batch_size);
        self.grad_stats(batch, epoch).gain(scale) / scale
    }

    /// Best goodput at each GPU count from 1 to `max_gpus` (packed on servers of
    /// `per_node` GPUs) during `epoch`, over 50 geometrically spaced total batch sizes with
    /// gradient accumulation, from the application's own step times.
    pub fn goodput_curve(&self, epoch: u32, per_node: u32, max_gpus: u32) -> Vec<CurvePoint> {
        let mut out = Vec::new();
        for r in 1..=max_gpus.min(self.max_replicas.unwrap_or(u32::MAX)) {
            let placement = packed_placement(r, per_node);
            let rf = f64::from(r);
            let lo = f64::from(self.init_batch_size).max(f64::from(self.min_local_bsz) * rf);
            let hi = f64::from(self.fixed_batch_size.unwrap_or(self.max_batch_size));
            if lo > hi {
                break;
            }
            let mut best: Option<CurvePoint> = None;
            for i in 0..50 {
                let b = if self.fixed_batch_size.is_some() {
                    hi
                } else {
                    lo * crate::math::powf(hi / lo, f64::from(i) / 49.0)
                };
                let local = b / rf;
                let mut accum =
                    ((local / f64::from(self.max_local_bsz) - 1e-8).ceil() - 1.0).max(0.0);
                if r == 1 && local > f64::from(self.init_batch_size) + 1e-8 {
                    accum = accum.max(1.0);
                }
                let atomic = (local / (accum + 1.0) - 1e-8).ceil();
                if atomic < f64::from(self.min_local_bsz) || atomic > f64::from(self.max_local_bsz)
                {
                    continue;
                }
                let Some((step, sync)) = self.step_time(&placement, atomic as u32) else {
                    continue;
                };
                let time = step + (step - sync) * accum;
                let batch = rf * atomic * (accum + 1.0);
                if time <= 0.0 {
                    continue;
                }
                let throughput = batch / time;
                let efficiency = self.efficiency(batch.max(f64::from(self.init_batch_size)), epoch);
                let p = CurvePoint {
                    gpus: r,
                    nodes: placement.len() as u32,
                    batch_size: batch as u32,
                    throughput,
                    efficiency,
                    goodput: throughput * efficiency,
                };
                if best.is_none_or(|b| p.goodput > b.goodput) {
                    best = Some(p);
                }
            }
            out.extend(best);
        }
        out
    }

    /// Whether this application's numbers come from measurements.
    pub fn is_measured(&self) -> bool {
        matches!(self.model, AppModel::Measured(_))
    }
}

/// Settings the Pollux simulator gives each of its applications in code rather than in
/// its data folders: epochs to train, and the few special cases.
type AppDefault = (&'static str, u32, Option<u32>, Option<u32>, Option<u32>);

const POLLUX_APP_DEFAULTS: &[AppDefault] = &[
    // (name, epochs, max local batch override, fixed batch size, max replicas)
    ("bert", 2, None, None, None),
    ("cifar10", 100, None, None, None),
    ("deepspeech2", 80, None, None, None),
    ("imagenet", 90, None, None, None),
    ("ncf", 10, None, Some(32768), Some(1)),
    ("yolov3", 50, Some(8), None, None),
];

/// Per-application settings of a folder's optional `app.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AppSettings {
    max_epochs: Option<u32>,
    max_local_bsz: Option<u32>,
    fixed_batch_size: Option<u32>,
    max_replicas: Option<u32>,
}

/// A file of a profile folder: its path (for messages and to find the application it
/// belongs to) and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlineFile {
    /// Path relative to the folder the user chose, e.g. `cifar10/placements.csv`.
    pub path: String,
    /// Contents.
    pub text: String,
}

fn header_index(
    file: &str,
    line: usize,
    header: &[String],
    name: &str,
) -> Result<usize, WorkloadError> {
    header
        .iter()
        .position(|h| h.trim() == name)
        .ok_or_else(|| WorkloadError::field(file, line, name, "missing column"))
}

fn num(
    file: &str,
    line: usize,
    field: &str,
    fields: &[String],
    i: usize,
) -> Result<f64, WorkloadError> {
    let text = fields
        .get(i)
        .ok_or_else(|| WorkloadError::field(file, line, field, "missing value"))?;
    parse_nonneg(file, line, field, text)
}

fn parse_validation(file: &str, text: &str) -> Result<Vec<ValidationRow>, WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty validation file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cp, ci, cs, cv) = (
        col("progress")?,
        col("iteration")?,
        col("grad_sqr")?,
        col("grad_var")?,
    );
    let mut rows = Vec::new();
    for r in &recs[1..] {
        rows.push(ValidationRow {
            progress: num(file, r.line, "progress", &r.fields, cp)?,
            iteration: num(file, r.line, "iteration", &r.fields, ci)?,
            grad_sqr: num(file, r.line, "grad_sqr", &r.fields, cs)?,
            grad_var: num(file, r.line, "grad_var", &r.fields, cv)?,
        });
    }
    if rows.is_empty() {
        return Err(WorkloadError::file(file, "no epochs"));
    }
    Ok(rows)
}

type Measurement = ([i64; 3], [f64; 2]);

/// Measured (local batch, step, sync) rows per placement shape.
type ShapeRows = BTreeMap<Vec<u32>, Vec<[f64; 3]>>;

fn parse_placements(
    file: &str,
    text: &str,
) -> Result<(ShapeRows, Vec<Measurement>), WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty placements file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cp, cb, cs, cy) = (
        col("placement")?,
        col("local_bsz")?,
        col("step_time")?,
        col("sync_time")?,
    );
    let mut by_shape: BTreeMap<Vec<u32>, Vec<[f64; 3]>> = BTreeMap::new();
    // Mean over placements sharing (nodes, replicas, local batch), as a grouped mean.
    let mut groups: BTreeMap<[i64; 3], (f64, f64, f64)> = BTreeMap::new();
    for r in &recs[1..] {
        let p = r.fields.get(cp).map(|s| s.trim()).unwrap_or("");
        let digits: Option<Vec<u32>> = p.chars().map(|c| c.to_digit(10)).collect();
        let digits = match digits {
            Some(d) if !d.is_empty() && d.iter().all(|&g| g > 0) => d,
            _ => {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    "placement",
                    format!("'{p}' is not a placement (digits 1-9, GPUs per node)"),
                ))
            }
        };
        let b = num(file, r.line, "local_bsz", &r.fields, cb)?;
        let step = num(file, r.line, "step_time", &r.fields, cs)?;
        let sync = num(file, r.line, "sync_time", &r.fields, cy)?;
        let key = [
            digits.len() as i64,
            digits.iter().map(|&d| i64::from(d)).sum(),
            b as i64,
        ];
        let g = groups.entry(key).or_insert((0.0, 0.0, 0.0));
        g.0 += step;
        g.1 += sync;
        g.2 += 1.0;
        // Keyed as written: lookups use the smallest rotation, so rows of a shape written
        // in another rotation are not found by them (as in Pollux's simulator).
        by_shape.entry(digits).or_default().push([b, step, sync]);
    }
    for rows in by_shape.values_mut() {
        rows.sort_by(|a, b| a[0].total_cmp(&b[0]));
    }
    let points = groups
        .into_iter()
        .map(|(k, (s, y, n))| (k, [s / n, y / n]))
        .collect();
    Ok((by_shape, points))
}

fn parse_scalability(file: &str, text: &str) -> Result<Vec<Measurement>, WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty scalability file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cn, cr, cb, cs, cy) = (
        col("num_nodes")?,
        col("num_replicas")?,
        col("local_bsz")?,
        col("step_time")?,
        col("sync_time")?,
    );
    let mut out = Vec::new();
    for r in &recs[1..] {
        let n = num(file, r.line, "num_nodes", &r.fields, cn)?;
        let k = num(file, r.line, "num_replicas", &r.fields, cr)?;
        let b = num(file, r.line, "local_bsz", &r.fields, cb)?;
        let step = num(file, r.line, "step_time", &r.fields, cs)?;
        let sync = num(file, r.line, "sync_time", &r.fields, cy)?;
        out.push(([n as i64, k as i64, b as i64], [step, sync]));
    }
    Ok(out)
}

/// The file name part of a path.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The folder (application) a file belongs to.
fn parent_name(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']);
    parts.next();
    parts.next().filter(|p| !p.is_empty())
}

impl Apps {
    /// Read applications from the Pollux simulator's folders: one folder per application
    /// with `placements.csv`, `scalability.csv` (optional) and `validation-<batch>.csv`
    /// files, and optionally an `app.json` with `max_epochs`, `max_local_bsz`,
    /// `fixed_batch_size` and `max_replicas`. `name` is the folder the user chose.
    pub fn from_pollux_files(name: &str, files: &[InlineFile]) -> Result<Self, WorkloadError> {
        let mut grouped: BTreeMap<&str, Vec<&InlineFile>> = BTreeMap::new();
        for f in files {
            if let Some(app) = parent_name(&f.path) {
                grouped.entry(app).or_default().push(f);
            }
        }
        let mut apps = Vec::new();
        for (app, files) in grouped {
            if !files.iter().any(|f| base_name(&f.path) == "placements.csv") {
                continue;
            }
            apps.push(read_measured_app(app, &files)?);
        }
        if apps.is_empty() {
            return Err(WorkloadError::file(
                name,
                "no application folders (a folder per application with placements.csv and validation-<batch>.csv)",
            ));
        }
        Ok(Apps { apps })
    }

    /// Read Orrery's own JSON of modelled applications (`"format": "orrery-elastic-apps"`).
    pub fn from_json(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let f: AppsFile = serde_json::from_str(text)
            .map_err(|e| WorkloadError::field(file, e.line(), "json", e.to_string()))?;
        if f.format != "orrery-elastic-apps" {
            return Err(WorkloadError::file(
                file,
                format!("format '{}' is not orrery-elastic-apps", f.format),
            ));
        }
        let mut apps = Vec::new();
        for (name, a) in f.apps {
            let bad = |field: &str, reason: &str| {
                Err(WorkloadError::file(
                    file,
                    format!("app '{name}': {field}: {reason}"),
                ))
            };
            if a.init_batch_size == 0 || a.max_batch_size < a.init_batch_size {
                return bad("max_batch_size", "must be at least init_batch_size (> 0)");
            }
            if a.min_local_bsz == 0 || a.max_local_bsz < a.min_local_bsz {
                return bad("max_local_bsz", "must be at least min_local_bsz (> 0)");
            }
            if a.max_epochs == 0 {
                return bad("max_epochs", "must be at least 1");
            }
            if !(a.model.dataset_size.is_finite() && a.model.dataset_size > 0.0) {
                return bad("dataset_size", "must be a positive number");
            }
            if a.max_epochs > 100_000 {
                return bad("max_epochs", "at most 100,000");
            }
            if a.max_replicas == Some(0) {
                return bad("max_replicas", "must be at least 1");
            }
            if a.fixed_batch_size
                .is_some_and(|b| b < a.init_batch_size || b > a.max_batch_size)
            {
                return bad("fixed_batch_size", "must be within the batch range");
            }
            for &[g, b] in &a.user_configs {
                if g == 0 || b < a.init_batch_size || b > a.max_batch_size {
                    return bad(
                        "user_configs",
                        "each is [GPUs >= 1, batch within the batch range]",
                    );
                }
            }
            if !a
                .model
                .noise_scale
                .iter()
                .all(|v| v.is_finite() && *v > 0.0)
            {
                return bad("noise_scale", "must be two positive numbers");
            }
            let p = a.model.perf;
            let ps = [
                p.alpha_c, p.beta_c, p.alpha_n, p.beta_n, p.alpha_r, p.beta_r,
            ];
            if !(ps.iter().all(|v| v.is_finite() && *v > 0.0) && p.gamma >= 1.0 && p.gamma <= 10.0)
            {
                return bad(
                    "perf",
                    "alphas and betas must be positive, gamma in [1, 10]",
                );
            }
            apps.push(ElasticApp {
                name,
                init_batch_size: a.init_batch_size,
                max_batch_size: a.max_batch_size,
                min_local_bsz: a.min_local_bsz,
                max_local_bsz: a.max_local_bsz,
                max_epochs: a.max_epochs,
                fixed_batch_size: a.fixed_batch_size,
                max_replicas: a.max_replicas,
                model: AppModel::Modelled(a.model),
                source: a.source,
                user_configs: a.user_configs,
            });
        }
        if apps.is_empty() {
            return Err(WorkloadError::file(file, "no applications"));
        }
        Ok(Apps { apps })
    }

    /// Whether `text` looks like Orrery's elastic-applications JSON.
    pub fn is_apps_json(text: &str) -> bool {
        let t = text.trim_start();
        t.starts_with('{') && t.contains("\"orrery-elastic-apps\"")
    }
}

#[derive(Debug, Deserialize)]
struct AppsFile {
    format: String,
    #[allow(dead_code)]
    #[serde(default)]
    version: u32,
    apps: BTreeMap<String, AppEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AppEntry {
    init_batch_size: u32,
    max_batch_size: u32,
    min_local_bsz: u32,
    max_local_bsz: u32,
    max_epochs: u32,
    #[serde(default)]
    fixed_batch_size: Option<u32>,
    #[serde(default)]
    max_replicas: Option<u32>,
    #[serde(flatten)]
    model: ModelledApp,
    #[serde(default)]
    source: String,
    #[serde(default)]
    user_configs: Vec<[u32; 2]>,
}

fn read_measured_app(app: &str, files: &[&InlineFile]) -> Result<ElasticApp, WorkloadError> {
    let mut validation: Vec<(u32, Vec<ValidationRow>)> = Vec::new();
    let mut placements = None;
    let mut scal = Vec::new();
    let mut settings = AppSettings::default();
    for f in files {
        let base = base_name(&f.path);
        if base == "placements.csv" {
            placements = Some(parse_placements(&f.path, &f.text)?);
        } else if base == "scalability.csv" {
            scal = parse_scalability(&f.path, &f.text)?;
        } else if base == "app.json" {
            settings = serde_json::from_str(&f.text)
                .map_err(|e| WorkloadError::field(&f.path, e.line(), "json", e.to_string()))?;
        } else if let Some(b) = base
            .strip_prefix("validation-")
            .and_then(|s| s.strip_suffix(".csv"))
        {
            let batch: u32 = b.parse().ok().filter(|&v| v > 0).ok_or_else(|| {
                WorkloadError::file(
                    &f.path,
                    "the batch size in the name is not a positive whole number",
                )
            })?;
            validation.push((batch, parse_validation(&f.path, &f.text)?));
        }
    }
    let folder = format!("{app}/");
    let Some((by_shape, mut points)) = placements else {
        return Err(WorkloadError::file(&folder, "placements.csv is missing"));
    };
    if validation.is_empty() {
        return Err(WorkloadError::file(
            &folder,
            "no validation-<batch>.csv files",
        ));
    }
    validation.sort_by_key(|v| v.0);
    points.extend(scal);
    let (pts, vals): (Vec<[i64; 3]>, Vec<[f64; 2]>) = points.into_iter().unzip();
    let nd = LinearNd::new(&pts, &vals).ok();
    let epochs = validation.iter().map(|v| v.1.len()).min().unwrap_or(0);
    let milestones: Vec<f64> = (0..epochs)
        .map(|e| {
            validation
                .iter()
                .map(|v| v.1[e].progress)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let min_local = by_shape
        .values()
        .flatten()
        .map(|r| r[0])
        .fold(f64::INFINITY, f64::min);
    let max_local = by_shape
        .values()
        .flatten()
        .map(|r| r[0])
        .fold(0.0, f64::max);
    if !min_local.is_finite() {
        return Err(WorkloadError::file(
            &format!("{folder}placements.csv"),
            "no measurements",
        ));
    }
    let defaults = POLLUX_APP_DEFAULTS.iter().find(|d| d.0 == app);
    let max_epochs = settings
        .max_epochs
        .or(defaults.map(|d| d.1))
        .ok_or_else(|| {
            WorkloadError::file(
                &folder,
                "unknown application: give its epochs in app.json ({\"max_epochs\": N})",
            )
        })?;
    if max_epochs == 0 || max_epochs as usize > epochs {
        return Err(WorkloadError::file(
            &folder,
            format!("max_epochs {max_epochs} must be between 1 and the {epochs} epochs of the validation files"),
        ));
    }
    let init = validation.first().map(|v| v.0).unwrap_or(1);
    let max = validation.last().map(|v| v.0).unwrap_or(init);
    let bad = |field: &str, reason: &str| {
        Err(WorkloadError::file(
            &format!("{folder}app.json"),
            format!("{field}: {reason}"),
        ))
    };
    if settings.max_replicas == Some(0) {
        return bad("max_replicas", "must be at least 1");
    }
    if settings
        .max_local_bsz
        .is_some_and(|m| m == 0 || f64::from(m) < min_local)
    {
        return bad(
            "max_local_bsz",
            "must be at least the smallest measured per-GPU batch",
        );
    }
    if settings
        .fixed_batch_size
        .is_some_and(|b| b < init || b > max)
    {
        return bad(
            "fixed_batch_size",
            "must be within the validation files' batch sizes",
        );
    }
    if min_local < 1.0 {
        return Err(WorkloadError::file(
            &format!("{folder}placements.csv"),
            "local_bsz must be at least 1",
        ));
    }
    Ok(ElasticApp {
        name: app.to_string(),
        init_batch_size: init,
        max_batch_size: max,
        min_local_bsz: min_local as u32,
        max_local_bsz: settings
            .max_local_bsz
            .or(defaults.and_then(|d| d.2))
            .unwrap_or(max_local as u32),
        max_epochs,
        fixed_batch_size: settings.fixed_batch_size.or(defaults.and_then(|d| d.3)),
        max_replicas: settings.max_replicas.or(defaults.and_then(|d| d.4)),
        model: AppModel::Measured(Box::new(MeasuredApp {
            validation,
            placements: by_shape,
            nd,
            milestones,
        })),
        source: format!("measurements in {folder}"),
        user_configs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_normalisation() {
        assert_eq!(normalize_placement(&[2, 1, 1]), vec![1, 1, 2]);
        assert_eq!(normalize_placement(&[0, 4, 0, 2]), vec![2, 4]);
        assert_eq!(normalize_placement(&[1, 3, 2]), vec![1, 3, 2]);
        assert!(normalize_placement(&[0, 0]).is_empty());
    }

    #[test]
    fn interp1d_uses_left_segment() {
        let rows = [[1.0, 10.0, 1.0], [3.0, 30.0, 3.0], [5.0, 40.0, 4.0]];
        assert_eq!(interp1d(&rows, 2.0), Some((20.0, 2.0)));
        assert_eq!(interp1d(&rows, 4.0), Some((35.0, 3.5)));
        assert_eq!(interp1d(&rows, 1.0), Some((10.0, 1.0)));
        assert_eq!(interp1d(&rows, 6.0), None);
    }
}
