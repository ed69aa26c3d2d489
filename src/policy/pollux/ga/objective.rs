//! The search's two objectives of a state, and the per-call memo of each job's speedup
//! terms.

use super::{clamp_u32, GaParams, Problem, Speedup, DENSE_MEMO_LIMIT};
use std::collections::HashMap;

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
pub(super) struct Objective {
    /// Speedup scale: num_nodes / total GPUs (dominant share 1 / total GPUs times the number
    /// of nodes), so that one node's worth of GPUs at linear scaling scores 1.
    scale: f64,
    /// Per job, the factor applied to the scaled speedup when its row changes.
    restart: Vec<f64>,
    mean: Mean,
    pub(super) jobs: f64,
    pub(super) gpus_per_node: f64,
}

/// Running sums of one evaluation.
pub(super) struct Acc {
    pub(super) mean: f64,
    pub(super) speedup: f64,
}

impl Objective {
    pub(super) fn new(problem: &Problem, params: &GaParams) -> Self {
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

    pub(super) fn start(&self) -> Acc {
        Acc {
            mean: 0.0,
            speedup: 0.0,
        }
    }

    /// A job's contributions for speedup `s`: [s, power-mean term if its row is unchanged,
    /// term if it changed (restart factor applied)].
    pub(super) fn terms(&self, j: usize, s: f64) -> [f64; 3] {
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
    pub(super) fn add(&self, acc: &mut Acc, terms: &[f64; 3], changed: bool) {
        acc.mean += if changed { terms[2] } else { terms[1] };
        acc.speedup += terms[0];
    }

    /// [fairness, utility] from the sums and the number of nodes holding any GPU.
    pub(super) fn finish(&self, acc: &Acc, used_nodes: usize) -> [f64; 2] {
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
pub(super) struct Memo {
    /// Per job: (first entry, most nodes, most replicas) of its table.
    dims: Vec<(usize, u64, u64)>,
    entries: Vec<Option<[f64; 3]>>,
    /// Everything outside the tables.
    other: HashMap<(usize, u64, u64), [f64; 3]>,
    /// Terms of a job without GPUs (speedup 0, no call).
    idle: [f64; 3],
}

impl Memo {
    pub(super) fn new(problem: &Problem, objective: &Objective) -> Self {
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
    pub(super) fn get(
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
