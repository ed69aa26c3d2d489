//! GPU placement within one type: gang placement consolidated on as few servers as possible,
//! keeping a job on its previous GPUs when they are free.

use crate::model::job::{GpuIds, JobId};
use smallvec::SmallVec;

/// GPU ids being chosen: up to eight inline.
type Chosen = SmallVec<[u32; 8]>;

/// Who holds a GPU, in four bytes (a round in which anything on a type moves resets and
/// claims every GPU of it, so the owners' size is the rounds' memory traffic): [`FREE`],
/// [`BLOCKED`] or job `j` as `j + 1`.
pub type Owner = u32;

/// A GPU nobody holds.
pub const FREE: Owner = 0;

/// A GPU whose server is away for repair (or whose spot instance is not held).
const BLOCKED: Owner = u32::MAX;

/// The owner cell of `job` (ids beyond four billion, which no simulation reaches, share
/// the last cell: only who holds a GPU for display depends on it).
fn owner_of(job: JobId) -> Owner {
    u32::try_from(job)
        .ok()
        .and_then(|j| j.checked_add(1))
        .filter(|&c| c != BLOCKED)
        .unwrap_or(BLOCKED - 1)
}

/// The job holding a GPU with owner cell `o` (None when free; a blocked GPU is free).
pub fn holder(o: Owner) -> Option<JobId> {
    (o != FREE && o != BLOCKED).then(|| (o - 1) as JobId)
}

/// The GPUs of one type during a round.
#[derive(Debug, Clone)]
pub struct TypePool {
    per_server: u32,
    owner: Vec<Owner>,
    free: u32,
    /// Every GPU below this index is taken (GPUs are only taken during a round).
    first_free: usize,
    /// Whether any GPU was made unavailable ([`TypePool::block`]).
    blocked: bool,
}

impl TypePool {
    /// `count` free GPUs, `per_server` to a server.
    pub fn new(count: u32, per_server: u32) -> Self {
        TypePool::reuse(Vec::new(), count, per_server)
    }

    /// [`TypePool::new`] holding its owners in `owner` (cleared; its capacity reused).
    pub fn reuse(mut owner: Vec<Owner>, count: u32, per_server: u32) -> Self {
        owner.clear();
        owner.resize(count as usize, FREE);
        TypePool {
            per_server: per_server.max(1),
            owner,
            free: count,
            first_free: 0,
            blocked: false,
        }
    }

    /// The pool as the last round left it, `held` of its GPUs still taken by the jobs that
    /// keep them (and nothing blocked): a round whose jobs all keep their GPUs claims none
    /// of them again.
    pub fn kept(owner: Vec<Owner>, per_server: u32, held: u32) -> Self {
        TypePool {
            per_server: per_server.max(1),
            free: (owner.len() as u32).saturating_sub(held),
            owner,
            first_free: 0,
            blocked: false,
        }
    }

    /// Free GPUs left.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// Who holds each GPU, consuming the pool (blocked GPUs free again).
    pub fn into_owners(mut self) -> Vec<Owner> {
        if self.blocked {
            for o in &mut self.owner {
                if *o == BLOCKED {
                    *o = FREE;
                }
            }
        }
        self.owner
    }

    /// Makes the free GPUs among `ids` unavailable for this round (their server is away
    /// for repair).
    pub fn block(&mut self, ids: impl IntoIterator<Item = u32>) {
        for i in ids {
            if let Some(o @ &mut FREE) = self.owner.get_mut(i as usize) {
                *o = BLOCKED;
                self.free -= 1;
                self.blocked = true;
            }
        }
    }

    /// Take exactly `ids` for `job` if they are all free (and distinct).
    pub fn take_exact(&mut self, job: JobId, ids: &[u32]) -> bool {
        // Claim them in order, in one pass over the gang (however large); an id that is
        // taken, missing or met twice (claimed the first time) takes the claims back.
        let cell = owner_of(job);
        for (k, &i) in ids.iter().enumerate() {
            match self.owner.get_mut(i as usize) {
                Some(o @ &mut FREE) => *o = cell,
                _ => {
                    for &r in &ids[..k] {
                        self.owner[r as usize] = FREE;
                    }
                    return false;
                }
            }
        }
        self.free -= ids.len() as u32;
        true
    }

    /// Take `n` GPUs for `job` on as few servers as possible: the fullest server that still
    /// fits the whole job if there is one (best fit), else the servers with the most free GPUs
    /// first. Returns the GPU ids, sorted; `None` if fewer than `n` are free.
    pub fn take(&mut self, job: JobId, n: u32) -> Option<GpuIds> {
        if n == 0 || n > self.free {
            return None;
        }
        let ps = self.per_server as usize;
        if ps == 1 {
            // One GPU per server: the lowest free ids.
            let mut ids = Chosen::with_capacity(n as usize);
            let cell = owner_of(job);
            for (g, o) in self.owner.iter_mut().enumerate().skip(self.first_free) {
                if *o == FREE {
                    *o = cell;
                    ids.push(g as u32);
                    if ids.len() as u32 == n {
                        self.first_free = g + 1;
                        break;
                    }
                }
            }
            self.free -= n;
            return Some(GpuIds::from(ids.as_slice()));
        }
        let servers = self.owner.len().div_ceil(ps);
        let free_on = |s: usize, owner: &[Owner]| {
            owner[s * ps..((s + 1) * ps).min(owner.len())]
                .iter()
                .filter(|&&o| o == FREE)
                .count() as u32
        };
        // Best fit on one server; else the servers with the most free GPUs first.
        let mut best: Option<(u32, usize)> = None;
        for s in 0..servers {
            let f = free_on(s, &self.owner);
            if f >= n && best.is_none_or(|(bf, _)| f < bf) {
                best = Some((f, s));
            }
        }
        let mut ids = Chosen::with_capacity(n as usize);
        let take_from = |s: usize, ids: &mut Chosen| {
            for g in s * ps..((s + 1) * ps).min(self.owner.len()) {
                if self.owner[g] == FREE {
                    ids.push(g as u32);
                    if ids.len() as u32 == n {
                        return true;
                    }
                }
            }
            false
        };
        if let Some((_, s)) = best {
            take_from(s, &mut ids);
        } else {
            let mut by_free: Vec<(u32, usize)> = (0..servers)
                .map(|s| (free_on(s, &self.owner), s))
                .filter(|(f, _)| *f > 0)
                .collect();
            crate::order::sort_by(&mut by_free, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut got = 0;
            let mut chosen_servers: Vec<usize> = Vec::new();
            for (f, s) in by_free {
                chosen_servers.push(s);
                got += f;
                if got >= n {
                    break;
                }
            }
            chosen_servers.sort_unstable();
            for s in chosen_servers {
                if take_from(s, &mut ids) {
                    break;
                }
            }
        }
        let cell = owner_of(job);
        for &g in &ids {
            self.owner[g as usize] = cell;
        }
        self.free -= n;
        Some(GpuIds::from(ids.as_slice()))
    }

    /// Number of distinct servers the given GPUs span.
    pub fn servers_spanned(&self, ids: &[u32]) -> usize {
        let mut s: Vec<u32> = ids.iter().map(|g| g / self.per_server).collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consolidates_and_keeps() {
        let mut p = TypePool::new(8, 4);
        assert_eq!(p.take(0, 1).as_deref(), Some(&[0][..]));
        // A 4-GPU job goes to the empty server, not across both.
        assert_eq!(p.take(1, 4).as_deref(), Some(&[4, 5, 6, 7][..]));
        // A 2-GPU job fits the first server (3 free).
        assert_eq!(p.take(2, 2).as_deref(), Some(&[1, 2][..]));
        assert_eq!(p.free(), 1);
        assert_eq!(p.take(3, 2), None);
        let mut p = TypePool::new(8, 4);
        assert!(p.take_exact(5, &[6, 7]));
        assert!(!p.take_exact(6, &[7]));
        // An id twice is refused, and the ids claimed before it are free again.
        assert!(!p.take_exact(8, &[4, 5, 4]));
        assert!(p.take_exact(9, &[4, 5]));
        assert_eq!(p.free(), 4);
        // 4 GPUs across servers: the emptier server first.
        let ids = p.take(7, 4).unwrap();
        assert_eq!(p.servers_spanned(&ids), 1);
        assert_eq!(ids.as_slice(), [0, 1, 2, 3]);
        let owners: Vec<Option<JobId>> = p.into_owners().into_iter().map(holder).collect();
        assert_eq!(
            owners,
            [7, 7, 7, 7, 9, 9, 5, 5].map(Some),
            "who holds each GPU, by job id"
        );
        // Blocked GPUs are free again once the round is over; job 0 is not "free".
        let mut p = TypePool::new(4, 2);
        p.block([1, 2]);
        assert_eq!(p.free(), 2);
        assert_eq!(p.take(0, 2).as_deref(), Some(&[0, 3][..]));
        let owners: Vec<Option<JobId>> = p.into_owners().into_iter().map(holder).collect();
        assert_eq!(owners, [Some(0), None, None, Some(0)]);
    }
}
