//! The pooled simulator of Aryl: a training pool and an inference pool of GPU servers. The
//! inference side needs a number of servers that follows a load curve; the servers it does
//! not need may be loaned to training, and are reclaimed when its demand rises.
//!
//! Every tick (60 s by default):
//! 1. jobs that have arrived join the queue;
//! 2. if inference needs back more servers than are idle, the policy picks which loaned
//!    servers to return; every job on them loses those GPUs: an elastic job that keeps at
//!    least its minimum shrinks (and pays the resize delay), any other job stops, goes back
//!    to the queue and loses the work since its last checkpoint;
//! 3. if loaning is on, idle inference servers are loaned to training;
//! 4. the policy admits queued jobs at their minimum GPU count and gives elastic jobs extra
//!    GPUs;
//! 5. running jobs train: a job on `k` GPUs makes `speed(k)` steps per second, `speed` from
//!    the throughput profile (interpolated between profiled GPU counts) on the training
//!    type, or on loaned servers on the inference pool's own GPU model (a pool named
//!    `inference-t4` is of T4s; one named `inference` is of the training type), at the
//!    slower of the two for a job on both; a job that starts,
//!    resumes or resizes spends the restart delay first; jobs checkpoint every
//!    `checkpoint_s` of running.

pub mod contract;
mod faults;
mod spot_jobs;
pub mod stepper;
mod train;

pub use contract::{PoolPlan, PoolView, PooledPolicy};
pub use stepper::build;

use super::{RoundReport, SimError, SimEvent};
use crate::model::cluster::ClusterSpec;
use crate::model::job::{JobId, JobSpec};
use crate::model::restart::RestartModel;
use crate::workload::inference::LoadCurve;
use crate::workload::trace::MAX_JOB_S;
use crate::workload::Profile;
use std::collections::BTreeMap;

/// Settings of the pooled simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledConfig {
    /// Seconds per tick.
    pub tick: f64,
    /// What a job pays, without progress, when it starts, resumes or changes its GPU count:
    /// its own delay, or the model's.
    pub restart: RestartModel,
    /// Seconds of running between checkpoints.
    pub checkpoint_s: f64,
    /// Stop after this many ticks even if jobs remain.
    pub max_ticks: u64,
}

impl Default for PooledConfig {
    fn default() -> Self {
        PooledConfig {
            tick: 60.0,
            restart: RestartModel::delay(30.0),
            checkpoint_s: 1800.0,
            max_ticks: 2_000_000,
        }
    }
}

/// Which pool a server belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// Training servers.
    Training,
    /// Inference servers (loanable).
    Inference,
}

/// One server.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// Its pool.
    pub pool: Pool,
    /// GPUs.
    pub gpus: u32,
    /// Whether it is loaned to training (inference servers only).
    pub loaned: bool,
    /// (job, GPUs) running on it.
    pub used: Vec<(JobId, u32)>,
    /// Whether it is away (for repair, or a spot instance taken back): it offers no GPUs
    /// to training, serves no inference load and is not loaned.
    pub down: bool,
    /// GPUs of it away for repair while it is not (a failed GPU, in a GPU domain).
    pub gpus_away: u32,
}

impl Server {
    /// GPUs not in use (none while it is away).
    pub fn free(&self) -> u32 {
        if self.down {
            return 0;
        }
        self.gpus
            .saturating_sub(self.gpus_away)
            .saturating_sub(self.used.iter().map(|u| u.1).sum::<u32>())
    }

    /// Whether training may use it (not while it is away).
    pub fn usable(&self) -> bool {
        !self.down && (self.pool == Pool::Training || self.loaned)
    }
}

/// What the pooled simulator knows about a job.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledJob {
    /// Fewest GPUs it runs on.
    pub min_gpus: u32,
    /// Most GPUs it can use.
    pub max_gpus: u32,
    /// Steps to do.
    pub total: f64,
    /// Steps done.
    pub progress: f64,
    /// Steps saved at the last checkpoint.
    pub saved: f64,
    /// Seconds run since the last checkpoint.
    pub since_checkpoint: f64,
    /// Seconds of restart still to spend.
    pub overhead: f64,
    /// (server, GPUs) it holds.
    pub placement: Vec<(usize, u32)>,
    /// Whether it is in the queue.
    pub queued: bool,
    /// Completion time.
    pub finish: Option<f64>,
    /// Given up on (it can never fit).
    pub dropped: bool,
    /// Steps per second by GPU count (index = GPUs) on training servers.
    pub speed: Vec<f64>,
    /// The same on loaned inference servers (their own GPU model's speed).
    pub loan_speed: Vec<f64>,
}

impl PooledJob {
    /// GPUs held.
    pub fn gpus(&self) -> u32 {
        self.placement.iter().map(|p| p.1).sum()
    }

    /// Whether it holds GPUs.
    pub fn running(&self) -> bool {
        !self.placement.is_empty()
    }

    /// Steps per second on `k` GPUs.
    pub fn speed_at(&self, k: u32) -> f64 {
        self.speed.get(k as usize).copied().unwrap_or(0.0)
    }

    /// Steps per second on `k` loaned inference GPUs.
    pub fn loan_speed_at(&self, k: u32) -> f64 {
        self.loan_speed.get(k as usize).copied().unwrap_or(0.0)
    }

    /// Seconds left at `k` GPUs.
    pub fn remaining_at(&self, k: u32) -> f64 {
        let s = self.speed_at(k);
        if s > 0.0 {
            (self.total - self.progress).max(0.0) / s
        } else {
            f64::INFINITY
        }
    }
}

/// Steps per second of `job_type` at each GPU count from 0 to `max`, from the profile's
/// throughputs on `gpu` at the profiled counts: per-GPU efficiency is interpolated
/// linearly between profiled counts and held beyond the largest. A job type the profile
/// does not have (an imported PAI job, say) makes one step per second on its `scale` GPUs
/// and scales linearly.
pub fn speed_curve(profile: &Profile, job_type: &str, gpu: &str, scale: u32, max: u32) -> Vec<f64> {
    let known: Vec<(u32, f64)> = profile
        .job_types
        .get(job_type)
        .map(|p| {
            p.throughputs
                .iter()
                .filter_map(|(k, by)| Some((*k, *by.get(gpu)?)))
                .filter(|(k, v)| *k > 0 && *v > 0.0)
                .collect()
        })
        .unwrap_or_default();
    let Some(&(k0, v0)) = known.first() else {
        let per = 1.0 / f64::from(scale.max(1));
        return (0..=max).map(|k| f64::from(k) * per).collect();
    };
    let per_gpu0 = v0 / f64::from(k0);
    let eff = |k: u32| -> f64 {
        let e = |(kk, vv): (u32, f64)| vv / f64::from(kk) / per_gpu0;
        match known.iter().position(|&(kk, _)| kk >= k) {
            Some(0) => e(known[0]),
            Some(i) => {
                let (a, b) = (known[i - 1], known[i]);
                let f = f64::from(k - a.0) / f64::from(b.0 - a.0);
                e(a) + f * (e(b) - e(a))
            }
            None => known.last().map_or(1.0, |&l| e(l)),
        }
    };
    (0..=max)
        .map(|k| {
            if k == 0 {
                0.0
            } else {
                f64::from(k) * per_gpu0 * eff(k)
            }
        })
        .collect()
}

/// The pooled simulator.
pub struct PooledSimulator {
    config: PooledConfig,
    cluster: ClusterSpec,
    specs: Vec<JobSpec>,
    jobs: Vec<PooledJob>,
    servers: Vec<Server>,
    load: LoadCurve,
    inference_servers: usize,
    policy: Box<dyn PooledPolicy>,
    queue: Vec<JobId>,
    now: f64,
    tick: u64,
    next_arrival: usize,
    order: Vec<JobId>,
    /// Jobs holding GPUs.
    running: std::collections::BTreeSet<JobId>,
    /// Loans and reclaims so far.
    pub loans: u64,
    /// Servers reclaimed so far.
    pub reclaims: u64,
    /// Jobs stopped by reclaims.
    pub reclaim_preemptions: u64,
    /// Failures and checkpoints, in runs with them.
    faults: Option<faults::PoolFaults>,
    /// When the run stops, if before every job is done.
    until: Option<f64>,
    /// Whether the workload has spot jobs (they yield to high-priority ones).
    spot_jobs: bool,
}

impl std::fmt::Debug for PooledSimulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledSimulator")
            .field("policy", &self.policy.name())
            .field("now", &self.now)
            .finish()
    }
}

fn cfg_err(field: &str, reason: impl Into<String>) -> SimError {
    SimError::Config {
        field: field.into(),
        reason: reason.into(),
    }
}

impl PooledSimulator {
    /// Job `j`'s restart delay: its own (the experiment's per-type delays) or the mechanism's.
    fn restart_of(&self, j: JobId) -> f64 {
        self.specs
            .get(j)
            .and_then(|s| s.restart_s)
            .unwrap_or(self.config.restart.delay_s)
    }

    /// A simulator of `specs` on `cluster`, whose type named `inference` (or
    /// `inference-<model>`) is the inference pool and whose first other type is the
    /// training pool.
    pub fn new(
        config: PooledConfig,
        cluster: ClusterSpec,
        specs: Vec<JobSpec>,
        profile: &Profile,
        load: LoadCurve,
        policy: Box<dyn PooledPolicy>,
    ) -> Result<Self, SimError> {
        let inf = cluster
            .types
            .iter()
            .find(|t| t.is_inference())
            .ok_or_else(|| {
                cfg_err(
                    "cluster",
                    "no GPU type named 'inference' or 'inference-<model>' (the inference pool)",
                )
            })?;
        let train = cluster
            .types
            .iter()
            .find(|t| !t.is_inference())
            .ok_or_else(|| cfg_err("cluster", "no training GPU type"))?;
        // Loaned servers train at their own model's speed, if the pool names one.
        let inf_model = inf.inference_model().unwrap_or(&train.name);
        if inf.inference_model().is_some()
            && !specs
                .iter()
                .all(|s| profile.throughput(&s.job_type, 1, inf_model).is_some())
        {
            return Err(cfg_err(
                "cluster",
                format!(
                    "the inference pool's GPU model '{inf_model}' has no single-GPU throughput in the profile for every job type (the profile knows {})",
                    profile.gpu_types().join(", ")
                ),
            ));
        }
        if !(config.tick.is_finite() && config.tick >= 1.0) {
            return Err(cfg_err("round_s", "the tick must be at least 1 s"));
        }
        if config.restart.check_delay().is_err() {
            return Err(cfg_err("restart_cost_s", "between 0 and 86,400 s"));
        }
        let mut servers = Vec::new();
        for (pool, t) in [(Pool::Training, train), (Pool::Inference, inf)] {
            let per = t.per_server.max(1);
            for _ in 0..t.count / per {
                servers.push(Server {
                    pool,
                    gpus: per,
                    loaned: false,
                    used: Vec::new(),
                    down: false,
                    gpus_away: 0,
                });
            }
        }
        let inference_servers = servers.iter().filter(|s| s.pool == Pool::Inference).count();
        let capacity: u32 = servers.iter().map(|s| s.gpus).sum();
        let jobs: Vec<PooledJob> = specs
            .iter()
            .map(|s| {
                let min = s.min_gpus.unwrap_or(s.scale_factor).max(1);
                let max = s.max_gpus.unwrap_or(min).max(min);
                PooledJob {
                    min_gpus: min,
                    max_gpus: max,
                    total: s.total_steps,
                    progress: 0.0,
                    saved: 0.0,
                    since_checkpoint: 0.0,
                    overhead: 0.0,
                    placement: Vec::new(),
                    queued: false,
                    finish: None,
                    dropped: min > capacity,
                    speed: speed_curve(
                        profile,
                        &s.job_type,
                        &train.name,
                        s.scale_factor,
                        max.min(capacity),
                    ),
                    loan_speed: speed_curve(
                        profile,
                        &s.job_type,
                        inf_model,
                        s.scale_factor,
                        max.min(capacity),
                    ),
                }
            })
            .collect();
        // A job must end within the limit of every trace at its fastest (on all the GPUs
        // it may hold, loaned ones included).
        for (id, (j, s)) in jobs.iter().zip(&specs).enumerate() {
            let fastest = j
                .speed
                .iter()
                .chain(&j.loan_speed)
                .copied()
                .fold(0.0, f64::max);
            if !j.dropped && j.total / fastest > MAX_JOB_S {
                return Err(SimError::Job {
                    job: id,
                    job_type: s.job_type.clone(),
                    reason: format!(
                        "{} steps take {:.3e} s even at its fastest, more than the limit of {MAX_JOB_S} s (10 years)",
                        j.total,
                        j.total / fastest
                    ),
                });
            }
        }
        let order = super::arrival_order(&specs);
        let spot_jobs = specs.iter().any(|s| s.spot);
        Ok(PooledSimulator {
            config,
            cluster,
            specs,
            jobs,
            servers,
            load,
            inference_servers,
            policy,
            queue: Vec::new(),
            now: 0.0,
            tick: 0,
            next_arrival: 0,
            order,
            running: std::collections::BTreeSet::new(),
            loans: 0,
            reclaims: 0,
            reclaim_preemptions: 0,
            faults: None,
            until: None,
            spot_jobs,
        })
    }

    /// Time (s).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The servers.
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// The jobs.
    pub fn jobs(&self) -> &[PooledJob] {
        &self.jobs
    }

    /// The cluster.
    pub fn cluster(&self) -> &ClusterSpec {
        &self.cluster
    }

    /// The policy's spec.
    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }

    /// Inference servers needed at the current time.
    pub fn demand(&self) -> usize {
        (self.load.demand(self.now).max(0.0) as usize).min(self.inference_servers)
    }

    /// Whether job `id` has left the system.
    pub fn job_done(&self, id: JobId) -> bool {
        self.jobs
            .get(id)
            .is_some_and(|j| j.finish.is_some() || j.dropped)
    }

    /// Whether every job is done (or the tick limit is reached).
    pub fn is_done(&self) -> bool {
        self.jobs.iter().all(|j| j.finish.is_some() || j.dropped)
            || self.tick >= self.config.max_ticks
            || self.until.is_some_and(|u| self.now >= u)
    }

    fn remove_gpus(&mut self, job: JobId, server: usize) -> u32 {
        let s = &mut self.servers[server];
        let taken: u32 = s.used.iter().filter(|u| u.0 == job).map(|u| u.1).sum();
        s.used.retain(|u| u.0 != job);
        self.jobs[job].placement.retain(|p| p.0 != server);
        if self.jobs[job].placement.is_empty() {
            self.running.remove(&job);
        }
        taken
    }

    fn stop(&mut self, job: JobId, events: &mut Vec<SimEvent>) {
        self.roll_back(job);
        events.push(SimEvent::Preempted {
            job,
            time: self.now,
        });
        self.requeue(job);
    }

    /// Job `job` gives back its GPUs and goes back to the queue (in arrival order).
    fn requeue(&mut self, job: JobId) {
        let servers: Vec<usize> = self.jobs[job].placement.iter().map(|p| p.0).collect();
        for s in servers {
            self.remove_gpus(job, s);
        }
        self.jobs[job].queued = true;
        let pos = self
            .queue
            .partition_point(|&q| (self.specs[q].arrival, q) < (self.specs[job].arrival, job));
        self.queue.insert(pos, job);
    }

    fn place(&mut self, job: JobId, placement: &[(usize, u32)]) -> bool {
        let ok = placement.iter().all(|&(s, g)| {
            self.servers
                .get(s)
                .is_some_and(|sv| sv.usable() && sv.free() >= g)
        }) && {
            let mut seen: Vec<usize> = placement.iter().map(|p| p.0).collect();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        };
        if !ok {
            return false;
        }
        for &(s, g) in placement.iter().filter(|p| p.1 > 0) {
            let sv = &mut self.servers[s];
            match sv.used.iter_mut().find(|u| u.0 == job) {
                Some(u) => u.1 += g,
                None => sv.used.push((job, g)),
            }
            let j = &mut self.jobs[job];
            match j.placement.iter_mut().find(|p| p.0 == s) {
                Some(p) => p.1 += g,
                None => j.placement.push((s, g)),
            }
            self.running.insert(job);
        }
        true
    }

    /// Simulate one tick; None once every job is done.
    pub fn step_round(&mut self) -> Option<RoundReport> {
        if self.is_done() {
            return None;
        }
        let start = self.now;
        // A stop time inside the tick ends it there.
        let (end, tick) = match self.until {
            Some(u) if u < start + self.config.tick => (u, u - start),
            _ => (start + self.config.tick, self.config.tick),
        };
        let mut events = Vec::new();
        // Servers away (for repair, or spot instances taken back; read before the tick's
        // failures) stop their jobs.
        let up_inference = self.servers_away(start, &mut events);
        let failures = self.failures_until(end, &mut events);
        // 1. Arrivals.
        while let Some(&j) = self.order.get(self.next_arrival) {
            if self.specs[j].arrival > start {
                break;
            }
            self.next_arrival += 1;
            if self.jobs[j].dropped {
                events.push(SimEvent::Dropped {
                    job: j,
                    time: start,
                    reason: format!(
                        "needs {} GPUs, more than the cluster has",
                        self.jobs[j].min_gpus
                    ),
                });
                continue;
            }
            self.jobs[j].queued = true;
            self.queue.push(j);
            events.push(SimEvent::Admitted {
                job: j,
                time: start,
            });
        }
        // 2-4. The policy's plan.
        let demand = self.demand();
        let idle_inference = up_inference.saturating_sub(demand);
        let loaned = self.servers.iter().filter(|s| s.loaned).count();
        let must_reclaim = loaned.saturating_sub(idle_inference);
        let plan = {
            let running: Vec<JobId> = self.running.iter().copied().collect();
            let view = PoolView {
                now: start,
                servers: &self.servers,
                jobs: &self.jobs,
                queue: self.queue.clone(),
                running,
                must_reclaim,
                idle_inference,
                restart_s: self.config.restart.delay_s,
                checkpoint_s: self.config.checkpoint_s,
            };
            self.policy.plan(&view)
        };
        // Reclaim: the policy's choice first, then (if it chose too few) the lowest ids.
        let mut back: Vec<usize> = plan
            .reclaim
            .iter()
            .copied()
            .filter(|&s| self.servers.get(s).is_some_and(|sv| sv.loaned))
            .collect();
        back.dedup();
        for s in 0..self.servers.len() {
            if back.len() >= must_reclaim {
                break;
            }
            if self.servers[s].loaned && !back.contains(&s) {
                back.push(s);
            }
        }
        if !back.is_empty() {
            for &s in &back {
                let tenants: Vec<JobId> = self.servers[s].used.iter().map(|u| u.0).collect();
                for j in tenants {
                    self.remove_gpus(j, s);
                    let job = &self.jobs[j];
                    if job.gpus() >= job.min_gpus && job.running() {
                        self.jobs[j].overhead = self.restart_of(j);
                        events.push(SimEvent::Restarted {
                            job: j,
                            time: start,
                        });
                    } else {
                        self.reclaim_preemptions += 1;
                        self.stop(j, &mut events);
                    }
                }
                self.servers[s].loaned = false;
            }
            self.reclaims += back.len() as u64;
            events.push(SimEvent::Reclaimed {
                time: start,
                servers: back.len() as u32,
            });
        }
        // Loan.
        if plan.loan {
            let mut lent = 0u32;
            let mut want =
                idle_inference.saturating_sub(self.servers.iter().filter(|s| s.loaned).count());
            for s in self.servers.iter_mut() {
                if want == 0 {
                    break;
                }
                if s.pool == Pool::Inference && !s.loaned && !s.down {
                    s.loaned = true;
                    lent += 1;
                    want -= 1;
                }
            }
            if lent > 0 {
                self.loans += u64::from(lent);
                events.push(SimEvent::Loaned {
                    time: start,
                    servers: lent,
                });
            }
        }
        for (j, placement) in &plan.start {
            let j = *j;
            if !self.jobs.get(j).is_some_and(|x| x.queued) {
                continue;
            }
            let gpus: u32 = placement.iter().map(|p| p.1).sum();
            if gpus < self.jobs[j].min_gpus || gpus > self.jobs[j].max_gpus {
                continue;
            }
            if self.place(j, placement) {
                self.jobs[j].queued = false;
                self.jobs[j].overhead = self.restart_of(j);
                self.queue.retain(|&q| q != j);
            }
        }
        for (j, placement) in &plan.grow {
            let j = *j;
            let Some(job) = self.jobs.get(j) else {
                continue;
            };
            let extra: u32 = placement.iter().map(|p| p.1).sum();
            if !job.running() || job.gpus() + extra > job.max_gpus || extra == 0 {
                continue;
            }
            if self.place(j, placement) {
                self.jobs[j].overhead = self.restart_of(j);
                events.push(SimEvent::Restarted {
                    job: j,
                    time: start,
                });
            }
        }
        self.spot_jobs_yield(&mut events);
        // 5. Training.
        let mut busy = [0u32; 2];
        let mut running = 0;
        let running_now: Vec<JobId> = self.running.iter().copied().collect();
        for j in running_now {
            if !self.jobs[j].running() {
                continue;
            }
            running += 1;
            let (training, loaned) = match &failures {
                Some(f) => self.train_with_faults(j, (start, tick), f, &mut events),
                None => self.train(j, start, tick, &mut events),
            };
            busy[0] += training;
            busy[1] += loaned;
        }
        let types = self.cluster.types.len();
        let mut busy_gpus = vec![0u32; types];
        for (i, t) in self.cluster.types.iter().enumerate() {
            busy_gpus[i] = if t.is_inference() {
                busy[1]
            } else if busy_gpus.iter().take(i).all(|&b| b == 0) {
                busy[0]
            } else {
                0
            };
        }
        events.push(SimEvent::RoundEnded {
            round: self.tick,
            start,
            end,
            active: self.queue.len() + running,
            running,
            busy_gpus,
        });
        events.push(SimEvent::PoolState {
            time: start,
            demand: demand as u32,
            loaned: self.servers.iter().filter(|s| s.loaned).count() as u32,
        });
        self.now = end;
        self.tick += 1;
        Some(RoundReport {
            round: self.tick - 1,
            start,
            end,
            events,
        })
    }
}

/// Sum of the free GPUs on servers training may use, by pool.
pub fn free_by_pool(servers: &[Server]) -> BTreeMap<&'static str, u32> {
    let mut m = BTreeMap::new();
    for s in servers.iter().filter(|s| s.usable()) {
        let k = if s.pool == Pool::Training {
            "training"
        } else {
            "loaned"
        };
        *m.entry(k).or_insert(0) += s.free();
    }
    m
}
