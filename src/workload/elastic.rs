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

use crate::model::goodput::{GoodputFunction, GradParams, PerfParams};
use crate::model::interp::LinearNd;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One row of a validation file: the state after an epoch at one batch size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ValidationRow {
    pub(crate) progress: f64,
    pub(crate) iteration: f64,
    pub(crate) grad_sqr: f64,
    pub(crate) grad_var: f64,
}

/// Validation rows of one batch size.
pub(crate) type BatchRows = (u32, Vec<ValidationRow>);

/// Measured (local batch, step time, sync time) rows per placement shape (GPUs per node,
/// as written), sorted by local batch.
pub(crate) type ShapeRows = BTreeMap<Vec<u32>, Vec<[f64; 3]>>;

/// Step times of an application measured on one GPU type.
#[derive(Debug, Clone)]
pub struct StepTable {
    /// Rows per placement shape; lookups use a shape's smallest rotation.
    pub(crate) placements: ShapeRows,
    /// Interpolation over (nodes, replicas, local batch) for shapes not measured.
    pub(crate) nd: Option<LinearNd>,
    /// Smallest and largest measured per-GPU batch.
    pub(crate) local: (u32, u32),
    /// Most servers a measurement spans (the servers of that type the profile had).
    pub(crate) max_nodes: u32,
    /// Largest measured per-GPU batch at each GPU count.
    pub(crate) max_local_at: BTreeMap<u32, u32>,
}

impl StepTable {
    /// (step, sync) for a normalised placement `shape` at `local_bsz`: the shape's own rows
    /// interpolated in the local batch, else the interpolation over all measurements.
    fn step_time(&self, shape: &[u32], local_bsz: u32) -> Option<(f64, f64)> {
        if let Some(rows) = self.placements.get(shape) {
            if let Some(v) = interp1d(rows, f64::from(local_bsz)) {
                return Some(v);
            }
        }
        let replicas: u32 = shape.iter().sum();
        let q = [
            f64::from((shape.len() as u32).min(16)),
            f64::from(replicas),
            f64::from(local_bsz),
        ];
        self.nd.as_ref()?.eval(q).map(|v| (v[0], v[1]))
    }
}

/// An application measured on real hardware (the Pollux and Sia simulators' inputs).
#[derive(Debug, Clone)]
pub struct MeasuredApp {
    /// Validation rows by batch size, ascending.
    pub(crate) validation: Vec<BatchRows>,
    /// Step times by GPU type; the empty name holds `placements.csv` (a type the folder
    /// does not name).
    pub(crate) tables: BTreeMap<String, StepTable>,
    /// Min progress over batch sizes at the end of each epoch.
    pub(crate) milestones: Vec<f64>,
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
    /// Throughput-model parameters on named GPU types (from the profile's per-type speeds);
    /// `perf` serves a type not named here on a cluster of one type.
    #[serde(skip)]
    pub types: BTreeMap<String, PerfSpec>,
}

/// The model of a rigid job as an elastic application.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidModel {
    /// The GPUs it runs on, always.
    pub gpus: u32,
    /// Steps to finish.
    pub steps: f64,
    /// Steps per second on each GPU type of the cluster (0 where it cannot run).
    pub rates: BTreeMap<String, f64>,
}

impl RigidModel {
    /// Steps per second on GPU type `gpu` (0 where it cannot run).
    pub fn rate(&self, gpu: &str) -> f64 {
        self.rates.get(gpu).copied().unwrap_or(0.0)
    }

    /// (step time, synchronisation time) on `replicas` GPUs of type `gpu`: one step in
    /// `1 / rate` seconds at its own count, nothing anywhere else.
    pub fn step_time(&self, gpu: Option<&str>, replicas: u32) -> Option<(f64, f64)> {
        let rate = self.rate(gpu?);
        (replicas == self.gpus && rate > 0.0).then(|| (1.0 / rate, 0.0))
    }

    /// Whether it can run on `replicas` GPUs of type `gpu`.
    pub fn runs_on(&self, gpu: &str, replicas: u32) -> bool {
        self.step_time(Some(gpu), replicas).is_some()
    }
}

/// Where an application's answers come from.
#[derive(Debug, Clone)]
pub enum AppModel {
    /// Measurements (the Pollux simulator's application folders).
    Measured(Box<MeasuredApp>),
    /// Pollux's model with given parameters.
    Modelled(ModelledApp),
    /// A rigid job of a round-based profile: one GPU count, one batch, a throughput per
    /// GPU type ([`super::as_elastic`]).
    Rigid(RigidModel),
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
    /// How many times longer each step takes than the model or the measurements say (1:
    /// as they say); Sia's per-application SLOWDOWN for its applications, or an
    /// experiment's setting.
    pub slowdown: f64,
    /// The restart delay of its jobs (s) when the experiment gives them none of their own
    /// (Sia's simulator gives each application its own).
    pub restart_s: Option<f64>,
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
    /// Application folders left out, with why (e.g. no known number of epochs).
    pub unread: Vec<(String, String)>,
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

    /// GPU types every application has its own speeds for, in name order.
    pub fn gpu_types(&self) -> Vec<String> {
        let mut common: Option<Vec<&str>> = None;
        for a in &self.apps {
            let t = a.gpu_types();
            common = Some(match common {
                None => t,
                Some(c) => c.into_iter().filter(|x| t.contains(x)).collect(),
            });
        }
        common
            .unwrap_or_default()
            .into_iter()
            .map(String::from)
            .collect()
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
        self.fixed_batch_within(replicas, batch, self.max_local_bsz)
    }

    /// [`ElasticApp::fixed_batch`] with at most `max_local` examples per GPU step (a GPU
    /// type's own limit).
    pub fn fixed_batch_within(
        &self,
        replicas: u32,
        batch: Option<f64>,
        max_local: u32,
    ) -> (u32, u32) {
        let rf = f64::from(replicas);
        let init = f64::from(self.init_batch_size);
        let b = batch.unwrap_or_else(|| init.max(f64::from(self.min_local_bsz) * rf));
        let local = ceil_eps(b / rf);
        let mut accum = (ceil_eps(local / f64::from(max_local.max(1))) - 1.0).max(0.0);
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
            AppModel::Rigid(r) => r.steps,
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
            AppModel::Rigid(r) => f64::from(epoch + 1) * r.steps,
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
            AppModel::Rigid(_) => GradParams { sqr: 1.0, var: 0.0 },
        }
    }

    /// (step time, synchronisation time) in seconds for `placement` (GPUs per node) at
    /// `local_bsz` examples per GPU on the application's unnamed GPU type, or None where the
    /// application cannot say.
    pub fn step_time(&self, placement: &[u32], local_bsz: u32) -> Option<(f64, f64)> {
        self.step_time_on(None, placement, local_bsz)
    }

    /// GPU types the application has its own speeds for, in name order.
    pub fn gpu_types(&self) -> Vec<&str> {
        match &self.model {
            AppModel::Measured(m) => m
                .tables
                .keys()
                .filter(|k| !k.is_empty())
                .map(String::as_str)
                .collect(),
            AppModel::Modelled(m) => m.types.keys().map(String::as_str).collect(),
            AppModel::Rigid(r) => r.rates.keys().map(String::as_str).collect(),
        }
    }

    /// The rigid job's model, when the application is one ([`super::as_elastic`]).
    pub fn rigid(&self) -> Option<&RigidModel> {
        match &self.model {
            AppModel::Rigid(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the application has its own speeds for GPU type `name`.
    pub fn knows_type(&self, name: &str) -> bool {
        !name.is_empty() && self.gpu_types().contains(&name)
    }

    /// Smallest and largest per-GPU batch on GPU type `gpu` (None: the application's
    /// unnamed type, with its settings).
    pub fn local_range(&self, gpu: Option<&str>) -> (u32, u32) {
        match (&self.model, gpu) {
            (AppModel::Measured(m), Some(t)) => m
                .tables
                .get(t)
                .map_or((self.min_local_bsz, self.max_local_bsz), |t| t.local),
            _ => (self.min_local_bsz, self.max_local_bsz),
        }
    }

    /// The largest per-GPU batch measured on named GPU type `gpu` at the measured GPU count
    /// nearest `replicas` (the lower on a tie): a job there runs at most at that batch (Sia's
    /// simulator clips it so at measured counts), where its step times are known.
    pub fn max_local_at(&self, gpu: &str, replicas: u32) -> Option<u32> {
        let AppModel::Measured(m) = &self.model else {
            return None;
        };
        let at = &m.tables.get(gpu)?.max_local_at;
        let below = at.range(..=replicas).next_back();
        let above = at.range(replicas..).next();
        match (below, above) {
            (Some(b), Some(a)) if a.0 - replicas < replicas - b.0 => Some(*a.1),
            (Some(b), _) => Some(*b.1),
            (None, a) => a.map(|a| *a.1),
        }
    }

    /// [`ElasticApp::step_time`] on GPU type `gpu` (None: the unnamed type); None as well
    /// for a type the application has no speeds for.
    pub fn step_time_on(
        &self,
        gpu: Option<&str>,
        placement: &[u32],
        local_bsz: u32,
    ) -> Option<(f64, f64)> {
        let shape = normalize_placement(placement);
        if shape.is_empty() {
            return None;
        }
        let nodes = shape.len() as u32;
        let replicas: u32 = shape.iter().sum();
        match &self.model {
            AppModel::Measured(m) => {
                let table = match gpu {
                    Some(t) => m.tables.get(t)?,
                    None => m.tables.get("").or_else(|| m.tables.values().next())?,
                };
                // A placement over more servers of a named type than it was measured on
                // runs as if packed evenly onto that many (Sia's simulator does the same).
                if gpu.is_some() && nodes > table.max_nodes.max(1) {
                    let per = replicas.div_ceil(table.max_nodes.max(1));
                    let packed = packed_placement(replicas, per);
                    return table.step_time(&normalize_placement(&packed), local_bsz);
                }
                table.step_time(&shape, local_bsz)
            }
            AppModel::Modelled(m) => {
                let perf = match gpu {
                    Some(t) => m.types.get(t)?,
                    None => &m.perf,
                };
                let g = GoodputFunction::new(
                    (*perf).into(),
                    GradParams { sqr: 1.0, var: 0.0 },
                    f64::from(self.init_batch_size),
                );
                let b = f64::from(local_bsz);
                let step = g.optim_time(nodes, replicas, b);
                let sync = (step - g.accum_time(b)).max(0.0);
                Some((step, sync))
            }
            AppModel::Rigid(r) => r.step_time(gpu, replicas),
        }
    }

    /// Examples per second of one GPU of type `gpu` (None: the unnamed type) at its
    /// largest per-GPU batch, as Sia's simulator rates a type to project a job's goodput
    /// onto a type it has not run on: the largest measured per-GPU batch over the largest
    /// measured step time of one-GPU placements (the model's step time there for modelled
    /// applications, the throughput for rigid jobs); None where the profile cannot say.
    pub fn single_gpu_speed(&self, gpu: Option<&str>) -> Option<f64> {
        let v = match &self.model {
            AppModel::Measured(m) => {
                let table = match gpu {
                    Some(t) => m.tables.get(t)?,
                    None => m.tables.get("").or_else(|| m.tables.values().next())?,
                };
                let rows = table.placements.get([1u32].as_slice())?;
                let local = rows.iter().map(|r| r[0]).fold(f64::NAN, f64::max);
                let step = rows.iter().map(|r| r[1]).fold(f64::NAN, f64::max);
                local / step
            }
            AppModel::Modelled(_) => {
                let (_, max_local) = self.local_range(gpu);
                let (step, _) = self.step_time_on(gpu, &[1], max_local)?;
                f64::from(max_local) / step
            }
            AppModel::Rigid(r) => r.rate(gpu?),
        };
        (v.is_finite() && v > 0.0).then_some(v)
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
