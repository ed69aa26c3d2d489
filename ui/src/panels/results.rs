//! The "Compare policies" panel: the comparison's controls and progress, the summary table
//! (its columns those of the results' mechanism), the downloads, and the four charts.

use super::{chart, intro, ths};
use crate::events::{Export, RunMsg, ViewMsg};
use crate::shared::{Results, Shared};
use crate::worker::PolicyResult;
use crate::{charts, plot};
use crate::{hours, now_ms, select_value};
use orrery::experiment::Progress;
use orrery::metrics::{FaultFigures, PoolFigures, PreemptionFigures, PsFigures};
use orrery::sim::Mechanism;
use orrery::view::glossary;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// The charts' names, in the order of their canvases.
const CHARTS: [&str; 4] = ["jct-cdf", "rho-cdf", "utilization", "queue"];

/// The progress bar's label.
pub fn progress_label(p: &Progress) -> String {
    format!("{} ({}/{})", p.policy, p.run + 1, p.runs)
}

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The results shown.
    pub results: Option<Shared<Results>>,
    /// Whether they are of an experiment edited since (and not being run).
    pub stale: bool,
    /// A long run's estimate, waiting for a confirmation.
    pub pending: Option<String>,
    /// How long the run in progress is expected to take.
    pub expected: Option<String>,
    /// Whether every policy of the results has run.
    pub complete: bool,
    /// Whether a comparison is running.
    pub running: bool,
    /// How far it is.
    pub progress: Option<Progress>,
    /// The progress bar and its label, which the App updates in place.
    pub progress_refs: [NodeRef; 2],
    /// The comparison's (or the run settings') last error.
    pub error: Option<String>,
    /// The last run: milliseconds in all, milliseconds computing, bytes of results.
    pub timing: Option<(f64, f64, usize)>,
    /// The policy (index) of the utilization chart.
    pub focus: usize,
    /// Runs, downloads and chart errors.
    pub on_run: Callback<RunMsg>,
    /// The utilization chart's policy.
    pub on_view: Callback<ViewMsg>,
}

/// The "Compare policies" panel.
#[function_component]
pub fn ResultsPanel(props: &Props) -> Html {
    let canvases: [NodeRef; 4] = [
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    ];
    let first_drawn = use_mut_ref(|| false);
    {
        let canvases = canvases.clone();
        let on_run = props.on_run.clone();
        use_effect_with(
            (props.results.clone(), props.focus),
            move |(results, focus)| {
                if let Some(results) = results {
                    if let Err(e) = draw(&canvases, results, *focus) {
                        on_run.emit(RunMsg::ChartError(e));
                    }
                    if !first_drawn.replace(true) {
                        mark_first_chart();
                    }
                }
            },
        );
    }
    let on_run = &props.on_run;
    let running = props.running;
    let results = props.results.as_deref();
    let runs: &[PolicyResult] = results.map_or(&[], |r| r.runs.as_slice());
    let mech = results.and_then(Results::mechanism);
    let resolved = results.and_then(|r| r.resolved.as_ref());
    let elastic = resolved.is_some_and(|r| r.apps().is_some());
    let preemptive = resolved.is_some_and(|r| r.sim.restart.checkpoint.is_some());
    let pct = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |x| format!("{:.1}%", x * 100.0));
    let stale = props.stale;
    let keys = columns(runs, mech);
    let download = |what: Export| on_run.reform(move |_: MouseEvent| RunMsg::Download(what));
    html! {
        <section class="panel wide" id="compare-panel">
            <h2>{ "Compare policies" }</h2>
            { intro("compare", "Every ticked policy runs the same jobs on the same cluster, one row each. Read the average JCT (how long a job takes from arrival to end, waiting included) first, then the p99 for the slowest jobs and the makespan for the whole workload; hover a column's name for what it means. The charts show the spread of JCTs, how fair each policy was to each job (rho), how busy each GPU type was and how many jobs waited.") }
            { paper_note(props) }
            <div class="controls">
                <button id="compare" disabled={running} onclick={on_run.reform(|_| RunMsg::Compare)}>{ "Run comparison" }</button>
                if running {
                    <progress id="progress" ref={props.progress_refs[0].clone()} max="1" value={props.progress.as_ref().map_or(0.0, |p| p.fraction()).to_string()} />
                    <span class="progress-label" ref={props.progress_refs[1].clone()}>{ props.progress.as_ref().map(progress_label).unwrap_or_default() }</span>
                    <button id="cancel" onclick={on_run.reform(|_| RunMsg::Cancel)}>{ "Cancel" }</button>
                    if let Some(t) = &props.expected { <span class="hint" id="expected">{ format!("expected about {t}") }</span> }
                }
                if let Some((ms, worker_ms, bytes)) = props.timing {
                    <span class="timing" id="run-ms" data-ms={format!("{ms:.0}")} data-compute-ms={format!("{worker_ms:.0}")} data-transfer-bytes={bytes.to_string()}>
                        { format!("last run {:.2} s ({:.2} s computing, {} kB of results)", ms / 1000.0, worker_ms / 1000.0, bytes / 1000) }
                    </span>
                }
            </div>
            if let Some(text) = &props.pending {
                <div class="confirm" id="run-confirm" role="alertdialog" aria-labelledby="run-confirm-text">
                    <p id="run-confirm-text">{ text }</p>
                    <button id="confirm-run" onclick={on_run.reform(|_| RunMsg::Confirm)}>{ "Run it" }</button>
                    <button id="confirm-cancel" onclick={on_run.reform(|_| RunMsg::Dismiss)}>{ "Cancel" }</button>
                </div>
            }
            if let Some(e) = &props.error { <p class="error" id="run-error">{ e }</p> }
            if stale {
                <p class="hint stale" id="stale-note" role="status">
                    { "These results are of the experiment as it was before your last edits. " }
                    <button id="stale-run" disabled={running} onclick={on_run.reform(|_| RunMsg::Compare)}>{ "Run comparison" }</button>
                    { " to see the edited one." }
                </p>
            }
            <div class="table-x">
            <table id="summary" class="summary" data-complete={props.complete.to_string()} data-stale={stale.to_string()}>
                <thead><tr>
                    { ths(&keys) }
                </tr></thead>
                <tbody>
                { for runs.iter().enumerate().map(|(i, r)| row(i, r, &keys, &pct)) }
                </tbody>
            </table>
            </div>
            if !runs.is_empty() {
                <div class="downloads">
                    <button onclick={download(Export::SummaryCsv)}>{ "Summary CSV" }</button>
                    <button onclick={download(Export::SummaryJson)}>{ "Summary JSON" }</button>
                    <button id="download-jobs" onclick={download(Export::JobsCsv)}>{ "Per-job CSV" }</button>
                    <button id="download-rounds" onclick={download(Export::RoundsCsv)}>{ "Per-round CSV" }</button>
                    if elastic { <button id="download-resizes" onclick={download(Export::ResizesCsv)}>{ "Elastic jobs CSV" }</button> }
                    if preemptive { <button id="download-suspensions" onclick={download(Export::SuspensionsCsv)}>{ "Suspensions CSV" }</button> }
                    <button id="download-experiment" title="The experiment of these results: orrery compare --config experiment.json reproduces them" onclick={download(Export::ExperimentJson)}>{ "Experiment JSON" }</button>
                    <label>{ "utilization of " }
                        <select onchange={props.on_view.reform(|e: Event| ViewMsg::FocusPolicy(select_value(&e).parse().unwrap_or(0)))}>
                            { for runs.iter().enumerate().map(|(i, r)| html! { <option value={i.to_string()} selected={i == props.focus}>{ r.summary.policy.clone() }</option> }) }
                        </select>
                    </label>
                </div>
            }
            <div class="charts">
                { for CHARTS.iter().zip(&canvases).map(|(name, canvas)| chart(name, canvas, false)) }
            </div>
        </section>
    }
}

/// The summary's column keys: the mechanism's ([`glossary::summary_columns`]), then the
/// failures' ([`glossary::FAULT_COLUMNS`]) when a run had failures or checkpoints.
fn columns(runs: &[PolicyResult], mech: Option<Mechanism>) -> Vec<&'static str> {
    let mut keys = glossary::summary_columns(mech.unwrap_or_default());
    if runs.iter().any(|r| r.summary.faults.is_some()) {
        keys.extend(glossary::FAULT_COLUMNS);
    }
    keys
}

/// One policy's row of the summary, its figures also in `data-` attributes.
fn row(i: usize, r: &PolicyResult, keys: &[&str], pct: &dyn Fn(Option<f64>) -> String) -> Html {
    let s = &r.summary;
    let pool = s.pool;
    let pool_num = |f: &dyn Fn(&PoolFigures) -> String| pool.as_ref().map(f).unwrap_or_default();
    let pre = s.preemption;
    let psf = s.ps;
    let ps_num = |f: &dyn Fn(&PsFigures) -> String| psf.as_ref().map(f).unwrap_or_default();
    let pre_num = |f: &dyn Fn(&PreemptionFigures) -> Option<String>| {
        pre.as_ref().and_then(f).unwrap_or_default()
    };
    let fault_num =
        |f: &dyn Fn(&FaultFigures) -> String| s.faults.as_ref().map(f).unwrap_or_default();
    html! {
        <tr data-policy={s.policy.clone()} data-num-jobs={s.num_jobs.to_string()} data-avg-jct-s={s.avg_jct_s.to_string()} data-makespan-s={s.makespan_s.to_string()} data-p99-jct-s={s.p99_jct_s.to_string()} data-restarts={s.restarts.to_string()} data-gpu-hours={s.gpu_hours.to_string()} data-max-rho={s.max_rho.map(|r| r.to_string()).unwrap_or_default()}
            data-avg-wait-s={s.avg_wait_s.to_string()} data-preemptions={s.preemptions.to_string()}
            data-loans={pool_num(&|p| p.loans.to_string())} data-reclaims={pool_num(&|p| p.reclaims.to_string())}
            data-avg-loaned-gpus={pool_num(&|p| p.avg_loaned_gpus.to_string())} data-cluster-usage={pool_num(&|p| p.cluster_usage.to_string())}
            data-p99-wait-s={s.p99_wait_s.to_string()} data-time-lost-s={s.time_lost_s.to_string()}
            data-suspensions={pre_num(&|p| Some(p.suspensions.to_string()))} data-duration-error={pre_num(&|p| p.duration_error.map(|x| x.to_string()))}
            data-overhead-error={pre_num(&|p| p.overhead_error.map(|x| x.to_string()))}
            data-avg-workers={ps_num(&|p| p.avg_workers.to_string())} data-avg-ps={ps_num(&|p| p.avg_ps.to_string())}
            data-cpu-utilization={ps_num(&|p| p.cpu_utilization.to_string())} data-total-reward={ps_num(&|p| p.total_reward.to_string())}
            data-utilization={s.utilization.to_string()}
            data-server-failures={fault_num(&|f| f.server_failures.to_string())} data-interruptions={fault_num(&|f| f.interruptions.to_string())}
            data-ettr={fault_num(&|f| f.ettr.map(|e| e.to_string()).unwrap_or_default())}
            data-lost-rolled-back={fault_num(&|f| f.lost_gpu_hours.rolled_back.to_string())} data-lost-restarts={fault_num(&|f| f.lost_gpu_hours.restarts.to_string())}
            data-lost-checkpoints={fault_num(&|f| f.lost_gpu_hours.checkpoints.to_string())}
            data-spot-preemptions={fault_num(&|f| f.spot_preemptions.to_string())} data-lost-preempted={fault_num(&|f| f.lost_gpu_hours.preempted.to_string())}
            data-cost={s.cost.map(|c| c.to_string()).unwrap_or_default()} data-spot-cost={s.spot_cost.map(|c| c.to_string()).unwrap_or_default()}
            data-failures-by-category={fault_num(&|f| serde_json::to_string(&f.failures_by_category).unwrap_or_default())}>
            <td><span class="swatch" style={format!("background:{}", charts::css_color(i))}></span>{ &s.policy }</td>
            <td>{ s.num_jobs } if s.unfinished > 0 { <span class="hint">{ format!(" +{} unfinished", s.unfinished) }</span> }</td>
            <td>{ hours(s.avg_jct_s) }</td>
            <td>{ hours(s.p99_jct_s) }</td>
            <td>{ hours(s.makespan_s) }</td>
            <td>{ hours(s.avg_wait_s) }</td>
            <td>{ format!("{:.1}%", s.utilization * 100.0) }</td>
            { for keys.iter().skip(glossary::COMMON_COLUMNS).map(|k| cell(r, k, pct)) }
        </tr>
    }
}

/// The cell of column `key` of a row.
fn cell(r: &PolicyResult, key: &str, pct: &dyn Fn(Option<f64>) -> String) -> Html {
    let s = &r.summary;
    let dash = || "—".to_string();
    let (psf, pre, pool, sized) = (s.ps, s.preemption, s.pool, s.elastic);
    match key {
        "avg-workers" => {
            html! { <td title={psf.map(|p| format!("largest: {} workers", p.max_workers)).unwrap_or_default()}>{ psf.map(|p| format!("{:.2}", p.avg_workers)).unwrap_or_else(dash) }</td> }
        }
        "avg-ps" => {
            html! { <td title={psf.map(|p| format!("largest: {} parameter servers", p.max_ps)).unwrap_or_default()}>{ psf.map(|p| format!("{:.2}", p.avg_ps)).unwrap_or_else(dash) }</td> }
        }
        "cpu-utilization" => html! { <td>{ pct(psf.map(|p| p.cpu_utilization)) }</td> },
        "reward-per-slot" => {
            html! { <td title={psf.map(|p| format!("{:.2} over {} slots", p.total_reward, p.slots)).unwrap_or_default()}>{ psf.map(|p| format!("{:.3}", p.avg_reward)).unwrap_or_else(dash) }</td> }
        }
        "reallocations" => {
            html! { <td title={psf.map(|p| format!("{} policy actions applied, {} refused", p.actions, p.invalid_actions)).unwrap_or_default()}>{ psf.map(|p| p.reallocations.to_string()).unwrap_or_else(dash) }</td> }
        }
        "p99-wait" => {
            html! { <td title={pre.map(|p| format!("first start: avg {} h, p99 {} h after arrival", hours(p.avg_first_wait_s), hours(p.p99_first_wait_s))).unwrap_or_default()}>{ hours(s.p99_wait_s) }</td> }
        }
        "time-lost" => {
            html! { <td title={pre.map(|p| format!("suspending (epoch ends and checkpoints) {} h, reloading {} h", hours(p.suspend_s), hours(p.resume_s))).unwrap_or_default()}>{ hours(s.time_lost_s) }</td> }
        }
        "preemptions-preemptive" => {
            html! { <td title={pre.map(|p| format!("{} suspensions decided, {} of them finished before their epoch ended", p.suspensions, p.finished_instead)).unwrap_or_default()}>{ s.preemptions }</td> }
        }
        "duration-error" => {
            html! { <td title="Mean relative error of the predicted training times">{ pct(pre.and_then(|p| p.duration_error)) }</td> }
        }
        "overhead-error" => {
            html! { <td title={format!("Mean relative error of the predicted time lost per suspension; the overhead model's own error (its noise): {}", pct(pre.and_then(|p| p.model_error)))}>{ pct(pre.and_then(|p| p.overhead_error)) }</td> }
        }
        "cluster-usage" => {
            html! { <td>{ pool.map(|p| format!("{:.1}%", p.cluster_usage * 100.0)).unwrap_or_else(dash) }</td> }
        }
        "avg-loaned" => {
            html! { <td>{ pool.map(|p| format!("{:.1}", p.avg_loaned_gpus)).unwrap_or_else(dash) }</td> }
        }
        "loans" => html! { <td>{ pool.map(|p| p.loans.to_string()).unwrap_or_else(dash) }</td> },
        "reclaims" => {
            html! { <td>{ pool.map(|p| p.reclaims.to_string()).unwrap_or_else(dash) }</td> }
        }
        "preemptions-pooled" => html! { <td>{ s.preemptions }</td> },
        "restarts-pooled" => html! { <td>{ s.restarts }</td> },
        "gpu-hours" => html! { <td>{ format!("{:.1}", s.gpu_hours) }</td> },
        "avg-gpus-job" => {
            html! { <td title={sized.map(|x| format!("largest: {} GPUs", x.max_gpus)).unwrap_or_default()}>{ sized.map(|x| format!("{:.2}", x.avg_gpus)).unwrap_or_else(dash) }</td> }
        }
        "avg-batch" => {
            html! { <td>{ sized.map(|x| format!("{:.0}", x.avg_batch_size)).unwrap_or_else(dash) }</td> }
        }
        "restarts-elastic" => html! { <td>{ s.restarts }</td> },
        "preemptions-elastic" => html! { <td>{ s.preemptions }</td> },
        "resizes" => {
            html! { <td>{ sized.map(|x| x.resizes.to_string()).unwrap_or_else(dash) }</td> }
        }
        "max-rho" => {
            html! { <td>{ s.max_rho.map(|r| format!("{r:.2}")).unwrap_or_else(dash) }</td> }
        }
        "restarts" => html! { <td>{ s.restarts }</td> },
        "server-failures" | "interruptions" | "ettr" | "gpu-h-lost" => fault_cell(s, key),
        _ => html! { <td>{ dash() }</td> },
    }
}

/// The cell of a failure column ([`glossary::FAULT_COLUMNS`]), as the CLI's table gives it.
fn fault_cell(s: &orrery::metrics::Summary, key: &str) -> Html {
    let Some(f) = &s.faults else {
        return html! { <td>{ "—" }</td> };
    };
    let lost = &f.lost_gpu_hours;
    match key {
        "server-failures" => {
            let causes: Vec<String> = f
                .failures_by_category
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            html! { <td title={causes.join(", ")}>{ f.server_failures }</td> }
        }
        "interruptions" => html! { <td>{ f.interruptions }</td> },
        "ettr" => {
            html! { <td>{ f.ettr.map_or_else(|| "—".to_string(), |e| format!("{e:.4}")) }</td> }
        }
        _ => html! {
            <td title={format!("{:.1} rolled back, {:.1} restarting, {:.1} writing checkpoints", lost.rolled_back, lost.restarts, lost.checkpoints)}>
                { format!("{:.1}", lost.rolled_back + lost.restarts + lost.checkpoints) }
            </td>
        },
    }
}

/// Draw the four charts of the results; the first error, if any.
fn draw(canvases: &[NodeRef; 4], results: &Results, focus: usize) -> Result<(), String> {
    let runs = &results.runs;
    let canvas = |i: usize| canvases[i].cast::<HtmlCanvasElement>();
    let named = |f: &dyn Fn(&PolicyResult) -> Vec<f64>| {
        runs.iter()
            .map(|r| (r.summary.policy.clone(), f(r)))
            .collect::<Vec<_>>()
    };
    let mut errors = Vec::new();
    if let Some(c) = canvas(0) {
        let s: Vec<(String, Vec<f64>)> = named(&|r| r.jcts.iter().map(|x| x / 3600.0).collect());
        errors.extend(
            plot::show(&c, H, move |f| {
                charts::cdf(f, "Job completion time (CDF)", "JCT (h)", &s, true)
            })
            .err(),
        );
    }
    if let Some(c) = canvas(1) {
        let s = named(&|r| r.rhos.clone());
        let title = "Finish-time fairness rho (CDF)";
        let message = if s.iter().all(|x| x.1.is_empty()) {
            let unavailable = results
                .resolved
                .as_ref()
                .filter(|_| results.exp.fairness)
                .and_then(|r| r.fairness_unavailable());
            Some(if let Some(m) = unavailable {
                m
            } else if results.exp.fairness {
                "No rho yet: it appears once the isolated baseline has run.".to_string()
            } else {
                "Fairness is off: tick 'finish-time fairness' in Run settings to run the isolated baseline.".to_string()
            })
        } else {
            None
        };
        let drawn = plot::show(&c, H, move |f| match &message {
            Some(m) => f.message(title, m),
            None => charts::cdf(f, title, "rho = JCT / isolated JCT", &s, true),
        });
        errors.extend(drawn.err());
    }
    if let Some(c) = canvas(2) {
        let types: Vec<(String, u32)> = results
            .cluster()
            .map(|c| c.types.iter().map(|t| (t.name.clone(), t.count)).collect())
            .unwrap_or_default();
        if let Some((_, r)) = results.at_most(focus) {
            let s = charts::utilization_series(r, &types);
            let title = format!("Utilization per GPU type ({})", r.summary.policy);
            errors.extend(
                plot::show(&c, H, move |f| {
                    charts::lines(f, &title, "busy GPUs / GPUs", &s, Some(1.0))
                })
                .err(),
            );
        }
    }
    if let Some(c) = canvas(3) {
        let s: Vec<(String, Vec<(f64, f64)>)> = runs
            .iter()
            .map(|r| (r.summary.policy.clone(), charts::queue_series(r)))
            .collect();
        errors.extend(
            plot::show(&c, H, move |f| {
                charts::lines(f, "Queue length (jobs waiting)", "jobs", &s, None)
            })
            .err(),
        );
    }
    errors.into_iter().next().map_or(Ok(()), Err)
}

/// The results charts' height (px).
const H: u32 = 340;

/// Note on the page when the first results were charted (`data-first-chart-ms` on the
/// document element), for the benchmarks.
fn mark_first_chart() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute("data-first-chart-ms", &format!("{:.0}", now_ms()));
    }
}

/// The paper's numbers beside these results, when the experiment of the results is a paper
/// preset's and both policies of a comparison have run.
fn paper_note(props: &Props) -> Html {
    let Some(results) = props.results.as_deref() else {
        return html! {};
    };
    let Some(claim) = orrery::experiment::scenarios::claims::claim_for(&results.exp) else {
        return html! {};
    };
    let summaries: Vec<orrery::experiment::scenarios::claims::Figures> =
        results.runs.iter().map(|r| (&r.summary).into()).collect();
    let measured = claim.measure(&summaries);
    html! {
        <div class="paper-claim" id="paper-claim" data-paper={claim.paper.short} data-measured={measured.len().to_string()}>
            <strong>{ format!("{} reproduced: ", claim.paper.short) }</strong>
            <ul>
            { for measured.iter().map(|m| html! {
                <li class="claim-line" data-baseline={m.versus.baseline} data-figure={m.versus.figure.name()} data-ratio={m.ratio.to_string()}>
                    { format!("{} of {} against {}: ", m.versus.figure.name(), claim.policy, m.versus.baseline) }
                    <span class="paper-number">{ format!("{} reports {}", claim.paper.short, m.versus.paper) }</span>
                    { "; " }<span class="our-number">{ format!("here: {}", m.ours()) }</span>
                </li>
            }) }
            </ul>
            if measured.is_empty() { <p class="hint">{ "The comparison appears once both of its policies have run." }</p> }
            <p class="hint source">{ format!("Source: {} ", claim.source) }<a href={claim.paper.url} target="_blank" rel="noopener">{ claim.paper.title }</a></p>
        </div>
    }
}
