//! Dominant resource fairness over GPUs and CPUs, one task at a time: the job with the
//! smallest dominant share (its GPUs over the cluster's or its CPUs over the cluster's,
//! whichever is larger) gets the task it needs most — a parameter server when that speeds
//! it up more than a worker, else a worker; the other when that one does not fit. Ties go
//! to the earlier arrival. It allocates until nothing fits, like DL2's DRF baseline, and
//! its decisions are what DL2's neural policy first learns to imitate.

use super::completing_action;
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView};

/// The DRF policy.
#[derive(Debug, Clone)]
pub struct Drf {
    name: String,
}

impl Drf {
    /// Build from a spec.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        Ok(Box::new(Drf {
            name: p.spec().to_string(),
        }))
    }
}

impl SlotPolicy for Drf {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SlotView, _rng: &mut Rng) -> SlotAction {
        if view.dl2_compat {
            return super::compat::drf(view);
        }
        let mut best: Option<(f64, SlotAction)> = None;
        for &id in view.active {
            let worker = SlotAction::AddWorker(id);
            let ps = SlotAction::AddPs(id);
            let (cw, cp) = (view.can(worker), view.can(ps));
            if !cw && !cp {
                continue;
            }
            let share = view.dominant_share(id);
            if best.is_some_and(|(b, _)| b <= share) {
                continue;
            }
            let action = match completing_action(view, id) {
                Some(a) => a,
                None => {
                    let j = &view.jobs[id];
                    let (w, p) = (j.workers, j.ps);
                    let ps_first = view.speed(id, w, p + 1) > view.speed(id, w + 1, p);
                    match (ps_first, cw, cp) {
                        (true, _, true) | (false, false, true) => ps,
                        _ => worker,
                    }
                }
            };
            best = Some((share, action));
        }
        best.map_or(SlotAction::Stop, |(_, a)| a)
    }
}
