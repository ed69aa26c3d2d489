//! Pollux's cluster-wide genetic optimiser: NSGA-II as the Pollux simulator runs it through
//! pymoo 0.4.2.1.
//!
//! A *state* is a J x N matrix (row-major, one row per job in priority order, one column per
//! node) of GPU counts. Two objectives are minimised:
//!
//! * fairness: minus the power mean (exponent p, -1 = harmonic) over all jobs of
//!   `speedup * num_nodes / total_gpus + 1e-3`, where the speedup of a job whose row differs
//!   from the current allocation is discounted by `max(age - penalty * restarts, 0) /
//!   (age + penalty)`;
//! * utility: minus the sum of speedups divided by the GPUs of the nodes the state uses.
//!
//! The search keeps pymoo's structure: the population starts from the warm-start states (or
//! the current allocation), which are repaired, de-duplicated, evaluated and ranked once.
//! Each further generation mates by binary tournaments (Pareto dominance, then crowding
//! distance, then a coin), applies one-point crossover over the job axis, Pollux's three
//! mutation steps and its repair, keeps only offspring that are new, and selects the next
//! population by non-dominated rank and crowding distance. The answer is the state of the
//! final rank-0 front with the best fairness.
//!
//! Random draws come only from the [`Rng`] passed in, so a seed reproduces a run exactly.
//! The stream differs from numpy's, and the draws are organised for speed without changing
//! any distribution: runs of independent coin flips with the same probability are walked by
//! geometric gaps (one draw per success), draws whose outcome cannot change the state are
//! skipped (for instance the node order of the max-replicas repair when a job is within its
//! limit), and children that would be cut off after duplicate elimination are not built.
//!
//! Speed: a call makes about 100 x 99 children of J x N entries. When every entry fits in 7
//! bits and there are at most 64 nodes (always, for the simulated clusters), a state is
//! stored as one byte per node, eight nodes per `u64`, and mutation and repair work on
//! whole words (byte-wise minimum, sums and masks); otherwise one `u32` per entry. Both
//! forms draw the same random numbers and give identical results. The objectives come from
//! per-row statistics collected during repair and a per-call memo of speedup terms; rank
//! and crowding use a two-objective sweep instead of pairwise comparisons.

use crate::rng::Rng;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Parameters of the search (defaults = Pollux's).
#[derive(Debug, Clone, PartialEq)]
pub struct GaParams {
    /// Population size; also the number of offspring per generation (100).
    pub population: usize,
    /// Number of generations; the initial population counts as the first (100).
    pub generations: usize,
    /// Probability that a mating performs crossover rather than copying the parents (0.9).
    pub crossover_prob: f64,
    /// Probability per (child, job) that mutation resets the row to the current allocation (0.1).
    pub reset_prob: f64,
    /// Probability per (child, job) that mutation marks the row for zeroing (0.1).
    pub mark_prob: f64,
    /// Probability per entry of a marked row that mutation sets it to zero (0.1).
    pub zero_prob: f64,
    /// Restart cost in seconds charged to a job whose row changes (30).
    pub restart_penalty_s: f64,
    /// Exponent p of the power mean in the fairness objective (-1 = harmonic mean).
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

/// One job as the optimiser sees it (jobs are passed already sorted in Pollux's priority order).
#[derive(Debug, Clone, PartialEq)]
pub struct GaJob {
    /// Most GPUs the job may hold.
    pub max_replicas: u32,
    /// Seconds since the job was submitted.
    pub age_s: f64,
    /// How often the job has been restarted so far.
    pub num_restarts: u32,
}

/// Speedup of job `job` on `nodes` nodes with `replicas` GPUs (replicas >= 1, nodes >= 1);
/// the caller memoises.
pub trait Speedup {
    /// The speedup of `job` (an index into [`Problem::jobs`]) spread over `nodes` nodes
    /// with `replicas` GPUs in total.
    fn speedup(&mut self, job: usize, nodes: u32, replicas: u32) -> f64;
}

/// The cluster and current allocation.
pub struct Problem<'a> {
    /// The jobs, in priority order (earlier jobs win GPUs in the capacity repair).
    pub jobs: &'a [GaJob],
    /// Number of nodes.
    pub num_nodes: usize,
    /// GPUs on every node.
    pub gpus_per_node: u32,
    /// J x num_nodes row-major GPU counts held now (missing entries count as 0).
    pub base: &'a [u32],
}

/// Result: the chosen state and the final rank-0 front (for the next call's warm start).
pub struct GaResult {
    /// The chosen state, J x num_nodes row-major.
    pub best: Vec<u32>,
    /// Every state of the final rank-0 front, each J x num_nodes row-major.
    pub front: Vec<Vec<u32>>,
}

/// Rounds of mating per generation after the first that may still be spent looking for
/// offspring that are not duplicates (pymoo's `n_max_iterations`).
const MAX_EXTRA_ROUNDS: usize = 100;

/// Largest speedup table (entries) kept densely; bigger clusters memoise in a hash map.
const DENSE_MEMO_LIMIT: usize = 1 << 22;

/// Population sizes are capped here (far beyond any useful size) so that no count overflows.
const MAX_POPULATION: usize = 1 << 24;

/// Run the search. `initial` = warm-start states (each J x num_nodes, already re-indexed by
/// the caller); if empty the population starts from `[base]`. Warm-start states of the
/// wrong length are ignored.
///
/// With no jobs the result is empty; with no nodes or no GPUs per node the only possible
/// state is all zeros, which is returned as `best` with an empty front.
pub fn optimize(
    problem: &Problem,
    speedup: &mut dyn Speedup,
    initial: &[Vec<u32>],
    params: &GaParams,
    rng: &mut Rng,
) -> GaResult {
    let nj = problem.jobs.len();
    let empty = GaResult {
        best: Vec::new(),
        front: Vec::new(),
    };
    let Some(cells) = nj.checked_mul(problem.num_nodes) else {
        return empty;
    };
    if nj == 0 || cells > isize::MAX as usize / 8 {
        return empty;
    }
    if problem.num_nodes == 0 || problem.gpus_per_node == 0 {
        return GaResult {
            best: vec![0; cells],
            front: Vec::new(),
        };
    }
    // The largest value a state can hold at any point: repairs and mutation never exceed
    // the node size, resets copy the base, and warm-start entries come in as they are.
    let largest = initial
        .iter()
        .filter(|s| s.len() == cells)
        .flat_map(|s| s.iter())
        .chain(problem.base.iter().take(cells))
        .copied()
        .fold(problem.gpus_per_node, u32::max);
    let (p, sp, i) = (problem, speedup, initial);
    if largest > PACKED_MAX || problem.num_nodes > PACKED_NODES {
        return run(Wide::new(p, sp, params), p, i, params, rng);
    }
    match problem.num_nodes.div_ceil(8) {
        1 => run(Packed::<1>::new(p, sp, params), p, i, params, rng),
        2 => run(Packed::<2>::new(p, sp, params), p, i, params, rng),
        3 | 4 => run(Packed::<4>::new(p, sp, params), p, i, params, rng),
        _ => run(Packed::<8>::new(p, sp, params), p, i, params, rng),
    }
}

/// The two objectives of a state (both minimised), exposed for tests: [fairness, utility].
///
/// Entries missing from `state` or `problem.base` count as 0. With no jobs both are 0.
pub fn objectives(
    problem: &Problem,
    speedup: &mut dyn Speedup,
    state: &[u32],
    params: &GaParams,
) -> [f64; 2] {
    let nj = problem.jobs.len();
    let nn = problem.num_nodes;
    if nj == 0 {
        return [0.0, 0.0];
    }
    let obj = Objective::new(problem, params);
    let mut acc = obj.start();
    let mut used_nodes = 0usize;
    for n in 0..nn {
        if (0..nj).any(|j| cell_at(state, j, nn, n) > 0) {
            used_nodes += 1;
        }
    }
    for j in 0..nj {
        let mut replicas = 0u64;
        let mut nodes = 0u64;
        let mut changed = false;
        for n in 0..nn {
            let v = cell_at(state, j, nn, n);
            replicas += u64::from(v);
            nodes += u64::from(v > 0);
            changed |= v != cell_at(problem.base, j, nn, n);
        }
        let s = if replicas == 0 {
            0.0
        } else {
            speedup.speedup(j, clamp_u32(nodes), clamp_u32(replicas))
        };
        obj.add(&mut acc, &obj.terms(j, s), changed);
    }
    obj.finish(&acc, used_nodes)
}

/// Entry (j, n) of a row-major state with `nn` columns, 0 if missing.
fn cell_at(state: &[u32], j: usize, nn: usize, n: usize) -> u32 {
    j.checked_mul(nn)
        .and_then(|i| i.checked_add(n))
        .and_then(|i| state.get(i))
        .copied()
        .unwrap_or(0)
}

fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------------------
// Objectives
// ---------------------------------------------------------------------------------------

/// How the power mean is accumulated; the common exponents avoid `powf`.
#[derive(Debug, Clone, Copy)]
enum Mean {
    Harmonic,
    Arithmetic,
    Geometric,
    Power(f64),
}

/// Everything the objectives need besides the speedups.
#[derive(Debug, Clone)]
struct Objective {
    /// Speedup scale: num_nodes / total GPUs (dominant share 1 / total GPUs times the number
    /// of nodes), so that one node's worth of GPUs at linear scaling scores 1.
    scale: f64,
    /// Per job, the factor applied to the scaled speedup when its row changes.
    restart: Vec<f64>,
    mean: Mean,
    jobs: f64,
    gpus_per_node: f64,
}

/// Running sums of one evaluation.
struct Acc {
    mean: f64,
    speedup: f64,
}

impl Objective {
    fn new(problem: &Problem, params: &GaParams) -> Self {
        let total = problem.num_nodes as f64 * f64::from(problem.gpus_per_node);
        let scale = if total > 0.0 {
            problem.num_nodes as f64 / total
        } else {
            0.0
        };
        let pen = params.restart_penalty_s;
        let restart = problem
            .jobs
            .iter()
            .map(|j| {
                let num = (j.age_s - pen * f64::from(j.num_restarts)).max(0.0);
                let den = j.age_s + pen;
                if den > 0.0 {
                    num / den
                } else {
                    0.0
                }
            })
            .collect();
        let p = params.power;
        let mean = if p == -1.0 {
            Mean::Harmonic
        } else if p == 1.0 {
            Mean::Arithmetic
        } else if p == 0.0 {
            Mean::Geometric
        } else {
            Mean::Power(p)
        };
        Objective {
            scale,
            restart,
            mean,
            jobs: problem.jobs.len() as f64,
            gpus_per_node: f64::from(problem.gpus_per_node),
        }
    }

    fn start(&self) -> Acc {
        Acc {
            mean: 0.0,
            speedup: 0.0,
        }
    }

    /// A job's contributions for speedup `s`: [s, power-mean term if its row is unchanged,
    /// term if it changed (restart factor applied)].
    fn terms(&self, j: usize, s: f64) -> [f64; 3] {
        let scaled = s * self.scale;
        let factor = self.restart.get(j).copied().unwrap_or(1.0);
        [
            s,
            self.term(scaled + 1e-3),
            self.term(scaled * factor + 1e-3),
        ]
    }

    #[inline]
    fn term(&self, x: f64) -> f64 {
        match self.mean {
            Mean::Harmonic => 1.0 / x,
            Mean::Arithmetic => x,
            Mean::Geometric => crate::math::ln(x),
            Mean::Power(p) => crate::math::powf(x, p),
        }
    }

    /// Add a job given its [`Objective::terms`]; `changed` = its row differs from the base.
    #[inline]
    fn add(&self, acc: &mut Acc, terms: &[f64; 3], changed: bool) {
        acc.mean += if changed { terms[2] } else { terms[1] };
        acc.speedup += terms[0];
    }

    /// [fairness, utility] from the sums and the number of nodes holding any GPU.
    fn finish(&self, acc: &Acc, used_nodes: usize) -> [f64; 2] {
        let m = acc.mean / self.jobs;
        let fair = -match self.mean {
            Mean::Harmonic => 1.0 / m,
            Mean::Arithmetic => m,
            Mean::Geometric => crate::math::exp(m),
            Mean::Power(p) => crate::math::powf(m, 1.0 / p),
        };
        let util = if used_nodes == 0 {
            0.0
        } else {
            -(acc.speedup / (self.gpus_per_node * used_nodes as f64))
        };
        [clean(fair), clean(util)]
    }
}

/// Objective values are compared with `<` and `==`: NaN becomes +inf (worst) and -0 becomes 0.
fn clean(v: f64) -> f64 {
    if v.is_nan() {
        f64::INFINITY
    } else {
        v + 0.0
    }
}

/// Per-call memo of the caller's speedups and the objective terms derived from them,
/// dense over the (nodes, replicas) a repaired state can reach.
struct Memo {
    /// Per job: (first entry, most nodes, most replicas) of its table.
    dims: Vec<(usize, u64, u64)>,
    entries: Vec<Option<[f64; 3]>>,
    /// Everything outside the tables.
    other: HashMap<(usize, u64, u64), [f64; 3]>,
    /// Terms of a job without GPUs (speedup 0, no call).
    idle: [f64; 3],
}

impl Memo {
    fn new(problem: &Problem, objective: &Objective) -> Self {
        let total = (problem.num_nodes as u64).saturating_mul(u64::from(problem.gpus_per_node));
        let mut dims = Vec::with_capacity(problem.jobs.len());
        let mut size = 0usize;
        for job in problem.jobs {
            let r = u64::from(job.max_replicas).min(total);
            let n = (problem.num_nodes as u64).min(r);
            dims.push((size, n, r));
            size = size.saturating_add(usize::try_from(r.saturating_mul(n)).unwrap_or(usize::MAX));
        }
        if size > DENSE_MEMO_LIMIT {
            // Too large to tabulate: everything goes through the hash map.
            dims.iter_mut().for_each(|d| d.1 = 0);
            size = 0;
        }
        Memo {
            dims,
            entries: vec![None; size],
            other: HashMap::new(),
            idle: objective.terms(0, 0.0),
        }
    }

    /// [`Objective::terms`] of job `j` on `nodes` nodes with `replicas` GPUs.
    #[inline]
    fn get(
        &mut self,
        sp: &mut dyn Speedup,
        obj: &Objective,
        j: usize,
        nodes: u64,
        replicas: u64,
    ) -> [f64; 3] {
        if replicas == 0 {
            return self.idle;
        }
        if let Some(&(start, mn, mr)) = self.dims.get(j) {
            if nodes >= 1 && nodes <= mn && replicas <= mr {
                let i = start + ((nodes - 1) * mr + (replicas - 1)) as usize;
                if let Some(e) = self.entries.get_mut(i) {
                    return *e.get_or_insert_with(|| {
                        obj.terms(j, sp.speedup(j, clamp_u32(nodes), clamp_u32(replicas)))
                    });
                }
            }
        }
        *self
            .other
            .entry((j, nodes, replicas))
            .or_insert_with(|| obj.terms(j, sp.speedup(j, clamp_u32(nodes), clamp_u32(replicas))))
    }
}

// ---------------------------------------------------------------------------------------
// Random helpers
// ---------------------------------------------------------------------------------------

/// A biased coin drawn with one 64-bit word.
#[derive(Debug, Clone, Copy)]
struct Coin {
    always: bool,
    threshold: u64,
}

impl Coin {
    fn new(p: f64) -> Self {
        if p >= 1.0 {
            Coin {
                always: true,
                threshold: 0,
            }
        } else if p > 0.0 {
            Coin {
                always: false,
                threshold: (p * 18_446_744_073_709_551_616.0) as u64,
            }
        } else {
            Coin {
                always: false,
                threshold: 0,
            }
        }
    }

    #[inline]
    fn flip(self, rng: &mut Rng) -> bool {
        self.always || rng.next_u64() < self.threshold
    }
}

/// Uniform integer in [0, n) (Lemire's method; the modulo is computed only when needed).
#[inline]
fn below(rng: &mut Rng, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let t = n.wrapping_neg() % n;
        while (m as u64) < t {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

/// Number of failures before the first success of a coin with probability `p`: the gap to
/// the next success in a run of independent draws, so sparse successes cost one draw each.
#[derive(Debug, Clone)]
enum Geometric {
    /// p <= 0: no success ever.
    Never,
    /// p >= 1: every draw succeeds.
    Always,
    /// Inversion of one 64-bit word by table (exact to 2^-64).
    Table(Box<GeometricTable>),
    /// Small p, where 64 failures are likely: inversion by logarithm, with 1 / ln(1 - p).
    Log(f64),
}

/// `cdf[k]` is P(gap <= k) scaled to 2^64 for gaps below 64; a word at or above the last
/// entry means "64 more failures, draw again" (the gap is memoryless). `bucket[b]` is the
/// range of entries that can fall among the words whose top byte is b, so most draws need
/// one lookup.
#[derive(Debug, Clone)]
struct GeometricTable {
    cdf: [u64; 64],
    bucket: [(u8, u8); 256],
}

impl Geometric {
    fn new(p: f64) -> Self {
        if p >= 1.0 {
            return Geometric::Always;
        }
        if p.is_nan() || p <= 0.0 {
            return Geometric::Never;
        }
        let log_q = crate::math::ln_1p(-p);
        if crate::math::exp(64.0 * log_q) > 0.5 {
            return Geometric::Log(1.0 / log_q);
        }
        let mut cdf = [0u64; 64];
        for (k, v) in cdf.iter_mut().enumerate() {
            // 1 - q^(k + 1), computed without cancellation.
            let c = -crate::math::exp_m1((k as f64 + 1.0) * log_q);
            *v = (c * 18_446_744_073_709_551_616.0) as u64;
        }
        let mut bucket = [(0u8, 0u8); 256];
        for (b, e) in bucket.iter_mut().enumerate() {
            let lo = (b as u64) << 56;
            let hi = lo | ((1 << 56) - 1);
            *e = (
                cdf.partition_point(|&c| c <= lo) as u8,
                cdf.partition_point(|&c| c <= hi) as u8,
            );
        }
        Geometric::Table(Box::new(GeometricTable { cdf, bucket }))
    }

    #[inline]
    fn draw(&self, rng: &mut Rng) -> usize {
        match self {
            Geometric::Never => usize::MAX,
            Geometric::Always => 0,
            Geometric::Table(t) => {
                let mut gap = 0usize;
                loop {
                    let r = rng.next_u64();
                    // The number of entries <= r: all below the bucket's range are, none
                    // above it is.
                    let (lo, hi) = t.bucket[(r >> 56) as usize];
                    let mut k = usize::from(lo);
                    while k < usize::from(hi) && t.cdf[k & 63] <= r {
                        k += 1;
                    }
                    if k < 64 {
                        return gap + k;
                    }
                    gap += 64;
                }
            }
            Geometric::Log(inv) => {
                // u in (0, 1]: ln(u) <= 0 and inv < 0, so the quotient is >= 0 and the
                // conversion truncates it like floor (saturating for huge values).
                let u = 1.0 - rng.uniform();
                (crate::math::ln(u) * inv) as usize
            }
        }
    }
}

/// Repair step 2 for one row over its nonzero entries `picks` (node, GPUs) in node order:
/// visit them in a uniformly random order, keeping GPUs until `cap` is reached. Only the
/// order until the cap is reached matters, so the permutation is drawn one node at a time
/// (forward Fisher-Yates) and stops there. Rewrites the GPU counts.
fn cap_picks(picks: &mut [(usize, u64)], cap: u64, rng: &mut Rng) {
    let k = picks.len();
    let mut left = cap;
    for i in 0..k {
        if left == 0 {
            for p in &mut picks[i..] {
                p.1 = 0;
            }
            break;
        }
        let r = i + below(rng, (k - i) as u64) as usize;
        picks.swap(i, r);
        let t = picks[i].1.min(left);
        picks[i].1 = t;
        left -= t;
    }
}

/// Fisher-Yates shuffle with [`below`].
fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

// ---------------------------------------------------------------------------------------
// State representations
// ---------------------------------------------------------------------------------------

/// What the search needs from a state representation. A state is `units()` values of
/// `Unit`, `row_units()` per job row; both engines draw random numbers in the same order,
/// so they give identical searches.
trait Engine {
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
}

/// What the objectives need of one job's row: its GPUs, its nodes, and whether it differs
/// from the current allocation.
#[derive(Debug, Clone, Copy, Default)]
struct RowStat {
    gpus: u64,
    nodes: u64,
    changed: bool,
}

/// The problem as both engines see it, plus shared scratch space.
struct Common<'s> {
    jobs: usize,
    nodes: usize,
    gpus: u64,
    max_replicas: Vec<u64>,
    objective: Objective,
    memo: Memo,
    speedup: &'s mut dyn Speedup,
    /// Gaps between rows mutation resets, rows it marks, and entries of marked rows it zeroes.
    reset: Geometric,
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
    gap: Geometric,
    // Mutation steps 1 and 2 of the current child: rows to reset, rows marked, and the
    // (row, node) entries to zero.
    resets: Vec<usize>,
    marked: Vec<usize>,
    zeros: Vec<(usize, usize)>,
    // Scratch.
    free: Vec<usize>,
    holders: Vec<u32>,
    picks: Vec<(usize, u64)>,
    sums: Vec<u64>,
    /// Per job, of the state last repaired; and how many nodes that state uses.
    stats: Vec<RowStat>,
    stat_used_nodes: usize,
}

impl<'s> Common<'s> {
    /// Requires at least one job, node and GPU per node.
    fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
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
    fn plan_mutation(&mut self, rng: &mut Rng) {
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
    fn held_coin(&self, n: usize) -> Coin {
        let k = self.holders.get(n).copied().unwrap_or(0) as usize;
        self.grow_held
            .get(k)
            .or(self.grow_held.last())
            .copied()
            .unwrap_or(Coin::new(1.0))
    }

    /// Mutation step 3 value for an entry holding `v`: U{v..gpus_per_node}.
    #[inline]
    fn grow(&self, v: u64, rng: &mut Rng) -> u64 {
        if v < self.gpus {
            v + below(rng, self.gpus - v + 1)
        } else {
            v
        }
    }

    /// The objectives of the state last repaired.
    fn score(&mut self) -> [f64; 2] {
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

// --- Packed: one byte per node, eight nodes per u64 ---------------------------------------

/// Entries fit in 7 bits, so byte-wise arithmetic on a u64 never carries across bytes.
const PACKED_MAX: u32 = 127;
/// Most nodes of the packed form (8 words per row).
const PACKED_NODES: usize = 64;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const EVEN: u64 = 0x00FF_00FF_00FF_00FF;
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH16: u64 = 0x8000_8000_8000_8000;

/// High bit set in each nonzero byte.
#[inline(always)]
fn nonzero_bytes(w: u64) -> u64 {
    w.wrapping_add(LOW7) & HIGH
}

/// 0xFF in each byte whose high bit is set in `m`.
#[inline(always)]
fn spread(m: u64) -> u64 {
    (m >> 7).wrapping_mul(0xFF)
}

/// Byte-wise minimum.
#[inline(always)]
fn min_bytes(x: u64, y: u64) -> u64 {
    // Each byte of (x | 0x80) - y is 128 + x - y > 0, so no borrows; its high bit says x >= y.
    let ge = spread((x | HIGH).wrapping_sub(y) & HIGH);
    (y & ge) | (x & !ge)
}

/// The bytes of `w` added pairwise into four 16-bit lanes; lanes of a row's words (at most
/// 8 * 2 * 127 each) can be added before [`reduce_lanes`].
#[inline(always)]
fn lanes(w: u64) -> u64 {
    (w & EVEN) + ((w >> 8) & EVEN)
}

/// Sum of the four 16-bit lanes of `s`.
#[inline(always)]
fn reduce_lanes(s: u64) -> u64 {
    s.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// Sum of the bytes of `s` (marks counted over a row's words, so at most 64).
#[inline(always)]
fn reduce_bytes(s: u64) -> u64 {
    s.wrapping_mul(ONES) >> 56
}

/// Node of the lowest marked byte of word `k`.
#[inline(always)]
fn node_of(k: usize, bits: u64) -> usize {
    k * 8 + bits.trailing_zeros() as usize / 8
}

/// States as `W` u64 per job row, node n in byte n % 8 of word n / 8; bytes past the last
/// node are always 0. `W` is a compile-time constant so the per-row loops unroll and the
/// per-node running totals stay in registers.
struct Packed<'s, const W: usize> {
    c: Common<'s>,
    base: Vec<u64>,
    /// Every node's byte set to gpus_per_node.
    full: [u64; W],
}

impl<'s, const W: usize> Packed<'s, W> {
    /// Requires at least one job, node and GPU per node, every value <= [`PACKED_MAX`],
    /// and at most 8 W nodes.
    fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
        let c = Common::new(problem, speedup, params);
        let mut full = [0u64; W];
        for n in 0..c.nodes {
            Self::set(&mut full, n, c.gpus);
        }
        let mut p = Packed {
            base: Vec::new(),
            full,
            c,
        };
        let cells = p.c.jobs * p.c.nodes;
        let b: Vec<u32> = (0..cells)
            .map(|i| problem.base.get(i).copied().unwrap_or(0))
            .collect();
        let mut base = vec![0; p.units()];
        p.load(&b, &mut base);
        p.base = base;
        p
    }

    #[inline(always)]
    fn get(row: &[u64], n: usize) -> u64 {
        row.get(n / 8).map_or(0, |w| (w >> (8 * (n % 8))) & 0xFF)
    }

    #[inline(always)]
    fn set(row: &mut [u64], n: usize, v: u64) {
        if let Some(w) = row.get_mut(n / 8) {
            let sh = 8 * (n % 8);
            *w = (*w & !(0xFF << sh)) | ((v & 0xFF) << sh);
        }
    }
}

impl<const W: usize> Engine for Packed<'_, W> {
    type Unit = u64;

    fn units(&self) -> usize {
        W * self.c.jobs
    }

    fn row_units(&self) -> usize {
        W
    }

    fn load(&self, s: &[u32], out: &mut [u64]) {
        out.fill(0);
        let nn = self.c.nodes;
        for (j, row) in out.chunks_exact_mut(W).enumerate() {
            for n in 0..nn {
                let v = s.get(j * nn + n).copied().unwrap_or(0).min(PACKED_MAX);
                Self::set(row, n, u64::from(v));
            }
        }
    }

    fn unload(&self, x: &[u64]) -> Vec<u32> {
        let nn = self.c.nodes;
        let mut out = Vec::with_capacity(self.c.jobs * nn);
        for row in x.chunks_exact(W) {
            out.extend((0..nn).map(|n| Self::get(row, n) as u32));
        }
        out
    }

    fn base(&self) -> &[u64] {
        &self.base
    }

    fn score(&mut self) -> [f64; 2] {
        self.c.score()
    }

    fn mutate(&mut self, x: &mut [u64], rng: &mut Rng) {
        let nj = self.c.jobs;
        let (rows, _) = x.as_chunks_mut::<W>();
        let (base, _) = self.base.as_chunks::<W>();
        // 1. With probability reset_prob per job, go back to the current allocation.
        // 2. With probability mark_prob per job, mark the row; zero each entry of a marked
        //    row with probability zero_prob.
        self.c.plan_mutation(rng);
        for &j in &self.c.resets {
            if let (Some(row), Some(b)) = (rows.get_mut(j), base.get(j)) {
                *row = *b;
            }
        }
        for &(j, n) in &self.c.zeros {
            if let Some(row) = rows.get_mut(j) {
                Self::set(row, n, 0);
            }
        }
        // 3. On nodes with a free GPU, replace entries by U{current..gpus_per_node} with
        //    probability 1/J, or 1/J + 1/k - 1/(J k) if the job is one of the k jobs on the
        //    node. Probabilities are fixed before any entry changes.
        let mut free = [0u64; W];
        let mut count = [0u64; W];
        if nj <= 255 {
            // GPUs per node in 16-bit lanes (even and odd bytes; at most 255 * 127 < 2^15)
            // and jobs per node byte-wise; a node is free where its total is below g.
            let mut even = [0u64; W];
            let mut odd = [0u64; W];
            for row in rows.iter() {
                for k in 0..W {
                    even[k] += row[k] & EVEN;
                    odd[k] += (row[k] >> 8) & EVEN;
                    count[k] += nonzero_bytes(row[k]) >> 7;
                }
            }
            for k in 0..W {
                let f = self.full[k];
                let full_even = (even[k] | HIGH16).wrapping_sub(f & EVEN) & HIGH16;
                let full_odd = (odd[k] | HIGH16).wrapping_sub((f >> 8) & EVEN) & HIGH16;
                free[k] = !((full_even >> 8) | full_odd) & nonzero_bytes(f);
            }
        } else {
            // Free GPUs per node, floored at 0.
            let mut room = self.full;
            for row in rows.iter() {
                for k in 0..W {
                    room[k] -= min_bytes(room[k], row[k]);
                }
            }
            for k in 0..W {
                free[k] = nonzero_bytes(room[k]);
            }
        }
        self.c.free.clear();
        for (k, &m) in free.iter().enumerate() {
            let mut bits = m;
            while bits != 0 {
                self.c.free.push(node_of(k, bits));
                bits &= bits - 1;
            }
        }
        if self.c.free.is_empty() {
            return;
        }
        if nj <= 255 {
            for &n in &self.c.free {
                self.c.holders[n] = Self::get(&count, n) as u32;
            }
        } else {
            for &n in &self.c.free {
                self.c.holders[n] = 0;
            }
            for row in rows.iter() {
                for k in 0..W {
                    let mut bits = nonzero_bytes(row[k]) & free[k];
                    while bits != 0 {
                        self.c.holders[node_of(k, bits)] += 1;
                        bits &= bits - 1;
                    }
                }
            }
        }
        // Entries already held: one draw each with their combined probability.
        for row in rows.iter_mut() {
            for k in 0..W {
                let mut bits = nonzero_bytes(row[k]) & free[k];
                while bits != 0 {
                    let n = node_of(k, bits);
                    bits &= bits - 1;
                    if self.c.held_coin(n).flip(rng) {
                        let nv = self.c.grow(Self::get(row, n), rng);
                        Self::set(row, n, nv);
                    }
                }
            }
        }
        // Empty entries: probability 1/J each. Enumerate the entries of the free nodes row by
        // row and jump between successes with geometric gaps; successes on held entries are
        // ignored (decided above). Held entries stay nonzero and each empty one is visited
        // at most once, so "nonzero" still means "held" here.
        let nf = self.c.free.len();
        let total = nf * nj;
        let mut pos = self.c.gap.draw(rng);
        while pos < total {
            let n = self.c.free[pos % nf];
            if let Some(row) = rows.get_mut(pos / nf) {
                if Self::get(row, n) == 0 {
                    let nv = self.c.grow(0, rng);
                    Self::set(row, n, nv);
                }
            }
            pos = pos.saturating_add(1).saturating_add(self.c.gap.draw(rng));
        }
    }

    fn repair(&mut self, x: &mut [u64], rng: &mut Rng) {
        let (rows, _) = x.as_chunks_mut::<W>();
        let (base, _) = self.base.as_chunks::<W>();
        // The three steps run row by row in a single pass. Steps 1 and 3 look only at
        // earlier rows and step 2 only at the row itself; step 1 looks at rows as they were
        // before any step, which each row still is when it is reached.
        //
        // `seen` marks nodes with a distributed job so far; `keep` is 0xFF on nodes with
        // fewer than two, 0 elsewhere; `room` is the GPUs still free on each node.
        let mut seen = [0u64; W];
        let mut keep = [u64::MAX; W];
        let mut room = self.full;
        for (((row, brow), &cap), st) in rows
            .iter_mut()
            .zip(base.iter())
            .zip(self.c.max_replicas.iter())
            .zip(self.c.stats.iter_mut())
        {
            // 1. A job is distributed if it is on more than one node. On each node, from
            //    the second distributed job on it onwards, every job's entry is zeroed,
            //    distributed or not (pymoo's cumsum-over-jobs mask).
            let mut on = 0;
            for v in row.iter() {
                on += nonzero_bytes(*v) >> 7;
            }
            if reduce_bytes(on) > 1 {
                for k in 0..W {
                    let inc = nonzero_bytes(row[k]);
                    keep[k] &= !spread(seen[k] & inc);
                    seen[k] |= inc;
                }
            }
            let mut acc = 0;
            for k in 0..W {
                row[k] &= keep[k];
                acc += lanes(row[k]);
            }
            let mut sum = reduce_lanes(acc);
            // 2. Keep at most max_replicas GPUs, filling the job's nodes in a random order.
            if sum > cap {
                self.c.picks.clear();
                for (k, &v) in row.iter().enumerate() {
                    let mut bits = nonzero_bytes(v);
                    while bits != 0 {
                        let n = node_of(k, bits);
                        bits &= bits - 1;
                        self.c.picks.push((n, Self::get(row, n)));
                    }
                }
                cap_picks(&mut self.c.picks, cap, rng);
                for &(n, v) in &self.c.picks {
                    Self::set(row, n, v);
                }
                sum = cap;
            }
            // 3. Node capacity: walking jobs in priority order, each gets what is still
            //    free. Also the statistics the objectives need.
            let (mut cut, mut on, mut diff) = (0, 0, 0);
            for k in 0..W {
                let t = min_bytes(row[k], room[k]);
                cut |= t ^ row[k];
                room[k] -= t;
                row[k] = t;
                on += nonzero_bytes(t) >> 7;
                diff |= t ^ brow[k];
            }
            *st = RowStat {
                gpus: if cut == 0 {
                    sum
                } else {
                    reduce_lanes(row.iter().map(|&v| lanes(v)).sum())
                },
                nodes: reduce_bytes(on),
                changed: diff != 0,
            };
        }
        let used = room
            .iter()
            .zip(&self.full)
            .map(|(&r, &f)| nonzero_bytes(f - r) >> 7)
            .sum();
        self.c.stat_used_nodes = reduce_bytes(used) as usize;
    }

    fn hash(x: &[u64]) -> u64 {
        // Four independent streams, so the multiplications overlap.
        let mut h = [1u64, 2, 3, 4];
        let (chunks, rest) = x.as_chunks::<4>();
        for c in chunks {
            for k in 0..4 {
                h[k] = mix(h[k], c[k]);
            }
        }
        for (k, &v) in rest.iter().enumerate() {
            h[k] = mix(h[k], v);
        }
        finish_hash(h, x.len())
    }
}

// --- Wide: one u32 per entry, for nodes larger than the packed form holds ----------------

/// States as J x N row-major u32.
struct Wide<'s> {
    c: Common<'s>,
    base: Vec<u32>,
    // Scratch per node.
    used: Vec<u64>,
    seen: Vec<u8>,
}

impl<'s> Wide<'s> {
    /// Requires at least one job, node and GPU per node.
    fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
        let c = Common::new(problem, speedup, params);
        let cells = c.jobs * c.nodes;
        let base = (0..cells)
            .map(|i| problem.base.get(i).copied().unwrap_or(0))
            .collect();
        Wide {
            base,
            used: vec![0; c.nodes],
            seen: vec![0; c.nodes],
            c,
        }
    }
}

impl Engine for Wide<'_> {
    type Unit = u32;

    fn units(&self) -> usize {
        self.c.jobs * self.c.nodes
    }

    fn row_units(&self) -> usize {
        self.c.nodes
    }

    fn load(&self, s: &[u32], out: &mut [u32]) {
        for (o, v) in out.iter_mut().zip(s.iter().chain(std::iter::repeat(&0))) {
            *o = *v;
        }
    }

    fn unload(&self, x: &[u32]) -> Vec<u32> {
        x.to_vec()
    }

    fn base(&self) -> &[u32] {
        &self.base
    }

    fn score(&mut self) -> [f64; 2] {
        self.c.score()
    }

    fn mutate(&mut self, x: &mut [u32], rng: &mut Rng) {
        let nn = self.c.nodes;
        // 1. Reset rows to the current allocation; 2. zero entries of marked rows.
        self.c.plan_mutation(rng);
        for &j in &self.c.resets {
            x[j * nn..(j + 1) * nn].copy_from_slice(&self.base[j * nn..(j + 1) * nn]);
        }
        for &(j, n) in &self.c.zeros {
            x[j * nn + n] = 0;
        }
        // 3. Grow entries on nodes with a free GPU (see `Packed::mutate`).
        self.used.fill(0);
        for row in x.chunks_exact(nn) {
            for (u, &v) in self.used.iter_mut().zip(row) {
                *u += u64::from(v);
            }
        }
        self.c.free.clear();
        for (n, &u) in self.used.iter().enumerate() {
            if u < self.c.gpus {
                self.c.free.push(n);
                self.c.holders[n] = 0;
            }
        }
        if self.c.free.is_empty() {
            return;
        }
        for row in x.chunks_exact(nn) {
            for &n in &self.c.free {
                self.c.holders[n] += u32::from(row[n] != 0);
            }
        }
        for row in x.chunks_exact_mut(nn) {
            for &n in &self.c.free {
                if row[n] != 0 && self.c.held_coin(n).flip(rng) {
                    row[n] = self.c.grow(u64::from(row[n]), rng) as u32;
                }
            }
        }
        let nf = self.c.free.len();
        let total = nf * self.c.jobs;
        let mut pos = self.c.gap.draw(rng);
        while pos < total {
            let (j, f) = (pos / nf, pos % nf);
            let i = j * nn + self.c.free[f];
            if x[i] == 0 {
                x[i] = self.c.grow(0, rng) as u32;
            }
            pos = pos.saturating_add(1).saturating_add(self.c.gap.draw(rng));
        }
    }

    fn repair(&mut self, x: &mut [u32], rng: &mut Rng) {
        let nn = self.c.nodes;
        // 1. One distributed job per node, with the quirk (see `Packed::repair`); `seen`
        //    counts distributed jobs per node so far, saturating at 2.
        self.seen.fill(0);
        for (row, sum) in x.chunks_exact_mut(nn).zip(self.c.sums.iter_mut()) {
            let distributed = row.iter().filter(|&&v| v != 0).count() > 1;
            let mut s = 0;
            for (v, c) in row.iter_mut().zip(self.seen.iter_mut()) {
                if distributed && *v != 0 {
                    *c = (*c + 1).min(2);
                }
                if *c >= 2 {
                    *v = 0;
                }
                s += u64::from(*v);
            }
            *sum = s;
        }
        // 2. Max replicas over a random node order.
        for (j, row) in x.chunks_exact_mut(nn).enumerate() {
            let cap = self.c.max_replicas[j];
            if self.c.sums[j] <= cap {
                continue;
            }
            self.c.picks.clear();
            self.c.picks.extend(
                row.iter()
                    .enumerate()
                    .filter(|(_, &v)| v != 0)
                    .map(|(n, &v)| (n, u64::from(v))),
            );
            cap_picks(&mut self.c.picks, cap, rng);
            for &(n, v) in &self.c.picks {
                row[n] = v as u32;
            }
        }
        // 3. Node capacity by job priority.
        self.used.fill(0);
        for (j, (row, brow)) in x
            .chunks_exact_mut(nn)
            .zip(self.base.chunks_exact(nn))
            .enumerate()
        {
            let (mut gpus, mut nodes, mut changed) = (0, 0, false);
            for ((v, u), &b) in row.iter_mut().zip(self.used.iter_mut()).zip(brow) {
                let t = u64::from(*v).min(self.c.gpus - *u);
                *u += t;
                *v = t as u32;
                gpus += t;
                nodes += u64::from(t > 0);
                changed |= *v != b;
            }
            self.c.stats[j] = RowStat {
                gpus,
                nodes,
                changed,
            };
        }
        self.c.stat_used_nodes = self.used.iter().filter(|&&u| u > 0).count();
    }

    fn hash(x: &[u32]) -> u64 {
        let mut h = [1u64, 2, 3, 4];
        let mut chunks = x.chunks_exact(8);
        for c in &mut chunks {
            for (lane, w) in h.iter_mut().zip(c.chunks_exact(2)) {
                *lane = mix(*lane, u64::from(w[0]) | (u64::from(w[1]) << 32));
            }
        }
        for (k, &v) in chunks.remainder().iter().enumerate() {
            h[k & 3] = mix(h[k & 3], u64::from(v) | (1 << 32));
        }
        finish_hash(h, x.len())
    }
}

/// Final mixing of a state hash (SplitMix64's finaliser).
fn finish_hash(lanes: [u64; 4], len: usize) -> u64 {
    let mut h = lanes[0]
        ^ lanes[1].rotate_left(17)
        ^ lanes[2].rotate_left(31)
        ^ lanes[3].rotate_left(47)
        ^ len as u64;
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

#[inline]
fn mix(lane: u64, w: u64) -> u64 {
    (lane ^ w)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
}

/// Open-addressing set of states stored elsewhere (by slot index), for duplicate elimination.
struct Table {
    slots: Vec<u32>,
    mask: usize,
}

const EMPTY: u32 = u32::MAX;

impl Table {
    fn new() -> Self {
        Table {
            slots: Vec::new(),
            mask: 0,
        }
    }

    /// Empty the set, sized for up to `n` members.
    fn reset(&mut self, n: usize) {
        let size = n
            .saturating_mul(2)
            .saturating_add(2)
            .checked_next_power_of_two()
            .unwrap_or(usize::MAX / 2 + 1)
            .max(16);
        self.slots.clear();
        self.slots.resize(size, EMPTY);
        self.mask = size - 1;
    }

    /// Insert `x` (hash `h`) as member `idx` unless an equal state is already a member;
    /// true if inserted. Member i's state is `pool[i * units..]` and its hash `hashes[i]`.
    fn insert<U: Eq>(
        &mut self,
        h: u64,
        x: &[U],
        pool: &[U],
        hashes: &[u64],
        units: usize,
        idx: usize,
    ) -> bool {
        let mut i = (h as usize) & self.mask;
        for _ in 0..self.slots.len() {
            let s = self.slots[i];
            if s == EMPTY {
                self.slots[i] = idx as u32;
                return true;
            }
            let s = s as usize;
            if hashes.get(s) == Some(&h) && pool.get(s * units..(s + 1) * units) == Some(x) {
                return false;
            }
            i = (i + 1) & self.mask;
        }
        // Full table (never happens at the sizes reset() chooses): treat as new.
        true
    }
}

// ---------------------------------------------------------------------------------------
// Selection and survival
// ---------------------------------------------------------------------------------------

/// An integer with the same order as `v` (for NaN-free values without -0, as objectives are).
fn order_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

fn cmp_f(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// Pareto relation: 1 if `a` dominates `b`, -1 if `b` dominates `a`, else 0.
fn relation(a: [f64; 2], b: [f64; 2]) -> i32 {
    let mut val = 0;
    for i in 0..2 {
        if a[i] < b[i] {
            if val == -1 {
                return 0;
            }
            val = 1;
        } else if b[i] < a[i] {
            if val == 1 {
                return 0;
            }
            val = -1;
        }
    }
    val
}

/// Binary tournaments (pymoo's `comp_by_dom_and_crowding`): `n` winners into `out`. The 2n
/// contestants are concatenated random permutations of the population.
fn tournament(
    f: &[[f64; 2]],
    crowd: &[f64],
    n: usize,
    rng: &mut Rng,
    contestants: &mut Vec<usize>,
    out: &mut Vec<usize>,
) {
    out.clear();
    contestants.clear();
    let p = f.len().min(crowd.len());
    if p == 0 {
        return;
    }
    while contestants.len() < 2 * n {
        let start = contestants.len();
        contestants.extend(0..p);
        shuffle(rng, &mut contestants[start..]);
    }
    contestants.truncate(2 * n);
    for pair in contestants.chunks_exact(2) {
        let (a, b) = (pair[0], pair[1]);
        let w = match relation(f[a], f[b]) {
            1 => a,
            -1 => b,
            _ => {
                if crowd[a] > crowd[b] {
                    a
                } else if crowd[b] > crowd[a] {
                    b
                } else if rng.next_u64() >> 63 == 0 {
                    a
                } else {
                    b
                }
            }
        };
        out.push(w);
    }
}

/// Crowding distance of one front (pymoo's `calc_crowding_distance`). `front` is in
/// lexicographic (f0, f1, index) order, so exact duplicates are adjacent with the first
/// copy first, and after dropping duplicates f0 strictly increases while f1 strictly
/// decreases: each objective's sorted order is the front order or its reverse.
fn crowding(f: &[[f64; 2]], front: &[usize], crowd: &mut [f64], uniq: &mut Vec<usize>) {
    if front.len() <= 2 {
        for &i in front {
            crowd[i] = f64::INFINITY;
        }
        return;
    }
    uniq.clear();
    let mut prev: Option<[f64; 2]> = None;
    for &i in front {
        // Duplicates of an earlier point keep 0.
        crowd[i] = 0.0;
        if prev != Some(f[i]) {
            uniq.push(i);
        }
        prev = Some(f[i]);
    }
    let u = uniq.len();
    if u < 2 {
        // One distinct point: both ranges are 0, so every distance is 0/0, which pymoo sets to 0.
        return;
    }
    let (lo, hi) = (f[uniq[0]], f[uniq[u - 1]]);
    let norm = [hi[0] - lo[0], lo[1] - hi[1]];
    let nz = |v: f64| if v.is_nan() { 0.0 } else { v };
    crowd[uniq[0]] = f64::INFINITY;
    crowd[uniq[u - 1]] = f64::INFINITY;
    for t in 1..u - 1 {
        let (p, c, q) = (f[uniq[t - 1]], f[uniq[t]], f[uniq[t + 1]]);
        let d0 = nz((c[0] - p[0]) / norm[0]) + nz((q[0] - c[0]) / norm[0]);
        let d1 = nz((p[1] - c[1]) / norm[1]) + nz((c[1] - q[1]) / norm[1]);
        crowd[uniq[t]] = (d0 + d1) / 2.0;
    }
}

/// Rank-and-crowding survival: the indices (into `f`) of `n_survive` survivors, whole
/// non-dominated fronts first, the last front cut by crowding distance (descending, ties
/// at random). Sets `rank` and `crowd` of every point in the fronts considered.
///
/// Fronts come from a two-objective sweep: points in lexicographic order are placed in the
/// first front whose most recent member (its smallest f1 so far) does not dominate them,
/// found by binary search, which gives the same fronts as pymoo's fast non-dominated sort.
fn survive(
    f: &[[f64; 2]],
    n_survive: usize,
    rng: &mut Rng,
    rank: &mut Vec<u32>,
    crowd: &mut Vec<f64>,
) -> Vec<usize> {
    let m = f.len();
    rank.clear();
    rank.resize(m, u32::MAX);
    crowd.clear();
    crowd.resize(m, 0.0);
    let mut keyed: Vec<(u64, u64, usize)> = f
        .iter()
        .enumerate()
        .map(|(i, v)| (order_key(v[0]), order_key(v[1]), i))
        .collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.iter().map(|k| k.2).collect();
    let mut lasts: Vec<[f64; 2]> = Vec::new();
    let mut front_of = vec![0usize; m];
    for &i in &order {
        let p = f[i];
        // Earlier points have f0 <= p's, so front k dominates p iff its latest member has a
        // smaller f1, or an equal f1 and a smaller f0.
        let k = lasts.partition_point(|l| l[1] < p[1] || (l[1] == p[1] && l[0] < p[0]));
        if k == lasts.len() {
            lasts.push(p);
        } else {
            lasts[k] = p;
        }
        front_of[i] = k;
    }
    let nf = lasts.len();
    let mut start = vec![0usize; nf + 1];
    for &k in &front_of {
        start[k + 1] += 1;
    }
    for k in 0..nf {
        start[k + 1] += start[k];
    }
    let mut members = vec![0usize; m];
    let mut fill = start.clone();
    for &i in &order {
        let k = front_of[i];
        members[fill[k]] = i;
        fill[k] += 1;
    }
    let mut out = Vec::with_capacity(n_survive.min(m));
    let mut uniq = Vec::new();
    for k in 0..nf {
        if out.len() >= n_survive {
            break;
        }
        let front = &members[start[k]..start[k + 1]];
        crowding(f, front, crowd, &mut uniq);
        for &i in front {
            rank[i] = k as u32;
        }
        if out.len() + front.len() <= n_survive {
            out.extend_from_slice(front);
        } else {
            let take = n_survive - out.len();
            let mut shuffled = front.to_vec();
            shuffle(rng, &mut shuffled);
            let mut pos: Vec<usize> = (0..shuffled.len()).collect();
            pos.sort_unstable_by(|&a, &b| {
                cmp_f(crowd[shuffled[b]], crowd[shuffled[a]]).then(a.cmp(&b))
            });
            out.extend(pos.iter().take(take).map(|&p| shuffled[p]));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The search
// ---------------------------------------------------------------------------------------

/// A set of states with their objectives, hashes, ranks and crowding distances.
struct Pool<U> {
    units: usize,
    x: Vec<U>,
    f: Vec<[f64; 2]>,
    hash: Vec<u64>,
    rank: Vec<u32>,
    crowd: Vec<f64>,
}

impl<U: Copy> Pool<U> {
    fn new(units: usize, capacity: usize) -> Self {
        // Reserve for typical sizes only; larger pools grow as needed.
        let capacity = capacity.min(1 << 12);
        Pool {
            units,
            x: Vec::with_capacity(units.saturating_mul(capacity)),
            f: Vec::with_capacity(capacity),
            hash: Vec::with_capacity(capacity),
            rank: Vec::with_capacity(capacity),
            crowd: Vec::with_capacity(capacity),
        }
    }

    fn len(&self) -> usize {
        self.f.len()
    }

    fn state(&self, i: usize) -> &[U] {
        &self.x[i * self.units..(i + 1) * self.units]
    }

    fn push(&mut self, x: &[U], f: [f64; 2], hash: u64) {
        self.x.extend_from_slice(x);
        self.f.push(f);
        self.hash.push(hash);
    }

    /// Replace `self` by `src`'s members `idx`, in that order, with `src`'s ranks and crowding.
    fn gather_from(&mut self, src: &Pool<U>, idx: &[usize]) {
        self.x.clear();
        self.f.clear();
        self.hash.clear();
        self.rank.clear();
        self.crowd.clear();
        for &i in idx {
            self.x.extend_from_slice(src.state(i));
            self.f.push(src.f[i]);
            self.hash.push(src.hash[i]);
            self.rank.push(src.rank[i]);
            self.crowd.push(src.crowd[i]);
        }
    }
}

fn run<E: Engine>(
    mut eng: E,
    problem: &Problem,
    initial: &[Vec<u32>],
    params: &GaParams,
    rng: &mut Rng,
) -> GaResult {
    let units = eng.units();
    let row_units = eng.row_units();
    let nj = problem.jobs.len();
    let cells = nj * problem.num_nodes;
    let population = params.population.min(MAX_POPULATION);
    let n_off = population;
    let cross = Coin::new(params.crossover_prob);

    // Initialization: repair the sampled states, drop duplicates, evaluate, rank.
    let base_u32 = eng.unload(eng.base());
    let mut sources: Vec<&[u32]> = initial
        .iter()
        .filter(|s| s.len() == cells)
        .map(|s| s.as_slice())
        .collect();
    if sources.is_empty() {
        sources.push(&base_u32);
    }
    let capacity = sources.len().max(population) + n_off;
    // `pool` holds the population (its first `pop_len` members) followed by the offspring
    // of the generation being built; survivors are gathered into `next` and the two swap.
    let mut pool = Pool::<E::Unit>::new(units, capacity);
    let mut next = Pool::<E::Unit>::new(units, capacity);
    let mut table = Table::new();
    table.reset(sources.len());
    let mut kid = vec![E::Unit::default(); units];
    for s in &sources {
        eng.load(s, &mut kid);
        eng.repair(&mut kid, rng);
        let h = E::hash(&kid);
        if table.insert(h, &kid, &next.x, &next.hash, units, next.len()) {
            let fv = eng.score();
            next.push(&kid, fv, h);
        }
    }
    let survivors = survive(&next.f, next.len(), rng, &mut next.rank, &mut next.crowd);
    pool.gather_from(&next, &survivors);

    // Mating generations.
    let mut kids: Vec<E::Unit> = Vec::new();
    let mut contestants = Vec::new();
    let mut winners = Vec::new();
    for _ in 1..params.generations {
        let pop_len = pool.len();
        if pop_len == 0 {
            break;
        }
        table.reset(pop_len + n_off);
        for i in 0..pop_len {
            table.insert(pool.hash[i], pool.state(i), &pool.x, &pool.hash, units, i);
        }
        let mut accepted = 0usize;
        let mut rounds = 0usize;
        while accepted < n_off {
            let matings = (n_off - accepted).div_ceil(2);
            tournament(
                &pool.f[..pop_len],
                &pool.crowd[..pop_len],
                2 * matings,
                rng,
                &mut contestants,
                &mut winners,
            );
            if winners.len() < 2 * matings {
                break;
            }
            // Children: the first child of every mating, then the second of every mating.
            kids.clear();
            for pair in winners.chunks_exact(2) {
                kids.extend_from_slice(pool.state(pair[0]));
            }
            for pair in winners.chunks_exact(2) {
                kids.extend_from_slice(pool.state(pair[1]));
            }
            {
                let (first, second) = kids.split_at_mut(matings * units);
                for (c0, c1) in first
                    .chunks_exact_mut(units)
                    .zip(second.chunks_exact_mut(units))
                {
                    if cross.flip(rng) {
                        // One-point crossover over jobs: rows j < point are exchanged.
                        let k = below(rng, nj as u64) as usize * row_units;
                        c0[..k].swap_with_slice(&mut c1[..k]);
                    }
                }
            }
            // Mutate, repair and keep the children that are new. Children past the number
            // still needed would be dropped anyway, so they are not processed.
            for child in kids.chunks_exact_mut(units) {
                if accepted == n_off {
                    break;
                }
                eng.mutate(child, rng);
                eng.repair(child, rng);
                let h = E::hash(child);
                if table.insert(h, child, &pool.x, &pool.hash, units, pool.len()) {
                    let fv = eng.score();
                    pool.push(child, fv, h);
                    accepted += 1;
                }
            }
            rounds += 1;
            if rounds > MAX_EXTRA_ROUNDS {
                break;
            }
        }
        if accepted == 0 {
            // pymoo stops when mating finds nothing new.
            break;
        }
        let survivors = survive(&pool.f, population, rng, &mut pool.rank, &mut pool.crowd);
        next.gather_from(&pool, &survivors);
        std::mem::swap(&mut pool, &mut next);
    }

    // The final rank-0 front, and in it the best fairness (first on ties). Offspring of an
    // unfinished last generation, if any, are not part of the population.
    let mut front = Vec::new();
    let mut best: Option<(f64, usize)> = None;
    for i in 0..pool.rank.len().min(pool.len()) {
        if pool.rank[i] != 0 {
            continue;
        }
        let f0 = pool.f[i][0];
        if best.is_none_or(|(b, _)| f0 < b) {
            best = Some((f0, front.len()));
        }
        front.push(eng.unload(pool.state(i)));
    }
    let best = match best {
        Some((_, k)) => front.get(k).cloned().unwrap_or_else(|| base_u32.clone()),
        None => base_u32,
    };
    GaResult { best, front }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// speedup = replicas.
    struct Linear;
    impl Speedup for Linear {
        fn speedup(&mut self, _job: usize, _nodes: u32, replicas: u32) -> f64 {
            f64::from(replicas)
        }
    }

    /// speedup = replicas - 0.5 * (nodes - 1): spreading over nodes costs.
    struct Spread;
    impl Speedup for Spread {
        fn speedup(&mut self, _job: usize, nodes: u32, replicas: u32) -> f64 {
            f64::from(replicas) - 0.5 * (f64::from(nodes) - 1.0)
        }
    }

    /// A concave, placement-sensitive speedup normalised to the fair share, memoised by the
    /// caller as Pollux's policy does.
    struct Concave {
        fair: f64,
        calls: usize,
        memo: HashMap<(usize, u32, u32), f64>,
    }
    impl Speedup for Concave {
        fn speedup(&mut self, job: usize, nodes: u32, replicas: u32) -> f64 {
            let fair = self.fair;
            self.calls += 1;
            *self.memo.entry((job, nodes, replicas)).or_insert_with(|| {
                let r = f64::from(replicas);
                let eff = 1.0 / (1.0 + 0.03 * (job % 5) as f64 * (r - 1.0));
                let net = if nodes > 1 { 0.85 } else { 1.0 };
                r * eff * net / fair
            })
        }
    }

    fn jobs(max: &[u32]) -> Vec<GaJob> {
        max.iter()
            .map(|&m| GaJob {
                max_replicas: m,
                age_s: 1000.0,
                num_restarts: 0,
            })
            .collect()
    }

    fn node_totals(x: &[u32], nn: usize) -> Vec<u32> {
        let mut t = vec![0; nn];
        for row in x.chunks_exact(nn) {
            for (a, &v) in t.iter_mut().zip(row) {
                *a += v;
            }
        }
        t
    }

    /// The three repair guarantees.
    fn check_valid(x: &[u32], jobs: &[GaJob], nn: usize, g: u32) {
        assert_eq!(x.len(), jobs.len() * nn);
        for t in node_totals(x, nn) {
            assert!(t <= g, "node over-allocated: {x:?}");
        }
        let mut distributed_on = vec![0; nn];
        for (row, job) in x.chunks_exact(nn).zip(jobs) {
            assert!(
                row.iter().sum::<u32>() <= job.max_replicas,
                "max replicas: {x:?}"
            );
            if row.iter().filter(|&&v| v > 0).count() > 1 {
                for (d, &v) in distributed_on.iter_mut().zip(row) {
                    *d += u32::from(v > 0);
                }
            }
        }
        assert!(
            distributed_on.iter().all(|&d| d <= 1),
            "two distributed jobs share a node: {x:?}"
        );
    }

    /// Repair `state` with both representations from the same random stream; they must
    /// agree, including the objectives. Returns the repaired state.
    fn repair_both(problem: &Problem, state: &[u32], seed: u64) -> Vec<u32> {
        let a = match problem.num_nodes.div_ceil(8) {
            1 => repair_both_with::<1>(problem, state, seed),
            2 => repair_both_with::<2>(problem, state, seed),
            3 | 4 => repair_both_with::<4>(problem, state, seed),
            _ => repair_both_with::<8>(problem, state, seed),
        };
        // Wider rows (more zero padding) give the same result.
        assert_eq!(a, repair_both_with::<8>(problem, state, seed));
        a
    }

    fn repair_both_with<const W: usize>(problem: &Problem, state: &[u32], seed: u64) -> Vec<u32> {
        let params = GaParams::default();
        let (mut s1, mut s2) = (Linear, Linear);
        let mut packed = Packed::<W>::new(problem, &mut s1, &params);
        let mut wide = Wide::new(problem, &mut s2, &params);
        let mut xp = vec![0u64; packed.units()];
        let mut xw = vec![0u32; wide.units()];
        packed.load(state, &mut xp);
        wide.load(state, &mut xw);
        let (mut r1, mut r2) = (Rng::new(seed), Rng::new(seed));
        packed.repair(&mut xp, &mut r1);
        wide.repair(&mut xw, &mut r2);
        let out = packed.unload(&xp);
        assert_eq!(out, wide.unload(&xw));
        assert_eq!(r1, r2);
        let f = packed.score();
        assert_eq!(f, wide.score());
        assert_eq!(f, objectives(problem, &mut Linear, &out, &params));
        out
    }

    #[test]
    fn repair_enforces_capacity_max_replicas_and_one_distributed_job_per_node() {
        let mut rng = Rng::new(7);
        for _ in 0..800 {
            let nj = 1 + rng.below(8) as usize;
            let nn = 1 + rng.below(19) as usize;
            let g = 1 + rng.below(8) as u32;
            let js: Vec<GaJob> = (0..nj)
                .map(|_| GaJob {
                    max_replicas: rng.below(12) as u32,
                    age_s: 100.0,
                    num_restarts: rng.below(2) as u32,
                })
                .collect();
            let base: Vec<u32> = (0..nj * nn).map(|_| rng.below(2) as u32).collect();
            let problem = Problem {
                jobs: &js,
                num_nodes: nn,
                gpus_per_node: g,
                base: &base,
            };
            let x: Vec<u32> = (0..nj * nn)
                .map(|_| rng.below(u64::from(g) + 3) as u32)
                .collect();
            let seed = rng.next_u64();
            let fixed = repair_both(&problem, &x, seed);
            check_valid(&fixed, &js, nn, g);
            // Repair leaves a valid state alone.
            assert_eq!(repair_both(&problem, &fixed, seed + 1), fixed);
        }
    }

    #[test]
    fn mutation_then_repair_agree_across_representations() {
        mutation_then_repair_agree::<1>(1..9);
        mutation_then_repair_agree::<2>(9..17);
        mutation_then_repair_agree::<4>(1..33);
        mutation_then_repair_agree::<8>(30..65);
    }

    fn mutation_then_repair_agree<const W: usize>(nodes: std::ops::Range<u64>) {
        let mut rng = Rng::new(8);
        for _ in 0..400 {
            let nj = 1 + rng.below(8) as usize;
            let nn = (nodes.start + rng.below(nodes.end - nodes.start)) as usize;
            let g = 1 + rng.below(8) as u32;
            let js: Vec<GaJob> = (0..nj)
                .map(|_| GaJob {
                    max_replicas: rng.below(12) as u32,
                    age_s: 100.0,
                    num_restarts: 0,
                })
                .collect();
            let base: Vec<u32> = (0..nj * nn).map(|_| rng.below(2) as u32).collect();
            let problem = Problem {
                jobs: &js,
                num_nodes: nn,
                gpus_per_node: g,
                base: &base,
            };
            let params = GaParams {
                reset_prob: 0.3,
                mark_prob: 0.3,
                zero_prob: 0.3,
                ..GaParams::default()
            };
            let (mut s1, mut s2) = (Linear, Linear);
            let mut packed = Packed::<W>::new(&problem, &mut s1, &params);
            let mut wide = Wide::new(&problem, &mut s2, &params);
            let x: Vec<u32> = (0..nj * nn)
                .map(|_| rng.below(u64::from(g) + 1) as u32)
                .collect();
            let mut xp = vec![0u64; packed.units()];
            let mut xw = vec![0u32; wide.units()];
            packed.load(&x, &mut xp);
            wide.load(&x, &mut xw);
            let seed = rng.next_u64();
            let (mut r1, mut r2) = (Rng::new(seed), Rng::new(seed));
            for _ in 0..3 {
                packed.mutate(&mut xp, &mut r1);
                wide.mutate(&mut xw, &mut r2);
                assert_eq!(packed.unload(&xp), wide.unload(&xw));
                packed.repair(&mut xp, &mut r1);
                wide.repair(&mut xw, &mut r2);
                let out = packed.unload(&xp);
                assert_eq!(out, wide.unload(&xw));
                check_valid(&out, &js, nn, g);
            }
        }
    }

    #[test]
    fn mutation_only_grows_entries_on_nodes_with_free_gpus() {
        // Node 0 is full (job 0 holds its 4 GPUs), node 1 is empty. With reset and zeroing
        // off, only node 1 can change, and entries never shrink.
        let js = jobs(&[8, 8]);
        let base = vec![4, 0, 0, 0];
        let problem = Problem {
            jobs: &js,
            num_nodes: 2,
            gpus_per_node: 4,
            base: &base,
        };
        let params = GaParams {
            reset_prob: 0.0,
            mark_prob: 0.0,
            ..GaParams::default()
        };
        let mut sp = Linear;
        let mut packed = Packed::<1>::new(&problem, &mut sp, &params);
        let mut rng = Rng::new(3);
        let mut grown = 0;
        for _ in 0..500 {
            let mut x = vec![0u64; packed.units()];
            packed.load(&base, &mut x);
            packed.mutate(&mut x, &mut rng);
            let out = packed.unload(&x);
            assert_eq!(out[0], 4);
            assert_eq!(out[2], 0);
            grown += usize::from(out[1] > 0) + usize::from(out[3] > 0);
        }
        // Each empty entry on node 1 grows with probability 1/J = 1/2 and then is nonzero
        // with probability 4/5: about 0.4 * 1000 = 400.
        assert!((320..480).contains(&grown), "{grown}");
    }

    #[test]
    fn repair_zeroes_everything_after_the_second_distributed_job_on_a_node() {
        // Node 0 holds job 0 (distributed over nodes 0, 1), job 1 (distributed over 0, 2)
        // and job 2 (only on node 0). From job 1 on, node 0 is cleared, job 2 included.
        let js = jobs(&[10, 10, 10]);
        let base = vec![0u32; 9];
        let problem = Problem {
            jobs: &js,
            num_nodes: 3,
            gpus_per_node: 8,
            base: &base,
        };
        let out = repair_both(&problem, &[1, 1, 0, 1, 0, 1, 2, 0, 0], 1);
        assert_eq!(out, vec![1, 1, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn repair_caps_replicas_and_gives_capacity_by_priority() {
        let js = jobs(&[3, 8]);
        let base = vec![0u32; 4];
        let problem = Problem {
            jobs: &js,
            num_nodes: 2,
            gpus_per_node: 4,
            base: &base,
        };
        // Job 0 asks for 4 on node 0 only: capped to 3. Job 1 then gets the 1 GPU left.
        assert_eq!(repair_both(&problem, &[4, 0, 4, 0], 1), vec![3, 0, 1, 0]);
        // Job 0 asks for 2 + 2 with a cap of 3: one node keeps 2, the other 1, either way.
        let out = repair_both(&problem, &[2, 2, 0, 0], 5);
        assert_eq!(out[0] + out[1], 3);
        assert!(out[0] >= 1 && out[1] >= 1);
    }

    #[test]
    fn representations_give_identical_searches() {
        let (js, base) = random_problem(9, 4);
        let problem = Problem {
            jobs: &js,
            num_nodes: 16,
            gpus_per_node: 4,
            base: &base,
        };
        let params = GaParams {
            generations: 30,
            ..GaParams::default()
        };
        let (mut s1, mut s2) = (Linear, Linear);
        let a = run(
            Packed::<2>::new(&problem, &mut s1, &params),
            &problem,
            &[],
            &params,
            &mut Rng::new(3),
        );
        let b = run(
            Wide::new(&problem, &mut s2, &params),
            &problem,
            &[],
            &params,
            &mut Rng::new(3),
        );
        assert_eq!(a.best, b.best);
        assert_eq!(a.front, b.front);
    }

    #[test]
    fn objectives_by_hand() {
        // 2 jobs, 2 nodes x 4 GPUs: scale = num_nodes / total GPUs = 2 / 8 = 0.25.
        // speedup(n, r) = r - 0.5 (n - 1).
        // Job 0: age 100 s, 1 restart, base [1, 0], state [2, 0] -> changed;
        //   s0 = 2, restart factor = max(100 - 30, 0) / (100 + 30) = 70/130 = 0.538461...,
        //   scaled0 = 2 * 0.25 * 70/130 = 0.269230769...
        // Job 1: age 50 s, 0 restarts, base [0, 0], state [1, 1] -> changed;
        //   s1 = 2 - 0.5 = 1.5, factor = 50/80 = 0.625, scaled1 = 1.5 * 0.25 * 0.625 = 0.234375.
        // F0 = -[ (1/(0.269230769 + 0.001) + 1/(0.234375 + 0.001)) / 2 ]^-1
        //    = -[ (3.700541  + 4.248540) / 2 ]^-1 = -0.251601
        // Both nodes are used: F1 = -(2 + 1.5) / (4 * 2) = -0.4375.
        let js = vec![
            GaJob {
                max_replicas: 8,
                age_s: 100.0,
                num_restarts: 1,
            },
            GaJob {
                max_replicas: 8,
                age_s: 50.0,
                num_restarts: 0,
            },
        ];
        let base = vec![1, 0, 0, 0];
        let problem = Problem {
            jobs: &js,
            num_nodes: 2,
            gpus_per_node: 4,
            base: &base,
        };
        let params = GaParams::default();
        let f = objectives(&problem, &mut Spread, &[2, 0, 1, 1], &params);
        let s0 = 2.0 * 0.25 * 70.0 / 130.0;
        let s1 = 1.5 * 0.25 * 0.625;
        let f0 = -1.0 / ((1.0 / (s0 + 1e-3) + 1.0 / (s1 + 1e-3)) / 2.0);
        assert!((f[0] - f0).abs() < 1e-12, "{f:?} vs {f0}");
        assert!((f[0] - -0.251601).abs() < 1e-6, "{f:?}");
        assert!((f[1] - -0.4375).abs() < 1e-12, "{f:?}");

        // The state equal to the base pays no restart factor:
        // scaled0 = 1 * 0.25 = 0.25, job 1 has no GPUs (scaled 0), one node used.
        // F0 = -[(1/0.251 + 1/0.001) / 2]^-1 = -0.001992063, F1 = -1 / 4.
        let f = objectives(&problem, &mut Spread, &base, &params);
        let f0 = -1.0 / ((1.0 / 0.251 + 1.0 / 0.001) / 2.0);
        assert!((f[0] - f0).abs() < 1e-12, "{f:?} vs {f0}");
        assert!((f[1] - -0.25).abs() < 1e-12, "{f:?}");

        // The engines' evaluation after a (no-op) repair agrees with objectives().
        let mut sp = Spread;
        let mut eng = Packed::<1>::new(&problem, &mut sp, &params);
        let mut x = vec![0u64; eng.units()];
        eng.load(&[2, 0, 1, 1], &mut x);
        eng.repair(&mut x, &mut Rng::new(1));
        assert_eq!(eng.unload(&x), vec![2, 0, 1, 1]);
        let g = eng.score();
        let h = objectives(&problem, &mut Spread, &[2, 0, 1, 1], &params);
        assert_eq!(g, h);
    }

    #[test]
    fn linear_speedup_splits_the_cluster_evenly() {
        let js = jobs(&[8, 8]);
        let base = vec![0u32; 8];
        let problem = Problem {
            jobs: &js,
            num_nodes: 4,
            gpus_per_node: 4,
            base: &base,
        };
        for seed in 0..3 {
            let r = optimize(
                &problem,
                &mut Linear,
                &[],
                &GaParams::default(),
                &mut Rng::new(seed),
            );
            check_valid(&r.best, &js, 4, 4);
            let sums: Vec<u32> = r.best.chunks_exact(4).map(|row| row.iter().sum()).collect();
            assert_eq!(sums, vec![8, 8], "seed {seed}: {:?}", r.best);
            assert!(r.front.contains(&r.best));
        }
    }

    fn random_problem(nj: usize, seed: u64) -> (Vec<GaJob>, Vec<u32>) {
        let mut rng = Rng::new(seed);
        let js: Vec<GaJob> = (0..nj)
            .map(|_| GaJob {
                max_replicas: 1 + rng.below(16) as u32,
                age_s: rng.range(0.0, 5000.0),
                num_restarts: rng.below(4) as u32,
            })
            .collect();
        // A valid base: each job holds up to 2 GPUs on one node while room lasts.
        let mut base = vec![0u32; nj * 16];
        let mut used = [0u32; 16];
        for j in 0..nj {
            let n = rng.below(16) as usize;
            let want = rng.below(3) as u32;
            let t = want.min(4 - used[n]).min(js[j].max_replicas);
            base[j * 16 + n] = t;
            used[n] += t;
        }
        (js, base)
    }

    #[test]
    fn same_seed_same_result_and_results_are_valid() {
        let (js, base) = random_problem(12, 3);
        let problem = Problem {
            jobs: &js,
            num_nodes: 16,
            gpus_per_node: 4,
            base: &base,
        };
        let params = GaParams::default();
        let mut sp = Concave {
            fair: 6.0,
            calls: 0,
            memo: HashMap::new(),
        };
        let a = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(11));
        let b = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(11));
        assert_eq!(a.best, b.best);
        assert_eq!(a.front, b.front);
        check_valid(&a.best, &js, 16, 4);
        for s in &a.front {
            check_valid(s, &js, 16, 4);
        }
        // Warm start from the front: still deterministic and valid.
        let c = optimize(&problem, &mut sp, &a.front, &params, &mut Rng::new(12));
        let d = optimize(&problem, &mut sp, &a.front, &params, &mut Rng::new(12));
        assert_eq!(c.best, d.best);
        assert_eq!(c.front, d.front);
        check_valid(&c.best, &js, 16, 4);
        // Different seeds explore differently.
        let fronts: Vec<Vec<Vec<u32>>> = (20..24)
            .map(|s| optimize(&problem, &mut sp, &[], &params, &mut Rng::new(s)).front)
            .collect();
        assert!(fronts.iter().any(|f| *f != fronts[0]));
    }

    #[test]
    fn best_is_on_the_front_with_the_best_fairness() {
        let (js, base) = random_problem(20, 5);
        let problem = Problem {
            jobs: &js,
            num_nodes: 16,
            gpus_per_node: 4,
            base: &base,
        };
        let params = GaParams::default();
        let mut sp = Concave {
            fair: 4.0,
            calls: 0,
            memo: HashMap::new(),
        };
        let r = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(1));
        check_valid(&r.best, &js, 16, 4);
        let fb = objectives(&problem, &mut sp, &r.best, &params);
        let fs: Vec<[f64; 2]> = r
            .front
            .iter()
            .map(|s| objectives(&problem, &mut sp, s, &params))
            .collect();
        for f in &fs {
            assert!(fb[0] <= f[0]);
            // Front members do not dominate each other.
            for g in &fs {
                assert_ne!(relation(*f, *g), 1);
            }
        }
        // Better than (or as good as) doing nothing, on fairness.
        let f_base = objectives(&problem, &mut sp, &base, &params);
        assert!(fb[0] <= f_base[0]);
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let params = GaParams::default();
        let mut rng = Rng::new(1);
        // No jobs.
        let p = Problem {
            jobs: &[],
            num_nodes: 16,
            gpus_per_node: 4,
            base: &[],
        };
        let r = optimize(&p, &mut Linear, &[], &params, &mut rng);
        assert!(r.best.is_empty() && r.front.is_empty());
        assert_eq!(objectives(&p, &mut Linear, &[], &params), [0.0, 0.0]);
        // No nodes, no GPUs.
        let js = jobs(&[4, 4]);
        for (nn, g) in [(0usize, 4u32), (3, 0)] {
            let base = vec![0u32; 2 * nn];
            let p = Problem {
                jobs: &js,
                num_nodes: nn,
                gpus_per_node: g,
                base: &base,
            };
            let r = optimize(&p, &mut Linear, &[vec![1; 2 * nn]], &params, &mut rng);
            assert_eq!(r.best, vec![0; 2 * nn]);
            let f = objectives(&p, &mut Linear, &r.best, &params);
            assert!(f.iter().all(|v| !v.is_nan()));
        }
        // Short base, wrong-length and oversized warm starts, zero max replicas, huge nodes.
        let js = jobs(&[0, 3, 1000]);
        let p = Problem {
            jobs: &js,
            num_nodes: 2,
            gpus_per_node: 300,
            base: &[5],
        };
        let r = optimize(
            &p,
            &mut Linear,
            &[vec![1, 2], vec![999; 6]],
            &params,
            &mut rng,
        );
        check_valid(&r.best, &js, 2, 300);
        // Tiny searches, population 0 and 1, one generation.
        for (pop, gens) in [(0, 5), (1, 5), (2, 1), (3, 0)] {
            let params = GaParams {
                population: pop,
                generations: gens,
                ..GaParams::default()
            };
            let js = jobs(&[1]);
            let p = Problem {
                jobs: &js,
                num_nodes: 1,
                gpus_per_node: 1,
                base: &[0],
            };
            let r = optimize(&p, &mut Linear, &[], &params, &mut rng);
            check_valid(&r.best, &js, 1, 1);
        }
        // Odd parameters and a NaN speedup.
        struct Nan;
        impl Speedup for Nan {
            fn speedup(&mut self, _: usize, _: u32, _: u32) -> f64 {
                f64::NAN
            }
        }
        let params = GaParams {
            population: 10,
            generations: 10,
            crossover_prob: f64::NAN,
            reset_prob: 2.0,
            mark_prob: -1.0,
            zero_prob: 1.0,
            restart_penalty_s: 1e12,
            power: 0.0,
        };
        let js = jobs(&[4, 4, 4]);
        let base = vec![0u32; 12];
        let p = Problem {
            jobs: &js,
            num_nodes: 4,
            gpus_per_node: 4,
            base: &base,
        };
        let r = optimize(&p, &mut Nan, &[], &params, &mut rng);
        check_valid(&r.best, &js, 4, 4);
    }

    #[test]
    fn geometric_gaps_have_the_geometric_distribution() {
        // Table inversion (0.3, 0.1, 1/20), the logarithm for small p (0.004), the
        // "64 more failures" path (0.02), and the trivial cases.
        let mut rng = Rng::new(17);
        for p in [0.3, 0.1, 0.05, 0.02, 0.004] {
            let g = Geometric::new(p);
            let n = 200_000;
            let (mut sum, mut zeros) = (0.0, 0);
            for _ in 0..n {
                let d = g.draw(&mut rng);
                sum += d as f64;
                zeros += usize::from(d == 0);
            }
            let mean = (1.0 - p) / p;
            let sd = ((1.0 - p) / (p * p) / n as f64).sqrt();
            assert!(
                (sum / n as f64 - mean).abs() < 5.0 * sd,
                "p {p}: {}",
                sum / n as f64
            );
            let p0 = zeros as f64 / n as f64;
            assert!(
                (p0 - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(),
                "p {p}: {p0}"
            );
        }
        assert_eq!(Geometric::new(1.0).draw(&mut rng), 0);
        assert_eq!(Geometric::new(0.0).draw(&mut rng), usize::MAX);
        assert_eq!(Geometric::new(f64::NAN).draw(&mut rng), usize::MAX);
    }

    #[test]
    fn large_nodes_and_large_clusters_use_the_wide_form() {
        let params = GaParams {
            generations: 20,
            ..GaParams::default()
        };
        // 200 GPUs per node, and 70 nodes: both beyond the packed form.
        for (nn, g) in [(3usize, 200u32), (70, 4)] {
            let (js, _) = random_problem(6, 9);
            let base = vec![0u32; 6 * nn];
            let problem = Problem {
                jobs: &js,
                num_nodes: nn,
                gpus_per_node: g,
                base: &base,
            };
            let r = optimize(&problem, &mut Linear, &[], &params, &mut Rng::new(2));
            check_valid(&r.best, &js, nn, g);
            assert!(!r.front.is_empty());
            let total: u32 = r.best.iter().sum();
            assert!(total > 0);
        }
    }

    #[test]
    fn warm_start_with_more_states_than_the_population() {
        let (js, base) = random_problem(8, 2);
        let problem = Problem {
            jobs: &js,
            num_nodes: 16,
            gpus_per_node: 4,
            base: &base,
        };
        let mut rng = Rng::new(4);
        let initial: Vec<Vec<u32>> = (0..150)
            .map(|_| (0..8 * 16).map(|_| rng.below(3) as u32).collect())
            .collect();
        let params = GaParams {
            population: 20,
            generations: 10,
            ..GaParams::default()
        };
        let r = optimize(&problem, &mut Linear, &initial, &params, &mut rng);
        check_valid(&r.best, &js, 16, 4);
        assert!(!r.front.is_empty() && r.front.len() <= 20);
        for s in &r.front {
            check_valid(s, &js, 16, 4);
        }
    }

    #[test]
    fn survival_and_crowding_follow_pymoo() {
        // Front 0: (0,3), (1,1), (3,0) and a duplicate of (1,1); front 1: (2,2); front 2: (3,3).
        let f = [
            [1.0, 1.0],
            [0.0, 3.0],
            [2.0, 2.0],
            [3.0, 0.0],
            [1.0, 1.0],
            [3.0, 3.0],
        ];
        let mut rank = Vec::new();
        let mut crowd = Vec::new();
        let s = survive(&f, 6, &mut Rng::new(1), &mut rank, &mut crowd);
        assert_eq!(rank, vec![0, 0, 1, 0, 0, 2]);
        assert_eq!(s.len(), 6);
        assert_eq!(&s[4..], &[2, 5]);
        // Extremes infinite; (1,1): ((1-0)/3 + (3-1)/3 + (3-1)/3 + (1-0)/3) / 2 = 1; the
        // duplicate 0; fronts of one point infinite.
        assert_eq!(crowd[1], f64::INFINITY);
        assert_eq!(crowd[3], f64::INFINITY);
        assert!((crowd[0] - 1.0).abs() < 1e-12);
        assert_eq!(crowd[4], 0.0);
        assert_eq!(crowd[2], f64::INFINITY);
        // Cutting front 0 to 3 keeps the two extremes and the interior point.
        let s = survive(&f, 3, &mut Rng::new(2), &mut rank, &mut crowd);
        let mut s3 = s.clone();
        s3.sort_unstable();
        assert_eq!(s3, vec![0, 1, 3]);
        // Three copies of one point: all crowding 0 (pymoo's 0/0 rule).
        let f = [[1.0, 1.0]; 3];
        survive(&f, 3, &mut Rng::new(3), &mut rank, &mut crowd);
        assert_eq!(crowd, vec![0.0; 3]);
    }

    #[test]
    fn sweep_fronts_match_a_quadratic_sort() {
        let mut rng = Rng::new(9);
        for _ in 0..200 {
            let m = 1 + rng.below(60) as usize;
            let f: Vec<[f64; 2]> = (0..m)
                .map(|_| [rng.below(6) as f64, rng.below(6) as f64])
                .collect();
            let mut rank = Vec::new();
            let mut crowd = Vec::new();
            survive(&f, m, &mut rng, &mut rank, &mut crowd);
            // Reference: peel off non-dominated sets.
            let mut left: Vec<usize> = (0..m).collect();
            let mut k = 0;
            while !left.is_empty() {
                let nd: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|&i| left.iter().all(|&j| relation(f[j], f[i]) != 1))
                    .collect();
                for &i in &nd {
                    assert_eq!(rank[i], k);
                }
                left.retain(|i| !nd.contains(i));
                k += 1;
            }
        }
    }

    /// CPU time of this thread (Linux), to measure on a busy machine.
    fn thread_cpu_ns() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }

    /// Prints milliseconds per optimize() call at J = 10, 20, 40 on 16 nodes x 4 GPUs with
    /// the default parameters. A chain of 40 calls, each warm-started from the previous
    /// front and allocation as Pollux does, is recorded and then replayed five times; the
    /// fastest replay counts (the machine may be shared).
    /// Run with `cargo test --release -- --ignored --nocapture bench`.
    #[test]
    #[ignore]
    fn bench_ms_per_call() {
        for nj in [10usize, 20, 40] {
            let (js, mut base) = random_problem(nj, 42);
            let fair = (64.0 / nj as f64).ceil();
            let mut sp = Concave {
                fair,
                calls: 0,
                memo: HashMap::new(),
            };
            let params = GaParams::default();
            let mut rng = Rng::new(5);
            let mut front: Vec<Vec<u32>> = Vec::new();
            let mut inputs = Vec::new();
            for _ in 0..40 {
                inputs.push((base.clone(), front.clone(), rng.clone()));
                let problem = Problem {
                    jobs: &js,
                    num_nodes: 16,
                    gpus_per_node: 4,
                    base: &base,
                };
                let r = optimize(&problem, &mut sp, &front, &params, &mut rng);
                base = r.best;
                front = r.front;
            }
            let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..5 {
                let t = std::time::Instant::now();
                let c0 = thread_cpu_ns();
                for (b, f, r) in &inputs {
                    let problem = Problem {
                        jobs: &js,
                        num_nodes: 16,
                        gpus_per_node: 4,
                        base: b,
                    };
                    let mut sp = Concave {
                        fair,
                        calls: 0,
                        memo: HashMap::new(),
                    };
                    optimize(&problem, &mut sp, f, &params, &mut r.clone());
                }
                wall = wall.min(t.elapsed().as_secs_f64() * 1e3 / inputs.len() as f64);
                if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
                    cpu = cpu.min((b - a) as f64 * 1e-6 / inputs.len() as f64);
                }
            }
            println!(
                "J = {nj}: {wall:.2} ms per call ({cpu:.2} ms CPU; final front {} states)",
                front.len()
            );
        }
    }
}
