//! The worker's side: its entry point ([`worker_main`]), the whole runs it answers, and how
//! it posts its messages.

use super::protocol::*;
use super::{step_worker, tasks};
use orrery::experiment::train::session::{train_with_events, TrainEvent};
use orrery::experiment::{Experiment, Progress, Resolved};
use orrery::metrics::Recorder;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

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
        elastic: r.apps().is_some().then(|| ElasticJobs::from_recorder(&rec)),
        pool: r
            .load
            .as_ref()
            .and_then(|_| PoolSeries::from_recorder(&rec)),
        preemption: PreemptionLog::from_recorder(&rec, window),
        faults: FaultLog::from_recorder(&rec, window),
        series: rec.series,
    }
}

/// Run an experiment into results: every policy in order (reporting each as it finishes
/// through `partial`, with its index), then the isolated baseline for rho, after which the summaries are
/// recomputed with it. The final numbers equal those of [`orrery::experiment::run`].
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

/// A run's progress reporter: posts the run's progress at most every 100 ms, the first 100 ms
/// after it is made (the page shows none sooner).
pub(crate) fn progress_poster(scope: &DedicatedWorkerGlobalScope) -> impl FnMut(&Progress) + '_ {
    let mut last = js_sys::Date::now();
    move |p| {
        let now = js_sys::Date::now();
        if now - last >= 100.0 {
            last = now;
            post(scope, &FromWorker::Progress(p.clone()));
        }
    }
}

pub(crate) fn post(scope: &DedicatedWorkerGlobalScope, msg: &FromWorker) {
    let Ok((text, numbers)) = crate::wire::encode(msg) else {
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
                let mut sent = Vec::new();
                let result = run_experiment(&exp, progress_poster(&reply_scope), |i, r| {
                    post(&reply_scope, &FromWorker::Partial(i, Box::new(r.clone())));
                    sent.push(r.clone());
                });
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
                if let Err(e) = orrery::policy::dl2::bundled::provide(&text) {
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
