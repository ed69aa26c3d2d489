//! Failures, checkpoints and spot capacity in the elastic simulator, from the shared model
//! of [`crate::sim::faults`]: the tick's server failures are read once, and every running
//! job trains up to the first failure of one of its real servers. There it loses the work
//! since its last written checkpoint (its epoch goes back with it). Without a repair time a
//! spare takes the server's place at once, and the job restarts on the same GPUs paying its
//! restart delay; the policy sees it at the tick's end as it sees any job. Checkpoints are
//! counted in seconds of computation, and their writes block the job. Time is kept in exact
//! seconds under failures (the whole-second rounding of epoch ends, kept for comparisons
//! with Pollux's simulator, is not applied).
//!
//! With a repair time a failed server is away until it is back: a job on it stops there,
//! loses its work since its last written checkpoint and waits (reported as interrupted,
//! not restarted) until its policy places it again. Spot capacity traces (`--spot
//! TYPE=FILE`) take a type's highest servers away while the trace holds fewer instances
//! than the type has: a job on an instance taken back stops at the trace's time after the
//! experiment's warning ([`FaultState::preempt`]), reported as a spot interruption. A
//! policy decides on the servers not away at its decision ([`super::away`]), so it places
//! no job on a server that is away.
//!
//! In a GPU domain a failure of a GPU cause hits one GPU of its server: each server's GPUs
//! are laid out by its virtual servers in order, and each virtual server's by its jobs in id
//! order, so a failed GPU (drawn uniformly) hits each job as often as it holds GPUs there.
//! With a spare at once only the job on that GPU stops. With a repair time the failed
//! GPU's virtual server goes away until it is back, the jobs on it stopping: policies see
//! servers of one size, so the virtual server is the smallest part of a server they can do
//! without.
//!
//! Without failures (a rate of 0), with checkpoints that cost nothing and no spot trace, a
//! run is the run without them.

use super::{ElasticConfig, ElasticSimulator, Ran, MAX_CHUNKS_PER_TICK};
use crate::model::cluster::ClusterSpec;
use crate::model::failure::schedule::Failure;
use crate::model::job::JobId;
use crate::sim::faults::{first_hit, FaultState, SpotTrace, SPOT_CAUSE};
use crate::sim::SimEvent;

/// Failures of an elastic run: the shared state, the failure model's index of every real
/// server, the spot traces and which real servers are away.
pub(super) struct ElasticFaults {
    /// Failures and checkpoint ledgers.
    pub(super) state: FaultState,
    /// The failure model's index of every real server.
    index: Vec<u32>,
    /// Per virtual server: the failure model's index of its real server and the range of
    /// that server's GPUs it is.
    parts: Vec<(u32, std::ops::Range<u32>)>,
    /// GPUs per virtual server.
    vsize: u32,
    /// The spot types and their capacity traces.
    spot: Vec<SpotTrace>,
    /// Seconds of warning before a spot instance is taken back.
    warning_s: f64,
    /// Per virtual server: whether it was away (its server or, in a GPU domain, a failed
    /// GPU of it away for repair, or its server taken back) at the last look.
    pub(super) away: Vec<bool>,
}

/// The failure state of a run with `config` on `cluster` (real servers per type
/// `servers`, virtual servers `vnodes` of `vsize` GPUs: real server and type) for `jobs`
/// jobs; None without failures, costly checkpoints or spot traces.
pub(super) fn state(
    config: &ElasticConfig,
    cluster: &ClusterSpec,
    (servers, vnodes, vsize): (&[u32], &[(u32, usize)], u32),
    specs: &[crate::model::job::JobSpec],
) -> Option<ElasticFaults> {
    let spot_only = crate::sim::faults::spot_only(&config.spot);
    let faults = config.faults.as_ref().or(spot_only.as_ref())?;
    // No failures, checkpoints that cost nothing and no spot trace change nothing: the
    // run keeps its whole-second epoch ends.
    let free_writes = (specs.iter()).all(|s| s.checkpoint_write_s.is_none_or(|w| w <= 0.0));
    if faults.failures.per_server_day <= 0.0
        && faults.checkpoint.write_s <= 0.0
        && free_writes
        && config.spot.is_empty()
    {
        return None;
    }
    let state = FaultState::new(faults, cluster, specs.len(), config.seed)
        .with_writes(specs.iter().map(|s| s.checkpoint_write_s).collect());
    let mut index = Vec::with_capacity(servers.iter().map(|&n| n as usize).sum());
    for (ty, (&n, t)) in servers.iter().zip(&cluster.types).enumerate() {
        let per = t.per_server.max(1);
        index.extend((0..n).map(|s| state.server_of(ty, s * per)));
    }
    let mut parts = Vec::with_capacity(vnodes.len());
    let mut last = None;
    let mut k = 0;
    for &(real, _) in vnodes {
        k = if last == Some(real) { k + 1 } else { 0 };
        last = Some(real);
        let g = index.get(real as usize).copied().unwrap_or(u32::MAX);
        parts.push((g, k * vsize..(k + 1) * vsize));
    }
    Some(ElasticFaults {
        state,
        index,
        away: vec![false; parts.len()],
        parts,
        vsize,
        spot: config.spot.clone(),
        warning_s: config.spot_warning_s,
    })
}

impl ElasticFaults {
    /// With a repair time, a GPU failure takes its virtual server: `failures` name the
    /// virtual server within the server instead of the GPU (as [`ElasticSimulator::held`]
    /// lays jobs out).
    fn coarse(&self, failures: &mut [Failure]) {
        if self.state.repair_s() > 0.0 {
            for f in failures.iter_mut() {
                f.gpu = f.gpu.map(|g| g / self.vsize.max(1));
            }
        }
    }

    /// Whether a server away at `t` may come back (from repair, or by its spot trace).
    pub(super) fn may_come_back(&self, t: f64) -> bool {
        self.away.contains(&true) && self.state.next_back_or_rise(&self.spot, t).is_some()
    }

    /// Looks at which real servers are away at `t`; whether any is.
    fn look(&mut self, t: f64) -> bool {
        if self.state.repair_s() <= 0.0 && self.spot.is_empty() {
            return false;
        }
        let mut any = false;
        for (a, (g, part)) in self.away.iter_mut().zip(&self.parts) {
            let r = self.state.away_range(*g, &self.spot, t);
            *a = r.start < part.end && part.start < r.end;
            any |= *a;
        }
        any
    }
}

impl ElasticSimulator {
    /// The server failures up to `t` not read yet (reported), spot instances taken back
    /// before `t` among them, or None without failures.
    pub(super) fn failures_until(
        &mut self,
        t: f64,
        events: &mut Vec<SimEvent>,
    ) -> Option<Vec<Failure>> {
        let f = self.faults.as_mut()?;
        let mut failures = f.state.failures_in(&f.spot, (self.now, t), events);
        f.coarse(&mut failures);
        Some(failures)
    }

    /// Which virtual servers are away at `t` (for repair, or spot instances taken back);
    /// None when none is (or none can be).
    pub(super) fn servers_away(&mut self, t: f64) -> Option<&[bool]> {
        let f = self.faults.as_mut()?;
        f.look(t).then_some(f.away.as_slice())
    }

    /// How many of real server `server`'s virtual servers were away at the last decision,
    /// of how many.
    pub fn away_parts(&self, server: u32) -> (usize, usize) {
        let of = self.vnodes.iter().filter(|v| v.0 == server).count();
        let Some(f) = &self.faults else {
            return (0, of);
        };
        let away = (self.vnodes.iter().zip(&f.away))
            .filter(|(v, &a)| v.0 == server && a)
            .count();
        (away, of)
    }

    /// Stops the jobs still on a server away at the tick's `start` (a failure at the last
    /// tick's end, or a spot instance taken back at its start).
    pub(super) fn stop_jobs_away(&mut self, start: f64, events: &mut Vec<SimEvent>) {
        let Some(away) = self.servers_away(start).map(<[bool]>::to_vec) else {
            return;
        };
        for id in 0..self.states.len() {
            if self.states[id].is_over() {
                continue;
            }
            let on = (self.states[id].allocation.iter())
                .find(|&&v| away.get(v as usize).copied().unwrap_or(false))
                .and_then(|&v| self.vnodes.get(v as usize))
                .map(|v| v.0);
            let Some(real) = on else {
                continue;
            };
            let spot = self.faults.as_ref().is_some_and(|f| {
                f.index
                    .get(real as usize)
                    .is_some_and(|&g| f.state.away(g, &f.spot, start).1)
            });
            self.stop(id, (start, spot), events);
        }
    }

    /// Where each job runs in the tick, by id, for the failures that hit it: each server's
    /// GPUs laid out by its virtual servers in order, each virtual server's by its jobs in
    /// id order. With a repair time a GPU failure takes its whole virtual server, so a job
    /// holds (server, virtual server within it) and failures name the virtual server
    /// ([`ElasticFaults::coarse`]).
    pub(super) fn held(&self) -> Vec<crate::sim::faults::Held> {
        let Some(f) = &self.faults else {
            return Vec::new();
        };
        let coarse = f.state.repair_s() > 0.0;
        let mut used = vec![0u32; f.parts.len()];
        self.states
            .iter()
            .map(|st| {
                let mut gpus = Vec::new();
                if !st.is_over() {
                    for &v in &st.allocation {
                        let (Some((g, part)), Some(at)) =
                            (f.parts.get(v as usize), used.get_mut(v as usize))
                        else {
                            continue;
                        };
                        let gpu = part.start + *at;
                        *at += 1;
                        gpus.push((*g, if coarse { gpu / f.vsize } else { gpu }));
                    }
                }
                crate::sim::faults::Held::new(gpus)
            })
            .collect()
    }

    /// Job `id`, holding `held`, trains for the tick under the tick's `failures` (in time
    /// order).
    pub(super) fn step_job_with_faults(
        &mut self,
        (id, held): (JobId, &crate::sim::faults::Held),
        failures: &[Failure],
        events: &mut Vec<SimEvent>,
    ) {
        if self.states[id].placement.is_empty() || self.states[id].is_over() {
            return;
        }
        let away = self
            .faults
            .as_ref()
            .is_some_and(|f| f.state.repair_s() > 0.0);
        let start = self.now;
        let end = start + self.config.interval;
        let replicas = self.states[id].replicas();
        let restart = self.specs[id]
            .restart_s
            .unwrap_or(self.config.restart.delay_s);
        let mut ran = Ran {
            start,
            gpu_type: self.states[id].gpu_type.unwrap_or(0),
            replicas,
            progress_before: self.states[id].progress,
            overhead_s: 0.0,
            writing_s: 0.0,
            stopped_at: None,
        };
        let mut t = start;
        let mut next = failures.partition_point(|f| f.time < start);
        let mut chunks = 0u32;
        let mut failed = None;
        loop {
            let hit = first_hit(failures, held, next).filter(|(_, f)| f.time < end);
            let until = hit.map_or(end, |(_, f)| f.time);
            let st = &mut self.states[id];
            let delay = st.rescale_time.min(until - t).max(0.0);
            t += delay;
            st.rescale_time -= delay;
            st.attained_service += delay * f64::from(replicas);
            ran.overhead_s += delay;
            let mut seconds = until - t;
            while seconds > 0.0 && self.states[id].completion.is_none() {
                chunks += 1;
                match self.train_chunk(id, &mut t, &mut seconds) {
                    Some(w) if chunks <= MAX_CHUNKS_PER_TICK => ran.writing_s += w,
                    _ => {
                        failed = Some(t);
                        break;
                    }
                }
            }
            if failed.is_some() || self.states[id].completion.is_some() {
                break;
            }
            let Some((i, f)) = hit else {
                break;
            };
            // A server away (for repair, or a spot instance taken back) stops the job.
            if away || f.cause == SPOT_CAUSE {
                ran.stopped_at = Some(f.time);
                ran.writing_s += self.stop(id, (f.time, f.cause == SPOT_CAUSE), events);
                break;
            }
            self.interrupt(id, f.time, restart, events);
            t = f.time;
            next = i + 1;
        }
        self.report_tick(id, &ran, failed, events);
    }

    /// The work job `id` loses at a stop (a spot instance taken back after the
    /// experiment's warning, `spot`, or a failure): the steps, the seconds that computed
    /// them and the seconds written in the warning.
    fn lose(&mut self, id: JobId, spot: bool) -> (f64, f64, f64) {
        let Some(f) = self.faults.as_mut() else {
            return (0.0, 0.0, 0.0);
        };
        let (lost, lost_s, written) = f.state.stop(id, spot, f.warning_s);
        let st = &mut self.states[id];
        let app = &self.apps.apps[st.app];
        st.progress = (st.progress - lost).max(0.0);
        while st.epoch > 0 && st.progress < app.progress_at_epoch(st.epoch) {
            st.epoch -= 1;
        }
        (lost, lost_s, written)
    }

    /// A server gone away stops job `id` at `time` (a spot instance taken back, `spot`, or
    /// a failure with a repair time): it loses its work since its last written checkpoint
    /// and waits without GPUs until its policy places it again. The seconds it wrote in
    /// the warning.
    fn stop(&mut self, id: JobId, (time, spot): (f64, bool), events: &mut Vec<SimEvent>) -> f64 {
        let gpus = self.states[id].replicas();
        let (lost, lost_s, written) = self.lose(id, spot);
        let st = &mut self.states[id];
        st.allocation.clear();
        st.placement.clear();
        st.gpu_type = None;
        st.atomic_bsz = 0;
        st.rescale_time = 0.0;
        crate::sim::faults::report_stop(events, (id, time, gpus), (lost, lost_s), spot);
        written
    }

    /// A failure stops job `id` at `time`: the work since its last checkpoint is taken
    /// back (its epoch with it) and it restarts on a spare, paying `restart` seconds.
    fn interrupt(&mut self, id: JobId, time: f64, restart: f64, events: &mut Vec<SimEvent>) {
        if self.faults.is_none() {
            return;
        }
        let (lost, lost_s, _) = self.lose(id, false);
        let st = &mut self.states[id];
        st.rescale_time = restart;
        st.num_restarts = Some(st.num_restarts.map_or(0, |n| n + 1));
        crate::sim::faults::report_interruption(events, (id, time, st.replicas()), (lost, lost_s));
        self.update_local_bsz(id);
    }
}
