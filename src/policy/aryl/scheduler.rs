//! The Aryl scheduler and its ablations: `aryl[loaning=true,elastic=true]`.
//!
//! Each tick it (1) returns the loaned servers inference needs back, cheapest first
//! ([`super::reclaim`]); (2) loans the idle inference servers (with `loaning`); (3) starts
//! queued jobs in arrival order at their minimum GPU count, on training servers first and
//! the fewest servers possible, skipping a job that does not fit; (4) with `elastic`, splits
//! the GPUs still free among running elastic jobs by a multiple-choice knapsack
//! ([`super::knapsack`]): for each job one option per number of extra GPUs, worth the
//! predicted drop in its remaining time minus the resize delay; extra GPUs go first where
//! the job already runs, then on loaned servers (cheap to give back), then on training
//! servers.

use super::knapsack::{self, Choice};
use super::reclaim::{self, Tenant};
use crate::model::job::JobId;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::PolicyError;
use crate::sim::pooled::{Pool, PoolPlan, PoolView, PooledPolicy};
use std::collections::BTreeMap;

/// Parameters of Aryl.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "loaning",
        default: "true",
        help: "loan idle inference servers to training",
    },
    ParamInfo {
        name: "elastic",
        default: "true",
        help:
            "give elastic jobs extra GPUs by the knapsack (otherwise every job runs at its minimum)",
    },
];

/// The Aryl scheduler.
#[derive(Debug, Clone)]
pub struct Aryl {
    name: String,
    loaning: bool,
    elastic: bool,
}

impl Aryl {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn PooledPolicy>, PolicyError> {
        Ok(Box::new(Aryl {
            name: p.spec().to_string(),
            loaning: p.bool("loaning", true)?,
            elastic: p.bool("elastic", true)?,
        }))
    }
}

/// Take `count` GPUs from `free` (server, free GPUs) in the given preference order,
/// fewest servers first among equally preferred ones: servers that can hold the whole
/// request are tried from the fullest that fits; otherwise the emptiest are used first.
fn take(free: &mut [(usize, u32, u8)], count: u32) -> Option<Vec<(usize, u32)>> {
    let total: u32 = free.iter().map(|f| f.1).sum();
    if total < count {
        return None;
    }
    // Best fit on one server within the most preferred class that can.
    let mut best: Option<usize> = None;
    for (i, f) in free.iter().enumerate() {
        if f.1 >= count {
            let better = match best {
                None => true,
                Some(b) => (f.2, f.1) < (free[b].2, free[b].1),
            };
            if better {
                best = Some(i);
            }
        }
    }
    if let Some(b) = best {
        free[b].1 -= count;
        return Some(vec![(free[b].0, count)]);
    }
    let mut order: Vec<usize> = (0..free.len()).filter(|&i| free[i].1 > 0).collect();
    crate::order::sort_by_key(&mut order, |&i| {
        (free[i].2, std::cmp::Reverse(free[i].1), free[i].0)
    });
    let mut out = Vec::new();
    let mut left = count;
    for i in order {
        if left == 0 {
            break;
        }
        let g = free[i].1.min(left);
        free[i].1 -= g;
        left -= g;
        out.push((free[i].0, g));
    }
    Some(out)
}

impl PooledPolicy for Aryl {
    fn name(&self) -> &str {
        &self.name
    }

    fn plan(&mut self, view: &PoolView) -> PoolPlan {
        let mut plan = PoolPlan {
            loan: self.loaning,
            ..PoolPlan::default()
        };
        // (1) Reclaim.
        let tenants: BTreeMap<JobId, Tenant> = view
            .running
            .iter()
            .map(|&j| {
                let job = &view.jobs[j];
                (
                    j,
                    Tenant {
                        gpus: job.gpus(),
                        min_gpus: job.min_gpus,
                        unsaved_s: job.since_checkpoint,
                    },
                )
            })
            .collect();
        if view.must_reclaim > 0 {
            let loaned: Vec<(usize, Vec<(JobId, u32)>)> = view
                .servers
                .iter()
                .enumerate()
                .filter(|(_, s)| s.loaned)
                .map(|(i, s)| (i, s.used.clone()))
                .collect();
            plan.reclaim = reclaim::choose(&loaned, &tenants, view.restart_s, view.must_reclaim);
        }
        // Free GPUs after the reclaim and the loan, with a preference class per server:
        // 0 = training, 1 = loaned.
        let mut lost: BTreeMap<JobId, u32> = BTreeMap::new();
        for &s in &plan.reclaim {
            for &(j, g) in &view.servers[s].used {
                *lost.entry(j).or_insert(0) += g;
            }
        }
        let stopped: Vec<JobId> = lost
            .iter()
            .filter(|(j, g)| {
                let job = &view.jobs[**j];
                job.gpus().saturating_sub(**g) < job.min_gpus
            })
            .map(|(j, _)| *j)
            .collect();
        let loaned_after = view.servers.iter().filter(|s| s.loaned).count() - plan.reclaim.len();
        let mut to_loan = if self.loaning {
            view.idle_inference.saturating_sub(loaned_after)
        } else {
            0
        };
        let mut free: Vec<(usize, u32, u8)> = Vec::new();
        for (i, s) in view.servers.iter().enumerate() {
            if plan.reclaim.contains(&i) {
                continue;
            }
            let mut f = s.free();
            for &(j, g) in &s.used {
                if stopped.contains(&j) {
                    f += g;
                }
            }
            match s.pool {
                Pool::Training => free.push((i, f, 0)),
                Pool::Inference if s.loaned => free.push((i, f, 1)),
                // The mechanism loans the first inference servers not away.
                Pool::Inference if to_loan > 0 && !s.down => {
                    to_loan -= 1;
                    free.push((i, s.gpus, 1));
                }
                Pool::Inference => {}
            }
        }
        // (3) Admission in arrival order (stopped jobs rejoin the queue next tick).
        let mut avail: u32 = free.iter().map(|f| f.1).sum();
        for &j in &view.queue {
            if avail == 0 {
                break;
            }
            let job = &view.jobs[j];
            if job.min_gpus > avail {
                continue;
            }
            if let Some(p) = take(&mut free, job.min_gpus) {
                avail -= job.min_gpus;
                plan.start.push((j, p));
            }
        }
        // (4) Elastic growth by the knapsack.
        if self.elastic {
            let capacity: u32 = free.iter().map(|f| f.1).sum();
            let candidates: Vec<JobId> = view
                .running
                .iter()
                .copied()
                .filter(|j| !lost.contains_key(j))
                .filter(|&j| view.jobs[j].max_gpus > view.jobs[j].gpus())
                .collect();
            if capacity > 0 && !candidates.is_empty() {
                let groups: Vec<Vec<Choice>> = candidates
                    .iter()
                    .map(|&j| {
                        let job = &view.jobs[j];
                        let g = job.gpus();
                        let now = job.remaining_at(g);
                        (1..=(job.max_gpus - g).min(capacity))
                            .map(|k| Choice {
                                weight: k,
                                value: now - job.remaining_at(g + k) - view.restart_s,
                            })
                            .collect()
                    })
                    .collect();
                let sel = knapsack::solve(&groups, capacity);
                for (gi, c) in sel.chosen.iter().enumerate() {
                    let Some(c) = c else { continue };
                    let j = candidates[gi];
                    let k = groups[gi][*c].weight;
                    // Prefer the job's own servers, then loaned, then training.
                    let own: Vec<usize> = view.jobs[j].placement.iter().map(|p| p.0).collect();
                    let mut pref: Vec<(usize, u32, u8)> = free
                        .iter()
                        .map(|&(s, f, class)| {
                            let c = if own.contains(&s) {
                                0
                            } else if class == 1 {
                                1
                            } else {
                                2
                            };
                            (s, f, c)
                        })
                        .collect();
                    if let Some(p) = take(&mut pref, k) {
                        for &(s, g) in &p {
                            if let Some(f) = free.iter_mut().find(|f| f.0 == s) {
                                f.1 -= g;
                            }
                        }
                        plan.grow.push((j, p));
                    }
                }
            }
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_prefers_one_server_then_the_preferred_class() {
        let mut free = vec![(0, 8, 0), (1, 3, 0), (2, 8, 1)];
        assert_eq!(take(&mut free, 3), Some(vec![(1, 3)]));
        assert_eq!(take(&mut free, 10), Some(vec![(0, 8), (2, 2)]));
        assert_eq!(take(&mut free, 7), None);
        assert_eq!(take(&mut free, 6), Some(vec![(2, 6)]));
    }
}
