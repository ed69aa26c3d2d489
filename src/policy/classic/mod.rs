//! Classic, heterogeneity-unaware baselines. Most answer with a priority order: the mechanism
//! fills GPUs greedily in that order (a job keeps its GPU type when it has room there, and
//! otherwise goes to the type with the most free GPUs). [`optimus`], [`drf`] and [`tetris`]
//! place jobs on GPU types themselves ([`Placing`]).

pub mod drf;
pub mod optimus;
pub mod tetris;
pub mod tiresias;

use super::{Decision, Policy, PolicyError, PolicyView};
use crate::policy::papers;
use crate::policy::registry::{entry, PolicyInfo, NO_PARAMS};
use crate::rng::Rng;

/// A round-based policy that places each job on a GPU type itself, or leaves it waiting,
/// by the rule `place` ([`drf`], [`optimus`], [`tetris`]).
#[derive(Debug, Clone)]
pub struct Placing {
    name: String,
    place: fn(&PolicyView) -> Vec<Option<usize>>,
}

impl Placing {
    /// The policy named `name` placing jobs by `place`.
    pub fn new(name: &str, place: fn(&PolicyView) -> Vec<Option<usize>>) -> Self {
        Placing {
            name: name.into(),
            place,
        }
    }
}

impl Policy for Placing {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        Ok(placement_decision(view, (self.place)(view)))
    }
}

/// The decision that places each job of `view` with `Some(type)` in `placement` on all its
/// GPUs of that type (the placement policies' answer).
pub fn placement_decision(view: &PolicyView, placement: Vec<Option<usize>>) -> Decision {
    Decision::Assignment(
        placement
            .into_iter()
            .enumerate()
            .filter_map(|(j, t)| {
                t.map(|t| super::Assignment {
                    job: view.jobs[j].id,
                    gpu_type: t,
                    gpus: view.jobs[j].scale(),
                    gpu_ids: None,
                    batch_size: None,
                })
            })
            .collect(),
    )
}

/// How an [`OrderPolicy`] ranks jobs (smaller key first; ties by arrival, then id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderKey {
    /// Oracle total duration on the fastest GPU type (non-preemptive once started).
    ShortestJob,
    /// Oracle remaining time on the fastest GPU type.
    ShortestRemaining,
    /// GPU-seconds received so far.
    LeastAttained,
}

/// A policy that orders jobs by a key.
#[derive(Debug, Clone)]
pub struct OrderPolicy {
    name: String,
    key: OrderKey,
}

impl OrderPolicy {
    /// Shortest job first.
    pub fn sjf(name: &str) -> Self {
        OrderPolicy {
            name: name.into(),
            key: OrderKey::ShortestJob,
        }
    }
    /// Shortest remaining time first.
    pub fn srtf(name: &str) -> Self {
        OrderPolicy {
            name: name.into(),
            key: OrderKey::ShortestRemaining,
        }
    }
    /// Least attained service.
    pub fn las(name: &str) -> Self {
        OrderPolicy {
            name: name.into(),
            key: OrderKey::LeastAttained,
        }
    }
}

impl Policy for OrderPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let mut keyed: Vec<(u8, f64, f64, usize)> = view
            .jobs
            .iter()
            .map(|j| {
                let (class, k) = match self.key {
                    // SJF does not preempt: jobs already running keep going first.
                    OrderKey::ShortestJob => {
                        (u8::from(j.running_on.is_none()), j.total_time_fastest())
                    }
                    OrderKey::ShortestRemaining => (0, j.remaining_time_fastest()),
                    OrderKey::LeastAttained => (0, j.attained_service),
                };
                (class, k, j.spec.arrival, j.id)
            })
            .collect();
        crate::order::sort_by(&mut keyed, |a, b| {
            a.0.cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.total_cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        Ok(Decision::Order(keyed.into_iter().map(|k| k.3).collect()))
    }
}

/// The classic family's round-based policies, in listing order (the catalog joins every
/// family's lists).
pub const POLICIES: &[PolicyInfo] = &[
        entry!("sjf", "classic", &papers::SMITH, "Shortest job first by oracle total duration on the fastest GPU type.", NO_PARAMS,
            |p| Ok(Box::new(OrderPolicy::sjf(p.spec())))),
        entry!("srtf", "classic", &papers::SCHRAGE, "Shortest remaining time first (oracle), preemptive every round.", NO_PARAMS,
            |p| Ok(Box::new(OrderPolicy::srtf(p.spec())))),
        entry!("las", "classic", &papers::TIRESIAS, "Least attained service (GPU-seconds) first, preemptive every round.", NO_PARAMS,
            |p| Ok(Box::new(OrderPolicy::las(p.spec())))),
        entry!("tiresias", "classic", &papers::TIRESIAS, "Tiresias: two-queue discretised LAS on GPU-hours (threshold 16), first come first served within a queue.", tiresias::PARAMS,
            tiresias::Tiresias::build),
        entry!("optimus", "classic", &papers::OPTIMUS, "Optimus in rounds: jobs placed in submission order, then free GPUs to the move onto a faster type that cuts predicted remaining time most per GPU.", NO_PARAMS,
            |p| Ok(Box::new(Placing::new(p.spec(), optimus::Optimus::place)))),
        entry!("drf", "classic", &papers::DRF, "Dominant resource fairness over GPU types and time: smallest dominant share of GPU-seconds first, on the type that keeps it smallest.", NO_PARAMS,
            |p| Ok(Box::new(Placing::new(p.spec(), drf::Drf::place)))),
        entry!("tetris", "classic", &papers::TETRIS, "Tetris's packing as DL2 compares with it: GPU types filled in turn, each with the job of the best packing score (free GPUs times its GPUs, plus its GPUs times its work left, weighted), until the best does not fit.", NO_PARAMS,
            |p| Ok(Box::new(Placing::new(p.spec(), tetris::Tetris::place)))),
];
