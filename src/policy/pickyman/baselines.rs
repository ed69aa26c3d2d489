//! The baselines of PickyMan's evaluation: preemptive SRTF and LAS, which choose victims by
//! priority alone (the simulator still charges them every suspension's cost), and
//! non-preemptive FIFO.

use super::super::registry::Params;
use super::super::{ParamInfo, PolicyError};
use crate::model::job::JobId;
use crate::rng::Rng;
use crate::sim::preemptive::{
    fit_type, types_by_speed, PreemptPlan, PreemptView, PreemptivePolicy, Suspension,
};

/// What a scheduler's victim search answers for one waiting job.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pick {
    /// Suspend these (they free at least the GPUs needed).
    Victims(Vec<Suspension>),
    /// No suspension for this job.
    No,
    /// No candidate for this job nor any later one: stop looking.
    NoneLater,
}

/// The loop shared by the preemptive schedulers: waiting jobs in the given priority order
/// start on free GPUs when they fit on a type (the one the simulator picks, [`fit_type`]);
/// otherwise, type by type from the job's fastest, `pick(w, ty, need)` may name running
/// jobs of type `ty` to suspend for `w`, which needs `need` GPUs more than `ty` has free.
/// Jobs already waiting for their victims are left alone. Victims are looked for only for
/// the first waiting jobs that together ask for the cluster's GPUs (the others could not
/// all run next anyway).
pub(crate) fn priority_plan(
    view: &PreemptView,
    order: &[JobId],
    mut pick: impl FnMut(JobId, usize, u32) -> Pick,
) -> PreemptPlan {
    let mut plan = PreemptPlan::default();
    let mut free = view.free_by_type.to_vec();
    let mut searching = true;
    let mut tried = 0u32;
    for &w in order {
        let job = &view.jobs[w];
        if job.victims_pending > 0 {
            continue;
        }
        if let Some(ty) = fit_type(job, &free) {
            plan.start.push(w);
            free[ty] -= job.gpus;
            continue;
        }
        if !searching {
            continue;
        }
        tried += job.gpus;
        if tried > view.total_gpus {
            searching = false;
        }
        let mut none_later = true;
        for ty in types_by_speed(job) {
            if view.total_by_type.get(ty).is_none_or(|&t| t < job.gpus) {
                continue;
            }
            let need = job.gpus - free[ty];
            let victims = match pick(w, ty, need) {
                Pick::Victims(v) => v,
                Pick::No => {
                    none_later = false;
                    continue;
                }
                Pick::NoneLater => continue,
            };
            none_later = false;
            let freed: u32 = victims.iter().map(|s| view.jobs[s.victim].gpus).sum();
            // The simulator keeps the free GPUs the job still needs for it.
            free[ty] -= free[ty].min(job.gpus.saturating_sub(freed));
            plan.suspend.extend(victims);
            break;
        }
        if none_later {
            searching = false;
        }
    }
    plan
}

/// Running jobs as victim candidates, lowest priority (largest key) first.
#[derive(Debug, Clone)]
pub(crate) struct VictimQueue {
    order: Vec<(f64, JobId)>,
    taken: Vec<bool>,
}

impl VictimQueue {
    /// The running jobs of `view` that `allowed` admits, by descending `key` (ties by id).
    pub(crate) fn new(
        view: &PreemptView,
        key: impl Fn(JobId) -> f64,
        allowed: impl Fn(JobId) -> bool,
    ) -> Self {
        let mut order: Vec<(f64, JobId)> = view
            .running
            .iter()
            .copied()
            .filter(|&r| allowed(r))
            .map(|r| (key(r), r))
            .collect();
        crate::order::sort_by(&mut order, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let taken = vec![false; order.len()];
        VictimQueue { order, taken }
    }

    /// Untaken candidates on GPU type `ty` whose key exceeds `limit`, lowest priority
    /// first, as (position, job).
    pub(crate) fn eligible<'a>(
        &'a self,
        view: &'a PreemptView,
        limit: f64,
        ty: usize,
    ) -> impl Iterator<Item = (usize, JobId)> + 'a {
        self.order
            .iter()
            .enumerate()
            .take_while(move |(_, (k, _))| *k > limit)
            .filter(move |(i, (_, j))| !self.taken[*i] && view.jobs[*j].gpu_type == ty)
            .map(|(i, (_, j))| (i, *j))
    }

    /// Mark a candidate as chosen.
    pub(crate) fn take(&mut self, pos: usize) {
        self.taken[pos] = true;
    }

    /// Victims by priority alone: the lowest-priority eligible jobs of type `ty` until
    /// `need` GPUs are covered.
    pub(crate) fn blind(
        &mut self,
        view: &PreemptView,
        need: u32,
        limit: f64,
        for_job: JobId,
        ty: usize,
    ) -> Pick {
        let mut chosen = Vec::new();
        let mut got = 0;
        for (pos, r) in self.eligible(view, limit, ty) {
            if got >= need {
                break;
            }
            got += view.jobs[r].gpus;
            chosen.push((pos, r));
        }
        if chosen.is_empty() {
            return Pick::NoneLater;
        }
        if got < need {
            return Pick::No;
        }
        for &(pos, _) in &chosen {
            self.take(pos);
        }
        Pick::Victims(
            chosen
                .into_iter()
                .map(|(_, r)| Suspension {
                    victim: r,
                    for_job,
                    predicted_s: None,
                })
                .collect(),
        )
    }
}

fn sorted_by(view: &PreemptView, key: impl Fn(JobId) -> f64) -> Vec<JobId> {
    // `view.waiting` is in arrival order; the sort is stable.
    let mut order = view.waiting.clone();
    crate::order::sort_by(&mut order, |&a, &b| key(a).total_cmp(&key(b)));
    order
}

/// Preemptive shortest remaining time first with oracle remaining times.
#[derive(Debug)]
pub struct Srtf;

impl Srtf {
    /// Build (no parameters).
    pub fn build(_: &Params) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
        Ok(Box::new(Srtf))
    }
}

fn oracle_remaining(view: &PreemptView, j: JobId) -> f64 {
    let job = &view.jobs[j];
    job.remaining_steps() / job.speed
}

impl PreemptivePolicy for Srtf {
    fn name(&self) -> &str {
        "srtf"
    }

    fn decide(&mut self, view: &PreemptView, _rng: &mut Rng) -> PreemptPlan {
        let rem = |j| oracle_remaining(view, j);
        let order = sorted_by(view, rem);
        let mut queue = VictimQueue::new(view, rem, |_| true);
        priority_plan(view, &order, |w, ty, need| {
            queue.blind(view, need, rem(w), w, ty)
        })
    }
}

/// LAS's parameters.
pub const LAS_PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "quantum_gpu_h",
    default: "1",
    help: "service is compared in whole quanta of this many GPU-hours",
}];

/// Preemptive least attained service, counted in quanta of GPU-hours: a job preempts the
/// running jobs a whole quantum or more ahead of it (with no quantum, jobs whose service
/// differs by a hair would preempt each other at every event).
#[derive(Debug)]
pub struct Las {
    name: String,
    quantum_s: f64,
}

impl Las {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
        Ok(Box::new(Las {
            name: p.spec().to_string(),
            quantum_s: p.f64("quantum_gpu_h", 1.0, 1e-3, 1e6)? * 3600.0,
        }))
    }
}

impl PreemptivePolicy for Las {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PreemptView, _rng: &mut Rng) -> PreemptPlan {
        let level = |j: JobId| (view.jobs[j].attained / self.quantum_s).floor();
        let order = sorted_by(view, level);
        let mut queue = VictimQueue::new(view, level, |_| true);
        priority_plan(view, &order, |w, ty, need| {
            queue.blind(view, need, level(w), w, ty)
        })
    }
}

/// FIFO's parameters.
pub const FIFO_PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "backfill",
    default: "false",
    help: "let later jobs that fit start while the oldest waits",
}];

/// Non-preemptive first in, first out.
#[derive(Debug)]
pub struct Fifo {
    name: String,
    backfill: bool,
}

impl Fifo {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
        Ok(Box::new(Fifo {
            name: p.spec().to_string(),
            backfill: p.bool("backfill", false)?,
        }))
    }
}

impl PreemptivePolicy for Fifo {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PreemptView, _rng: &mut Rng) -> PreemptPlan {
        let mut plan = PreemptPlan::default();
        let mut free = view.free_by_type.to_vec();
        for &w in &view.waiting {
            let job = &view.jobs[w];
            if let Some(ty) = fit_type(job, &free) {
                plan.start.push(w);
                free[ty] -= job.gpus;
            } else if !self.backfill {
                break;
            }
        }
        plan
    }
}
