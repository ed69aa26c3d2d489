//! Genetic optimiser (placeholder body, replaced by the full NSGA-II search).
#![allow(missing_docs)]
use crate::rng::Rng;
#[derive(Debug, Clone, PartialEq)]
pub struct GaParams {
    pub population: usize,
    pub generations: usize,
    pub crossover_prob: f64,
    pub reset_prob: f64,
    pub mark_prob: f64,
    pub zero_prob: f64,
    pub restart_penalty_s: f64,
    pub power: f64,
}
impl Default for GaParams {
    fn default() -> Self {
        GaParams {
            population: 100,
            generations: 100,
            crossover_prob: 0.9,
            reset_prob: 0.1,
            mark_prob: 0.1,
            zero_prob: 0.1,
            restart_penalty_s: 30.0,
            power: -1.0,
        }
    }
}
#[derive(Debug, Clone, PartialEq)]
pub struct GaJob {
    pub max_replicas: u32,
    pub age_s: f64,
    pub num_restarts: u32,
}
pub trait Speedup {
    fn speedup(&mut self, job: usize, nodes: u32, replicas: u32) -> f64;
}
pub struct Problem<'a> {
    pub jobs: &'a [GaJob],
    pub num_nodes: usize,
    pub gpus_per_node: u32,
    pub base: &'a [u32],
}
pub struct GaResult {
    pub best: Vec<u32>,
    pub front: Vec<Vec<u32>>,
}
pub fn optimize(
    problem: &Problem,
    _speedup: &mut dyn Speedup,
    _initial: &[Vec<u32>],
    _params: &GaParams,
    _rng: &mut Rng,
) -> GaResult {
    let mut best = problem.base.to_vec();
    let mut used = vec![0u32; problem.num_nodes];
    for row in best.chunks(problem.num_nodes.max(1)) {
        for (n, &g) in row.iter().enumerate() {
            used[n] += g;
        }
    }
    for (j, job) in problem.jobs.iter().enumerate() {
        let row = &mut best[j * problem.num_nodes..(j + 1) * problem.num_nodes];
        if row.iter().sum::<u32>() == 0 && job.max_replicas > 0 {
            if let Some(n) = (0..problem.num_nodes).find(|&n| used[n] < problem.gpus_per_node) {
                row[n] = 1;
                used[n] += 1;
            }
        }
    }
    GaResult {
        front: vec![best.clone()],
        best,
    }
}
