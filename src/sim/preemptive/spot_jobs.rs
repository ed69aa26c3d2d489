//! Spot jobs (Alibaba's `Spot` type) yield to high-priority jobs in the preemptive
//! mechanism, whatever the policy: after the policy's plan at an event, every high-priority
//! job it leaves waiting (in arrival order) and that waits for no suspended job suspends
//! spot jobs for itself on its fastest type where the free GPUs and the running spot jobs'
//! make room: the spot jobs that started last go first, and only as many as it needs. They
//! are suspended as any victim is (they finish their epoch and checkpoint under PickyMan's
//! model, or free their GPUs at once under a restart delay), and the GPUs they free are kept
//! for it; they wait, and run again when their policy starts them.
//!
//! Without spot jobs in the workload the plan is the policy's, untouched.

use super::{types_by_speed, Phase, PreemptiveSimulator, Suspension};
use crate::model::job::JobId;
use crate::sim::SimEvent;

impl PreemptiveSimulator {
    /// High-priority jobs left waiting at `t` suspend spot jobs for themselves.
    pub(super) fn spot_jobs_yield(&mut self, t: f64, events: &mut Vec<SimEvent>) {
        if !self.spot_jobs {
            return;
        }
        let waiting: Vec<JobId> = (self.live_by_arrival.iter().copied())
            .filter(|&w| {
                let j = &self.jobs[w];
                !self.specs[w].spot
                    && j.phase == Phase::Waiting
                    && j.victims_pending == 0
                    && j.reserved == 0
            })
            .collect();
        for w in waiting {
            let need = self.jobs[w].gpus;
            for ty in types_by_speed(&self.jobs[w]) {
                let free = self.free[ty];
                if free >= need {
                    // Room without a spot job's GPUs: the policy's choice stands.
                    break;
                }
                let mut spot: Vec<JobId> = (self.live.iter().copied())
                    .filter(|&v| {
                        let j = &self.jobs[v];
                        self.specs[v].spot && j.phase == Phase::Running && j.gpu_type == ty
                    })
                    .collect();
                let held: u32 = spot.iter().map(|&v| self.jobs[v].gpus).sum();
                if free + held < need {
                    continue;
                }
                // The last started first.
                crate::order::sort_by(&mut spot, |&a, &b| {
                    self.jobs[b]
                        .seg_start
                        .total_cmp(&self.jobs[a].seg_start)
                        .then(b.cmp(&a))
                });
                let mut room = free;
                for v in spot {
                    if room >= need {
                        break;
                    }
                    room += self.jobs[v].gpus;
                    let s = Suspension {
                        victim: v,
                        for_job: w,
                        predicted_s: None,
                    };
                    self.suspend(s, t, events);
                }
                break;
            }
        }
    }
}
