//! Spot jobs (Alibaba's `Spot` type) yield to high-priority jobs, whatever the policy: after
//! the policy's selection of a round, every high-priority job it leaves waiting (in arrival
//! order) takes GPUs from the spot jobs picked on a type it can run on, when the type's free
//! GPUs and theirs make room for it; the last-ranked spot jobs go first, and only as many as
//! it needs. The spot jobs it displaces wait, as the policy's own waiting jobs do; a spot
//! job that holds its GPUs while it restarts keeps them for that round.
//!
//! Without spot jobs in the workload the selection is the policy's, untouched.

use super::*;

impl Simulator {
    /// `picks` with the high-priority jobs left waiting placed on spot jobs' GPUs.
    pub(super) fn spot_jobs_yield(&self, mut picks: Vec<Pick>) -> Vec<Pick> {
        let spot = |p: &Pick| self.specs[p.0].spot || p.1.is_some_and(|b| self.specs[b].spot);
        if !picks.iter().any(spot) {
            return picks;
        }
        let mut picked = vec![false; self.specs.len()];
        let mut left: Vec<u32> = self.cluster.counts();
        // GPUs of each type held by picked spot jobs.
        let mut on_spot = vec![0u32; left.len()];
        for p in &picks {
            picked[p.0] = true;
            if let Some(b) = p.1 {
                picked[b] = true;
            }
            left[p.2] = left[p.2].saturating_sub(p.3);
            if spot(p) {
                on_spot[p.2] += p.3;
            }
        }
        let mut waiting: Vec<JobId> = self
            .active
            .iter()
            .copied()
            .filter(|&j| {
                !picked[j]
                    && !self.specs[j].spot
                    && self.states[j].admitted
                    && !self.states[j].is_done()
            })
            .collect();
        crate::order::sort_by(&mut waiting, |&a, &b| {
            self.specs[a]
                .arrival
                .total_cmp(&self.specs[b].arrival)
                .then(a.cmp(&b))
        });
        for j in waiting {
            if on_spot.iter().all(|&g| g == 0) {
                break;
            }
            let need = self.specs[j].scale_factor;
            // The job's fastest type where the free GPUs and the spot jobs' make room (ties
            // to the type listed first).
            let best = (0..left.len())
                .filter(|&t| self.thr[j][t] > 0.0 && left[t] + on_spot[t] >= need)
                .max_by(|&a, &b| self.thr[j][a].total_cmp(&self.thr[j][b]).then(b.cmp(&a)));
            let Some(t) = best else {
                continue;
            };
            // Displace the last-ranked spot jobs on the type until the job fits.
            while left[t] < need {
                let Some(i) = picks.iter().rposition(|p| p.2 == t && spot(p)) else {
                    break;
                };
                let p = picks.remove(i);
                left[t] += p.3;
                on_spot[t] -= p.3;
            }
            left[t] -= need;
            picks.push((j, None, t, need, true));
        }
        picks
    }
}
