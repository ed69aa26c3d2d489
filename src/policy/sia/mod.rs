//! Sia (SOSP'23): heterogeneity-aware, adaptive scheduling. Every interval each job's
//! goodput is estimated in every configuration (GPU type x GPU count; whole servers above
//! one server) from its per-type throughput model and statistical efficiency, normalised
//! per job ([`matrix`]); an integer program gives each job at most one configuration within
//! each type's GPUs, minimising the sum of `goodput^p` (p < 0) plus `lambda_n` for every job
//! left without GPUs ([`mip`]); the chosen configurations are placed on servers
//! ([`layout`]) and every job tunes its batch size for what it got with the model of its
//! type (the elastic simulator does that for policies with per-type models).
//!
//! Where this differs from Sia's artifact (`sia-simulator`, whose runs the fidelity tests
//! compare with):
//! - the integer program is solved by [`mip::solve`] to within 0.01% of its bound (CBC,
//!   which the artifact calls, stops at the same gap);
//! - a job whose configuration does not change keeps its servers (the artifact places
//!   every job again every interval, which may move a job to other servers of the same
//!   shape; it charges such a move nothing, and neither does this);
//! - the restart penalty the policy assumes is, as in the artifact, its per-application
//!   estimate measured on a physical cluster ([`matrix::measured_penalty`]; `penalty=delay`
//!   assumes the experiment's restart delay of the job instead, which differs from the
//!   estimate for two of the artifact's six applications);
//! - configurations are not limited to the servers the profile measured (the artifact's
//!   "physical" node counts), only to the cluster's.

mod knapsack;
pub mod layout;
pub mod matrix;
pub mod mip;

use crate::policy::papers;
use crate::policy::registry::{ElasticPolicyInfo, ParamInfo, Params, Registered};
use crate::policy::PolicyError;
use crate::rng::Rng;
use crate::sim::elastic::contract::{ElasticPolicy, ElasticView, Explanation, Weighed};
use layout::Layout;
use matrix::RowParams;

/// Sia for elastic workloads (the catalog joins every family's lists).
pub const POLICIES: &[ElasticPolicyInfo] = &[
    Registered::new(
        "sia",
        "sia",
        &papers::SIA,
        "Sia: every interval, each job's goodput in every GPU type x count from per-type models, normalised per job; an integer program picks one configuration per job within each type's GPUs (sum of goodput^p, p = -0.5, lambda_n for a job left out); batch sizes tuned per type.",
        PARAMS,
        Sia::build,
    ),
];

/// Parameters of Sia.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "p",
        default: "-0.5",
        help: "exponent of the normalised goodputs in the objective (negative: fairer as it falls)",
    },
    ParamInfo {
        name: "lambda_n",
        default: "1.1",
        help: "cost of leaving a job without GPUs (above 1, every job is worth a GPU)",
    },
    ParamInfo {
        name: "project",
        default: "true",
        help: "estimate a job's goodput on a GPU type it has not run on from a type it has, by the ratio of the types' single-GPU speeds (false: one GPU there, at goodput 1)",
    },
    ParamInfo {
        name: "share_max_replicas",
        default: "true",
        help: "a job may have up to twice the most GPUs it has run on whatever the type (false: on each type, twice the most it ran on there)",
    },
    ParamInfo {
        name: "penalty",
        default: "measured",
        help: "the restart cost the policy assumes: measured (Sia's per-application estimates: imagenet 250 s, bert 120 s, yolov3 45 s, cifar10 30 s, deepspeech2 25 s, others 30 s) or delay (the job's restart delay in the experiment)",
    },
    ParamInfo {
        name: "moves_restart",
        default: "false",
        help: "a job moved to other servers with the same GPUs per server restarts (false: as Sia's simulator, only a new GPU type or GPUs per server restarts it)",
    },
];

/// The Sia policy.
#[derive(Debug, Clone)]
pub struct Sia {
    name: String,
    row: RowParams,
    lambda_n: f64,
    /// Whether a move to other servers of the same shape restarts a job.
    moves_restart: bool,
    /// Whether the assumed restart cost is the job's restart delay (else Sia's
    /// per-application estimate).
    penalty_is_delay: bool,
    /// The last decision, for people: per job, the configurations' goodputs and costs
    /// and the one chosen.
    last: Explanation,
}

impl Sia {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
        let row = RowParams {
            p: p.f64("p", -0.5, -4.0, -0.01)?,
            project: p.bool("project", true)?,
            share_max_replicas: p.bool("share_max_replicas", true)?,
        };
        Ok(Box::new(Sia {
            name: p.spec().to_string(),
            row,
            lambda_n: p.f64("lambda_n", 1.1, 0.0, 1e6)?,
            moves_restart: p.bool("moves_restart", false)?,
            penalty_is_delay: match p.text("penalty", "measured") {
                "measured" => false,
                "delay" => true,
                other => {
                    return Err(p.err(
                        "penalty",
                        format!("'{other}' is neither measured nor delay"),
                    ))
                }
            },
            last: Explanation::default(),
        }))
    }
}

impl ElasticPolicy for Sia {
    fn name(&self) -> &str {
        &self.name
    }

    fn adapts_batch(&self) -> bool {
        true
    }

    fn per_type_models(&self) -> bool {
        true
    }

    /// Sia's fit passes `tol=1e-5` to scipy (its `goodput.py`), which stops sooner than
    /// Pollux's default.
    fn fit_tolerance(&self) -> f64 {
        1e-5
    }

    fn restarts_on_shape(&self) -> bool {
        !self.moves_restart
    }

    fn explanation(&self) -> Option<&Explanation> {
        Some(&self.last)
    }

    fn decide(&mut self, view: &ElasticView, _rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError> {
        let layout = Layout::new(view);
        let n = view.jobs.len();
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut free = layout.all_free();
        // Jobs still restarting keep what they have.
        let mut options = vec![Vec::new(); n];
        let mut current = vec![None; n];
        let mut held = vec![false; n];
        let mut explained = Vec::with_capacity(n);
        for (i, j) in view.jobs.iter().enumerate() {
            let st = j.state;
            current[i] = layout.config_of(view, &st.allocation);
            if st.rescale_time > 0.0 && !st.allocation.is_empty() {
                held[i] = true;
                for &v in &st.allocation {
                    if let Some(f) = free.get_mut(v as usize) {
                        *f = f.saturating_sub(1);
                    }
                }
                out[i] = st.allocation.clone();
                continue;
            }
            let g = matrix::goodputs(j, view, &layout, &self.row);
            let delay = if self.penalty_is_delay {
                j.spec.restart_s.unwrap_or(view.restart_s)
            } else {
                matrix::measured_penalty(&j.app.name)
            };
            let holding = !st.allocation.is_empty();
            let f = matrix::restart_factor(j.age, st.num_restarts.unwrap_or(0), delay);
            // A job on a shape that is no configuration has only other entries.
            let cur = holding.then(|| current[i].unwrap_or(usize::MAX));
            let a = matrix::costs(&g, cur, f, self.row.p);
            options[i] = layout
                .configs
                .iter()
                .zip(&a)
                .map(|(c, &cost)| mip::Choice {
                    ty: c.ty,
                    gpus: c.gpus,
                    cost,
                })
                .collect();
            explained.push(Weighed {
                job: j.id,
                goodputs: g,
                costs: a,
                chosen: None,
            });
        }
        // Capacity left after the held jobs.
        let mut capacity = layout.capacity.clone();
        for (i, j) in view.jobs.iter().enumerate() {
            if held[i] {
                if let Some(&v) = j.state.allocation.first() {
                    if let Some(t) = view.node_types.get(v as usize) {
                        capacity[*t] = capacity[*t].saturating_sub(j.state.allocation.len() as u32);
                    }
                }
            }
        }
        let fixed = vec![None; n];
        let solution = mip::solve(&mip::Problem {
            capacity: &capacity,
            none_cost: self.lambda_n,
            options: &options,
            fixed: &fixed,
        });
        // Placement: a job keeping its configuration keeps its servers; the others, type
        // by type, most GPUs first.
        let mut rest: Vec<usize> = Vec::new();
        for i in 0..n {
            if held[i] {
                continue;
            }
            let Some(k) = solution.pick[i] else { continue };
            let alloc = &view.jobs[i].state.allocation;
            if current[i] == Some(k)
                && alloc
                    .iter()
                    .all(|&v| free.get(v as usize).is_some_and(|&f| f > 0))
            {
                for &v in alloc {
                    free[v as usize] = free[v as usize].saturating_sub(1);
                }
                out[i] = alloc.clone();
            } else {
                rest.push(i);
            }
        }
        crate::order::sort_by_key(&mut rest, |&i| {
            let k = solution.pick[i].unwrap_or(0);
            std::cmp::Reverse(layout.configs[k].gpus)
        });
        let mut pointers = vec![0usize; layout.by_type.len()];
        for i in rest {
            let Some(k) = solution.pick[i] else { continue };
            let c = layout.configs[k];
            if let Some(a) = layout.place(c.ty, c.gpus, &mut pointers[c.ty], &mut free) {
                out[i] = a;
            }
        }
        let mut e = explained.into_iter();
        self.last = Explanation {
            configs: layout.configs.iter().map(|c| (c.ty, c.gpus)).collect(),
            jobs: (0..n)
                .filter(|&i| !held[i])
                .filter_map(|i| {
                    let mut x = e.next()?;
                    x.chosen = solution.pick[i];
                    Some(x)
                })
                .collect(),
        };
        Ok(out)
    }
}
