//! The "Failures and spot capacity" panel of the results: per policy, the server failures
//! by category, the interruptions, ETTR and the GPU-hours lost by cause (the CLI table's
//! rows); the interruptions over time, the GPU-hours lost by cause, and a spot type's
//! capacity against the GPUs each policy kept busy on it. Shown for results of an
//! experiment with failures, checkpoints or spot capacity.

use super::{chart, ths};
use crate::charts::{self, faults as fc, Series};
use crate::events::{RunMsg, ViewMsg};
use crate::plot;
use crate::select_value;
use crate::shared::{Results, Shared};
use crate::worker::PolicyResult;
use orrery::metrics::{binned, FaultFigures};
use orrery::model::spot::CapacityTrace;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The results shown.
    pub results: Option<Shared<Results>>,
    /// The spot GPU type of the capacity chart (None: the first).
    pub spot_type: Option<String>,
    /// Chart errors.
    pub on_run: Callback<RunMsg>,
    /// The spot type picked.
    pub on_view: Callback<ViewMsg>,
}

/// The spot type charted: the one picked when the results' experiment has it, else its
/// first.
fn spot_shown(results: &Results, picked: Option<&String>) -> Option<String> {
    let spot = &results.exp.spot;
    picked
        .filter(|t| spot.contains_key(*t))
        .cloned()
        .or_else(|| spot.keys().next().cloned())
}

/// Whether the results have anything for this panel.
fn shows(results: &Results) -> bool {
    !results.exp.spot.is_empty() || results.runs.iter().any(|r| r.summary.faults.is_some())
}

/// The "Failures and spot capacity" panel.
#[function_component]
pub fn FaultResults(props: &Props) -> Html {
    let canvases: [NodeRef; 3] = [use_node_ref(), use_node_ref(), use_node_ref()];
    {
        let canvases = canvases.clone();
        let on_run = props.on_run.clone();
        use_effect_with(
            (props.results.clone(), props.spot_type.clone()),
            move |(results, spot)| {
                if let Some(results) = results.as_ref().filter(|r| shows(r)) {
                    if let Err(e) = draw(&canvases, results, spot_shown(results, spot.as_ref())) {
                        on_run.emit(RunMsg::ChartError(e));
                    }
                }
            },
        );
    }
    let Some(results) = props.results.as_deref().filter(|r| shows(r)) else {
        return html! {};
    };
    let runs = &results.runs;
    let faults = runs.iter().any(|r| r.summary.faults.is_some());
    let spot = spot_shown(results, props.spot_type.as_ref());
    let described = results.exp.faults_description();
    let spotted = runs.iter().any(|r| spot_figures(r).is_some());
    let split = runs.iter().any(|r| r.summary.spot_cost.is_some());
    html! {
        <section class="panel wide" id="fault-results">
            <h2>{ "Failures and spot capacity" }</h2>
            { super::intro("fault-results", "What failures, checkpoints and spot capacity cost each policy: every policy meets the same server failures at the same times, but a failure interrupts only the jobs running on that server, and takes back their work since their last checkpoint. ETTR is the share of a job's time spent on work it kept.") }
            if let Some(d) = described { <p class="hint" id="fault-results-label">{ d }</p> }
            if faults {
                <div class="table-x">
                <table class="summary" id="fault-table">
                    <thead><tr>
                        { ths(&["policy", "server-failures"]) }
                        <th title="Server failures by category of cause (Llama 3's Table 5 groups its 18 causes in 6), most first">{ "by cause" }</th>
                        { ths(&["interruptions", "ettr"]) }
                        <th title="GPU-hours of work failures took back (each job's work since its last checkpoint)">{ "rolled back (GPU-h)" }</th>
                        <th title="GPU-hours held while jobs started again (every start and restart)">{ "restarting (GPU-h)" }</th>
                        <th title="GPU-hours of blocking checkpoint writes">{ "checkpoints (GPU-h)" }</th>
                        if spotted {
                            <th title="Jobs stopped as the cloud took their spot instance back, and the GPU-hours of work that took back">{ "spot preemptions" }</th>
                            <th title="GPU-hours of work spot preemptions took back (the warning's write lost, or the work since the last checkpoint)">{ "preempted (GPU-h)" }</th>
                        }
                        if split { <th title="Dollars on on-demand types and on spot types (at their trace's prices when it has them)">{ "cost on-demand / spot" }</th> }
                    </tr></thead>
                    <tbody>
                    { for runs.iter().enumerate().map(|(i, r)| row(i, r, spotted, split)) }
                    </tbody>
                </table>
                </div>
            }
            if spot.is_some() && results.exp.spot.len() > 1 {
                <div class="controls">
                    <label>{ "spot type " }
                        <select id="spot-type" onchange={props.on_view.reform(|e: Event| ViewMsg::SpotType(select_value(&e)))}>
                            { for results.exp.spot.keys().map(|t| html! { <option value={t.clone()} selected={Some(t) == spot.as_ref()}>{ t.clone() }</option> }) }
                        </select>
                    </label>
                </div>
            }
            <div class="charts">
                if faults { { chart("interruptions", &canvases[0], false) } }
                if faults { { chart("lost-gpu-hours", &canvases[1], false) } }
                if spot.is_some() { { chart("spot-capacity", &canvases[2], true) } }
            </div>
        </section>
    }
}

/// Server failures by category, most first (ties by name): "GPU 41 · Network 10".
fn by_cause(f: &FaultFigures) -> String {
    let mut counts: Vec<(&String, &u64)> = f.failures_by_category.iter().collect();
    orrery::order::sort_by(&mut counts, |a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    counts
        .iter()
        .map(|(c, n)| format!("{c} {n}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A run's spot preemptions and GPU-hours they took back, when it had any (as the CLI's
/// table shows them).
fn spot_figures(r: &PolicyResult) -> Option<(u64, f64)> {
    let f = r.summary.faults.as_ref()?;
    (f.spot_preemptions > 0 || f.lost_gpu_hours.preempted > 0.0)
        .then_some((f.spot_preemptions, f.lost_gpu_hours.preempted))
}

/// A run's cost on on-demand and on spot types, as the CLI's table gives it.
fn cost_split(r: &PolicyResult) -> Option<String> {
    let s = &r.summary;
    let (c, spot) = (s.cost?, s.spot_cost?);
    Some(format!("${:.2} / ${spot:.2}", c - spot))
}

/// One policy's row of the failures' table, its figures also in `data-` attributes.
fn row(i: usize, r: &PolicyResult, spotted: bool, split: bool) -> Html {
    let s = &r.summary;
    let Some(f) = &s.faults else {
        return html! {
            <tr data-policy={s.policy.clone()}><td>{ &s.policy }</td><td colspan="99">{ "—" }</td></tr>
        };
    };
    let lost = &f.lost_gpu_hours;
    html! {
        <tr data-policy={s.policy.clone()} data-server-failures={f.server_failures.to_string()} data-interruptions={f.interruptions.to_string()}
            data-ettr={f.ettr.map(|e| e.to_string()).unwrap_or_default()} data-charted={r.faults.as_ref().map_or(0, |l| l.interruptions.len()).to_string()}
            data-spot-preemptions={f.spot_preemptions.to_string()} data-lost-preempted={lost.preempted.to_string()}>
            <td><span class="swatch" style={format!("background:{}", charts::css_color(i))}></span>{ &s.policy }</td>
            <td>{ f.server_failures }</td>
            <td class="categories">{ by_cause(f) }</td>
            <td>{ f.interruptions }</td>
            <td>{ ettr(f) }</td>
            <td>{ format!("{:.1}", lost.rolled_back) }</td>
            <td>{ format!("{:.1}", lost.restarts) }</td>
            <td>{ format!("{:.1}", lost.checkpoints) }</td>
            if spotted {
                <td class="spot-preemptions">{ spot_figures(r).map_or_else(|| "—".to_string(), |(n, _)| n.to_string()) }</td>
                <td class="spot-preempted">{ spot_figures(r).map_or_else(|| "—".to_string(), |(_, h)| format!("{h:.1}")) }</td>
            }
            if split { <td class="cost-split">{ cost_split(r).unwrap_or_else(|| "—".to_string()) }</td> }
        </tr>
    }
}

/// ETTR as the CLI's table gives it.
fn ettr(f: &FaultFigures) -> String {
    f.ettr
        .map_or_else(|| "— (no job started)".to_string(), |e| format!("{e:.4}"))
}

/// Draw the panel's charts (those on the page); the first error, if any.
fn draw(canvases: &[NodeRef; 3], results: &Results, spot: Option<String>) -> Result<(), String> {
    let runs = &results.runs;
    let canvas = |i: usize| canvases[i].cast::<HtmlCanvasElement>();
    let mut errors = Vec::new();
    if let Some(c) = canvas(0) {
        let series: Vec<Series> = runs
            .iter()
            .map(|r| {
                let log = r.faults.clone().unwrap_or_default();
                (
                    r.summary.policy.clone(),
                    fc::cumulative(&log.interruptions, log.end),
                )
            })
            .collect();
        errors.extend(plot::show(&c, 340, move |f| fc::interruptions(f, &series)).err());
    }
    if let Some(c) = canvas(1) {
        let series: Vec<(String, Vec<f64>)> = runs
            .iter()
            .map(|r| {
                let l = r
                    .summary
                    .faults
                    .as_ref()
                    .map(|f| f.lost_gpu_hours.clone())
                    .unwrap_or_default();
                (
                    r.summary.policy.clone(),
                    vec![l.rolled_back, l.restarts, l.checkpoints],
                )
            })
            .collect();
        errors.extend(plot::show(&c, 340, move |f| fc::lost(f, &series)).err());
    }
    if let (Some(c), Some(ty)) = (canvas(2), spot) {
        errors.extend(capacity(&c, results, &ty).err());
    }
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// Draw spot type `ty`'s capacity and each policy's busy GPUs of the type on `c`.
fn capacity(c: &HtmlCanvasElement, results: &Results, ty: &str) -> Result<(), String> {
    let title = format!("Spot capacity of {ty} and the GPUs each policy kept busy");
    let src = results.exp.spot.get(ty);
    let trace = src.map(|s| CapacityTrace::parse(&s.text));
    let cluster = results.cluster();
    let index = cluster.and_then(|c| c.types.iter().position(|t| t.name == ty));
    let (Some(Ok(trace)), Some(t), Some(cluster)) = (trace, index, cluster) else {
        return plot::show(c, 340, move |f| {
            f.message(&title, "The trace or its GPU type is not in these results.")
        });
    };
    let spec = &cluster.types[t];
    let end = results
        .runs
        .iter()
        .filter_map(|r| r.series.last().map(|p| p.end))
        .fold(0.0, f64::max);
    let end = if end > 0.0 { end } else { trace.end_s };
    let held = fc::capacity_steps(&trace, spec.per_server.max(1), spec.count, end);
    let busy: Vec<Series> = results
        .runs
        .iter()
        .map(|r| {
            let pts = binned(&r.series, 200, |p| {
                f64::from(p.busy_gpus.get(t).copied().unwrap_or(0))
            });
            (r.summary.policy.clone(), pts)
        })
        .collect();
    let _ = c.set_attribute("data-type", ty);
    let _ = c.set_attribute("data-steps", &trace.steps.len().to_string());
    plot::show(c, 360, move |f| fc::capacity(f, &title, &held, &busy, end))
}
