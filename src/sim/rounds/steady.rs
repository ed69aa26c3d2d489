//! Steady types: a round whose picks on a GPU type are the jobs the last round placed
//! there, each on the GPUs it ran on, leaves the type's owners as they are instead of
//! resetting them and claiming every GPU again.

use super::{Pick, Simulator};

impl Simulator {
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
