//! The messages between the page and a worker ([`ToWorker`], [`FromWorker`]) and what a
//! run's results carry ([`PolicyResult`] and its per-mechanism parts).

use orrery::experiment::train::session::{TrainProgress, Trained};
use orrery::experiment::train::{CurvePoint, TrainConfig};
use orrery::experiment::{Experiment, Progress};
use orrery::metrics::Recorder;
use orrery::metrics::{SeriesPoint, Summary, SuspensionRecord};
use serde::{Deserialize, Serialize};

/// What the page asks the worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToWorker {
    /// Run every policy of the experiment.
    Run(Box<Experiment>),
    /// Train DL2's network on the workloads of a DL2 experiment (with a generated
    /// workload) with these settings.
    Train(Box<Experiment>, Box<TrainConfig>),
    /// Run these tasks of the experiment's plan (one of several workers sharing a run):
    /// the experiment comes with the first request and is kept for the next ones.
    RunTasks(Option<Box<Experiment>>, Vec<usize>),
    /// Finish the tasks run so far with the isolated baseline's JCTs (rho's denominators).
    Finish(Option<Vec<Option<f64>>>),
    /// DL2's bundled network (the text of its file), which the web build does not carry:
    /// posted before the first request when the page has loaded it.
    Network(String),
    /// Step the stepping run (set it up first when the request carries an experiment).
    Step(Box<super::step_worker::StepRequest>),
}

/// One policy's results, as the charts and tables need them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    /// The summary.
    pub summary: Summary,
    /// JCTs of finished measured jobs, sorted (s).
    pub jcts: Vec<f64>,
    /// rho of finished measured jobs, sorted.
    pub rhos: Vec<f64>,
    /// Per-round series (numbers beside the message's JSON: `ui::wire`).
    #[serde(with = "crate::wire")]
    pub series: Vec<SeriesPoint>,
    /// Per-job CSV.
    pub jobs_csv: String,
    /// Elastic experiments: every job's changes of GPU count and batch size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elastic: Option<ElasticJobs>,
    /// Pooled (Aryl) experiments: the inference pool over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolSeries>,
    /// Preemptive (PickyMan) experiments: every suspension with its cost, and the policy's
    /// predicted training times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionLog>,
    /// Runs with failures or checkpoints: when the measured jobs were interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultLog>,
}

/// What the failure charts need of one run with failures or checkpoints.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FaultLog {
    /// Times of the measured jobs' interruptions (s, to the millisecond), in time order.
    pub interruptions: Vec<f64>,
    /// When the run ended (s).
    pub end: f64,
}

impl FaultLog {
    /// From a recorder of a run with failures or checkpoints; None for other runs.
    pub fn from_recorder(rec: &Recorder, window: Option<(usize, usize)>) -> Option<Self> {
        if !rec.faults.on {
            return None;
        }
        let measured = |j: usize| window.is_none_or(|(a, b)| (a..b).contains(&j));
        Some(FaultLog {
            interruptions: rec
                .faults
                .interruptions
                .iter()
                .filter(|(_, j)| measured(*j))
                .map(|(t, _)| ms(*t))
                .collect(),
            end: rec.end_time,
        })
    }
}

/// Seconds rounded to the millisecond, which keeps the worker's messages short.
fn ms(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One suspension of a preemptive run, compact for the worker's messages (a JSON array):
/// decision time, job, the job it made room for, seconds draining (to the end of its
/// epoch), checkpointing and reloading, seconds actually lost, the overhead model's
/// seconds, the policy's predicted seconds, and whether the job finished before its epoch
/// ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Suspended(
    pub f64,
    pub usize,
    pub usize,
    pub f64,
    pub f64,
    pub Option<f64>,
    pub Option<f64>,
    pub f64,
    pub Option<f64>,
    pub bool,
);

impl Suspended {
    /// From a recorded suspension.
    pub fn from_record(r: &SuspensionRecord) -> Self {
        // Until its GPUs are free the job trains to the end of its epoch, then checkpoints.
        let drain = r
            .released
            .map_or(r.drain_s, |t| (t - r.decided - r.save_s).max(0.0));
        Suspended(
            ms(r.decided),
            r.job,
            r.for_job,
            ms(drain),
            ms(r.save_s),
            r.reload_s.map(ms),
            r.lost_s().map(ms),
            ms(r.modelled_s),
            r.predicted_s.map(ms),
            r.finished_instead,
        )
    }
    /// Decision time (s).
    pub fn time(&self) -> f64 {
        self.0
    }
    /// The suspended job.
    pub fn job(&self) -> usize {
        self.1
    }
    /// The waiting job it made room for.
    pub fn for_job(&self) -> usize {
        self.2
    }
    /// Seconds from the decision to the end of its epoch (or to its completion).
    pub fn drain_s(&self) -> f64 {
        self.3
    }
    /// Seconds writing its checkpoint.
    pub fn save_s(&self) -> f64 {
        self.4
    }
    /// Seconds reloading when it started again (None: not resumed).
    pub fn reload_s(&self) -> Option<f64> {
        self.5
    }
    /// Seconds lost: draining, checkpointing and reloading (None while not resumed).
    pub fn lost_s(&self) -> Option<f64> {
        self.6
    }
    /// The overhead model's seconds lost.
    pub fn modelled_s(&self) -> f64 {
        self.7
    }
    /// The policy's predicted seconds lost, if it predicts one.
    pub fn predicted_s(&self) -> Option<f64> {
        self.8
    }
    /// The job finished before its epoch ended (no checkpoint, no reload).
    pub fn finished_instead(&self) -> bool {
        self.9
    }
}

/// What the preemption panel needs of one preemptive run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PreemptionLog {
    /// Suspensions of measured jobs, in decision order.
    pub suspensions: Vec<Suspended>,
    /// (job, predicted training s, actual training s) of finished measured jobs the policy
    /// predicted.
    pub predictions: Vec<(usize, f64, f64)>,
}

impl PreemptionLog {
    /// From a recorder of a preemptive run; None for other runs.
    pub fn from_recorder(rec: &Recorder, window: Option<(usize, usize)>) -> Option<Self> {
        if !rec.preemption.enabled {
            return None;
        }
        let measured = |j: usize| window.is_none_or(|(a, b)| (a..b).contains(&j));
        Some(PreemptionLog {
            suspensions: rec
                .preemption
                .suspensions
                .iter()
                .filter(|r| measured(r.job))
                .map(Suspended::from_record)
                .collect(),
            predictions: rec
                .jobs
                .iter()
                .filter(|j| measured(j.id) && j.finish.is_some())
                .filter_map(|j| Some((j.id, ms(j.predicted_s?), ms(j.train_s))))
                .collect(),
        })
    }
}

/// The inference pool of one pooled run, compact for the worker's messages: only the ticks
/// where the servers needed or the servers on loan changed, and the last tick.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoolSeries {
    /// (time s, inference servers needed, inference servers loaned to training), from this
    /// time on.
    pub points: Vec<(f64, u32, u32)>,
    /// Time of the last tick (s).
    pub end: f64,
}

impl PoolSeries {
    /// From a recorder of a pooled run; None when it recorded no pool.
    pub fn from_recorder(rec: &Recorder) -> Option<Self> {
        let series = &rec.pool.series;
        let last = series.last()?;
        let mut points: Vec<(f64, u32, u32)> = Vec::new();
        for p in series {
            if points
                .last()
                .is_none_or(|q| q.1 != p.demand || q.2 != p.loaned)
            {
                points.push((p.time, p.demand, p.loaned));
            }
        }
        Some(PoolSeries {
            points,
            end: last.time,
        })
    }

    /// Times (s) and servers of loans (positive) and reclaims (negative): the changes of the
    /// servers on loan between ticks.
    pub fn changes(&self) -> Vec<(f64, i64)> {
        self.points
            .windows(2)
            .filter(|w| w[0].2 != w[1].2)
            .map(|w| (w[1].0, i64::from(w[1].2) - i64::from(w[0].2)))
            .chain(
                self.points
                    .first()
                    .filter(|p| p.2 > 0)
                    .map(|p| (p.0, i64::from(p.2))),
            )
            .collect()
    }
}

/// One change of an elastic job's configuration, compact for the worker's messages (a JSON
/// array): from `time` (s) on, `gpus` GPUs on `nodes` servers at total batch `batch`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Resize(pub f64, pub u32, pub u32, pub u32);

impl Resize {
    /// From this time on (s).
    pub fn time(&self) -> f64 {
        self.0
    }
    /// GPUs held (0 = not running).
    pub fn gpus(&self) -> u32 {
        self.1
    }
    /// Servers spanned.
    pub fn nodes(&self) -> u32 {
        self.2
    }
    /// Total batch size (0 when not running).
    pub fn batch(&self) -> u32 {
        self.3
    }
}

/// What the elastic charts need of one policy's run, by job id.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElasticJobs {
    /// Completion time (s), None if unfinished.
    pub finish: Vec<Option<f64>>,
    /// Changes of GPU count or batch size, in time order (the first allocation included).
    pub resizes: Vec<Vec<Resize>>,
}

impl ElasticJobs {
    /// From a recorder of an elastic run.
    pub fn from_recorder(rec: &Recorder) -> Self {
        ElasticJobs {
            finish: rec.jobs.iter().map(|j| j.finish).collect(),
            resizes: rec
                .jobs
                .iter()
                .map(|j| {
                    j.resizes
                        .iter()
                        .map(|p| Resize(p.time, p.gpus, p.nodes, p.batch_size))
                        .collect()
                })
                .collect(),
        }
    }
}

/// What the worker answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FromWorker {
    /// Progress of the current run.
    Progress(Progress),
    /// The result of the policy at this index of the experiment's list, as soon as it has
    /// run (without rho until the baseline has run).
    Partial(usize, Box<PolicyResult>),
    /// The results, against the partial results already sent, and the worker's compute
    /// time (ms).
    Done(Final, f64),
    /// The isolated baseline's JCT per job (a worker sharing a run).
    Iso(Vec<Option<f64>>),
    /// The tasks of the last `RunTasks` have run; the worker's computing time so far (ms).
    Idle(f64),
    /// The final results of the tasks (by index) a worker sharing a run has run.
    Finished(Vec<usize>, Final),
    /// The run failed.
    Failed(String),
    /// Training: how far it is.
    TrainProgress(TrainProgress),
    /// Training: new points of the learning curve.
    TrainCurve(Vec<CurvePoint>),
    /// Training is over.
    Trained(Box<Trained>),
    /// The stepping run after a request, with what failures and spot capacity did since
    /// the last one (runs with them).
    Stepped(
        Box<orrery::experiment::stepping::Board>,
        Option<Box<super::step_marks::FaultMarks>>,
    ),
}

/// What the isolated baseline changes in one policy's results: the summary (rho), rho per
/// job and the per-job CSV (its rho column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RhoUpdate {
    /// The summary.
    pub summary: Summary,
    /// rho of finished measured jobs, sorted.
    pub rhos: Vec<f64>,
    /// Per-job CSV.
    pub jobs_csv: String,
}

/// A run's results at its end, told against its partial results: the worker sends only
/// what the partial results lack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Final {
    /// The partial results are the results (no baseline ran).
    AsSent,
    /// The partial results, each with the baseline's rho (in the experiment's policy order).
    WithRho(Vec<RhoUpdate>),
    /// Other results than the partial ones, in full.
    Results(Vec<PolicyResult>),
}

impl Final {
    /// How `results` differ from the `sent` partial results.
    pub fn between(sent: &[PolicyResult], results: Vec<PolicyResult>) -> Final {
        if results == sent {
            return Final::AsSent;
        }
        let rho_only = results.len() == sent.len()
            && results.iter().zip(sent).all(|(r, s)| {
                // Every field but those the baseline changes (no `..`: a new field must be
                // listed here).
                let PolicyResult {
                    summary: _,
                    rhos: _,
                    jobs_csv: _,
                    jcts,
                    series,
                    elastic,
                    pool,
                    preemption,
                    faults,
                } = r;
                *jcts == s.jcts
                    && *series == s.series
                    && *elastic == s.elastic
                    && *pool == s.pool
                    && *preemption == s.preemption
                    && *faults == s.faults
            });
        if rho_only {
            Final::WithRho(
                results
                    .into_iter()
                    .map(|r| RhoUpdate {
                        summary: r.summary,
                        rhos: r.rhos,
                        jobs_csv: r.jobs_csv,
                    })
                    .collect(),
            )
        } else {
            Final::Results(results)
        }
    }

    /// The results, from the partial ones; an error when an update does not fit them.
    pub fn apply(self, mut partial: Vec<PolicyResult>) -> Result<Vec<PolicyResult>, String> {
        match self {
            Final::AsSent => Ok(partial),
            Final::Results(r) => Ok(r),
            Final::WithRho(updates) => {
                if updates.len() != partial.len() {
                    return Err(format!(
                        "the worker sent rho for {} policies but results of {}",
                        updates.len(),
                        partial.len()
                    ));
                }
                for (p, u) in partial.iter_mut().zip(updates) {
                    p.summary = u.summary;
                    p.rhos = u.rhos;
                    p.jobs_csv = u.jobs_csv;
                }
                Ok(partial)
            }
        }
    }
}
