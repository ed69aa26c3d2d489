//! Aryl: capacity loaning from an inference cluster to training, and elastic scaling of
//! training jobs by a multiple-choice knapsack.

pub mod knapsack;
pub mod reclaim;
