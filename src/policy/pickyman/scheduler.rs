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
use super::baselines::{blind_victims, priority_plan};
use super::predict::{Predictor, SuspensionCost};
use super::victims::{greedy, Candidate};
use crate::job::JobId;
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

/// Seconds until `need` GPUs free up by completions alone, as predicted: running and
/// reloading jobs finish in their predicted remaining time.
fn natural_wait(view: &PreemptView, need: u32, remaining: &[(JobId, f64)]) -> f64 {
    let mut ends: Vec<(f64, u32)> = remaining
        .iter()
        .filter(|(j, _)| matches!(view.jobs[*j].phase, Phase::Running | Phase::Loading))
        .map(|&(j, r)| (r, view.jobs[j].gpus))
        .collect();
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut got = 0;
    for (t, g) in ends {
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
        // Predicted remaining time of every job that holds or wants GPUs.
        let mut remaining: Vec<(JobId, f64)> = Vec::new();
        for j in 0..n {
            let phase = view.jobs[j].phase;
            if matches!(phase, Phase::Waiting | Phase::Running | Phase::Loading) {
                remaining.push((j, self.predictor.remaining_s(view, j, rng)));
            }
        }
        let rem = |j: JobId| {
            remaining
                .binary_search_by_key(&j, |r| r.0)
                .map_or(f64::INFINITY, |i| remaining[i].1)
        };
        let mut order = view.waiting.clone();
        order.sort_by(|&a, &b| rem(a).total_cmp(&rem(b)));
        // Suspension costs of the running jobs.
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
        let aware = self.aware;
        let pool = self.pool;
        let mut plan = priority_plan(view, &order, |w, need, available| {
            let limit = rem(w);
            let mut eligible: Vec<JobId> = available
                .iter()
                .copied()
                .filter(|&r| rem(r) > limit && view.jobs[r].preemptions < max_pre)
                .collect();
            // Lowest priority first; the candidates are the longest-remaining jobs that
            // together hold `pool` times the GPUs needed.
            eligible.sort_by(|&a, &b| rem(b).total_cmp(&rem(a)).then(a.cmp(&b)));
            let mut held = 0;
            let cut = eligible
                .iter()
                .position(|&r| {
                    held += view.jobs[r].gpus;
                    f64::from(held) >= pool * f64::from(need)
                })
                .map_or(eligible.len(), |i| i + 1);
            eligible.truncate(cut);
            if !aware {
                let mut out = blind_victims(view, &eligible, need, limit, w, rem)?;
                for s in &mut out {
                    s.predicted_s = Some(cost(s.victim).lost_s());
                }
                return Some(out);
            }
            let cands: Vec<Candidate> = eligible
                .iter()
                .map(|&r| {
                    let c = cost(r);
                    Candidate {
                        job: r,
                        gpus: view.jobs[r].gpus,
                        release_s: c.release_s(),
                        loss_s: c.loss_s(),
                    }
                })
                .collect();
            let choice = greedy(&cands, need)?;
            let natural = natural_wait(view, need, &remaining);
            if natural - choice.wait_s <= choice.loss_s {
                return None;
            }
            Some(
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
