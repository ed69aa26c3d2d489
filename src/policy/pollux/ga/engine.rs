//! What the search needs of a state representation, and the problem and scratch space both
//! representations share (mutation's plan, the objectives of a repaired state).

use super::draws::{below, Coin, Geometric};
use super::objective::{Memo, Objective};
use super::{GaParams, Problem, Speedup};
use crate::rng::Rng;

/// What the search needs from a state representation. A state is `units()` values of
/// `Unit`, `row_units()` per job row; both engines draw random numbers in the same order,
/// so they give identical searches.
pub(super) trait Engine {
    type Unit: Copy + Default + Eq;
    fn units(&self) -> usize;
    fn row_units(&self) -> usize;
    /// Convert a J x N row-major `u32` state (entries must fit the representation).
    fn load(&self, s: &[u32], out: &mut [Self::Unit]);
    fn unload(&self, x: &[Self::Unit]) -> Vec<u32>;
    fn base(&self) -> &[Self::Unit];
    fn mutate(&mut self, x: &mut [Self::Unit], rng: &mut Rng);
    /// Repair in place and record the statistics [`Common::score`] needs.
    fn repair(&mut self, x: &mut [Self::Unit], rng: &mut Rng);
    /// The objectives of the state last repaired.
    fn score(&mut self) -> [f64; 2];
    fn hash(x: &[Self::Unit]) -> u64;
    /// One-point crossover: exchange the rows of the jobs below `point` between two states.
    fn cross(&self, a: &mut [Self::Unit], b: &mut [Self::Unit], point: usize) {
        let k = point * self.row_units();
        a[..k].swap_with_slice(&mut b[..k]);
    }
}

/// What the objectives need of one job's row: its GPUs, its nodes, and whether it differs
/// from the current allocation.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RowStat {
    pub(super) gpus: u64,
    pub(super) nodes: u64,
    pub(super) changed: bool,
}

/// The problem as both engines see it, plus shared scratch space.
pub(super) struct Common<'s> {
    pub(super) jobs: usize,
    pub(super) nodes: usize,
    pub(super) gpus: u64,
    pub(super) max_replicas: Vec<u64>,
    objective: Objective,
    pub(super) memo: Memo,
    pub(super) speedup: &'s mut dyn Speedup,
    /// Gaps between rows mutation resets, rows it marks, and entries of marked rows it zeroes.
    pub(super) reset: Geometric,
    mark: Geometric,
    zero: Geometric,
    /// Whether mark_prob equals reset_prob, and zero_prob equals mark_prob: then the runs of
    /// draws continue into each other (gaps are memoryless), saving a draw per step.
    mark_continues: bool,
    zero_continues: bool,
    /// Mutation step 3 on an entry whose job is on a node shared by k jobs, indexed by k:
    /// 1 - (1 - 1/J)(1 - 1/k) = 1/J + 1/k - 1/(J k).
    grow_held: Vec<Coin>,
    /// Gaps between the empty entries mutation step 3 grows (probability 1/J each).
    pub(super) gap: Geometric,
    // Mutation steps 1 and 2 of the current child: rows to reset, rows marked, and the
    // (row, node) entries to zero.
    pub(super) resets: Vec<usize>,
    marked: Vec<usize>,
    pub(super) zeros: Vec<(usize, usize)>,
    // Scratch.
    pub(super) free: Vec<usize>,
    pub(super) holders: Vec<u32>,
    pub(super) picks: Vec<(usize, u64)>,
    pub(super) sums: Vec<u64>,
    /// Per job, of the state last repaired; and how many nodes that state uses.
    pub(super) stats: Vec<RowStat>,
    pub(super) stat_used_nodes: usize,
}

impl<'s> Common<'s> {
    /// Requires at least one job, node and GPU per node.
    pub(super) fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
        let jobs = problem.jobs.len();
        let nodes = problem.num_nodes;
        let total = (nodes as u64).saturating_mul(u64::from(problem.gpus_per_node));
        let inv_j = 1.0 / jobs as f64;
        let grow_held = (0..=jobs)
            .map(|k| {
                let p2 = if k == 0 { 0.0 } else { 1.0 / k as f64 };
                Coin::new(inv_j + p2 - inv_j * p2)
            })
            .collect();
        let objective = Objective::new(problem, params);
        let memo = Memo::new(problem, &objective);
        Common {
            jobs,
            nodes,
            gpus: u64::from(problem.gpus_per_node),
            max_replicas: problem
                .jobs
                .iter()
                .map(|j| u64::from(j.max_replicas).min(total))
                .collect(),
            objective,
            memo,
            speedup,
            reset: Geometric::new(params.reset_prob),
            mark: Geometric::new(params.mark_prob),
            zero: Geometric::new(params.zero_prob),
            mark_continues: params.mark_prob == params.reset_prob,
            zero_continues: params.zero_prob == params.mark_prob,
            grow_held,
            gap: Geometric::new(inv_j),
            resets: Vec::with_capacity(jobs),
            marked: Vec::with_capacity(jobs),
            zeros: Vec::new(),
            free: Vec::with_capacity(nodes),
            holders: vec![0; nodes],
            picks: Vec::with_capacity(nodes),
            sums: vec![0; jobs],
            stats: vec![RowStat::default(); jobs],
            stat_used_nodes: 0,
        }
    }

    /// Draw mutation steps 1 and 2: each row is reset with probability reset_prob, marked
    /// with probability mark_prob, and each entry of a marked row zeroed with probability
    /// zero_prob. Each is a run of independent draws, walked by geometric gaps.
    pub(super) fn plan_mutation(&mut self, rng: &mut Rng) {
        let (nj, nn) = (self.jobs, self.nodes);
        self.resets.clear();
        let mut pos = self.reset.draw(rng);
        while pos < nj {
            self.resets.push(pos);
            pos = pos.saturating_add(1).saturating_add(self.reset.draw(rng));
        }
        self.marked.clear();
        let mut pos = if self.mark_continues {
            pos - nj
        } else {
            self.mark.draw(rng)
        };
        while pos < nj {
            self.marked.push(pos);
            pos = pos.saturating_add(1).saturating_add(self.mark.draw(rng));
        }
        self.zeros.clear();
        let total = self.marked.len() * nn;
        let mut pos = if self.zero_continues {
            pos - nj
        } else {
            self.zero.draw(rng)
        };
        while pos < total {
            self.zeros.push((self.marked[pos / nn], pos % nn));
            pos = pos.saturating_add(1).saturating_add(self.zero.draw(rng));
        }
    }

    /// The mutation-step-3 coin of an entry held on node `n`.
    #[inline]
    pub(super) fn held_coin(&self, n: usize) -> Coin {
        let k = self.holders.get(n).copied().unwrap_or(0) as usize;
        self.grow_held
            .get(k)
            .or(self.grow_held.last())
            .copied()
            .unwrap_or(Coin::new(1.0))
    }

    /// Mutation step 3 value for an entry holding `v`: U{v..gpus_per_node}.
    #[inline]
    pub(super) fn grow(&self, v: u64, rng: &mut Rng) -> u64 {
        if v < self.gpus {
            v + below(rng, self.gpus - v + 1)
        } else {
            v
        }
    }

    /// The objectives of the state last repaired.
    pub(super) fn score(&mut self) -> [f64; 2] {
        let mut acc = self.objective.start();
        for (j, st) in self.stats.iter().enumerate() {
            let t = self
                .memo
                .get(&mut *self.speedup, &self.objective, j, st.nodes, st.gpus);
            self.objective.add(&mut acc, &t, st.changed);
        }
        self.objective.finish(&acc, self.stat_used_nodes)
    }
}
