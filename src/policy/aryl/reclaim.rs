//! Which loaned servers to give back when inference demand rises: greedily, the server
//! whose return costs training the least, recomputed after each pick (taking one server
//! from a job can make the next one more expensive).
//!
//! Returning a server costs each training job with GPUs on it: an elastic job that keeps at
//! least its minimum GPUs only shrinks, paying the resize delay on the workers it keeps;
//! a job that would fall below its minimum must stop, losing the work since its last
//! checkpoint and paying the restart delay, on all its GPUs. Costs are in GPU-seconds.

use crate::model::job::JobId;
use std::collections::BTreeMap;

/// A training job as reclaiming sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tenant {
    /// GPUs it holds in all.
    pub gpus: u32,
    /// Fewest GPUs it can run on.
    pub min_gpus: u32,
    /// Seconds of work since its last checkpoint (lost if it stops).
    pub unsaved_s: f64,
}

/// GPU-seconds lost by taking `here` GPUs from a job holding `t.gpus`.
pub fn cost_for(t: &Tenant, here: u32, restart_s: f64) -> f64 {
    let left = t.gpus.saturating_sub(here);
    if left >= t.min_gpus.max(1) {
        restart_s * f64::from(left)
    } else {
        (t.unsaved_s + restart_s) * f64::from(t.gpus)
    }
}

/// Cost of returning one server holding `(job, GPUs)` pairs.
pub fn server_cost(
    occupants: &[(JobId, u32)],
    tenants: &BTreeMap<JobId, Tenant>,
    restart_s: f64,
) -> f64 {
    occupants
        .iter()
        .filter_map(|(j, g)| Some(cost_for(tenants.get(j)?, *g, restart_s)))
        .sum()
}

/// Choose `count` of the `servers` (id, occupants) to return, cheapest first; ties go to
/// the lower id. Jobs that must stop are stopped once: their GPUs on later picks cost
/// nothing more.
pub fn choose(
    servers: &[(usize, Vec<(JobId, u32)>)],
    tenants: &BTreeMap<JobId, Tenant>,
    restart_s: f64,
    count: usize,
) -> Vec<usize> {
    let mut tenants = tenants.clone();
    let mut left: Vec<&(usize, Vec<(JobId, u32)>)> = servers.iter().collect();
    let mut out = Vec::with_capacity(count.min(servers.len()));
    while out.len() < count && !left.is_empty() {
        let mut best: Option<(usize, f64)> = None;
        for (i, (id, occ)) in left.iter().map(|s| (s.0, &s.1)).enumerate() {
            let c = server_cost(occ, &tenants, restart_s);
            let better = match best {
                None => true,
                Some((b, bc)) => c < bc || (c == bc && id < left[b].0),
            };
            if better {
                best = Some((i, c));
            }
        }
        let Some((i, _)) = best else { break };
        let (id, occ) = left.remove(i);
        for (j, g) in occ {
            if let Some(t) = tenants.get_mut(j) {
                let remaining = t.gpus.saturating_sub(*g);
                if remaining < t.min_gpus.max(1) {
                    // Stopped: it holds nothing any more, so its other servers are free.
                    tenants.remove(j);
                } else {
                    t.gpus = remaining;
                }
            }
        }
        out.push(*id);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenants() -> BTreeMap<JobId, Tenant> {
        BTreeMap::from([
            // Job 0: elastic, 8 GPUs, can run on 4.
            (
                0,
                Tenant {
                    gpus: 8,
                    min_gpus: 4,
                    unsaved_s: 600.0,
                },
            ),
            // Job 1: rigid, 4 GPUs, 20 minutes unsaved.
            (
                1,
                Tenant {
                    gpus: 4,
                    min_gpus: 4,
                    unsaved_s: 1200.0,
                },
            ),
        ])
    }

    #[test]
    fn costs_by_hand() {
        let t = tenants();
        // Taking 4 of job 0's 8: it shrinks to 4, paying 30 s on 4 GPUs = 120.
        assert_eq!(cost_for(&t[&0], 4, 30.0), 120.0);
        // Taking 5: below its minimum, it stops: (600 + 30) x 8 = 5040.
        assert_eq!(cost_for(&t[&0], 5, 30.0), 5040.0);
        // Job 1 loses any GPU: (1200 + 30) x 4 = 4920.
        assert_eq!(cost_for(&t[&1], 1, 30.0), 4920.0);
    }

    #[test]
    fn idle_then_elastic_extras_then_rigid() {
        let t = tenants();
        let servers = vec![
            (10, vec![(1, 4)]),
            (11, vec![(0, 4)]),
            (12, vec![]),
            (13, vec![(0, 4)]),
        ];
        // Idle server 12 first (0); then 11 (job 0 shrinks: 120); then job 0 would stop
        // on 13 (its 4 remaining GPUs: (600 + 30) x 4 = 2520) which is cheaper than
        // stopping job 1 (4920).
        assert_eq!(choose(&servers, &t, 30.0, 1), vec![12]);
        assert_eq!(choose(&servers, &t, 30.0, 2), vec![12, 11]);
        assert_eq!(choose(&servers, &t, 30.0, 3), vec![12, 11, 13]);
        assert_eq!(choose(&servers, &t, 30.0, 9), vec![12, 11, 13, 10]);
    }

    #[test]
    fn stopped_jobs_free_their_other_servers() {
        let t = BTreeMap::from([(
            5,
            Tenant {
                gpus: 8,
                min_gpus: 8,
                unsaved_s: 100.0,
            },
        )]);
        let servers = vec![(0, vec![(5, 4)]), (1, vec![(5, 4)])];
        // The first return stops job 5; the second server is then free.
        assert_eq!(choose(&servers, &t, 10.0, 2), vec![0, 1]);
        assert_eq!(server_cost(&servers[0].1, &t, 10.0), 880.0);
    }
}
