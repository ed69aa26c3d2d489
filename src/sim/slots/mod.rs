//! The slot simulator of DL2: parameter-server jobs on servers of GPUs and CPUs, scheduled
//! afresh in every time slot by a policy that adds one task at a time.
//!
//! Every slot (`round_s`, 1,200 s in the bundled scenario as in DL2):
//! 1. jobs that arrived by the slot's start join the active set (arrival order);
//! 2. every allocation is released (DL2 decides each slot from scratch; a job that gets the
//!    same workers and parameter servers again keeps running without a restart);
//! 3. every active job, in arrival order, gets one worker and one parameter server if they
//!    fit (a job that gets neither waits this slot), the high-priority jobs before the spot
//!    jobs (a trace's `spot` column);
//! 4. the policy is called again and again with a [`SlotView`]; each call answers one
//!    [`SlotAction`] — a worker, a parameter server or both for one job, or stop. The
//!    simulator applies valid actions and calls again until the policy stops, no job can
//!    take another task, or the policy names an action that cannot be applied (which ends
//!    the slot's decisions and is counted as invalid);
//! 5. jobs with at least one worker and one parameter server train for the slot at the
//!    speed of their type's function of (workers, parameter servers); a job whose counts
//!    differ from the previous slot's (its first start included) spends the restart delay
//!    first; a job that completes mid-slot finishes at the exact time its work is done.
//!
//! A worker takes its type's GPUs and CPUs on one server (the server with the most free
//! GPUs, then the most free CPUs, then the lowest index); a parameter server takes its CPUs
//! on one server (the one with the most CPUs to spare beyond what its free GPUs' workers
//! would need, then the most free CPUs, then the lowest index). Placement does not change a
//! job's speed.
//!
//! The reward of a slot is DL2's: the sum over jobs of the fraction of their total work done
//! in the slot ([`SlotStep::reward`], also in the [`SimEvent::SlotEnded`] event).

pub mod compat;
pub mod contract;
mod faults;
mod setup;
pub mod stepper;
mod view;

pub use contract::{
    NoObserver, SlotAction, SlotObserver, SlotPolicy, SlotStep, ACTIONS_PER_JOB, STATE_FEATURES,
};
pub use stepper::build;

pub use setup::check_jobs;
use setup::{cfg_err, compute_factors, servers_of};
use view::arrival_cmp;
pub use view::{dominant_share, plan, SlotView};

use super::{RoundReport, SimError, SimEvent};
use crate::model::cluster::ClusterSpec;
use crate::model::job::{JobId, JobSpec};
use crate::model::restart::RestartModel;
use crate::rng::Rng;
use crate::workload::ps::{PsConfig, PsModels};
use std::sync::Arc;

pub use crate::sim::setup::PsSetup;

/// Settings of the slot simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotConfig {
    /// Seconds per slot.
    pub slot_s: f64,
    /// What a job pays, without progress, when its workers or parameter servers change: its
    /// own delay, or the model's.
    pub restart: RestartModel,
    /// CPUs per server and per-job caps.
    pub ps: PsConfig,
    /// Experiment seed (the policy's random stream derives from it).
    pub seed: u64,
    /// Stop after this many slots even if jobs remain.
    pub max_slots: u64,
    /// DL2's simulator's mechanism ([`compat`]).
    pub dl2_compat: bool,
}

impl Default for SlotConfig {
    fn default() -> Self {
        SlotConfig {
            slot_s: 1200.0,
            restart: RestartModel::delay(10.0),
            ps: PsConfig::default(),
            seed: 0,
            max_slots: 10_000_000,
            dl2_compat: false,
        }
    }
}

/// A server's capacity and what is free of it in the current slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotServer {
    /// GPUs.
    pub gpus: u32,
    /// CPUs.
    pub cpus: u32,
    /// GPUs not allocated.
    pub free_gpus: u32,
    /// CPUs not allocated.
    pub free_cpus: u32,
    /// Its GPU type (index into the cluster's types).
    pub gpu_type: usize,
}

/// What the slot simulator knows about a job.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotJob {
    /// Job id.
    pub id: JobId,
    /// Index of its type in the profile.
    pub model: usize,
    /// Arrival (s).
    pub arrival: f64,
    /// Steps to do (single-worker steps).
    pub total: f64,
    /// Steps done.
    pub progress: f64,
    /// Workers in the current slot.
    pub workers: u32,
    /// Parameter servers in the current slot.
    pub ps: u32,
    /// Workers in the previous slot.
    pub prev_workers: u32,
    /// Parameter servers in the previous slot.
    pub prev_ps: u32,
    /// Server of each worker in the current slot.
    pub worker_servers: Vec<usize>,
    /// Server of each parameter server in the current slot.
    pub ps_servers: Vec<usize>,
    /// Whether it has trained before.
    pub started: bool,
    /// Slots it trained in.
    pub slots_run: u64,
    /// Completion (s).
    pub finish: Option<f64>,
    /// Its restart delay (s): the experiment's, or its type's own.
    pub restart_s: f64,
    /// Restart delay still to pay (a delay longer than a slot carries on).
    pub restart_left: f64,
    /// A spot job (a trace's `spot` column): it gets its first tasks of a slot after the
    /// high-priority jobs.
    pub spot: bool,
    /// Its own checkpoint write time (s), if its type's profile entry gives one.
    pub checkpoint_write_s: Option<f64>,
}

impl SlotJob {
    /// Steps left.
    pub fn remaining_steps(&self) -> f64 {
        (self.total - self.progress).max(0.0)
    }

    /// Share of its work left (1 at arrival, 0 when done).
    pub fn remaining_fraction(&self) -> f64 {
        if self.total > 0.0 {
            self.remaining_steps() / self.total
        } else {
            0.0
        }
    }

    /// Whether it trains with its current allocation.
    pub fn trains(&self) -> bool {
        self.workers >= 1 && self.ps >= 1
    }
}

/// One recorded decision: DL2's state of the window and the action's index.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedDecision {
    /// Slot number.
    pub slot: u64,
    /// [`SlotView::state`] of the window.
    pub state: Vec<f64>,
    /// [`SlotView::action_mask`] of the window.
    pub mask: Vec<bool>,
    /// [`SlotView::action_index`] of the action.
    pub action: usize,
}

/// Records (state, action) pairs of a policy's applied decisions over a window of jobs,
/// and the reward of every slot: the supervised warm-up's training data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DecisionLog {
    /// Jobs in the window.
    pub window: usize,
    /// Applied decisions whose job is in the window (and stops), in order.
    pub decisions: Vec<LoggedDecision>,
    /// Applied decisions about jobs beyond the window (not recorded).
    pub outside_window: u64,
    /// Reward of each slot.
    pub rewards: Vec<f64>,
}

impl DecisionLog {
    /// An empty log for a window of `window` jobs.
    pub fn new(window: usize) -> Self {
        DecisionLog {
            window,
            ..Default::default()
        }
    }
}

impl SlotObserver for DecisionLog {
    fn decision(&mut self, view: &SlotView, action: SlotAction, applied: bool) {
        if !applied && action != SlotAction::Stop {
            return;
        }
        match view.action_index(self.window, action) {
            Some(index) => self.decisions.push(LoggedDecision {
                slot: view.slot,
                state: view.state(self.window),
                mask: view.action_mask(self.window),
                action: index,
            }),
            None => self.outside_window += 1,
        }
    }

    fn slot_end(&mut self, step: &SlotStep) {
        self.rewards.push(step.reward);
    }
}

/// The slot simulator.
pub struct SlotSimulator {
    cfg: SlotConfig,
    models: Arc<PsModels>,
    jobs: Vec<SlotJob>,
    servers: Vec<SlotServer>,
    policy: Box<dyn SlotPolicy>,
    order: Vec<JobId>,
    next_arrival: usize,
    /// Active jobs in arrival order.
    active: Vec<JobId>,
    slot: u64,
    done: bool,
    rng: Rng,
    total_gpus: u32,
    total_cpus: u32,
    /// Compute speed of each GPU type relative to the profile's hardware.
    factors: Vec<f64>,
    /// Failures and checkpoints, in runs with them.
    faults: Option<faults::SlotFaults>,
    /// When the run stops, if before every job is done.
    until: Option<f64>,
}

impl std::fmt::Debug for SlotSimulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlotSimulator")
            .field("policy", &self.policy.name())
            .field("slot", &self.slot)
            .finish()
    }
}

impl SlotSimulator {
    /// A simulator of `specs` on `cluster` (one GPU type in whole servers, with the CPUs of
    /// `cfg.ps`), job types from `models`.
    pub fn new(
        cfg: SlotConfig,
        cluster: &ClusterSpec,
        specs: Vec<JobSpec>,
        models: Arc<PsModels>,
        policy: Box<dyn SlotPolicy>,
    ) -> Result<Self, SimError> {
        if !(cfg.slot_s.is_finite() && cfg.slot_s >= 1.0) {
            return Err(cfg_err("round_s", "a slot must last at least 1 s"));
        }
        if cfg.restart.check_delay().is_err() {
            return Err(cfg_err("restart_cost_s", "between 0 and 86,400 s"));
        }
        check_jobs(cluster, &cfg.ps, &specs, &models)?;
        let servers = servers_of(cluster, &cfg.ps)?;
        let factors = compute_factors(cluster, &models)?;
        let jobs: Vec<SlotJob> = specs
            .iter()
            .enumerate()
            .map(|(id, s)| SlotJob {
                id,
                model: models.index(&s.job_type).unwrap_or(0),
                arrival: s.arrival,
                total: s.total_steps,
                progress: 0.0,
                workers: 0,
                ps: 0,
                prev_workers: 0,
                prev_ps: 0,
                worker_servers: Vec::new(),
                ps_servers: Vec::new(),
                started: false,
                slots_run: 0,
                finish: None,
                restart_s: if cfg.dl2_compat {
                    0.0
                } else {
                    cfg.restart.delay_of(s.restart_s)
                },
                restart_left: 0.0,
                spot: s.spot,
                checkpoint_write_s: s.checkpoint_write_s,
            })
            .collect();
        let mut order: Vec<JobId> = (0..jobs.len()).collect();
        crate::order::sort_by(&mut order, |&a, &b| arrival_cmp(&jobs, a, b));
        let total_gpus = servers.iter().map(|s| s.gpus).sum();
        let total_cpus = servers.iter().map(|s| s.cpus).sum();
        let rng = Rng::for_purpose(cfg.seed, "policy");
        Ok(SlotSimulator {
            cfg,
            models,
            jobs,
            servers,
            policy,
            order,
            next_arrival: 0,
            active: Vec::new(),
            slot: 0,
            done: false,
            rng,
            total_gpus,
            total_cpus,
            factors,
            faults: None,
            until: None,
        })
    }

    /// A copy of the whole simulation as it stands (jobs, servers, slot, random stream)
    /// with `policy` deciding from now on: with the same policy it plays the same slots
    /// as this one.
    pub fn fork(&self, policy: Box<dyn SlotPolicy>) -> SlotSimulator {
        SlotSimulator {
            cfg: self.cfg.clone(),
            models: Arc::clone(&self.models),
            jobs: self.jobs.clone(),
            servers: self.servers.clone(),
            policy,
            order: self.order.clone(),
            next_arrival: self.next_arrival,
            active: self.active.clone(),
            slot: self.slot,
            done: self.done,
            rng: self.rng.clone(),
            total_gpus: self.total_gpus,
            total_cpus: self.total_cpus,
            factors: self.factors.clone(),
            faults: self.faults.clone(),
            until: self.until,
        }
    }

    /// Let `policy` decide from the next slot on.
    pub fn set_policy(&mut self, policy: Box<dyn SlotPolicy>) {
        self.policy = policy;
    }

    /// Restart the policy's random stream from `seed` (for example to give forks of one
    /// simulation their own random choices).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::for_purpose(seed, "policy");
    }

    /// Number of the next slot to simulate (0-based).
    pub fn current_slot(&self) -> u64 {
        self.slot
    }

    /// Start of the current slot (s).
    pub fn now(&self) -> f64 {
        self.slot as f64 * self.cfg.slot_s
    }

    /// The jobs.
    pub fn jobs(&self) -> &[SlotJob] {
        &self.jobs
    }

    /// The servers (with the allocation of the last slot).
    pub fn servers(&self) -> &[SlotServer] {
        &self.servers
    }

    /// Active jobs in arrival order.
    pub fn active(&self) -> &[JobId] {
        &self.active
    }

    /// The job types.
    pub fn models(&self) -> &PsModels {
        &self.models
    }

    /// The settings.
    pub fn config(&self) -> &SlotConfig {
        &self.cfg
    }

    /// The policy's spec.
    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }

    /// Whether job `id` has finished.
    pub fn job_done(&self, id: JobId) -> bool {
        self.jobs.get(id).is_some_and(|j| j.finish.is_some())
    }

    /// Whether the run is over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Simulate one slot; None once every job is done.
    pub fn step_round(&mut self) -> Option<RoundReport> {
        self.step_slot(&mut NoObserver).map(|s| s.report)
    }

    /// Apply `action` to the current slot's allocation if it can be; returns whether it
    /// was.
    fn apply(&mut self, action: SlotAction) -> bool {
        let Some(id) = action.job() else {
            return false;
        };
        let Some(j) = self.jobs.get(id) else {
            return false;
        };
        let Some(m) = self.models.models.get(j.model) else {
            return false;
        };
        let (dw, dp) = action.adds();
        if j.finish.is_some()
            || j.workers + dw > self.cfg.ps.max_workers
            || j.ps + dp > self.cfg.ps.max_ps
            || self
                .active
                .binary_search_by(|&a| arrival_cmp(&self.jobs, a, id))
                .is_err()
        {
            return false;
        }
        let keep = j
            .worker_servers
            .first()
            .and_then(|&s| self.servers.get(s))
            .map(|s| s.gpu_type);
        let placed = match action {
            SlotAction::AddBothOn(_, s) => compat::on(&self.servers, m, s),
            _ if self.cfg.dl2_compat => compat::plan(&self.servers, m, dw == 1, dp == 1),
            _ => plan(&self.servers, m, dw == 1, dp == 1, keep),
        };
        let Some((ws, ps)) = placed else {
            return false;
        };
        let (wg, wc, pc) = (m.worker_gpus, m.worker_cpus, m.ps_cpus);
        let j = &mut self.jobs[id];
        if let Some(s) = ws {
            self.servers[s].free_gpus -= wg;
            self.servers[s].free_cpus -= wc;
            j.workers += 1;
            j.worker_servers.push(s);
        }
        if let Some(s) = ps {
            self.servers[s].free_cpus -= pc;
            j.ps += 1;
            j.ps_servers.push(s);
        }
        true
    }

    /// The view the policy would get now (between slots: the last slot's allocation).
    pub fn current_view(&self) -> SlotView<'_> {
        view_of(
            &self.cfg,
            self.slot,
            (self.total_gpus, self.total_cpus),
            &self.jobs,
            &self.active,
            &self.servers,
            &self.models,
        )
    }

    /// Simulate one slot, telling `observer` about every decision; None once every job is
    /// done.
    pub fn step_slot(&mut self, observer: &mut dyn SlotObserver) -> Option<SlotStep> {
        if self.done {
            return None;
        }
        if self.slot >= self.cfg.max_slots
            || (self.active.is_empty() && self.next_arrival >= self.order.len())
            || self.until.is_some_and(|u| self.now() >= u)
        {
            self.done = true;
            return None;
        }
        let start = self.now();
        // A stop time inside the slot ends it there.
        let (end, slot_s) = match self.until {
            Some(u) if u < start + self.cfg.slot_s => (u, u - start),
            _ => (start + self.cfg.slot_s, self.cfg.slot_s),
        };
        let mut events = Vec::new();
        // Servers away (for repair, or spot instances taken back) offer nothing.
        let away = self.servers_away(start, &mut events);
        let failures = self.failures_until(end, &mut events);
        // 1. Arrivals.
        while let Some(&id) = self.order.get(self.next_arrival) {
            if self.jobs[id].arrival > start {
                break;
            }
            self.next_arrival += 1;
            self.active.push(id);
            events.push(SimEvent::Admitted {
                job: id,
                time: start,
            });
        }
        // 2. Release every allocation.
        for s in &mut self.servers {
            s.free_gpus = s.gpus;
            s.free_cpus = s.cpus;
        }
        for &k in &away {
            (self.servers[k].free_gpus, self.servers[k].free_cpus) = (0, 0);
        }
        for (k, n) in self.gpus_away(start) {
            let s = &mut self.servers[k];
            s.free_gpus = s.free_gpus.saturating_sub(n);
        }
        for &id in &self.active {
            let j = &mut self.jobs[id];
            j.prev_workers = j.workers;
            j.prev_ps = j.ps;
            j.workers = 0;
            j.ps = 0;
            j.worker_servers.clear();
            j.ps_servers.clear();
        }
        // 3. One worker and one parameter server for every job, in arrival order: the
        // high-priority jobs' first, then the spot jobs' (Alibaba's `Spot` type yields).
        if !self.cfg.dl2_compat || self.policy.bundle_first() {
            for spot in [false, true] {
                for i in 0..self.active.len() {
                    let id = self.active[i];
                    if self.jobs[id].spot == spot {
                        self.apply(SlotAction::AddBoth(id));
                    }
                }
            }
        }
        // 4. The policy, one action at a time.
        let (mut actions, mut invalid) = (0u32, 0u32);
        loop {
            let (action, valid) = {
                let view = view_of(
                    &self.cfg,
                    self.slot,
                    (self.total_gpus, self.total_cpus),
                    &self.jobs,
                    &self.active,
                    &self.servers,
                    &self.models,
                );
                // DL2's heuristics try their tasks and stop at the first that does not
                // fit: in its mode the policy alone decides when the slot's decisions end.
                if !self.cfg.dl2_compat && !view.any_action() {
                    break;
                }
                let action = self.policy.act(&view, &mut self.rng);
                let valid = action != SlotAction::Stop && view.can(action);
                observer.decision(&view, action, valid);
                (action, valid)
            };
            if action == SlotAction::Stop {
                break;
            }
            if valid && self.apply(action) {
                actions += 1;
            } else {
                invalid += 1;
                break;
            }
        }
        // 5. Training.
        let mut reward = 0.0;
        let mut busy_gpus = vec![0u32; self.factors.len()];
        let (mut busy_cpus, mut running) = (0u32, 0usize);
        let (mut worker_s, mut ps_s, mut job_s) = (0.0, 0.0, 0.0);
        let held = if failures.is_some() {
            self.held()
        } else {
            Vec::new()
        };
        for &id in &self.active {
            let j = &mut self.jobs[id];
            let Some(m) = self.models.models.get(j.model) else {
                continue;
            };
            let changed = (j.workers, j.ps) != (j.prev_workers, j.prev_ps);
            if let (true, Some(f)) = (changed, self.faults.as_mut()) {
                f.state.checkpointed(id);
            }
            if changed {
                events.push(SimEvent::PsAllocated {
                    job: id,
                    time: start,
                    workers: j.workers,
                    ps: j.ps,
                });
            }
            if !j.trains() {
                if j.prev_workers >= 1 && j.prev_ps >= 1 {
                    events.push(SimEvent::Preempted {
                        job: id,
                        time: start,
                    });
                }
                continue;
            }
            // A change (the first start included) costs the job's delay; a delay longer than
            // the slot carries into the next while the counts stay.
            let due = if changed { j.restart_s } else { j.restart_left };
            let delay = due.min(slot_s);
            j.restart_left = due - delay;
            if changed && j.started {
                events.push(SimEvent::Restarted {
                    job: id,
                    time: start,
                });
            }
            // A synchronous step waits for the slowest worker's GPU.
            let slowest = j
                .worker_servers
                .iter()
                .filter_map(|&s| self.servers.get(s))
                .map(|s| s.gpu_type)
                .min_by(|&a, &b| self.factors[a].total_cmp(&self.factors[b]))
                .unwrap_or(0);
            let speed = m.speed_at(
                j.workers,
                j.ps,
                self.factors.get(slowest).copied().unwrap_or(1.0),
            );
            let (done, used, delay) = match (self.faults.as_mut(), &failures) {
                (Some(f), Some(failures)) => {
                    let gpus = j.workers * m.worker_gpus;
                    let empty = crate::sim::faults::Held::default();
                    let run = faults::run_slot(
                        f,
                        (j, held.get(id).unwrap_or(&empty)),
                        (start, slot_s),
                        (speed, due, gpus),
                        failures,
                        &mut events,
                    );
                    if run.writing > 0.0 {
                        events.push(SimEvent::Checkpointed {
                            job: id,
                            time: start + run.used,
                            gpus,
                            write_s: run.writing,
                        });
                    }
                    (run.done, run.used, run.delay)
                }
                _ => {
                    let left = j.remaining_steps();
                    let steps = speed * (slot_s - delay);
                    let (done, used) = if speed > 0.0 && steps >= left {
                        (left, (delay + left / speed).min(slot_s))
                    } else {
                        (steps, slot_s)
                    };
                    j.progress = if done >= left {
                        j.total
                    } else {
                        j.progress + done
                    };
                    (done, used, delay)
                }
            };
            j.started = true;
            j.slots_run += 1;
            if j.total > 0.0 {
                reward += done / j.total;
            }
            // One record per GPU type its workers are on (the steps on the first).
            let mut per_type: Vec<(usize, u32)> = Vec::new();
            for &s in &j.worker_servers {
                let Some(t) = self.servers.get(s).map(|s| s.gpu_type) else {
                    continue;
                };
                match per_type.iter_mut().find(|x| x.0 == t) {
                    Some(x) => x.1 += m.worker_gpus,
                    None => per_type.push((t, m.worker_gpus)),
                }
            }
            per_type.sort_unstable();
            for (k, &(t, gpus)) in per_type.iter().enumerate() {
                events.push(SimEvent::Ran {
                    job: id,
                    gpu_type: t,
                    gpus,
                    start,
                    end: start + used,
                    busy_s: used,
                    steps: if k == 0 { done } else { 0.0 },
                    overhead_s: delay.min(used),
                    shared_with: None,
                });
            }
            if j.progress >= j.total {
                j.finish = Some(start + used);
                events.push(SimEvent::Finished {
                    job: id,
                    time: start + used,
                });
            }
            running += 1;
            for &s in &j.worker_servers {
                if let Some(b) = self
                    .servers
                    .get(s)
                    .and_then(|s| busy_gpus.get_mut(s.gpu_type))
                {
                    *b += m.worker_gpus;
                }
            }
            busy_cpus += j.workers * m.worker_cpus + j.ps * m.ps_cpus;
            worker_s += f64::from(j.workers) * used;
            ps_s += f64::from(j.ps) * used;
            job_s += used;
        }
        let active_count = self.active.len();
        let jobs = &self.jobs;
        self.active.retain(|&j| jobs[j].finish.is_none());
        events.push(SimEvent::RoundEnded {
            round: self.slot,
            start,
            end,
            active: active_count,
            running,
            busy_gpus,
        });
        events.push(SimEvent::SlotEnded {
            start,
            end,
            reward,
            actions,
            invalid_actions: invalid,
            busy_cpus,
            total_cpus: self.total_cpus,
            worker_s,
            ps_s,
            job_s,
        });
        self.slot += 1;
        // A run whose servers left are away for good and that ran nothing ends too.
        if self.next_arrival >= self.order.len()
            && (self.active.is_empty() || (running == 0 && self.away_for_good(&away, start)))
        {
            self.done = true;
        }
        let step = SlotStep {
            report: RoundReport {
                round: self.slot - 1,
                start,
                end,
                events,
            },
            reward,
            actions,
            invalid_actions: invalid,
            running,
        };
        observer.slot_end(&step);
        Some(step)
    }
}

/// A view over the given parts of a simulator.
fn view_of<'a>(
    cfg: &SlotConfig,
    slot: u64,
    (total_gpus, total_cpus): (u32, u32),
    jobs: &'a [SlotJob],
    active: &'a [JobId],
    servers: &'a [SlotServer],
    models: &'a PsModels,
) -> SlotView<'a> {
    SlotView {
        now: slot as f64 * cfg.slot_s,
        slot,
        slot_s: cfg.slot_s,
        restart_s: cfg.restart.delay_s,
        total_gpus,
        total_cpus,
        free_gpus: servers.iter().map(|s| s.free_gpus).sum(),
        free_cpus: servers.iter().map(|s| s.free_cpus).sum(),
        max_workers: cfg.ps.max_workers,
        max_ps: cfg.ps.max_ps,
        dl2_compat: cfg.dl2_compat,
        jobs,
        active,
        servers,
        models,
    }
}
