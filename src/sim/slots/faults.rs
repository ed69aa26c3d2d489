//! Failures and checkpoints in the slot simulator (DL2), from the shared model of
//! [`crate::sim::faults`]: a slot's server failures are read once, and every job that
//! trains runs up to the first failure of a server holding one of its workers or parameter
//! servers. There it loses the work since its last written checkpoint, a spare takes the
//! server's place at once, and the job starts again on the same tasks paying its restart
//! delay (a delay longer than the rest of the slot carries into the next while its counts
//! stay). Checkpoints follow the experiment's plan, with blocking writes. A job whose
//! workers or parameter servers change between slots (paused included) keeps its work, as
//! in DL2's simulator: its state is saved as the slot ends, at no cost.
//!
//! With a repair time a failed server is away until it is back: a job with a task on it
//! loses its work since its last written checkpoint and stops for the rest of the slot
//! (reported as interrupted, not restarted); at every slot's start a server away offers no
//! GPUs and no CPUs, so the job's policy allocates it elsewhere or it waits, paying its
//! restart delay when it trains again. Spot capacity traces (`--spot TYPE=FILE`) take a
//! type's highest servers away while the trace holds fewer instances than the type has: a
//! job with a task on an instance taken back inside a slot stops at the trace's time after
//! the experiment's warning ([`FaultState::preempt`]: a warning as long as a write saves all
//! but the write's work), reported as a spot interruption; one taken back at a slot's start
//! stops there, as in round-based experiments. A run with spot traces and no failure
//! settings has no failures and the default checkpoints. A run with nothing left to
//! arrive, whose servers away will never be back (a spot trace that does not rise again),
//! ends at the first slot in which no job trains.

use super::{SlotJob, SlotSimulator};
use crate::model::cluster::ClusterSpec;
use crate::model::failure::schedule::Failure;
use crate::sim::faults::{first_hit, FaultState, Held, SpotTrace, SPOT_CAUSE};
use crate::sim::{SimConfig, SimError, SimEvent};

/// What a job's slot gave: the steps done (net of work taken back), the seconds it held
/// its tasks, the seconds restarting and the seconds writing checkpoints.
pub(super) struct SlotRun {
    pub done: f64,
    pub used: f64,
    pub delay: f64,
    pub writing: f64,
}

/// Failures of a slot run: the shared state, the spot types with their traces and the
/// seconds of warning before a spot instance is taken back.
#[derive(Debug, Clone)]
pub(super) struct SlotFaults {
    pub state: FaultState,
    spot: Vec<SpotTrace>,
    warning_s: f64,
}

impl SlotSimulator {
    /// The simulator under the failures, checkpoints and stop time of `sim` (its servers
    /// are the failure model's, in the same order).
    pub fn with_faults(mut self, sim: &SimConfig, cluster: &ClusterSpec) -> Result<Self, SimError> {
        self.until = sim.until;
        let spot_only = crate::sim::faults::spot_only(&sim.spot);
        let Some(faults) = sim.faults.as_ref().or(spot_only.as_ref()) else {
            return Ok(self);
        };
        self.faults = Some(SlotFaults {
            state: FaultState::new(faults, cluster, self.jobs.len(), sim.seed)
                .with_writes(self.jobs.iter().map(|j| j.checkpoint_write_s).collect()),
            spot: sim.spot.clone(),
            warning_s: sim.spot_warning_s,
        });
        Ok(self)
    }

    /// At a slot's start (`start`, before its failures are read): the servers away (for
    /// repair, or spot instances taken back), which offer no GPUs and no CPUs in the slot;
    /// a job that trained in the last slot with a task on a spot instance taken back right
    /// at `start` stops there after its warning (reported).
    pub(super) fn servers_away(&mut self, start: f64, events: &mut Vec<SimEvent>) -> Vec<usize> {
        let Some(f) = self
            .faults
            .as_mut()
            .filter(|f| f.state.repair_s() > 0.0 || !f.spot.is_empty())
        else {
            return Vec::new();
        };
        let away: Vec<usize> = (0..self.servers.len())
            .filter(|&k| f.state.away(k as u32, &f.spot, start).0)
            .collect();
        // Jobs on instances taken back exactly at `start` (inside a slot, it stops them).
        let state = &f.state;
        let taken: Vec<usize> = self
            .active
            .iter()
            .copied()
            .filter(|&id| {
                let j = &self.jobs[id];
                j.trains()
                    && (j.worker_servers.iter().chain(&j.ps_servers))
                        .any(|&k| state.spot_taken_at(k as u32, &f.spot, start))
            })
            .collect();
        for id in taken {
            let j = &mut self.jobs[id];
            let per = self.models.models.get(j.model).map_or(0, |m| m.worker_gpus);
            let (lost, lost_s, written) = f.state.preempt(id, f.warning_s);
            j.progress = (j.progress - lost).max(0.0);
            // It pays its restart when it trains again.
            j.restart_left = j.restart_s;
            report_spot(
                events,
                (id, start, j.workers * per),
                (lost, lost_s, written),
            );
        }
        away
    }

    /// Where each job runs in the slot, by id, for the failures that hit it: each server's
    /// GPUs laid out by the workers of its jobs in id order; a parameter server holds no
    /// GPU.
    pub(super) fn held(&self) -> Vec<Held> {
        let mut used = vec![0u32; self.servers.len()];
        let mut out = vec![Held::default(); self.jobs.len()];
        let mut ids = self.active.clone();
        crate::order::sort_by_key(&mut ids, |&id| id);
        for id in ids {
            let j = &self.jobs[id];
            let per = self.models.models.get(j.model).map_or(0, |m| m.worker_gpus);
            let mut gpus = Vec::new();
            for &k in &j.worker_servers {
                let Some(at) = used.get_mut(k) else {
                    continue;
                };
                gpus.extend((*at..*at + per).map(|g| (k as u32, g)));
                *at += per;
            }
            gpus.extend(j.ps_servers.iter().map(|&k| (k as u32, Held::NO_GPU)));
            out[id] = Held::new(gpus);
        }
        out
    }

    /// The servers up at `start` with GPUs of theirs away for repair (a failed GPU, in a
    /// GPU domain), and how many.
    pub(super) fn gpus_away(&self, start: f64) -> Vec<(usize, u32)> {
        let Some(f) = self.faults.as_ref().filter(|f| f.state.repair_s() > 0.0) else {
            return Vec::new();
        };
        (0..self.servers.len())
            .filter(|&k| !f.state.away(k as u32, &f.spot, start).0)
            .filter_map(|k| {
                let r = f.state.away_range(k as u32, &f.spot, start);
                (r.end > r.start).then_some((k, r.end - r.start))
            })
            .collect()
    }

    /// Whether the servers `away` at `start` (one at least) will never be back.
    pub(super) fn away_for_good(&self, away: &[usize], start: f64) -> bool {
        !away.is_empty()
            && self
                .faults
                .as_ref()
                .is_some_and(|f| f.state.next_back_or_rise(&f.spot, start).is_none())
    }

    /// The server failures up to `t` not read yet (reported), or None without failures.
    pub(super) fn failures_until(
        &mut self,
        t: f64,
        events: &mut Vec<SimEvent>,
    ) -> Option<Vec<Failure>> {
        let start = self.now();
        let f = self.faults.as_mut()?;
        // Spot instances taken back inside the slot are failures of their servers.
        Some(f.state.failures_in(&f.spot, (start, t), events))
    }
}

/// Job `job`, on `gpus` GPUs, stopped at `time` by a spot instance taken back: `lost`
/// steps and `lost_s` seconds of computation lost, `written` seconds written in the warning.
fn report_spot(
    events: &mut Vec<SimEvent>,
    (job, time, gpus): (usize, f64, u32),
    (lost, lost_s, written): (f64, f64, f64),
) {
    crate::sim::faults::report_stop(events, (job, time, gpus), (lost, lost_s), true);
    if written > 0.0 {
        events.push(SimEvent::Checkpointed {
            job,
            time,
            gpus,
            write_s: written,
        });
    }
}

/// Job `j`, on `gpus` GPUs, trains from `start` for `slot_s` seconds at `speed` steps per
/// second under the slot's `failures` (in time order), `due` seconds of restart to pay
/// first.
pub(super) fn run_slot(
    faults: &mut SlotFaults,
    (j, held): (&mut SlotJob, &Held),
    (start, slot_s): (f64, f64),
    (speed, due, gpus): (f64, f64, u32),
    failures: &[Failure],
    events: &mut Vec<SimEvent>,
) -> SlotRun {
    let spanned = held.servers();
    let state = &mut faults.state;
    let away = state.repair_s() > 0.0;
    let end = start + slot_s;
    let before = j.progress;
    let mut out = SlotRun {
        done: 0.0,
        used: slot_s,
        delay: 0.0,
        writing: 0.0,
    };
    let (mut t, mut owed) = (start, due);
    let mut next = failures.partition_point(|x| x.time < start);
    loop {
        let hit = first_hit(failures, held, next).filter(|(_, x)| x.time < end);
        let until = hit.map_or(end, |(_, x)| x.time);
        let d = owed.min(until - t).max(0.0);
        owed -= d;
        t += d;
        out.delay += d;
        let left = j.remaining_steps();
        let ran = state.run(j.id, spanned, until - t, speed, left);
        out.writing += ran.writing_s;
        t += ran.used_s;
        if speed > 0.0 && ran.work >= left {
            j.progress = j.total;
            out.used = t - start;
            break;
        }
        j.progress += ran.work;
        let Some((i, x)) = hit else {
            break;
        };
        // A server away (for repair, or a spot instance taken back) stops the job for the
        // rest of the slot; it pays its restart when it trains again.
        if away || x.cause == SPOT_CAUSE {
            let (lost, lost_s, written) = state.stop(j.id, x.cause == SPOT_CAUSE, faults.warning_s);
            j.progress = (j.progress - lost).max(0.0);
            events.push(SimEvent::Interrupted {
                job: j.id,
                time: x.time,
                gpus,
                lost_steps: lost,
                lost_s,
                spot: x.cause == SPOT_CAUSE,
            });
            out.writing += written;
            out.used = x.time - start;
            owed = j.restart_s;
            break;
        }
        let (lost, lost_s) = state.fail(j.id);
        j.progress = (j.progress - lost).max(0.0);
        owed = j.restart_s;
        crate::sim::faults::report_interruption(events, (j.id, x.time, gpus), (lost, lost_s));
        t = x.time;
        next = i + 1;
    }
    j.restart_left = owed;
    out.done = j.progress - before;
    out
}
