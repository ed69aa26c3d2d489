//! Aryl: capacity loaning from an inference cluster to training, and elastic scaling of
//! training jobs by a multiple-choice knapsack.

pub mod knapsack;
pub mod reclaim;
pub mod scheduler;

use super::registry::{build_from, Registered};
use super::PolicyError;
use crate::sim::pooled::PooledPolicy;

/// A registered pooled policy.
pub type PooledPolicyInfo = Registered<dyn PooledPolicy>;

/// Policies for experiments with an inference pool.
pub fn policies() -> &'static [PooledPolicyInfo] {
    const LIST: &[PooledPolicyInfo] = &[Registered::new(
        "aryl",
        "aryl",
        "Aryl: idle inference servers loaned to training and reclaimed at least cost; elastic jobs scaled by a multiple-choice knapsack.",
        scheduler::PARAMS,
        scheduler::Aryl::build,
    )];
    LIST
}

/// Build a pooled (Aryl) policy from its spec: `aryl[loaning=true|false,elastic=true|false]`.
pub fn build(spec: &str) -> Result<Box<dyn PooledPolicy>, PolicyError> {
    build_from(policies(), spec)
}
