//! Aryl: capacity loaning from an inference cluster to training, and elastic scaling of
//! training jobs by a multiple-choice knapsack.

pub mod knapsack;
pub mod reclaim;
pub mod scheduler;

use super::registry::checked_params;
use super::{parse_spec, PolicyError};
use crate::sim::pooled::PooledPolicy;

/// Build a pooled (Aryl) policy from its spec: `aryl[loaning=true|false,elastic=true|false]`.
pub fn build(spec: &str) -> Result<Box<dyn PooledPolicy>, PolicyError> {
    let (name, _) = parse_spec(spec)?;
    if name != "aryl" {
        return Err(PolicyError::Unknown(name));
    }
    scheduler::Aryl::build(&checked_params(spec, scheduler::PARAMS)?)
}
