//! Optimus's greedy allocation as DL2 compares with it: every action is the one task (a
//! worker or a parameter server) that cuts some job's remaining time the most, over all
//! active jobs, measured with the job's speed function (Optimus fits that function online;
//! here it is known). A job lacking a worker or a parameter server gets it first. It stops
//! when no task cuts any job's remaining time. Ties go to the earlier arrival, then to a
//! worker.

use super::completing_action;
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView};

/// The Optimus policy.
#[derive(Debug, Clone)]
pub struct Optimus {
    name: String,
    /// DL2's form's state within a slot.
    compat: super::compat::OptimusSlot,
}

impl Optimus {
    /// Build from a spec.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        Ok(Box::new(Optimus {
            name: p.spec().to_string(),
            compat: Default::default(),
        }))
    }
}

impl SlotPolicy for Optimus {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SlotView, _rng: &mut Rng) -> SlotAction {
        if view.dl2_compat {
            return self.compat.act(view);
        }
        let mut best: Option<(f64, SlotAction)> = None;
        for &id in view.active {
            if let Some(a) = completing_action(view, id) {
                return a;
            }
            let j = &view.jobs[id];
            let (w, p) = (j.workers, j.ps);
            let now = view.remaining_s(id, w, p);
            for a in [SlotAction::AddWorker(id), SlotAction::AddPs(id)] {
                let (dw, dp) = a.adds();
                let cut = now - view.remaining_s(id, w + dw, p + dp);
                if cut > 0.0 && best.is_none_or(|(b, _)| cut > b) && view.can(a) {
                    best = Some((cut, a));
                }
            }
        }
        best.map_or(SlotAction::Stop, |(_, a)| a)
    }
}
