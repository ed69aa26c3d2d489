//! The "Elastic jobs" panel of the results (Pollux's model): a job's GPUs and batch size
//! over time under each policy, its application's goodput against GPUs, and the numbers
//! behind them. Shown for results of an elastic experiment.

use super::chart;
use crate::events::{RunMsg, ViewMsg};
use crate::shared::{Results, Shared};
use crate::worker::{PolicyResult, Resize};
use crate::{charts, plot};
use crate::{hours, now_ms, select_value};
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// Every policy's resizes as CSV: policy, job, time, GPUs, servers, total batch size.
pub fn resizes_csv(results: &[PolicyResult]) -> String {
    let mut out = String::from("policy,job_id,time_s,gpus,nodes,batch_size\n");
    for r in results {
        let Some(e) = &r.elastic else { continue };
        let policy = orrery::workload::csv::quote(&r.summary.policy);
        for (j, pts) in e.resizes.iter().enumerate() {
            for p in pts {
                out.push_str(&format!(
                    "{policy},{j},{},{},{},{}\n",
                    p.time(),
                    p.gpus(),
                    p.nodes(),
                    p.batch()
                ));
            }
        }
    }
    out
}

/// (time s, value) corners of a line.
type Line = Vec<(f64, f64)>;

fn push_step(v: &mut Vec<(f64, f64)>, t: f64, value: f64) {
    let last = v.last().map_or(0.0, |p| p.1);
    v.push((t, last));
    v.push((t, value));
}

/// Step-shaped (time, GPUs) and (time, total batch) lines of one job from its arrival to
/// `end`, dropping to zero at `end` when the job finished there.
fn job_steps(points: &[Resize], arrival: f64, end: f64, finished: bool) -> (Line, Line) {
    let mut g = vec![(arrival, 0.0)];
    let mut b = vec![(arrival, 0.0)];
    for p in points {
        push_step(&mut g, p.time(), f64::from(p.gpus()));
        push_step(&mut b, p.time(), f64::from(p.batch()));
    }
    let (gl, bl) = (g.last().map_or(0.0, |p| p.1), b.last().map_or(0.0, |p| p.1));
    g.push((end, gl));
    b.push((end, bl));
    if finished {
        g.push((end, 0.0));
        b.push((end, 0.0));
    }
    (g, b)
}

/// The most useful job to show first: the one resized most often across the policies (the
/// lowest id on ties).
fn default_job(results: &Results) -> usize {
    let mut counts: Vec<usize> = Vec::new();
    for e in results.runs.iter().filter_map(|r| r.elastic.as_ref()) {
        counts.resize(counts.len().max(e.resizes.len()), 0);
        for (c, r) in counts.iter_mut().zip(&e.resizes) {
            *c += r.len();
        }
    }
    counts
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
        .map_or(0, |(i, _)| i)
}

/// The job shown: the one picked, or the default one.
fn shown_job(results: &Results, picked: Option<usize>) -> usize {
    let n = results.resolved.as_ref().map_or(0, |r| r.trace.jobs.len());
    picked
        .unwrap_or_else(|| default_job(results))
        .min(n.saturating_sub(1))
}

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The results shown.
    pub results: Option<Shared<Results>>,
    /// The job picked (None: the most resized one).
    pub job: Option<usize>,
    /// The goodput chart's epoch.
    pub epoch: u32,
    /// Chart errors.
    pub on_run: Callback<RunMsg>,
    /// The job and the epoch.
    pub on_view: Callback<ViewMsg>,
}

/// The "Elastic jobs" panel of the results.
#[function_component]
pub fn ElasticResults(props: &Props) -> Html {
    let history = use_node_ref();
    let goodput = use_node_ref();
    {
        let canvases = (history.clone(), goodput.clone());
        let on_run = props.on_run.clone();
        use_effect_with(
            (props.results.clone(), props.job, props.epoch),
            move |(results, job, epoch)| {
                if let Some(results) = results {
                    if let Err(e) = draw(&canvases.0, &canvases.1, results, *job, *epoch) {
                        on_run.emit(RunMsg::ChartError(e));
                    }
                }
            },
        );
    }
    let Some(results) = props.results.as_deref() else {
        return html! {};
    };
    let Some(r) = &results.resolved else {
        return html! {};
    };
    let Some(apps) = r.apps() else {
        return html! {};
    };
    let on_view = &props.on_view;
    let job = shown_job(results, props.job);
    let Some(spec) = r.trace.jobs.get(job) else {
        return html! {};
    };
    let app = apps.index(&spec.job_type).map(|i| &apps.apps[i]);
    let max_epoch = app.map_or(0, |a| a.max_epochs.saturating_sub(1));
    let epoch = props.epoch.min(max_epoch);
    let user = |g: u32, b: Option<u32>| {
        format!(
            "{g} GPU{}{}",
            if g == 1 { "" } else { "s" },
            b.map(|b| format!(", batch {b}")).unwrap_or_default()
        )
    };
    html! {
        <section class="panel wide" id="elastic-panel">
            <h2>{ "Elastic jobs" }</h2>
            { super::intro("elastic", "One elastic job under each policy: the GPUs and batch size it was given over time. Pollux grows a job when more GPUs make it train faster per sample (its goodput); the baselines keep the size the user asked for.") }
            <p class="hint">{ "How each policy sized one job over time, and what its application gains from more GPUs. Pollux picks GPUs and batch size for goodput (throughput × statistical efficiency); Tiresias and Optimus keep the user's batch size." }</p>
            <div class="controls">
                <label>{ "job " }
                    <select id="elastic-job" onchange={on_view.reform(|e: Event| ViewMsg::ElasticJob(select_value(&e).parse().unwrap_or(0)))}>
                        { for r.trace.jobs.iter().enumerate().map(|(i, s)| html! {
                            <option value={i.to_string()} selected={i == job}>{ format!("{i} · {} · user: {}", s.job_type, user(s.scale_factor, s.batch_size)) }</option>
                        }) }
                    </select>
                </label>
                if let Some(a) = app {
                    <label title="The goodput chart's training epoch: the gradient noise grows as training advances, so large batches pay off more later">{ "epoch " }
                        <input id="elastic-epoch" type="range" min="0" max={max_epoch.to_string()} value={epoch.to_string()}
                            oninput={on_view.reform(|e: InputEvent| ViewMsg::ElasticEpoch(e.target_unchecked_into::<HtmlInputElement>().value().parse().unwrap_or(0)))} />
                        <span id="elastic-epoch-label">{ format!(" {epoch} (of 0–{max_epoch})") }</span>
                    </label>
                    <span class="hint" title={a.source.clone()}>{ format!("{}: total batch {}–{}, {} epochs{}", a.name, a.init_batch_size, a.max_batch_size, a.max_epochs, if a.source.is_empty() { "" } else { " (hover for sources)" }) }</span>
                }
            </div>
            <table class="jobs" id="elastic-job-table">
                <thead><tr>{ super::ths(&["policy", "jct", "wait", "gpus", "total-batch", "resizes"]) }</tr></thead>
                <tbody>
                { for results.runs.iter().enumerate().filter_map(|(i, res)| {
                    let e = res.elastic.as_ref()?;
                    let pts = e.resizes.get(job).map_or(&[][..], |v| v.as_slice());
                    let running: Vec<&Resize> = pts.iter().filter(|p| p.gpus() > 0).collect();
                    let range = |f: &dyn Fn(&Resize) -> u32| {
                        let lo = running.iter().map(|p| f(p)).min();
                        let hi = running.iter().map(|p| f(p)).max();
                        match (lo, hi) {
                            (Some(l), Some(h)) if l == h => l.to_string(),
                            (Some(l), Some(h)) => format!("{l}–{h}"),
                            _ => "—".into(),
                        }
                    };
                    let finish = e.finish.get(job).copied().flatten();
                    let start = running.first().map(|p| p.time());
                    Some(html! {
                        <tr data-policy={res.summary.policy.clone()} data-resizes={pts.len().to_string()}>
                            <td><span class="swatch" style={format!("background:{}", charts::css_color(i))}></span>{ &res.summary.policy }</td>
                            <td>{ finish.map(|f| hours(f - spec.arrival)).unwrap_or_else(|| "unfinished".into()) }</td>
                            <td>{ start.map(|t| hours(t - spec.arrival)).unwrap_or_else(|| "—".into()) }</td>
                            <td>{ range(&Resize::gpus) }</td>
                            <td>{ range(&Resize::batch) }</td>
                            <td>{ pts.len() }</td>
                        </tr>
                    })
                }) }
                </tbody>
            </table>
            <div class="charts">
                { chart("job-history", &history, false) }
                { chart("goodput", &goodput, false) }
            </div>
        </section>
    }
}

/// Draw the panel's two charts (nothing when they are not on the page).
fn draw(
    history: &NodeRef,
    goodput: &NodeRef,
    results: &Results,
    picked: Option<usize>,
    epoch: u32,
) -> Result<(), String> {
    let Some(r) = &results.resolved else {
        return Ok(());
    };
    let Some(apps) = r.apps() else {
        return Ok(());
    };
    let job = shown_job(results, picked);
    let Some(spec) = r.trace.jobs.get(job) else {
        return Ok(());
    };
    if let Some(c) = history.cast::<HtmlCanvasElement>() {
        let (mut gpus, mut batch) = (Vec::new(), Vec::new());
        let mut t1 = spec.arrival + 60.0;
        let mut points = 0;
        for res in &results.runs {
            let Some(e) = &res.elastic else { continue };
            let pts = e.resizes.get(job).map_or(&[][..], |v| v.as_slice());
            points += pts.len();
            let finish = e.finish.get(job).copied().flatten();
            let end = finish.unwrap_or(res.summary.makespan_s).max(spec.arrival);
            t1 = t1.max(end);
            let (g, b) = job_steps(pts, spec.arrival, end, finish.is_some());
            gpus.push((res.summary.policy.clone(), g));
            batch.push((res.summary.policy.clone(), b));
        }
        let _ = c.set_attribute("data-points", &points.to_string());
        let title = format!("Job {job} ({}): GPUs and batch size", spec.job_type);
        let t0 = spec.arrival;
        plot::show(&c, 420, move |f| {
            charts::job_history(f, &title, &gpus, &batch, (t0, t1))
        })?;
    }
    if let Some(c) = goodput.cast::<HtmlCanvasElement>() {
        let Some(app) = apps.index(&spec.job_type).map(|i| &apps.apps[i]) else {
            return Ok(());
        };
        let epoch = epoch.min(app.max_epochs.saturating_sub(1));
        let (per, gpus) = r.cluster.types.first().map_or((1, 1), |t| {
            let per = t.per_server.max(1);
            (per, t.count - t.count % per)
        });
        let started = now_ms();
        let curve = app.goodput_curve(epoch, per, gpus);
        let _ = c.set_attribute("data-points", &curve.len().to_string());
        let _ = c.set_attribute("data-ms", &format!("{:.1}", now_ms() - started));
        let _ = c.set_attribute("data-epoch", &epoch.to_string());
        let title = format!(
            "{}: best configuration per GPU count, epoch {epoch}",
            app.name
        );
        let mark = spec.scale_factor;
        plot::show(&c, 440, move |f| {
            charts::goodput(f, &title, &curve, Some((mark, "user's GPUs")))
        })?;
    }
    Ok(())
}
