//! Shortest remaining time first with the oracle's remaining time (the job's steps left at
//! one worker and one parameter server, from its type's speed function): the shortest job
//! gets workers and parameter servers while each speeds it up by at least `min_gain`, then
//! the next shortest. Ties go to the earlier arrival.

use super::best_growth;
use crate::model::job::JobId;
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView};

/// The SRTF policy.
#[derive(Debug, Clone)]
pub struct Srtf {
    name: String,
    min_gain: f64,
}

impl Srtf {
    /// Build from a spec.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        Ok(Box::new(Srtf {
            name: p.spec().to_string(),
            min_gain: p.f64("min_gain", 0.05, 0.0, 10.0)?,
        }))
    }
}

impl SlotPolicy for Srtf {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SlotView, _rng: &mut Rng) -> SlotAction {
        if view.dl2_compat {
            return super::compat::srtf(view);
        }
        // `active` is in arrival order and the sort is stable: ties keep it.
        let mut order: Vec<(f64, JobId)> = view
            .active
            .iter()
            .map(|&id| (view.remaining_s(id, 1, 1), id))
            .collect();
        crate::order::sort_by(&mut order, |a, b| a.0.total_cmp(&b.0));
        order
            .iter()
            .find_map(|&(_, id)| best_growth(view, id, self.min_gain))
            .map_or(SlotAction::Stop, |(a, _)| a)
    }
}
