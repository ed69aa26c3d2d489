//! The PickyMan scheduler: `pickyman[profiled_jobs=4,predict_error=0.1,
//! overhead_error=0.05,max_preemptions=2,overhead_aware=true]`.
//!
//! At every event, waiting jobs are taken in order of predicted remaining time (shortest
//! first). One that fits on the free GPUs starts. One that does not may have running jobs
//! suspended for it: the candidates are running jobs predicted to need longer than it, not
//! yet preempted `max_preemptions` times. The victims for successive waiting jobs form an
//! ordered division of the running set (the victims of the first, of the second, ..., and
//! the jobs that keep running), built greedily job by job with [`greedy`]: for each waiting
//! job, the set that frees its GPUs at the least predicted wait plus victims' losses. The
//! suspension goes ahead only if it beats waiting: the predicted time until enough GPUs
//! free up by completions, minus the predicted wait for the victims, must exceed the
//! victims' predicted losses. With `overhead_aware=false` the same predictions pick
//! victims the way the overhead-blind baselines do (longest predicted remaining first, no
//! test), which isolates what counting the cost buys.

use super::super::registry::Params;
use super::super::{ParamInfo, PolicyError};
use super::baselines::{priority_plan, Pick, VictimQueue};
use super::predict::{Predictor, SuspensionCost};
use super::victims::{greedy, Candidate};
use crate::model::job::JobId;
use crate::rng::Rng;
use crate::sim::preemptive::{Phase, PreemptPlan, PreemptView, PreemptivePolicy, Suspension};

/// PickyMan's parameters.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "profiled_jobs",
        default: "4",
        help: "jobs profiled per job type to predict its execution time",
    },
    ParamInfo {
        name: "predict_error",
        default: "0.1",
        help: "relative error of one profiled job's measurement",
    },
    ParamInfo {
        name: "overhead_error",
        default: "0.05",
        help: "relative error of the predicted checkpoint and reload times",
    },
    ParamInfo {
        name: "max_preemptions",
        default: "2",
        help: "times a job may be suspended",
    },
    ParamInfo {
        name: "victim_pool",
        default: "3",
        help: "victims come from the longest-remaining running jobs holding this many times the GPUs needed",
    },
    ParamInfo {
        name: "overhead_aware",
        default: "true",
        help: "choose victims by time lost and suspend only when it beats waiting",
    },
];

/// PickyMan.
#[derive(Debug)]
pub struct PickyMan {
    name: String,
    predictor: Predictor,
    max_preemptions: u32,
    aware: bool,
    pool: f64,
    predicted: Vec<bool>,
}

impl PickyMan {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn PreemptivePolicy>, PolicyError> {
        Ok(Box::new(PickyMan {
            name: p.spec().to_string(),
            predictor: Predictor::new(
                p.u64("profiled_jobs", 4, 1, 1000)? as u32,
                p.f64("predict_error", 0.1, 0.0, 1.0)?,
                p.f64("overhead_error", 0.05, 0.0, 1.0)?,
            ),
            max_preemptions: p.u64("max_preemptions", 2, 0, 1_000_000)? as u32,
            aware: p.bool("overhead_aware", true)?,
            pool: p.f64("victim_pool", 3.0, 1.0, 1e6)?,
            predicted: Vec::new(),
        }))
    }
}

/// Seconds until `need` GPUs free up by completions alone, from `ends`: (predicted
/// remaining time, GPUs) of the running and reloading jobs, sorted by time.
fn natural_wait(ends: &[(f64, u32)], need: u32) -> f64 {
    let mut got = 0;
    for &(t, g) in ends {
        got += g;
        if got >= need {
            return t;
        }
    }
    f64::INFINITY
}

impl PreemptivePolicy for PickyMan {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PreemptView, rng: &mut Rng) -> PreemptPlan {
        let n = view.jobs.len();
        if self.predicted.len() < n {
            self.predicted.resize(n, false);
        }
        let mut predictions = Vec::new();
        for &j in &view.waiting {
            if !self.predicted[j] {
                self.predicted[j] = true;
                predictions.push((j, self.predictor.total_s(view, j, rng)));
            }
        }
        // Predicted remaining time of every job that holds or wants GPUs, by id.
        let mut remaining: Vec<(JobId, f64)> = Vec::with_capacity(view.live.len());
        for &j in view.live {
            if matches!(
                view.jobs[j].phase,
                Phase::Waiting | Phase::Running | Phase::Loading
            ) {
                remaining.push((j, self.predictor.remaining_s(view, j, rng)));
            }
        }
        let rem = |j: JobId| {
            remaining
                .binary_search_by_key(&j, |r| r.0)
                .map_or(f64::INFINITY, |i| remaining[i].1)
        };
        // Per GPU type: (predicted remaining time, GPUs) of its running and reloading jobs.
        let mut ends: Vec<Vec<(f64, u32)>> = vec![Vec::new(); view.total_by_type.len()];
        for &(j, r) in &remaining {
            let job = &view.jobs[j];
            if matches!(job.phase, Phase::Running | Phase::Loading) {
                if let Some(e) = ends.get_mut(job.gpu_type) {
                    e.push((r, job.gpus));
                }
            }
        }
        for e in &mut ends {
            crate::order::sort_by(e, |a, b| a.0.total_cmp(&b.0));
        }
        // Shortest predicted remaining time first, ties in arrival order.
        let mut keyed: Vec<(f64, usize, JobId)> = view
            .waiting
            .iter()
            .enumerate()
            .map(|(i, &j)| (rem(j), i, j))
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let order: Vec<JobId> = keyed.into_iter().map(|k| k.2).collect();
        // Suspension costs of the running jobs, by id.
        let costs: Vec<(JobId, SuspensionCost)> = view
            .running
            .iter()
            .map(|&r| (r, self.predictor.suspension(view, r, rng)))
            .collect();
        let cost = |j: JobId| {
            costs.binary_search_by_key(&j, |c| c.0).map_or(
                SuspensionCost {
                    drain_s: f64::INFINITY,
                    save_s: f64::INFINITY,
                    reload_s: f64::INFINITY,
                },
                |i| costs[i].1,
            )
        };
        let max_pre = self.max_preemptions;
        let mut queue = VictimQueue::new(view, rem, |r| view.jobs[r].preemptions < max_pre);
        let (aware, pool) = (self.aware, self.pool);
        let mut plan = priority_plan(view, &order, |w, ty, need| {
            let limit = rem(w);
            if !aware {
                let mut pick = queue.blind(view, need, limit, w, ty);
                if let Pick::Victims(v) = &mut pick {
                    for s in v.iter_mut() {
                        s.predicted_s = Some(cost(s.victim).lost_s());
                    }
                }
                return pick;
            }
            // The candidates: the longest-remaining eligible jobs that together hold
            // `pool` times the GPUs needed.
            let mut held = 0;
            let mut positions = Vec::new();
            let mut cands = Vec::new();
            for (pos, r) in queue.eligible(view, limit, ty) {
                if f64::from(held) >= pool * f64::from(need) {
                    break;
                }
                held += view.jobs[r].gpus;
                let c = cost(r);
                positions.push(pos);
                cands.push(Candidate {
                    job: r,
                    gpus: view.jobs[r].gpus,
                    release_s: c.release_s(),
                    loss_s: c.loss_s(),
                });
            }
            if cands.is_empty() {
                return Pick::NoneLater;
            }
            // No set can beat waiting if the quickest release alone does not.
            let natural = natural_wait(ends.get(ty).map_or(&[][..], Vec::as_slice), need);
            let quickest = cands
                .iter()
                .map(|c| c.release_s + c.loss_s)
                .fold(f64::INFINITY, f64::min);
            if natural - quickest <= 0.0 {
                return Pick::No;
            }
            let Some(choice) = greedy(&cands, need) else {
                return Pick::No;
            };
            if natural - choice.wait_s <= choice.loss_s {
                return Pick::No;
            }
            for &i in &choice.victims {
                queue.take(positions[i]);
            }
            Pick::Victims(
                choice
                    .victims
                    .iter()
                    .map(|&i| Suspension {
                        victim: cands[i].job,
                        for_job: w,
                        predicted_s: Some(cost(cands[i].job).lost_s()),
                    })
                    .collect(),
            )
        });
        plan.predictions = predictions;
        plan
    }
}
