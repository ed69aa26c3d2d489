//! The elastic simulator: jobs whose GPU count, placement over servers and batch size
//! change over time, as in Pollux's evaluation.
//!
//! Time advances in ticks (60 s by default). At every tick each running job trains for the
//! tick at the speed its application gives for its placement and per-GPU batch, in chunks
//! that end at epoch boundaries; then the policy sees the active jobs and answers with a
//! list of server ids per job (one entry per GPU). A job whose list changed restarts: it
//! spends the restart delay (30 s by default) of the next tick without progress, the first
//! allocation included (under a policy that counts restarts as Sia's simulator does, only
//! a new GPU type or GPUs per server restarts a job; the same shape on other servers is
//! free). Progress is counted in steps at the application's initial batch
//! size, each step at batch `B` being worth the statistical-efficiency gain
//! `(var + sqr) / (var / scale + sqr)` with `scale = B / init`; a job is done at the
//! progress milestone of its last epoch. Time is kept in whole seconds: an epoch boundary
//! inside a tick is rounded to the nearest second (half to even), as Pollux's simulator
//! does, so runs can be compared job by job.
//!
//! Jobs that adapt their batch size (under policies that say so) pick the
//! goodput-maximising batch for their allocation after every chunk, with a throughput model
//! fitted to the step times they have observed so far.
//!
//! A cluster may have several GPU types, each in servers of its own size, as in Sia's
//! evaluation. Policies see the cluster as Sia's simulator shows it to a
//! heterogeneity-unaware policy: *virtual servers* of the smallest server size (a server of
//! 8 GPUs is two virtual servers of 4), types in name order. A job runs on one type at a
//! time: of an allocation that spans types only the GPUs of the type holding most of it
//! are kept (the first such type in the allocation on a tie), the rest stay idle. The job
//! then trains at that type's step times; moving to another type is a restart like any
//! other change. With one type, virtual servers are the servers and nothing changes.
//!
//! A rigid job ([`crate::workload::as_elastic`]) runs only on its own GPU count and on a
//! type it has a throughput on: any other allocation leaves it waiting and its GPUs idle.

mod away;
pub mod contract;
mod faults;
mod spot_jobs;
pub mod stepper;

pub use stepper::build;

use super::{RoundReport, SimEvent};
use crate::model::cluster::ClusterSpec;
use crate::model::goodput::{
    fit_perf_params_to, GoodputFunction, GradParams, Observation, PerfParams,
};
use crate::model::job::{JobId, JobSpec};
use crate::model::restart::RestartModel;
use crate::rng::Rng;
use crate::workload::{Apps, ElasticApp};
use contract::{ElasticJobView, ElasticPolicy, ElasticView};
use std::sync::Arc;

/// Settings of the elastic simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct ElasticConfig {
    /// Seconds between scheduling decisions.
    pub interval: f64,
    /// What a job pays, without progress, at every change of its allocation: its own
    /// delay, or the model's.
    pub restart: RestartModel,
    /// Experiment seed.
    pub seed: u64,
    /// Stop after this many ticks even if jobs remain.
    pub max_ticks: u64,
    /// Server failures and checkpoints, if the experiment has them.
    pub faults: Option<crate::model::failure::Faults>,
    /// Stop at this time (s) even if jobs remain.
    pub until: Option<f64>,
    /// GPU types whose capacity follows a spot trace.
    pub spot: Vec<crate::sim::faults::SpotTrace>,
    /// Seconds of warning before a spot instance is taken back.
    pub spot_warning_s: f64,
}

impl Default for ElasticConfig {
    fn default() -> Self {
        ElasticConfig {
            interval: 60.0,
            restart: RestartModel::delay(30.0),
            seed: 0,
            max_ticks: 500_000,
            faults: None,
            until: None,
            spot: Vec::new(),
            spot_warning_s: 0.0,
        }
    }
}

/// What the elastic simulator knows about one job.
#[derive(Debug, Clone)]
pub struct ElasticJobState {
    /// Index of its application.
    pub app: usize,
    /// GPUs the user asked for (kept by policies that do not scale jobs).
    pub target_replicas: u32,
    /// Total batch size it must use, if it does not adapt it.
    pub target_batch: Option<u32>,
    /// Completion time (s).
    pub completion: Option<f64>,
    /// Seconds of restart still to spend.
    pub rescale_time: f64,
    /// GPU type it runs on (index into the cluster's types), if placed.
    pub gpu_type: Option<usize>,
    /// Server ids, one per GPU, as the policy gave them.
    pub allocation: Vec<u32>,
    /// GPUs per server in allocation order.
    pub placement: Vec<u32>,
    /// Examples per GPU per step.
    pub atomic_bsz: u32,
    /// Gradient-accumulation steps per optimiser step.
    pub accum_steps: u32,
    /// Observed step times by (nodes, replicas, per-GPU batch), in the order first seen.
    pub observations: Vec<Observation>,
    /// Throughput model fitted to every observation (left `None` under per-type models,
    /// whose policies read the model of each type in `type_models`).
    pub perf: Option<PerfParams>,
    /// Per GPU type (under policies that keep models per type): the step times observed
    /// on it and the model fitted to them.
    pub type_models: Vec<(Vec<Observation>, Option<PerfParams>)>,
    /// Latest gradient statistics.
    pub grad: GradParams,
    /// Progress (steps at the initial batch size).
    pub progress: f64,
    /// Epochs completed.
    pub epoch: u32,
    /// GPU-seconds held, restarts included.
    pub attained_service: f64,
    /// Restarts after the first allocation (None before it).
    pub num_restarts: Option<u32>,
    /// Whether it has been admitted.
    pub admitted: bool,
    /// Given up on: its application cannot say how fast it runs where it was placed.
    pub dropped: bool,
}

impl ElasticJobState {
    /// GPUs held.
    pub fn replicas(&self) -> u32 {
        self.placement.iter().sum()
    }

    /// Servers spanned.
    pub fn nodes(&self) -> u32 {
        self.placement.iter().filter(|&&g| g > 0).count() as u32
    }

    /// Total batch size in use (0 when not running).
    pub fn batch_size(&self) -> u32 {
        self.replicas()
            .saturating_mul(self.atomic_bsz)
            .saturating_mul(self.accum_steps.saturating_add(1))
    }

    /// Whether it has left the system (finished or given up on).
    pub fn is_over(&self) -> bool {
        self.completion.is_some() || self.dropped
    }

    /// Largest GPU count it has run on.
    pub fn max_profiled_replicas(&self) -> u32 {
        self.observations
            .iter()
            .map(|o| o.replicas)
            .max()
            .unwrap_or(0)
    }
}

/// The elastic simulator.
pub struct ElasticSimulator {
    config: ElasticConfig,
    cluster: ClusterSpec,
    /// Virtual servers the policies see, and GPUs on each.
    num_nodes: u32,
    gpus_per_node: u32,
    /// Per virtual server: (real server, GPU type index).
    vnodes: Vec<(u32, usize)>,
    /// Real servers per GPU type, in cluster order.
    servers: Vec<u32>,
    /// Per application and GPU type: the name its speeds are kept under (None: its unnamed
    /// type, on a cluster of one type it has no speeds of its own for).
    type_keys: Vec<Vec<Option<String>>>,
    specs: Vec<JobSpec>,
    apps: Arc<Apps>,
    states: Vec<ElasticJobState>,
    policy: Box<dyn ElasticPolicy>,
    adapts: bool,
    /// Whether jobs keep a model per GPU type (the policy's choice).
    per_type: bool,
    /// When the throughput-model fit stops (the policy's system's tolerance).
    fit_tolerance: f64,
    /// GPU type and real server of each virtual server, and the types' names.
    vnode_types: Vec<usize>,
    vnode_servers: Vec<u32>,
    type_names: Vec<String>,
    rng: Rng,
    now: f64,
    tick: u64,
    last_shown: Vec<(u32, u32)>,
    /// Consecutive decisions since every job arrived that left every GPU idle.
    idle_decisions: u32,
    /// Failures, checkpoints and spot capacity.
    faults: Option<faults::ElasticFaults>,
    /// Whether the workload has spot jobs (they yield to high-priority ones).
    spot_jobs: bool,
}

impl std::fmt::Debug for ElasticSimulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElasticSimulator")
            .field("policy", &self.policy.name())
            .field("now", &self.now)
            .finish()
    }
}

/// Most servers an elastic cluster may have (the policies' search grows with them).
pub const MAX_SERVERS: u32 = 1024;
/// Most GPUs an elastic cluster may have.
pub const MAX_GPUS: u32 = 8192;

/// What a job did in a tick, for its events.
struct Ran {
    start: f64,
    gpu_type: usize,
    replicas: u32,
    progress_before: f64,
    /// Seconds of restart spent.
    overhead_s: f64,
    /// Seconds spent writing checkpoints.
    writing_s: f64,
    /// When a server gone away stopped it, if one did.
    stopped_at: Option<f64>,
}

/// Chunks (epoch boundaries) a job may cross within one tick before it is given up on.
const MAX_CHUNKS_PER_TICK: u32 = 100_000;

fn config_err(field: &str, reason: String) -> super::SimError {
    super::SimError::Config {
        field: field.into(),
        reason,
    }
}

impl ElasticSimulator {
    /// A simulator of `specs` (job types naming applications of `apps`) on the first GPU
    /// type of `cluster` (servers of `per_server` GPUs) under `policy`.
    pub fn new(
        config: ElasticConfig,
        cluster: ClusterSpec,
        specs: Vec<JobSpec>,
        apps: Arc<Apps>,
        policy: Box<dyn ElasticPolicy>,
    ) -> Result<Self, super::SimError> {
        if cluster.types.is_empty() {
            return Err(config_err("cluster", "the cluster has no GPUs".into()));
        }
        let vsize = cluster
            .types
            .iter()
            .filter(|t| t.count > 0)
            .map(|t| t.per_server.max(1))
            .min()
            .unwrap_or(1);
        let mut vnodes = Vec::new();
        let mut servers = Vec::new();
        let mut real = 0u32;
        let mut total_gpus = 0u32;
        for (k, ty) in cluster.types.iter().enumerate() {
            let per = ty.per_server.max(1);
            let n = ty.count / per;
            // A type with no GPUs here (an inference pool's: they serve inference) has no
            // servers.
            if ty.count == 0 {
                servers.push(0);
                continue;
            }
            if n == 0 {
                return Err(config_err(
                    "cluster",
                    format!(
                        "{}: {} GPUs make no whole server of {per}",
                        ty.name, ty.count
                    ),
                ));
            }
            if per % vsize != 0 {
                return Err(config_err(
                    "cluster",
                    format!(
                        "{}: servers of {per} GPUs are not a whole number of the smallest servers ({vsize}); elastic clusters need server sizes that divide each other (e.g. 4 and 8)",
                        ty.name
                    ),
                ));
            }
            total_gpus = total_gpus.saturating_add(n.saturating_mul(per));
            if real.saturating_add(n) > MAX_SERVERS || total_gpus > MAX_GPUS {
                return Err(config_err(
                    "cluster",
                    format!(
                        "elastic clusters have at most {MAX_SERVERS} servers and {MAX_GPUS} GPUs"
                    ),
                ));
            }
            for s in 0..n {
                for _ in 0..per / vsize {
                    vnodes.push((real + s, k));
                }
            }
            servers.push(n);
            real += n;
        }
        let one_type = cluster.types.iter().filter(|t| t.count > 0).count() == 1;
        let mut type_keys = Vec::with_capacity(apps.apps.len());
        for app in &apps.apps {
            let mut keys = Vec::with_capacity(cluster.types.len());
            for ty in &cluster.types {
                if app.knows_type(&ty.name) {
                    keys.push(Some(ty.name.clone()));
                } else if one_type || ty.count == 0 {
                    keys.push(None);
                } else {
                    let known = app.gpu_types();
                    return Err(config_err(
                        "cluster",
                        format!(
                            "application '{}' has no speeds for GPU type '{}' (it knows {}); a cluster of several types needs types every application knows",
                            app.name,
                            ty.name,
                            if known.is_empty() {
                                "no named types".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ));
                }
            }
            type_keys.push(keys);
        }
        let num_nodes = vnodes.len() as u32;
        let gpus_per_node = vsize;
        if config.restart.check_delay().is_err() {
            return Err(config_err(
                "restart_cost_s",
                "the restart delay must be between 0 and 86,400 s".into(),
            ));
        }
        if !(config.interval.is_finite() && config.interval >= 1.0) {
            return Err(config_err(
                "round_s",
                "the scheduling interval must be at least 1 s".into(),
            ));
        }
        let adapts = policy.adapts_batch();
        let per_type = policy.per_type_models() && cluster.types.len() > 1;
        let fit_tolerance = policy.fit_tolerance();
        let vnode_types: Vec<usize> = vnodes.iter().map(|v| v.1).collect();
        let vnode_servers: Vec<u32> = vnodes.iter().map(|v| v.0).collect();
        let type_names: Vec<String> = cluster.types.iter().map(|t| t.name.clone()).collect();
        let mut states = Vec::with_capacity(specs.len());
        let by_name: std::collections::BTreeMap<&str, usize> = apps
            .apps
            .iter()
            .enumerate()
            .map(|(k, a)| (a.name.as_str(), k))
            .collect();
        for (id, s) in specs.iter().enumerate() {
            let app =
                by_name
                    .get(s.job_type.as_str())
                    .copied()
                    .ok_or_else(|| super::SimError::Job {
                        job: id,
                        job_type: s.job_type.clone(),
                        reason: "not an application of the profile".into(),
                    })?;
            let a = &apps.apps[app];
            let target_batch = if adapts {
                a.fixed_batch_size
            } else {
                Some(
                    s.batch_size
                        .or(a.fixed_batch_size)
                        .unwrap_or(a.init_batch_size)
                        .clamp(a.init_batch_size, a.max_batch_size),
                )
            };
            states.push(ElasticJobState {
                app,
                target_replicas: s.scale_factor,
                target_batch,
                completion: None,
                rescale_time: 0.0,
                gpu_type: None,
                allocation: Vec::new(),
                placement: Vec::new(),
                atomic_bsz: 0,
                accum_steps: 0,
                observations: Vec::new(),
                perf: None,
                type_models: if per_type {
                    vec![(Vec::new(), None); cluster.types.len()]
                } else {
                    Vec::new()
                },
                grad: GradParams { sqr: 0.0, var: 0.0 },
                progress: 0.0,
                epoch: 0,
                attained_service: 0.0,
                num_restarts: None,
                admitted: false,
                dropped: false,
            });
        }
        let rng = Rng::for_purpose(config.seed, "elastic-policy");
        let n = specs.len();
        let faults = faults::state(&config, &cluster, (&servers, &vnodes, vsize), &specs);
        let spot_jobs = specs.iter().any(|s| s.spot);
        Ok(ElasticSimulator {
            config,
            cluster,
            num_nodes,
            gpus_per_node,
            vnodes,
            servers,
            type_keys,
            specs,
            apps,
            states,
            policy,
            adapts,
            per_type,
            fit_tolerance,
            vnode_types,
            vnode_servers,
            type_names,
            rng,
            now: 0.0,
            tick: 0,
            last_shown: vec![(0, 0); n],
            idle_decisions: 0,
            faults,
            spot_jobs,
        })
    }

    /// Simulated time (s).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Ticks simulated.
    pub fn round(&self) -> u64 {
        self.tick
    }

    /// The cluster.
    pub fn cluster(&self) -> &ClusterSpec {
        &self.cluster
    }

    /// Virtual servers (what policies see) and GPUs on each; with one GPU type, the servers.
    pub fn shape(&self) -> (u32, u32) {
        (self.num_nodes, self.gpus_per_node)
    }

    /// Real servers of each GPU type, in cluster order.
    pub fn servers(&self) -> &[u32] {
        &self.servers
    }

    /// The real server and GPU type (index into the cluster's types) of virtual server
    /// `vnode` (the ids in allocations).
    pub fn real_server(&self, vnode: u32) -> Option<(u32, usize)> {
        self.vnodes.get(vnode as usize).copied()
    }

    /// The name job `id`'s application keeps its speeds on its current type under.
    fn type_key(&self, id: JobId) -> Option<&str> {
        let st = &self.states[id];
        self.type_keys.get(st.app)?.get(st.gpu_type?)?.as_deref()
    }

    /// The jobs.
    pub fn specs(&self) -> &[JobSpec] {
        &self.specs
    }

    /// Per-job state.
    pub fn states(&self) -> &[ElasticJobState] {
        &self.states
    }

    /// The applications.
    pub fn apps(&self) -> &Apps {
        &self.apps
    }

    /// The policy's spec.
    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }

    /// Why the policy's last decision gave each job what it got, when it says.
    pub fn explanation(&self) -> Option<&contract::Explanation> {
        self.policy.explanation()
    }

    /// Whether every job has finished.
    pub fn is_done(&self) -> bool {
        self.states.iter().all(ElasticJobState::is_over)
            || self.tick >= self.config.max_ticks
            || self.config.until.is_some_and(|u| self.now >= u)
    }

    /// Whether job `id` has finished.
    pub fn job_done(&self, id: JobId) -> bool {
        self.states.get(id).is_some_and(ElasticJobState::is_over)
    }

    fn app(&self, id: JobId) -> &ElasticApp {
        &self.apps.apps[self.states[id].app]
    }

    /// Choose the per-GPU batch and accumulation for the job's placement.
    fn update_local_bsz(&mut self, id: JobId) {
        let app = &self.apps.apps[self.states[id].app];
        let range = app.local_range(self.type_key(id));
        let st = &mut self.states[id];
        let r = st.replicas();
        if r == 0 {
            return;
        }
        // Under per-type models, the model of the type the job runs on.
        let model = if self.per_type {
            st.gpu_type
                .and_then(|t| st.type_models.get(t))
                .and_then(|m| m.1)
        } else {
            st.perf
        };
        let (atomic, accum) = match (st.target_batch, &model) {
            (Some(b), _) => app.fixed_batch_within(r, Some(f64::from(b)), range.1),
            (None, None) => app.fixed_batch_within(r, None, range.1),
            (None, Some(perf)) => {
                let init = f64::from(app.init_batch_size);
                let max_b = f64::from(app.max_batch_size);
                let g = GoodputFunction::new(*perf, st.grad, init);
                let c = g.optimize(st.nodes(), r, max_b, range, true);
                let accum = f64::from(c.accum_steps);
                (
                    app.capped_local(r, f64::from(c.atomic_bsz), accum) as u32,
                    c.accum_steps,
                )
            }
        };
        // On a named type, at most the largest per-GPU batch measured near this GPU count,
        // and lower still until the measurements know the placement's step time there.
        let key = self.type_key(id);
        let mut atomic = match key.and_then(|t| app.max_local_at(t, r)) {
            Some(m) => atomic.min(m.max(1)),
            None => atomic,
        };
        if key.is_some() {
            let placement = &self.states[id].placement;
            while atomic > range.0 && app.step_time_on(key, placement, atomic).is_none() {
                atomic = (atomic * 4 / 5).max(range.0);
            }
        }
        let st = &mut self.states[id];
        st.atomic_bsz = atomic;
        st.accum_steps = accum;
    }

    /// An allocation of virtual servers kept to one GPU type: the type holding most of it
    /// (the first such in the allocation on a tie).
    fn one_type(&self, allocation: Vec<u32>) -> Vec<u32> {
        if self.servers.len() < 2 {
            return allocation;
        }
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for &v in &allocation {
            let Some(&(_, t)) = self.vnodes.get(v as usize) else {
                continue;
            };
            match counts.iter_mut().find(|c| c.0 == t) {
                Some(c) => c.1 += 1,
                None => counts.push((t, 1)),
            }
        }
        let Some(best) = counts.iter().map(|c| c.1).max() else {
            return allocation;
        };
        let Some(&(primary, _)) = counts.iter().find(|c| c.1 == best) else {
            return allocation;
        };
        allocation
            .into_iter()
            .filter(|&v| self.vnodes.get(v as usize).is_some_and(|x| x.1 == primary))
            .collect()
    }

    /// `allocation` if job `id` can run on it; none for a rigid job given another GPU
    /// count than its own or a type it has no throughput on (those GPUs stay idle).
    fn runnable(&self, id: JobId, allocation: Vec<u32>) -> Vec<u32> {
        let Some(rigid) = self.app(id).rigid() else {
            return allocation;
        };
        let ty = allocation
            .first()
            .and_then(|&v| self.vnodes.get(v as usize))
            .and_then(|x| self.type_names.get(x.1));
        match ty {
            Some(t) if rigid.runs_on(t, allocation.len() as u32) => allocation,
            _ => Vec::new(),
        }
    }

    fn reallocate(&mut self, id: JobId, allocation: Vec<u32>, events: &mut Vec<SimEvent>) {
        let mut placement: Vec<u32> = Vec::new();
        let mut last = None;
        let gpu_type = allocation
            .first()
            .and_then(|&v| self.vnodes.get(v as usize))
            .map(|x| x.1);
        for node in allocation
            .iter()
            .filter_map(|&v| self.vnodes.get(v as usize).map(|x| x.0))
        {
            if last == Some(node) {
                if let Some(c) = placement.last_mut() {
                    *c += 1;
                }
            } else {
                placement.push(1);
                last = Some(node);
            }
        }
        let now = self.now;
        let restart = self.specs[id]
            .restart_s
            .unwrap_or(self.config.restart.delay_s);
        let on_shape = self.policy.restarts_on_shape();
        let st = &mut self.states[id];
        let was_running = !st.placement.is_empty();
        if on_shape && was_running && placement == st.placement && gpu_type == st.gpu_type {
            // The same shape on other servers: no restart.
            st.allocation = allocation;
            return;
        }
        st.allocation = allocation;
        st.placement = placement;
        st.gpu_type = gpu_type;
        if st.placement.is_empty() {
            st.atomic_bsz = 0;
            if was_running {
                events.push(SimEvent::Preempted { job: id, time: now });
            }
            return;
        }
        st.rescale_time = restart;
        st.num_restarts = Some(st.num_restarts.map_or(0, |n| n + 1));
        if st.num_restarts != Some(0) {
            events.push(SimEvent::Restarted { job: id, time: now });
        }
        self.update_local_bsz(id);
    }

    /// Train job `id` for `seconds` from `now`.
    fn step_job(&mut self, id: JobId, mut seconds: f64, events: &mut Vec<SimEvent>) {
        let start = self.now;
        let mut t = self.now;
        if self.states[id].placement.is_empty() || self.states[id].is_over() {
            return;
        }
        let replicas = self.states[id].replicas();
        let gpu_type = self.states[id].gpu_type.unwrap_or(0);
        let progress_before = self.states[id].progress;
        let delay = self.states[id].rescale_time.min(seconds);
        {
            let st = &mut self.states[id];
            t += delay;
            st.attained_service += delay * f64::from(replicas);
            st.rescale_time -= delay;
        }
        seconds -= delay;
        let mut failed = false;
        let mut chunks = 0u32;
        while seconds > 0.0 && self.states[id].completion.is_none() {
            chunks += 1;
            if chunks > MAX_CHUNKS_PER_TICK || self.train_chunk(id, &mut t, &mut seconds).is_none()
            {
                failed = true;
                break;
            }
        }
        let ran = Ran {
            start,
            gpu_type,
            replicas,
            progress_before,
            overhead_s: delay,
            writing_s: 0.0,
            stopped_at: None,
        };
        self.report_tick(id, &ran, failed.then_some(t), events);
    }

    /// The events of job `id`'s tick: it ran (`ran`), maybe finished, maybe wrote
    /// checkpoints, and is given up on at `failed_at` when its application gave no usable
    /// step time.
    fn report_tick(
        &mut self,
        id: JobId,
        ran: &Ran,
        failed_at: Option<f64>,
        events: &mut Vec<SimEvent>,
    ) {
        let Ran {
            start,
            gpu_type,
            replicas,
            progress_before,
            overhead_s,
            writing_s,
            stopped_at,
        } = *ran;
        let st = &self.states[id];
        let end = st
            .completion
            .or(stopped_at)
            .unwrap_or(start + self.config.interval);
        events.push(SimEvent::Ran {
            job: id,
            gpu_type,
            gpus: replicas,
            start,
            end,
            busy_s: end - start,
            steps: st.progress - progress_before,
            overhead_s,
            shared_with: None,
        });
        if writing_s > 0.0 {
            events.push(SimEvent::Checkpointed {
                job: id,
                time: end,
                gpus: replicas,
                write_s: writing_s,
            });
        }
        if let Some(c) = st.completion {
            events.push(SimEvent::Finished { job: id, time: c });
        }
        if let Some(t) = failed_at {
            let reason = format!(
                "its application gives no usable step time for {} GPUs on servers {:?} at per-GPU batch {}",
                replicas, st.placement, st.atomic_bsz
            );
            self.states[id].dropped = true;
            events.push(SimEvent::Dropped {
                job: id,
                time: t,
                reason,
            });
        }
    }

    /// Job `id` trains from `t` for up to `seconds`, to the end of its epoch at most; both
    /// move on by the time it trained. The seconds of it spent writing checkpoints (under
    /// failures), or None when its application gives no usable step time for its
    /// placement.
    fn train_chunk(&mut self, id: JobId, t: &mut f64, seconds: &mut f64) -> Option<f64> {
        let app = self.app(id);
        let key = self.type_key(id);
        let st = &self.states[id];
        let gpu_type = st.gpu_type.unwrap_or(0);
        let (r, n) = (st.replicas(), st.nodes());
        let batch = f64::from(r * st.atomic_bsz * (st.accum_steps + 1));
        let scale = batch / f64::from(app.init_batch_size);
        let (step, sync) = app.step_time_on(key, &st.placement, st.atomic_bsz)?;
        let accum_time = step - sync;
        let grad = app.grad_stats(batch, st.epoch);
        let gain = grad.gain(scale);
        let total = (step + accum_time * f64::from(st.accum_steps)) * app.slowdown;
        let next_p = app.progress_at_epoch(st.epoch + 1);
        let max_epochs = app.max_epochs;
        let goodput = if total > 0.0 { gain / total } else { 0.0 };
        let atomic = st.atomic_bsz;
        let adapts = self.adapts;
        let tol = self.fit_tolerance;
        let st = &mut self.states[id];
        st.grad = grad;
        let seen = Observation {
            nodes: n,
            replicas: r,
            atomic_bsz: atomic,
            accum_step_time: accum_time,
            optim_step_time: step,
        };
        let same = |o: &Observation| o.nodes == n && o.replicas == r && o.atomic_bsz == atomic;
        if adapts && !st.observations.iter().any(same) {
            st.observations.push(seen);
            // Under per-type models every reader takes the model of one type.
            if !self.per_type {
                st.perf = Some(fit_perf_params_to(&st.observations, tol));
            }
        }
        if adapts {
            if let Some(m) = st.type_models.get_mut(gpu_type) {
                if !m.0.iter().any(same) {
                    m.0.push(seen);
                    m.1 = Some(fit_perf_params_to(&m.0, tol));
                }
            }
        }
        if goodput <= 0.0 || !goodput.is_finite() {
            return None;
        }
        let mut writing = 0.0;
        if let Some(faults) = self.faults.as_mut().map(|f| &mut f.state) {
            // Under failures: checkpoints as the experiment says, in exact seconds.
            let work_left = (next_p - st.progress).max(0.0);
            let stretch = faults.run(id, n, *seconds, goodput, work_left);
            st.progress += stretch.work;
            *t += stretch.used_s;
            *seconds -= stretch.used_s;
            st.attained_service += stretch.used_s * f64::from(r);
            writing = stretch.writing_s;
            if stretch.work >= work_left {
                st.epoch += 1;
                st.progress = next_p;
                if st.epoch + 1 > max_epochs {
                    st.completion = Some(*t);
                }
            } else if stretch.used_s <= 0.0 {
                *seconds = 0.0;
            }
        } else if st.progress + goodput * *seconds < next_p {
            st.progress += goodput * *seconds;
            *t += *seconds;
            st.attained_service += *seconds * f64::from(r);
            *seconds = 0.0;
        } else {
            st.epoch += 1;
            let delta = ((next_p - st.progress) / goodput)
                .round_ties_even()
                .min(*seconds);
            if st.epoch + 1 > max_epochs {
                st.completion = Some(*t + delta);
            }
            st.progress = next_p;
            *t += delta;
            st.attained_service += delta * f64::from(r);
            *seconds -= delta;
        }
        self.update_local_bsz(id);
        Some(writing)
    }

    /// The policy's view of the active jobs.
    pub fn view(&self) -> ElasticView<'_> {
        build_view(
            (self.now, self.config.restart.delay_s),
            (self.num_nodes, self.gpus_per_node),
            (&self.vnode_types, &self.vnode_servers, &self.type_names),
            &self.specs,
            &self.apps,
            &self.states,
        )
    }

    fn valid(&self, decision: &[Vec<u32>], jobs: usize, num_nodes: usize) -> Result<(), String> {
        if decision.len() != jobs {
            return Err(format!(
                "{} allocations for {jobs} active jobs",
                decision.len()
            ));
        }
        let mut used = vec![0u32; num_nodes];
        for a in decision {
            for &n in a {
                let Some(u) = used.get_mut(n as usize) else {
                    return Err(format!("server {n} does not exist"));
                };
                *u += 1;
                if *u > self.gpus_per_node {
                    return Err(format!("server {n} over-allocated"));
                }
            }
        }
        Ok(())
    }

    /// Simulate one tick: train every running job, then let the policy reallocate. None
    /// once every job is done.
    pub fn step_round(&mut self) -> Option<RoundReport> {
        if self.is_done() {
            return None;
        }
        let start = self.now;
        let mut events = Vec::new();
        let running: usize = self
            .states
            .iter()
            .filter(|s| !s.placement.is_empty() && !s.is_over())
            .count();
        let mut busy = vec![0u32; self.servers.len()];
        for s in self.states.iter().filter(|s| !s.is_over()) {
            if let Some(b) = s.gpu_type.and_then(|t| busy.get_mut(t)) {
                *b += s.replicas();
            }
        }
        let active_before = self
            .states
            .iter()
            .filter(|s| s.admitted && !s.is_over())
            .count();
        self.stop_jobs_away(start, &mut events);
        let failures = self.failures_until(start + self.config.interval, &mut events);
        let held = self.held();
        for id in 0..self.states.len() {
            match (&failures, held.get(id)) {
                (Some(f), Some(h)) => self.step_job_with_faults((id, h), f, &mut events),
                _ => self.step_job(id, self.config.interval, &mut events),
            }
        }
        self.now = start + self.config.interval;
        events.push(SimEvent::RoundEnded {
            round: self.tick,
            start,
            end: self.now,
            active: active_before,
            running,
            busy_gpus: busy,
        });
        for id in 0..self.states.len() {
            let st = &mut self.states[id];
            if st.is_over() && !st.placement.is_empty() {
                st.placement.clear();
                st.allocation.clear();
            }
            if !st.admitted && self.specs[id].arrival <= self.now {
                st.admitted = true;
                events.push(SimEvent::Admitted {
                    job: id,
                    time: self.now,
                });
            }
        }
        if let Some((ids, decision)) = self.decide() {
            match decision {
                Ok(d) => {
                    events.push(SimEvent::Decided { time: self.now });
                    let allocs: Vec<(JobId, Vec<u32>)> = ids
                        .into_iter()
                        .zip(d)
                        .map(|(id, a)| (id, self.runnable(id, self.one_type(a))))
                        .collect();
                    for (id, alloc) in self.spot_jobs_yield(allocs) {
                        if alloc != self.states[id].allocation {
                            self.reallocate(id, alloc, &mut events);
                        }
                    }
                }
                Err(reason) => events.push(SimEvent::PolicyFailed {
                    time: self.now,
                    reason,
                }),
            }
        }
        self.give_up_if_stalled(&mut events);
        for id in 0..self.states.len() {
            let st = &self.states[id];
            let shown = (st.replicas(), st.batch_size());
            if !st.is_over() && shown != self.last_shown[id] {
                self.last_shown[id] = shown;
                events.push(SimEvent::Resized {
                    job: id,
                    time: self.now,
                    gpus: shown.0,
                    nodes: st.nodes(),
                    batch_size: shown.1,
                });
            }
        }
        self.tick += 1;
        Some(RoundReport {
            round: self.tick - 1,
            start,
            end: self.now,
            events,
        })
    }
}

/// Decisions in a row that leave every GPU idle, with every job arrived and some waiting,
/// before the waiting jobs are given up on (the policy will not run them).
const MAX_IDLE_DECISIONS: u32 = 1000;

impl ElasticSimulator {
    /// Give up on the waiting jobs once the policy has left the whole cluster idle for
    /// [`MAX_IDLE_DECISIONS`] decisions with nothing left to arrive: no decision to come
    /// will differ (a rigid job too large for any type it can run on, say).
    fn give_up_if_stalled(&mut self, events: &mut Vec<SimEvent>) {
        let arrived = self.specs.iter().all(|s| s.arrival <= self.now);
        let idle = self
            .states
            .iter()
            .all(|s| s.is_over() || s.placement.is_empty());
        let waiting = self.states.iter().any(|s| !s.is_over());
        // Servers away (for repair, or spot capacity taken back) may come back.
        let away = self
            .faults
            .as_ref()
            .is_some_and(|f| f.may_come_back(self.now));
        if !(arrived && idle && waiting) || away {
            self.idle_decisions = 0;
            return;
        }
        self.idle_decisions += 1;
        if self.idle_decisions < MAX_IDLE_DECISIONS {
            return;
        }
        for (id, st) in self.states.iter_mut().enumerate() {
            if !st.is_over() {
                st.dropped = true;
                events.push(SimEvent::Dropped {
                    job: id,
                    time: self.now,
                    reason: format!(
                        "the policy left it waiting on an idle cluster for {MAX_IDLE_DECISIONS} decisions"
                    ),
                });
            }
        }
    }
}

fn build_view<'a>(
    (now, restart_s): (f64, f64),
    (num_nodes, gpus_per_node): (u32, u32),
    (node_types, node_servers, gpu_types): (&'a [usize], &'a [u32], &'a [String]),
    specs: &'a [JobSpec],
    apps: &'a Apps,
    states: &'a [ElasticJobState],
) -> ElasticView<'a> {
    let jobs = states
        .iter()
        .enumerate()
        .filter(|(_, st)| st.admitted && !st.is_over())
        .map(|(id, st)| ElasticJobView {
            id,
            spec: &specs[id],
            app: &apps.apps[st.app],
            state: st,
            age: now - specs[id].arrival,
        })
        .collect();
    ElasticView {
        now,
        num_nodes,
        gpus_per_node,
        node_types,
        node_servers,
        gpu_types,
        restart_s,
        jobs,
    }
}
