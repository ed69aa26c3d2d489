//! The "Trace shape" panel: the shape of the experiment's trace (bundled or uploaded) as the
//! experiment reads it, its filter applied: headline numbers, jobs and GPU-hours by GPUs per
//! job, the CDF of durations (logarithmic axis: they span decades) and arrivals per hour,
//! day or week, whichever gives a readable number of bars. Hidden for generated workloads.

use super::chart;
use crate::events::TraceShape;
use crate::plot;
use crate::shared::Shared;
use crate::trace_charts::{self, span_label};
use orrery::view::format::thousands;
use orrery::workload::dates::{format_time, parse_time};
use orrery::workload::TraceStats;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Most hourly bars; longer traces are charted per day.
const MAX_HOURS: usize = 240;
/// Most daily bars; longer traces are charted per week.
const MAX_DAYS: usize = 400;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The trace's shape (None: the workload is generated).
    pub shape: Option<Shared<TraceShape>>,
}

/// The "Trace shape" panel.
#[function_component]
pub fn TraceShapePanel(props: &Props) -> Html {
    let canvases: [NodeRef; 3] = [use_node_ref(), use_node_ref(), use_node_ref()];
    let chart_error = use_state_eq(|| None::<String>);
    {
        let canvases = canvases.clone();
        let chart_error = chart_error.clone();
        use_effect_with(props.shape.clone(), move |shape| {
            if let Some(Ok(stats)) = shape.as_deref().map(|s| &s.stats) {
                chart_error.set(draw(&canvases, stats).err());
            }
        });
    }
    let Some(shape) = props.shape.as_deref() else {
        return html! {};
    };
    let s = match &shape.stats {
        Ok(s) => s,
        Err(e) => {
            return html! {
                <section class="panel wide" id="trace-shape-panel">
                    <h2>{ "Trace shape" }</h2>
                    <p class="error" id="trace-shape-error">{ format!("The trace's shape could not be computed: {e}") }</p>
                </section>
            }
        }
    };
    let [gpus, durations, arrivals] = &canvases;
    html! {
        <section class="panel wide" id="trace-shape-panel" data-jobs={s.jobs.to_string()}
            data-gpu-hours={s.gpu_hours.map(|h| format!("{h:.1}")).unwrap_or_default()} data-ms={format!("{:.0}", shape.ms)}>
            <h2>{ "Trace shape" }</h2>
            { super::intro("trace-shape", "The shape of an uploaded trace: how many jobs, how long they run, how many GPUs they ask for and when they arrive. It tells what load the cluster will see before anything is simulated.") }
            <p class="hint">{ format!("{}: {}. As the experiment reads it: after its trace filter, before a profile draws job types.", s.name, s.format) }</p>
            <table class="kv" id="trace-shape-numbers">
                <tbody>
                { for numbers(s).into_iter().map(|(k, v)| html! { <tr><th>{ k }</th><td>{ v }</td></tr> }) }
                </tbody>
            </table>
            if let Some(e) = &*chart_error { <p class="error" id="trace-shape-error">{ format!("chart: {e}") }</p> }
            <div class="charts">
                { chart("trace-gpus", gpus, false) }
                { chart("trace-durations", durations, false) }
                { chart("trace-arrivals", arrivals, true) }
            </div>
        </section>
    }
}

/// A count, or a large number of steps, to the unit, thousands separated.
fn whole(v: f64) -> String {
    if v.is_finite() && v >= 0.0 {
        thousands(v.round() as u64)
    } else {
        format!("{v:.0}")
    }
}

/// The headline numbers: (name, value) rows.
fn numbers(s: &TraceStats) -> Vec<(&'static str, String)> {
    let mut jobs = thousands(s.jobs as u64);
    let dropped: usize = s.dropped.iter().map(|d| d.jobs).sum();
    if dropped > 0 {
        jobs.push_str(&format!(" ({} rows left out)", thousands(dropped as u64)));
    }
    let mut rows = vec![("jobs", jobs)];
    if let Some(h) = s.gpu_hours.filter(|h| h.is_finite() && *h >= 0.0) {
        let text = format!("{h:.1}");
        let (whole, tenth) = text.split_once('.').unwrap_or((&text, "0"));
        let whole = whole.parse().map_or_else(|_| whole.to_string(), thousands);
        rows.push(("GPU-hours", format!("{whole}.{tenth}")));
    }
    rows.push((
        "submitted",
        match (&s.first_arrival, &s.last_arrival) {
            (Some(a), Some(b)) => format!("{a} to {b} ({})", span_label(s.span_s)),
            _ => format!("over {}", span_label(s.span_s)),
        },
    ));
    let w = &s.work;
    rows.push(if s.durations {
        (
            "duration",
            format!(
                "median {}, mean {}, p90 {}, p99 {}, longest {}",
                span_label(w.p50),
                span_label(w.mean),
                span_label(w.p90),
                span_label(w.p99),
                span_label(w.max)
            ),
        )
    } else {
        (
            "work (steps)",
            format!(
                "median {}, mean {}, p99 {}, most {}",
                whole(w.p50),
                whole(w.mean),
                whole(w.p99),
                whole(w.max)
            ),
        )
    });
    let a = &s.jobs_per_hour;
    rows.push((
        "arrivals per hour",
        format!(
            "mean {:.1}, median {}, p99 {}, most {}",
            a.mean,
            whole(a.p50),
            whole(a.p99),
            whole(a.max)
        ),
    ));
    rows.push((
        "GPUs per job",
        format!(
            "mean {:.2}, median {:.0}, most {:.0}",
            s.gpus.mean, s.gpus.p50, s.gpus.max
        ),
    ));
    rows
}

/// The arrivals' bars: title, x axis, counts and each bar's label.
fn arrival_bins(s: &TraceStats) -> (&'static str, &'static str, Vec<f64>, Vec<String>) {
    if s.per_hour.len() <= MAX_HOURS {
        let first = s.first_hour.as_deref().and_then(parse_time);
        let labels = (0..s.per_hour.len())
            .map(|i| match first {
                Some(t) => {
                    let d = format_time(t + i as f64 * 3600.0);
                    d.get(5..16).map_or(d.clone(), str::to_string)
                }
                None => format!("{i} h"),
            })
            .collect();
        let counts = s.per_hour.iter().map(|&c| c as f64).collect();
        let x = if first.is_some() {
            "hour (the trace's clock)"
        } else {
            "hours after the first arrival"
        };
        return ("Arrivals per hour", x, counts, labels);
    }
    let week = if s.per_day.len() > MAX_DAYS { 7 } else { 1 };
    let (counts, labels) = s
        .per_day
        .chunks(week)
        .map(|days| {
            let jobs: usize = days.iter().map(|d| d.jobs).sum();
            let first = days.first().map(|d| d.day.clone()).unwrap_or_default();
            (jobs as f64, first)
        })
        .unzip();
    if week > 1 {
        ("Arrivals per week", "week from", counts, labels)
    } else {
        ("Arrivals per day", "day", counts, labels)
    }
}

/// Draw the three charts (nothing on a canvas that is not on the page).
fn draw(canvases: &[NodeRef; 3], s: &TraceStats) -> Result<(), String> {
    let canvas = |i: usize| canvases[i].cast::<HtmlCanvasElement>();
    if let Some(c) = canvas(0) {
        let labels: Vec<String> = s.by_gpus.iter().map(|g| g.gpus.to_string()).collect();
        let pct = |part: f64, whole: f64| {
            if whole > 0.0 {
                100.0 * part / whole
            } else {
                0.0
            }
        };
        let mut series = vec![(
            "jobs (%)".to_string(),
            s.by_gpus
                .iter()
                .map(|g| pct(g.jobs as f64, s.jobs as f64))
                .collect(),
        )];
        if let Some(total) = s.gpu_hours {
            series.push((
                "GPU-hours (%)".to_string(),
                s.by_gpus
                    .iter()
                    .map(|g| pct(g.gpu_hours.unwrap_or(0.0), total))
                    .collect(),
            ));
        }
        plot::show(&c, 320, move |f| {
            trace_charts::grouped_bars(
                f,
                "Jobs by GPUs per job",
                "GPUs per job",
                "% of the trace",
                &labels,
                &series,
            )
        })?;
    }
    if let Some(c) = canvas(1) {
        let (title, x) = if s.durations {
            ("Job durations (CDF)", "duration (log scale)")
        } else {
            ("Job work in steps (CDF)", "steps (log scale)")
        };
        let (quantiles, durations) = (s.work_quantiles.clone(), s.durations);
        plot::show(&c, 320, move |f| {
            trace_charts::quantile_cdf(f, title, x, &quantiles, durations)
        })?;
    }
    if let Some(c) = canvas(2) {
        let (title, x, counts, labels) = arrival_bins(s);
        let _ = c.set_attribute("data-bins", &counts.len().to_string());
        plot::show(&c, 300, move |f| {
            let label_of = |i: usize| labels.get(i).cloned().unwrap_or_default();
            trace_charts::bins(f, title, x, "jobs submitted", &counts, &label_of)
        })?;
    }
    Ok(())
}
