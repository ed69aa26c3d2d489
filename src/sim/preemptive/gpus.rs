//! Which GPUs of its type each job holds. The mechanism counts GPUs by type and decides
//! with the counts alone; on top of them, a job that starts takes the lowest free GPU
//! indices of its type and gives them back when it releases its GPUs. The indices change
//! no decision: they say which servers a job runs on, so that a server's failure hits
//! exactly the jobs holding GPUs on it. They are kept as ranges, so a start or a release
//! costs the ranges it touches, not the GPUs (a 16,384-GPU job takes one range).

use crate::model::job::JobId;
use std::collections::BTreeMap;
use std::ops::Range;

/// The GPU indices of every type, free and held, as ranges.
#[derive(Debug, Clone, Default)]
pub struct GpuIds {
    /// Per type: the free ranges, start to end (exclusive), none adjacent to another.
    free: Vec<BTreeMap<u32, u32>>,
    /// Per type: the held ranges, start to end (exclusive) and holder.
    held: Vec<BTreeMap<u32, (u32, JobId)>>,
}

impl GpuIds {
    /// Every GPU free, `total[t]` of type `t`.
    pub fn new(total: &[u32]) -> Self {
        GpuIds {
            free: total
                .iter()
                .map(|&n| (n > 0).then_some((0, n)).into_iter().collect())
                .collect(),
            held: vec![BTreeMap::new(); total.len()],
        }
    }

    /// Job `job` takes the `n` lowest free GPUs of type `ty` (all the free ones if fewer
    /// are free): their ranges, in order.
    pub fn take(&mut self, ty: usize, n: u32, job: JobId) -> Vec<Range<u32>> {
        let mut out = Vec::new();
        let (Some(free), Some(held)) = (self.free.get_mut(ty), self.held.get_mut(ty)) else {
            return out;
        };
        let mut need = n;
        while need > 0 {
            let Some((a, b)) = free.pop_first() else {
                break;
            };
            let k = (b - a).min(need);
            if a + k < b {
                free.insert(a + k, b);
            }
            held.insert(a, (a + k, job));
            out.push(a..a + k);
            need -= k;
        }
        out
    }

    /// The ranges `ids` of type `ty` are free again.
    pub fn give_back(&mut self, ty: usize, ids: &[Range<u32>]) {
        let (Some(free), Some(held)) = (self.free.get_mut(ty), self.held.get_mut(ty)) else {
            return;
        };
        for r in ids.iter().filter(|r| r.start < r.end) {
            held.remove(&r.start);
            let (mut a, mut b) = (r.start, r.end);
            if let Some((&pa, &pb)) = free.range(..a).next_back() {
                if pb == a {
                    free.remove(&pa);
                    a = pa;
                }
            }
            if let Some(nb) = free.remove(&b) {
                b = nb;
            }
            free.insert(a, b);
        }
    }

    /// GPUs `gpus` of type `ty`, none of them held, leave the free ones (their server is
    /// away) until they are given back.
    pub fn withdraw(&mut self, ty: usize, gpus: Range<u32>) {
        let Some(free) = self.free.get_mut(ty) else {
            return;
        };
        let overlapping: Vec<(u32, u32)> = free
            .range(..gpus.end)
            .rev()
            .take_while(|(_, &b)| b > gpus.start)
            .map(|(&a, &b)| (a, b))
            .collect();
        for (a, b) in overlapping {
            free.remove(&a);
            if a < gpus.start {
                free.insert(a, gpus.start);
            }
            if b > gpus.end {
                free.insert(gpus.end, b);
            }
        }
    }

    /// The jobs holding GPUs of type `ty` among `gpus`, by id, each once.
    pub fn holders(&self, ty: usize, gpus: Range<u32>) -> Vec<JobId> {
        let Some(held) = self.held.get(ty) else {
            return Vec::new();
        };
        // Held ranges do not overlap: their ends grow with their starts.
        let mut jobs: Vec<JobId> = held
            .range(..gpus.end)
            .rev()
            .take_while(|(_, &(end, _))| end > gpus.start)
            .map(|(_, &(_, job))| job)
            .collect();
        crate::order::sort_by_key(&mut jobs, |&j| j);
        jobs.dedup();
        jobs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `job` takes: `n` GPUs of type `ty`, as (start, end) pairs.
    fn take(ids: &mut GpuIds, ty: usize, n: u32, job: JobId) -> Vec<(u32, u32)> {
        ids.take(ty, n, job)
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    /// The GPUs of type 0 in `pieces` back.
    fn back(ids: &mut GpuIds, pieces: &[(u32, u32)]) {
        let ranges: Vec<Range<u32>> = pieces.iter().map(|&(a, b)| a..b).collect();
        ids.give_back(0, &ranges);
    }

    #[test]
    fn jobs_take_the_lowest_free_gpus_and_give_them_back() {
        let mut ids = GpuIds::new(&[16, 0]);
        assert_eq!(take(&mut ids, 0, 4, 7), [(0, 4)]);
        assert_eq!(take(&mut ids, 0, 8, 3), [(4, 12)]);
        assert!(take(&mut ids, 1, 1, 5).is_empty());
        back(&mut ids, &[(0, 4)]);
        // The lowest free first: the hole, then past the second job.
        assert_eq!(take(&mut ids, 0, 6, 9), [(0, 4), (12, 14)]);
        assert_eq!(ids.holders(0, 8..16), [3, 9]);
        assert_eq!(ids.holders(0, 0..8), [3, 9]);
        assert!(ids.holders(0, 14..16).is_empty());
        back(&mut ids, &[(4, 12)]);
        back(&mut ids, &[(0, 4), (12, 14)]);
        // A server away: its GPUs are not taken until they are given back.
        ids.withdraw(0, 4..8);
        assert_eq!(take(&mut ids, 0, 6, 4), [(0, 4), (8, 10)]);
        back(&mut ids, &[(0, 4), (8, 10)]);
        back(&mut ids, &[(4, 8)]);
        // All free again, in one range.
        assert_eq!(take(&mut ids, 0, 16, 1), [(0, 16)]);
        assert_eq!(ids.holders(0, 15..16), [1]);
        // More than are free: what is free.
        assert!(take(&mut ids, 0, 1, 2).is_empty());
    }
}
