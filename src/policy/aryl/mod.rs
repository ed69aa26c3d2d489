//! Aryl: capacity loaning from an inference cluster to training, and elastic scaling of
//! training jobs by a multiple-choice knapsack.

pub mod knapsack;
pub mod reclaim;
pub mod scheduler;

use super::registry::{build_from, build_spec as build_spec_from, Registered};
use super::PolicyError;
use crate::policy::papers;
use crate::policy::registry::Variant;
use crate::policy::spec::Spec;
use crate::sim::pooled::PooledPolicy;

/// A registered pooled policy.
pub type PooledPolicyInfo = Registered<dyn PooledPolicy>;

/// Aryl's rows on the page: Aryl with its three ablations (its own row among them).
const VARIANTS: &[Variant] = &[
        Variant {
            spec: "aryl",
            fixed: &[],
            description: "Aryl: loans idle inference servers to training (loaning = yes), reclaims the loaned servers whose loss costs training least, and grows elastic jobs by a knapsack over predicted JCT reduction (elastic = yes).",
        },
        Variant {
            spec: "aryl[loaning=false]",
            fixed: &[("loaning", "false")],
            description: "Ablation: loaning = no (training servers only), elastic = yes.",
        },
        Variant {
            spec: "aryl[elastic=false]",
            fixed: &[("elastic", "false")],
            description: "Ablation: loaning = yes, elastic = no (every job runs at its minimum GPUs).",
        },
        Variant {
            spec: "aryl[elastic=false,loaning=false]",
            fixed: &[("elastic", "false"), ("loaning", "false")],
            description: "Ablation: loaning = no, elastic = no.",
        },
];

/// Policies for experiments with an inference pool.
pub fn policies() -> &'static [PooledPolicyInfo] {
    const LIST: &[PooledPolicyInfo] = &[Registered::new(
        "aryl",
        "aryl",
        &papers::ARYL,
        "Aryl: idle inference servers loaned to training and reclaimed at least cost; elastic jobs scaled by a multiple-choice knapsack.",
        scheduler::PARAMS,
        scheduler::Aryl::build,
    )
    .with_variants(VARIANTS)];
    LIST
}

/// Build a pooled (Aryl) policy from its spec: `aryl[loaning=true|false,elastic=true|false]`.
pub fn build(spec: &str) -> Result<Box<dyn PooledPolicy>, PolicyError> {
    build_from(policies(), spec)
}

/// [`build`] from a parsed spec.
pub fn build_spec(spec: &Spec) -> Result<Box<dyn PooledPolicy>, PolicyError> {
    build_spec_from(policies(), spec)
}
