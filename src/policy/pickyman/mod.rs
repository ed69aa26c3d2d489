//! PickyMan (IPCCC'22): preemptive scheduling that counts the cost of preempting, and the
//! overhead-blind preemptive and non-preemptive baselines it is measured against.
//!
//! These policies run in the preemptive simulator ([`crate::sim::preemptive`]), which
//! charges every suspension the rest of the victim's epoch and a checkpoint, and every
//! resumption a reload. PickyMan predicts execution times per job type from a few profiled
//! jobs ([`predict`]), predicts each suspension's cost with the overhead model, and picks
//! victims with [`victims::greedy`]. The baselines pick victims by priority alone.

pub mod baselines;
pub mod predict;
pub mod scheduler;
pub mod victims;

use super::registry::{build_from, build_spec as build_spec_from, Registered};
use super::PolicyError;
use crate::policy::papers;
use crate::policy::registry::Variant;
use crate::policy::spec::Spec;
use crate::sim::preemptive::PreemptivePolicy;

/// A registered preemptive policy.
pub type PreemptivePolicyInfo = Registered<dyn PreemptivePolicy>;

/// PickyMan's rows on the page beside its own: its overhead-blind form.
const VARIANTS: &[Variant] = &[Variant {
    spec: "pickyman[overhead_aware=false]",
    fixed: &[("overhead_aware", "false")],
    description: "Ablation: PickyMan's predictions with victims chosen blind to what suspending costs (longest predicted remaining first) and no test against waiting.",
}];

/// Policies for preemptive experiments, in listing order.
pub fn policies() -> &'static [PreemptivePolicyInfo] {
    const LIST: &[PreemptivePolicyInfo] = &[
        Registered::new(
            "pickyman",
            "pickyman",
            &papers::PICKYMAN,
            "PickyMan: shortest predicted remaining time first; to admit a waiting job it suspends the running jobs that lose the least time (epoch end, checkpoint, reload), and only when that beats waiting.",
            scheduler::PARAMS,
            scheduler::PickyMan::build,
        )
        .with_variants(VARIANTS),
        Registered::new(
            "srtf",
            "pickyman",
            &papers::SCHRAGE,
            "Preemptive shortest remaining time first (oracle); suspends the longest-remaining running jobs, blind to what suspending costs.",
            &[],
            baselines::Srtf::build,
        ),
        Registered::new(
            "las",
            "pickyman",
            &papers::TIRESIAS,
            "Preemptive least attained service in quanta of GPU-hours; suspends the running jobs with the most service, blind to what suspending costs.",
            baselines::LAS_PARAMS,
            baselines::Las::build,
        ),
        Registered::new(
            "fifo",
            "pickyman",
            &papers::GAVEL,
            "Non-preemptive first in, first out: the oldest waiting job starts when its GPUs are free, none overtakes it.",
            baselines::FIFO_PARAMS,
            baselines::Fifo::build,
        ),
    ];
    LIST
}

/// Build a preemptive policy from its spec.
pub fn build(spec: &str) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
    build_from(policies(), spec)
}

/// [`build`] from a parsed spec.
pub fn build_spec(spec: &Spec) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
    build_spec_from(policies(), spec)
}
