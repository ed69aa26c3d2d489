//! The "Preemptions" panel of the results (PickyMan): every suspension of a chosen policy
//! on a timeline with its cost, the suspensions' table, and predicted against actual
//! training times. Shown for results of a preemptive experiment.

use super::chart;
use crate::charts::{self, SuspensionBar};
use crate::events::{RunMsg, SortBy, ViewMsg};
use crate::plot;
use crate::select_value;
use crate::shared::{Results, Shared};
use crate::worker::{PolicyResult, Suspended};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Rows of the suspensions' table.
const SUSPENSION_ROWS: usize = 200;

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
        let policy = orrery::workload::csv::quote(&r.summary.policy);
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

fn secs(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_default()
}

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The results shown.
    pub results: Option<Shared<Results>>,
    /// The result (index) shown.
    pub policy: usize,
    /// The table's order.
    pub sort: SortBy,
    /// Chart errors.
    pub on_run: Callback<RunMsg>,
    /// The policy shown and the order.
    pub on_view: Callback<ViewMsg>,
}

/// The "Preemptions" panel of the results.
#[function_component]
pub fn PreemptionResults(props: &Props) -> Html {
    let timeline = use_node_ref();
    let predictions = use_node_ref();
    {
        let canvases = (timeline.clone(), predictions.clone());
        let on_run = props.on_run.clone();
        use_effect_with(
            (props.results.clone(), props.policy),
            move |(results, policy)| {
                if let Some(results) = results {
                    if let Err(e) = draw(&canvases.0, &canvases.1, results, *policy) {
                        on_run.emit(RunMsg::ChartError(e));
                    }
                }
            },
        );
    }
    let Some(results) = props.results.as_deref() else {
        return html! {};
    };
    if results
        .resolved
        .as_ref()
        .is_none_or(|r| r.sim.restart.checkpoint.is_none())
    {
        return html! {};
    }
    let Some((shown, r)) = results.at_most(props.policy) else {
        return html! {};
    };
    let on_view = &props.on_view;
    let sort = props.sort;
    let empty = Vec::new();
    let all = r.preemption.as_ref().map_or(&empty, |l| &l.suspensions);
    let mut rows: Vec<&Suspended> = all.iter().collect();
    if sort == SortBy::Lost {
        orrery::order::sort_by(&mut rows, |a, b| {
            b.lost_s()
                .unwrap_or(-1.0)
                .total_cmp(&a.lost_s().unwrap_or(-1.0))
                .then(a.time().total_cmp(&b.time()))
        });
    }
    let predicts = rows.iter().any(|s| s.predicted_s().is_some());
    let sort_button = |by: SortBy, id: &'static str, text: &'static str| {
        html! {
            <button id={id} class={classes!((sort == by).then_some("on"))} disabled={sort == by}
                onclick={on_view.reform(move |_| ViewMsg::PreemptSort(by))}>{ text }</button>
        }
    };
    html! {
        <section class="panel wide" id="preemption-results">
            <h2>{ "Preemptions on the timeline, with their cost" }</h2>
            { super::intro("preemption-results", "Every suspension on a timeline: when it happened, which job was suspended for which, and the time it cost (finishing the epoch, the checkpoint, the reload) against what the policy predicted.") }
            <p class="hint">{ "Each bar is one suspension at its decision time; its height is the time the suspended job lost: the rest of its epoch (it trains on, but the waiting job waits for it), its checkpoint, and its reload when it resumed. The dash marks the overhead model's value." }</p>
            <div class="controls">
                <label>{ "policy " }
                    <select id="preempt-policy" onchange={on_view.reform(|e: Event| ViewMsg::PreemptPolicy(select_value(&e).parse().unwrap_or(0)))}>
                        { for results.runs.iter().enumerate().map(|(i, res)| html! {
                            <option value={i.to_string()} selected={i == shown}>{ format!("{} ({} suspensions)", res.summary.policy, res.preemption.as_ref().map_or(0, |l| l.suspensions.len())) }</option>
                        }) }
                    </select>
                </label>
                <span class="hint">{ r.summary.preemption.map(|p| format!("{} suspensions ({} finished first), {:.2} h lost suspending, {:.2} h reloading", p.suspensions, p.finished_instead, p.suspend_s / 3600.0, p.resume_s / 3600.0)).unwrap_or_default() }</span>
            </div>
            <div class="charts">
                { chart("preemption-timeline", &timeline, true) }
            </div>
            <div class="controls">
                <span>{ format!("{} suspensions of {}{}; sort by ", all.len(), r.summary.policy, if all.len() > SUSPENSION_ROWS { format!(", the first {SUSPENSION_ROWS} shown") } else { String::new() }) }</span>
                { sort_button(SortBy::Time, "preempt-sort-time", "time") }
                { sort_button(SortBy::Lost, "preempt-sort-lost", "time lost") }
            </div>
            <div class="table-scroll">
                <table class="jobs" id="suspension-table" data-rows={all.len().to_string()}>
                    <thead><tr>
                        { super::ths(&["time", "job", "for-job", "drain", "checkpoint", "reload", "lost", "model", "predicted"]) }
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
                { chart("predictions", &predictions, false) }
            </div>
        </section>
    }
}

/// Draw the panel's charts for the result at `policy` (nothing when they are not on the
/// page).
fn draw(
    timeline: &NodeRef,
    predictions: &NodeRef,
    results: &Results,
    policy: usize,
) -> Result<(), String> {
    let Some((_, r)) = results.at_most(policy) else {
        return Ok(());
    };
    let policy = &r.summary.policy;
    if let Some(c) = timeline.cast::<HtmlCanvasElement>() {
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
        let (policy, makespan) = (policy.clone(), r.summary.makespan_s);
        plot::show(&c, 380, move |f| {
            if bars.is_empty() {
                f.message(
                    &format!("Suspensions of {policy}"),
                    &format!("{policy} suspended no job: it never preempts, or never needed to."),
                )
            } else {
                charts::suspensions(
                    f,
                    &format!("Suspensions of {policy} and the time each lost"),
                    &bars,
                    makespan,
                )
            }
        })?;
    }
    if let Some(c) = predictions.cast::<HtmlCanvasElement>() {
        let points: Vec<(f64, f64)> = r
            .preemption
            .as_ref()
            .map(|l| l.predictions.iter().map(|p| (p.2, p.1)).collect())
            .unwrap_or_default();
        let _ = c.set_attribute("data-points", &points.len().to_string());
        let title = format!("Predicted vs actual training time ({policy})");
        if points.is_empty() {
            let others: Vec<&str> = results
                .runs
                .iter()
                .filter(|x| {
                    x.preemption
                        .as_ref()
                        .is_some_and(|l| !l.predictions.is_empty())
                })
                .map(|x| x.summary.policy.as_str())
                .collect();
            let message = if others.is_empty() {
                format!("{policy} predicts no training times.")
            } else {
                format!(
                        "{policy} predicts no training times (it uses the oracle or none). Pick {} above to see its predictions.",
                        others.join(" or ")
                    )
            };
            plot::show(&c, 400, move |f| f.message(&title, &message))?;
        } else {
            plot::show(&c, 400, move |f| charts::predictions(f, &title, &points))?;
        }
    }
    Ok(())
}
