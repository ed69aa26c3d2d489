//! One of several workers sharing a run: the page hands each worker tasks of the
//! experiment's plan one at a time ([`ToWorker::RunTasks`]), each worker keeps the runs it
//! made, and when every task has run the page sends the isolated baseline's JCTs to all of
//! them ([`ToWorker::Finish`]) for rho. Each task is the same deterministic run wherever it
//! runs, so the results are those of one worker running the plan in order (and of the CLI,
//! which runs the tasks on threads the same way).

use super::{policy_result, post, progress_poster, Final, FromWorker, PolicyResult, ToWorker};
use orrery::experiment::{Experiment, Plan, Resolved, RunResult};
use std::cell::RefCell;
use web_sys::DedicatedWorkerGlobalScope;

/// What a worker keeps between the requests of one shared run.
struct Held {
    resolved: Resolved,
    plan: Plan,
    /// Runs made so far: task index, the run, and the result sent without rho.
    runs: Vec<(usize, RunResult, PolicyResult)>,
    /// Computing time so far (ms).
    busy_ms: f64,
}

thread_local! {
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Run `tasks` of the plan (resolving `exp` when it comes): post each policy's result as
/// it finishes, the baseline's JCTs, then [`FromWorker::Idle`].
pub fn run_tasks(scope: &DedicatedWorkerGlobalScope, exp: Option<Experiment>, tasks: &[usize]) {
    let started = js_sys::Date::now();
    if let Some(exp) = exp {
        match exp.resolve() {
            Ok(resolved) => {
                let plan = resolved.plan(&exp);
                HELD.with(|h| {
                    *h.borrow_mut() = Some(Held {
                        resolved,
                        plan,
                        runs: Vec::new(),
                        busy_ms: 0.0,
                    })
                });
            }
            Err(e) => return post(scope, &FromWorker::Failed(e.to_string())),
        }
    }
    let outcome = HELD.with(|h| {
        let mut held = h.borrow_mut();
        let Some(held) = held.as_mut() else {
            return Err("the worker was asked to run tasks before it had the experiment".into());
        };
        for &i in tasks {
            let Some(task) = held.plan.tasks.get(i).cloned() else {
                return Err(format!("the plan has no task {i}"));
            };
            let res = held
                .resolved
                .run_task(&held.plan, &task, progress_poster(scope))
                .map_err(|e| e.to_string())?;
            if task.baseline {
                post(scope, &FromWorker::Iso(res.recorder.jcts()));
                continue;
            }
            let shown = policy_result(
                res.recorder.clone(),
                &res.summary.policy,
                &held.resolved,
                held.plan.window,
                None,
            );
            post(scope, &FromWorker::Partial(i, Box::new(shown.clone())));
            held.runs.push((i, res, shown));
        }
        held.busy_ms += js_sys::Date::now() - started;
        Ok(held.busy_ms)
    });
    match outcome {
        Ok(ms) => post(scope, &FromWorker::Idle(ms)),
        Err(e) => post(scope, &FromWorker::Failed(e)),
    }
}

/// The final results of the runs made so far, with rho from `iso` when given.
pub fn finish_tasks(scope: &DedicatedWorkerGlobalScope, iso: Option<Vec<Option<f64>>>) {
    let msg = HELD.with(|h| {
        let held = h.borrow_mut().take()?;
        let (mut indices, mut sent, mut finals) = (Vec::new(), Vec::new(), Vec::new());
        for (i, res, shown) in held.runs {
            let r = policy_result(
                res.recorder,
                &res.summary.policy,
                &held.resolved,
                held.plan.window,
                iso.as_deref(),
            );
            indices.push(i);
            sent.push(shown);
            finals.push(r);
        }
        Some(FromWorker::Finished(indices, Final::between(&sent, finals)))
    });
    post(
        scope,
        &msg.unwrap_or_else(|| FromWorker::Finished(Vec::new(), Final::AsSent)),
    );
}

/// The request that starts worker `k` of a shared run on `task`.
pub fn first_request(exp: &Experiment, task: usize) -> ToWorker {
    ToWorker::RunTasks(Some(Box::new(exp.clone())), vec![task])
}
