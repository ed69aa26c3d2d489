//! A running job's tick of training in the pooled simulator: its restart delay first, then
//! steps at the speed of its GPUs (a job on loaned servers at their model's speed, on both
//! pools at the slower), a checkpoint every `checkpoint_s` seconds of running, and its end
//! at the exact time its work is done.

use super::{Pool, PooledSimulator};
use crate::model::job::JobId;
use crate::sim::SimEvent;

impl PooledSimulator {
    /// GPUs of job `j` on the training pool and on loaned inference servers.
    pub(super) fn gpus_by_pool(&self, j: JobId) -> (u32, u32) {
        let job = &self.jobs[j];
        let on_loan: u32 = job
            .placement
            .iter()
            .filter(|p| self.servers[p.0].pool == Pool::Inference)
            .map(|p| p.1)
            .sum();
        (job.gpus() - on_loan, on_loan)
    }

    /// Steps per second of job `j` on its GPUs: a job on loaned servers trains at their
    /// model's speed; on both pools, at the slower of the two (a synchronous step waits for
    /// the slowest GPU).
    pub(super) fn speed_of(&self, j: JobId) -> f64 {
        let job = &self.jobs[j];
        let k = job.gpus();
        match self.gpus_by_pool(j).1 {
            0 => job.speed_at(k),
            l if l == k => job.loan_speed_at(k),
            _ => job.speed_at(k).min(job.loan_speed_at(k)),
        }
    }

    /// Running job `j` trains for the tick from `start` (`tick` seconds); the GPUs it held
    /// on the training pool and on loan.
    pub(super) fn train(
        &mut self,
        j: JobId,
        start: f64,
        tick: f64,
        events: &mut Vec<SimEvent>,
    ) -> (u32, u32) {
        let (training, on_loan) = self.gpus_by_pool(j);
        let speed = self.speed_of(j);
        let job = &mut self.jobs[j];
        let delay = job.overhead.min(tick);
        job.overhead -= delay;
        let mut used = tick;
        let steps = speed * (tick - delay);
        let before = job.progress;
        if speed > 0.0 && job.progress + steps >= job.total {
            used = delay + (job.total - job.progress) / speed;
            job.progress = job.total;
            job.finish = Some(start + used);
        } else {
            job.progress += steps;
        }
        job.since_checkpoint += used - delay;
        if job.since_checkpoint >= self.config.checkpoint_s {
            job.saved = job.progress;
            job.since_checkpoint = 0.0;
        }
        let progress = job.progress - before;
        self.report_ran(j, (start, used), delay, progress, events);
        (training, on_loan)
    }

    /// Job `j` ran for `used` seconds from `start`, `delay` of them restarting, and made
    /// `progress` steps: one record per pool it is on, and its end if it finished.
    pub(super) fn report_ran(
        &mut self,
        j: JobId,
        (start, used): (f64, f64),
        delay: f64,
        progress: f64,
        events: &mut Vec<SimEvent>,
    ) {
        let (training, on_loan) = self.gpus_by_pool(j);
        let k = training + on_loan;
        for (gpu_type, gpus) in [(0, training), (1, on_loan)] {
            if gpus > 0 {
                events.push(SimEvent::Ran {
                    job: j,
                    gpu_type,
                    gpus,
                    start,
                    end: start + used,
                    busy_s: used,
                    steps: progress * f64::from(gpus) / f64::from(k),
                    // The delay is counted once per job, on its first part.
                    overhead_s: if gpu_type == 0 || k == on_loan {
                        delay
                    } else {
                        0.0
                    },
                    shared_with: None,
                });
            }
        }
        if let Some(f) = self.jobs[j].finish {
            events.push(SimEvent::Finished { job: j, time: f });
            let servers: Vec<usize> = self.jobs[j].placement.iter().map(|p| p.0).collect();
            for s in servers {
                self.remove_gpus(j, s);
            }
        }
    }
}
