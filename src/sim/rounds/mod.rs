//! The round-based simulator: admission at round boundaries, the policy's decision turned
//! into placements by the mechanism, progress, restarts and completions.
//!
//! Two modes share one engine:
//! - the default mode: rounds of a fixed length, fractional steps, a restart cost when a
//!   job's placement changes, a new decision whenever the job set changes;
//! - the Gavel-compatible mode ([`SimConfig::gavel_compat`]), which reproduces the mechanism
//!   of Gavel's simulator: whole steps per round (`trunc(throughput x round)`), a round ends
//!   when its longest slice ends, the allocation is recomputed only when the job set changed
//!   and at least 1920 s passed since the last reset, time received is counted from the end
//!   of the previous busy round, GPU types are shuffled each round with Python's generator
//!   (seed + 5) for heterogeneity-unaware policies, and jobs that are not yet in the
//!   allocation hold the GPUs they were picked for without running.
//!
//! Space sharing: for packing policies ([`PolicyTraits::packing`]) the mechanism also keeps
//! an entry for every pair of active jobs of equal scale factor that can share GPUs (both
//! colocated throughputs positive on some type, from the profile). A pair has its own time
//! received, deficit and allocation row, and is ranked with the single jobs each round; a
//! pair is skipped when either job is already placed or either colocated throughput on the
//! type is 0. A pair takes its scale factor of GPUs once, and both jobs run on the same GPU
//! ids at their colocated rates; its time received is counted under the pair, not under
//! either job. In Gavel-compatible mode a new pair starts with no time received (single jobs
//! start at half a round, as in Gavel), each job does `trunc(rate x round)` steps, and the
//! pair's slice ends when the later job's ends, which is also the finish time of a job that
//! completes inside it. In the default mode a pair starts at half a round like a job, and a
//! job that completes inside a pair finishes at its own last step.
//!
//! In the page's module (wasm32) the round's large parts stay functions of their own
//! (`inline(never)`): V8 compiles a wasm function whole, in time that grows faster than its
//! size (see `WASM_OPT_PAGE` in `www/tools.sh`).
//!
//! A round runs in three parts, each in files of its own: admission (`admission.rs`), the
//! decision turned into placements (`select.rs`, `place.rs`, `placement.rs`), and the
//! slices' progress and completion (`progress.rs`); [`Simulator::step_round`] runs them in
//! that order.

mod admission;
pub mod contract;
mod place;
pub mod placement;
mod progress;
pub mod rows;
mod select;
mod spot_jobs;
pub mod stepper;

pub use stepper::build;

use super::faults::FaultState;
use super::{arrival_order, RoundReport, SimConfig, SimError, SimEvent};
use crate::model::cluster::{ClusterSpec, TypeIdx};
use crate::model::job::{JobId, JobSpec, JobState, Placement};
use crate::rng::{PyRandom, Rng};
use crate::workload::{Colocation, Profile};
use contract::{Decision, JobView, Policy, PolicyTraits, PolicyView, Recompute, Rows};
use std::collections::BTreeMap;

/// Per-job state the Gavel mechanism keeps (time received since the last reset, deficits).
#[derive(Debug, Clone)]
struct MechanismState {
    /// Time received per job and type since the last reset, starting at half a round
    /// (job `j`'s on type `t` at [`MechanismState::at`]).
    job_time: Vec<f64>,
    /// Total time received per type since the last reset.
    worker_time: Vec<f64>,
    /// Accumulated deficits per job and type (at [`MechanismState::at`]).
    deficits: Vec<f64>,
    /// The current allocation: a row per job (dense by id, job `j`'s value for type `t` at
    /// [`MechanismState::at`]), valid where [`MechanismState::allocated`] says so.
    alloc: Vec<f64>,
    /// Whether each job (by id) has an allocation row: it has been in an allocation.
    allocated: Vec<bool>,
    /// The jobs active at the last allocation with time on some type in it, ascending: the
    /// only ones a round's entries of positive priority can come from (however many jobs
    /// wait with nothing).
    support: Vec<JobId>,
    /// The last order or assignment decision.
    last_decision: Option<Decision>,
    need_update: bool,
    last_reset: f64,
    /// End of the previous round that ran jobs (Gavel counts time received from it).
    prev_busy_round_end: f64,
    failures: Vec<u32>,
    /// Pair entries of packing policies, by (lower id, higher id).
    pairs: BTreeMap<(JobId, JobId), PairMech>,
    /// Admission sequence number of each job: entries of equal rank are taken in the order
    /// Gavel inserted them (a job, then its pairs with the jobs admitted before it).
    admit_seq: Vec<u64>,
    next_seq: u64,
}

impl MechanismState {
    /// Where job `j`'s value for type `t` sits in the per-job, per-type vectors (a value
    /// per type of [`MechanismState::worker_time`] per job).
    fn at(&self, j: JobId, t: TypeIdx) -> usize {
        j * self.worker_time.len() + t
    }

    /// Job `j`'s allocation on type `t`, if the job has an allocation row.
    fn alloc_of(&self, j: JobId, t: TypeIdx) -> Option<f64> {
        self.allocated[j].then(|| self.alloc[self.at(j, t)])
    }

    /// Job `j`'s allocation row, if it has one.
    fn alloc_row(&self, j: JobId) -> Option<&[f64]> {
        let n = self.worker_time.len();
        self.allocated[j].then(|| &self.alloc[j * n..(j + 1) * n])
    }
}

/// What the mechanism keeps for a pair of jobs that can share GPUs.
#[derive(Debug, Clone)]
struct PairMech {
    /// Colocated steps/s per type: (lower id's, higher id's).
    rates: Vec<(f64, f64)>,
    /// Time received per type since the last reset.
    job_time: Vec<f64>,
    /// Accumulated deficits per type.
    deficits: Vec<f64>,
    /// The pair's allocation row, if the pair is in the current allocation.
    alloc: Option<Vec<f64>>,
    /// Where the pair last ran.
    last_placement: Option<Placement>,
}

/// A job (or a pair: the lower id and its partner) picked to run on `gpus` GPUs of a type;
/// whether it makes progress (jobs not yet in Gavel's allocation hold GPUs without running).
type Pick = (JobId, Option<JobId>, TypeIdx, u32, bool);

/// One job's work in a round.
struct Slice {
    job: JobId,
    /// The other job on the same GPUs, for a pair.
    partner: Option<JobId>,
    placement: Placement,
    steps: f64,
    /// The job's finish time within the round (for a pair in Gavel-compatible mode, the
    /// pair's).
    fin: f64,
    overhead: f64,
    /// Restart delay still to pay after this round.
    restart_left: f64,
    /// When the GPUs are released: `fin` for a job alone, the later member's end for a pair.
    held_until: f64,
    /// Whether a failure stopped it at `fin` (it then restarts wherever it runs next).
    stopped: bool,
}

/// The simulator.
pub struct Simulator {
    cfg: SimConfig,
    cluster: ClusterSpec,
    specs: Vec<JobSpec>,
    states: Vec<JobState>,
    profile: Profile,
    /// Steps/s per job (at its scale factor) and type.
    thr: Rows,
    policy: Box<dyn Policy>,
    /// The policy's traits, fixed for its life: asked once, not in every round.
    traits: PolicyTraits,
    arrival_order: Vec<JobId>,
    next_arrival: usize,
    active: Vec<JobId>,
    /// The active jobs that ran in the previous round (those whose
    /// [`JobState::ran_last_round`] is set), ascending: a round's preemptions and restarts
    /// concern only them, however many jobs wait.
    ran_last: Vec<JobId>,
    now: f64,
    round: u64,
    started: bool,
    done: bool,
    idle_rounds: u32,
    mech: MechanismState,
    policy_rng: Rng,
    type_shuffler: PyRandom,
    /// Ownership of GPUs in the last round, per type (the lower id of a pair), as
    /// [`placement::Owner`] cells.
    last_owners: Vec<Vec<placement::Owner>>,
    /// The second job on each GPU in the last round (the higher id of a pair), per type.
    last_sharers: Vec<Vec<Option<JobId>>>,
    /// What the last round placed (the job, its partner, the type and the GPUs' number), by
    /// job id: the jobs whose GPUs `last_owners` holds.
    last_placed: Vec<(JobId, Option<JobId>, TypeIdx, u32)>,
    /// Tests: every round claims every GPU again (no steady types), and how many rounds
    /// had a steady type.
    #[cfg(test)]
    claim_all: bool,
    #[cfg(test)]
    steady_rounds: usize,
    /// Colocated throughputs of pairs of this trace's jobs.
    colocation: Colocation,
    /// Buffers a round leaves to the next.
    scratch: RoundScratch,
    /// Server failures and checkpoints, when the experiment has them.
    faults: Option<FaultState>,
    /// Under failures, each job's GPUs as the failures see them, from the last round it ran.
    held: Vec<Option<progress::HeldAt>>,
}

/// Buffers of one round kept for the next, so that a round allocates little; their
/// contents are dead between rounds.
#[derive(Default)]
struct RoundScratch {
    /// The selection's flags, whether each job (by id) is placed.
    placed: Vec<bool>,
    /// The selection's ranking entries of one type.
    entries: Vec<([i64; 3], JobId)>,
    /// Picks whose last GPUs were taken, placed after the others.
    deferred: Vec<Pick>,
    /// Jobs whose spot instance was taken back at the round's start.
    spot_lost: Vec<JobId>,
    /// Whether each job (by id) is listed in the policy's allocation (all false between
    /// decisions).
    listed: Vec<bool>,
}

impl Simulator {
    /// Set up a simulation. Every job must be able to run somewhere on this cluster.
    pub fn new(
        cfg: SimConfig,
        cluster: ClusterSpec,
        specs: Vec<JobSpec>,
        profile: Profile,
        policy: Box<dyn Policy>,
    ) -> Result<Self, SimError> {
        if !(cfg.round_len.is_finite() && cfg.round_len > 0.0) {
            return Err(SimError::Config {
                field: "round".into(),
                reason: "must be a positive number of seconds".into(),
            });
        }
        if !(cfg.restart.delay_s.is_finite() && cfg.restart.delay_s >= 0.0) {
            return Err(SimError::Config {
                field: "restart_cost".into(),
                reason: "must be a non-negative number of seconds".into(),
            });
        }
        cluster.validate().map_err(|e| SimError::Config {
            field: "cluster".into(),
            reason: e.to_string(),
        })?;
        let n = cluster.num_types();
        let mut thr = Rows::new(n);
        for (id, s) in specs.iter().enumerate() {
            let bad = |reason: String| SimError::Job {
                job: id,
                job_type: s.job_type.clone(),
                reason,
            };
            if !(s.arrival.is_finite() && s.arrival >= 0.0) {
                return Err(bad(format!(
                    "arrival {} must be a non-negative number",
                    s.arrival
                )));
            }
            if !(s.total_steps.is_finite() && s.total_steps > 0.0) {
                return Err(bad(format!(
                    "total steps {} must be positive",
                    s.total_steps
                )));
            }
            if s.scale_factor == 0 {
                return Err(bad("scale factor must be at least 1".into()));
            }
            if !(s.priority_weight.is_finite() && s.priority_weight > 0.0) {
                return Err(bad(format!(
                    "priority weight {} must be positive",
                    s.priority_weight
                )));
            }
            if !profile.job_types.contains_key(&s.job_type) {
                return Err(bad("job type not in the profile".into()));
            }
            let row = profile.throughputs_on(&s.job_type, s.scale_factor, &cluster);
            let runnable = row
                .iter()
                .zip(&cluster.types)
                .any(|(&v, t)| v > 0.0 && t.count >= s.scale_factor);
            if !runnable {
                return Err(bad(format!(
                    "no throughput at scale factor {} on any GPU type of the cluster with enough GPUs",
                    s.scale_factor
                )));
            }
            thr.push(&row);
        }
        let arrival_order = arrival_order(&specs);
        let m = specs.len();
        if cfg.faults.is_some() && cfg.gavel_compat {
            return Err(SimError::Config {
                field: "failures".into(),
                reason: "Gavel-compatible mode has no failures or checkpoints".into(),
            });
        }
        // Spot capacity without failure settings: no failures, the default checkpoints.
        let spot_only = crate::sim::faults::spot_only(&cfg.spot);
        let faults = cfg.faults.as_ref().or(spot_only.as_ref()).map(|f| {
            FaultState::new(f, &cluster, m, cfg.seed)
                .with_writes(specs.iter().map(|s| s.checkpoint_write_s).collect())
        });
        let traits = policy.traits();
        let colocation = if traits.packing {
            Colocation::new(&profile, &cluster, &specs)
        } else {
            Colocation::default()
        };
        let mut sim = Simulator {
            states: vec![JobState::new(n); m],
            mech: MechanismState {
                job_time: vec![0.0; n * m],
                worker_time: vec![0.0; n],
                deficits: vec![0.0; n * m],
                alloc: vec![0.0; n * m],
                allocated: vec![false; m],
                support: Vec::new(),
                last_decision: None,
                need_update: true,
                last_reset: 0.0,
                prev_busy_round_end: 0.0,
                failures: vec![0; m],
                pairs: BTreeMap::new(),
                admit_seq: vec![0; m],
                next_seq: 0,
            },
            policy_rng: Rng::for_purpose(cfg.seed, "policy"),
            type_shuffler: PyRandom::new(cfg.seed.wrapping_add(5)),
            last_owners: Vec::new(),
            last_sharers: Vec::new(),
            last_placed: Vec::new(),
            #[cfg(test)]
            claim_all: false,
            #[cfg(test)]
            steady_rounds: 0,
            colocation,
            scratch: RoundScratch::default(),
            held: faults.as_ref().map_or_else(Vec::new, |_| vec![None; m]),
            faults,
            cfg,
            cluster,
            specs,
            profile,
            thr,
            policy,
            traits,
            arrival_order,
            next_arrival: 0,
            active: Vec::new(),
            ran_last: Vec::new(),
            now: 0.0,
            round: 0,
            started: false,
            done: false,
            idle_rounds: 0,
        };
        sim.release_gpus();
        Ok(sim)
    }

    /// Nobody holds any GPU (before the first round, and after a round in which nothing ran).
    fn release_gpus(&mut self) {
        let types = &self.cluster.types;
        self.last_placed.clear();
        self.last_owners = (types.iter())
            .map(|t| vec![placement::FREE; t.count as usize])
            .collect();
        self.last_sharers = types.iter().map(|t| vec![None; t.count as usize]).collect();
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
    /// The cluster.
    pub fn cluster(&self) -> &ClusterSpec {
        &self.cluster
    }
    /// The jobs.
    pub fn specs(&self) -> &[JobSpec] {
        &self.specs
    }
    /// Per-job state.
    pub fn states(&self) -> &[JobState] {
        &self.states
    }
    /// Active job ids.
    pub fn active(&self) -> &[JobId] {
        &self.active
    }
    /// Simulated time (s).
    pub fn now(&self) -> f64 {
        self.now
    }
    /// Rounds simulated.
    pub fn round(&self) -> u64 {
        self.round
    }
    /// Whether every job has finished (or was dropped).
    pub fn is_done(&self) -> bool {
        self.done
    }
    /// The policy's name.
    pub fn policy_name(&self) -> &str {
        self.policy.name()
    }
    /// What the mechanism knows about the policy (when it decides, how rounds are filled).
    pub fn policy_traits(&self) -> PolicyTraits {
        self.traits
    }
    /// Steps/s of a job on each type.
    pub fn throughputs(&self, job: JobId) -> &[f64] {
        &self.thr[job]
    }
    /// The current allocation row of a job (allocation policies).
    pub fn allocation_row(&self, job: JobId) -> Option<&[f64]> {
        if job < self.mech.allocated.len() {
            self.mech.alloc_row(job)
        } else {
            None
        }
    }
    /// Tests: claim every GPU again in every round, as if no type were ever steady.
    #[cfg(test)]
    pub(crate) fn claim_every_gpu(&mut self) {
        self.claim_all = true;
    }

    /// Tests: the rounds so far with a steady type.
    #[cfg(test)]
    pub(crate) fn steady_rounds(&self) -> usize {
        self.steady_rounds
    }

    /// Who held each GPU in the last round, per type. A pair sharing GPUs shows as its
    /// lower id here and its higher id in [`Simulator::gpu_sharers`].
    pub fn gpu_owners(&self) -> Vec<Vec<Option<JobId>>> {
        self.last_owners
            .iter()
            .map(|row| row.iter().map(|&o| placement::holder(o)).collect())
            .collect()
    }
    /// The second job on each GPU in the last round (the higher id of a pair sharing it),
    /// per type; `None` where a GPU was idle or held by one job.
    pub fn gpu_sharers(&self) -> &[Vec<Option<JobId>>] {
        &self.last_sharers
    }
    /// The current allocation row of the pair of `a` and `b` (packing policies), if the pair
    /// can share GPUs and is in the allocation.
    pub fn pair_allocation_row(&self, a: JobId, b: JobId) -> Option<&[f64]> {
        self.mech
            .pairs
            .get(&(a.min(b), a.max(b)))
            .and_then(|p| p.alloc.as_deref())
    }
    /// Colocated throughputs of the trace's pairs (empty unless the policy packs).
    pub fn colocation(&self) -> &Colocation {
        &self.colocation
    }
    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    fn emit(&mut self, report: &mut RoundReport, e: SimEvent) {
        self.policy.observe(&e);
        report.events.push(e);
    }

    /// What the policy sees now.
    pub fn view(&self) -> PolicyView<'_> {
        let mut view = build_view(
            self.now,
            self.cfg.round_len,
            &self.cluster,
            &self.specs,
            &self.states,
            &self.thr,
            &self.active,
        );
        view.colocation = self.traits.packing.then_some(&self.colocation);
        view.gavel_compat = self.cfg.gavel_compat;
        view
    }

    fn min_reset_interval(&self) -> f64 {
        self.cfg
            .min_reset_interval
            .unwrap_or(if self.cfg.gavel_compat { 1920.0 } else { 0.0 })
    }

    /// Reset the time-received bookkeeping (deficits use the old allocation).
    fn reset_time_received(&mut self) {
        let half = self.cfg.round_len / 2.0;
        let elapsed = self.now - self.mech.last_reset;
        for t in 0..self.cluster.num_types() {
            self.mech.worker_time[t] = 0.0;
            for &j in &self.active {
                let at = self.mech.at(j, t);
                let received = self.mech.job_time[at] - half;
                let should = self.mech.alloc_of(j, t).map_or(0.0, |x| x * elapsed);
                self.mech.deficits[at] += should - received;
                self.mech.job_time[at] = half;
                self.mech.worker_time[t] += half;
            }
        }
        if self.traits.packing {
            for p in self.mech.pairs.values_mut() {
                for t in 0..p.job_time.len() {
                    let received = p.job_time[t] - half;
                    let should = p.alloc.as_ref().map_or(0.0, |r| r[t] * elapsed);
                    p.deficits[t] += should - received;
                    p.job_time[t] = half;
                }
            }
            // Gavel counts every pair of active jobs of equal scale factor, including those
            // that cannot share GPUs (and so are not kept here).
            let mut by_scale: BTreeMap<u32, u64> = BTreeMap::new();
            for &j in &self.active {
                *by_scale.entry(self.specs[j].scale_factor).or_default() += 1;
            }
            let pairs: u64 = by_scale
                .values()
                .map(|&k| k * k.saturating_sub(1) / 2)
                .sum();
            for w in &mut self.mech.worker_time {
                *w += half * pairs as f64;
            }
        }
        self.mech.last_reset = self.now;
    }

    /// Ask the policy when it is due; apply its decision.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn decide(&mut self, report: &mut RoundReport) {
        let traits = self.traits;
        let due = match traits.recompute {
            Recompute::EveryRound => true,
            Recompute::OnJobSetChange => {
                self.mech.need_update
                    && (self.now - self.mech.last_reset >= self.min_reset_interval()
                        || self.mech.last_reset == 0.0)
            }
        };
        if !due {
            return;
        }
        if traits.recompute == Recompute::OnJobSetChange {
            self.reset_time_received();
        }
        self.mech.need_update = false;
        let mut rng = std::mem::replace(&mut self.policy_rng, Rng::new(0));
        let result = {
            let mut view = build_view(
                self.now,
                self.cfg.round_len,
                &self.cluster,
                &self.specs,
                &self.states,
                &self.thr,
                &self.active,
            );
            view.colocation = self.traits.packing.then_some(&self.colocation);
            view.gavel_compat = self.cfg.gavel_compat;
            self.policy.decide(&view, &mut rng)
        };
        self.policy_rng = rng;
        let now = self.now;
        match result {
            Ok(Decision::Allocation(a)) => {
                let n = self.cluster.num_types();
                // Fractions in [0, 1]; outside Gavel-compatible mode, time on a type where
                // the job (or either job of a pair) cannot run is dropped: it would never be
                // used, and it is not shown.
                let usable_only = !self.cfg.gavel_compat;
                let clean = |x: f64, runs: bool| -> f64 {
                    if x.is_finite() && (!usable_only || runs) {
                        x.clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                };
                // Whether each job (by id) is listed: jobs the policy left out get no share.
                // All false between decisions.
                let mut listed = std::mem::take(&mut self.scratch.listed);
                listed.resize(self.specs.len(), false);
                for &j in &a.jobs {
                    if j < listed.len() {
                        listed[j] = true;
                    }
                }
                for (j, row) in a.jobs.iter().zip(&a.fractions) {
                    if *j < self.mech.allocated.len() && row.len() == n {
                        self.mech.allocated[*j] = true;
                        for (t, &x) in row.iter().enumerate() {
                            let at = self.mech.at(*j, t);
                            self.mech.alloc[at] = clean(x, self.thr[*j][t] > 0.0);
                        }
                    }
                }
                if self.traits.packing {
                    // Pairs the policy left out get no share.
                    for p in self.mech.pairs.values_mut() {
                        p.alloc = Some(vec![0.0; n]);
                    }
                    for (&(x, y), row) in a.pairs.iter().zip(&a.pair_fractions) {
                        if let Some(p) = self.mech.pairs.get_mut(&(x.min(y), x.max(y))) {
                            if row.len() == n {
                                let rates = &p.rates;
                                let r = row
                                    .iter()
                                    .enumerate()
                                    .map(|(t, &x)| clean(x, rates[t].0 > 0.0 && rates[t].1 > 0.0))
                                    .collect();
                                p.alloc = Some(r);
                            }
                        }
                    }
                }
                for &j in &self.active {
                    if !listed[j] {
                        self.mech.allocated[j] = true;
                        let at = self.mech.at(j, 0);
                        self.mech.alloc[at..at + n].fill(0.0);
                    }
                }
                for &j in &a.jobs {
                    if j < listed.len() {
                        listed[j] = false;
                    }
                }
                self.scratch.listed = listed;
                let mut support = std::mem::take(&mut self.mech.support);
                support.clear();
                support.extend(self.active.iter().copied().filter(|&j| {
                    self.mech
                        .alloc_row(j)
                        .is_some_and(|r| r.iter().any(|&x| x > 0.0))
                }));
                self.mech.support = support;
                self.mech.last_decision = None;
                self.emit(report, SimEvent::Decided { time: now });
            }
            Ok(d) => {
                self.mech.last_decision = Some(d);
                if traits.recompute == Recompute::OnJobSetChange {
                    self.emit(report, SimEvent::Decided { time: now });
                }
            }
            Err(e) => {
                self.emit(
                    report,
                    SimEvent::PolicyFailed {
                        time: now,
                        reason: e.to_string(),
                    },
                );
            }
        }
    }

    /// Run one round. `None` once the simulation is over.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn step_round(&mut self) -> Option<RoundReport> {
        let mut report = self.open_round()?;
        let placements = self.select(&mut report);
        let start = self.now;
        let compat = self.cfg.gavel_compat;
        let slices = self.slices(placements, start, &mut report);
        let end = if slices.is_empty() {
            start
        } else if compat {
            slices.iter().map(|s| s.fin).fold(start, f64::max)
        } else {
            start + self.cfg.round_len
        };
        let running = slices.len();
        self.preemptions(&slices, start, &mut report);
        if slices.is_empty() {
            return Some(self.idle_round(start, report));
        }
        Some(self.complete(slices, running, start, end, report))
    }

    /// Run to the end, passing every round's events to `sink`.
    pub fn run_with(&mut self, mut sink: impl FnMut(&RoundReport)) {
        while let Some(r) = self.step_round() {
            sink(&r);
        }
    }
}

/// A key whose ascending order is the descending [`f64::total_cmp`] order of `x`.
fn descending_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    // `total_cmp`'s key: flip the magnitude bits of negative numbers.
    !(bits ^ ((((bits >> 63) as u64) >> 1) as i64))
}

fn build_view<'a>(
    now: f64,
    round_len: f64,
    cluster: &'a ClusterSpec,
    specs: &'a [JobSpec],
    states: &'a [JobState],
    thr: &'a Rows,
    active: &[JobId],
) -> PolicyView<'a> {
    PolicyView {
        now,
        round_len,
        cluster,
        jobs: active
            .iter()
            .map(|&j| {
                let st = &states[j];
                JobView {
                    id: j,
                    spec: &specs[j],
                    throughput: &thr[j],
                    steps_remaining: (specs[j].total_steps - st.steps_done).max(0.0),
                    attained_service: st.attained_service,
                    time_since_arrival: now - specs[j].arrival,
                    time_on_type: &st.time_on_type,
                    running_on: if st.ran_last_round {
                        st.last_placement.as_ref().map(|p| p.gpu_type)
                    } else {
                        None
                    },
                    rounds_run: st.rounds_run,
                }
            })
            .collect(),
        colocation: None,
        gavel_compat: false,
    }
}
