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

mod draws;
mod engine;
mod objective;
mod packed;
pub mod rigid;
mod select;
mod table;
#[cfg(test)]
mod tests;
mod wide;

use crate::rng::Rng;
use draws::{below, Coin};
use engine::Engine;
use objective::Objective;
use packed::{Packed, PACKED_MAX, PACKED_NODES};
use select::{survive, tournament};
use table::Table;
use wide::Wide;

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

/// `v` as a `u32`, saturating.
fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
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

/// The search on one state representation: the first population from `initial` (or the
/// base), then the generations; the answer as [`optimize`] gives it.
fn run<E: Engine>(
    mut eng: E,
    problem: &Problem,
    initial: &[Vec<u32>],
    params: &GaParams,
    rng: &mut Rng,
) -> GaResult {
    let units = eng.units();
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
                        eng.cross(c0, c1, below(rng, nj as u64) as usize);
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
