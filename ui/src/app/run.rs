//! The comparison: every selected policy run in the Web Worker, its progress and results;
//! the results' downloads, and the share link.

use super::{App, Export, Msg, RunMsg};
use crate::files::download;
use crate::panels::results::progress_label;
use crate::panels::{elastic::resizes_csv, preemption_results::suspensions_csv};
use crate::shared::{Results, Shared};
use crate::worker::{FromWorker, PolicyResult, ToWorker, WorkerHandle};
use crate::{now_ms, LONG_LINK_LEN, MAX_LINK_LEN};
use orrery::experiment::{Experiment, ProfileSource, Progress, WorkloadSource};
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// Least time between two moves of the progress bar (ms).
const PROGRESS_EVERY_MS: f64 = 100.0;

impl App {
    /// Run every selected policy of the experiment in a new worker (the previous run, if
    /// any, stops).
    pub(super) fn start_compare(&mut self, ctx: &Context<Self>) {
        self.run.worker = None;
        self.run.pool = None;
        self.run.complete = false;
        self.run.pending = None;
        self.run.partial_due = false;
        self.run.number += 1;
        self.errors.run = None;
        if self.exp.policies.is_empty() {
            self.errors.run = Some("select at least one policy".into());
            return;
        }
        let exp = self.exp.clone();
        if let Err(e) = self.resolve_cached(&exp) {
            self.errors.run = Some(e);
            return;
        }
        if self.wait_for_network(ctx, super::AfterNetwork::Compare) {
            return;
        }
        self.run.estimate = self.estimate();
        if self.run.results.as_ref().is_some_and(|r| r.exp != *exp) {
            self.view.elastic_job = None;
            self.view.elastic_epoch = 0;
            self.view.preempt_policy = 0;
        }
        let (tasks, baseline) =
            self.resolve_cached(&exp)
                .map_or((exp.policies.len(), false), |r| {
                    let plan = r.plan(&exp);
                    (plan.tasks.len(), plan.has_baseline())
                });
        let k = super::pool::workers_for(tasks);
        if k > 1 {
            match self.start_pool(ctx, &exp, tasks, baseline, k) {
                Ok(()) => {
                    self.run.sent_exp = Some(Experiment::clone(&exp));
                    self.run.partial.clear();
                    self.run.progress = Some(Progress {
                        run: 0,
                        runs: tasks,
                        policy: String::new(),
                        jobs_done: 0,
                        jobs: 1,
                    });
                    self.run.started_ms = now_ms();
                }
                Err(e) => {
                    self.run.pool = None;
                    self.errors.run = Some(e);
                }
            }
            return;
        }
        let link = ctx.link().clone();
        let request = ToWorker::Run(Box::new(Experiment::clone(&exp)));
        match WorkerHandle::spawn(&request, move |m| {
            link.send_message(Msg::Run(RunMsg::Worker(m)))
        }) {
            Ok(w) => {
                self.run.worker = Some(w);
                self.run.sent_exp = Some(Experiment::clone(&exp));
                self.run.partial.clear();
                let runs = self
                    .resolve_cached(&exp)
                    .map_or(exp.policies.len(), |r| r.plan(&exp).tasks.len());
                self.run.progress = Some(Progress {
                    run: 0,
                    runs,
                    policy: String::new(),
                    jobs_done: 0,
                    jobs: 1,
                });
                self.run.started_ms = now_ms();
            }
            Err(e) => self.errors.run = Some(e),
        }
    }

    /// A message of the comparison; returns whether to render.
    pub(super) fn run_update(&mut self, ctx: &Context<Self>, msg: RunMsg) -> bool {
        match msg {
            RunMsg::Compare => self.compare_or_confirm(ctx),
            RunMsg::Confirm | RunMsg::Dismiss => return self.confirm_update(ctx, msg),
            RunMsg::Cancel => {
                self.run.worker = None;
                self.run.pool = None;
                crate::worker::prepare_spare();
                self.run.progress = None;
                self.errors.run = Some("cancelled".into());
            }
            RunMsg::Worker(m) => return self.worker_message(ctx, m),
            RunMsg::Pool(k, m) => return self.pool_message(ctx, k, m),
            RunMsg::ShowPartial(number) => {
                return number == self.run.number && self.show_partial();
            }
            RunMsg::Download(what) => return self.download(what),
            RunMsg::ChartError(e) => {
                web_sys::console::warn_1(&format!("chart: {e}").into());
                self.errors.run = Some(
                    "A chart of the results could not be drawn (the table and downloads are complete); the browser's console has the details.".into(),
                );
            }
        }
        true
    }

    /// A message from the comparison's worker; returns whether to render.
    fn worker_message(&mut self, ctx: &Context<Self>, m: FromWorker) -> bool {
        match m {
            FromWorker::Progress(p) => return self.show_progress(p),
            FromWorker::Partial(i, r) => {
                crate::mark("orrery:first-results");
                if i <= self.run.partial.len() {
                    self.run.partial.truncate(i);
                    self.run.partial.push(*r);
                    return self.partial_arrived(ctx);
                }
                self.run.complete = false;
            }
            FromWorker::Done(r, worker_ms) => {
                self.run.worker_ms = Some(worker_ms);
                self.run.transfer_bytes = self.run.worker.as_ref().map(|w| w.received_bytes());
                self.run.worker = None;
                crate::worker::prepare_spare();
                self.run.progress = None;
                match r.apply(std::mem::take(&mut self.run.partial)) {
                    Ok(r) => {
                        self.set_results(r);
                        self.run.complete = true;
                        self.view.focus_policy = 0;
                        self.run.last_run_ms = Some(now_ms() - self.run.started_ms);
                        self.learn_cost();
                    }
                    Err(e) => self.errors.run = Some(e),
                }
            }
            FromWorker::Failed(e) => {
                self.errors.run = Some(e);
                self.run.worker = None;
                crate::worker::prepare_spare();
                self.run.progress = None;
            }
            // Training messages come from the training worker only, and those of a shared
            // run from its workers.
            FromWorker::TrainProgress(_)
            | FromWorker::TrainCurve(_)
            | FromWorker::Trained(_)
            | FromWorker::Stepped(..)
            | FromWorker::Iso(_)
            | FromWorker::Idle(_)
            | FromWorker::Finished(..) => return false,
        }
        true
    }

    /// Show the run's progress: the bar and its label are updated in place (re-rendering
    /// the page ten times a second would also reset any field the user is typing in);
    /// whether the page must render (the bar is not there yet). The bar moves from
    /// [`super::pool::SHOW_PARTIAL_AFTER_MS`] into a run and at most every
    /// [`PROGRESS_EVERY_MS`]: each move repaints the page, which on a 2-core machine takes
    /// a core from the workers (10-30 ms a paint with a comparison's results shown).
    pub(super) fn show_progress(&mut self, p: Progress) -> bool {
        let now = now_ms();
        let bar = self.run.progress_refs[0].cast::<web_sys::Element>();
        let text = self.run.progress_refs[1].cast::<web_sys::Element>();
        let Some((bar, text)) = bar.zip(text) else {
            self.run.progress = Some(p);
            self.run.progress_shown_ms = now;
            return true;
        };
        let quiet = now - self.run.started_ms < super::pool::SHOW_PARTIAL_AFTER_MS
            || now - self.run.progress_shown_ms < PROGRESS_EVERY_MS;
        if !quiet {
            let fraction = p.fraction();
            let label = format!("{}{}", progress_label(&p), self.time_left(fraction));
            let _ = bar.set_attribute("value", &fraction.to_string());
            text.set_text_content(Some(&label));
            self.run.progress_shown_ms = now;
        }
        self.run.progress = Some(p);
        false
    }

    /// What is left of the run, for the progress label: from the pace so far once it is
    /// known, else from the estimate.
    pub(super) fn time_left(&self, fraction: f64) -> String {
        let elapsed = now_ms() - self.run.started_ms;
        let left = if fraction >= 0.02 && elapsed > 1000.0 {
            Some(elapsed * (1.0 - fraction) / fraction)
        } else {
            self.run
                .estimate
                .as_ref()
                .map(|e| (e.ms() - elapsed).max(1000.0))
        };
        left.map_or_else(String::new, |ms| {
            format!(" · about {} left", super::estimate::duration(ms))
        })
    }

    /// The finished run's cost per job and run, for the next estimates.
    pub(super) fn learn_cost(&mut self) {
        let (Some(e), Some(ms)) = (self.run.estimate.take(), self.run.last_run_ms) else {
            return;
        };
        if e.exp == *self.exp || self.run.sent_exp.as_ref() == Some(&e.exp) {
            self.run
                .calibration
                .learn(e.mech, ms, e.jobs, e.runs, e.workers);
        }
    }

    pub(super) fn set_results(&mut self, runs: Vec<PolicyResult>) {
        let exp = self
            .run
            .sent_exp
            .clone()
            .unwrap_or_else(|| Experiment::clone(&self.exp));
        let resolved = self.resolve_cached(&exp).ok();
        self.run.results = Some(Shared::new(Results {
            exp,
            runs,
            resolved,
        }));
    }

    /// Download what a results' button exports; returns whether to render (to show an
    /// error).
    fn download(&mut self, what: Export) -> bool {
        let Some(results) = &self.run.results else {
            return false;
        };
        let runs = &results.runs;
        let per_policy = |f: &dyn Fn(&PolicyResult) -> String| -> String {
            runs.iter()
                .map(|r| format!("# policy: {}\n{}", r.summary.policy, f(r)))
                .collect()
        };
        let (name, mime, contents) = match what {
            Export::SummaryCsv => {
                let summaries: Vec<_> = runs.iter().map(|r| r.summary.clone()).collect();
                (
                    "orrery-summary.csv",
                    "text/csv",
                    orrery::metrics::summaries_csv(&summaries),
                )
            }
            Export::SummaryJson => (
                "orrery-summary.json",
                "application/json",
                serde_json::to_string_pretty(&runs.iter().map(|r| &r.summary).collect::<Vec<_>>())
                    .unwrap_or_default(),
            ),
            Export::JobsCsv => (
                "orrery-jobs.csv",
                "text/csv",
                per_policy(&|r| r.jobs_csv.clone()),
            ),
            Export::RoundsCsv => {
                let Some(c) = results.cluster() else {
                    return false;
                };
                (
                    "orrery-rounds.csv",
                    "text/csv",
                    per_policy(&|r| orrery::metrics::series_csv(&r.series, c)),
                )
            }
            Export::ResizesCsv => ("orrery-elastic-jobs.csv", "text/csv", resizes_csv(runs)),
            Export::SuspensionsCsv => ("orrery-suspensions.csv", "text/csv", suspensions_csv(runs)),
            Export::ExperimentJson => {
                ("experiment.json", "application/json", results.exp.to_json())
            }
        };
        if let Err(e) = download(name, mime, &contents) {
            self.notice = Some((false, format!("download failed: {e}")));
            return true;
        }
        false
    }

    /// The share link, and a warning when it is long.
    fn share_link(&self) -> Result<(String, Option<String>), String> {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let link = self.exp.to_link(&base);
        if link.len() > MAX_LINK_LEN {
            return Err(format!(
                "The link would be {} KB, more than browsers accept ({} KB), because the uploaded trace or profile travels inside it. Share the files alongside the settings instead.",
                link.len() / 1000,
                MAX_LINK_LEN / 1000
            ));
        }
        let warning = (link.len() > LONG_LINK_LEN).then(|| {
            format!(
                "Link copied, but it is long ({} KB) because the uploaded {} travels inside it: some chat and mail tools cut links this long, and a shell passes at most 128 KB in one argument. It opens fine in a browser; on the command line, use the Experiment JSON download with orrery compare --config experiment.json.",
                link.len() / 1000,
                match (&self.exp.workload, &self.exp.profile) {
                    (_, ProfileSource::Files { .. }) => "profile folder",
                    (_, ProfileSource::Inline { .. }) => "profile",
                    (WorkloadSource::Inline { .. }, _) => "trace",
                    _ if self.exp.network.is_some() => "network",
                    _ if !self.exp.spot.is_empty() => "spot trace",
                    _ => "trace",
                }
            )
        });
        Ok((link, warning))
    }

    /// Put the share link in the address bar and the clipboard.
    pub(super) fn copy_link(&mut self) -> bool {
        match self.share_link() {
            Ok((link, warning)) => {
                if let Some(w) = web_sys::window() {
                    if let Ok(h) = w.history() {
                        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&link));
                    }
                    let _ = w.navigator().clipboard().write_text(&link);
                }
                self.notice = Some(match warning {
                    Some(w) => (false, w),
                    None => (
                        true,
                        "Link copied: it restores every setting and reproduces these numbers."
                            .into(),
                    ),
                });
            }
            Err(e) => self.notice = Some((false, e)),
        }
        true
    }
}
