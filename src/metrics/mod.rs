//! Metrics: a [`Recorder`] observes the simulator's events and turns them into a
//! [`Summary`] (JCT statistics, makespan, queueing delay, utilization, fairness, restarts,
//! GPU-hours and cost), per-job records and per-round series for charts.

pub mod glossary;
pub mod numbers;

use crate::cluster::ClusterSpec;
use crate::job::{JobId, JobSpec};
use crate::sim::SimEvent;
use crate::workload::csv::quote;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the recorder knows about one job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobRecord {
    /// Job id.
    pub id: JobId,
    /// Arrival (s).
    pub arrival: f64,
    /// First time it ran (s).
    pub first_start: Option<f64>,
    /// Completion (s).
    pub finish: Option<f64>,
    /// Given up on.
    pub dropped: bool,
    /// Restarts (placement changes).
    pub restarts: u32,
    /// Preemptions.
    pub preemptions: u32,
    /// GPU-seconds held, per type (half of a pair's when sharing GPUs with another job).
    pub gpu_seconds: Vec<f64>,
    /// Elastic jobs: every change of GPU count or batch size, in time order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resizes: Vec<ResizePoint>,
    /// Seconds of training: its slices minus their overheads, summed over its `Ran` events
    /// (a pooled job on both pools at once counts both; a job sharing GPUs counts the pair's
    /// slice).
    #[serde(default)]
    pub train_s: f64,
    /// Seconds it held GPUs without progress (restarts, checkpoints, reloads).
    #[serde(default)]
    pub overhead_s: f64,
    /// The policy's prediction of its training time (s), if the policy made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_s: Option<f64>,
}

/// One suspension of a preemptive run, from the decision to the job's resumption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuspensionRecord {
    /// The suspended job.
    pub job: JobId,
    /// The waiting job its GPUs went to.
    pub for_job: JobId,
    /// Decision time (s).
    pub decided: f64,
    /// Seconds to the end of its epoch.
    pub drain_s: f64,
    /// Seconds writing its checkpoint.
    pub save_s: f64,
    /// When its GPUs were free (s).
    pub released: Option<f64>,
    /// It finished before its epoch ended (no checkpoint, no resumption).
    pub finished_instead: bool,
    /// When it started again (s).
    pub resumed: Option<f64>,
    /// Seconds reloading when it started again.
    pub reload_s: Option<f64>,
    /// The overhead model's time lost (drain, checkpoint, reload), s.
    pub modelled_s: f64,
    /// The policy's predicted time lost (s), if it predicted one.
    pub predicted_s: Option<f64>,
}

impl SuspensionRecord {
    /// Seconds actually lost: from the decision to free GPUs, plus the reload (None while
    /// not yet resumed, unless it finished instead).
    pub fn lost_s(&self) -> Option<f64> {
        let released = self.released?;
        let suspend = released - self.decided;
        if self.finished_instead {
            return Some(suspend);
        }
        Some(suspend + self.reload_s?)
    }
}

/// What a preemptive run recorded about suspensions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuspensionLog {
    /// The run was preemptive (figures are reported even with no suspension).
    pub enabled: bool,
    /// Every suspension, in decision order.
    pub suspensions: Vec<SuspensionRecord>,
    /// Index of each job's latest suspension.
    #[serde(skip)]
    open: BTreeMap<JobId, usize>,
}

/// An elastic job's configuration from a time on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ResizePoint {
    /// From this time (s).
    pub time: f64,
    /// GPUs held.
    pub gpus: u32,
    /// Servers spanned.
    pub nodes: u32,
    /// Total batch size.
    pub batch_size: u32,
}

impl JobRecord {
    /// Job completion time (s), if finished.
    pub fn jct(&self) -> Option<f64> {
        self.finish.map(|f| f - self.arrival)
    }
}

/// One point of the per-round series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Round start (s).
    pub start: f64,
    /// Round end (s).
    pub end: f64,
    /// Active (admitted, unfinished) jobs.
    pub active: usize,
    /// Jobs that ran.
    pub running: usize,
    /// Busy GPUs per type.
    pub busy_gpus: Vec<u32>,
}

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
}

/// What a slot (DL2) run recorded, summed over its slots.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PsRecord {
    /// Slots simulated.
    pub slots: u64,
    /// Reward of every slot, in order.
    pub rewards: Vec<f64>,
    /// Policy actions applied.
    pub actions: u64,
    /// Policy actions that could not be applied.
    pub invalid_actions: u64,
    /// Changes of a job's workers or parameter servers.
    pub reallocations: u64,
    /// Most workers any job held.
    pub max_workers: u32,
    /// Most parameter servers any job held.
    pub max_ps: u32,
    /// Workers x seconds of jobs that trained.
    pub worker_s: f64,
    /// Parameter servers x seconds of jobs that trained.
    pub ps_s: f64,
    /// Seconds jobs trained.
    pub job_s: f64,
    /// CPUs held by training jobs x slot seconds.
    pub busy_cpu_s: f64,
    /// CPUs of the cluster x slot seconds.
    pub total_cpu_s: f64,
}

/// The inference pool of a pooled (Aryl) run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoolRecord {
    /// Servers loaned, summed over loans.
    pub loans: u64,
    /// Servers reclaimed, summed over reclaims.
    pub reclaims: u64,
    /// Demand and loans per tick.
    pub series: Vec<PoolPoint>,
}

/// The inference pool at one tick.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PoolPoint {
    /// Time (s).
    pub time: f64,
    /// Inference servers needed.
    pub demand: u32,
    /// Inference servers loaned to training.
    pub loaned: u32,
}

impl SuspensionLog {
    fn open_mut(&mut self, job: JobId) -> Option<&mut SuspensionRecord> {
        let i = *self.open.get(&job)?;
        self.suspensions.get_mut(i)
    }
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
                r.train_s += (end - start - overhead_s).max(0.0);
                self.busy_seconds[*gpu_type] += busy_s * f64::from(*gpus) * share;
            }
            SimEvent::Restarted { job, .. } => self.jobs[*job].restarts += 1,
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
        let cost = if cluster.types.iter().any(|t| t.price_per_hour.is_some()) {
            Some(
                cluster
                    .types
                    .iter()
                    .zip(&gpu_seconds_by_type)
                    .map(|(t, s)| t.price_per_hour.unwrap_or(0.0) * s / 3600.0)
                    .sum(),
            )
        } else {
            None
        };
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
            rounds: self.series.len() as u64,
            policy_failures: self.policy_failures,
            elastic: self.elastic_figures(&measured),
            pool: self.pool_figures(cluster),
            preemption: self.preemption_figures(&measured),
            ps: self.ps_figures(),
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

    /// Per-job rows as CSV: id, arrival, first start, finish, JCT and rho.
    pub fn jobs_csv(&self, isolated_jct: Option<&[Option<f64>]>) -> String {
        let mut out =
            String::from("job_id,arrival_s,start_s,finish_s,jct_s,rho,restarts,preemptions\n");
        let f = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
        for r in &self.jobs {
            let rho =
                isolated_jct.and_then(|iso| Some(r.jct()? / iso.get(r.id).copied().flatten()?));
            out.push_str(&format!(
                "{},{:.3},{},{},{},{},{},{}\n",
                r.id,
                r.arrival,
                f(r.first_start),
                f(r.finish),
                f(r.jct()),
                rho.map(|x| format!("{x:.6}")).unwrap_or_default(),
                r.restarts,
                r.preemptions
            ));
        }
        out
    }

    /// Per-round rows as CSV: round, start, end, active and running jobs, busy GPUs per type.
    pub fn series_csv(&self, cluster: &ClusterSpec) -> String {
        series_csv(&self.series, cluster)
    }

    /// JCT of every job (None where unfinished), by id.
    pub fn jcts(&self) -> Vec<Option<f64>> {
        self.jobs.iter().map(JobRecord::jct).collect()
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
    /// Dollars, when the cluster has prices.
    pub cost: Option<f64>,
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

/// Time-weighted averages of a per-round quantity over `bins` equal spans of the run, so
/// that charts of long runs show the trend rather than every round's jitter.
pub fn binned(
    series: &[SeriesPoint],
    bins: usize,
    value: impl Fn(&SeriesPoint) -> f64,
) -> Vec<(f64, f64)> {
    let t0 = series.first().map_or(0.0, |p| p.start);
    let t1 = series.iter().map(|p| p.end).fold(t0, f64::max);
    if series.is_empty() || t1 <= t0 || bins == 0 {
        return Vec::new();
    }
    let width = (t1 - t0) / bins as f64;
    let mut sum = vec![0.0; bins];
    let mut weight = vec![0.0; bins];
    for p in series {
        let v = value(p);
        let (mut a, b) = (p.start, p.end);
        while a < b {
            let k = (((a - t0) / width) as usize).min(bins - 1);
            let edge = (t0 + (k + 1) as f64 * width).min(b);
            let w = (edge - a).max(0.0);
            sum[k] += v * w;
            weight[k] += w;
            if edge <= a {
                break;
            }
            a = edge;
        }
    }
    (0..bins)
        .filter(|&k| weight[k] > 0.0)
        .map(|k| (t0 + (k as f64 + 0.5) * width, sum[k] / weight[k]))
        .collect()
}

/// Per-round rows as CSV: round, start, end, active and running jobs, busy GPUs per type.
pub fn series_csv(series: &[SeriesPoint], cluster: &ClusterSpec) -> String {
    let mut out = String::from("round,start_s,end_s,active,running");
    for t in &cluster.types {
        out.push_str(&format!(",busy_{}", t.name));
    }
    out.push('\n');
    for (i, p) in series.iter().enumerate() {
        out.push_str(&format!(
            "{i},{:.3},{:.3},{},{}",
            p.start, p.end, p.active, p.running
        ));
        for b in &p.busy_gpus {
            out.push_str(&format!(",{b}"));
        }
        out.push('\n');
    }
    out
}

/// A number for CSV: the shortest text that reads back as the same value.
pub fn csv_num(v: f64) -> String {
    v.to_string()
}

/// An optional number for CSV (empty when absent).
pub fn csv_opt(v: Option<f64>) -> String {
    v.map(csv_num).unwrap_or_default()
}

/// Summaries as CSV, one row each (every field of [`Summary`]; utilization per type after
/// overall utilization).
pub fn summaries_csv(summaries: &[Summary]) -> String {
    let types: Vec<String> = summaries
        .first()
        .map(|s| s.utilization_by_type.keys().cloned().collect())
        .unwrap_or_default();
    let mut header: Vec<String> = [
        "policy",
        "num_jobs",
        "unfinished",
        "avg_jct_s",
        "median_jct_s",
        "p95_jct_s",
        "p99_jct_s",
        "makespan_s",
        "avg_wait_s",
        "utilization",
    ]
    .map(String::from)
    .to_vec();
    header.extend(types.iter().map(|t| quote(&format!("utilization_{t}"))));
    header.extend(
        [
            "max_rho",
            "mean_rho",
            "jain_index",
            "restarts",
            "preemptions",
            "gpu_hours",
            "cost",
            "rounds",
            "policy_failures",
            "resizes",
            "avg_gpus",
            "avg_batch_size",
            "p99_wait_s",
            "time_lost_s",
            "suspensions",
            "avg_first_wait_s",
            "avg_workers",
            "avg_ps",
            "total_reward",
            "cpu_utilization",
        ]
        .map(String::from),
    );
    let mut out = header.join(",") + "\n";
    for s in summaries {
        let mut row = vec![
            quote(&s.policy),
            s.num_jobs.to_string(),
            s.unfinished.to_string(),
            csv_num(s.avg_jct_s),
            csv_num(s.median_jct_s),
            csv_num(s.p95_jct_s),
            csv_num(s.p99_jct_s),
            csv_num(s.makespan_s),
            csv_num(s.avg_wait_s),
            csv_num(s.utilization),
        ];
        row.extend(
            types
                .iter()
                .map(|t| csv_opt(s.utilization_by_type.get(t).copied())),
        );
        row.extend([
            csv_opt(s.max_rho),
            csv_opt(s.mean_rho),
            csv_opt(s.jain_index),
            s.restarts.to_string(),
            s.preemptions.to_string(),
            csv_num(s.gpu_hours),
            csv_opt(s.cost),
            s.rounds.to_string(),
            s.policy_failures.to_string(),
            s.elastic.map(|e| e.resizes.to_string()).unwrap_or_default(),
            csv_opt(s.elastic.map(|e| e.avg_gpus)),
            csv_opt(s.elastic.map(|e| e.avg_batch_size)),
            csv_num(s.p99_wait_s),
            csv_num(s.time_lost_s),
            s.preemption
                .map(|p| p.suspensions.to_string())
                .unwrap_or_default(),
            csv_opt(s.preemption.map(|p| p.avg_first_wait_s)),
            csv_opt(s.ps.map(|p| p.avg_workers)),
            csv_opt(s.ps.map(|p| p.avg_ps)),
            csv_opt(s.ps.map(|p| p.total_reward)),
            csv_opt(s.ps.map(|p| p.cpu_utilization)),
        ]);
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

fn in_window(window: Option<(usize, usize)>, id: usize) -> bool {
    window.is_none_or(|(a, b)| id >= a && id < b)
}

/// Mean (0 for an empty slice).
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Percentile of sorted values with linear interpolation (numpy's default).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let rank = p / 100.0 * (n - 1) as f64;
            let lo = rank.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binned_is_time_weighted() {
        let p = |start: f64, end: f64, active: usize| SeriesPoint {
            start,
            end,
            active,
            running: 0,
            busy_gpus: vec![],
        };
        // 0..10 s at 2, 10..30 s at 5: two bins of 15 s -> (2*10 + 5*5)/15 = 3, then 5.
        let s = [p(0.0, 10.0, 2), p(10.0, 30.0, 5)];
        let b = binned(&s, 2, |x| x.active as f64);
        assert_eq!(b.len(), 2);
        assert!(
            (b[0].0 - 7.5).abs() < 1e-12 && (b[0].1 - 3.0).abs() < 1e-12,
            "{b:?}"
        );
        assert!((b[1].1 - 5.0).abs() < 1e-12);
        assert!(binned(&[], 5, |x| x.active as f64).is_empty());
    }

    #[test]
    fn percentiles_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), 2.5);
        assert!((percentile(&v, 99.0) - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
