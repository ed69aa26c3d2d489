//! Pollux (OSDI'21): goodput-optimised co-adaptive scheduling of elastic jobs, and the two
//! baselines of its evaluation, Tiresias and Optimus+Oracle, as that evaluation ran them.
//!
//! These policies run in the elastic simulator ([`crate::sim::elastic`]): they see jobs
//! with their applications, epochs, progress and fitted models, and answer with a list of
//! server ids per job, one entry per GPU (the order decides which servers a placement
//! lists first). They are built from `name[k=v,...]` specs by [`build`] and listed by
//! [`policies`].

pub mod ga;
pub mod goodput;
mod lbfgs;
pub mod optimus;
pub mod per_type;
pub mod scheduler;
pub mod tiresias;

use super::registry::{build_from, Registered};
use super::PolicyError;
use crate::job::{JobId, JobSpec};
use crate::rng::Rng;
use crate::sim::elastic::ElasticJobState;
use crate::workload::ElasticApp;

/// One active elastic job as a policy sees it.
#[derive(Debug, Clone)]
pub struct ElasticJobView<'a> {
    /// The job's id.
    pub id: JobId,
    /// Its trace entry (the user's GPU count and batch size).
    pub spec: &'a JobSpec,
    /// Its application.
    pub app: &'a ElasticApp,
    /// Its state in the simulator (allocation, epoch, progress, fitted model, restarts).
    pub state: &'a ElasticJobState,
    /// Seconds since submission.
    pub age: f64,
}

/// What an elastic policy sees.
#[derive(Debug, Clone)]
pub struct ElasticView<'a> {
    /// Simulated time (s).
    pub now: f64,
    /// Servers.
    pub num_nodes: u32,
    /// GPUs per server.
    pub gpus_per_node: u32,
    /// GPU type of each server (index into `gpu_types`); servers of a type are contiguous.
    pub node_types: &'a [usize],
    /// The real server each (virtual) server is part of: a server of 8 GPUs on a cluster
    /// whose smallest servers have 4 is two servers of the view with one real server.
    pub node_servers: &'a [u32],
    /// The experiment's restart delay of jobs without their own (s).
    pub restart_s: f64,
    /// GPU type names, in cluster order.
    pub gpu_types: &'a [String],
    /// Active jobs by ascending id (submission order for Pollux workloads).
    pub jobs: Vec<ElasticJobView<'a>>,
}

impl ElasticView<'_> {
    /// Total GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.num_nodes * self.gpus_per_node
    }
}

/// Why each job got what it got in a policy's last decision: the configurations it
/// weighed (GPU type and count) and each job's goodput in every one of them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Explanation {
    /// The configurations: GPU type (index into the cluster's types) and GPU count.
    pub configs: Vec<(usize, u32)>,
    /// The jobs decided for (a job still paying its restart delay keeps its GPUs and is
    /// not among them).
    pub jobs: Vec<Weighed>,
}

/// One job's row of an [`Explanation`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Weighed {
    /// The job.
    pub job: JobId,
    /// Goodput in every configuration (examples per second, discounted by statistical
    /// efficiency at the best batch size; 0 where not offered).
    pub goodputs: Vec<f64>,
    /// What each configuration costs in the policy's objective.
    pub costs: Vec<f64>,
    /// The configuration chosen, if any.
    pub chosen: Option<usize>,
}

impl Explanation {
    /// The row of job `job`.
    pub fn job(&self, job: JobId) -> Option<&Weighed> {
        self.jobs.iter().find(|w| w.job == job)
    }
}

/// A policy for elastic jobs.
pub trait ElasticPolicy {
    /// Its spec.
    fn name(&self) -> &str;
    /// Whether jobs adapt their batch size to their allocation under this policy (if not,
    /// each job keeps the batch size of its trace entry).
    fn adapts_batch(&self) -> bool;
    /// Server ids per active job (one entry per GPU), in the order of `view.jobs`.
    fn decide(&mut self, view: &ElasticView, rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError>;
    /// Whether jobs keep a throughput model per GPU type (fitted to the step times seen on
    /// that type) and pick their batch size with the model of the type they run on;
    /// otherwise one model is fitted to every step time, whatever the type.
    fn per_type_models(&self) -> bool {
        false
    }
    /// Why the last decision gave each job what it got, for policies that weigh every
    /// configuration of every job.
    fn explanation(&self) -> Option<&Explanation> {
        None
    }
}

/// A registered elastic policy.
pub type ElasticPolicyInfo = Registered<dyn ElasticPolicy>;

/// Policies for elastic workloads (a profile of elastic applications), in listing order.
pub fn policies() -> &'static [ElasticPolicyInfo] {
    const LIST: &[ElasticPolicyInfo] = &[
        Registered::new(
            "pollux",
            "pollux",
            "Pollux: GPU counts, placements and batch sizes chosen for goodput by a genetic algorithm over the cluster; fairness as a power mean of speedups over the fair share.",
            scheduler::PARAMS,
            scheduler::Pollux::build,
        ),
        Registered::new(
            "tiresias",
            "pollux",
            "Tiresias as Pollux's evaluation ran it: two-queue discretised LAS (16 GPU-hours), each job with its user's GPU count and batch size, all or nothing.",
            tiresias::PARAMS,
            tiresias::Tiresias::build,
        ),
        Registered::new(
            "optimus",
            "pollux",
            "Optimus+Oracle: fixed batch sizes; GPUs given one at a time to the job whose remaining time drops most.",
            &[],
            optimus::Optimus::build,
        ),
        Registered::new(
            "sia",
            "sia",
            "Sia: every interval, each job's goodput in every GPU type x count from per-type models, normalised per job; an integer program picks one configuration per job within each type's GPUs (sum of goodput^p, p = -0.5, lambda_n for a job left out); batch sizes tuned per type.",
            crate::policy::sia::PARAMS,
            crate::policy::sia::Sia::build,
        ),
    ];
    LIST
}

/// Build an elastic policy from its spec.
pub fn build(spec: &str) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
    build_from(policies(), spec)
}

/// Greedy placement used by Tiresias and Optimus in Pollux's simulator: take GPUs from the
/// server with the most free GPUs (ties to the lowest id) until `count` are placed.
/// `free` lists (server, free GPUs) in server order; servers that fill up stay listed.
pub(crate) fn place_most_free(free: &mut [(u32, u32)], count: u32) -> Vec<u32> {
    let mut alloc = Vec::with_capacity(count as usize);
    while (alloc.len() as u32) < count {
        let mut best: Option<usize> = None;
        for (i, &(_, f)) in free.iter().enumerate() {
            if best.is_none_or(|b| f > free[b].1) {
                best = Some(i);
            }
        }
        let Some(b) = best else { break };
        let (node, f) = free[b];
        if f == 0 {
            break;
        }
        let take = f.min(count - alloc.len() as u32);
        alloc.extend(std::iter::repeat_n(node, take as usize));
        free[b].1 -= take;
    }
    alloc
}

/// Free GPUs per server after the kept allocations, as (server, free) for servers with
/// at least one free GPU, in server order.
pub(crate) fn free_map(view: &ElasticView, kept: &[Vec<u32>]) -> Vec<(u32, u32)> {
    let mut used = vec![0u32; view.num_nodes as usize];
    for a in kept {
        for &n in a {
            if let Some(u) = used.get_mut(n as usize) {
                *u += 1;
            }
        }
    }
    used.iter()
        .enumerate()
        .filter(|(_, &u)| u < view.gpus_per_node)
        .map(|(n, &u)| (n as u32, view.gpus_per_node - u))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_free_placement_prefers_emptier_then_lower_servers() {
        let mut free = vec![(0, 2), (1, 4), (2, 4)];
        assert_eq!(place_most_free(&mut free, 6), vec![1, 1, 1, 1, 2, 2]);
        assert_eq!(free, vec![(0, 2), (1, 0), (2, 2)]);
        assert_eq!(place_most_free(&mut free, 3), vec![0, 0, 2]);
        assert_eq!(place_most_free(&mut free, 5), vec![2]);
    }
}
