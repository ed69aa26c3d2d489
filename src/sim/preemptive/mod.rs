//! The preemptive simulator: jobs hold their GPUs until they finish or a policy suspends
//! them, and preemption costs what PickyMan's model says it costs.
//!
//! Time advances from event to event (arrivals, completions, the end of a suspension or of
//! a reload, and server failures under an experiment's failure settings: `faults.rs`); the
//! policy is asked at every event time. Its plan starts waiting jobs on free
//! GPUs and names running jobs to suspend, each for a waiting job:
//! - a suspended job keeps its GPUs and keeps training until its current epoch ends (it may
//!   finish instead), then writes a checkpoint; only then are its GPUs free;
//! - the GPUs it frees are kept for the waiting job it was suspended for, which starts as
//!   soon as all of its victims are done (or gives them back if it started otherwise);
//! - a job that resumes first reloads its checkpoint and its data, without progress.
//!
//! The mechanism charges these costs to every policy, whether it models them or not:
//! checkpoint and reload times are drawn around the model's values with the experiment's
//! noise. A job's first start costs nothing. Under a restart model of delays instead (a
//! delay: none, fixed or per type) a suspension frees the GPUs at once and every start,
//! the first included, costs the job's delay, as in the other mechanisms. Jobs take any
//! GPUs of a type: the mechanism decides with counts, and a job that starts holds the
//! lowest free GPU indices of its type (`gpus.rs`), which say which servers it runs on. On
//! a cluster of several GPU types each type is a pool: a job runs on one type at a time, at
//! that type's throughput; a job started without a reservation goes to the fastest type for
//! it with enough free GPUs ([`fit_type`]), and a job suspended for runs on its victims'
//! type. A job may resume on another type than it ran on (its checkpoint moves with it).

mod away;
pub mod contract;
mod faults;
mod gpus;
mod spot_jobs;
pub mod stepper;
mod suspension;

pub use contract::{PreemptPlan, PreemptView, PreemptivePolicy, Suspension};
pub use stepper::build;

use super::{RoundReport, SimError, SimEvent};
use crate::model::cluster::ClusterSpec;
use crate::model::job::{JobId, JobSpec};
use crate::model::restart::{JobOverhead, RestartModel};
use crate::rng::Rng;
use crate::workload::Profile;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not arrived yet.
    Pending,
    /// Waiting for GPUs (never started, or suspended).
    Waiting,
    /// Reloading its checkpoint and data before it trains again.
    Loading,
    /// Training.
    Running,
    /// Suspended: training to the end of its epoch before it checkpoints.
    Draining,
    /// Suspended: writing its checkpoint.
    Saving,
    /// Finished.
    Done,
}

/// What the preemptive simulator knows about a job.
#[derive(Debug, Clone, PartialEq)]
pub struct PreemptJob {
    /// GPUs it runs on.
    pub gpus: u32,
    /// Steps per second on the type it runs on (before its first start: on its fastest
    /// type) (the truth; policies that predict must not read it).
    pub speed: f64,
    /// Steps per second on each GPU type of the cluster (0 where it cannot run).
    pub speeds: Vec<f64>,
    /// The GPU type it runs on (or last ran on; before its first start, its fastest).
    pub gpu_type: usize,
    /// While waiting: the GPU type its reserved GPUs and pending victims are on.
    pub reserved_type: Option<usize>,
    /// Steps to do.
    pub total: f64,
    /// Steps done, up to date at the time the policy is asked.
    pub progress: f64,
    /// Where it is.
    pub phase: Phase,
    /// When the current loading, draining or saving ends (s).
    pub phase_end: f64,
    /// The modelled costs of suspending and resuming it.
    pub overhead: JobOverhead,
    /// Times it was suspended.
    pub preemptions: u32,
    /// GPU-seconds it held so far (up to the last event).
    pub attained: f64,
    /// Its first start (s).
    pub first_start: Option<f64>,
    /// Completion (s).
    pub finish: Option<f64>,
    /// While suspended: the waiting job its GPUs are for.
    pub suspended_for: Option<JobId>,
    /// While waiting: suspended jobs whose GPUs it waits for.
    pub victims_pending: u32,
    /// While waiting: GPUs already kept for it.
    pub reserved: u32,
    /// While waiting: GPUs its pending victims will free.
    pub pending_gpus: u32,
    /// When the job last went back to waiting (arrival or release), s.
    pub waiting_since: f64,
    seg_start: f64,
    seg_steps: f64,
    seg_overhead: f64,
    save_actual: f64,
    since: f64,
    /// While it holds GPUs: their indices within its type.
    ids: Vec<std::ops::Range<u32>>,
    /// Stopped by a server gone away: its next start is a restart after a failure.
    stopped: bool,
}

impl PreemptJob {
    /// Whether it holds GPUs.
    pub fn holds_gpus(&self) -> bool {
        matches!(
            self.phase,
            Phase::Loading | Phase::Running | Phase::Draining | Phase::Saving
        )
    }

    /// Steps left.
    pub fn remaining_steps(&self) -> f64 {
        (self.total - self.progress).max(0.0)
    }

    /// While it holds GPUs: their indices within its type, as ranges (the lowest free ones
    /// when it started).
    pub fn gpu_ids(&self) -> &[std::ops::Range<u32>] {
        &self.ids
    }
}

/// The GPU type job `job` starts on given the free GPUs of each type: the fastest for it
/// (ties to the earlier type) with at least its GPUs free, if any.
pub fn fit_type(job: &PreemptJob, free: &[u32]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (t, (&v, &f)) in job.speeds.iter().zip(free).enumerate() {
        if v > 0.0 && f >= job.gpus && best.is_none_or(|b| v > job.speeds[b]) {
            best = Some(t);
        }
    }
    best
}

/// The GPU types job `job` can run on, fastest first (ties to the earlier type).
pub fn types_by_speed(job: &PreemptJob) -> Vec<usize> {
    let mut t: Vec<usize> = (0..job.speeds.len())
        .filter(|&t| job.speeds[t] > 0.0)
        .collect();
    crate::order::sort_by(&mut t, |&a, &b| {
        job.speeds[b].total_cmp(&job.speeds[a]).then(a.cmp(&b))
    });
    t
}

/// The preemptive simulator.
pub struct PreemptiveSimulator {
    specs: Vec<JobSpec>,
    jobs: Vec<PreemptJob>,
    profile: Profile,
    model: RestartModel,
    policy: Box<dyn PreemptivePolicy>,
    total_gpus: u32,
    /// GPUs of each type.
    total: Vec<u32>,
    /// Free GPUs of each type.
    free: Vec<u32>,
    /// Which GPUs the jobs holding some hold.
    gpu_ids: gpus::GpuIds,
    order: Vec<JobId>,
    next_arrival: usize,
    /// Jobs that have arrived and are not done, by id.
    live: Vec<JobId>,
    /// The same jobs in arrival order.
    live_by_arrival: Vec<JobId>,
    now: f64,
    step: u64,
    max_steps: u64,
    started: bool,
    done: bool,
    mech_rng: Rng,
    policy_rng: Rng,
    /// Server failures and checkpoints, when the experiment has them.
    faults: Option<faults::Failures>,
    /// When the run stops, if it stops before its jobs are done (s).
    until: Option<f64>,
    /// Whether the workload has spot jobs (they yield to high-priority ones).
    spot_jobs: bool,
}

impl std::fmt::Debug for PreemptiveSimulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreemptiveSimulator")
            .field("policy", &self.policy.name())
            .field("now", &self.now)
            .finish()
    }
}

/// Relative tolerance on steps and times.
const EPS: f64 = 1e-9;

impl PreemptiveSimulator {
    /// A simulator of `specs` on the GPU types of `cluster`.
    pub fn new(
        cluster: &ClusterSpec,
        specs: Vec<JobSpec>,
        profile: Profile,
        model: RestartModel,
        seed: u64,
        policy: Box<dyn PreemptivePolicy>,
    ) -> Result<Self, SimError> {
        if cluster.types.is_empty() {
            return Err(SimError::Config {
                field: "cluster".into(),
                reason: "the cluster has no GPUs".into(),
            });
        }
        let total: Vec<u32> = cluster.types.iter().map(|t| t.count).collect();
        model.check().map_err(|e| SimError::Config {
            field: "preemption".into(),
            reason: e.to_string(),
        })?;
        let mut jobs = Vec::with_capacity(specs.len());
        for (id, s) in specs.iter().enumerate() {
            let bad = |reason: String| SimError::Job {
                job: id,
                job_type: s.job_type.clone(),
                reason,
            };
            if !(s.arrival.is_finite() && s.arrival >= 0.0) {
                return Err(bad(format!("arrival {} must be non-negative", s.arrival)));
            }
            if !(s.total_steps.is_finite() && s.total_steps > 0.0) {
                return Err(bad(format!(
                    "total steps {} must be positive",
                    s.total_steps
                )));
            }
            let largest = total.iter().copied().max().unwrap_or(0);
            if s.scale_factor == 0 || s.scale_factor > largest {
                return Err(bad(format!(
                    "needs {} GPUs; the cluster's largest GPU type has {largest}",
                    s.scale_factor
                )));
            }
            let speeds: Vec<f64> = cluster
                .types
                .iter()
                .map(|g| {
                    if s.scale_factor > g.count {
                        return 0.0;
                    }
                    profile
                        .throughput(&s.job_type, s.scale_factor, &g.name)
                        .filter(|v| v.is_finite() && *v > 0.0)
                        .unwrap_or(0.0)
                })
                .collect();
            let Some(gpu_type) = (0..speeds.len())
                .filter(|&t| speeds[t] > 0.0)
                .max_by(|&a, &b| speeds[a].total_cmp(&speeds[b]).then(b.cmp(&a)))
            else {
                let names: Vec<&str> = cluster.types.iter().map(|t| t.name.as_str()).collect();
                return Err(bad(format!(
                    "no throughput at scale factor {} on {}",
                    s.scale_factor,
                    names.join(", ")
                )));
            };
            let speed = speeds[gpu_type];
            let costs = profile
                .job_types
                .get(&s.job_type)
                .and_then(|p| p.preemption.as_ref());
            let mut overhead = model.job(costs, s.scale_factor, speed, s.restart_s);
            if let Some(e) = s.epoch_steps.filter(|e| e.is_finite() && *e >= 1.0) {
                overhead.epoch_steps = e;
            }
            jobs.push(PreemptJob {
                gpus: s.scale_factor,
                speed,
                speeds,
                gpu_type,
                reserved_type: None,
                total: s.total_steps,
                progress: 0.0,
                phase: Phase::Pending,
                phase_end: 0.0,
                overhead,
                preemptions: 0,
                attained: 0.0,
                first_start: None,
                finish: None,
                suspended_for: None,
                victims_pending: 0,
                reserved: 0,
                pending_gpus: 0,
                waiting_since: s.arrival,
                seg_start: 0.0,
                seg_steps: 0.0,
                seg_overhead: 0.0,
                save_actual: 0.0,
                since: 0.0,
                ids: Vec::new(),
                stopped: false,
            });
        }
        let order = super::arrival_order(&specs);
        let spot_jobs = specs.iter().any(|s| s.spot);
        let n = specs.len() as u64;
        Ok(PreemptiveSimulator {
            specs,
            jobs,
            profile,
            model,
            policy,
            total_gpus: total.iter().sum(),
            free: total.clone(),
            gpu_ids: gpus::GpuIds::new(&total),
            total,
            order,
            next_arrival: 0,
            live: Vec::new(),
            live_by_arrival: Vec::new(),
            now: 0.0,
            step: 0,
            max_steps: 200 * n + 10_000,
            started: false,
            done: false,
            mech_rng: Rng::for_purpose(seed, "preemption-overhead"),
            policy_rng: Rng::for_purpose(seed, "policy"),
            faults: None,
            until: None,
            spot_jobs,
        })
    }

    /// Time (s).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The jobs.
    pub fn jobs(&self) -> &[PreemptJob] {
        &self.jobs
    }

    /// GPUs neither held nor kept for a waiting job.
    pub fn free_gpus(&self) -> u32 {
        self.free.iter().sum()
    }

    /// Free GPUs of each type.
    pub fn free_by_type(&self) -> &[u32] {
        &self.free
    }

    /// The policy's spec.
    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }

    /// Whether job `id` has finished (or was given up on).
    pub fn job_done(&self, id: JobId) -> bool {
        self.jobs.get(id).is_some_and(|j| j.phase == Phase::Done)
    }

    /// Whether the run is over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The time of the next event after `now`, if any.
    fn next_event(&self) -> Option<f64> {
        let mut t = self
            .order
            .get(self.next_arrival)
            .map_or(f64::INFINITY, |&j| self.specs[j].arrival);
        let mut holding = false;
        for &id in &self.live {
            let j = &self.jobs[id];
            let at = match j.phase {
                Phase::Loading | Phase::Draining | Phase::Saving => j.phase_end,
                Phase::Running => j.since + self.finish_s(id),
                _ => continue,
            };
            holding = true;
            t = t.min(at);
        }
        // A failure can only hit jobs holding GPUs (or, with servers away, take GPUs out
        // of the pool).
        if holding {
            t = t.min(self.next_failure());
        }
        t = t.min(self.next_capacity_change());
        t.is_finite().then_some(t.max(self.now))
    }

    /// Bring training jobs' progress up to `t`.
    fn advance(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        if self.faults.is_some() {
            return self.advance_with_faults(t, events);
        }
        for &id in &self.live {
            let j = &mut self.jobs[id];
            if !j.holds_gpus() {
                continue;
            }
            let dt = (t - j.since).max(0.0);
            if matches!(j.phase, Phase::Running | Phase::Draining) {
                let steps = (j.speed * dt).min(j.remaining_steps());
                j.progress += steps;
                j.seg_steps += steps;
            }
            j.attained += dt * f64::from(j.gpus);
            j.since = t;
        }
    }

    /// End a holding segment: the `Ran` event and the GPUs back (to the job they are kept
    /// for, if any).
    fn release(&mut self, id: JobId, t: f64, events: &mut Vec<SimEvent>) {
        events.push(self.ran(id, t));
        let j = &mut self.jobs[id];
        let ty = j.gpu_type;
        let gpus = j.gpus;
        let ids = std::mem::take(&mut j.ids);
        self.gpu_ids.give_back(ty, &ids);
        match j.suspended_for.take() {
            Some(w) => {
                let k = &mut self.jobs[w];
                k.victims_pending = k.victims_pending.saturating_sub(1);
                k.pending_gpus = k.pending_gpus.saturating_sub(gpus);
                if k.phase == Phase::Waiting && k.reserved_type == Some(ty) {
                    k.reserved += gpus;
                } else {
                    self.free[ty] += gpus;
                }
            }
            None => self.free[ty] += gpus,
        }
    }

    /// Arrivals at `t` are admitted, jobs whose victims are all done start, and the policy
    /// decides; jobs it leaves waiting on an idle cluster with nothing to arrive are dropped.
    fn admit_and_decide(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        // Arrivals.
        while let Some(&id) = self.order.get(self.next_arrival) {
            if self.specs[id].arrival > t {
                break;
            }
            self.next_arrival += 1;
            if let Err(pos) = self.live.binary_search(&id) {
                self.live.insert(pos, id);
                self.live_by_arrival.push(id);
            }
            self.jobs[id].phase = Phase::Waiting;
            self.jobs[id].waiting_since = self.specs[id].arrival;
            events.push(SimEvent::Admitted {
                job: id,
                time: self.specs[id].arrival,
            });
        }
        // Jobs whose victims are all done start on the GPUs kept for them.
        for i in 0..self.live.len() {
            let id = self.live[i];
            let j = &self.jobs[id];
            if j.phase == Phase::Waiting
                && j.victims_pending == 0
                && j.reserved > 0
                && !self.start(id, t, events)
            {
                self.cancel_reservation(id);
            }
        }

        // The policy.
        let plan = {
            let view = PreemptView {
                now: t,
                total_gpus: self.total_gpus,
                free_gpus: self.free.iter().sum(),
                total_by_type: &self.total,
                free_by_type: &self.free,
                jobs: &self.jobs,
                specs: &self.specs,
                waiting: self
                    .live_by_arrival
                    .iter()
                    .copied()
                    .filter(|&j| self.jobs[j].phase == Phase::Waiting)
                    .collect(),
                running: self
                    .live
                    .iter()
                    .copied()
                    .filter(|&j| self.jobs[j].phase == Phase::Running)
                    .collect(),
                live: &self.live,
                model: &self.model,
                profile: &self.profile,
            };
            self.policy.decide(&view, &mut self.policy_rng)
        };
        for (job, duration_s) in plan.predictions {
            if job < self.jobs.len() && duration_s.is_finite() {
                events.push(SimEvent::Predicted {
                    job,
                    time: t,
                    duration_s,
                });
            }
        }
        for id in plan.start {
            if id < self.jobs.len() && self.jobs[id].victims_pending == 0 {
                self.start(id, t, events);
            }
        }
        for s in plan.suspend {
            self.suspend(s, t, events);
        }
        self.spot_jobs_yield(t, events);

        // Nothing holds GPUs, nothing will arrive, yet jobs wait: the policy will not run
        // them; give up on them rather than loop.
        if self.live.iter().all(|&j| !self.jobs[j].holds_gpus())
            && self.next_arrival >= self.order.len()
            && !self.capacity_may_return()
            && self
                .live
                .iter()
                .any(|&j| self.jobs[j].phase == Phase::Waiting)
        {
            for i in 0..self.live.len() {
                let id = self.live[i];
                if self.jobs[id].phase == Phase::Waiting {
                    self.jobs[id].phase = Phase::Done;
                    events.push(SimEvent::Dropped {
                        job: id,
                        time: t,
                        reason: "the policy left it waiting on an idle cluster".into(),
                    });
                }
            }
        }
    }

    /// The `Ran` event of job `id`'s holding segment, ended at `t`.
    fn ran(&self, id: JobId, t: f64) -> SimEvent {
        let j = &self.jobs[id];
        SimEvent::Ran {
            job: id,
            gpu_type: j.gpu_type,
            gpus: j.gpus,
            start: j.seg_start,
            end: t,
            busy_s: t - j.seg_start,
            steps: j.seg_steps,
            overhead_s: j.seg_overhead,
            shared_with: None,
        }
    }

    /// Start (or resume) a waiting job on its reserved GPUs and free ones of that type, or
    /// without a reservation on the type [`fit_type`] picks.
    fn start(&mut self, id: JobId, t: f64, events: &mut Vec<SimEvent>) -> bool {
        let j = &self.jobs[id];
        if j.phase != Phase::Waiting {
            return false;
        }
        let ty = match j.reserved_type {
            Some(ty) if j.reserved > 0 || j.victims_pending > 0 => ty,
            _ => match fit_type(j, &self.free) {
                Some(ty) => ty,
                None => return false,
            },
        };
        if j.reserved + self.free[ty] < j.gpus {
            return false;
        }
        let from_free = j.gpus - j.reserved.min(j.gpus);
        // Reserved GPUs beyond its need go back.
        self.free[ty] = self.free[ty] + j.reserved.saturating_sub(j.gpus) - from_free;
        let resume = j.first_start.is_some();
        let modelled = if resume {
            j.overhead.reload_s
        } else {
            j.overhead.start_s
        };
        let reload = if j.stopped {
            // A restart after a server went away, drawn as a failure's.
            self.restart_draw(modelled)
        } else if modelled > 0.0 || resume {
            self.model.draw(modelled, &mut self.mech_rng)
        } else {
            0.0
        };
        let ids = self.gpu_ids.take(ty, self.jobs[id].gpus, id);
        let j = &mut self.jobs[id];
        j.ids = ids;
        j.stopped = false;
        j.reserved = 0;
        j.reserved_type = None;
        j.gpu_type = ty;
        j.speed = j.speeds[ty];
        j.first_start.get_or_insert(t);
        j.seg_start = t;
        j.seg_steps = 0.0;
        j.seg_overhead = reload;
        j.since = t;
        if resume || reload > 0.0 {
            j.phase = Phase::Loading;
            j.phase_end = t + reload;
            if resume {
                events.push(SimEvent::Resumed {
                    job: id,
                    time: t,
                    reload_s: reload,
                    modelled_s: modelled,
                });
            }
        } else {
            j.phase = Phase::Running;
        }
        true
    }

    /// Simulate up to the next event and ask the policy; None once every job is done.
    pub fn step_round(&mut self) -> Option<RoundReport> {
        if self.done {
            return None;
        }
        let start = self.now;
        let t = if !self.started {
            self.started = true;
            match self.order.first() {
                Some(&j) => self.specs[j].arrival,
                None => {
                    self.done = true;
                    return None;
                }
            }
        } else {
            match self.next_event() {
                Some(t) => t,
                None => {
                    self.done = true;
                    return None;
                }
            }
        };
        // The run stops at its stop time, if it has one.
        let (t, stop) = match self.until {
            Some(u) if t >= u => (u, true),
            _ => (t, false),
        };
        let mut events = Vec::new();
        let mut busy_before: Vec<u32> = self
            .total
            .iter()
            .zip(&self.free)
            .map(|(t, f)| t - f)
            .collect();
        for &j in &self.live {
            let j = &self.jobs[j];
            if let Some(b) = j.reserved_type.and_then(|t| busy_before.get_mut(t)) {
                *b = b.saturating_sub(j.reserved);
            }
        }
        let holding_before = self
            .live
            .iter()
            .filter(|&&j| self.jobs[j].holds_gpus())
            .count();
        self.advance(t, &mut events);
        self.now = t;

        // Phase changes at `t`, by job id.
        for i in 0..self.live.len() {
            let id = self.live[i];
            let j = &self.jobs[id];
            let tol = EPS * t.abs().max(1.0);
            match j.phase {
                Phase::Running | Phase::Draining
                    if j.remaining_steps() <= EPS * j.total.max(1.0) =>
                {
                    self.jobs[id].progress = self.jobs[id].total;
                    self.jobs[id].phase = Phase::Done;
                    self.jobs[id].finish = Some(t);
                    self.release(id, t, &mut events);
                    events.push(SimEvent::Finished { job: id, time: t });
                }
                Phase::Draining if j.phase_end <= t + tol => {
                    let j = &mut self.jobs[id];
                    j.phase = Phase::Saving;
                    j.phase_end = t + j.save_actual;
                    j.seg_overhead += j.save_actual;
                    if j.save_actual <= 0.0 {
                        self.suspend_done(id, t, &mut events);
                    }
                }
                Phase::Saving if j.phase_end <= t + tol => self.suspend_done(id, t, &mut events),
                Phase::Loading if j.phase_end <= t + tol => {
                    self.jobs[id].phase = Phase::Running;
                }
                _ => {}
            }
        }
        self.fail_jobs(t, &mut events);
        if stop {
            self.close_segments(t, &mut events);
        } else {
            self.admit_and_decide(t, &mut events);
        }
        if self.live.iter().any(|&j| self.jobs[j].phase == Phase::Done) {
            self.live.retain(|&j| self.jobs[j].phase != Phase::Done);
            self.live_by_arrival
                .retain(|&j| self.jobs[j].phase != Phase::Done);
        }
        let active = self.live.len();
        events.push(SimEvent::RoundEnded {
            round: self.step,
            start,
            end: t,
            active,
            running: holding_before,
            busy_gpus: busy_before,
        });
        self.step += 1;
        if (self.live.is_empty() && self.next_arrival >= self.order.len())
            || self.step >= self.max_steps
            || stop
        {
            self.done = true;
        }
        Some(RoundReport {
            round: self.step - 1,
            start,
            end: t,
            events,
        })
    }
}
