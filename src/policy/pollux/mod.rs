//! Pollux (OSDI'21): goodput-optimised co-adaptive scheduling of elastic jobs, and the two
//! baselines of its evaluation, Tiresias and Optimus+Oracle, as that evaluation ran them.
//!
//! These policies run in the elastic simulator ([`crate::sim::elastic`]): they see jobs
//! with their applications, epochs, progress and fitted models, and answer with a list of
//! server ids per job, one entry per GPU (the order decides which servers a placement
//! lists first). They are listed in [`POLICIES`]; the catalog joins them with Sia and builds
//! them from `name[k=v,...]` specs ([`crate::policy::catalog::build_elastic`]).

pub mod ga;
pub mod optimus;
pub mod per_type;
pub mod scheduler;
pub mod tiresias;

pub use crate::sim::elastic::contract::{
    ElasticJobView, ElasticPolicy, ElasticView, Explanation, Weighed,
};

use super::registry::Registered;
use crate::policy::papers;

pub use super::registry::ElasticPolicyInfo;

/// Pollux's policies and its evaluation's baselines for elastic workloads, in listing
/// order (the catalog joins every family's lists).
pub const POLICIES: &[ElasticPolicyInfo] = &[
    Registered::new(
        "pollux",
        "pollux",
        &papers::POLLUX,
        "Pollux: GPU counts, placements and batch sizes chosen for goodput by a genetic algorithm over the cluster; fairness as a power mean of speedups over the fair share.",
        scheduler::PARAMS,
        scheduler::Pollux::build,
    ),
    Registered::new(
        "tiresias",
        "pollux",
        &papers::TIRESIAS,
        "Tiresias as Pollux's evaluation ran it: two-queue discretised LAS (16 GPU-hours), each job with its user's GPU count and batch size, all or nothing.",
        tiresias::PARAMS,
        tiresias::Tiresias::build,
    ),
    Registered::new(
        "optimus",
        "pollux",
        &papers::OPTIMUS,
        "Optimus+Oracle: fixed batch sizes; GPUs given one at a time to the job whose remaining time drops most.",
        &[],
        optimus::Optimus::build,
    ),
];

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
