//! The "Inference pool" panel of the results (Aryl): each policy's loans and reclaims, and
//! the chart of the servers the load needs and those each policy loaned over time, loans
//! and reclaims marked. Shown for results of an experiment with an inference pool.

use super::chart;
use super::pool::inference_servers;
use crate::events::RunMsg;
use crate::shared::{Results, Shared};
use crate::worker::PoolSeries;
use crate::{charts, plot};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The results shown.
    pub results: Option<Shared<Results>>,
    /// Chart errors.
    pub on_run: Callback<RunMsg>,
}

/// The "Inference pool" panel of the results.
#[function_component]
pub fn PoolResults(props: &Props) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let on_run = props.on_run.clone();
        use_effect_with(props.results.clone(), move |results| {
            if let Some(results) = results {
                if let Err(e) = draw(&canvas, results) {
                    on_run.emit(RunMsg::ChartError(e));
                }
            }
        });
    }
    let Some(results) = props.results.as_deref() else {
        return html! {};
    };
    if results.resolved.as_ref().is_none_or(|r| r.load.is_none()) {
        return html! {};
    }
    html! {
        <section class="panel wide" id="pool-panel">
            <h2>{ "Inference pool" }</h2>
            { super::intro("pool-results", "How much the inference pool lent to training under each policy: servers loaned and reclaimed, GPUs on loan on average, and how many servers inference needed.") }
            <p class="hint">{ "Grey: inference servers the load needs. Lines: inference servers loaned to training, per policy. Marks along the bottom, one row per policy: ▲ servers loaned, ▼ servers reclaimed." }</p>
            <table class="jobs" id="pool-table">
                <thead><tr>{ super::ths(&["policy", "loans", "reclaims", "avg-loaned", "avg-servers-needed"]) }</tr></thead>
                <tbody>
                { for results.runs.iter().enumerate().map(|(k, r)| {
                    let p = r.summary.pool;
                    html! {
                        <tr data-policy={r.summary.policy.clone()} data-points={r.pool.as_ref().map_or(0, |s| s.points.len()).to_string()}>
                            <td><span class="swatch" style={format!("background:{}", charts::css_color(k))}></span>{ &r.summary.policy }</td>
                            <td>{ p.map(|p| p.loans.to_string()).unwrap_or_default() }</td>
                            <td>{ p.map(|p| p.reclaims.to_string()).unwrap_or_default() }</td>
                            <td>{ p.map(|p| format!("{:.1}", p.avg_loaned_gpus)).unwrap_or_default() }</td>
                            <td>{ p.map(|p| format!("{:.1}", p.avg_demand_servers)).unwrap_or_default() }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            <div class="charts">
                { chart("inference-pool", &canvas, false) }
            </div>
        </section>
    }
}

/// Step-shaped (time s, servers) lines of the load and of the loaned servers.
type Line = Vec<(f64, f64)>;

fn pool_lines(s: &PoolSeries) -> (Line, Line) {
    let (mut demand, mut stacked) = (Vec::new(), Vec::new());
    for (i, &(t, d, l)) in s.points.iter().enumerate() {
        if i > 0 {
            let (_, pd, pl) = s.points[i - 1];
            demand.push((t, f64::from(pd)));
            stacked.push((t, f64::from(pl)));
        }
        demand.push((t, f64::from(d)));
        stacked.push((t, f64::from(l)));
    }
    if let Some(&(_, d, l)) = s.points.last() {
        demand.push((s.end, f64::from(d)));
        stacked.push((s.end, f64::from(l)));
    }
    (demand, stacked)
}

/// Draw the inference pool's chart (nothing when it is not on the page).
fn draw(canvas: &NodeRef, results: &Results) -> Result<(), String> {
    let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
        return Ok(());
    };
    let servers = inference_servers(&results.exp.cluster).map_or(1.0, |s| f64::from(s.0));
    let mut demand = Vec::new();
    let mut loaned = Vec::new();
    let mut changes = Vec::new();
    let mut points = 0;
    let mut marks = 0;
    for r in &results.runs {
        let Some(s) = &r.pool else {
            loaned.push((r.summary.policy.clone(), Vec::new()));
            changes.push(Vec::new());
            continue;
        };
        let (d, stacked) = pool_lines(s);
        if d.len() > demand.len() {
            demand = d;
        }
        points += s.points.len();
        let ch = s.changes();
        marks += ch.len();
        loaned.push((r.summary.policy.clone(), stacked));
        changes.push(ch);
    }
    let _ = c.set_attribute("data-points", &points.to_string());
    let _ = c.set_attribute("data-marks", &marks.to_string());
    plot::show(&c, 400, move |f| {
        charts::pool(
            f,
            "Inference servers: needed by the load, and loaned to training",
            &demand,
            servers,
            &loaned,
            &changes,
        )
    })
}
