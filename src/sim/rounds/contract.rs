//! The contract of Gavel's rounds: the [`Policy`] trait its policies implement, what a
//! policy sees ([`PolicyView`]) and what it answers ([`Decision`]).

pub use super::rows::Rows;
use crate::model::cluster::{ClusterSpec, TypeIdx};
use crate::model::job::{JobId, JobSpec};
use crate::rng::Rng;
use crate::sim::{PolicyError, SimEvent};
use crate::workload::Colocation;

/// One active job as a policy sees it.
#[derive(Debug, Clone)]
pub struct JobView<'a> {
    /// The job's id.
    pub id: JobId,
    /// Its trace entry.
    pub spec: &'a JobSpec,
    /// Steps/s of the job (at its scale factor) on each GPU type; 0 where it cannot run.
    pub throughput: &'a [f64],
    /// Steps left.
    pub steps_remaining: f64,
    /// GPU-seconds received so far.
    pub attained_service: f64,
    /// Seconds since arrival.
    pub time_since_arrival: f64,
    /// Seconds run on each GPU type.
    pub time_on_type: &'a [f64],
    /// The type it ran on in the previous round, if it ran.
    pub running_on: Option<TypeIdx>,
    /// Rounds it has run in.
    pub rounds_run: u64,
}

impl JobView<'_> {
    /// Remaining time if run alone on its fastest type (the oracle duration).
    pub fn remaining_time_fastest(&self) -> f64 {
        let best = self.throughput.iter().cloned().fold(0.0, f64::max);
        if best > 0.0 {
            self.steps_remaining / best
        } else {
            f64::INFINITY
        }
    }

    /// Total duration if run alone on its fastest type.
    pub fn total_time_fastest(&self) -> f64 {
        let best = self.throughput.iter().cloned().fold(0.0, f64::max);
        if best > 0.0 {
            self.spec.total_steps / best
        } else {
            f64::INFINITY
        }
    }

    /// Scale factor (GPUs needed at once).
    pub fn scale(&self) -> u32 {
        self.spec.scale_factor
    }
}

/// What a policy sees: a borrowed snapshot of the world. Policies never mutate the simulator.
#[derive(Debug, Clone)]
pub struct PolicyView<'a> {
    /// Simulated time (s).
    pub now: f64,
    /// Round length (s).
    pub round_len: f64,
    /// The cluster.
    pub cluster: &'a ClusterSpec,
    /// Active (admitted, unfinished) jobs, by ascending id.
    pub jobs: Vec<JobView<'a>>,
    /// Colocated-pair throughputs (space sharing), by job id; `None` when the caller has
    /// none, which packing policies treat as no pair ever sharing GPUs.
    pub colocation: Option<&'a Colocation>,
    /// Gavel-compatible mode: heterogeneity-unaware LPs value every GPU type alike, even
    /// types where a job cannot run (as Gavel's do). Otherwise they value only the types
    /// where the job can run.
    pub gavel_compat: bool,
}

impl PolicyView<'_> {
    /// The row a heterogeneity-unaware policy uses for `job`: `value` on every type, or,
    /// outside Gavel-compatible mode, on the types where the job can run and 0 elsewhere.
    pub fn plain_row(&self, job: &JobView, value: f64) -> Vec<f64> {
        job.throughput
            .iter()
            .map(|&t| {
                if self.gavel_compat || t > 0.0 {
                    value
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// GPU counts per type.
    pub fn counts(&self) -> Vec<f64> {
        self.cluster
            .types
            .iter()
            .map(|t| f64::from(t.count))
            .collect()
    }
}

/// A policy's time fractions: for each listed job, the fraction of time it should spend on
/// each GPU type alone, and, for packing policies, for each listed pair of jobs the fraction
/// of time the two should share the same GPUs of each type (space sharing).
///
/// A job's time alone and in its pairs together is at most 1; a pair row uses the pair's
/// scale factor of GPUs once (both jobs run on the same GPUs). Pair rows are optional: an
/// allocation without them (and its serialised form, which then omits `pairs` and
/// `pair_fractions`) is exactly the single-job allocation.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Allocation {
    /// Job ids, one per row, ascending.
    pub jobs: Vec<JobId>,
    /// Row per job, column per GPU type.
    pub fractions: Rows,
    /// Pairs of jobs sharing GPUs, the lower id first, ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<(JobId, JobId)>,
    /// Row per pair, column per GPU type.
    #[serde(default, skip_serializing_if = "Rows::is_empty")]
    pub pair_fractions: Rows,
}

impl Allocation {
    /// The row of `job`, if present.
    pub fn row(&self, job: JobId) -> Option<&[f64]> {
        self.jobs
            .binary_search(&job)
            .ok()
            .and_then(|i| self.fractions.get(i))
    }

    /// The row of the pair of `a` and `b` (in either order), if present.
    pub fn pair_row(&self, a: JobId, b: JobId) -> Option<&[f64]> {
        let key = (a.min(b), a.max(b));
        self.pairs
            .binary_search(&key)
            .ok()
            .and_then(|i| self.pair_fractions.get(i))
    }
}

/// A direct placement: `job` runs on `gpus` GPUs of `gpu_type` this round.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// The job.
    pub job: JobId,
    /// GPU type.
    pub gpu_type: TypeIdx,
    /// Number of GPUs.
    pub gpus: u32,
    /// Exact GPU indices within the type, if the policy cares.
    pub gpu_ids: Option<Vec<u32>>,
    /// Batch size to use, for policies that adapt it.
    pub batch_size: Option<u32>,
}

/// A policy's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Priority order: the mechanism fills GPUs greedily in this order.
    Order(Vec<JobId>),
    /// Time fractions per job and GPU type, turned into rounds by the priority mechanism.
    Allocation(Allocation),
    /// Explicit placements.
    Assignment(Vec<Assignment>),
}

/// When the mechanism asks the policy for a new decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recompute {
    /// Every round.
    EveryRound,
    /// When the set of active jobs changed (and, in Gavel-compatible mode, at least the
    /// minimum reset interval has passed).
    OnJobSetChange,
}

/// Properties of a policy the mechanism needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyTraits {
    /// When to call [`Policy::decide`].
    pub recompute: Recompute,
    /// In Gavel-compatible mode, shuffle the GPU type order every round (Gavel does for
    /// policies that are not heterogeneity-aware).
    pub shuffle_types: bool,
    /// Let jobs with zero priority fill GPUs left over in a round.
    pub fill_with_zero_priority: bool,
    /// The policy allocates time to pairs of jobs sharing GPUs (space sharing): the
    /// mechanism keeps priorities for pairs and runs them.
    pub packing: bool,
}

impl Default for PolicyTraits {
    fn default() -> Self {
        PolicyTraits {
            recompute: Recompute::EveryRound,
            shuffle_types: false,
            fill_with_zero_priority: true,
            packing: false,
        }
    }
}

/// A scheduling policy.
pub trait Policy {
    /// The policy's spec, e.g. `max_min_fairness_perf` or `tiresias[threshold_gpu_h=8]`.
    fn name(&self) -> &str;
    /// Decide for the current round.
    fn decide(&mut self, view: &PolicyView, rng: &mut Rng) -> Result<Decision, PolicyError>;
    /// Observe a simulator event (stateful policies).
    fn observe(&mut self, _event: &SimEvent) {}
    /// What the mechanism needs to know about the policy.
    fn traits(&self) -> PolicyTraits {
        PolicyTraits::default()
    }
}
