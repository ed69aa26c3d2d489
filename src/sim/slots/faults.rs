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
//! A server away for repair (a repair time) is modelled in round-based experiments; here a
//! repair time is refused, as are spot capacity traces.

use super::{SlotJob, SlotSimulator};
use crate::model::cluster::ClusterSpec;
use crate::model::failure::schedule::Failure;
use crate::sim::faults::{first_hit, FaultState};
use crate::sim::{SimConfig, SimError, SimEvent};

/// What a job's slot gave: the steps done (net of work taken back), the seconds it held
/// its tasks, the seconds restarting and the seconds writing checkpoints.
pub(super) struct SlotRun {
    pub done: f64,
    pub used: f64,
    pub delay: f64,
    pub writing: f64,
}

impl SlotSimulator {
    /// The simulator under the failures, checkpoints and stop time of `sim` (its servers
    /// are the failure model's, in the same order).
    pub fn with_faults(mut self, sim: &SimConfig, cluster: &ClusterSpec) -> Result<Self, SimError> {
        crate::sim::faults::refuse_spot(sim, "the slot mechanism (DL2)")?;
        self.until = sim.until;
        let Some(faults) = &sim.faults else {
            return Ok(self);
        };
        if faults.failures.per_server_day > 0.0 && faults.failures.repair_s > 0.0 {
            return Err(SimError::Config {
                field: "repair_s".into(),
                reason: "the slot mechanism (DL2) replaces a failed server with a spare at once: set the repair time to 0 (servers away for repair are modelled in round-based experiments)".into(),
            });
        }
        self.faults = Some(FaultState::new(faults, cluster, self.jobs.len(), sim.seed));
        Ok(self)
    }

    /// The server failures up to `t` not read yet (reported), or None without failures.
    pub(super) fn failures_until(
        &mut self,
        t: f64,
        events: &mut Vec<SimEvent>,
    ) -> Option<Vec<Failure>> {
        Some(self.faults.as_mut()?.failures_until(t, events))
    }
}

/// Job `j`, on `gpus` GPUs, trains from `start` for `slot_s` seconds at `speed` steps per
/// second under the slot's `failures` (in time order), `due` seconds of restart to pay
/// first.
pub(super) fn run_slot(
    state: &mut FaultState,
    j: &mut SlotJob,
    (start, slot_s): (f64, f64),
    (speed, due, gpus): (f64, f64, u32),
    failures: &[Failure],
    events: &mut Vec<SimEvent>,
) -> SlotRun {
    let mut servers: Vec<u32> = j
        .worker_servers
        .iter()
        .chain(&j.ps_servers)
        .map(|&s| s as u32)
        .collect();
    crate::order::sort_by_key(&mut servers, |&s| s);
    servers.dedup();
    let spanned = servers.len() as u32;
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
        let hit = first_hit(failures, |s| servers.binary_search(&s).is_ok(), next)
            .filter(|(_, x)| x.time < end);
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
