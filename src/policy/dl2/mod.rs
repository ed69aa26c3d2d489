//! DL2's family: policies for the slot simulator ([`crate::sim::slots`]), where
//! parameter-server jobs get workers and parameter servers one action at a time in every
//! slot, after each active job got one of each.
//!
//! The heuristics DL2 is compared with live here, one per file: [`drf`] (dominant resource
//! fairness), [`fifo`] (oldest first), [`srtf`] (shortest remaining time first, with the
//! oracle's remaining time), [`optimus`] (the largest drop in a job's remaining time) and
//! [`tetris`] (multi-resource packing, server by server). In DL2-compatible mode they take
//! DL2's own forms ([`compat`]).
//! A policy implements [`SlotPolicy`]: it sees a [`crate::sim::slots::SlotView`] (DL2's
//! per-job state, the free GPUs and CPUs, which actions fit) and answers one
//! [`SlotAction`].

pub mod bundled;
pub mod compat;
pub mod drf;
pub mod fifo;
pub mod learned;
pub mod optimus;
pub mod srtf;
pub mod tetris;

use super::registry::{build_from, build_spec, checked, ParamInfo, Params, Registered};
use super::spec::Spec;
use super::PolicyError;
use crate::model::job::JobId;
use crate::nn::Mlp;
use crate::policy::papers;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView};

/// A registered slot policy.
pub type SlotPolicyInfo = Registered<dyn SlotPolicy>;

/// The parameter of the policies that grow one job at a time.
pub const GAIN_PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "min_gain",
    default: "0.05",
    help: "smallest relative speed-up worth another task for the job being grown",
}];

/// Policies for parameter-server (slot) experiments, in listing order.
pub fn policies() -> &'static [SlotPolicyInfo] {
    const LIST: &[SlotPolicyInfo] = &[
        Registered::new(
            LEARNED,
            "dl2",
            &papers::DL2,
            "DL2: a neural network over the first jobs' states picks one action at a time (a worker, a parameter server or both for a job, or stop); warmed up on DRF's decisions, tuned by actor-critic reinforcement learning (the bundled network, trained by orrery dl2 train).",
            learned::PARAMS,
            learned::Dl2::build,
        ),
        Registered::new(
            "drf",
            "dl2",
            &papers::DRF,
            "Dominant resource fairness: each action goes to the job with the smallest dominant share (GPUs or CPUs), as a worker or a parameter server, whichever speeds it up more.",
            &[],
            drf::Drf::build,
        ),
        Registered::new(
            "fifo",
            "dl2",
            &papers::GAVEL,
            "First in, first out: the oldest job gets workers and parameter servers while each speeds it up by at least min_gain (0.05), then the next.",
            GAIN_PARAMS,
            fifo::Fifo::build,
        ),
        Registered::new(
            "srtf",
            "dl2",
            &papers::SCHRAGE,
            "Shortest remaining time first (oracle, at one worker and one parameter server): the shortest job gets tasks while each speeds it up by at least min_gain (0.05), then the next.",
            GAIN_PARAMS,
            srtf::Srtf::build,
        ),
        Registered::new(
            "optimus",
            "dl2",
            &papers::OPTIMUS,
            "Optimus: each action is the worker or parameter server that cuts some job's remaining time the most, over all jobs, while any cuts it.",
            &[],
            optimus::Optimus::build,
        ),
        Registered::new(
            "tetris",
            "dl2",
            &papers::TETRIS,
            "Tetris as DL2 compares with it: servers filled in index order, each with bundles (a worker and a parameter server) for the job of the best packing score (free slots dot the bundle, plus a weighted term of the bundle times the work left), until the best job's bundle does not fit.",
            &[],
            tetris::Tetris::build,
        ),
    ];
    LIST
}

/// Build a slot policy from its spec (`dl2` with the bundled network).
pub fn build(spec: &str) -> Result<Box<dyn SlotPolicy>, PolicyError> {
    build_from(policies(), spec)
}

/// Build a slot policy from its spec for an experiment with `types` job types, in
/// DL2-compatible mode or not: `dl2` runs `network` when given, else the bundled network
/// of that world; either must take the encoding of `types` job types.
pub fn build_with(
    spec: &str,
    network: Option<&Mlp>,
    types: usize,
    dl2_compat: bool,
) -> Result<Box<dyn SlotPolicy>, PolicyError> {
    build_with_spec(&Spec::parse(spec)?, network, types, dl2_compat)
}

/// [`build_with`] from a parsed spec.
pub fn build_with_spec(
    spec: &Spec,
    network: Option<&Mlp>,
    types: usize,
    dl2_compat: bool,
) -> Result<Box<dyn SlotPolicy>, PolicyError> {
    let info = learned_entry()?;
    if spec.name != info.name {
        return build_spec(policies(), spec);
    }
    let params = checked(spec, info.params)?;
    Ok(Box::new(learned::Dl2::from_params(
        &params, network, types, dl2_compat,
    )?))
}

/// The name of the learned policy.
const LEARNED: &str = "dl2";

/// The entry of the learned policy.
fn learned_entry() -> Result<&'static SlotPolicyInfo, PolicyError> {
    policies()
        .iter()
        .find(|p| p.name == LEARNED)
        .ok_or_else(|| PolicyError::Unknown(LEARNED.into()))
}

/// Check a slot policy's spec as [`build`] would; `dl2` with the bundled network is checked
/// without building it when the network is not loaded yet (the page fetches it when needed).
pub fn check(spec: &str) -> Result<(), PolicyError> {
    check_spec(&Spec::parse(spec)?)
}

/// [`check`] of a parsed spec.
pub fn check_spec(spec: &Spec) -> Result<(), PolicyError> {
    match unloaded_dl2(spec)? {
        Some(params) => learned::Dl2::check_params(&params),
        None => build_spec(policies(), spec).map(drop),
    }
}

/// Check a slot policy's spec for an experiment with `types` job types (in DL2-compatible
/// mode or not) as [`build_with`] would; `dl2` with the bundled networks not loaded yet is
/// checked against its world's network's shape ([`bundled::World::shape`]).
pub fn check_with(
    spec: &str,
    network: Option<&Mlp>,
    types: usize,
    dl2_compat: bool,
) -> Result<(), PolicyError> {
    let spec = Spec::parse(spec)?;
    match unloaded_dl2(&spec)? {
        Some(params) if network.is_none() => {
            learned::Dl2::check_bundled(&params, types, dl2_compat)
        }
        _ => build_with_spec(&spec, network, types, dl2_compat).map(drop),
    }
}

/// The parameters of a `dl2` spec when the bundled network is not loaded yet.
fn unloaded_dl2(spec: &Spec) -> Result<Option<Params>, PolicyError> {
    let info = learned_entry()?;
    if spec.name != info.name || bundled::available() {
        return Ok(None);
    }
    checked(spec, info.params).map(Some)
}

/// The action that lets job `id` train at all when it lacks a worker or a parameter
/// server (None when it has both, or when what it lacks does not fit).
pub fn completing_action(view: &SlotView, id: JobId) -> Option<SlotAction> {
    let j = view.jobs.get(id)?;
    let a = match (j.workers, j.ps) {
        (0, 0) => SlotAction::AddBoth(id),
        (0, _) => SlotAction::AddWorker(id),
        (_, 0) => SlotAction::AddPs(id),
        _ => return None,
    };
    view.can(a).then_some(a)
}

/// The task that speeds job `id` up the most, with its relative speed-up, if it gains at
/// least `min_gain`: a worker or a parameter server (a worker on ties), or else both at
/// once. A job lacking a worker or a parameter server gets what it lacks (an infinite
/// gain).
pub fn best_growth(view: &SlotView, id: JobId, min_gain: f64) -> Option<(SlotAction, f64)> {
    let j = view.jobs.get(id)?;
    let (w, p) = (j.workers, j.ps);
    if w == 0 || p == 0 {
        return completing_action(view, id).map(|a| (a, f64::INFINITY));
    }
    let s0 = view.speed(id, w, p);
    if s0 <= 0.0 {
        return None;
    }
    let gain = |a: SlotAction| {
        let (dw, dp) = a.adds();
        view.speed(id, w + dw, p + dp) / s0 - 1.0
    };
    let single = [SlotAction::AddWorker(id), SlotAction::AddPs(id)]
        .into_iter()
        .filter(|&a| view.can(a))
        .map(|a| (a, gain(a)))
        .fold(None, |best: Option<(SlotAction, f64)>, (a, g)| match best {
            Some((_, bg)) if bg >= g => best,
            _ => Some((a, g)),
        });
    if let Some((a, g)) = single.filter(|&(_, g)| g >= min_gain) {
        return Some((a, g));
    }
    let both = SlotAction::AddBoth(id);
    if view.can(both) {
        let g = gain(both);
        if g >= min_gain {
            return Some((both, g));
        }
    }
    None
}
