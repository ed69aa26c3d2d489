//! The Pollux policy: every interval, choose each job's GPUs (how many and on which
//! servers) to maximise a fairness-weighted sum of goodput speedups, and let each job pick
//! its goodput-maximising batch size for what it gets.
//!
//! A job's speedup on an allocation is its best goodput there divided by its best goodput
//! on its fair share (all GPUs / active jobs, on one server); jobs with no fitted model yet
//! count GPUs instead, and so do rigid jobs ([`crate::workload::as_elastic`]), at their own
//! GPU count only (elsewhere their speedup is 0). A job may at most double the largest GPU count it has run on, so
//! its model is extrapolated only so far. The search is [`super::ga`]'s genetic algorithm,
//! warm-started from the previous interval's best states; its fitness is the power mean
//! (p = -1) of speedups discounted by the restart penalty. When every job is rigid there is
//! nothing to choose but which jobs run, and the search is [`super::ga::rigid`]'s over
//! exactly that, skipped while its problem is the one it last answered.

use super::ga::rigid::{RigidJob, RigidProblem};
use super::ga::{self, GaJob, GaParams, Problem, Speedup};
use super::{ElasticPolicy, ElasticView};
use crate::model::goodput::{BatchSizes, GoodputFunction};
use crate::model::job::JobId;
use crate::policy::registry::{ParamInfo, Params};
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::workload::elastic::RigidModel;
use std::collections::BTreeMap;

/// Parameters of Pollux.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "population",
        default: "100",
        help: "states in the genetic algorithm's population",
    },
    ParamInfo {
        name: "generations",
        default: "100",
        help: "generations per interval (the first is the warm-started population)",
    },
    ParamInfo {
        name: "crossover",
        default: "0.9",
        help: "probability that two parents exchange job rows",
    },
    ParamInfo {
        name: "mutation",
        default: "0.1",
        help: "probability of each mutation step per job row (reset, mark, zero an entry)",
    },
    ParamInfo {
        name: "p",
        default: "-1",
        help: "exponent of the power mean of speedups (-1 = harmonic; lower is fairer)",
    },
    ParamInfo {
        name: "restart_penalty_s",
        default: "30",
        help: "restart cost the search charges a job whose allocation changes",
    },
    ParamInfo {
        name: "per_type",
        default: "false",
        help: "on several GPU types, goodput per type: each job is given a type, models per type, and one search per type (false: Pollux as published, heterogeneity-unaware)",
    },
];

/// The Pollux policy.
#[derive(Debug, Clone)]
pub struct Pollux {
    name: String,
    params: GaParams,
    /// The previous interval's best states by job, for the warm start.
    front: Vec<BTreeMap<JobId, Vec<u32>>>,
    /// Each job's memoised speedups and what they were computed from (model, gradient
    /// statistics, fair share, cluster size): reused while those stay the same.
    cache: BTreeMap<JobId, (Vec<f64>, Vec<f64>)>,
    /// When every job is rigid: the last search's answer by job, while it is what the jobs
    /// hold (the search's problem has not changed since).
    settled: Option<BTreeMap<JobId, Vec<u32>>>,
}

impl Pollux {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
        let mutation = p.f64("mutation", 0.1, 0.0, 1.0)?;
        let params = GaParams {
            population: p.u64("population", 100, 2, 10_000)? as usize,
            generations: p.u64("generations", 100, 1, 100_000)? as usize,
            crossover_prob: p.f64("crossover", 0.9, 0.0, 1.0)?,
            reset_prob: mutation,
            mark_prob: mutation,
            zero_prob: mutation,
            restart_penalty_s: p.f64("restart_penalty_s", 30.0, 0.0, 1e9)?,
            power: p.f64("p", -1.0, -100.0, 1.0)?,
        };
        if params.power == 0.0 {
            return Err(PolicyError::Param {
                policy: "pollux".into(),
                param: "p".into(),
                reason: "0 is not allowed (use a small negative number for a geometric mean)"
                    .into(),
            });
        }
        let pollux = Pollux {
            name: p.spec().to_string(),
            params,
            front: Vec::new(),
            cache: BTreeMap::new(),
            settled: None,
        };
        if p.bool("per_type", false)? {
            return Ok(Box::new(super::per_type::PerType::new(pollux)));
        }
        Ok(Box::new(pollux))
    }
}

/// A job's goodput function, largest batch, goodput on its fair share and per-GPU batch
/// range.
type JobModel = (GoodputFunction, f64, f64, (u32, u32));

/// Speedups of the jobs of one interval, memoised.
struct Speedups<'a> {
    funcs: Vec<Option<JobModel>>,
    /// Per job: its GPU count when it is rigid (it speeds up only there).
    rigid: Vec<Option<u32>>,
    fair_replicas: f64,
    /// Per job: one more than the most GPUs (and so servers) it may get; its table is
    /// dim x dim, indexed by (servers, GPUs).
    dims: Vec<usize>,
    table: Vec<Vec<f64>>,
    /// Per job: the candidate batch sizes of its allocations scored so far.
    sizes: Vec<BatchSizes>,
    _view: &'a ElasticView<'a>,
}

impl Speedup for Speedups<'_> {
    fn speedup(&mut self, job: usize, nodes: u32, replicas: u32) -> f64 {
        if replicas == 0 {
            return 0.0;
        }
        if let Some(g) = self.rigid.get(job).copied().flatten() {
            return if replicas == g {
                f64::from(g) / self.fair_replicas
            } else {
                0.0
            };
        }
        let dim = self.dims.get(job).copied().unwrap_or(0);
        let (n, r) = (nodes as usize, replicas as usize);
        let key = if n < dim && r < dim {
            n * dim + r
        } else {
            usize::MAX
        };
        if let Some(v) = self
            .table
            .get(job)
            .and_then(|t| t.get(key))
            .filter(|v| !v.is_nan())
        {
            return *v;
        }
        let v = match (
            self.funcs.get(job).copied().flatten(),
            self.sizes.get_mut(job),
        ) {
            (Some((g, max_b, base, range)), Some(sizes)) => {
                let best = g
                    .optimize_with(nodes, replicas, max_b, range, true, sizes)
                    .goodput;
                if base > 0.0 {
                    best / base
                } else {
                    0.0
                }
            }
            // No model: the job speeds up in proportion to its GPUs.
            _ => f64::from(replicas) / self.fair_replicas,
        };
        if let Some(slot) = self.table.get_mut(job).and_then(|t| t.get_mut(key)) {
            *slot = v;
        }
        v
    }
}

/// Sort indices into `view.jobs` in Pollux's priority order: least attained service
/// first, then earliest submission.
pub(super) fn by_priority(view: &ElasticView, order: &mut [usize]) {
    crate::order::sort_by(order, |&a, &b| {
        let (ja, jb) = (&view.jobs[a], &view.jobs[b]);
        ja.state
            .attained_service
            .total_cmp(&jb.state.attained_service)
            .then(ja.spec.arrival.total_cmp(&jb.spec.arrival))
    });
}

impl ElasticPolicy for Pollux {
    fn name(&self) -> &str {
        &self.name
    }

    fn adapts_batch(&self) -> bool {
        true
    }

    fn decide(&mut self, view: &ElasticView, rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError> {
        let nodes = view.num_nodes as usize;
        let total = view.total_gpus();
        let mut order: Vec<usize> = (0..view.jobs.len()).collect();
        by_priority(view, &mut order);
        let jn = order.len();
        let fair = (f64::from(total) / jn.max(1) as f64).ceil().max(1.0);
        let mut jobs = Vec::with_capacity(jn);
        let mut base = vec![0u32; jn * nodes];
        let mut funcs = Vec::with_capacity(jn);
        let mut rigid = Vec::with_capacity(jn);
        for (row, &i) in order.iter().enumerate() {
            let j = &view.jobs[i];
            let app = j.app;
            let by_batch = app.max_batch_size / app.min_local_bsz.max(1);
            let mut max_r = (2 * j.state.max_profiled_replicas())
                .max(1)
                .min(total)
                .min(by_batch.max(1));
            if let Some(m) = app.max_replicas {
                max_r = max_r.min(m);
            }
            // A rigid job may have exactly its GPUs, or none.
            let fixed = app.rigid().map(|r| r.gpus);
            if let Some(g) = fixed {
                max_r = g.min(total);
            }
            rigid.push(fixed);
            jobs.push(GaJob {
                max_replicas: max_r,
                age_s: j.age,
                num_restarts: j.state.num_restarts.unwrap_or(0),
            });
            for &n in &j.state.allocation {
                if let Some(c) = base.get_mut(row * nodes + n as usize) {
                    *c += 1;
                }
            }
            funcs.push(j.state.perf.filter(|_| fixed.is_none()).map(|perf| {
                let g = GoodputFunction::new(perf, j.state.grad, f64::from(app.init_batch_size));
                let range = (app.min_local_bsz, app.max_local_bsz);
                let max_b = f64::from(app.max_batch_size);
                let base_goodput = g.optimize(1, fair as u32, max_b, range, true).goodput;
                (g, max_b, base_goodput, range)
            }));
        }
        if rigid.iter().all(Option::is_some) {
            return Ok(self.decide_rigid(view, &order, &jobs, &base, fair, rng));
        }
        self.settled = None;
        let initial: Vec<Vec<u32>> = self
            .front
            .iter()
            .map(|state| {
                let mut s = vec![0u32; jn * nodes];
                for (row, &i) in order.iter().enumerate() {
                    if let Some(r) = state.get(&view.jobs[i].id) {
                        if r.len() == nodes {
                            s[row * nodes..(row + 1) * nodes].copy_from_slice(r);
                        }
                    }
                }
                s
            })
            .collect();
        let dims: Vec<usize> = jobs.iter().map(|j| j.max_replicas as usize + 1).collect();
        let keys: Vec<Vec<f64>> = order
            .iter()
            .map(|&i| {
                let st = view.jobs[i].state;
                let mut k = vec![
                    fair,
                    f64::from(total),
                    nodes as f64,
                    st.grad.sqr,
                    st.grad.var,
                ];
                if let Some(p) = st.perf {
                    k.extend([
                        p.alpha_c, p.beta_c, p.alpha_n, p.beta_n, p.alpha_r, p.beta_r, p.gamma,
                    ]);
                }
                k
            })
            .collect();
        let table = order
            .iter()
            .zip(&keys)
            .zip(&dims)
            .map(|((&i, k), &d)| match self.cache.remove(&view.jobs[i].id) {
                Some((key, t)) if key == *k && t.len() == d * d => t,
                _ => vec![f64::NAN; d * d],
            })
            .collect();
        self.cache.clear();
        let jobs_scored = funcs.len();
        let mut speedups = Speedups {
            funcs,
            rigid,
            fair_replicas: fair,
            dims,
            table,
            sizes: vec![BatchSizes::default(); jobs_scored],
            _view: view,
        };
        let problem = Problem {
            jobs: &jobs,
            num_nodes: nodes,
            gpus_per_node: view.gpus_per_node,
            base: &base,
        };
        let result = ga::optimize(&problem, &mut speedups, &initial, &self.params, rng);
        for ((&i, key), table) in order.iter().zip(keys).zip(speedups.table) {
            self.cache.insert(view.jobs[i].id, (key, table));
        }
        self.front = result
            .front
            .iter()
            .map(|s| rows_by_job(view, order.as_slice(), nodes, s))
            .collect();
        let mut best = result.best;
        place_rigid(view, &order, nodes, &mut best);
        Ok(allocations(view, &order, nodes, &best))
    }
}

impl Pollux {
    /// The decision when every job is rigid: [`ga::rigid`]'s search over which jobs run, its
    /// states placed (jobs that keep running on their GPUs, the others in priority order on
    /// the fullest servers of their type).
    fn decide_rigid(
        &mut self,
        view: &ElasticView,
        order: &[usize],
        jobs: &[GaJob],
        base: &[u32],
        fair: f64,
        rng: &mut Rng,
    ) -> Vec<Vec<u32>> {
        let nodes = view.num_nodes as usize;
        let by_job = |state: &[u32]| rows_by_job(view, order, nodes, state);
        if self.settled.as_ref() == Some(&by_job(base)) {
            return allocations(view, order, nodes, base);
        }
        let mut capacity = vec![0u32; view.gpu_types.len()];
        for n in 0..nodes {
            if let Some(c) = capacity.get_mut(type_of(view, n)) {
                *c += view.gpus_per_node;
            }
        }
        let rigid: Vec<RigidJob> = order
            .iter()
            .enumerate()
            .filter_map(|(row, &i)| {
                let r = view.jobs[i].app.rigid()?;
                let held = base.get(row * nodes..(row + 1) * nodes).unwrap_or(&[]);
                Some(RigidJob {
                    gpus: r.gpus,
                    types: (0..capacity.len())
                        .filter(|&t| runs_on(view, r, t))
                        .collect(),
                    kept: home(view, r, held),
                    held: held.iter().any(|&c| c > 0),
                    speedup: f64::from(r.gpus) / fair,
                })
            })
            .collect();
        let initial: Vec<Vec<bool>> = self
            .front
            .iter()
            .map(|state| {
                order
                    .iter()
                    .map(|&i| {
                        state
                            .get(&view.jobs[i].id)
                            .is_some_and(|r| r.iter().any(|&c| c > 0))
                    })
                    .collect()
            })
            .collect();
        let problem = RigidProblem {
            jobs,
            rigid: &rigid,
            capacity: &capacity,
            num_nodes: nodes,
            gpus_per_node: view.gpus_per_node,
        };
        let result = ga::rigid::optimize(&problem, &initial, &self.params, rng);
        let place = |types: &[Option<usize>]| {
            let mut state = vec![0u32; order.len() * nodes];
            let mut used = vec![0u32; nodes];
            // Jobs that keep running stay on their GPUs; then the others take theirs.
            for (row, (job, t)) in rigid.iter().zip(types).enumerate() {
                let span = row * nodes..(row + 1) * nodes;
                if let (Some(_), Some(_), Some(b)) = (t, job.kept, base.get(span.clone())) {
                    state[span].copy_from_slice(b);
                    for (u, &c) in used.iter_mut().zip(b) {
                        *u += c;
                    }
                }
            }
            for (row, (job, t)) in rigid.iter().zip(types).enumerate() {
                if let (Some(t), None) = (*t, job.kept) {
                    if let Some(r) = state.get_mut(row * nodes..(row + 1) * nodes) {
                        pack_gang(view, &mut used, r, t, job.gpus);
                    }
                }
            }
            state
        };
        let best = place(&result.best);
        self.front = result
            .front
            .iter()
            .map(|types| by_job(&place(types)))
            .collect();
        self.settled = Some(by_job(&best));
        allocations(view, order, nodes, &best)
    }
}

/// Each job's server list (one entry per GPU) from a state whose rows follow `order`.
fn allocations(view: &ElasticView, order: &[usize], nodes: usize, state: &[u32]) -> Vec<Vec<u32>> {
    let mut alloc = vec![Vec::new(); view.jobs.len()];
    for (row, &i) in order.iter().enumerate() {
        let Some(r) = state.get(row * nodes..(row + 1) * nodes) else {
            continue;
        };
        for (n, &c) in r.iter().enumerate() {
            alloc[i].extend(std::iter::repeat_n(n as u32, c as usize));
        }
    }
    alloc
}

/// A state's rows (those of `order`, `nodes` entries each) by job.
fn rows_by_job(
    view: &ElasticView,
    order: &[usize],
    nodes: usize,
    state: &[u32],
) -> BTreeMap<JobId, Vec<u32>> {
    order
        .iter()
        .enumerate()
        .filter_map(|(row, &i)| {
            Some((
                view.jobs[i].id,
                state.get(row * nodes..(row + 1) * nodes)?.to_vec(),
            ))
        })
        .collect()
}

/// The GPU type of the view's server `n` (0 if it has none).
fn type_of(view: &ElasticView, n: usize) -> usize {
    view.node_types.get(n).copied().unwrap_or(0)
}

/// Whether a rigid job runs at its own count on the view's GPU type `t`.
fn runs_on(view: &ElasticView, rigid: &RigidModel, t: usize) -> bool {
    view.gpu_types
        .get(t)
        .is_some_and(|name| rigid.runs_on(name, rigid.gpus))
}

/// The type a rigid job's row is at home on: the row holds exactly the job's count, all on
/// servers of one type the job runs on. None otherwise (an empty row included).
fn home(view: &ElasticView, rigid: &RigidModel, row: &[u32]) -> Option<usize> {
    let mut on = row.iter().enumerate().filter(|(_, &c)| c > 0);
    let first = type_of(view, on.next()?.0);
    let one_type = on.all(|(n, _)| type_of(view, n) == first);
    let sum: u32 = row.iter().sum();
    (one_type && sum == rigid.gpus && runs_on(view, rigid, first)).then_some(first)
}

/// Rigid jobs in `state` (rows in `order`, `nodes` per row) on GPUs they can run on: a row
/// of the job's GPU count whose servers are not all of one type it has a throughput on
/// moves, in priority order, to free GPUs of one such type (the type holding most of the
/// row first, then the others in cluster order), packed onto the fullest servers; a row
/// that cannot move, or of another count, is emptied (its GPUs stay free). The search
/// chooses how many GPUs each job gets; where a gang of a rigid job lands is placement.
fn place_rigid(view: &ElasticView, order: &[usize], nodes: usize, state: &mut [u32]) {
    let mut used = vec![0u32; nodes];
    for row in state.chunks_exact(nodes) {
        for (u, &c) in used.iter_mut().zip(row) {
            *u += c;
        }
    }
    for (row, &i) in order.iter().enumerate() {
        let Some(rigid) = view.jobs[i].app.rigid() else {
            continue;
        };
        let Some(r) = state.get_mut(row * nodes..(row + 1) * nodes) else {
            continue;
        };
        let sum: u32 = r.iter().sum();
        if sum == 0 || home(view, rigid, r).is_some() {
            continue;
        }
        let mut held = vec![0u32; view.gpu_types.len()];
        for (n, &c) in r.iter().enumerate() {
            if let Some(h) = held.get_mut(type_of(view, n)) {
                *h += c;
            }
        }
        // Free the row, then look for a type with room.
        for (u, c) in used.iter_mut().zip(r.iter_mut()) {
            *u -= *c;
            *c = 0;
        }
        if sum != rigid.gpus {
            continue;
        }
        let mut types: Vec<usize> = (0..held.len())
            .filter(|&t| runs_on(view, rigid, t))
            .collect();
        crate::order::sort_by_key(&mut types, |&t| std::cmp::Reverse(held[t]));
        for t in types {
            if pack_gang(view, &mut used, r, t, rigid.gpus) {
                break;
            }
        }
    }
}

/// Put a gang of `gpus` into the empty row `r` on free GPUs of type `t`, the fullest servers
/// first (then the lowest), updating `used`; false (nothing changed) if the type has fewer
/// free GPUs.
fn pack_gang(view: &ElasticView, used: &mut [u32], r: &mut [u32], t: usize, gpus: u32) -> bool {
    let cap = view.gpus_per_node;
    let mut free: Vec<usize> = (0..used.len().min(r.len()))
        .filter(|&n| type_of(view, n) == t && used[n] < cap)
        .collect();
    let room: u32 = free.iter().map(|&n| cap - used[n]).sum();
    if room < gpus {
        return false;
    }
    crate::order::sort_by_key(&mut free, |&n| (std::cmp::Reverse(used[n]), n));
    let mut left = gpus;
    for n in free {
        let take = (cap - used[n]).min(left);
        r[n] += take;
        used[n] += take;
        left -= take;
        if left == 0 {
            break;
        }
    }
    true
}
