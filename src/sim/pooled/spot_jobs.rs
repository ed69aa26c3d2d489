//! Spot jobs (Alibaba's `Spot` type) yield to high-priority jobs in the pooled mechanism,
//! whatever the policy: after the policy's plan of a tick, every high-priority job it leaves
//! queued (in arrival order), when the free GPUs alone cannot hold it, stops the spot jobs
//! that arrived last, only as many as its fewest GPUs need with the free ones, and starts on
//! the GPUs they give back and the free ones (the servers with the most free GPUs first).
//! The spot jobs go back to the queue at their last checkpoint, as a reclaim sends them.
//!
//! Without spot jobs in the workload the plan is the policy's, untouched.

use super::PooledSimulator;
use crate::model::job::JobId;
use crate::sim::SimEvent;

impl PooledSimulator {
    /// GPUs job `j` holds on servers training may use.
    fn usable_gpus(&self, j: JobId) -> u32 {
        (self.jobs[j].placement.iter())
            .filter(|p| self.servers.get(p.0).is_some_and(|s| s.usable()))
            .map(|p| p.1)
            .sum()
    }

    /// GPUs free on servers training may use.
    fn free_gpus(&self) -> u32 {
        (self.servers.iter())
            .filter(|s| s.usable())
            .map(|s| s.free())
            .sum()
    }

    /// High-priority jobs left queued take the GPUs of spot jobs.
    pub(super) fn spot_jobs_yield(&mut self, events: &mut Vec<SimEvent>) {
        if !self.spot_jobs {
            return;
        }
        let waiting: Vec<JobId> = (self.queue.iter().copied())
            .filter(|&j| !self.specs[j].spot && !self.jobs[j].dropped)
            .collect();
        for w in waiting {
            let need = self.jobs[w].min_gpus;
            let free = self.free_gpus();
            if free >= need {
                continue;
            }
            let mut spot: Vec<JobId> = (self.running.iter().copied())
                .filter(|&v| self.specs[v].spot)
                .collect();
            let held: u32 = spot.iter().map(|&v| self.usable_gpus(v)).sum();
            if free + held < need {
                continue;
            }
            // The last arrived first.
            crate::order::sort_by(&mut spot, |&a, &b| {
                (self.specs[b].arrival)
                    .total_cmp(&self.specs[a].arrival)
                    .then(b.cmp(&a))
            });
            let mut room = free;
            for v in spot {
                if room >= need {
                    break;
                }
                room += self.usable_gpus(v);
                self.stop(v, events);
            }
            let mut servers: Vec<usize> = (0..self.servers.len())
                .filter(|&s| self.servers[s].usable() && self.servers[s].free() > 0)
                .collect();
            crate::order::sort_by(&mut servers, |&a, &b| {
                (self.servers[b].free())
                    .cmp(&self.servers[a].free())
                    .then(a.cmp(&b))
            });
            let mut left = need;
            let mut placement = Vec::new();
            for s in servers {
                if left == 0 {
                    break;
                }
                let g = self.servers[s].free().min(left);
                placement.push((s, g));
                left -= g;
            }
            if left == 0 && self.place(w, &placement) {
                self.jobs[w].queued = false;
                self.jobs[w].overhead = self.restart_of(w);
                self.queue.retain(|&q| q != w);
            }
        }
    }
}
