//! A round's picks turned into GPU ids ([`Simulator::place`]): jobs keep their last GPUs
//! when they are free, the others are consolidated on as few servers as possible. A round
//! whose picks on a GPU type are the jobs the last round placed there, each on the GPUs it
//! ran on, leaves the type's owners as they are instead of resetting them and claiming
//! every GPU again (steady types).

use super::placement::TypePool;
use super::{Pick, Simulator};
use crate::model::job::{JobId, Placement};

impl Simulator {
    /// Turn picks into GPU ids: per type, largest jobs first; a job (or a pair) keeps its
    /// previous GPUs when they are all free, otherwise it is consolidated on as few servers as
    /// possible. Both jobs of a pair get the same GPUs.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn place(
        &mut self,
        mut picks: Vec<Pick>,
    ) -> Vec<(JobId, Option<JobId>, Placement, bool)> {
        crate::order::sort_by(&mut picks, |a, b| a.2.cmp(&b.2).then(b.3.cmp(&a.3)));
        // Servers are away only with a repair time (else a spare takes a failed one's place).
        let down: Vec<Vec<u32>> = match self.faults.as_ref().filter(|f| f.repair_s() > 0.0) {
            Some(f) => (self.cluster.types.iter().enumerate())
                .map(|(t, ty)| f.down_gpus(t, ty.count, self.now))
                .collect(),
            None => Vec::new(),
        };
        let steady = self.steady_types(&picks, &down);
        #[cfg(test)]
        {
            self.steady_rounds += usize::from(steady.iter().any(Option::is_some));
        }
        // The pools hold their owners in last round's vectors (read no more this round);
        // a steady type's pool keeps them as they are.
        let mut storage = std::mem::take(&mut self.last_owners).into_iter();
        let mut pools: Vec<TypePool> = self
            .cluster
            .types
            .iter()
            .zip(&steady)
            .map(|(t, held)| match held {
                Some(held) => {
                    TypePool::kept(storage.next().unwrap_or_default(), t.per_server, *held)
                }
                None => TypePool::reuse(storage.next().unwrap_or_default(), t.count, t.per_server),
            })
            .collect();
        for (pool, d) in pools.iter_mut().zip(&down) {
            pool.block(d.iter().copied());
        }
        // Spot types: the GPUs of instances the trace does not hold now are not placed (the
        // highest ids go first); a job on them, or on one the trace takes back now (even if
        // an instance added now takes its place), is preempted.
        for (t, trace) in &self.cfg.spot {
            let ty = &self.cluster.types[*t];
            let per = ty.per_server.max(1);
            let held = trace.at(self.now).saturating_mul(per);
            pools[*t].block(held.min(ty.count)..ty.count);
            let kept = trace.kept_at(self.now).saturating_mul(per);
            // A job whose instance was taken back starts again on a new one (it pays its
            // restart wherever it runs next).
            for &j in &self.active {
                let st = &mut self.states[j];
                let lost = st
                    .last_placement
                    .as_ref()
                    .is_some_and(|p| p.gpu_type == *t && p.gpus.iter().any(|&g| g >= kept));
                if lost {
                    st.last_placement = None;
                    if st.ran_last_round {
                        self.scratch.spot_lost.push(j);
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(picks.len());
        let mut deferred = std::mem::take(&mut self.scratch.deferred);
        deferred.clear();
        for (j, partner, t, s, runs) in picks {
            let last = match partner {
                None => self.states[j].last_placement.as_ref(),
                Some(b) => self
                    .mech
                    .pairs
                    .get(&(j, b))
                    .and_then(|m| m.last_placement.as_ref()),
            };
            let keep = last
                .filter(|p| p.gpu_type == t && p.gpus.len() as u32 == s)
                .map(|p| p.gpus.clone());
            match keep {
                Some(ids) if steady[t].is_some() || pools[t].take_exact(j, &ids) => out.push((
                    j,
                    partner,
                    Placement {
                        gpu_type: t,
                        gpus: ids,
                    },
                    runs,
                )),
                _ => deferred.push((j, partner, t, s, runs)),
            }
        }
        for (j, partner, t, s, runs) in deferred.drain(..) {
            if let Some(ids) = pools[t].take(j, s) {
                out.push((
                    j,
                    partner,
                    Placement {
                        gpu_type: t,
                        gpus: ids,
                    },
                    runs,
                ));
            }
        }
        self.scratch.deferred = deferred;
        self.last_owners = pools.into_iter().map(TypePool::into_owners).collect();
        if self.traits.packing {
            for (row, owners) in self.last_sharers.iter_mut().zip(&self.last_owners) {
                row.clear();
                row.resize(owners.len(), None);
            }
            for (_, partner, p, _) in &out {
                if let Some(b) = partner {
                    for &g in &p.gpus {
                        self.last_sharers[p.gpu_type][g as usize] = Some(*b);
                    }
                }
            }
        }
        // Job ids are unique.
        out.sort_unstable_by_key(|(j, _, _, _)| *j);
        self.last_placed.clear();
        self.last_placed.extend(
            out.iter()
                .map(|(j, b, p, _)| (*j, *b, p.gpu_type, p.gpus.len() as u32)),
        );
        out
    }

    /// Per type, whether the round leaves its GPUs' owners as the last round did, and then
    /// how many GPUs they hold: its picks are exactly the jobs the last round placed there,
    /// each running on the GPUs it ran on then, alone (no pairs), with none of the type's
    /// GPUs away. Each would claim its last GPUs again and find them free, so the claims
    /// are skipped (a 16,384-GPU gang's would be most of a round).
    pub(super) fn steady_types(&self, picks: &[Pick], down: &[Vec<u32>]) -> Vec<Option<u32>> {
        let types = self.cluster.types.len();
        #[cfg(test)]
        if self.claim_all {
            return vec![None; types];
        }
        let mut held: Vec<Option<u32>> = vec![Some(0); types];
        let mut placed_on = vec![0usize; types];
        for &(_, partner, t, s) in &self.last_placed {
            if let Some(h) = held.get_mut(t) {
                placed_on[t] += 1;
                *h = if partner.is_some() {
                    None
                } else {
                    h.map(|h| h + s)
                };
            }
        }
        for (t, h) in held.iter_mut().enumerate() {
            let blocked = self.cfg.spot.iter().any(|(st, _)| *st == t)
                || down.get(t).is_some_and(|d| !d.is_empty());
            if blocked {
                *h = None;
            }
        }
        let mut picked_on = vec![0usize; types];
        for &(j, partner, t, s, _) in picks {
            let Some(h) = held.get_mut(t) else { continue };
            picked_on[t] += 1;
            let st = &self.states[j];
            let same = partner.is_none()
                && st.ran_last_round
                && st
                    .last_placement
                    .as_ref()
                    .is_some_and(|p| p.gpu_type == t && p.gpus.len() as u32 == s)
                && self
                    .last_placed
                    .binary_search_by_key(&j, |e| e.0)
                    .is_ok_and(|i| self.last_placed[i] == (j, None, t, s));
            if !same {
                *h = None;
            }
        }
        for (t, h) in held.iter_mut().enumerate() {
            if placed_on[t] != picked_on[t] {
                *h = None;
            }
        }
        held
    }
}
