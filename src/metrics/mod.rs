//! Metrics: a [`Recorder`] observes the simulator's events and turns them into a
//! [`Summary`] (JCT statistics, makespan, queueing delay, utilization, fairness, restarts,
//! GPU-hours and cost), per-job records and per-round series for charts.

mod faults;
pub mod numbers;
mod records;
mod summary;
mod tables;
#[cfg(test)]
mod tests;

pub use crate::math::{mean, percentile};
pub use faults::{FaultFigures, FaultRecord, LostGpuHours};
pub use records::{
    JobRecord, PoolPoint, PoolRecord, PsRecord, ResizePoint, SeriesPoint, SuspensionLog,
    SuspensionRecord,
};
pub use summary::{ElasticFigures, PoolFigures, PreemptionFigures, PsFigures, Summary};
pub use tables::{binned, csv_num, csv_opt, series_csv, summaries_csv};

use crate::model::job::JobSpec;
use crate::sim::SimEvent;
use serde::{Deserialize, Serialize};

/// Records events.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Recorder {
    /// Per-job records, by id.
    pub jobs: Vec<JobRecord>,
    /// Per-round series.
    pub series: Vec<SeriesPoint>,
    /// GPU-busy seconds per type as the mechanism accounts them (a pair's GPUs once).
    pub busy_seconds: Vec<f64>,
    /// Latest time seen (s).
    pub end_time: f64,
    /// Policy failures seen.
    pub policy_failures: u64,
    /// Pooled runs: loans, reclaims and the inference pool over time.
    #[serde(default)]
    pub pool: PoolRecord,
    /// Preemptive runs: every suspension.
    #[serde(default)]
    pub preemption: SuspensionLog,
    /// Slot (DL2) runs: rewards, policy actions and task-seconds.
    #[serde(default)]
    pub ps: PsRecord,
    /// Runs with failures or checkpoints: failures and interruptions.
    #[serde(default)]
    pub faults: FaultRecord,
}

impl Recorder {
    /// A recorder for these jobs on a cluster of `num_types` GPU types.
    pub fn new(specs: &[JobSpec], num_types: usize) -> Self {
        Recorder {
            jobs: specs
                .iter()
                .enumerate()
                .map(|(id, s)| JobRecord {
                    id,
                    arrival: s.arrival,
                    gpu_seconds: vec![0.0; num_types],
                    ..Default::default()
                })
                .collect(),
            series: Vec::new(),
            busy_seconds: vec![0.0; num_types],
            end_time: 0.0,
            policy_failures: 0,
            pool: PoolRecord::default(),
            preemption: SuspensionLog::default(),
            ps: PsRecord::default(),
            faults: FaultRecord::default(),
        }
    }

    /// Take one event into account.
    pub fn observe(&mut self, e: &SimEvent) {
        match e {
            SimEvent::Ran {
                job,
                gpu_type,
                gpus,
                start,
                end,
                busy_s,
                overhead_s,
                shared_with,
                ..
            } => {
                // The two jobs of a pair share their GPUs: each is charged half, so the
                // GPUs' time counts once.
                let share = if shared_with.is_some() { 0.5 } else { 1.0 };
                let r = &mut self.jobs[*job];
                r.first_start.get_or_insert(*start);
                r.gpu_seconds[*gpu_type] += (end - start) * f64::from(*gpus) * share;
                r.overhead_s += overhead_s;
                r.overhead_gpu_s += overhead_s * f64::from(*gpus) * share;
                r.train_s += (end - start - overhead_s).max(0.0);
                self.faults.charge(*gpu_type, *gpus, (*start, *end), share);
                self.busy_seconds[*gpu_type] += busy_s * f64::from(*gpus) * share;
            }
            SimEvent::Restarted { job, .. } => self.jobs[*job].restarts += 1,
            SimEvent::ServerFailed {
                time,
                server,
                category,
                gpu,
            } => {
                if let Some(g) = gpu {
                    let at = self.faults.failures.len();
                    self.faults.failed_gpus.push((at, *g));
                }
                self.faults
                    .failures
                    .push((*time, *server, category.clone()));
            }
            SimEvent::Interrupted {
                job,
                time,
                gpus,
                lost_s,
                spot,
                ..
            } => {
                let r = &mut self.jobs[*job];
                r.lost_s += lost_s;
                if *spot {
                    r.spot_preemptions += 1;
                    r.preempted_gpu_s += lost_s * f64::from(*gpus);
                    self.faults.spot_preemptions.push((*time, *job));
                } else {
                    r.interruptions += 1;
                    r.lost_gpu_s += lost_s * f64::from(*gpus);
                    self.faults.interruptions.push((*time, *job));
                }
            }
            SimEvent::Checkpointed {
                job, gpus, write_s, ..
            } => {
                let r = &mut self.jobs[*job];
                r.checkpoint_s += write_s;
                r.checkpoint_gpu_s += write_s * f64::from(*gpus);
            }
            SimEvent::Preempted { job, time } => {
                self.jobs[*job].preemptions += 1;
                if let Some(r) = self.preemption.open_mut(*job) {
                    r.released.get_or_insert(*time);
                }
            }
            SimEvent::Finished { job, time } => {
                self.jobs[*job].finish = Some(*time);
                self.end_time = self.end_time.max(*time);
                if let Some(r) = self.preemption.open_mut(*job) {
                    if r.released.is_none() {
                        r.released = Some(*time);
                        r.save_s = 0.0;
                        r.finished_instead = true;
                    }
                }
            }
            SimEvent::Suspending {
                job,
                time,
                for_job,
                drain_s,
                save_s,
                modelled_s,
                predicted_s,
            } => {
                let log = &mut self.preemption;
                log.open.insert(*job, log.suspensions.len());
                log.suspensions.push(SuspensionRecord {
                    job: *job,
                    for_job: *for_job,
                    decided: *time,
                    drain_s: *drain_s,
                    save_s: *save_s,
                    released: None,
                    finished_instead: false,
                    resumed: None,
                    reload_s: None,
                    modelled_s: *modelled_s,
                    predicted_s: *predicted_s,
                });
            }
            SimEvent::Resumed {
                job,
                time,
                reload_s,
                ..
            } => {
                if let Some(r) = self.preemption.open_mut(*job) {
                    r.resumed = Some(*time);
                    r.reload_s = Some(*reload_s);
                }
            }
            SimEvent::Predicted {
                job, duration_s, ..
            } => {
                self.jobs[*job].predicted_s.get_or_insert(*duration_s);
            }
            SimEvent::Dropped { job, .. } => self.jobs[*job].dropped = true,
            SimEvent::PolicyFailed { .. } => self.policy_failures += 1,
            SimEvent::RoundEnded {
                start,
                end,
                active,
                running,
                busy_gpus,
                ..
            } => {
                self.series.push(SeriesPoint {
                    start: *start,
                    end: *end,
                    active: *active,
                    running: *running,
                    busy_gpus: busy_gpus.clone(),
                });
                self.end_time = self.end_time.max(*end);
            }
            SimEvent::Resized {
                job,
                time,
                gpus,
                nodes,
                batch_size,
            } => self.jobs[*job].resizes.push(ResizePoint {
                time: *time,
                gpus: *gpus,
                nodes: *nodes,
                batch_size: *batch_size,
            }),
            SimEvent::Loaned { servers, .. } => self.pool.loans += u64::from(*servers),
            SimEvent::Reclaimed { servers, .. } => self.pool.reclaims += u64::from(*servers),
            SimEvent::PoolState {
                time,
                demand,
                loaned,
            } => self.pool.series.push(PoolPoint {
                time: *time,
                demand: *demand,
                loaned: *loaned,
            }),
            SimEvent::PsAllocated { workers, ps: p, .. } => {
                let r = &mut self.ps;
                r.reallocations += 1;
                r.max_workers = r.max_workers.max(*workers);
                r.max_ps = r.max_ps.max(*p);
            }
            SimEvent::SlotEnded {
                start,
                end,
                reward,
                actions,
                invalid_actions,
                busy_cpus,
                total_cpus,
                worker_s,
                ps_s,
                job_s,
            } => {
                let r = &mut self.ps;
                let span = (end - start).max(0.0);
                r.slots += 1;
                r.rewards.push(*reward);
                r.actions += u64::from(*actions);
                r.invalid_actions += u64::from(*invalid_actions);
                r.worker_s += worker_s;
                r.ps_s += ps_s;
                r.job_s += job_s;
                r.busy_cpu_s += f64::from(*busy_cpus) * span;
                r.total_cpu_s += f64::from(*total_cpus) * span;
            }
            SimEvent::Admitted { .. } | SimEvent::Decided { .. } => {}
        }
    }

    /// JCT of every job (None where unfinished), by id.
    pub fn jcts(&self) -> Vec<Option<f64>> {
        self.jobs.iter().map(JobRecord::jct).collect()
    }
}

fn in_window(window: Option<(usize, usize)>, id: usize) -> bool {
    window.is_none_or(|(a, b)| id >= a && id < b)
}
