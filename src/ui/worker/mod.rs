//! The Web Worker that runs whole experiments off the page's thread, and the page's handle
//! on it. The worker runs the page's own WebAssembly module: the page starts it as a module
//! worker (`worker-loader.js`) and posts it that module, which the loader instantiates with
//! the page's wasm-bindgen glue; the entry point then sees a worker's global scope and calls
//! [`worker_main`]. Messages are JSON strings; a run posts progress at most every 100 ms and
//! then its results. Cancelling terminates the worker.

pub(crate) mod step_worker;
pub(crate) mod tasks;

use crate::experiment::train::session::{train_with_events, TrainEvent, TrainProgress, Trained};
use crate::experiment::train::{CurvePoint, TrainConfig};
use crate::experiment::{Experiment, Progress, Resolved};
use crate::metrics::Recorder;
use crate::metrics::{SeriesPoint, Summary, SuspensionRecord};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

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
    Step(Box<step_worker::StepRequest>),
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
    /// Per-round series (numbers beside the message's JSON: [`crate::ui::wire`]).
    #[serde(with = "super::wire")]
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
    /// The stepping run after a request.
    Stepped(Box<crate::experiment::stepping::Board>),
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
                } = r;
                *jcts == s.jcts
                    && *series == s.series
                    && *elastic == s.elastic
                    && *pool == s.pool
                    && *preemption == s.preemption
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

pub(crate) fn policy_result(
    rec: Recorder,
    policy: &str,
    r: &Resolved,
    window: Option<(usize, usize)>,
    iso: Option<&[Option<f64>]>,
) -> PolicyResult {
    PolicyResult {
        summary: rec.summary(policy, &r.cluster, window, iso),
        jcts: rec.jct_values(window),
        rhos: rec.rho_values(window, iso),
        jobs_csv: rec.jobs_csv(iso),
        elastic: r.apps.is_some().then(|| ElasticJobs::from_recorder(&rec)),
        pool: r
            .load
            .as_ref()
            .and_then(|_| PoolSeries::from_recorder(&rec)),
        preemption: PreemptionLog::from_recorder(&rec, window),
        series: rec.series,
    }
}

/// Run an experiment into results: every policy in order (reporting each as it finishes
/// through `partial`, with its index), then the isolated baseline for rho, after which the summaries are
/// recomputed with it. The final numbers equal those of [`crate::experiment::run`].
pub fn run_experiment(
    exp: &Experiment,
    mut progress: impl FnMut(&Progress),
    mut partial: impl FnMut(usize, &PolicyResult),
) -> Result<Vec<PolicyResult>, String> {
    let r = exp.resolve().map_err(|e| e.to_string())?;
    let plan = r.plan(exp);
    let mut runs = Vec::with_capacity(plan.tasks.len());
    for task in &plan.tasks {
        let res = r
            .run_task(&plan, task, &mut progress)
            .map_err(|e| e.to_string())?;
        if !task.baseline {
            let shown = policy_result(
                res.recorder.clone(),
                &res.summary.policy,
                &r,
                plan.window,
                None,
            );
            partial(task.index, &shown);
        }
        runs.push(res);
    }
    let out = r.finish(&plan, runs);
    let iso = out.isolated_jct.as_deref();
    Ok(out
        .results
        .into_iter()
        .map(|res| policy_result(res.recorder, &res.summary.policy, &r, plan.window, iso))
        .collect())
}

pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, msg: &FromWorker) {
    let Ok((text, numbers)) = super::wire::encode(msg) else {
        return;
    };
    // A failed post means the page is gone; nothing to do.
    if numbers.is_empty() {
        let _ = scope.post_message(&JsValue::from_str(&text));
        return;
    }
    let numbers = js_sys::Float64Array::from(&numbers[..]);
    let _ = scope.post_message_with_transfer(
        &js_sys::Array::of2(&JsValue::from_str(&text), &numbers),
        &js_sys::Array::of1(&numbers.buffer()),
    );
}

/// A worker's answer as it arrives: its JSON text, and its numbers when it has some (a JSON
/// text and a `Float64Array` in an array: see [`post`]).
fn answer(data: JsValue) -> (String, Vec<f64>) {
    if let Some(text) = data.as_string() {
        return (text, Vec::new());
    }
    let pair = js_sys::Array::from(&data);
    let numbers = pair
        .get(1)
        .dyn_into::<js_sys::Float64Array>()
        .map(|n| n.to_vec())
        .unwrap_or_default();
    (pair.get(0).as_string().unwrap_or_default(), numbers)
}

/// Whether this instance runs in a dedicated worker (rather than on the page).
pub fn in_worker() -> bool {
    js_sys::global().is_instance_of::<DedicatedWorkerGlobalScope>()
}

/// Entry point of the worker: answers the page's requests.
pub fn worker_main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let text = e.data().as_string().unwrap_or_default();
        let msg: ToWorker = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(err) => {
                post(
                    &reply_scope,
                    &FromWorker::Failed(format!("bad request: {err}")),
                );
                return;
            }
        };
        match msg {
            ToWorker::Run(exp) => {
                let started = js_sys::Date::now();
                let mut last = 0.0;
                let s = reply_scope.clone();
                let mut sent = Vec::new();
                let result = run_experiment(
                    &exp,
                    |p| {
                        let now = js_sys::Date::now();
                        if now - last >= 100.0 {
                            last = now;
                            post(&s, &FromWorker::Progress(p.clone()));
                        }
                    },
                    |i, r| {
                        post(&reply_scope, &FromWorker::Partial(i, Box::new(r.clone())));
                        sent.push(r.clone());
                    },
                );
                match result {
                    Ok(r) => post(
                        &reply_scope,
                        &FromWorker::Done(Final::between(&sent, r), js_sys::Date::now() - started),
                    ),
                    Err(e) => post(&reply_scope, &FromWorker::Failed(e)),
                }
            }
            ToWorker::RunTasks(exp, tasks) => {
                tasks::run_tasks(&reply_scope, exp.map(|e| *e), &tasks)
            }
            ToWorker::Finish(iso) => tasks::finish_tasks(&reply_scope, iso),
            ToWorker::Step(req) => step_worker::answer(&reply_scope, *req),
            ToWorker::Network(text) => {
                if let Err(e) = crate::policy::dl2::bundled::provide(&text) {
                    post(&reply_scope, &FromWorker::Failed(e));
                }
            }
            ToWorker::Train(exp, cfg) => {
                let result = train_with_events(&exp, *cfg, js_sys::Date::now, |e| {
                    post(
                        &reply_scope,
                        &match e {
                            TrainEvent::Progress(p) => FromWorker::TrainProgress(p),
                            TrainEvent::Curve(c) => FromWorker::TrainCurve(c),
                        },
                    )
                });
                match result {
                    Ok(t) => post(&reply_scope, &FromWorker::Trained(Box::new(t))),
                    Err(e) => post(&reply_scope, &FromWorker::Failed(e)),
                }
            }
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
}

/// Most idle workers the page keeps.
const MAX_SPARES: usize = 4;
/// Largest results (bytes received: JSON and numbers) of a run whose worker is kept for the
/// next one.
const KEEP_BELOW_BYTES: usize = 4 << 20;

thread_local! {
    /// Workers ready for the next run: started before they were needed (their module
    /// posted), or kept from a run that ended (their module instantiated and warm).
    static SPARES: std::cell::RefCell<Vec<Worker>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The name under which index.html leaves the worker it starts while the page's module
/// loads.
const EARLY_WORKER: &str = "orreryEarlyWorker";

/// Take the worker index.html started while the module loaded and post it the module: the
/// first run's worker, whose start-up overlapped the module's compilation and the app's
/// creation. Nothing happens if there is none.
pub fn adopt_early_worker() {
    let global = js_sys::global();
    let key = JsValue::from_str(EARLY_WORKER);
    let Ok(Ok(worker)) = js_sys::Reflect::get(&global, &key).map(|w| w.dyn_into::<Worker>()) else {
        return;
    };
    let _ = js_sys::Reflect::delete_property(global.unchecked_ref::<js_sys::Object>(), &key);
    if worker.post_message(&wasm_bindgen::module()).is_err() {
        worker.terminate();
        return;
    }
    SPARES.with(|s| s.borrow_mut().push(worker));
}

/// Start a worker for the next run now, so that run does not wait for a worker to start.
pub fn prepare_spare() {
    if SPARES.with(|s| !s.borrow().is_empty()) {
        return;
    }
    if let Ok(worker) = new_worker() {
        SPARES.with(|s| s.borrow_mut().push(worker));
    }
}

/// A new module worker, posted the page's compiled module: the loader instantiates it
/// without fetching or compiling it again.
fn new_worker() -> Result<Worker, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options("./worker-loader.js", &options)
        .map_err(|e| format!("cannot start the worker: {}", crate::ui::js_text(&e)))?;
    if let Err(e) = worker.post_message(&wasm_bindgen::module()) {
        worker.terminate();
        return Err(format!(
            "cannot start the worker: {}",
            crate::ui::js_text(&e)
        ));
    }
    Ok(worker)
}

/// The page's handle on a worker; dropping it ends the worker, or keeps it idle for a later
/// run when it has finished.
pub struct WorkerHandle {
    worker: Worker,
    received: std::rc::Rc<std::cell::Cell<usize>>,
    /// Whether the worker's last message ended what it was asked (a run's or a shared run's
    /// final results).
    done: std::rc::Rc<std::cell::Cell<bool>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl WorkerHandle {
    /// Start a worker (or take a spare one) and post it `request` at once: the loader
    /// keeps it until the module is instantiated, so the worker starts on it without a
    /// round trip through the page's thread. `on_message` gets the answers.
    pub fn spawn(
        request: &ToWorker,
        on_message: impl Fn(FromWorker) + 'static,
    ) -> Result<Self, String> {
        Self::start(request, Box::new(on_message))
    }

    /// [`WorkerHandle::spawn`] for any answer handler: one copy of the code for every caller.
    fn start(request: &ToWorker, on_message: Box<dyn Fn(FromWorker)>) -> Result<Self, String> {
        let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
        let worker = match SPARES.with(|s| s.borrow_mut().pop()) {
            Some(w) => w,
            None => new_worker()?,
        };
        let received = std::rc::Rc::new(std::cell::Cell::new(0));
        let counter = received.clone();
        let done = std::rc::Rc::new(std::cell::Cell::new(false));
        let ended = done.clone();
        let cb = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let (text, numbers) = answer(e.data());
            counter.set(counter.get() + text.len() + 8 * numbers.len());
            match super::wire::decode::<FromWorker>(&text, numbers) {
                Ok(m) => {
                    ended.set(matches!(m, FromWorker::Done(..) | FromWorker::Finished(..)));
                    on_message(m)
                }
                Err(err) => on_message(FromWorker::Failed(format!(
                    "bad answer from the worker: {err}"
                ))),
            }
        });
        worker.set_onmessage(Some(cb.as_ref().unchecked_ref()));
        let handle = WorkerHandle {
            worker,
            received,
            done,
            _on_message: cb,
        };
        if let Some(network) = super::network::text() {
            handle.post(&ToWorker::Network(network.to_string()))?;
        }
        handle
            .worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("cannot start the worker: {}", crate::ui::js_text(&e)))?;
        Ok(handle)
    }

    /// Post another request to the worker.
    pub fn post(&self, request: &ToWorker) -> Result<(), String> {
        let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
        self.done.set(false);
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("cannot reach the worker: {}", crate::ui::js_text(&e)))
    }

    /// Bytes received from the worker so far (JSON and numbers).
    pub fn received_bytes(&self) -> usize {
        self.received.get()
    }
}

impl Drop for WorkerHandle {
    /// A worker that has answered everything it was asked stays, idle, for a later run, which
    /// then finds its module instantiated and its memory grown (the default scenario run
    /// again: a median 217 ms from the click to the results, against 250 ms in new workers);
    /// any other ends. So does a worker whose results came to more than
    /// [`KEEP_BELOW_BYTES`], or one beyond [`MAX_SPARES`]: memory a WebAssembly instance
    /// has grown is not given back while it lives.
    fn drop(&mut self) {
        if self.done.get() && self.received.get() <= KEEP_BELOW_BYTES {
            self.worker.set_onmessage(None);
            let kept = SPARES.with(|s| {
                let mut spares = s.borrow_mut();
                let room = spares.len() < MAX_SPARES;
                if room {
                    spares.push(self.worker.clone());
                }
                room
            });
            if kept {
                return;
            }
        }
        self.worker.terminate();
    }
}
