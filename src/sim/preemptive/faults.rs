//! Failures and checkpoints in the preemptive simulator, from the shared model of
//! [`crate::sim::faults`]. A job holds concrete GPUs of its type (the lowest free indices
//! when it starts), so a server's failure hits exactly the jobs holding GPUs on it. The
//! next failure is an event time, like an arrival or a completion. A job trains on its
//! checkpoint ledger ([`FaultState::run`]) between events at its constant rate, its
//! periodic checkpoint writes blocking it; its completion time counts the writes still to
//! come. At a failure, each job on the failed server loses the work since its last written
//! checkpoint, and a spare takes the server's place at once: a training or reloading job
//! restarts on the same GPUs, paying its reload as a resumption does (drawn with the
//! model's noise, from a generator of its own so that suspensions cost what they cost
//! without failures); a job being suspended (finishing its epoch or writing the
//! suspension's checkpoint) stops there and waits, its GPUs going to the job it was
//! suspended for. A suspension's checkpoint, once written, makes the work before it safe.
//!
//! Without failures (a rate of 0) and with checkpoints that cost nothing, a run is the run
//! without them. A stop time ends the run there, the jobs holding GPUs reporting their time
//! so far.
//!
//! With a repair time, or spot capacity traces, servers go away for a while
//! (`away.rs`): the jobs on them stop and wait, and their GPUs leave the pool until they
//! are back.

use super::{Phase, PreemptiveSimulator};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobId;
use crate::rng::Rng;
use crate::sim::faults::{FaultState, SpotTrace};
use crate::sim::{SimConfig, SimError, SimEvent};

/// The failures and checkpoints of a run.
pub(super) struct Failures {
    pub(super) state: FaultState,
    /// Draws the reloads of restarts after failures.
    pub(super) rng: Rng,
    /// The spot types and their capacity traces.
    pub(super) spot: Vec<SpotTrace>,
    /// Seconds of warning before a spot instance is taken back.
    pub(super) warning_s: f64,
    /// Per server of the failure model: its GPUs away (indices in it; all when it is away,
    /// one failed GPU in a GPU domain), out of the pool.
    pub(super) away: Vec<std::ops::Range<u32>>,
}

impl Failures {
    /// Whether servers may go away: a repair time, or spot traces.
    pub(super) fn servers_go_away(&self) -> bool {
        self.state.repair_s() > 0.0 || !self.spot.is_empty()
    }
}

impl PreemptiveSimulator {
    /// The simulator under the failures, checkpoints and stop time of `sim` on `cluster`.
    pub fn with_faults(mut self, sim: &SimConfig, cluster: &ClusterSpec) -> Result<Self, SimError> {
        self.until = sim.until;
        let spot_only = crate::sim::faults::spot_only(&sim.spot);
        let Some(faults) = sim.faults.as_ref().or(spot_only.as_ref()) else {
            return Ok(self);
        };
        let failing = faults.failures.per_server_day > 0.0;
        // No failures, checkpoints that cost nothing and no spot trace change nothing.
        let free_writes =
            (self.specs.iter()).all(|s| s.checkpoint_write_s.is_none_or(|w| w <= 0.0));
        if !failing && faults.checkpoint.write_s <= 0.0 && free_writes && sim.spot.is_empty() {
            return Ok(self);
        }
        let servers: u32 = cluster
            .types
            .iter()
            .map(|t| t.count.div_ceil(t.per_server.max(1)))
            .sum();
        // Every change of a spot trace is an event.
        let steps: usize = sim.spot.iter().map(|(_, t)| t.steps.len()).sum();
        self.max_steps += 2 * steps as u64;
        self.faults = Some(Failures {
            state: FaultState::new(faults, cluster, self.jobs.len(), sim.seed)
                .with_writes(self.specs.iter().map(|s| s.checkpoint_write_s).collect()),
            rng: Rng::for_purpose(sim.seed, "restarts after failures"),
            spot: sim.spot.clone(),
            warning_s: sim.spot_warning_s,
            away: vec![0..0; servers as usize],
        });
        Ok(self)
    }

    /// Seconds running job `id` needs to finish from its last event, its checkpoint writes
    /// included.
    pub(super) fn finish_s(&self, id: JobId) -> f64 {
        let j = &self.jobs[id];
        match &self.faults {
            None => j.remaining_steps() / j.speed,
            Some(f) => {
                let servers = f.state.servers_spanned(j.gpu_type, &j.ids);
                f.state
                    .time_to_finish(id, servers, j.speed, j.remaining_steps())
            }
        }
    }

    /// When the next server failure happens (infinite without one).
    pub(super) fn next_failure(&self) -> f64 {
        self.faults
            .as_ref()
            .and_then(|f| f.state.next_failure())
            .unwrap_or(f64::INFINITY)
    }

    /// Bring the jobs holding GPUs up to `t` on their checkpoint ledgers, their writes
    /// reported.
    pub(super) fn advance_with_faults(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        for &id in &self.live {
            let j = &mut self.jobs[id];
            if !j.holds_gpus() {
                continue;
            }
            let dt = (t - j.since).max(0.0);
            let left = j.remaining_steps();
            let stretch = match j.phase {
                Phase::Running => {
                    let servers = f.state.servers_spanned(j.gpu_type, &j.ids);
                    Some(f.state.run(id, servers, dt, j.speed, left))
                }
                // Its suspension's checkpoint comes at the epoch's end.
                Phase::Draining => Some(f.state.run_to_suspend(id, dt, j.speed, left)),
                _ => None,
            };
            if let Some(s) = stretch {
                j.progress += s.work;
                j.seg_steps += s.work;
                if s.writing_s > 0.0 {
                    events.push(SimEvent::Checkpointed {
                        job: id,
                        time: t,
                        gpus: j.gpus,
                        write_s: s.writing_s,
                    });
                }
            }
            j.attained += dt * f64::from(j.gpus);
            j.since = t;
        }
    }

    /// A reload around `modelled` seconds for a restart after a failure, from the failures'
    /// own generator.
    pub(super) fn restart_draw(&mut self, modelled: f64) -> f64 {
        match self.faults.as_mut() {
            Some(f) => self.model.draw(modelled, &mut f.rng),
            None => modelled,
        }
    }

    /// A written checkpoint of job `id` outside its plan (its suspension's).
    pub(super) fn checkpointed(&mut self, id: JobId) {
        if let Some(f) = self.faults.as_mut() {
            f.state.checkpointed(id);
        }
    }

    /// Seconds of a periodic checkpoint job `id` is writing still to go.
    pub(super) fn writing_left(&self, id: JobId) -> f64 {
        self.faults
            .as_ref()
            .map_or(0.0, |f| f.state.writing_left(id))
    }

    /// The server failures up to `t`, reported: each interrupts the jobs holding GPUs on
    /// the failed server.
    pub(super) fn fail_jobs(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        let failures = f.state.failures_until(t, events);
        // A failure adds an event, the end of a restart and a server back.
        self.max_steps += 3 * failures.len() as u64;
        let away = f.state.repair_s() > 0.0;
        let spot = f.servers_go_away();
        for failure in failures {
            let Some((ty, mut gpus)) = self
                .faults
                .as_ref()
                .and_then(|f| f.state.gpus_of(failure.server))
            else {
                continue;
            };
            // In a GPU domain, a GPU failure hits the job holding that GPU alone.
            if let Some(g) = failure.gpu {
                gpus = gpus.start + g..gpus.start + g + 1;
            }
            for id in self.gpu_ids.holders(ty, gpus) {
                if !self.jobs[id].holds_gpus() {
                    continue;
                }
                // A server away for repair stops the job; else a spare takes its place.
                if away {
                    self.stop(id, (failure.time, false), events);
                } else {
                    self.interrupt(id, failure.time, events);
                }
            }
        }
        if spot {
            self.update_away(t, events);
        }
    }

    /// A failure at `time` stops job `id`: the work since its last checkpoint is taken
    /// back; a job being suspended stops there, any other restarts on a spare.
    fn interrupt(&mut self, id: JobId, time: f64, events: &mut Vec<SimEvent>) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        let (lost, lost_s) = f.state.fail(id);
        let j = &mut self.jobs[id];
        j.progress = (j.progress - lost).max(0.0);
        j.seg_steps -= lost;
        events.push(SimEvent::Interrupted {
            job: id,
            time,
            gpus: j.gpus,
            lost_steps: lost,
            lost_s,
            spot: false,
        });
        // A reload or a write cut short costs only the time it took.
        if matches!(j.phase, Phase::Loading | Phase::Saving) {
            j.seg_overhead -= (j.phase_end - time).max(0.0);
        }
        if matches!(j.phase, Phase::Draining | Phase::Saving) {
            self.suspend_done(id, time, events);
            return;
        }
        let reload = self.model.draw(j.overhead.reload_s, &mut f.rng);
        j.seg_overhead += reload;
        j.since = time;
        j.phase_end = time + reload;
        j.phase = if reload > 0.0 {
            Phase::Loading
        } else {
            Phase::Running
        };
        events.push(SimEvent::Restarted { job: id, time });
    }

    /// The run stops at `t`: every job holding GPUs reports its time so far, unfinished.
    pub(super) fn close_segments(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        for &id in &self.live {
            if self.jobs[id].holds_gpus() {
                events.push(self.ran(id, t));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::PreemptivePolicy;
    use super::*;
    use crate::model::cluster::ClusterSpec;
    use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
    use crate::model::failure::{FailureModel, Faults};
    use crate::model::job::JobSpec;
    use crate::model::restart::RestartModel;
    use crate::workload::Profile;

    /// Jobs of `gpus` GPUs and `steps` steps (one a second), all arriving at 0.
    fn jobs(sizes: &[(u32, f64)]) -> Vec<JobSpec> {
        sizes
            .iter()
            .map(|&(gpus, steps)| JobSpec::new("job", 0.0, steps).with_scale(gpus))
            .collect()
    }

    /// Starts the waiting jobs in arrival order; suspends nothing.
    struct Fifo;

    impl PreemptivePolicy for Fifo {
        fn name(&self) -> &str {
            "fifo"
        }

        fn decide(
            &mut self,
            view: &super::super::PreemptView,
            _rng: &mut crate::rng::Rng,
        ) -> super::super::PreemptPlan {
            super::super::PreemptPlan {
                start: view.waiting.clone(),
                ..Default::default()
            }
        }
    }

    /// One step a second for every job of `jobs` on every type of `cluster`.
    fn profile(jobs: &[JobSpec], cluster: &ClusterSpec) -> Profile {
        let mut p = Profile::default();
        for j in jobs {
            for t in &cluster.types {
                p.set(&j.job_type, j.scale_factor, &t.name, 1.0);
            }
        }
        p
    }

    fn sim(
        cluster: &str,
        specs: Vec<JobSpec>,
        faults: Option<Faults>,
        until: Option<f64>,
    ) -> PreemptiveSimulator {
        let cluster = ClusterSpec::parse(cluster).expect("a cluster");
        let policy: Box<dyn PreemptivePolicy> = Box::new(Fifo);
        let config = SimConfig {
            faults,
            until,
            seed: 3,
            ..SimConfig::default()
        };
        let profile = profile(&specs, &cluster);
        PreemptiveSimulator::new(
            &cluster,
            specs,
            profile,
            RestartModel::delay(60.0),
            3,
            policy,
        )
        .and_then(|s| s.with_faults(&config, &cluster))
        .expect("a simulator")
    }

    fn faults(rate: f64, write_s: f64) -> Faults {
        Faults {
            failures: FailureModel::with_rate(rate),
            checkpoint: CheckpointPlan {
                interval: Interval::Every(1800.0),
                write_s,
            },
        }
    }

    fn events(sim: &mut PreemptiveSimulator) -> Vec<SimEvent> {
        let mut out = Vec::new();
        while let Some(r) = sim.step_round() {
            out.extend(r.events);
        }
        out
    }

    #[test]
    fn a_failure_hits_the_jobs_on_its_server_alone() {
        // Two 8-GPU jobs on two servers of 8: the first holds GPUs 0-7 (server 0), the
        // second 8-15 (server 1). Every interruption is of the job on the failed server.
        let mut s = sim(
            "h100:16/8",
            jobs(&[(8, 400_000.0), (8, 400_000.0)]),
            Some(faults(2.0, 0.0)),
            None,
        );
        let ev = events(&mut s);
        let mut failed = Vec::new();
        let mut hits = 0;
        for e in &ev {
            match e {
                SimEvent::ServerFailed { time, server, .. } => failed.push((*time, *server)),
                SimEvent::Interrupted { job, time, .. } => {
                    hits += 1;
                    assert!(
                        failed.contains(&(*time, *job as u32)),
                        "job {job} at {time}: {failed:?}"
                    );
                }
                _ => {}
            }
        }
        assert!(
            hits >= 10,
            "{hits} interruptions of {} failures",
            failed.len()
        );
        // Both ran to the end.
        let finished = ev
            .iter()
            .filter(|e| matches!(e, SimEvent::Finished { .. }))
            .count();
        assert_eq!(finished, 2);
    }

    #[test]
    fn writes_block_the_job_and_a_stop_time_ends_the_run() {
        // One job of 10,000 s with a checkpoint every 1,800 s of 30 s: 5 writes, no
        // failures; it ends 60 s (its start) + 10,000 s + 150 s after its arrival.
        let mut s = sim(
            "h100:8/8",
            jobs(&[(8, 10_000.0)]),
            Some(faults(0.0, 30.0)),
            None,
        );
        let ev = events(&mut s);
        let written: f64 = ev
            .iter()
            .map(|e| match e {
                SimEvent::Checkpointed { write_s, .. } => *write_s,
                _ => 0.0,
            })
            .sum();
        assert_eq!(written, 150.0);
        let end = ev.iter().find_map(|e| match e {
            SimEvent::Finished { time, .. } => Some(*time),
            _ => None,
        });
        assert!(end.is_some_and(|t| (t - 10_210.0).abs() < 1e-6), "{end:?}");
        // Stopped at 5,000 s: the job reports 5,000 s on its GPUs, unfinished.
        let mut s = sim("h100:8/8", jobs(&[(8, 10_000.0)]), None, Some(5_000.0));
        let ev = events(&mut s);
        assert!(s.is_done() && s.now() == 5_000.0);
        assert!(!ev.iter().any(|e| matches!(e, SimEvent::Finished { .. })));
        let ran: Vec<(f64, f64)> = ev
            .iter()
            .filter_map(|e| match e {
                SimEvent::Ran { start, end, .. } => Some((*start, *end)),
                _ => None,
            })
            .collect();
        assert_eq!(ran, vec![(0.0, 5_000.0)]);
    }

    #[test]
    fn a_server_away_for_repair_holds_no_job_and_leaves_the_pool() {
        // Two 8-GPU jobs on two servers of 8, failures at 2 per server-day, an hour's
        // repair: a job on a failed server stops (interrupted, not restarted on a spare)
        // and waits; no job ever holds GPUs on a server away, and every GPU is held, kept,
        // free or away.
        let mut f = faults(2.0, 0.0);
        f.failures.repair_s = 3600.0;
        let mut s = sim(
            "h100:16/8",
            jobs(&[(8, 400_000.0), (8, 400_000.0)]),
            Some(f),
            None,
        );
        let mut stops = 0;
        let mut max_away = 0;
        while let Some(r) = s.step_round() {
            for e in &r.events {
                match e {
                    SimEvent::Interrupted { spot, .. } => {
                        assert!(!spot);
                        stops += 1;
                    }
                    SimEvent::Restarted { .. } => panic!("no spare under a repair time"),
                    _ => {}
                }
            }
            let faults = s.faults.as_ref().expect("failures");
            for j in s.jobs().iter().filter(|j| j.holds_gpus()) {
                for g in j.gpu_ids().iter().flat_map(|r| r.clone()) {
                    let (server, gpu) = faults.state.locate(0, g);
                    assert!(
                        !faults.away[server as usize].contains(&gpu),
                        "a job on server {server}, away"
                    );
                }
            }
            let held: u32 = s
                .jobs()
                .iter()
                .filter(|j| j.holds_gpus())
                .map(|j| j.gpus)
                .sum();
            let kept: u32 = s.jobs().iter().map(|j| j.reserved).sum();
            let away = s.away_gpus();
            max_away = max_away.max(away);
            assert_eq!(held + kept + s.free_gpus() + away, 16, "at {}", s.now());
        }
        assert!(stops >= 5, "{stops} stops");
        assert!(max_away >= 8);
        assert!(s
            .jobs()
            .iter()
            .all(|j| j.phase == Phase::Done && j.finish.is_some()));
    }
}
