//! Sia's integer program, solved by a purpose-built method.
//!
//! Every job has options, each a configuration on one GPU type using `gpus` GPUs at a cost,
//! and may instead get nothing at `none_cost` (Sia's lambda_n). Choose at most one option
//! per job so that no type gives out more GPUs than it has, minimising the total cost:
//!
//! ```text
//! minimise   sum_j sum_k cost_jk x_jk + none_cost (N - sum_jk x_jk)
//! subject to sum_k x_jk <= 1                       for every job j
//!            sum_jk gpus_k x_jk [type_k = t] <= C_t  for every GPU type t
//!            x_jk in {0, 1};  x_jk = 1 for a job held to its option k
//! ```
//!
//! It is a multiple-choice knapsack with one capacity per GPU type, and the types are few.
//! Pricing the capacities (Lagrangian relaxation) separates the jobs: at prices `mu_t` per
//! GPU each job takes, on its own, the option of largest `none_cost - cost - mu_t gpus` (or
//! nothing), and
//!
//! ```text
//! L(mu) = sum_j max(0, max_k (none_cost - cost_jk - mu_t(k) gpus_k)) + sum_t mu_t C_t
//! ```
//!
//! bounds the saving over giving nobody anything from above (it equals the LP relaxation's
//! bound at its minimum). [`solve`] lowers `L` by subgradient steps (Polyak's rule against
//! the best solution found), turns each step's choices into a solution (jobs on a type
//! asked for beyond its capacity give up, least loss per GPU first, for their best option
//! that still fits, or nothing) and improves it by single-job moves until none helps; it
//! stops once the best solution is within [`GAP`] of the bound (Sia's artifact gives CBC the
//! same 0.01%) or after [`MAX_ITERATIONS`]. A gap left is closed, when the GPUs are few
//! enough, by dynamic programming over the GPUs used per type (`knapsack.rs`), which
//! visits only the states it reaches and drops those whose bound falls below a floor
//! (first floors a quarter, half and three quarters of the way down from the bound: most
//! gaps close above the best solution the steps found). [`solve_exact`] is the same
//! program over every job and option, for tests and for checking the gap.
//!
//! Hand-written rather than a general MIP solver: the structure (three or so capacity rows
//! over thousands of binaries) makes each pricing step a linear pass, no LP is needed, and
//! the result is bit-identical natively and in the browser (the only arithmetic is `+`,
//! `-`, `*`, `/` and comparisons, in a fixed order).

pub use super::knapsack::EXACT_STATES;
use super::knapsack::{knapsack, Opt, Prune, Slots};

/// One option of a job: a configuration of `gpus` GPUs of type `ty` at `cost`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// Index of the GPU type.
    pub ty: usize,
    /// GPUs it uses.
    pub gpus: u32,
    /// Its cost (Sia's `A_ij`; lower is better).
    pub cost: f64,
}

/// An instance.
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a> {
    /// GPUs of each type.
    pub capacity: &'a [u32],
    /// The cost of giving a job nothing (Sia's lambda_n).
    pub none_cost: f64,
    /// Each job's options.
    pub options: &'a [Vec<Choice>],
    /// Per job, an option it is held to (a job still restarting keeps its configuration).
    pub fixed: &'a [Option<usize>],
}

/// A solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Per job, the option chosen (None: nothing).
    pub pick: Vec<Option<usize>>,
    /// Its total cost.
    pub cost: f64,
    /// A lower bound on the cost of any solution (equal to `cost` when proven optimal).
    pub bound: f64,
    /// Pricing steps taken.
    pub iterations: u32,
}

/// Relative gap at which [`solve`] stops: the best solution is within this fraction of the
/// bound on the saving.
pub const GAP: f64 = 1e-4;

/// Most pricing steps of [`solve`].
pub const MAX_ITERATIONS: u32 = 300;

/// The instance with held jobs taken out: their GPUs leave the capacities, and the other
/// jobs keep the options that save something and fit what is left.
struct Free {
    capacity: Vec<f64>,
    /// Per free job: (job, its options).
    jobs: Vec<(usize, Vec<Opt>)>,
}

fn free_part(p: &Problem, pick: &mut [Option<usize>]) -> Free {
    let mut capacity: Vec<f64> = p.capacity.iter().map(|&c| f64::from(c)).collect();
    for (j, f) in p.fixed.iter().enumerate() {
        let Some(k) = *f else { continue };
        if let Some(o) = p.options.get(j).and_then(|o| o.get(k)) {
            if let Some(c) = capacity.get_mut(o.ty) {
                *c -= f64::from(o.gpus);
            }
            pick[j] = Some(k);
        }
    }
    let mut jobs = Vec::new();
    for (j, opts) in p.options.iter().enumerate() {
        if pick[j].is_some() {
            continue;
        }
        let kept: Vec<Opt> = opts
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                o.cost < p.none_cost
                    && o.cost.is_finite()
                    && capacity.get(o.ty).is_some_and(|&c| f64::from(o.gpus) <= c)
            })
            .map(|(k, o)| (o.ty, o.gpus, p.none_cost - o.cost, k))
            .collect();
        if !kept.is_empty() {
            jobs.push((j, kept));
        }
    }
    Free { capacity, jobs }
}

fn total_cost(p: &Problem, pick: &[Option<usize>]) -> f64 {
    pick.iter()
        .enumerate()
        .map(|(j, k)| match k {
            Some(k) => p.options[j][*k].cost,
            None => p.none_cost,
        })
        .sum()
}

/// Solve `p` to within [`GAP`] (see the module docs).
pub fn solve(p: &Problem) -> Solution {
    let n = p.options.len();
    let mut pick = vec![None; n];
    let free = free_part(p, &mut pick);
    let nt = free.capacity.len();
    let base = total_cost(p, &pick);
    if free.jobs.is_empty() {
        return Solution {
            cost: base,
            bound: base,
            pick,
            iterations: 0,
        };
    }
    // Everything in saving terms: the cost is `base - saving`.
    let mut mu = vec![0.0f64; nt];
    let mut choice = vec![None::<usize>; free.jobs.len()];
    let mut best_saving = f64::NEG_INFINITY;
    let mut best_choice = choice.clone();
    let mut upper = f64::INFINITY;
    let mut best_mu = mu.clone();
    let mut theta = 2.0;
    let mut stall = 0;
    let mut iterations = 0;
    let mut demand = vec![0.0f64; nt];
    let mut work = Vec::new();
    for it in 0..MAX_ITERATIONS {
        iterations = it + 1;
        // Pricing: each job's best option at prices mu.
        demand.fill(0.0);
        let mut l = 0.0;
        for ((_, opts), c) in free.jobs.iter().zip(choice.iter_mut()) {
            let mut best: Option<(usize, f64)> = None;
            for (i, &(ty, g, v, _)) in opts.iter().enumerate() {
                let r = v - mu[ty] * f64::from(g);
                if r > 0.0 && best.is_none_or(|b| r > b.1) {
                    best = Some((i, r));
                }
            }
            *c = best.map(|b| b.0);
            if let Some((i, r)) = best {
                l += r;
                let (ty, g, _, _) = opts[i];
                demand[ty] += f64::from(g);
            }
        }
        l += mu
            .iter()
            .zip(&free.capacity)
            .map(|(m, c)| m * c)
            .sum::<f64>();
        if l < upper - 1e-12 {
            upper = l;
            best_mu.clone_from(&mu);
            stall = 0;
        } else {
            stall += 1;
            if stall >= 10 {
                theta /= 2.0;
                stall = 0;
            }
        }
        // A solution from these choices.
        work.clone_from(&choice);
        let saving = repair_and_improve(&free, &mut work);
        if saving > best_saving {
            best_saving = saving;
            best_choice.clone_from(&work);
        }
        let gap = upper - best_saving;
        if gap <= GAP * upper.abs().max(1e-9) || theta < 1e-6 {
            break;
        }
        // Subgradient step.
        let slack: Vec<f64> = free
            .capacity
            .iter()
            .zip(&demand)
            .map(|(c, d)| c - d)
            .collect();
        let norm: f64 = slack.iter().map(|s| s * s).sum();
        if norm <= 0.0 {
            break;
        }
        let step = theta * gap / norm;
        for (m, s) in mu.iter_mut().zip(&slack) {
            *m = (*m - step * s).max(0.0);
        }
    }
    let mut exact = false;
    if upper - best_saving > 1e-9 {
        if let Some(choice) = close_gap(&free, &best_mu, upper, best_saving) {
            best_choice = choice;
            exact = true;
        }
    } else {
        exact = true;
    }
    for ((j, opts), c) in free.jobs.iter().zip(&best_choice) {
        pick[*j] = c.map(|i| opts[i].3);
    }
    let cost = total_cost(p, &pick);
    Solution {
        bound: if exact {
            cost
        } else {
            (base - upper).min(cost)
        },
        pick,
        cost,
        iterations,
    }
}

/// The floors [`close_gap`] tries in turn, as shares of the way from the bound down to
/// the best solution known.
const FLOOR_SHARES: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

/// Most (states x options) of the dynamic program [`close_gap`] runs.
const EXACT_WORK: usize = 40_000_000;

/// The optimum, when it can be had cheaply: at prices `mu` with bound `upper` on the saving
/// and a solution saving `lower`, a job's choice whose reduced saving falls short of its
/// best by more than `upper - lower` cannot be in a better solution (reduced-cost fixing);
/// jobs left with one choice take it, and the others are solved exactly by dynamic
/// programming over the capacity they leave, if that is small enough (first with floors
/// above `lower`, see [`FLOOR_SHARES`]). None otherwise.
fn close_gap(free: &Free, mu: &[f64], upper: f64, lower: f64) -> Option<Vec<Option<usize>>> {
    let slack = upper - lower + 1e-9;
    let mut choice = vec![None; free.jobs.len()];
    let mut left = free.capacity.clone();
    let mut open: Vec<(usize, Vec<usize>, bool)> = Vec::new();
    for (x, (_, opts)) in free.jobs.iter().enumerate() {
        let reduced: Vec<f64> = opts
            .iter()
            .map(|&(ty, g, v, _)| v - mu[ty] * f64::from(g))
            .collect();
        let best = reduced.iter().copied().fold(0.0f64, f64::max);
        let keep: Vec<usize> = (0..opts.len())
            .filter(|&i| best - reduced[i] <= slack)
            .collect();
        let none_ok = best <= slack;
        match (keep.as_slice(), none_ok) {
            ([], _) => {}
            ([i], false) => {
                choice[x] = Some(*i);
                left[opts[*i].0] -= f64::from(opts[*i].1);
            }
            _ => open.push((x, keep, none_ok)),
        }
    }
    if left.iter().any(|&c| c < 0.0) {
        return None;
    }
    // Any solution at least as good as `lower` saves, on the open jobs, at least what it
    // saves beyond the fixed ones' values.
    let fixed: f64 = free
        .jobs
        .iter()
        .zip(&choice)
        .filter_map(|((_, opts), c)| c.map(|i| opts[i].2))
        .sum();
    // The program drops the states that cannot reach a floor. Lower floors drop fewer, so
    // it first tries floors between the bound and `lower`: a result that reaches its
    // floor is the optimum (every state dropped falls short of it), and one that does not
    // is a solution, so the next floor is at least its saving.
    let margin = 1e-7 * (1.0 + upper.abs());
    let mut picked = None;
    let mut slots = Slots::default();
    let mut reached = f64::NEG_INFINITY;
    for share in FLOOR_SHARES {
        let floor = (upper - share * (upper - lower) - fixed).max(reached) - margin;
        let prune = Prune { mu, floor };
        if let Some((p, v)) = knapsack(
            &free.jobs,
            &open,
            &left,
            EXACT_WORK,
            Some(&prune),
            &mut slots,
        ) {
            if v >= floor || share >= 1.0 {
                picked = Some(p);
                break;
            }
            // A result short of its floor is still a solution: the optimum is no worse.
            reached = reached.max(v);
        }
    }
    // Should rounding have put the floor above the optimum, the program runs again in full.
    let picked = match picked {
        Some(p) => p,
        None => knapsack(&free.jobs, &open, &left, EXACT_WORK, None, &mut slots)?.0,
    };
    for ((x, _, _), p) in open.iter().zip(picked) {
        choice[*x] = p;
    }
    Some(choice)
}

/// Make `choice` fit the capacities and improve it by single-job moves; its saving.
fn repair_and_improve(free: &Free, choice: &mut [Option<usize>]) -> f64 {
    let nt = free.capacity.len();
    let mut left = free.capacity.clone();
    for ((_, opts), c) in free.jobs.iter().zip(choice.iter()) {
        if let Some(i) = *c {
            left[opts[i].0] -= f64::from(opts[i].1);
        }
    }
    // Repair: on every type asked for beyond its capacity, jobs give up their option,
    // least loss per GPU first, for their best option that fits (or nothing).
    for t in 0..nt {
        if left[t] >= 0.0 {
            continue;
        }
        let mut on: Vec<(usize, f64)> = free
            .jobs
            .iter()
            .zip(choice.iter())
            .enumerate()
            .filter_map(|(x, ((_, opts), c))| {
                let i = (*c)?;
                (opts[i].0 == t).then(|| (x, opts[i].2 / f64::from(opts[i].1.max(1))))
            })
            .collect();
        crate::order::sort_by(&mut on, |a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        for (x, _) in on {
            if left[t] >= 0.0 {
                break;
            }
            let opts = &free.jobs[x].1;
            let Some(i) = choice[x] else { continue };
            left[t] += f64::from(opts[i].1);
            choice[x] = None;
            let alt = best_fit(opts, &left, None);
            if let Some(a) = alt {
                left[opts[a].0] -= f64::from(opts[a].1);
                choice[x] = Some(a);
            }
        }
    }
    // Improve: single-job moves to a better option that fits, until none helps.
    for _ in 0..8 {
        let mut moved = false;
        for (x, (_, opts)) in free.jobs.iter().enumerate() {
            let cur = choice[x];
            if let Some(i) = cur {
                left[opts[i].0] += f64::from(opts[i].1);
            }
            let better = best_fit(opts, &left, cur);
            let now = better.or(cur);
            if let Some(i) = now {
                left[opts[i].0] -= f64::from(opts[i].1);
            }
            if now != cur {
                choice[x] = now;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    free.jobs
        .iter()
        .zip(choice.iter())
        .map(|((_, opts), c)| c.map_or(0.0, |i| opts[i].2))
        .sum()
}

/// The option of largest value that fits `left`, if better than `current`.
fn best_fit(opts: &[Opt], left: &[f64], current: Option<usize>) -> Option<usize> {
    let floor = current.map_or(0.0, |i| opts[i].2);
    let mut best: Option<(usize, f64)> = None;
    for (i, &(ty, g, v, _)) in opts.iter().enumerate() {
        if v > floor && f64::from(g) <= left[ty] && best.is_none_or(|b| v > b.1) {
            best = Some((i, v));
        }
    }
    best.map(|b| b.0)
}

/// Every free job open to every option of it and to nothing, for [`knapsack`].
fn every_option(free: &Free) -> Vec<(usize, Vec<usize>, bool)> {
    free.jobs
        .iter()
        .enumerate()
        .map(|(x, (_, opts))| (x, (0..opts.len()).collect(), true))
        .collect()
}

/// The optimum of `p` by dynamic programming over the GPUs used on each type (every job,
/// every option), or None when the states exceed [`EXACT_STATES`].
pub fn solve_exact(p: &Problem) -> Option<Solution> {
    let n = p.options.len();
    let mut pick = vec![None; n];
    let free = free_part(p, &mut pick);
    let open = every_option(&free);
    let (picked, _) = knapsack(
        &free.jobs,
        &open,
        &free.capacity,
        usize::MAX,
        None,
        &mut Slots::default(),
    )?;
    for ((x, _, _), c) in open.iter().zip(picked) {
        let (j, opts) = &free.jobs[*x];
        pick[*j] = c.map(|i| opts[i].3);
    }
    let cost = total_cost(p, &pick);
    Some(Solution {
        pick,
        cost,
        bound: cost,
        iterations: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn c(ty: usize, gpus: u32, cost: f64) -> Choice {
        Choice { ty, gpus, cost }
    }

    fn used(p: &Problem, s: &Solution) -> Vec<u32> {
        let mut u = vec![0; p.capacity.len()];
        for (j, k) in s.pick.iter().enumerate() {
            if let Some(k) = k {
                let o = p.options[j][*k];
                u[o.ty] += o.gpus;
            }
        }
        u
    }

    #[test]
    fn two_jobs_two_types_by_hand() {
        // Type 0 has 4 GPUs, type 1 has 2. Job 0 is best on 4 GPUs of type 0 (0.5), then
        // 2 of type 1 (0.8); job 1 is best on 4 of type 0 too (0.6), else 2 of type 1
        // (0.7). Both cannot have type 0: job 0 there and job 1 on type 1 costs 1.2, the
        // other way 1.4, one job alone at least 0.5 + 1.1. The optimum is 1.2.
        let options = vec![
            vec![c(0, 4, 0.5), c(1, 2, 0.8)],
            vec![c(0, 4, 0.6), c(1, 2, 0.7)],
        ];
        let p = Problem {
            capacity: &[4, 2],
            none_cost: 1.1,
            options: &options,
            fixed: &[None, None],
        };
        let s = solve(&p);
        assert_eq!(s.pick, vec![Some(0), Some(1)]);
        assert!((s.cost - 1.2).abs() < 1e-12);
        assert_eq!(solve_exact(&p).unwrap().pick, s.pick);
        // Held to its option on type 1, job 0 leaves type 0 to job 1: 0.8 + 0.6.
        let p = Problem {
            fixed: &[Some(1), None],
            ..p
        };
        let s = solve(&p);
        assert_eq!(s.pick, vec![Some(1), Some(0)]);
        assert!((s.cost - 1.4).abs() < 1e-12);
        // With room for one job only and nothing better than lambda_n elsewhere, the job
        // that saves more gets it and the other gets nothing.
        let options = vec![vec![c(0, 4, 0.9)], vec![c(0, 4, 0.2)], vec![c(0, 2, 1.5)]];
        let p = Problem {
            capacity: &[4],
            none_cost: 1.1,
            options: &options,
            fixed: &[None, None, None],
        };
        let s = solve(&p);
        assert_eq!(s.pick, vec![None, Some(0), None]);
        assert!((s.cost - (1.1 + 0.2 + 1.1)).abs() < 1e-12);
    }

    /// The plain program: every state of every layer visited in ascending order, a saving
    /// replaced only by a larger one (nothing held first).
    fn dense(free: &Free, capacity: &[f64]) -> (Vec<Option<usize>>, f64) {
        let dims: Vec<usize> = capacity.iter().map(|&c| c as usize + 1).collect();
        let stride: Vec<usize> = (0..dims.len())
            .map(|t| dims[..t].iter().product())
            .collect();
        let states: usize = dims.iter().product();
        let mut best = vec![f64::NEG_INFINITY; states];
        best[0] = 0.0;
        let mut take = Vec::new();
        for (_, opts) in &free.jobs {
            let mut next = best.clone();
            let mut from = vec![0usize; states];
            for (s, &b) in best.iter().enumerate() {
                for (i, &(ty, g, v, _)) in opts.iter().enumerate() {
                    let s2 = s + g as usize * stride[ty];
                    if b > f64::NEG_INFINITY
                        && (s / stride[ty]) % dims[ty] + (g as usize) < dims[ty]
                        && b + v > next[s2]
                    {
                        next[s2] = b + v;
                        from[s2] = i + 1;
                    }
                }
            }
            best = next;
            take.push(from);
        }
        let mut s = 0;
        for t in 0..states {
            if best[t] > best[s] {
                s = t;
            }
        }
        let value = best[s];
        let mut out = vec![None; free.jobs.len()];
        for (x, (_, opts)) in free.jobs.iter().enumerate().rev() {
            if let Some(i) = take[x][s].checked_sub(1) {
                out[x] = Some(i);
                s -= opts[i].1 as usize * stride[opts[i].0];
            }
        }
        (out, value)
    }

    /// The program returns what the plain one does, and with states dropped below a
    /// floor it returns the same, the same choices among equal optima included, whenever
    /// its result reaches the floor, and always when the floor is a solution's saving.
    /// Costs on a coarse grid and jobs repeated make ties common.
    #[test]
    fn dropping_states_below_a_floor_keeps_the_optimum_and_its_ties() {
        let mut rng = Rng::new(5);
        let mut reached = 0;
        for case in 0..300 {
            let caps = [
                4 + rng.below(13) as u32,
                2 + rng.below(9) as u32,
                rng.below(9) as u32,
            ];
            let kinds: Vec<Vec<Choice>> = (0..1 + rng.below(6))
                .map(|_| {
                    let mut o = Vec::new();
                    for ty in 0..3 {
                        for g in [1u32, 2, 4, 8] {
                            if rng.uniform() < 0.5 {
                                o.push(c(ty, g, (rng.uniform() * 10.0).round() / 10.0));
                            }
                        }
                    }
                    o
                })
                .collect();
            let jobs = 2 + rng.below(14) as usize;
            let options: Vec<Vec<Choice>> = (0..jobs)
                .map(|_| kinds[rng.below(kinds.len() as u64) as usize].clone())
                .collect();
            let fixed = vec![None; jobs];
            let p = Problem {
                capacity: &caps,
                none_cost: 1.0,
                options: &options,
                fixed: &fixed,
            };
            let mut pick = vec![None; jobs];
            let free = free_part(&p, &mut pick);
            let open = every_option(&free);
            let mut slots = Slots::default();
            let Some(full) = knapsack(
                &free.jobs,
                &open,
                &free.capacity,
                usize::MAX,
                None,
                &mut slots,
            ) else {
                continue;
            };
            let plain = dense(&free, &free.capacity);
            assert_eq!(full.0, plain.0, "case {case}");
            assert_eq!(full.1.to_bits(), plain.1.to_bits(), "case {case}");
            let mu: Vec<f64> = (0..3).map(|_| rng.uniform() * 0.2).collect();
            let upper = crate::policy::sia::knapsack::lagrangian(&free.jobs, &free.capacity, &mu);
            let mut start = vec![None; free.jobs.len()];
            let lower = repair_and_improve(&free, &mut start);
            assert!(
                lower <= full.1 + 1e-9 && full.1 <= upper + 1e-9,
                "case {case}"
            );
            for share in [0.0, 0.4, 0.7, 1.0] {
                let floor = upper - share * (upper - lower) - 1e-7 * (1.0 + upper.abs());
                let prune = Prune { mu: &mu, floor };
                let got = knapsack(
                    &free.jobs,
                    &open,
                    &free.capacity,
                    usize::MAX,
                    Some(&prune),
                    &mut slots,
                );
                match got {
                    Some((pick, v)) if v >= floor => {
                        reached += 1;
                        assert_eq!(pick, full.0, "case {case}, share {share}");
                        assert_eq!(v.to_bits(), full.1.to_bits(), "case {case}, share {share}");
                    }
                    _ => assert!(share < 1.0, "case {case}: the floor of a solution failed"),
                }
            }
        }
        assert!(reached > 400, "{reached}");
    }

    /// Random instances shaped like Sia's (jobs with 1 to 24 GPUs on three types): the
    /// solution never over-allocates, gives at most one option per job, keeps held jobs,
    /// and is within the gap of the exact optimum.
    #[test]
    fn random_instances_are_feasible_and_near_optimal() {
        let mut rng = Rng::new(11);
        let mut worst: f64 = 0.0;
        for case in 0..200 {
            let caps = [
                8 + rng.below(17) as u32,
                8 + rng.below(9) as u32,
                4 + rng.below(13) as u32,
            ];
            let jobs = 2 + rng.below(40) as usize;
            let options: Vec<Vec<Choice>> = (0..jobs)
                .map(|_| {
                    let mut o = Vec::new();
                    for ty in 0..3 {
                        for g in [1u32, 2, 4, 8, 16] {
                            if rng.uniform() < 0.6 {
                                let cost = (rng.uniform() * 1.3 * 100.0).round() / 100.0;
                                o.push(c(ty, g, cost));
                            }
                        }
                    }
                    o
                })
                .collect();
            let fixed: Vec<Option<usize>> = (0..jobs).map(|_| None).collect();
            let p = Problem {
                capacity: &caps,
                none_cost: 1.1,
                options: &options,
                fixed: &fixed,
            };
            let s = solve(&p);
            let u = used(&p, &s);
            assert!(
                u.iter().zip(&caps).all(|(a, b)| a <= b),
                "case {case}: {u:?} > {caps:?}"
            );
            assert!(s.bound <= s.cost + 1e-9);
            let e = solve_exact(&p).unwrap();
            assert!(used(&p, &e).iter().zip(&caps).all(|(a, b)| a <= b));
            assert!(
                e.cost <= s.cost + 1e-9,
                "case {case}: exact {} > {}",
                e.cost,
                s.cost
            );
            assert!(
                s.bound <= e.cost + 1e-9,
                "case {case}: bound {} > optimum {}",
                s.bound,
                e.cost
            );
            let saving = jobs as f64 * 1.1 - e.cost;
            if saving > 0.0 {
                worst = worst.max((s.cost - e.cost) / saving);
            }
        }
        println!("worst relative loss of saving against the optimum: {worst:.6}");
        assert!(worst < 1e-9, "{worst}");
    }
}
