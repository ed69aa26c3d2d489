//! The search when every job is rigid. A rigid job speeds up only on exactly its own GPU
//! count, and where its gang lands is placement, so a state has nothing to choose but which
//! jobs run. The search is [`super::optimize`]'s own loop (NSGA-II with its two objectives,
//! population, generations, binary tournaments, one-point crossover over the jobs in
//! priority order, and duplicate elimination) on a state of one entry per job:
//!
//! * mutation, Pollux's three steps on a job: back to what it does now with probability
//!   `reset_prob`; stopped with probability `mark_prob * zero_prob` (a marked row losing an
//!   entry); started, when it does not run, with probability 1 / J (step 3's growth);
//! * repair: jobs that run now and still run keep their GPUs; the others, in priority
//!   order, take their count on the first type (cluster order) they run on with that many
//!   GPUs free, or do not run;
//! * objectives: fairness as in the full search (a job that starts, or stops, counts as
//!   changed); utility with the GPUs in use rounded up to whole servers.
//!
//! The full search's genome is a J x N matrix of GPU counts, almost all of whose states
//! give a rigid job a count other than its own (speedup 0); on a cluster of 36 single-GPU
//! servers it took 8-30 ms a call, this one a few milliseconds.
//!
//! When every job runs already, the current allocation is the only state with the best
//! fairness: any other stops a job (its speedup falls to 0) or moves one (its restart factor
//! is below 1). The answer is then the current allocation, with no search and no draw.

use super::draws::Geometric;
use super::engine::Engine;
use super::objective::{Acc, Objective};
use super::table::hash_words;
use super::{GaJob, GaParams, Problem};
use crate::rng::Rng;

/// One rigid job as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidJob {
    /// Its GPU count.
    pub gpus: u32,
    /// The GPU types (indices into [`RigidProblem::capacity`]) it runs on, in cluster order.
    pub types: Vec<usize>,
    /// The type of the GPUs it holds now, when it holds exactly its count on one type it
    /// runs on.
    pub kept: Option<usize>,
    /// Whether it holds any GPU now.
    pub held: bool,
    /// Its speedup when it runs.
    pub speedup: f64,
}

/// The jobs (in priority order) and the cluster.
pub struct RigidProblem<'a> {
    /// Age and restarts of each job, for the restart factor.
    pub jobs: &'a [GaJob],
    /// The same jobs' counts, types and current state.
    pub rigid: &'a [RigidJob],
    /// GPUs of each type.
    pub capacity: &'a [u32],
    /// Number of servers.
    pub num_nodes: usize,
    /// GPUs on every server.
    pub gpus_per_node: u32,
}

/// The chosen state and the final rank-0 front: per job, the type it runs on (None: it
/// does not run).
pub struct RigidResult {
    /// The state with the best fairness in the final front.
    pub best: Vec<Option<usize>>,
    /// Every state of the final front.
    pub front: Vec<Vec<Option<usize>>>,
    /// Whether a search ran (false: every job runs already, and keeps its GPUs).
    pub searched: bool,
}

/// Run the search. `initial` = warm-start states (which jobs run), those of the wrong length
/// ignored; with none the population starts from the current state.
pub fn optimize(
    problem: &RigidProblem,
    initial: &[Vec<bool>],
    params: &GaParams,
    rng: &mut Rng,
) -> RigidResult {
    let nj = problem.rigid.len().min(problem.jobs.len());
    let now: Vec<Option<usize>> = problem.rigid[..nj].iter().map(|j| j.kept).collect();
    if now.iter().all(Option::is_some) {
        return RigidResult {
            best: now.clone(),
            front: vec![now],
            searched: false,
        };
    }
    // The shared search on a J x 1 state: one entry per job, 1 where it runs.
    let base: Vec<u32> = now.iter().map(|k| u32::from(k.is_some())).collect();
    let shape = Problem {
        jobs: &problem.jobs[..nj],
        num_nodes: 1,
        gpus_per_node: 1,
        base: &base,
    };
    let initial: Vec<Vec<u32>> = initial
        .iter()
        .filter(|s| s.len() == nj)
        .map(|s| s.iter().map(|&on| u32::from(on)).collect())
        .collect();
    let mut search = Search::new(problem, nj, params);
    let found = super::run(&mut search, &shape, &initial, params, rng);
    RigidResult {
        best: search.types_of(&found.best),
        front: found.front.iter().map(|x| search.types_of(x)).collect(),
        searched: true,
    }
}

/// The search's state representation: one bit per job (1: it runs), 64 to a word. A state
/// is scored from the current state's sums and the jobs it flips (starts or stops), which
/// are few.
struct Search<'a> {
    problem: &'a RigidProblem<'a>,
    nj: usize,
    /// Bit j: job j runs now (and keeps its GPUs).
    now: Vec<u64>,
    objective: Objective,
    /// The current state's power-mean sum, speedup sum and GPUs in use.
    base: (f64, f64, u64),
    /// Per job, what flipping it adds to the power-mean sum.
    flip: Vec<f64>,
    /// Free GPUs per type with every job that runs now kept.
    kept_free: Vec<u32>,
    reset: Geometric,
    stop: Geometric,
    start: Geometric,
    /// Scratch: free GPUs per type, and the jobs that start but do not fit.
    free: Vec<u32>,
    dropped: Vec<usize>,
    /// The objectives of the state last repaired.
    last: [f64; 2],
}

/// Call `f` with each job whose bit is set in `x & mask(word)`, in order.
fn each_bit(x: &[u64], mask: impl Fn(usize) -> u64, mut f: impl FnMut(usize)) {
    for (k, &w) in x.iter().enumerate() {
        let mut bits = w & mask(k);
        while bits != 0 {
            f(k * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

fn runs(x: &[u64], j: usize) -> bool {
    x[j / 64] >> (j % 64) & 1 == 1
}

fn set(x: &mut [u64], j: usize, on: bool) {
    if on {
        x[j / 64] |= 1 << (j % 64);
    } else {
        x[j / 64] &= !(1 << (j % 64));
    }
}

impl<'a> Search<'a> {
    fn new(problem: &'a RigidProblem<'a>, nj: usize, params: &GaParams) -> Self {
        let shape = Problem {
            jobs: &problem.jobs[..nj],
            num_nodes: problem.num_nodes,
            gpus_per_node: problem.gpus_per_node,
            base: &[],
        };
        let objective = Objective::new(&shape, params);
        let mut now = vec![0u64; nj.div_ceil(64).max(1)];
        let mut base = (0.0, 0.0, 0u64);
        let mut flip = Vec::with_capacity(nj);
        let mut kept_free = problem.capacity.to_vec();
        for (j, job) in problem.rigid[..nj].iter().enumerate() {
            // [s, term if unchanged, term if changed]
            let run = objective.terms(j, job.speedup);
            let idle = objective.terms(j, 0.0);
            let idle_term = if job.held { idle[2] } else { idle[1] };
            let (now_term, other) = match job.kept {
                Some(t) => {
                    set(&mut now, j, true);
                    base.1 += job.speedup;
                    base.2 += u64::from(job.gpus);
                    if let Some(f) = kept_free.get_mut(t) {
                        *f = f.saturating_sub(job.gpus);
                    }
                    (run[1], idle_term)
                }
                None => (idle_term, run[2]),
            };
            base.0 += now_term;
            flip.push(other - now_term);
        }
        Search {
            problem,
            nj,
            now,
            objective,
            base,
            flip,
            kept_free,
            reset: Geometric::new(params.reset_prob),
            stop: Geometric::new(params.mark_prob * params.zero_prob),
            start: Geometric::new(1.0 / nj as f64),
            free: Vec::with_capacity(problem.capacity.len()),
            dropped: Vec::new(),
            last: [0.0; 2],
        }
    }

    /// Give the jobs of a state their GPUs, clearing the bits of those that do not fit, and
    /// score it. Jobs that stop free their GPUs first; then jobs that start, in priority
    /// order, take their count on the first type they run on with room. `given`, when
    /// asked, receives each job's type.
    fn place(&mut self, x: &mut [u64], mut given: Option<&mut [Option<usize>]>) -> [f64; 2] {
        let p = self.problem;
        self.free.clone_from(&self.kept_free);
        let (mut mean, mut speedup, mut used) = self.base;
        let now = &self.now;
        each_bit(
            now,
            |k| !x[k],
            |j| {
                let job = &p.rigid[j];
                if let Some(f) = job.kept.and_then(|t| self.free.get_mut(t)) {
                    *f += job.gpus;
                }
                mean += self.flip[j];
                speedup -= job.speedup;
                used -= u64::from(job.gpus);
            },
        );
        self.dropped.clear();
        each_bit(
            x,
            |k| !now[k],
            |j| {
                let job = &p.rigid[j];
                let free = &mut self.free;
                match job.types.iter().copied().find(|&t| free[t] >= job.gpus) {
                    Some(t) => {
                        free[t] -= job.gpus;
                        mean += self.flip[j];
                        speedup += job.speedup;
                        used += u64::from(job.gpus);
                        if let Some(g) = given.as_deref_mut() {
                            g[j] = Some(t);
                        }
                    }
                    None => self.dropped.push(j),
                }
            },
        );
        for &j in &self.dropped {
            set(x, j, false);
        }
        if let Some(g) = given {
            each_bit(x, |k| now[k], |j| g[j] = p.rigid[j].kept);
        }
        let acc = Acc { mean, speedup };
        let per = u64::from(p.gpus_per_node.max(1));
        self.objective.finish(&acc, used.div_ceil(per) as usize)
    }

    /// A state of one entry per job (nonzero where it runs) as bits in `out`.
    fn to_bits(&self, state: &[u32], out: &mut [u64]) {
        out.fill(0);
        for (j, &v) in state.iter().enumerate().take(self.nj) {
            set(out, j, v > 0);
        }
    }

    /// Each job's type in a state (one entry per job, nonzero where it runs).
    fn types_of(&mut self, state: &[u32]) -> Vec<Option<usize>> {
        let mut x = vec![0u64; self.now.len()];
        self.to_bits(state, &mut x);
        let mut given = vec![None; self.nj];
        self.place(&mut x, Some(&mut given));
        given
    }

    /// A run of coin flips over the jobs, walked by geometric gaps, setting each job drawn
    /// to `on(job)`.
    fn walk(&self, gaps: &Geometric, x: &mut [u64], rng: &mut Rng, on: impl Fn(usize) -> bool) {
        let mut pos = gaps.draw(rng);
        while pos < self.nj {
            set(x, pos, on(pos));
            pos = pos.saturating_add(1).saturating_add(gaps.draw(rng));
        }
    }
}

impl Engine for &mut Search<'_> {
    type Unit = u64;

    fn units(&self) -> usize {
        self.now.len()
    }

    fn row_units(&self) -> usize {
        1
    }

    fn load(&self, s: &[u32], out: &mut [u64]) {
        self.to_bits(s, out);
    }

    fn unload(&self, x: &[u64]) -> Vec<u32> {
        (0..self.nj).map(|j| u32::from(runs(x, j))).collect()
    }

    fn base(&self) -> &[u64] {
        &self.now
    }

    /// Pollux's three mutation steps on a job: back to what it does now, stopped, started.
    fn mutate(&mut self, x: &mut [u64], rng: &mut Rng) {
        let now = &self.now;
        self.walk(&self.reset, x, rng, |j| runs(now, j));
        self.walk(&self.stop, x, rng, |_| false);
        self.walk(&self.start, x, rng, |_| true);
    }

    fn repair(&mut self, x: &mut [u64], _rng: &mut Rng) {
        self.last = self.place(x, None);
    }

    fn score(&mut self) -> [f64; 2] {
        self.last
    }

    fn hash(x: &[u64]) -> u64 {
        hash_words(x)
    }

    /// The jobs are bits: exchange those below `point`, word by word.
    fn cross(&self, a: &mut [u64], b: &mut [u64], point: usize) {
        for (k, (wa, wb)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            let lo = k * 64;
            if point <= lo {
                break;
            }
            let mask = if point >= lo + 64 {
                u64::MAX
            } else {
                (1u64 << (point - lo)) - 1
            };
            let d = (*wa ^ *wb) & mask;
            *wa ^= d;
            *wb ^= d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(gpus: u32, kept: Option<usize>) -> RigidJob {
        RigidJob {
            gpus,
            types: vec![0],
            kept,
            held: kept.is_some(),
            speedup: f64::from(gpus) / 4.0,
        }
    }

    fn ga_jobs(n: usize) -> Vec<GaJob> {
        (0..n)
            .map(|_| GaJob {
                max_replicas: 8,
                age_s: 3600.0,
                num_restarts: 0,
            })
            .collect()
    }

    #[test]
    fn every_job_running_keeps_its_gpus_without_a_draw() {
        let rigid = vec![job(2, Some(0)), job(1, Some(0))];
        let jobs = ga_jobs(2);
        let problem = RigidProblem {
            jobs: &jobs,
            rigid: &rigid,
            capacity: &[4],
            num_nodes: 4,
            gpus_per_node: 1,
        };
        let mut rng = Rng::new(7);
        let before = rng.clone().next_u64();
        let r = optimize(&problem, &[], &GaParams::default(), &mut rng);
        assert!(!r.searched);
        assert_eq!(r.best, vec![Some(0), Some(0)]);
        assert_eq!(rng.next_u64(), before);
    }

    #[test]
    fn waiting_jobs_that_fit_start_and_those_that_do_not_wait() {
        // 8 GPUs: a running 4-GPU job, waiting jobs of 2, 2 and 8. The best state runs the
        // first three (the 8-GPU job fits only if the others stop, which leaves more jobs
        // waiting).
        let rigid = vec![job(4, Some(0)), job(2, None), job(2, None), job(8, None)];
        let jobs = ga_jobs(4);
        let problem = RigidProblem {
            jobs: &jobs,
            rigid: &rigid,
            capacity: &[8],
            num_nodes: 8,
            gpus_per_node: 1,
        };
        let mut rng = Rng::new(3);
        let r = optimize(&problem, &[], &GaParams::default(), &mut rng);
        assert!(r.searched);
        assert_eq!(r.best, vec![Some(0), Some(0), Some(0), None]);
        for state in &r.front {
            let used: u32 = state
                .iter()
                .zip(&rigid)
                .filter(|(t, _)| t.is_some())
                .map(|(_, j)| j.gpus)
                .sum();
            assert!(used <= 8, "{state:?}");
        }
    }

    #[test]
    fn a_waiting_job_runs_only_on_a_type_it_knows() {
        // Two types of 4 GPUs. A 2-GPU job runs on type 1; a waiting 4-GPU job runs only
        // on type 1. The harmonic mean prefers the larger speedup: the 2-GPU job stops and
        // the 4-GPU job takes type 1 (never type 0, where 4 GPUs are free).
        let mut small = job(2, Some(1));
        small.types = vec![0, 1];
        let mut large = job(4, None);
        large.types = vec![1];
        let rigid = vec![small, large];
        let jobs = ga_jobs(2);
        let problem = RigidProblem {
            jobs: &jobs,
            rigid: &rigid,
            capacity: &[4, 4],
            num_nodes: 8,
            gpus_per_node: 1,
        };
        let r = optimize(&problem, &[], &GaParams::default(), &mut Rng::new(1));
        assert_eq!(r.best, vec![None, Some(1)]);
        assert!(r.front.iter().all(|s| s[1] != Some(0)));
    }

    #[test]
    fn crossover_exchanges_the_jobs_below_the_point() {
        let rigid: Vec<RigidJob> = (0..70).map(|_| job(1, None)).collect();
        let jobs = ga_jobs(70);
        let problem = RigidProblem {
            jobs: &jobs,
            rigid: &rigid,
            capacity: &[70],
            num_nodes: 70,
            gpus_per_node: 1,
        };
        let mut search = Search::new(&problem, 70, &GaParams::default());
        let eng = &mut search;
        let (mut a, mut b) = (vec![0u64, 0], vec![u64::MAX, 0x3F]);
        eng.cross(&mut a, &mut b, 66);
        assert_eq!(a, vec![u64::MAX, 0x3]);
        assert_eq!(b, vec![0, 0x3C]);
        assert_eq!(eng.unload(&a)[..66].iter().sum::<u32>(), 66);
    }
}
