//! Failures and checkpoints in the pooled simulator (Aryl), from the shared model of
//! [`crate::sim::faults`]: a tick's server failures are read once, and every running job
//! trains up to the first failure of a server it holds GPUs on (a training server or a
//! loaned inference one). There it loses the work since its last written checkpoint, a
//! spare takes the server's place at once, and the job starts again on the same GPUs
//! paying its restart delay; its policy sees it at the next tick as it sees any job.
//! Checkpoints follow the experiment's plan (an interval of computation, or Young/Daly's
//! for the job's servers, with blocking writes) in place of the mechanism's own half-hourly
//! ones, and a job stopped by a reclaim goes back to its last written checkpoint too. A
//! failed inference server that is not on loan stops no job (the inference load is served
//! as before).
//!
//! With a repair time a failed server is away until it is back: a job on it stops there,
//! loses its work since its last written checkpoint and goes back to the queue (reported
//! as interrupted, not restarted), where its policy starts it again when it decides. From
//! the next tick's start until the server is back it is not usable ([`super::Server::down`]:
//! no free GPUs for the policy, no placement); an inference server away serves none of
//! the load and is not loaned (a loaned one is returned), so fewer inference servers are
//! idle. Spot capacity traces (`--spot TYPE=FILE`) take a type's highest servers away
//! while the trace holds fewer instances than the type has: a job on an instance taken back
//! inside a tick stops at the trace's time after the experiment's warning
//! ([`FaultState::preempt`]: a warning as long as a write saves all but the write's work),
//! reported as a spot interruption, and goes back to the queue; one taken back at a tick's
//! start stops there. A run with spot traces and no failure settings has no failures and
//! the default checkpoints.

use super::{Pool, PooledSimulator};
use crate::model::failure::checkpoint::Interval;
use crate::model::failure::schedule::Failure;
use crate::model::job::JobId;
use crate::sim::faults::{first_hit, FaultState, Held, SpotTrace, SPOT_CAUSE};
use crate::sim::{SimConfig, SimError, SimEvent};

/// Failures of a pooled run: the shared state and the failure model's index of every
/// server of the simulator.
pub(super) struct PoolFaults {
    state: FaultState,
    index: Vec<u32>,
    /// The spot types and their capacity traces.
    spot: Vec<SpotTrace>,
    /// Seconds of warning before a spot instance is taken back.
    warning_s: f64,
}

impl PooledSimulator {
    /// The simulator under the failures, checkpoints and stop time of `sim`.
    pub fn with_faults(mut self, sim: &SimConfig) -> Result<Self, SimError> {
        self.until = sim.until;
        let spot_only = crate::sim::faults::spot_only(&sim.spot);
        let Some(faults) = sim.faults.as_ref().or(spot_only.as_ref()) else {
            return Ok(self);
        };
        if let Interval::Every(s) = faults.checkpoint.interval {
            self.config.checkpoint_s = s;
        }
        let state = FaultState::new(faults, &self.cluster, self.jobs.len(), sim.seed)
            .with_writes(self.specs.iter().map(|s| s.checkpoint_write_s).collect());
        // The simulator's servers are the training type's, then the inference pool's.
        let type_of = |pool: Pool| {
            self.cluster
                .types
                .iter()
                .position(|t| t.is_inference() == (pool == Pool::Inference))
                .unwrap_or(0)
        };
        let mut index = Vec::with_capacity(self.servers.len());
        let mut nth = [0u32; 2];
        for s in &self.servers {
            let k = usize::from(s.pool == Pool::Inference);
            index.push(state.server_of(type_of(s.pool), nth[k] * s.gpus.max(1)));
            nth[k] += 1;
        }
        self.faults = Some(PoolFaults {
            state,
            index,
            spot: sim.spot.clone(),
            warning_s: sim.spot_warning_s,
        });
        Ok(self)
    }

    /// Marks the servers away at `start` (for repair, or spot instances taken back) and
    /// stops the jobs still on them (a failure or a spot instance taken back at the tick's
    /// start); returns the inference servers not away.
    pub(super) fn servers_away(&mut self, start: f64, events: &mut Vec<SimEvent>) -> usize {
        let mut hit: Vec<(JobId, bool)> = Vec::new();
        if let Some(f) = self
            .faults
            .as_ref()
            .filter(|f| f.state.repair_s() > 0.0 || !f.spot.is_empty())
        {
            for (server, &g) in self.servers.iter_mut().zip(&f.index) {
                let (down, spot) = f.state.away(g, &f.spot, start);
                server.down = down;
                let r = f.state.away_range(g, &f.spot, start);
                server.gpus_away = if down { 0 } else { r.end - r.start };
                if down {
                    server.loaned = false;
                    hit.extend(server.used.iter().map(|u| (u.0, spot)));
                }
            }
        }
        crate::order::sort_by_key(&mut hit, |h| h.0);
        hit.dedup_by_key(|h| h.0);
        for (j, spot) in hit {
            self.stop_on_failure(j, (start, spot), events);
            self.requeue(j);
        }
        self.servers
            .iter()
            .filter(|s| s.pool == Pool::Inference && !s.down)
            .count()
    }

    /// Job `j` stops at `time` on a server gone away: a spot instance taken back after the
    /// experiment's warning (`spot`), else a failure taking back its work since its last
    /// written checkpoint; reported, and the seconds it wrote in the warning returned.
    fn stop_on_failure(
        &mut self,
        j: JobId,
        (time, spot): (f64, bool),
        events: &mut Vec<SimEvent>,
    ) -> f64 {
        let gpus = self.jobs[j].gpus();
        let Some(f) = self.faults.as_mut() else {
            return 0.0;
        };
        let (lost, lost_s, written) = f.state.stop(j, spot, f.warning_s);
        let job = &mut self.jobs[j];
        job.progress = (job.progress - lost).max(0.0);
        job.saved = job.progress;
        job.since_checkpoint = 0.0;
        job.overhead = 0.0;
        crate::sim::faults::report_stop(events, (j, time, gpus), (lost, lost_s), spot);
        written
    }

    /// The server failures up to `t` not read yet (reported), or None without failures.
    pub(super) fn failures_until(
        &mut self,
        t: f64,
        events: &mut Vec<SimEvent>,
    ) -> Option<Vec<Failure>> {
        let f = self.faults.as_mut()?;
        // Spot instances taken back inside the tick are failures of their servers.
        Some(f.state.failures_in(&f.spot, (self.now, t), events))
    }

    /// Job `j`, stopped by a reclaim, goes back to its last written checkpoint (runs with
    /// failures; without, the mechanism's own checkpoint).
    pub(super) fn roll_back(&mut self, j: JobId) {
        let job = &mut self.jobs[j];
        match self.faults.as_mut() {
            Some(f) => {
                let (lost, _) = f.state.fail(j);
                job.progress = (job.progress - lost).max(0.0);
            }
            None => job.progress = job.saved,
        }
        job.saved = job.progress;
        job.since_checkpoint = 0.0;
    }

    /// Where job `j` runs, for the failures that hit it: on each of its servers, the GPUs
    /// after those of the jobs before it in the server's list of jobs.
    fn held(&self, j: JobId) -> Held {
        let Some(f) = self.faults.as_ref() else {
            return Held::default();
        };
        let mut gpus = Vec::new();
        for p in &self.jobs[j].placement {
            let (Some(server), Some(&g)) = (self.servers.get(p.0), f.index.get(p.0)) else {
                continue;
            };
            let mut at = 0;
            for &(k, n) in &server.used {
                if k == j {
                    gpus.extend((at..at + n).map(|x| (g, x)));
                    break;
                }
                at += n;
            }
        }
        Held::new(gpus)
    }

    /// Running job `j` trains for the tick from `start` (`tick` seconds) under the tick's
    /// `failures` (in time order); the GPUs it held on the training pool and on loan.
    pub(super) fn train_with_faults(
        &mut self,
        j: JobId,
        (start, tick): (f64, f64),
        failures: &[Failure],
        events: &mut Vec<SimEvent>,
    ) -> (u32, u32) {
        let (training, on_loan) = self.gpus_by_pool(j);
        let speed = self.speed_of(j);
        let restart = self.restart_of(j);
        let held = self.held(j);
        let Some(f) = self.faults.as_mut() else {
            return (0, 0);
        };
        let job = &mut self.jobs[j];
        let spanned = held.servers();
        let gpus = training + on_loan;
        let end = start + tick;
        let before = job.progress;
        let away = f.state.repair_s() > 0.0;
        let (mut t, mut delay, mut writing) = (start, 0.0, 0.0);
        let mut stopped = None;
        let mut next = failures.partition_point(|x| x.time < start);
        loop {
            let hit = first_hit(failures, &held, next).filter(|(_, x)| x.time < end);
            let until = hit.map_or(end, |(_, x)| x.time);
            let d = job.overhead.min(until - t).max(0.0);
            job.overhead -= d;
            t += d;
            delay += d;
            let left = job.total - job.progress;
            let ran = f.state.run(j, spanned, until - t, speed, left);
            writing += ran.writing_s;
            t += ran.used_s;
            if speed > 0.0 && ran.work >= left {
                job.progress = job.total;
                job.finish = Some(t);
                break;
            }
            job.progress += ran.work;
            let Some((i, x)) = hit else {
                break;
            };
            // A server away (for repair, or a spot instance taken back) stops the job.
            if away || x.cause == SPOT_CAUSE {
                stopped = Some((x.time, x.cause == SPOT_CAUSE));
                break;
            }
            let (lost, lost_s) = f.state.fail(j);
            job.progress = (job.progress - lost).max(0.0);
            job.overhead = restart;
            crate::sim::faults::report_interruption(events, (j, x.time, gpus), (lost, lost_s));
            t = x.time;
            next = i + 1;
        }
        let ledger = f.state.ledger(j);
        job.saved = job.progress - ledger.work_since;
        job.since_checkpoint = ledger.computed_s;
        let used = match (job.finish, stopped) {
            (Some(_), _) => t - start,
            (None, Some((time, _))) => time - start,
            (None, None) => tick,
        };
        if let Some(stop) = stopped {
            writing += self.stop_on_failure(j, stop, events);
        }
        let progress = self.jobs[j].progress - before;
        self.report_ran(j, (start, used), delay, progress, events);
        if writing > 0.0 {
            events.push(SimEvent::Checkpointed {
                job: j,
                time: start + used,
                gpus,
                write_s: writing,
            });
        }
        if stopped.is_some() {
            self.requeue(j);
        }
        (training, on_loan)
    }
}
