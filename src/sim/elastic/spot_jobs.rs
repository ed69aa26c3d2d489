//! Spot jobs (Alibaba's `Spot` type) yield to high-priority jobs in the elastic mechanism,
//! whatever the policy: in the policy's decision of a tick, every high-priority job it
//! leaves without GPUs (in arrival order), when the free GPUs of no type it runs on can hold
//! it, takes the GPUs of the spot jobs that arrived last on its first type (in the cluster's
//! order) where the free GPUs and theirs make room: its own GPU count for a rigid job, its
//! user's for an elastic one, and only as many spot jobs as it needs. It keeps the GPUs it
//! held at the last tick when they are among them (no restart), else takes the free ones in
//! order. The spot jobs left without GPUs wait, as the policy's own waiting jobs do, so a
//! policy that gives them the GPUs again tick after tick changes nothing.
//!
//! Without spot jobs in the workload the decision is the policy's, untouched.

use super::ElasticSimulator;
use crate::model::job::JobId;

impl ElasticSimulator {
    /// Whether job `id` runs on `count` GPUs of type `ty`.
    fn runs_on(&self, id: JobId, ty: usize, count: u32) -> bool {
        match (self.app(id).rigid(), self.type_names.get(ty)) {
            (Some(r), Some(name)) => r.runs_on(name, count),
            (None, Some(_)) => true,
            _ => false,
        }
    }

    /// `allocs` (per active job: its virtual servers) with the high-priority jobs left
    /// without GPUs on spot jobs' GPUs.
    pub(super) fn spot_jobs_yield(
        &self,
        mut allocs: Vec<(JobId, Vec<u32>)>,
    ) -> Vec<(JobId, Vec<u32>)> {
        if !self.spot_jobs {
            return allocs;
        }
        let n = self.vnodes.len();
        let mut used = vec![0u32; n];
        for (_, a) in &allocs {
            for &v in a {
                if let Some(u) = used.get_mut(v as usize) {
                    *u += 1;
                }
            }
        }
        let away = self
            .faults
            .as_ref()
            .map_or_else(|| vec![false; n], |f| f.away.clone());
        let type_of = |a: &[u32]| {
            a.first()
                .and_then(|&v| self.vnodes.get(v as usize))
                .map(|x| x.1)
        };
        let mut waiting: Vec<usize> = (0..allocs.len())
            .filter(|&k| allocs[k].1.is_empty() && !self.specs[allocs[k].0].spot)
            .collect();
        crate::order::sort_by(&mut waiting, |&a, &b| {
            let (ja, jb) = (allocs[a].0, allocs[b].0);
            (self.specs[ja].arrival)
                .total_cmp(&self.specs[jb].arrival)
                .then(ja.cmp(&jb))
        });
        for k in waiting {
            let w = allocs[k].0;
            let need = match self.app(w).rigid() {
                Some(r) => r.gpus,
                None => self.states[w].target_replicas.max(1),
            };
            let free_of = |t: usize, used: &[u32]| -> u32 {
                (0..n)
                    .filter(|&v| self.vnodes[v].1 == t && !away[v])
                    .map(|v| self.gpus_per_node.saturating_sub(used[v]))
                    .sum()
            };
            let types: Vec<usize> = (0..self.servers.len())
                .filter(|&t| self.runs_on(w, t, need))
                .collect();
            if types.iter().any(|&t| free_of(t, &used) >= need) {
                continue;
            }
            for t in types {
                let mut spot: Vec<usize> = (0..allocs.len())
                    .filter(|&i| self.specs[allocs[i].0].spot && type_of(&allocs[i].1) == Some(t))
                    .collect();
                let held: u32 = spot.iter().map(|&i| allocs[i].1.len() as u32).sum();
                let free = free_of(t, &used);
                if free + held < need {
                    continue;
                }
                // The last arrived first.
                crate::order::sort_by(&mut spot, |&a, &b| {
                    let (ja, jb) = (allocs[a].0, allocs[b].0);
                    (self.specs[jb].arrival)
                        .total_cmp(&self.specs[ja].arrival)
                        .then(jb.cmp(&ja))
                });
                let mut room = free;
                for i in spot {
                    if room >= need {
                        break;
                    }
                    room += allocs[i].1.len() as u32;
                    for v in std::mem::take(&mut allocs[i].1) {
                        used[v as usize] -= 1;
                    }
                }
                // Its GPUs of the last tick if they are free, else the free ones in order.
                let mine = &self.states[w].allocation;
                let mut spare = used.clone();
                let keeps = mine.len() as u32 == need
                    && mine.iter().all(|&v| {
                        let v = v as usize;
                        let ok = self.vnodes.get(v).is_some_and(|x| x.1 == t)
                            && !away[v]
                            && spare[v] < self.gpus_per_node;
                        if ok {
                            spare[v] += 1;
                        }
                        ok
                    });
                let alloc = if keeps {
                    mine.clone()
                } else {
                    let mut alloc = Vec::with_capacity(need as usize);
                    for v in (0..n).filter(|&v| self.vnodes[v].1 == t && !away[v]) {
                        let take = self
                            .gpus_per_node
                            .saturating_sub(used[v])
                            .min(need - alloc.len() as u32);
                        alloc.extend(std::iter::repeat_n(v as u32, take as usize));
                    }
                    alloc
                };
                if alloc.len() as u32 == need {
                    for &v in &alloc {
                        used[v as usize] += 1;
                    }
                    allocs[k].1 = alloc;
                }
                break;
            }
        }
        allocs
    }
}
