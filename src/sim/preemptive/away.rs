//! Servers away in the preemptive simulator: a failed server under a repair time, until it
//! is back (in a GPU domain, only the failed GPU for a GPU cause), or a spot instance its
//! type's trace has taken back, until the trace holds it again. A job holding GPUs on a server that goes away stops there: it loses the work
//! since its last written checkpoint (a spot instance's warning lets it write one first,
//! [`crate::sim::faults::FaultState::preempt`]), gives its GPUs back and waits for its
//! policy, which sees the server's GPUs gone from the free ones; started again, it reloads
//! as a resumption does. A job being suspended stops as under a failure: its GPUs go to the
//! job it was suspended for. The GPUs of a server away are taken from the free ones (or,
//! short of those, from GPUs kept for waiting jobs) and come back when the server does; the
//! time a server comes back and every change of a spot trace are event times.

use super::{Phase, PreemptiveSimulator};
use crate::model::job::JobId;
use crate::sim::SimEvent;

impl PreemptiveSimulator {
    /// The next time after now a server may go away or come back (a failure, the end of a
    /// repair, a change of a spot trace), when servers may go away and jobs are live;
    /// infinite otherwise.
    pub(super) fn next_capacity_change(&self) -> f64 {
        let Some(f) = self.faults.as_ref().filter(|f| f.servers_go_away()) else {
            return f64::INFINITY;
        };
        if self.live.is_empty() {
            return f64::INFINITY;
        }
        let now = self.now;
        let spot = f.spot.iter().filter_map(|(_, trace)| {
            let i = trace.steps.partition_point(|s| s.0 <= now);
            trace.steps.get(i).map(|s| s.0)
        });
        f.state
            .next_back_or_rise(&f.spot, now)
            .into_iter()
            .chain(f.state.next_failure())
            .chain(spot)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether a server away now may come back.
    pub(super) fn capacity_may_return(&self) -> bool {
        self.faults.as_ref().is_some_and(|f| {
            f.away.iter().any(|r| r.end > r.start)
                && f.state.next_back_or_rise(&f.spot, self.now).is_some()
        })
    }

    /// GPUs of servers away now.
    pub fn away_gpus(&self) -> u32 {
        let Some(f) = &self.faults else {
            return 0;
        };
        f.away.iter().map(|r| r.end.saturating_sub(r.start)).sum()
    }

    /// Servers (or GPUs of them) that go away at `t` stop the jobs on them and leave the
    /// pool; those back at `t` return to it.
    pub(super) fn update_away(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        let Some(f) = self.faults.as_ref() else {
            return;
        };
        let changes: Vec<(usize, std::ops::Range<u32>, bool)> = f
            .away
            .iter()
            .enumerate()
            .filter_map(|(s, was)| {
                let now = f.state.away_range(s as u32, &f.spot, t);
                let spot = f.state.away(s as u32, &f.spot, t).1;
                (now != *was).then_some((s, now, spot))
            })
            .collect();
        for (s, now, spot) in changes {
            let Some((ty, gpus)) = self.faults.as_ref().and_then(|f| f.state.gpus_of(s as u32))
            else {
                continue;
            };
            // As GPU indices of the type, within the GPUs it has.
            let total = self.total[ty];
            let of_type = |r: &std::ops::Range<u32>| {
                (gpus.start + r.start).min(total)..(gpus.start + r.end).min(total)
            };
            let was = self.faults.as_ref().map_or(0..0, |f| of_type(&f.away[s]));
            if was.end > was.start {
                self.free[ty] += was.end - was.start;
                self.gpu_ids.give_back(ty, std::slice::from_ref(&was));
            }
            let away = of_type(&now);
            if away.end > away.start {
                for id in self.gpu_ids.holders(ty, away.clone()) {
                    if self.jobs[id].holds_gpus() {
                        self.stop(id, (t, spot), events);
                    }
                }
                self.gpu_ids.withdraw(ty, away.clone());
                self.withdraw_count(ty, away.end - away.start);
            }
            if let Some(f) = self.faults.as_mut() {
                f.away[s] = now;
            }
        }
    }

    /// `n` GPUs of type `ty` leave the pool: free ones first, then ones kept for waiting
    /// jobs.
    fn withdraw_count(&mut self, ty: usize, n: u32) {
        let from_free = n.min(self.free[ty]);
        self.free[ty] -= from_free;
        let mut left = n - from_free;
        for &id in &self.live {
            if left == 0 {
                break;
            }
            let j = &mut self.jobs[id];
            if j.phase == Phase::Waiting && j.reserved_type == Some(ty) {
                let k = j.reserved.min(left);
                j.reserved -= k;
                left -= k;
            }
        }
    }

    /// A server gone away stops job `id` at `time` (a spot instance taken back after the
    /// experiment's warning, `spot`, or a failure under a repair time): it loses its work
    /// since its last written checkpoint and waits; a job being suspended ends its
    /// suspension there.
    pub(super) fn stop(
        &mut self,
        id: JobId,
        (time, spot): (f64, bool),
        events: &mut Vec<SimEvent>,
    ) {
        let Some(f) = self.faults.as_mut() else {
            return;
        };
        let (lost, lost_s, written) = f.state.stop(id, spot, f.warning_s);
        let j = &mut self.jobs[id];
        j.progress = (j.progress - lost).max(0.0);
        j.seg_steps -= lost;
        crate::sim::faults::report_stop(events, (id, time, j.gpus), (lost, lost_s), spot);
        if written > 0.0 {
            events.push(SimEvent::Checkpointed {
                job: id,
                time,
                gpus: j.gpus,
                write_s: written,
            });
        }
        // A reload or a write cut short costs only the time it took.
        if matches!(j.phase, Phase::Loading | Phase::Saving) {
            j.seg_overhead -= (j.phase_end - time).max(0.0);
        }
        if matches!(j.phase, Phase::Draining | Phase::Saving) {
            self.suspend_done(id, time, events);
            return;
        }
        self.release(id, time, events);
        let j = &mut self.jobs[id];
        j.phase = Phase::Waiting;
        j.waiting_since = time;
        j.stopped = true;
    }
}
