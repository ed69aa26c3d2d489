//! Gavel's heterogeneity-aware policies (OSDI'20): LPs over the fraction of time each job
//! spends on each GPU type, turned into rounds by the mechanism's priorities.
//!
//! Every LP shares the variables `x[job][type] >= 0` and the base constraints of
//! [`lp::Lp::base`]: for every type, `sum_j scale_j x[j][type] <= GPUs of the type`; for every
//! job, `sum_type x[j][type] <= 1`. LPs are solved by interior-point methods, which like
//! Gavel's ECOS end inside the optimal face when the optimum is not unique, which is what
//! makes Orrery's rounds match Gavel's: LPs with one row per job and at most one shared
//! variable by the structured method of [`ipm`], the rest (and those it cannot finish) by
//! Clarabel (pure Rust, through good_lp).
//!
//! The `_packed` policies add space sharing: rows for pairs of jobs that share the same GPUs
//! at their colocated throughputs (see [`packed`]).

pub mod allox;
pub mod fifo;
pub mod fifo_packed;
pub mod finish_time_fairness;
pub mod finish_time_fairness_packed;
pub mod gandiva;
pub mod hierarchical;
pub mod ipm;
pub mod isolated;
pub mod job_classes;
pub mod lp;
pub mod max_min_fairness;
pub mod max_min_fairness_packed;
pub mod max_min_fairness_water_filling;
pub mod max_min_fairness_water_filling_packed;
pub mod max_sum_throughput;
pub mod max_sum_throughput_normalized_by_cost;
pub mod max_sum_throughput_normalized_by_cost_packed_slos;
pub mod min_total_duration;
pub mod min_total_duration_packed;
pub mod packed;
pub mod partner_classes;
mod rho_root;

use super::{PolicyTraits, PolicyView, Recompute};

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
        fractions,
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
#[cfg(test)]
pub(crate) mod testing {
    use crate::cluster::ClusterSpec;
    use crate::job::JobSpec;
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
