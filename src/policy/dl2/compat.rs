//! DL2's own forms of its heuristics (its simulator's drf_env, fifo_env, srtf_env and
//! optimus_env), which the policies of this family follow in DL2-compatible mode
//! ([`crate::sim::slots::compat`]). Each slot starts from nothing; an action that does not
//! fit on the least-loaded server ends the slot's decisions, as the first failed
//! allocation ends DL2's. Ties between jobs go to the earlier arrival, then the lower id.
//!
//! - FIFO: jobs by arrival; the first gets a worker and a parameter server together (a
//!   bundle) again and again up to the cap (16), whatever that does to its speed, then the
//!   next.
//! - SRTF: the same, jobs ordered by the fraction of their work left (not their remaining
//!   time: size and speed play no part).
//! - DRF: progressive filling by bundles: the job of the smallest dominant share (0 before
//!   its first bundle) gets the next bundle, while it holds fewer than the cap of either.
//! - Optimus: single tasks by marginal gain. A job offers the task (worker or parameter
//!   server, the server on a tie) that cuts its remaining slots `R / e(p, w)` the most; a
//!   job with no worker offers one first, then a job with no parameter server; the best
//!   offer is taken while it cuts anything. A job whose offer is of a role at the cap drops
//!   out for the rest of the slot.

use crate::model::job::JobId;
use crate::sim::slots::{SlotAction, SlotView};

/// Whether job `id` can take another bundle under the caps.
fn below_caps(view: &SlotView, id: JobId) -> bool {
    view.jobs
        .get(id)
        .is_some_and(|j| j.workers < view.max_workers && j.ps < view.max_ps)
}

/// FIFO's next bundle.
pub fn fifo(view: &SlotView) -> SlotAction {
    view.active
        .iter()
        .copied()
        .find(|&id| below_caps(view, id))
        .map_or(SlotAction::Stop, SlotAction::AddBoth)
}

/// A bundle for the active job below the caps with the smallest `key`, the first in arrival
/// order on a tie (DL2's queues order by the key, then arrival, then job).
fn smallest(view: &SlotView, key: impl Fn(JobId) -> f64) -> SlotAction {
    let mut best: Option<(f64, JobId)> = None;
    for &id in view.active {
        if !below_caps(view, id) {
            continue;
        }
        let k = key(id);
        if best.is_none_or(|(b, _)| k < b) {
            best = Some((k, id));
        }
    }
    best.map_or(SlotAction::Stop, |(_, id)| SlotAction::AddBoth(id))
}

/// SRTF's next bundle: by the fraction of work left (`1 - progress / work`, as DL2 computes
/// it), then arrival.
pub fn srtf(view: &SlotView) -> SlotAction {
    smallest(view, |id| {
        let j = &view.jobs[id];
        1.0 - j.progress / j.total
    })
}

/// DRF's next bundle: the smallest dominant share, then arrival.
pub fn drf(view: &SlotView) -> SlotAction {
    smallest(view, |id| view.dominant_share(id))
}

/// The priority DL2's Optimus gives a job that lacks a worker or a parameter server
/// (`-numpy.iinfo(numpy.int32).max`): before any offer whose key is larger.
const FIRST: f64 = -2_147_483_647.0;

/// Optimus's state within a slot: the jobs that dropped out.
#[derive(Debug, Clone, Default)]
pub struct OptimusSlot {
    slot: Option<u64>,
    dropped: Vec<JobId>,
}

impl OptimusSlot {
    /// Job `id`'s offer: its key (lower first: minus the cut in slots) and whether it is a
    /// worker.
    fn offer(view: &SlotView, id: JobId) -> (f64, bool) {
        let j = &view.jobs[id];
        let (w, p) = (j.workers, j.ps);
        if w == 0 {
            return (FIRST, true);
        }
        if p == 0 {
            return (FIRST, false);
        }
        let epochs = |w: u32, p: u32| view.speed(id, w, p) * view.slot_s;
        let r = j.total - j.progress;
        let now = r / epochs(w, p);
        let worker = now - r / epochs(w + 1, p);
        let ps = now - r / epochs(w, p + 1);
        if ps >= worker {
            (-ps, false)
        } else {
            (-worker, true)
        }
    }

    /// The next task.
    pub fn act(&mut self, view: &SlotView) -> SlotAction {
        if self.slot != Some(view.slot) {
            self.slot = Some(view.slot);
            self.dropped.clear();
        }
        loop {
            let mut best: Option<(f64, JobId, bool)> = None;
            for &id in view.active.iter().filter(|id| !self.dropped.contains(id)) {
                let (key, worker) = Self::offer(view, id);
                let better = match best {
                    None => true,
                    Some((b, bid, _)) => key < b || (key == b && id < bid),
                };
                if better {
                    best = Some((key, id, worker));
                }
            }
            let Some((key, id, worker)) = best else {
                return SlotAction::Stop;
            };
            // Not a cut (or not a number): DL2's queue stops here.
            if key >= 0.0 || key.is_nan() {
                return SlotAction::Stop;
            }
            let j = &view.jobs[id];
            if (worker && j.workers >= view.max_workers) || (!worker && j.ps >= view.max_ps) {
                self.dropped.push(id);
                continue;
            }
            return if worker {
                SlotAction::AddWorker(id)
            } else {
                SlotAction::AddPs(id)
            };
        }
    }
}
