//! Failures and checkpoints in a run, the same for every mechanism: which servers fail in
//! a step ([`FaultState::failures_until`]), which running job a failure hits first
//! ([`first_hit`]), how far a job gets in a stretch of time with its checkpoints
//! ([`FaultState::run`]) and what a failure takes back from it ([`FaultState::fail`]).
//!
//! A mechanism reads the step's failures, runs each job with [`FaultState::run`] up to the
//! first failure of one of its servers, and on a failure stops the job there, takes back
//! the work since its last checkpoint, reports it ([`SimEvent::Interrupted`]) and hands the
//! job back to its policy, which restarts it (paying the experiment's restart model) where
//! it decides.

use super::events::SimEvent;
use crate::model::cluster::ClusterSpec;
use crate::model::failure::checkpoint::{Ledger, Stretch};
use crate::model::failure::schedule::{Failure, Schedule};
use crate::model::failure::{Cause, Faults};
use crate::model::job::JobId;

/// The failures and checkpoint ledgers of one run.
#[derive(Debug, Clone)]
pub struct FaultState {
    faults: Faults,
    causes: Vec<Cause>,
    schedule: Schedule,
    ledgers: Vec<Ledger>,
    /// Per GPU type: the global index of its first server and its GPUs per server.
    servers_of_type: Vec<(u32, u32)>,
    /// When each server (or its GPU away) is back from repair.
    back_at: Vec<f64>,
    /// Per server, in a GPU domain: the GPU away for repair, if only one GPU is.
    down_gpu: Vec<Option<u32>>,
    /// GPUs of each type.
    counts: Vec<u32>,
    /// Per job: its own checkpoint write time, if it has one (its type's profile entry).
    writes: Vec<Option<f64>>,
}

impl FaultState {
    /// The failures of `cluster`'s servers for `jobs` jobs, from the experiment's `seed`.
    pub fn new(faults: &Faults, cluster: &ClusterSpec, jobs: usize, seed: u64) -> Self {
        let mut servers_of_type = Vec::with_capacity(cluster.types.len());
        let mut gpus = Vec::new();
        for t in &cluster.types {
            let per = t.per_server.max(1);
            servers_of_type.push((gpus.len() as u32, per));
            // The last server of a type may have fewer GPUs.
            gpus.extend((0..t.count.div_ceil(per)).map(|k| (t.count - k * per).min(per)));
        }
        let total = gpus.len();
        FaultState {
            causes: faults.failures.causes(),
            schedule: Schedule::with_gpus(&faults.failures, &gpus, seed),
            faults: faults.clone(),
            ledgers: vec![Ledger::default(); jobs],
            servers_of_type,
            back_at: vec![0.0; total],
            down_gpu: vec![None; total],
            counts: cluster.types.iter().map(|t| t.count).collect(),
            writes: Vec::new(),
        }
    }

    /// The same with each job's own checkpoint write time, where it has one (`writes`, by
    /// job id; the experiment's for the others).
    pub fn with_writes(mut self, writes: Vec<Option<f64>>) -> Self {
        self.writes = writes;
        self
    }

    /// Job `job`'s checkpoint plan: the experiment's, with its own write time if it has one.
    fn plan_of(&self, job: JobId) -> crate::model::failure::checkpoint::CheckpointPlan {
        let mut plan = self.faults.checkpoint;
        if let Some(&Some(w)) = self.writes.get(job) {
            plan.write_s = w;
        }
        plan
    }

    /// The global index of the server holding GPU `gpu` of type `ty`.
    pub fn server_of(&self, ty: usize, gpu: u32) -> u32 {
        let (first, per) = self.servers_of_type[ty];
        first + gpu / per
    }

    /// The global index of the server holding GPU `gpu` of type `ty`, and the GPU's index
    /// in it.
    pub fn locate(&self, ty: usize, gpu: u32) -> (u32, u32) {
        let (first, per) = self.servers_of_type[ty];
        (first + gpu / per, gpu % per)
    }

    /// The failures at or before `t` not read yet, in time order, each reported.
    pub fn failures_until(&mut self, t: f64, events: &mut Vec<SimEvent>) -> Vec<Failure> {
        let failures = self.schedule.until(t);
        for f in &failures {
            self.back_at[f.server as usize] = f.back_at;
            self.down_gpu[f.server as usize] = f.gpu;
            events.push(SimEvent::ServerFailed {
                time: f.time,
                server: f.server,
                category: self.causes[f.cause].category.clone(),
                gpu: f.gpu,
            });
        }
        failures
    }

    /// The failures at or before `to` not read yet (reported) and the instances the spot
    /// traces `spot` take back in `(from, to)`, as failures of their servers
    /// ([`FaultState::spot_drops`]), in time order.
    pub fn failures_in(
        &mut self,
        spot: &[SpotTrace],
        (from, to): (f64, f64),
        events: &mut Vec<SimEvent>,
    ) -> Vec<Failure> {
        let mut failures = self.failures_until(to, events);
        let before = failures.len();
        for (ty, trace) in spot {
            let count = self.counts.get(*ty).copied().unwrap_or(0);
            failures.extend(self.spot_drops(*ty, count, trace, (from, to)));
        }
        if failures.len() > before {
            crate::order::sort_by(&mut failures, |a, b| a.time.total_cmp(&b.time));
        }
        failures
    }

    /// Seconds a failed server is away (0: a spare takes its place at once).
    pub fn repair_s(&self) -> f64 {
        self.faults.failures.repair_s
    }

    /// The GPUs of type `ty` (of `count`) away for repair at time `t`: their server's, or
    /// (in a GPU domain) the one that failed.
    pub fn down_gpus(&self, ty: usize, count: u32, t: f64) -> Vec<u32> {
        let (first, per) = self.servers_of_type[ty];
        let servers = count.div_ceil(per);
        (0..servers)
            .flat_map(|k| {
                let r = self.repair_range(first + k, t);
                (k * per + r.start..(k * per + r.end).min(count)).collect::<Vec<u32>>()
            })
            .collect()
    }

    /// The GPUs of server `s` (indices in it) away for repair at `t`: all of them, the one
    /// that failed in a GPU domain, or none.
    fn repair_range(&self, s: u32, t: f64) -> std::ops::Range<u32> {
        let i = s as usize;
        if self.repair_s() <= 0.0 || self.back_at.get(i).is_none_or(|&b| b <= t) {
            return 0..0;
        }
        match self.down_gpu[i] {
            Some(g) => g..g + 1,
            None => 0..self.gpus_of(s).map_or(0, |(_, r)| r.end - r.start),
        }
    }

    /// The GPUs of server `s` (indices in it) away at `t`: all of them when it is away
    /// (for repair, or a spot instance taken back, [`FaultState::away`]), else the one GPU
    /// away for repair in a GPU domain, or none.
    pub fn away_range(&self, s: u32, spot: &[SpotTrace], t: f64) -> std::ops::Range<u32> {
        if self.spot_away(s, spot, t) {
            return 0..self.gpus_of(s).map_or(0, |(_, r)| r.end - r.start);
        }
        self.repair_range(s, t)
    }

    /// When the first server away for repair at `t` is back, if one is.
    pub fn next_back(&self, t: f64) -> Option<f64> {
        self.back_at
            .iter()
            .copied()
            .filter(|&b| b > t)
            .min_by(f64::total_cmp)
    }

    /// Whether server `s` is away for repair at time `t` (the whole server: not one GPU of
    /// it in a GPU domain).
    pub fn is_down(&self, s: u32, t: f64) -> bool {
        self.back_at.get(s as usize).is_some_and(|&b| b > t)
            && self.down_gpu.get(s as usize).is_some_and(Option::is_none)
    }

    /// Whether server `s` is a spot instance its type's trace in `spot` does not hold at
    /// `t` (a type's highest instances go first, as placement leaves them out).
    pub fn spot_away(&self, s: u32, spot: &[SpotTrace], t: f64) -> bool {
        let Some((ty, _)) = self.gpus_of(s) else {
            return false;
        };
        let first = self.servers_of_type[ty].0;
        spot.iter()
            .any(|(k, trace)| *k == ty && s - first >= trace.at(t))
    }

    /// Whether server `s` is a spot instance its type's trace in `spot` takes back exactly
    /// at `t` (held just before, not at `t`).
    pub fn spot_taken_at(&self, s: u32, spot: &[SpotTrace], t: f64) -> bool {
        let Some((ty, _)) = self.gpus_of(s) else {
            return false;
        };
        let rank = s - self.servers_of_type[ty].0;
        spot.iter().any(|(k, trace)| {
            let i = trace.steps.partition_point(|x| x.0 < t);
            *k == ty && rank >= trace.at(t) && i > 0 && rank < trace.steps[i - 1].1
        })
    }

    /// Whether server `s` is away at `t`: for repair (with a repair time; else a spare
    /// takes its place at once) or as a spot instance taken back. The first is true when
    /// it is away for either reason, the second when it is a spot instance taken back.
    pub fn away(&self, s: u32, spot: &[SpotTrace], t: f64) -> (bool, bool) {
        let taken = self.spot_away(s, spot, t);
        (
            taken || (self.repair_s() > 0.0 && self.is_down(s, t)),
            taken,
        )
    }

    /// When the first server away at `t` (for repair, or a spot instance of `spot`) may be
    /// back, if one may.
    pub fn next_back_or_rise(&self, spot: &[SpotTrace], t: f64) -> Option<f64> {
        self.next_back(t)
            .into_iter()
            .chain(spot.iter().filter_map(|(_, trace)| trace.next_rise(t)))
            .min_by(f64::total_cmp)
    }

    /// The name and category of cause `i`.
    pub fn cause(&self, i: usize) -> &Cause {
        &self.causes[i]
    }

    /// Job `job`, spanning `servers` servers, runs for up to `time_s` seconds at `rate`
    /// work per second with `work_left` to do, checkpointing as the experiment says.
    pub fn run(
        &mut self,
        job: JobId,
        servers: u32,
        time_s: f64,
        rate: f64,
        work_left: f64,
    ) -> Stretch {
        let plan = self.plan_of(job);
        let interval = plan.interval_s(self.faults.failures.mttf_s(servers));
        self.ledgers[job].run(time_s, rate, work_left, interval, plan.write_s)
    }

    /// The instances of spot type `ty` taken back by `trace` in `(from, to)`, each as a
    /// failure of its server with cause [`SPOT_CAUSE`] at its step's time: a step taking
    /// back `r` instances of the `n` held before it takes the highest, `n - r..n` (as
    /// placement leaves the highest out; its additions come up above those left, on
    /// servers whose jobs it stopped); `count` GPUs of the type.
    pub fn spot_drops(
        &self,
        ty: usize,
        count: u32,
        trace: &crate::model::spot::CapacityTrace,
        (from, to): (f64, f64),
    ) -> Vec<Failure> {
        let (first, per) = self.servers_of_type[ty];
        let servers = count.div_ceil(per);
        let mut out = Vec::new();
        let i = trace.steps.partition_point(|s| s.0 <= from);
        let mut held = trace.at(from);
        for (k, &(time, n)) in trace.steps.iter().enumerate().skip(i) {
            if time >= to {
                break;
            }
            let low = held.saturating_sub(trace.taken_back(k)).min(servers);
            out.extend((low..held.min(servers)).map(|k| Failure {
                time,
                server: first + k,
                cause: SPOT_CAUSE,
                back_at: time,
                gpu: None,
            }));
            held = n;
        }
        out
    }

    /// Job `job`'s spot instance is taken back after a warning of `warning_s` seconds
    /// ([`Ledger::preempt`]): the work lost, the seconds of computation lost and the
    /// seconds spent writing a checkpoint in the warning.
    pub fn preempt(&mut self, job: JobId, warning_s: f64) -> (f64, f64, f64) {
        let write_s = self.plan_of(job).write_s;
        self.ledgers[job].preempt(warning_s, write_s)
    }

    /// Job `job` stops on a server gone away: a spot instance taken back after a warning of
    /// `warning_s` seconds (`spot`, [`FaultState::preempt`]), else a failure
    /// ([`FaultState::fail`]). The work lost, the seconds of computation lost and the
    /// seconds spent writing in the warning.
    pub fn stop(&mut self, job: JobId, spot: bool, warning_s: f64) -> (f64, f64, f64) {
        if spot {
            return self.preempt(job, warning_s);
        }
        let (lost, lost_s) = self.fail(job);
        (lost, lost_s, 0.0)
    }

    /// A failure hits job `job`: the work since its last checkpoint and the seconds that
    /// computed it are taken back (returned), and it starts again from that checkpoint.
    pub fn fail(&mut self, job: JobId) -> (f64, f64) {
        let computed = self.ledgers[job].computed_s;
        (self.ledgers[job].fail(), computed)
    }

    /// Job `job`, about to write a checkpoint of its own (a suspension's), runs for up to
    /// `time_s` seconds at `rate` with `work_left` to do: a write under way ends, none
    /// starts.
    pub fn run_to_suspend(
        &mut self,
        job: JobId,
        time_s: f64,
        rate: f64,
        work_left: f64,
    ) -> Stretch {
        self.ledgers[job].run(time_s, rate, work_left, f64::INFINITY, 0.0)
    }

    /// Job `job` wrote a checkpoint outside its plan (a suspension's): its work is safe.
    pub fn checkpointed(&mut self, job: JobId) {
        self.ledgers[job].checkpointed();
    }

    /// Where job `job` is between its checkpoints.
    pub fn ledger(&self, job: JobId) -> &Ledger {
        &self.ledgers[job]
    }

    /// Seconds of the checkpoint job `job` is writing still to go (0: not writing).
    pub fn writing_left(&self, job: JobId) -> f64 {
        self.ledgers[job].writing_s
    }

    /// Seconds job `job`, spanning `servers` servers, needs to do `work_left` at `rate`,
    /// its checkpoint writes included (as [`FaultState::run`] would run it).
    pub fn time_to_finish(&self, job: JobId, servers: u32, rate: f64, work_left: f64) -> f64 {
        let plan = self.plan_of(job);
        let interval = plan.interval_s(self.faults.failures.mttf_s(servers));
        self.ledgers[job].time_to_finish(work_left, rate, interval, plan.write_s)
    }

    /// When the next failure happens, if one does.
    pub fn next_failure(&self) -> Option<f64> {
        self.schedule.peek()
    }

    /// The GPU type of server `server` and its GPUs' indices within the type (the last
    /// server of a type may have fewer than the range says).
    pub fn gpus_of(&self, server: u32) -> Option<(usize, std::ops::Range<u32>)> {
        let ty = self
            .servers_of_type
            .partition_point(|&(first, _)| first <= server)
            .checked_sub(1)?;
        let (first, per) = self.servers_of_type[ty];
        let k = server - first;
        Some((ty, k * per..(k + 1) * per))
    }

    /// The servers GPUs `ids` of type `ty` span (ranges in increasing order).
    pub fn servers_spanned(&self, ty: usize, ids: &[std::ops::Range<u32>]) -> u32 {
        let mut n = 0;
        let mut last = None;
        for r in ids.iter().filter(|r| r.start < r.end) {
            let (a, b) = (self.server_of(ty, r.start), self.server_of(ty, r.end - 1));
            n += b - a + 1;
            if last == Some(a) {
                n -= 1;
            }
            last = Some(b);
        }
        n
    }
}

/// A spot GPU type (its index among the cluster's types) and its capacity trace.
pub type SpotTrace = (usize, std::sync::Arc<crate::model::spot::CapacityTrace>);

/// Failure settings for a run with spot traces `spot` but none of its own: no failures,
/// the default checkpoints.
pub fn spot_only(spot: &[SpotTrace]) -> Option<Faults> {
    (!spot.is_empty()).then(|| Faults {
        failures: crate::model::failure::FailureModel::with_rate(0.0),
        checkpoint: Default::default(),
    })
}

/// The cause index of a spot instance taken back, among a round's failures.
pub const SPOT_CAUSE: usize = usize::MAX;

/// The first of `failures[from..]` (in time order) that hits a job holding `held`, with
/// its index.
pub fn first_hit(failures: &[Failure], held: &Held, from: usize) -> Option<(usize, Failure)> {
    failures
        .iter()
        .enumerate()
        .skip(from)
        .find(|(_, f)| held.hit_by(f))
        .map(|(i, f)| (i, *f))
}

/// Where a job runs, for the failures that hit it: the GPUs it holds as (server, GPU in the
/// server), sorted. A failure of a whole server hits it if it holds any GPU there (or a
/// task without one, [`Held::NO_GPU`]); a failure of one GPU (a GPU domain) only if it holds
/// that GPU. Mechanisms that know which GPUs a job holds give them; the others lay each
/// server's GPUs out by its jobs in a fixed order (a failed GPU, drawn uniformly, then hits
/// each job as often as it holds GPUs there).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Held(Vec<(u32, u32)>);

impl Held {
    /// A task on a server that holds no GPU of it (a parameter server).
    pub const NO_GPU: u32 = u32::MAX;

    /// A job holding `gpus`, (server, GPU in the server) in any order.
    pub fn new(mut gpus: Vec<(u32, u32)>) -> Self {
        crate::order::sort_by_key(&mut gpus, |&g| g);
        gpus.dedup();
        Held(gpus)
    }

    /// Servers it spans.
    pub fn servers(&self) -> u32 {
        let mut n = 0;
        let mut last = None;
        for &(s, _) in &self.0 {
            if last != Some(s) {
                n += 1;
                last = Some(s);
            }
        }
        n
    }

    /// Whether failure `f` hits it.
    pub fn hit_by(&self, f: &Failure) -> bool {
        match f.gpu {
            Some(g) => self.0.binary_search(&(f.server, g)).is_ok(),
            None => {
                let i = self.0.partition_point(|x| x.0 < f.server);
                self.0.get(i).is_some_and(|x| x.0 == f.server)
            }
        }
    }
}

/// A server failure (or a spot instance taken back, `spot`) stopped job `job` at `time` on
/// its `gpus` GPUs, taking back `lost` steps and `lost_s` seconds of computation.
pub fn report_stop(
    events: &mut Vec<SimEvent>,
    (job, time, gpus): (JobId, f64, u32),
    (lost, lost_s): (f64, f64),
    spot: bool,
) {
    events.push(SimEvent::Interrupted {
        job,
        time,
        gpus,
        lost_steps: lost,
        lost_s,
        spot,
    });
}

/// A server failure stopped job `job` at `time` on its `gpus` GPUs, taking back `lost`
/// steps and `lost_s` seconds of computation, and a spare lets it start again at once.
pub fn report_interruption(
    events: &mut Vec<SimEvent>,
    (job, time, gpus): (JobId, f64, u32),
    (lost, lost_s): (f64, f64),
) {
    report_stop(events, (job, time, gpus), (lost, lost_s), false);
    events.push(SimEvent::Restarted { job, time });
}
