//! The page's views of preemptive experiments (PickyMan): the Preemption settings (storage
//! bandwidths, noise and default epoch of the overhead model), the results' panel (every
//! suspension of a chosen policy on a timeline with its cost, the suspensions' table, and
//! predicted against actual training times), and the stepping view of the preemptive
//! simulator.

use super::charts::{self, SuspensionBar};
use super::worker::{PolicyResult, Suspended};
use super::{input_value, select_value, App, Msg, Stepper, JOB_ROWS};
use crate::cluster::ClusterSpec;
use crate::experiment::{Experiment, Resolved};
use crate::job::JobId;
use crate::sim::preemptive::{Phase, PreemptiveSimulator};
use crate::sim::Mechanism;
use crate::workload::presets;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Index of the suspensions' timeline among the page's canvases.
pub const TIMELINE_CHART: usize = 7;
/// Index of the predicted-vs-actual chart among the page's canvases.
pub const PREDICTION_CHART: usize = 8;

/// Rows of the suspensions' table.
const SUSPENSION_ROWS: usize = 200;

/// How the suspensions' table is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortBy {
    /// By decision time.
    #[default]
    Time,
    /// By time lost, largest first.
    Lost,
}

/// Messages of the preemption views.
pub enum PreemptMsg {
    /// Edit a field of the overhead model (`read_gbps`, `write_gbps`, `noise`,
    /// `default_epoch_s`).
    Field(&'static str, String),
    /// Make the experiment preemptive (true) or round-based again.
    Preemptive(bool),
    /// Show this result (index) in the preemption panel.
    Policy(usize),
    /// Sort the suspensions' table.
    Sort(SortBy),
}

/// The preemption views' state.
#[derive(Debug, Default)]
pub struct PreemptForm {
    /// The settings' last error.
    pub(super) error: Option<String>,
    /// Index of the result the panel shows.
    pub(super) policy: usize,
    /// Order of the table.
    sort: SortBy,
    /// The panel's charts need drawing.
    pub(super) dirty: bool,
}

/// The fields of the settings, with labels and hints.
const FIELDS: [(&str, &str, &str, &str); 4] = [
    (
        "read_gbps",
        "read GB/s",
        "0.05",
        "Storage read bandwidth when a job resumes: its checkpoint and training data are loaded at this speed",
    ),
    (
        "write_gbps",
        "write GB/s",
        "0.05",
        "Storage write bandwidth when a suspended job writes its checkpoint",
    ),
    (
        "noise",
        "noise (share)",
        "0.01",
        "Relative spread of the actual checkpoint and reload times around the model's (0 to 1)",
    ),
    (
        "default_epoch_s",
        "default epoch (s)",
        "10",
        "Epoch length of job types whose profile gives no preemption costs",
    ),
];

fn label_of(field: &str) -> &'static str {
    FIELDS
        .iter()
        .find(|f| f.0 == field)
        .map_or("value", |f| f.1)
}

/// Every preemptive policy's suspensions as CSV: policy, decision time, job, the job it made
/// room for, seconds draining, checkpointing, reloading and lost, the overhead model's and
/// the policy's predicted seconds, and whether the job finished before its epoch ended.
pub fn suspensions_csv(results: &[PolicyResult]) -> String {
    let mut out = String::from(
        "policy,decided_s,job_id,for_job_id,drain_s,checkpoint_s,reload_s,lost_s,modelled_s,predicted_s,finished_instead\n",
    );
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for r in results {
        let Some(log) = &r.preemption else { continue };
        let policy = crate::workload::csv::quote(&r.summary.policy);
        for s in &log.suspensions {
            out.push_str(&format!(
                "{policy},{},{},{},{},{},{},{},{},{},{}\n",
                s.time(),
                s.job(),
                s.for_job(),
                s.drain_s(),
                s.save_s(),
                opt(s.reload_s()),
                opt(s.lost_s()),
                s.modelled_s(),
                opt(s.predicted_s()),
                s.finished_instead()
            ));
        }
    }
    out
}

fn colour(j: JobId) -> String {
    format!("hsl({}, 65%, 55%)", (j * 137) % 360)
}

fn secs(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_default()
}

/// The cluster reduced to its first GPU type (preemptive experiments run on one type).
fn first_type(cluster: &str) -> Option<String> {
    let mut c = ClusterSpec::parse(cluster).ok()?;
    c.types.truncate(1);
    (!c.types.is_empty()).then(|| c.to_string())
}

impl App {
    /// Edit a field of the overhead model; a bad value keeps the previous settings.
    pub(super) fn set_preemption_field(&mut self, field: &str, v: &str) {
        let Some(mut c) = self.exp.preemption else {
            return;
        };
        let label = label_of(field);
        let Ok(x) = v.trim().parse::<f64>() else {
            self.preempt.error = Some(format!(
                "{label} (preemption.{field}): '{v}' is not a number — the previous settings are kept"
            ));
            return;
        };
        match field {
            "read_gbps" => c.read_gbps = x,
            "write_gbps" => c.write_gbps = x,
            "noise" => c.noise = x,
            "default_epoch_s" => c.default_epoch_s = x,
            _ => return,
        }
        let checked = c.check().map_err(|e| e.to_string()).and_then(|()| {
            self.try_apply(Experiment {
                preemption: Some(c),
                ..self.exp.clone()
            })
        });
        self.preempt.error = checked
            .err()
            .map(|e| format!("{label}: '{v}': {e} — the previous settings are kept"));
    }

    /// Make the experiment preemptive (PickyMan's overhead model, the pickyman scenario's
    /// policies, one GPU type; no inference pool) or round-based again (the default
    /// scenario's policies and settings). Announces what changed.
    pub(super) fn set_preemptive(&mut self, on: bool) {
        let mut c = self.exp.clone();
        let mut changed = Vec::new();
        if on {
            let d = presets::pickyman_experiment();
            if c.inference.take().is_some() {
                changed.push("the inference pool removed".to_string());
            }
            c.preemption = Some(d.preemption.unwrap_or_default());
            c.policies = d.policies.clone();
            c.fairness = false;
            c.gavel_compat = false;
            changed.push(format!("policies {}", d.policies.join(", ")));
            if let Some(one) = first_type(&c.cluster).filter(|one| *one != c.cluster) {
                changed.push(format!("cluster {one} (one GPU type)"));
                c.cluster = one;
            }
            if self.resolve_cached(&c).is_err() && c.workload != d.workload {
                c.workload = d.workload;
                changed.push(format!("workload: {}", Self::workload_label_of(&c)));
            }
            if self.resolve_cached(&c).is_err() && c.cluster != d.cluster {
                changed.push(format!("cluster {}", d.cluster));
                c.cluster = d.cluster;
            }
        } else {
            let d = presets::default_experiment();
            c.preemption = None;
            c.policies = d.policies.clone();
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = d.fairness;
            changed.push(format!("policies {}", d.policies.join(", ")));
        }
        match self.try_apply(c) {
            Ok(()) => {
                self.preempt.error = None;
                self.sync_cluster_text();
                self.notice = Some((
                    true,
                    format!(
                        "{}: {}.",
                        if on {
                            "Preemptive experiment (PickyMan)"
                        } else {
                            "Round-based experiment"
                        },
                        changed.join("; ")
                    ),
                ));
            }
            Err(e) => self.preempt.error = Some(format!("{e} — the previous experiment is kept")),
        }
    }

    /// Handle a message of the preemption views.
    pub(super) fn preempt_update(&mut self, msg: PreemptMsg) {
        match msg {
            PreemptMsg::Field(field, v) => self.set_preemption_field(field, &v),
            PreemptMsg::Preemptive(on) => self.set_preemptive(on),
            PreemptMsg::Policy(i) => {
                self.preempt.policy = i;
                self.preempt.dirty = true;
            }
            PreemptMsg::Sort(s) => self.preempt.sort = s,
        }
    }

    /// The result the preemption panel shows.
    fn preempt_result(&self) -> Option<(usize, &PolicyResult)> {
        let (_, results) = self.results.as_ref()?;
        let i = self.preempt.policy.min(results.len().checked_sub(1)?);
        Some((i, results.get(i)?))
    }

    /// Whether the shown results are of a preemptive experiment.
    pub(super) fn results_preemptive(&self) -> bool {
        self.results_resolved
            .as_ref()
            .is_some_and(|r| r.preemption.is_some())
    }

    /// The Preemption settings (left column).
    pub(super) fn view_preemption_settings(&self, ctx: &Context<Self>) -> Html {
        if self.runs_in(Mechanism::Elastic) || self.runs_in(Mechanism::Slots) {
            return html! {};
        }
        let link = ctx.link();
        let c = self.exp.preemption;
        html! {
            <section class="panel" id="preemption-panel">
                <h2>{ "Preemption" }</h2>
                if let Some(c) = c {
                    <p class="current" id="preemption-label">{ format!("preemptive (PickyMan's model): read {} GB/s, write {} GB/s, noise {:.0}%, default epoch {} s", c.read_gbps, c.write_gbps, c.noise * 100.0, c.default_epoch_s) }</p>
                    <p class="hint">{ "A waiting job may take a running job's GPUs: the victim trains to the end of its epoch, writes a checkpoint, and reloads it and its data when it resumes. Per job type the profile gives epoch steps and the GB to write and read." }</p>
                    <fieldset>
                        <legend>{ "Overhead model" }</legend>
                        { for FIELDS.iter().map(|&(key, label, step, title)| {
                            let value = match key {
                                "read_gbps" => c.read_gbps,
                                "write_gbps" => c.write_gbps,
                                "noise" => c.noise,
                                _ => c.default_epoch_s,
                            };
                            html! {
                                <label title={title}>{ format!("{label} ") }
                                    <input id={format!("preemption-{key}")} type="number" min="0" step={step} value={value.to_string()}
                                        onchange={link.callback(move |e: Event| Msg::Preempt(PreemptMsg::Field(key, input_value(&e))))} />
                                </label>
                            }
                        }) }
                    </fieldset>
                    <button id="preemption-off" onclick={link.callback(|_| Msg::Preempt(PreemptMsg::Preemptive(false)))}>{ "Back to round-based" }</button>
                } else {
                    <p class="hint">{ "Round-based: jobs are placed every round and a preemption costs only the restart cost. A preemptive experiment (PickyMan) charges every suspension the rest of the victim's epoch, a checkpoint and a reload, on one GPU type." }</p>
                    <button id="preemption-on" onclick={link.callback(|_| Msg::Preempt(PreemptMsg::Preemptive(true)))}>{ "Make preemptive (PickyMan)" }</button>
                }
                if let Some(e) = &self.preempt.error { <p class="error" id="preemption-error">{ e }</p> }
            </section>
        }
    }

    /// The preemption panel of the results: a policy selector, the suspensions' timeline,
    /// their table and the predicted-vs-actual chart.
    pub(super) fn view_preemption(&self, ctx: &Context<Self>) -> Html {
        if !self.results_preemptive() {
            return html! {};
        }
        let (Some((_, results)), Some((shown, r))) = (&self.results, self.preempt_result()) else {
            return html! {};
        };
        let link = ctx.link();
        let empty = Vec::new();
        let log = r.preemption.as_ref();
        let all = log.map_or(&empty, |l| &l.suspensions);
        let mut rows: Vec<&Suspended> = all.iter().collect();
        if self.preempt.sort == SortBy::Lost {
            rows.sort_by(|a, b| {
                b.lost_s()
                    .unwrap_or(-1.0)
                    .total_cmp(&a.lost_s().unwrap_or(-1.0))
                    .then(a.time().total_cmp(&b.time()))
            });
        }
        let predicts = rows.iter().any(|s| s.predicted_s().is_some());
        let sort_button = |by: SortBy, id: &'static str, text: &'static str| {
            html! {
                <button id={id} class={classes!((self.preempt.sort == by).then_some("on"))} disabled={self.preempt.sort == by}
                    onclick={link.callback(move |_| Msg::Preempt(PreemptMsg::Sort(by)))}>{ text }</button>
            }
        };
        html! {
            <section class="panel wide" id="preemption-results">
                <h2>{ "Preemptions on the timeline, with their cost" }</h2>
                <p class="hint">{ "Each bar is one suspension at its decision time; its height is the time the suspended job lost: the rest of its epoch (it trains on, but the waiting job waits for it), its checkpoint, and its reload when it resumed. The dash marks the overhead model's value." }</p>
                <div class="controls">
                    <label>{ "policy " }
                        <select id="preempt-policy" onchange={link.callback(|e: Event| Msg::Preempt(PreemptMsg::Policy(select_value(&e).parse().unwrap_or(0))))}>
                            { for results.iter().enumerate().map(|(i, res)| html! {
                                <option value={i.to_string()} selected={i == shown}>{ format!("{} ({} suspensions)", res.summary.policy, res.preemption.as_ref().map_or(0, |l| l.suspensions.len())) }</option>
                            }) }
                        </select>
                    </label>
                    <span class="hint">{ r.summary.preemption.map(|p| format!("{} suspensions ({} finished first), {:.2} h lost suspending, {:.2} h reloading", p.suspensions, p.finished_instead, p.suspend_s / 3600.0, p.resume_s / 3600.0)).unwrap_or_default() }</span>
                </div>
                <div class="charts">
                    <figure class="wide-chart">
                        <canvas id={format!("chart-{}", super::CHART_NAMES[TIMELINE_CHART])} width="1040" height="380" ref={self.charts[TIMELINE_CHART].clone()} />
                        <button class="png" onclick={link.callback(|_| Msg::DownloadChart(TIMELINE_CHART))}>{ "PNG" }</button>
                    </figure>
                </div>
                <div class="controls">
                    <span>{ format!("{} suspensions of {}{}; sort by ", all.len(), r.summary.policy, if all.len() > SUSPENSION_ROWS { format!(", the first {SUSPENSION_ROWS} shown") } else { String::new() }) }</span>
                    { sort_button(SortBy::Time, "preempt-sort-time", "time") }
                    { sort_button(SortBy::Lost, "preempt-sort-lost", "time lost") }
                </div>
                <div class="table-scroll">
                    <table class="jobs" id="suspension-table" data-rows={all.len().to_string()}>
                        <thead><tr>
                            <th>{ "time (h)" }</th><th>{ "job" }</th><th>{ "for job" }</th>
                            <th title="Seconds from the decision to the end of the job's epoch (or its completion), training on while the waiting job waits">{ "drain (s)" }</th>
                            <th title="Seconds writing the checkpoint">{ "checkpoint (s)" }</th>
                            <th title="Seconds reloading the checkpoint and data when the job resumed">{ "reload (s)" }</th>
                            <th title="Drain, checkpoint and reload">{ "lost (s)" }</th>
                            <th title="The overhead model's time lost for this suspension">{ "model (s)" }</th>
                            <th title="The time lost the policy predicted when it chose this victim (blank when it predicts none)">{ "predicted (s)" }</th>
                        </tr></thead>
                        <tbody>
                        { for rows.iter().take(SUSPENSION_ROWS).map(|s| html! {
                            <tr data-job={s.job().to_string()} data-time-s={s.time().to_string()} data-lost-s={s.lost_s().map(|x| x.to_string()).unwrap_or_default()}>
                                <td>{ format!("{:.3}", s.time() / 3600.0) }</td>
                                <td>{ s.job() }</td>
                                <td>{ s.for_job() }</td>
                                <td>{ format!("{:.1}", s.drain_s()) }</td>
                                <td>{ if s.finished_instead() { "— (finished)".to_string() } else { format!("{:.1}", s.save_s()) } }</td>
                                <td>{ secs(s.reload_s()) }</td>
                                <td>{ secs(s.lost_s()) }</td>
                                <td>{ format!("{:.1}", s.modelled_s()) }</td>
                                <td>{ secs(s.predicted_s()) }</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                </div>
                if !predicts && !all.is_empty() { <p class="hint">{ format!("{} predicts no time lost: it picks victims blind to the cost.", r.summary.policy) }</p> }
                <div class="charts">
                    <figure>
                        <canvas id={format!("chart-{}", super::CHART_NAMES[PREDICTION_CHART])} width="520" height="400" ref={self.charts[PREDICTION_CHART].clone()} />
                        <button class="png" onclick={link.callback(|_| Msg::DownloadChart(PREDICTION_CHART))}>{ "PNG" }</button>
                    </figure>
                </div>
            </section>
        }
    }

    /// Draw the preemption panel's charts (nothing when they are not on the page).
    pub(super) fn draw_preemption_charts(&self) -> Result<(), String> {
        let Some((_, r)) = self.preempt_result() else {
            return Ok(());
        };
        let policy = &r.summary.policy;
        if let Some(c) = self.charts[TIMELINE_CHART].cast::<HtmlCanvasElement>() {
            let bars: Vec<SuspensionBar> = r
                .preemption
                .as_ref()
                .map(|l| {
                    l.suspensions
                        .iter()
                        .map(|s| SuspensionBar {
                            time_s: s.time(),
                            drain_s: s.drain_s(),
                            save_s: if s.finished_instead() {
                                0.0
                            } else {
                                s.save_s()
                            },
                            reload_s: s.reload_s().unwrap_or(0.0),
                            model_s: s.modelled_s(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let _ = c.set_attribute("data-bars", &bars.len().to_string());
            let _ = c.set_attribute("data-policy", policy);
            if bars.is_empty() {
                charts::draw_message(
                    c,
                    &format!("Suspensions of {policy}"),
                    &format!("{policy} suspended no job: it never preempts, or never needed to."),
                )?;
            } else {
                charts::draw_suspensions(
                    c,
                    &format!("Suspensions of {policy} and the time each lost"),
                    &bars,
                    r.summary.makespan_s,
                )?;
            }
        }
        if let Some(c) = self.charts[PREDICTION_CHART].cast::<HtmlCanvasElement>() {
            let points: Vec<(f64, f64)> = r
                .preemption
                .as_ref()
                .map(|l| l.predictions.iter().map(|p| (p.2, p.1)).collect())
                .unwrap_or_default();
            let _ = c.set_attribute("data-points", &points.len().to_string());
            let title = format!("Predicted vs actual training time ({policy})");
            if points.is_empty() {
                let others: Vec<&str> = self
                    .results
                    .iter()
                    .flat_map(|(_, rs)| rs.iter())
                    .filter(|x| {
                        x.preemption
                            .as_ref()
                            .is_some_and(|l| !l.predictions.is_empty())
                    })
                    .map(|x| x.summary.policy.as_str())
                    .collect();
                charts::draw_message(
                    c,
                    &title,
                    &if others.is_empty() {
                        format!("{policy} predicts no training times.")
                    } else {
                        format!(
                            "{policy} predicts no training times (it uses the oracle or none). Pick {} above to see its predictions.",
                            others.join(" or ")
                        )
                    },
                )?;
            } else {
                charts::draw_predictions(c, &title, &points)?;
            }
        }
        Ok(())
    }

    /// The stepping view of the preemptive simulator: the cluster's GPUs with the jobs
    /// holding them (draining, checkpointing and reloading ones marked) and the active jobs.
    pub(super) fn view_preemptive_state(
        &self,
        ctx: &Context<Self>,
        st: &Stepper,
        sim: &PreemptiveSimulator,
        r: &Resolved,
    ) -> Html {
        let jobs = sim.jobs();
        let total = r.cluster.total_gpus();
        let gpu_type = r.cluster.types.first().map_or("gpu", |t| t.name.as_str());
        let mut slots: Vec<(Option<JobId>, &'static str, String)> = Vec::new();
        for (id, j) in jobs.iter().enumerate().filter(|(_, j)| j.holds_gpus()) {
            let (class, what) = match j.phase {
                Phase::Loading => ("gpu busy loading", "reloading its checkpoint"),
                Phase::Draining => ("gpu busy draining", "suspended, finishing its epoch"),
                Phase::Saving => ("gpu busy saving", "suspended, writing its checkpoint"),
                _ => ("gpu busy", "training"),
            };
            for _ in 0..j.gpus {
                slots.push((Some(id), class, format!("job {id}: {what}")));
            }
        }
        let kept: u32 = jobs.iter().map(|j| j.reserved).sum();
        for _ in 0..kept {
            slots.push((None, "gpu kept", "kept for a waiting job".into()));
        }
        slots.truncate(total as usize);
        while slots.len() < total as usize {
            slots.push((None, "gpu", "idle".into()));
        }
        let active: Vec<JobId> = jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| !matches!(j.phase, Phase::Pending | Phase::Done))
            .map(|(i, _)| i)
            .collect();
        let shown = if self.show_all_jobs {
            active.len()
        } else {
            active.len().min(JOB_ROWS)
        };
        let holding = jobs.iter().filter(|j| j.holds_gpus()).count();
        html! {
            <div class="state" id="preempt-state" data-holding={holding.to_string()} data-free={sim.free_gpus().to_string()}>
                <h3 class="servers-title">{ format!("{total} × {gpu_type} · {} busy · {kept} kept for waiting jobs · {} free", slots.iter().filter(|s| s.0.is_some()).count(), sim.free_gpus()) }</h3>
                <div class="gpus wide" id="preempt-gpus">
                { for slots.iter().enumerate().map(|(g, (job, class, what))| html! {
                    <span class={*class} title={format!("GPU {g}: {what}")} style={job.map(|j| format!("background-color:{}", colour(j))).unwrap_or_default()}></span>
                }) }
                </div>
                <p class="hint">{ "Hatched: suspended (finishing the epoch, then checkpointing); outlined: reloading after a suspension; dashed: kept for the waiting job a suspension makes room for." }</p>
                <table class="jobs" id="preempt-step-jobs">
                    <thead><tr>
                        <th>{ "job" }</th><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "state" }</th><th>{ "progress" }</th><th>{ "suspensions" }</th><th>{ "GPU-h so far" }</th>
                    </tr></thead>
                    <tbody>
                    { for active.iter().take(shown).map(|&j| {
                        let job = &jobs[j];
                        let ty = r.trace.jobs.get(j).map_or("", |s| s.job_type.as_str());
                        let frac = if job.total > 0.0 { (job.progress / job.total).clamp(0.0, 1.0) } else { 0.0 };
                        let state = match job.phase {
                            Phase::Waiting if job.victims_pending > 0 => format!("waiting for {} suspended job(s)", job.victims_pending),
                            Phase::Waiting if job.first_start.is_some() => "suspended, waiting".to_string(),
                            Phase::Waiting => "queued".to_string(),
                            Phase::Loading => "reloading".to_string(),
                            Phase::Running => "running".to_string(),
                            Phase::Draining => format!("finishing its epoch (for job {})", job.suspended_for.map(|w| w.to_string()).unwrap_or_default()),
                            Phase::Saving => "checkpointing".to_string(),
                            Phase::Pending | Phase::Done => String::new(),
                        };
                        html! {
                            <tr data-job={j.to_string()} data-phase={format!("{:?}", job.phase)}>
                                <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                                <td>{ ty }</td>
                                <td>{ job.gpus }</td>
                                <td>{ state }</td>
                                <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                                <td>{ job.preemptions }</td>
                                <td>{ format!("{:.2}", job.attained / 3600.0) }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if active.len() > JOB_ROWS {
                    <label class="hint"><input type="checkbox" checked={self.show_all_jobs} onchange={ctx.link().callback(|_| Msg::ToggleAllJobs)} />{ format!(" show all {} active jobs ({} more)", active.len(), active.len().saturating_sub(JOB_ROWS)) }</label>
                }
                <p class="hint">{ format!("{} jobs finished, {} active, {} events at this step; {} suspensions so far.",
                    st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), st.rec.preemption.suspensions.len()) }</p>
            </div>
        }
    }
}
