//! First in, first out: the oldest active job gets workers and parameter servers (one at a
//! time, the one that speeds it up more) while each speeds it up by at least `min_gain`;
//! then the next oldest, and so on.

use super::best_growth;
use crate::policy::registry::Params;
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView};

/// The FIFO policy.
#[derive(Debug, Clone)]
pub struct Fifo {
    name: String,
    min_gain: f64,
}

impl Fifo {
    /// Build from a spec.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        Ok(Box::new(Fifo {
            name: p.spec().to_string(),
            min_gain: p.f64("min_gain", 0.05, 0.0, 10.0)?,
        }))
    }
}

impl SlotPolicy for Fifo {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SlotView, _rng: &mut Rng) -> SlotAction {
        if view.dl2_compat {
            return super::compat::fifo(view);
        }
        view.active
            .iter()
            .find_map(|&id| best_growth(view, id, self.min_gain))
            .map_or(SlotAction::Stop, |(a, _)| a)
    }
}
