//! The baselines of PickyMan's evaluation: preemptive SRTF and LAS, which choose victims by
//! priority alone (the simulator still charges them every suspension's cost), and
//! non-preemptive FIFO.

use super::super::registry::Params;
use super::super::{ParamInfo, PolicyError};
use crate::job::JobId;
use crate::rng::Rng;
use crate::sim::preemptive::{PreemptPlan, PreemptView, PreemptivePolicy, Suspension};

/// The loop shared by the preemptive schedulers: waiting jobs in the given priority order
/// start on free GPUs when they fit; otherwise `pick(w, need, available)` may name running
/// jobs (among `available`, the ones not chosen yet) to suspend for `w`, which needs `need`
/// GPUs more than are free. Jobs already waiting for their victims are left alone.
pub(crate) fn priority_plan(
    view: &PreemptView,
    order: &[JobId],
    mut pick: impl FnMut(JobId, u32, &[JobId]) -> Option<Vec<Suspension>>,
) -> PreemptPlan {
    let mut plan = PreemptPlan::default();
    let mut free = view.free_gpus;
    let mut available: Vec<JobId> = view.running.clone();
    for &w in order {
        let job = &view.jobs[w];
        if job.victims_pending > 0 {
            continue;
        }
        if job.gpus <= free {
            plan.start.push(w);
            free -= job.gpus;
            continue;
        }
        let need = job.gpus - free;
        let Some(victims) = pick(w, need, &available) else {
            continue;
        };
        let freed: u32 = victims.iter().map(|s| view.jobs[s.victim].gpus).sum();
        if victims.is_empty() || freed < need {
            continue;
        }
        available.retain(|r| !victims.iter().any(|s| s.victim == *r));
        // The simulator keeps the free GPUs the job still needs for it.
        free -= free.min(job.gpus.saturating_sub(freed));
        plan.suspend.extend(victims);
    }
    plan
}

/// Victims by priority alone: among `available` jobs whose `key` is larger than `limit`,
/// the largest keys first, until `need` GPUs are covered.
pub(crate) fn blind_victims(
    view: &PreemptView,
    available: &[JobId],
    need: u32,
    limit: f64,
    for_job: JobId,
    key: impl Fn(JobId) -> f64,
) -> Option<Vec<Suspension>> {
    let mut cands: Vec<(f64, JobId)> = available
        .iter()
        .map(|&r| (key(r), r))
        .filter(|(k, _)| *k > limit)
        .collect();
    cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    let mut got = 0;
    for (_, r) in cands {
        if got >= need {
            break;
        }
        got += view.jobs[r].gpus;
        out.push(Suspension {
            victim: r,
            for_job,
            predicted_s: None,
        });
    }
    (got >= need).then_some(out)
}

fn sorted_by(view: &PreemptView, key: impl Fn(JobId) -> f64) -> Vec<JobId> {
    // `view.waiting` is in arrival order; the sort is stable.
    let mut order = view.waiting.clone();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
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
        priority_plan(view, &order, |w, need, available| {
            blind_victims(view, available, need, rem(w), w, rem)
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
        priority_plan(view, &order, |w, need, available| {
            blind_victims(view, available, need, level(w), w, level)
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
        let mut free = view.free_gpus;
        for &w in &view.waiting {
            let g = view.jobs[w].gpus;
            if g <= free {
                plan.start.push(w);
                free -= g;
            } else if !self.backfill {
                break;
            }
        }
        plan
    }
}
