//! Suspensions in the preemptive simulator: a policy's suspension applied (the victim
//! drains to its epoch's end, then checkpoints), its end (the GPUs go to the waiting job it
//! was suspended for), and a waiting job's claim on its victims dropped.

use super::{Phase, PreemptiveSimulator, Suspension};
use crate::model::job::JobId;
use crate::sim::SimEvent;

impl PreemptiveSimulator {
    /// Drop a waiting job's claim on its victims: GPUs already kept go back.
    pub(super) fn cancel_reservation(&mut self, id: JobId) {
        let r = std::mem::take(&mut self.jobs[id].reserved);
        if let Some(ty) = self.jobs[id].reserved_type.take() {
            self.free[ty] += r;
        }
    }

    /// A suspension's checkpoint is written: the GPUs are free, the job waits again.
    pub(super) fn suspend_done(&mut self, id: JobId, t: f64, events: &mut Vec<SimEvent>) {
        self.checkpointed(id);
        self.release(id, t, events);
        let j = &mut self.jobs[id];
        j.phase = Phase::Waiting;
        j.preemptions += 1;
        j.waiting_since = t;
        events.push(SimEvent::Preempted { job: id, time: t });
    }

    /// Apply one suspension, if it is valid.
    pub(super) fn suspend(&mut self, s: Suspension, t: f64, events: &mut Vec<SimEvent>) {
        let n = self.jobs.len();
        if s.victim >= n || s.for_job >= n || s.victim == s.for_job {
            return;
        }
        if self.jobs[s.victim].phase != Phase::Running
            || self.jobs[s.for_job].phase != Phase::Waiting
        {
            return;
        }
        // A waiting job's victims are all on one type: the one it will run on.
        let ty = self.jobs[s.victim].gpu_type;
        if self.jobs[s.for_job]
            .speeds
            .get(ty)
            .is_none_or(|&v| v <= 0.0)
        {
            return;
        }
        match self.jobs[s.for_job].reserved_type {
            Some(r) if r != ty => {
                if self.jobs[s.for_job].victims_pending > 0 {
                    return;
                }
                self.cancel_reservation(s.for_job);
            }
            _ => {}
        }
        self.jobs[s.for_job].reserved_type = Some(ty);
        let save = {
            let modelled = self.jobs[s.victim].overhead.save_s;
            self.model.draw(modelled, &mut self.mech_rng)
        };
        // A periodic checkpoint being written ends before the epoch does (a suspension
        // that does not drain keeps the progress made at once).
        let writing = self.writing_left(s.victim);
        let j = &mut self.jobs[s.victim];
        let mut drain = j.overhead.drain_s(j.progress, j.total, j.speed);
        if writing > 0.0 && j.overhead.drains {
            drain += writing;
        }
        j.phase = Phase::Draining;
        j.phase_end = t + drain;
        j.save_actual = save;
        j.suspended_for = Some(s.for_job);
        let modelled = drain + j.overhead.save_s + j.overhead.reload_s;
        let gpus = j.gpus;
        // The waiting job also gets the free GPUs it needs beyond its victims'.
        let w = &mut self.jobs[s.for_job];
        w.victims_pending += 1;
        w.pending_gpus += gpus;
        let take = w
            .gpus
            .saturating_sub(w.reserved + w.pending_gpus)
            .min(self.free[ty]);
        w.reserved += take;
        self.free[ty] -= take;
        events.push(SimEvent::Suspending {
            job: s.victim,
            time: t,
            for_job: s.for_job,
            drain_s: drain,
            save_s: save,
            modelled_s: modelled,
            predicted_s: s.predicted_s,
        });
    }
}
