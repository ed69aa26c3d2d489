//! A comparison shared by several workers, as the CLI shares it among threads: each
//! worker is handed the plan's next task when it is free (the first policy, then the
//! isolated baseline, since every policy's rho waits for it), results are shown in the
//! experiment's order as soon as the policies before them have run, and once every task has
//! run the baseline's JCTs go to every worker for rho ([`crate::worker::tasks`]).

use super::{App, Msg, RunMsg};
use crate::worker::tasks::first_request;
use crate::worker::{FromWorker, PolicyResult, ToWorker, WorkerHandle};
use orrery::experiment::{Experiment, Progress};
use std::collections::VecDeque;
use yew::prelude::*;

/// Most workers one run uses.
const MAX_WORKERS: usize = 4;

/// How long into a run its results start to be shown as they arrive (ms).
pub(super) const SHOW_PARTIAL_AFTER_MS: f64 = 250.0;

/// The workers of one shared run and what they have reported.
pub(super) struct Pool {
    workers: Vec<WorkerHandle>,
    /// Tasks not handed out yet.
    queue: VecDeque<usize>,
    /// Tasks handed out and not yet reported done.
    busy: Vec<bool>,
    /// Each worker's latest progress.
    progress: Vec<Option<Progress>>,
    /// Results by policy, as they arrive.
    slots: Vec<Option<PolicyResult>>,
    /// Tasks in the plan, and how many have run.
    tasks: usize,
    done: usize,
    /// The isolated baseline's JCTs, once it has run (None without a baseline).
    iso: Option<Vec<Option<f64>>>,
    /// Workers yet to send their final results.
    finishing: usize,
    /// The longest computing time of a worker (ms).
    worker_ms: f64,
}

/// How many workers to use for `tasks` runs: one per core the browser reports (at most
/// [`MAX_WORKERS`]), and no more than there are runs.
pub(super) fn workers_for(tasks: usize) -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map_or(1, |c| c as usize);
    cores.min(MAX_WORKERS).min(tasks)
}

impl App {
    /// Start `exp`'s plan of `tasks` runs (the last the baseline when `baseline`) on `k`
    /// workers.
    pub(super) fn start_pool(
        &mut self,
        ctx: &Context<Self>,
        exp: &Experiment,
        tasks: usize,
        baseline: bool,
        k: usize,
    ) -> Result<(), String> {
        let policies = exp.policies.len();
        let mut queue: VecDeque<usize> = (0..policies).collect();
        if baseline {
            // The first policy goes to the first worker (the spare one, already warm), so
            // its results show soonest; the baseline next, since every rho waits for it.
            queue.insert(1.min(queue.len()), policies);
        }
        let mut workers = Vec::with_capacity(k);
        for w in 0..k {
            let Some(task) = queue.pop_front() else { break };
            let link = ctx.link().clone();
            workers.push(WorkerHandle::spawn(&first_request(exp, task), move |m| {
                link.send_message(Msg::Run(RunMsg::Pool(w, m)))
            })?);
        }
        let n = workers.len();
        self.run.pool = Some(Pool {
            workers,
            queue,
            busy: vec![true; n],
            progress: vec![None; n],
            slots: vec![None; policies],
            tasks,
            done: 0,
            iso: None,
            finishing: 0,
            worker_ms: 0.0,
        });
        Ok(())
    }

    /// Whether a policy's results that have just arrived wait to be shown: a run's results
    /// are shown from [`SHOW_PARTIAL_AFTER_MS`] into it, so that a run that ends sooner draws
    /// its table and charts once (on this project's 2-core machine the default scenario run
    /// again took a median 152 ms from the click to its results against 221 ms when each
    /// policy's results were drawn as they came). The first result held schedules the
    /// showing of those that have arrived by then.
    pub(super) fn hold_partial(&mut self, ctx: &Context<Self>) -> bool {
        let wait = SHOW_PARTIAL_AFTER_MS - (crate::now_ms() - self.run.started_ms);
        if wait <= 0.0 {
            return false;
        }
        if !self.run.partial_due {
            self.run.partial_due = true;
            let link = ctx.link().clone();
            let number = self.run.number;
            yew::platform::spawn_local(async move {
                yew::platform::time::sleep(std::time::Duration::from_millis(wait as u64 + 1)).await;
                link.send_message(Msg::Run(RunMsg::ShowPartial(number)));
            });
        }
        true
    }

    /// Results of the run in progress have arrived: show them now, or later when
    /// [`App::hold_partial`] holds them; returns whether to render.
    pub(super) fn partial_arrived(&mut self, ctx: &Context<Self>) -> bool {
        !self.hold_partial(ctx) && self.show_partial()
    }

    /// Show the results the run in progress has reported so far; returns whether to render.
    pub(super) fn show_partial(&mut self) -> bool {
        self.run.partial_due = false;
        let shown = match &self.run.pool {
            Some(pool) => pool.prefix(),
            None if self.run.worker.is_some() => self.run.partial.clone(),
            None => return false,
        };
        if shown.is_empty() {
            return false;
        }
        self.set_results(shown);
        self.run.complete = false;
        true
    }

    /// A message from worker `k` of the shared run.
    pub(super) fn pool_message(&mut self, ctx: &Context<Self>, k: usize, m: FromWorker) -> bool {
        let Some(pool) = self.run.pool.as_mut() else {
            return false;
        };
        match m {
            FromWorker::Progress(p) => {
                if let Some(slot) = pool.progress.get_mut(k) {
                    *slot = Some(p);
                }
                let p = pool.overall();
                self.show_progress(p)
            }
            FromWorker::Partial(i, r) => {
                crate::mark("orrery:first-results");
                let before = pool.shown();
                if let Some(slot) = pool.slots.get_mut(i) {
                    *slot = Some(*r);
                }
                pool.shown() > before && self.partial_arrived(ctx)
            }
            FromWorker::Iso(iso) => {
                pool.iso = Some(iso);
                false
            }
            FromWorker::Idle(ms) => {
                pool.worker_ms = pool.worker_ms.max(ms);
                pool.done += 1;
                if let Some(b) = pool.busy.get_mut(k) {
                    *b = false;
                }
                if let Some(p) = pool.progress.get_mut(k) {
                    *p = None;
                }
                if let Some(task) = pool.queue.pop_front() {
                    pool.busy[k] = true;
                    let sent = pool.workers[k].post(&ToWorker::RunTasks(None, vec![task]));
                    if let Err(e) = sent {
                        return self.pool_failed(e);
                    }
                    return false;
                }
                if pool.done < pool.tasks {
                    return false;
                }
                // Every task has run: rho needs the baseline's JCTs in every worker.
                let finish = ToWorker::Finish(pool.iso.take());
                pool.finishing = pool.workers.len();
                for w in &pool.workers {
                    if let Err(e) = w.post(&finish) {
                        return self.pool_failed(e);
                    }
                }
                false
            }
            FromWorker::Finished(indices, fin) => {
                // This worker's results move out of their slots and come back with rho.
                let mine: Vec<PolicyResult> = indices
                    .iter()
                    .filter_map(|&i| pool.slots.get_mut(i).and_then(Option::take))
                    .collect();
                match fin.apply(mine) {
                    Ok(finals) => {
                        for (i, r) in indices.into_iter().zip(finals) {
                            if let Some(slot) = pool.slots.get_mut(i) {
                                *slot = Some(r);
                            }
                        }
                    }
                    Err(e) => return self.pool_failed(e),
                }
                pool.finishing = pool.finishing.saturating_sub(1);
                if pool.finishing > 0 {
                    return false;
                }
                if pool.shown() < pool.slots.len() {
                    return self.pool_failed("a policy's results never arrived".into());
                }
                let results: Vec<PolicyResult> = std::mem::take(&mut pool.slots)
                    .into_iter()
                    .flatten()
                    .collect();
                self.run.worker_ms = Some(pool.worker_ms);
                self.run.transfer_bytes =
                    Some(pool.workers.iter().map(WorkerHandle::received_bytes).sum());
                self.run.pool = None;
                crate::worker::prepare_spare();
                self.run.progress = None;
                self.set_results(results);
                self.run.complete = true;
                self.view.focus_policy = 0;
                self.run.last_run_ms = Some(crate::now_ms() - self.run.started_ms);
                self.learn_cost();
                true
            }
            FromWorker::Failed(e) => self.pool_failed(e),
            FromWorker::Done(..)
            | FromWorker::TrainProgress(_)
            | FromWorker::TrainCurve(_)
            | FromWorker::Trained(_)
            | FromWorker::Stepped(..) => false,
        }
    }

    fn pool_failed(&mut self, e: String) -> bool {
        self.errors.run = Some(e);
        self.run.pool = None;
        crate::worker::prepare_spare();
        self.run.progress = None;
        true
    }
}

impl Pool {
    /// How many policies, from the first, have their results.
    fn shown(&self) -> usize {
        self.slots.iter().take_while(|s| s.is_some()).count()
    }

    /// The results of those policies.
    fn prefix(&self) -> Vec<PolicyResult> {
        self.slots.iter().map_while(Clone::clone).collect()
    }

    /// One progress for the whole run: runs done, and the running ones' jobs together.
    fn overall(&self) -> Progress {
        let running: Vec<&Progress> = self.progress.iter().flatten().collect();
        Progress {
            run: self.done.min(self.tasks.saturating_sub(1)),
            runs: self.tasks,
            policy: running
                .iter()
                .map(|p| p.policy.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            jobs_done: running.iter().map(|p| p.jobs_done).sum(),
            jobs: running.iter().map(|p| p.jobs).max().unwrap_or(1).max(1),
        }
    }
}
