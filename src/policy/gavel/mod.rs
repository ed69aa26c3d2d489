//! Gavel's heterogeneity-aware policies (OSDI'20): LPs over the fraction of time each job
//! spends on each GPU type, turned into rounds by the mechanism's priorities.
//!
//! Every LP shares the variables `x[job][type] >= 0` and the base constraints of
//! [`solve::lp::Lp::base`]: for every type, `sum_j scale_j x[j][type] <= GPUs of the
//! type`; for every job, `sum_type x[j][type] <= 1`. LPs are solved by interior-point methods, which like
//! Gavel's ECOS end inside the optimal face when the optimum is not unique, which is what
//! makes Orrery's rounds match Gavel's: LPs with one row per job and at most one shared
//! variable by the structured method of [`solve::ipm`], the rest (and those it cannot finish) by
//! Clarabel (pure Rust, through good_lp).
//!
//! The `_packed` policies add space sharing: rows for pairs of jobs that share the same GPUs
//! at their colocated throughputs (see [`solve::packed`]).

pub mod allox;
pub mod fifo;
pub mod fifo_packed;
pub mod finish_time_fairness;
pub mod finish_time_fairness_packed;
pub mod gandiva;
pub mod hierarchical;
pub mod isolated;
pub mod max_min_fairness;
pub mod max_min_fairness_packed;
pub mod max_min_fairness_water_filling;
pub mod max_min_fairness_water_filling_packed;
pub mod max_sum_throughput;
pub mod max_sum_throughput_normalized_by_cost;
pub mod max_sum_throughput_normalized_by_cost_packed_slos;
pub mod min_total_duration;
pub mod min_total_duration_packed;
pub mod solve;

use super::{PolicyTraits, PolicyView, Recompute};
use crate::policy::papers;
use crate::policy::registry::{entry, PolicyInfo, NO_PARAMS};

/// Traits shared by Gavel's policies: recomputed when the job set changes; the plain
/// (heterogeneity-unaware) variants shuffle GPU types in Gavel-compatible mode.
pub(crate) fn traits(perf: bool) -> PolicyTraits {
    PolicyTraits {
        recompute: Recompute::OnJobSetChange,
        shuffle_types: !perf,
        fill_with_zero_priority: true,
        packing: false,
    }
}

/// The decision for an LP's result: the allocation over the view's jobs, or the solver's
/// complaint as a policy failure (the mechanism then keeps the previous allocation).
pub(crate) fn allocation(
    view: &PolicyView,
    policy: &str,
    solved: Result<Vec<Vec<f64>>, String>,
) -> Result<super::Decision, super::PolicyError> {
    let fractions = solved.map_err(|reason| super::PolicyError::Failed {
        policy: policy.to_string(),
        reason,
    })?;
    Ok(super::Decision::Allocation(super::Allocation {
        jobs: view.jobs.iter().map(|j| j.id).collect(),
        fractions: fractions.into(),
        ..Default::default()
    }))
}

/// The throughput matrix an LP uses: the real one for `_perf` policies; for plain ones every
/// type is valued at the job's throughput on the first GPU type of the cluster where it can
/// run (v100 in Gavel's clusters), so the LP cannot tell the types apart.
pub(crate) fn throughputs(view: &PolicyView, perf: bool) -> Vec<Vec<f64>> {
    view.jobs
        .iter()
        .map(|j| {
            if perf {
                j.throughput.to_vec()
            } else {
                let first = j
                    .throughput
                    .iter()
                    .copied()
                    .find(|&t| t > 0.0)
                    .unwrap_or(0.0);
                view.plain_row(j, first)
            }
        })
        .collect()
}

/// The isolated allocation: each job gets `1/n` of every type, divided by its scale
/// factor, with rows scaled down to sum to at most 1.
pub(crate) fn isolated_fractions(view: &PolicyView) -> Vec<Vec<f64>> {
    let m = view.jobs.len() as f64;
    let counts = view.counts();
    view.jobs
        .iter()
        .map(|j| {
            let s = f64::from(j.scale());
            let mut row: Vec<f64> = counts.iter().map(|n| n / m / s).collect();
            let sum: f64 = row.iter().sum();
            if sum > 1.0 {
                row.iter_mut().for_each(|x| *x /= sum);
            }
            row
        })
        .collect()
}

/// Test helpers: hand-made views.
/// The gavel family's round-based policies, in listing order (the catalog joins every
/// family's lists).
pub const POLICIES: &[PolicyInfo] = &[
        entry!("isolated", "gavel", &papers::GAVEL, "Gavel's isolated: each job gets a static 1/n share of every GPU type.", NO_PARAMS,
            |p| Ok(Box::new(isolated::Isolated::new(p.spec())))),
        entry!("max_min_fairness", "gavel", &papers::GAVEL, "Max-min fairness as an LP (what Gavel calls its LAS policy): maximise the least normalised share; all GPU types treated as equal.", max_min_fairness::PARAMS,
            |p| max_min_fairness::MaxMinFairness::build(p, false)),
        entry!("max_min_fairness_perf", "gavel", &papers::GAVEL, "Heterogeneity-aware max-min fairness: maximise the least throughput relative to an equal share.", max_min_fairness::PARAMS,
            |p| max_min_fairness::MaxMinFairness::build(p, true)),
        entry!("finish_time_fairness", "gavel", &papers::THEMIS, "Finish-time fairness (Themis) ignoring heterogeneity: minimise the largest rho.", NO_PARAMS,
            |p| Ok(Box::new(finish_time_fairness::FinishTimeFairness::new(p.spec(), false)))),
        entry!("finish_time_fairness_perf", "gavel", &papers::GAVEL, "Heterogeneity-aware finish-time fairness, the Themis-style policy: minimise the largest rho (a root search over rho with scaling LPs) instead of Themis' auctions.", NO_PARAMS,
            |p| Ok(Box::new(finish_time_fairness::FinishTimeFairness::new(p.spec(), true)))),
        entry!("min_total_duration", "gavel", &papers::GAVEL, "Minimise makespan (bisection over the completion time T) ignoring heterogeneity.", NO_PARAMS,
            |p| Ok(Box::new(min_total_duration::MinTotalDuration::new(p.spec(), false)))),
        entry!("min_total_duration_perf", "gavel", &papers::GAVEL, "Heterogeneity-aware makespan minimisation (bisection over T).", NO_PARAMS,
            |p| Ok(Box::new(min_total_duration::MinTotalDuration::new(p.spec(), true)))),
        entry!("max_sum_throughput_perf", "gavel", &papers::GAVEL, "Maximise the cluster's total throughput (steps/s), heterogeneity-aware.", NO_PARAMS,
            |p| Ok(Box::new(max_sum_throughput::MaxSumThroughput::new(p.spec())))),
        entry!("fifo", "gavel", &papers::GAVEL, "First in, first out: jobs in arrival order each get a GPU type with room, drawn at random (heterogeneity-unaware).", NO_PARAMS,
            |p| Ok(Box::new(fifo::GavelFifo::new(p.spec(), false)))),
        entry!("fifo_perf", "gavel", &papers::GAVEL, "Gavel's FIFO_Perf: jobs in arrival order each get the fastest GPU type with room.", NO_PARAMS,
            |p| Ok(Box::new(fifo::GavelFifo::new(p.spec(), true)))),
        entry!("max_min_fairness_packed", "gavel", &papers::GAVEL, "Max-min fairness with space sharing: pairs of jobs may share GPUs at their colocated throughputs.", max_min_fairness_packed::PARAMS,
            max_min_fairness_packed::MaxMinFairnessPacked::build),
        entry!("finish_time_fairness_packed", "gavel", &papers::GAVEL, "Finish-time fairness with space sharing: minimise the largest rho over single and paired time.", solve::packed::BISECTION_PARAMS,
            finish_time_fairness_packed::FinishTimeFairnessPacked::build),
        entry!("min_total_duration_packed", "gavel", &papers::GAVEL, "Makespan minimisation with space sharing (bisection over T).", solve::packed::BISECTION_PARAMS,
            min_total_duration_packed::MinTotalDurationPacked::build),
        entry!("fifo_packed", "gavel", &papers::GAVEL, "FIFO_Perf, then queued jobs packed onto placed ones whose pair's normalised throughput beats a threshold.", fifo_packed::PARAMS,
            fifo_packed::FifoPacked::build),
        entry!("allox", "gavel", &papers::ALLOX, "AlloX: waiting jobs matched to free GPUs at least total completion time (min-cost matching); a placed job keeps its GPU.", allox::PARAMS,
            allox::Allox::build),
        entry!("gandiva", "gavel", &papers::GANDIVA, "Gandiva: equal time slices; when oversubscribed, random pairs of equal-size jobs share GPUs, and pairs that slow down are split.", gandiva::PARAMS,
            gandiva::Gandiva::build),
        entry!("max_min_fairness_water_filling", "gavel", &papers::GAVEL, "Water-filling max-min fairness ignoring heterogeneity: repeated LPs raise every job, freezing the bottleneck jobs, until none can rise.", max_min_fairness_water_filling::PARAMS,
            |p| max_min_fairness_water_filling::WaterFilling::build(p, false)),
        entry!("max_min_fairness_water_filling_perf", "gavel", &papers::GAVEL, "Heterogeneity-aware water-filling max-min fairness: after the least share, the next least, and so on.", max_min_fairness_water_filling::PARAMS,
            |p| max_min_fairness_water_filling::WaterFilling::build(p, true)),
        entry!("hierarchical", "gavel", &papers::GAVEL, "Hierarchical water-filling: max-min fairness across entities by their weights, then fairness or FIFO within each entity.", hierarchical::PARAMS,
            hierarchical::Hierarchical::build),
        entry!("max_sum_throughput_normalized_by_cost_perf", "gavel", &papers::GAVEL, "Maximise total throughput per dollar (steps/s over each GPU type's price per hour).", NO_PARAMS,
            |p| Ok(Box::new(max_sum_throughput_normalized_by_cost::ThroughputPerCost::new(p.spec(), false)))),
        entry!("max_sum_throughput_normalized_by_cost_perf_slos", "gavel", &papers::GAVEL, "Throughput per dollar, with every job that has a deadline given the throughput it needs to meet it (dropped if infeasible).", NO_PARAMS,
            |p| Ok(Box::new(max_sum_throughput_normalized_by_cost::ThroughputPerCost::new(p.spec(), true)))),
        entry!("max_min_fairness_water_filling_packed", "gavel", &papers::GAVEL, "Water-filling max-min fairness with space sharing: pairs of jobs may share GPUs at their colocated throughputs.", max_min_fairness_water_filling_packed::PARAMS,
            max_min_fairness_water_filling_packed::WaterFillingPacked::build),
        entry!("max_sum_throughput_normalized_by_cost_packed_slos", "gavel", &papers::GAVEL, "Throughput per dollar with space sharing (a pair counts both jobs' colocated rates) and deadlines as throughput floors.", max_sum_throughput_normalized_by_cost_packed_slos::PARAMS,
            max_sum_throughput_normalized_by_cost_packed_slos::ThroughputPerCostPacked::build),
];

#[cfg(test)]
pub(crate) mod testing {
    use crate::model::cluster::ClusterSpec;
    use crate::model::job::JobSpec;
    use crate::policy::{JobView, PolicyView};

    /// Two jobs and their colocated throughputs per type: `(a, b, [(a's, b's)])`.
    pub type PairSpec<'a> = (usize, usize, &'a [(f64, f64)]);

    /// Two classes and their jobs' colocated throughputs per type: `((a, b), [(a's, b's)])`.
    pub type ClassPairSpec = ((u32, u32), Vec<(f64, f64)>);

    /// Owned data behind a view.
    pub struct World {
        pub cluster: ClusterSpec,
        pub specs: Vec<JobSpec>,
        pub thr: Vec<Vec<f64>>,
        pub time: Vec<Vec<f64>>,
        pub remaining: Vec<f64>,
        pub since: Vec<f64>,
        pub colocation: Option<crate::workload::Colocation>,
    }

    impl World {
        pub fn new(cluster: &str, jobs: &[(u32, &[f64])]) -> Self {
            let cluster = ClusterSpec::parse(cluster).unwrap();
            let n = cluster.num_types();
            World {
                specs: jobs
                    .iter()
                    .map(|(s, _)| JobSpec::new("t", 0.0, 1000.0).with_scale(*s))
                    .collect(),
                thr: jobs.iter().map(|(_, t)| t.to_vec()).collect(),
                time: vec![vec![0.0; n]; jobs.len()],
                remaining: vec![1000.0; jobs.len()],
                since: vec![0.0; jobs.len()],
                colocation: None,
                cluster,
            }
        }

        pub fn view(&self) -> PolicyView<'_> {
            PolicyView {
                now: 0.0,
                round_len: 360.0,
                cluster: &self.cluster,
                jobs: (0..self.specs.len())
                    .map(|i| JobView {
                        id: i,
                        spec: &self.specs[i],
                        throughput: &self.thr[i],
                        steps_remaining: self.remaining[i],
                        attained_service: 0.0,
                        time_since_arrival: self.since[i],
                        time_on_type: &self.time[i],
                        running_on: None,
                        rounds_run: 0,
                    })
                    .collect(),
                colocation: self.colocation.as_ref(),
                gavel_compat: false,
            }
        }

        /// Put jobs in colocation classes (`class_of[job]`) with colocated throughputs per
        /// pair of classes: `((a, b), [(a's, b's) per type])`.
        pub fn with_classes(mut self, class_of: &[u32], pairs: &[ClassPairSpec]) -> Self {
            self.colocation = Some(crate::workload::Colocation::from_classes(
                self.cluster.num_types(),
                class_of.to_vec(),
                pairs.iter().cloned(),
            ));
            self
        }

        /// Give pairs of jobs colocated throughputs: `(a, b, [(a's, b's) per type])`.
        pub fn with_pairs(mut self, pairs: &[PairSpec]) -> Self {
            self.colocation = Some(crate::workload::Colocation::from_rates(
                self.cluster.num_types(),
                self.specs.len(),
                pairs.iter().map(|(a, b, r)| ((*a, *b), r.to_vec())),
            ));
            self
        }
    }
}
