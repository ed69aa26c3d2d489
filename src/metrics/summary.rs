//! A run's summary from its records: JCT statistics, makespan, waiting, utilization,
//! fairness, restarts, GPU-hours and cost, and each mechanism's own figures.

use super::records::{JobRecord, SuspensionRecord};
use super::{in_window, mean, percentile, Recorder};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

impl Recorder {
    /// Seconds each measured job spent waiting for GPUs: from arrival to its first start,
    /// plus, after every suspension, from the release of its GPUs to its resumption.
    fn queued_values(&self, jobs: &[&JobRecord]) -> Vec<f64> {
        let mut after = BTreeMap::<JobId, f64>::new();
        for r in &self.preemption.suspensions {
            if let (Some(a), Some(b)) = (r.released, r.resumed) {
                *after.entry(r.job).or_insert(0.0) += (b - a).max(0.0);
            }
        }
        let mut v: Vec<f64> = jobs
            .iter()
            .filter_map(|r| {
                Some(r.first_start? - r.arrival + after.get(&r.id).copied().unwrap_or(0.0))
            })
            .collect();
        crate::order::sort_floats(&mut v);
        v
    }

    /// Figures of a preemptive run (None for other runs).
    fn preemption_figures(&self, jobs: &[&JobRecord]) -> Option<PreemptionFigures> {
        let log = &self.preemption;
        if !log.enabled {
            return None;
        }
        let measured: std::collections::BTreeSet<JobId> = jobs.iter().map(|r| r.id).collect();
        let recs: Vec<&SuspensionRecord> = log
            .suspensions
            .iter()
            .filter(|r| measured.contains(&r.job))
            .collect();
        let suspend_s: f64 = recs
            .iter()
            .filter_map(|r| Some(r.released? - r.decided))
            .sum();
        let resume_s: f64 = recs.iter().filter_map(|r| r.reload_s).sum();
        let mut first: Vec<f64> = jobs
            .iter()
            .filter_map(|r| r.first_start.map(|s| s - r.arrival))
            .collect();
        crate::order::sort_floats(&mut first);
        let rel = |pred: f64, actual: f64| (pred - actual).abs() / actual;
        let dur: Vec<f64> = jobs
            .iter()
            .filter(|r| r.finish.is_some() && r.train_s > 0.0)
            .filter_map(|r| Some(rel(r.predicted_s?, r.train_s)))
            .collect();
        let over: Vec<f64> = recs
            .iter()
            .filter_map(|r| {
                let lost = r.lost_s().filter(|l| *l > 0.0)?;
                Some(rel(r.predicted_s?, lost))
            })
            .collect();
        let model: Vec<f64> = recs
            .iter()
            .filter(|r| !r.finished_instead)
            .filter_map(|r| {
                let lost = r.lost_s().filter(|l| *l > 0.0)?;
                Some(rel(r.modelled_s, lost))
            })
            .collect();
        let avg = |v: &[f64]| (!v.is_empty()).then(|| mean(v));
        Some(PreemptionFigures {
            suspensions: recs.len() as u64,
            finished_instead: recs.iter().filter(|r| r.finished_instead).count() as u64,
            // `+ 0.0` turns the empty sum's -0.0 into 0.
            suspend_s: suspend_s + 0.0,
            resume_s: resume_s + 0.0,
            avg_first_wait_s: mean(&first),
            p99_first_wait_s: percentile(&first, 99.0),
            duration_error: avg(&dur),
            overhead_error: avg(&over),
            model_error: avg(&model),
        })
    }

    /// JCTs of the finished jobs in `window` (all jobs if `None`), sorted (s).
    pub fn jct_values(&self, window: Option<(usize, usize)>) -> Vec<f64> {
        let mut v: Vec<f64> = self
            .jobs
            .iter()
            .filter(|r| in_window(window, r.id))
            .filter_map(JobRecord::jct)
            .collect();
        crate::order::sort_floats(&mut v);
        v
    }

    /// rho (JCT over isolated JCT) of the finished jobs in `window`, sorted.
    pub fn rho_values(
        &self,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
    ) -> Vec<f64> {
        let Some(iso) = isolated_jct else {
            return Vec::new();
        };
        let mut v: Vec<f64> = self
            .jobs
            .iter()
            .filter(|r| in_window(window, r.id))
            .filter_map(|r| Some(r.jct()? / iso.get(r.id).copied().flatten().filter(|v| *v > 0.0)?))
            .collect();
        crate::order::sort_floats(&mut v);
        v
    }

    /// Summarise the jobs whose ids are in `window` (all jobs if `None`).
    pub fn summary(
        &self,
        policy: &str,
        cluster: &ClusterSpec,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
    ) -> Summary {
        let measured: Vec<&JobRecord> = self
            .jobs
            .iter()
            .filter(|r| in_window(window, r.id))
            .collect();
        let jcts = self.jct_values(window);
        let mut waits: Vec<f64> = measured
            .iter()
            .filter_map(|r| r.first_start.map(|s| s - r.arrival))
            .collect();
        crate::order::sort_floats(&mut waits);
        if self.preemption.enabled {
            waits = self.queued_values(&measured);
        }
        let drained: f64 = self
            .preemption
            .suspensions
            .iter()
            .filter(|r| in_window(window, r.job))
            .filter_map(|r| Some(r.released? - r.decided - r.save_s))
            .sum();
        let time_lost = measured.iter().map(|r| r.overhead_s).sum::<f64>() + drained;
        let makespan = self.end_time;
        let total_gpus = f64::from(cluster.total_gpus());
        let busy_total: f64 = self.busy_seconds.iter().sum();
        let utilization = if makespan > 0.0 {
            busy_total / (total_gpus * makespan)
        } else {
            0.0
        };
        let utilization_by_type = cluster
            .types
            .iter()
            .zip(&self.busy_seconds)
            .map(|(t, b)| {
                (
                    t.name.clone(),
                    if makespan > 0.0 && t.count > 0 {
                        b / (f64::from(t.count) * makespan)
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        let gpu_seconds_by_type: Vec<f64> = (0..cluster.num_types())
            .map(|t| self.jobs.iter().map(|r| r.gpu_seconds[t]).sum())
            .collect();
        let gpu_hours = gpu_seconds_by_type.iter().sum::<f64>() / 3600.0;
        // A spot type whose trace has prices is charged them; any other type its price.
        let priced = |t: usize| self.faults.spot_priced.get(t).copied().flatten();
        let cost_of = |t: usize| {
            priced(t).unwrap_or_else(|| {
                cluster.types[t].price_per_hour.unwrap_or(0.0) * gpu_seconds_by_type[t] / 3600.0
            })
        };
        let has_prices =
            |t: usize| cluster.types[t].price_per_hour.is_some() || priced(t).is_some();
        let types = 0..cluster.num_types();
        let cost = types
            .clone()
            .any(has_prices)
            .then(|| types.clone().map(cost_of).sum());
        let spot = |t: &usize| self.faults.spot_types.get(*t).copied().unwrap_or(false);
        let spot_cost = types
            .clone()
            .filter(spot)
            .any(has_prices)
            .then(|| types.clone().filter(spot).map(cost_of).sum());
        let rhos = self.rho_values(window, isolated_jct);
        let (max_rho, mean_rho, jain) = if rhos.is_empty() {
            (None, None, None)
        } else {
            let n = rhos.len() as f64;
            let s: f64 = rhos.iter().sum();
            let s2: f64 = rhos.iter().map(|r| r * r).sum();
            (
                Some(rhos.iter().cloned().fold(0.0, f64::max)),
                Some(s / n),
                Some(s * s / (n * s2)),
            )
        };
        Summary {
            policy: policy.to_string(),
            num_jobs: jcts.len(),
            unfinished: measured.len() - jcts.len(),
            avg_jct_s: mean(&jcts),
            median_jct_s: percentile(&jcts, 50.0),
            p95_jct_s: percentile(&jcts, 95.0),
            p99_jct_s: percentile(&jcts, 99.0),
            makespan_s: makespan,
            avg_wait_s: mean(&waits),
            p99_wait_s: percentile(&waits, 99.0),
            time_lost_s: time_lost,
            utilization,
            utilization_by_type,
            max_rho,
            mean_rho,
            jain_index: jain,
            restarts: measured.iter().map(|r| u64::from(r.restarts)).sum(),
            preemptions: measured.iter().map(|r| u64::from(r.preemptions)).sum(),
            gpu_hours,
            cost,
            spot_cost,
            rounds: self.series.len() as u64,
            policy_failures: self.policy_failures,
            elastic: self.elastic_figures(&measured),
            pool: self.pool_figures(cluster),
            preemption: self.preemption_figures(&measured),
            ps: self.ps_figures(),
            faults: self.fault_figures(&measured),
        }
    }

    /// Figures of a slot (DL2) run, None for other runs.
    fn ps_figures(&self) -> Option<PsFigures> {
        let r = &self.ps;
        if r.slots == 0 {
            return None;
        }
        let total_reward: f64 = r.rewards.iter().sum();
        let per_job = |x: f64| if r.job_s > 0.0 { x / r.job_s } else { 0.0 };
        Some(PsFigures {
            slots: r.slots,
            total_reward,
            avg_reward: total_reward / r.slots as f64,
            avg_workers: per_job(r.worker_s),
            avg_ps: per_job(r.ps_s),
            max_workers: r.max_workers,
            max_ps: r.max_ps,
            cpu_utilization: if r.total_cpu_s > 0.0 {
                r.busy_cpu_s / r.total_cpu_s
            } else {
                0.0
            },
            actions: r.actions,
            invalid_actions: r.invalid_actions,
            reallocations: r.reallocations,
        })
    }

    /// Pool figures, None when the run had no inference pool.
    fn pool_figures(&self, cluster: &ClusterSpec) -> Option<PoolFigures> {
        let pts = &self.pool.series;
        if pts.is_empty() {
            return None;
        }
        let per = cluster
            .types
            .iter()
            .find(|t| t.is_inference())
            .map_or(1, |t| t.per_server.max(1));
        let (mut span, mut loaned, mut demand) = (0.0, 0.0, 0.0);
        for (i, p) in pts.iter().enumerate() {
            let dt = match (pts.get(i + 1), i.checked_sub(1).and_then(|k| pts.get(k))) {
                (Some(n), _) => n.time - p.time,
                (None, Some(prev)) => p.time - prev.time,
                (None, None) => 1.0,
            };
            span += dt;
            loaned += dt * f64::from(p.loaned) * f64::from(per);
            demand += dt * f64::from(p.demand);
        }
        let busy: f64 = self.busy_seconds.iter().sum();
        let total = f64::from(cluster.total_gpus()) * span;
        let serving = demand * f64::from(per);
        Some(PoolFigures {
            loans: self.pool.loans,
            reclaims: self.pool.reclaims,
            avg_loaned_gpus: if span > 0.0 { loaned / span } else { 0.0 },
            cluster_usage: if total > 0.0 {
                (busy + serving) / total
            } else {
                0.0
            },
            avg_demand_servers: if span > 0.0 { demand / span } else { 0.0 },
        })
    }

    /// Sizing figures of the jobs' resize histories, None when no job was resized.
    fn elastic_figures(&self, jobs: &[&JobRecord]) -> Option<ElasticFigures> {
        let resizes: u64 = jobs.iter().map(|r| r.resizes.len() as u64).sum();
        if resizes == 0 {
            return None;
        }
        let (mut t, mut g, mut b, mut max) = (0.0, 0.0, 0.0, 0u32);
        for r in jobs {
            let end = r.finish.unwrap_or(self.end_time);
            for (i, p) in r.resizes.iter().enumerate() {
                let until = r.resizes.get(i + 1).map_or(end, |n| n.time).min(end);
                let dt = (until - p.time).max(0.0);
                if p.gpus > 0 {
                    t += dt;
                    g += dt * f64::from(p.gpus);
                    b += dt * f64::from(p.batch_size);
                    max = max.max(p.gpus);
                }
            }
        }
        let avg = |x: f64| if t > 0.0 { x / t } else { 0.0 };
        Some(ElasticFigures {
            resizes,
            avg_gpus: avg(g),
            max_gpus: max,
            avg_batch_size: avg(b),
        })
    }
}

/// The numbers of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Policy spec.
    pub policy: String,
    /// Jobs measured that finished.
    pub num_jobs: usize,
    /// Jobs measured that did not finish (dropped or cut off).
    pub unfinished: usize,
    /// Average JCT (s).
    pub avg_jct_s: f64,
    /// Median JCT (s).
    pub median_jct_s: f64,
    /// 95th-percentile JCT (s).
    pub p95_jct_s: f64,
    /// 99th-percentile JCT (s).
    pub p99_jct_s: f64,
    /// Time of the last completion or round end (s).
    pub makespan_s: f64,
    /// Average time waiting for GPUs: first run minus arrival; in preemptive runs also,
    /// after every suspension, from the release of the job's GPUs to its resumption (s).
    pub avg_wait_s: f64,
    /// 99th percentile of the waiting time (s).
    #[serde(default)]
    pub p99_wait_s: f64,
    /// Seconds jobs lost to restarts and preemptions: held GPUs without progress
    /// (restarts, checkpoints, reloads) plus, for suspensions, the time from the decision
    /// until the job's epoch ended.
    #[serde(default)]
    pub time_lost_s: f64,
    /// GPU utilization over the makespan (0..1).
    pub utilization: f64,
    /// Utilization per GPU type.
    pub utilization_by_type: BTreeMap<String, f64>,
    /// Largest finish-time fairness rho (JCT / JCT under the isolated policy).
    pub max_rho: Option<f64>,
    /// Mean rho.
    pub mean_rho: Option<f64>,
    /// Jain's fairness index of the rho values (1 = perfectly even).
    pub jain_index: Option<f64>,
    /// Restarts (placement changes).
    pub restarts: u64,
    /// Preemptions.
    pub preemptions: u64,
    /// GPU-hours used.
    pub gpu_hours: f64,
    /// Dollars, when the cluster has prices (spot types at their trace's prices when it has
    /// them).
    pub cost: Option<f64>,
    /// Dollars of that on spot types (the rest is on-demand), when a spot type has prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spot_cost: Option<f64>,
    /// Rounds simulated.
    pub rounds: u64,
    /// Times the policy failed and the previous decision was kept.
    pub policy_failures: u64,
    /// Elastic runs only: how jobs were sized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elastic: Option<ElasticFigures>,
    /// Runs with an inference pool only: loans, reclaims and usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolFigures>,
    /// Preemptive runs only: suspensions, their costs and the policy's predictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionFigures>,
    /// Slot (DL2) runs only: workers, parameter servers, rewards and policy actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ps: Option<PsFigures>,
    /// Runs with failures or checkpoints only: failures, interruptions, ETTR and the
    /// GPU-hours lost by cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<super::FaultFigures>,
}

/// The figures of a slot (DL2) run of parameter-server jobs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PsFigures {
    /// Slots simulated.
    pub slots: u64,
    /// DL2's reward summed over the slots: the fraction of their work jobs did, summed (it
    /// equals the number of jobs that finished, plus the fractions of the others).
    pub total_reward: f64,
    /// Reward per slot.
    pub avg_reward: f64,
    /// Average workers of a training job (time-weighted).
    pub avg_workers: f64,
    /// Average parameter servers of a training job (time-weighted).
    pub avg_ps: f64,
    /// Most workers any job held.
    pub max_workers: u32,
    /// Most parameter servers any job held.
    pub max_ps: u32,
    /// Share of the cluster's CPU time held by training jobs.
    pub cpu_utilization: f64,
    /// Policy actions applied (beyond the first worker and parameter server of each job).
    pub actions: u64,
    /// Policy actions that could not be applied.
    pub invalid_actions: u64,
    /// Changes of a job's workers or parameter servers from one slot to the next.
    pub reallocations: u64,
}

/// The suspensions of a preemptive run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PreemptionFigures {
    /// Suspensions decided.
    pub suspensions: u64,
    /// Of those, jobs that finished before their epoch ended.
    pub finished_instead: u64,
    /// Seconds from suspension decisions until the GPUs were free (epoch ends and
    /// checkpoints), summed.
    pub suspend_s: f64,
    /// Seconds reloading on resumption, summed.
    pub resume_s: f64,
    /// Average time from arrival to the first start (s); the summary's waiting time also
    /// counts the waits after suspensions.
    pub avg_first_wait_s: f64,
    /// 99th percentile of that time (s).
    pub p99_first_wait_s: f64,
    /// Mean relative error of the policy's predicted training times (None if it predicts
    /// none).
    pub duration_error: Option<f64>,
    /// Mean relative error of the policy's predicted time lost per suspension.
    pub overhead_error: Option<f64>,
    /// Mean relative error of the overhead model's time lost per suspension (the noise).
    pub model_error: Option<f64>,
}

/// The inference pool's figures of a pooled (Aryl) run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PoolFigures {
    /// Servers loaned to training, summed over loans.
    pub loans: u64,
    /// Servers reclaimed by inference, summed over reclaims.
    pub reclaims: u64,
    /// Average GPUs on loan.
    pub avg_loaned_gpus: f64,
    /// Share of all the cluster's GPU time in use: by training (on its own servers or on
    /// loan) or by the inference load.
    pub cluster_usage: f64,
    /// Average inference servers needed by the load.
    pub avg_demand_servers: f64,
}

/// How an elastic run sized its jobs (time-weighted over the time jobs held GPUs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ElasticFigures {
    /// Changes of a job's GPU count or batch size.
    pub resizes: u64,
    /// Average GPUs a running job held.
    pub avg_gpus: f64,
    /// Largest GPU count any job held.
    pub max_gpus: u32,
    /// Average total batch size of a running job.
    pub avg_batch_size: f64,
}
