//! Failures and checkpoints in the elastic simulator, from the shared model of
//! [`crate::sim::faults`]: the tick's server failures are read once, and every running job
//! trains up to the first failure of one of its real servers. There it loses the work since
//! its last written checkpoint (its epoch goes back with it), a spare takes the server's
//! place at once, and the job restarts on the same GPUs paying its restart delay; the
//! policy sees it at the tick's end as it sees any job. Checkpoints are counted in seconds
//! of computation, and their writes block the job. Time is kept in exact seconds under
//! failures (the whole-second rounding of epoch ends, kept for comparisons with Pollux's
//! simulator, is not applied).
//!
//! Without failures (a rate of 0) and with checkpoints that cost nothing, a run is the run
//! without them.
//!
//! A server away for repair (a repair time) is modelled in round-based experiments; here a
//! repair time is refused, as are spot capacity traces.

use super::{ElasticConfig, ElasticSimulator, Ran, MAX_CHUNKS_PER_TICK};
use crate::model::cluster::ClusterSpec;
use crate::model::failure::schedule::Failure;
use crate::model::job::JobId;
use crate::sim::faults::{first_hit, FaultState};
use crate::sim::{SimError, SimEvent};

/// The failure state of a run with `config` on `cluster` (real servers per type
/// `servers`) for `jobs` jobs, with the failure model's index of every real server; None
/// without failures.
pub(super) fn state(
    config: &ElasticConfig,
    cluster: &ClusterSpec,
    servers: &[u32],
    jobs: usize,
) -> Result<Option<(FaultState, Vec<u32>)>, SimError> {
    let Some(faults) = &config.faults else {
        return Ok(None);
    };
    // No failures and checkpoints that cost nothing change nothing: the run keeps its
    // whole-second epoch ends.
    if faults.failures.per_server_day <= 0.0 && faults.checkpoint.write_s <= 0.0 {
        return Ok(None);
    }
    if faults.failures.repair_s > 0.0 {
        return Err(SimError::Config {
            field: "repair_s".into(),
            reason: "the elastic mechanism (Pollux, Sia) replaces a failed server with a spare at once: set the repair time to 0 (servers away for repair are modelled in round-based experiments)".into(),
        });
    }
    let state = FaultState::new(faults, cluster, jobs, config.seed);
    let mut index = Vec::with_capacity(servers.iter().map(|&n| n as usize).sum());
    for (ty, (&n, t)) in servers.iter().zip(&cluster.types).enumerate() {
        let per = t.per_server.max(1);
        index.extend((0..n).map(|s| state.server_of(ty, s * per)));
    }
    Ok(Some((state, index)))
}

impl ElasticSimulator {
    /// The server failures up to `t` not read yet (reported), or None without failures.
    pub(super) fn failures_until(
        &mut self,
        t: f64,
        events: &mut Vec<SimEvent>,
    ) -> Option<Vec<Failure>> {
        let (faults, _) = self.faults.as_mut()?;
        Some(faults.failures_until(t, events))
    }

    /// The failure model's indices of the real servers job `id` runs on, sorted.
    fn fault_servers(&self, id: JobId) -> Vec<u32> {
        let Some((_, index)) = &self.faults else {
            return Vec::new();
        };
        let mut servers: Vec<u32> = self.states[id]
            .allocation
            .iter()
            .filter_map(|&v| self.vnodes.get(v as usize))
            .filter_map(|&(real, _)| index.get(real as usize).copied())
            .collect();
        crate::order::sort_by_key(&mut servers, |&s| s);
        servers.dedup();
        servers
    }

    /// Job `id` trains for the tick under the tick's `failures` (in time order).
    pub(super) fn step_job_with_faults(
        &mut self,
        id: JobId,
        failures: &[Failure],
        events: &mut Vec<SimEvent>,
    ) {
        if self.states[id].placement.is_empty() || self.states[id].is_over() {
            return;
        }
        let servers = self.fault_servers(id);
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
        };
        let mut t = start;
        let mut next = failures.partition_point(|f| f.time < start);
        let mut chunks = 0u32;
        let mut failed = None;
        loop {
            let hit = first_hit(failures, |s| servers.binary_search(&s).is_ok(), next)
                .filter(|(_, f)| f.time < end);
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
            self.interrupt(id, f.time, restart, events);
            t = f.time;
            next = i + 1;
        }
        self.report_tick(id, &ran, failed, events);
    }

    /// A failure stops job `id` at `time`: the work since its last checkpoint is taken
    /// back (its epoch with it) and it restarts on a spare, paying `restart` seconds.
    fn interrupt(&mut self, id: JobId, time: f64, restart: f64, events: &mut Vec<SimEvent>) {
        let Some((faults, _)) = self.faults.as_mut() else {
            return;
        };
        let (lost, lost_s) = faults.fail(id);
        let st = &mut self.states[id];
        let app = &self.apps.apps[st.app];
        st.progress = (st.progress - lost).max(0.0);
        while st.epoch > 0 && st.progress < app.progress_at_epoch(st.epoch) {
            st.epoch -= 1;
        }
        st.rescale_time = restart;
        st.num_restarts = Some(st.num_restarts.map_or(0, |n| n + 1));
        crate::sim::faults::report_interruption(events, (id, time, st.replicas()), (lost, lost_s));
        self.update_local_bsz(id);
    }
}
