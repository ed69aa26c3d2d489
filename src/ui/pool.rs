//! The page's views of experiments with an inference pool (Aryl): the inference pool's
//! settings (the diurnal load or an uploaded load CSV), its chart (the servers the load
//! needs, the servers each policy loaned over time, loans and reclaims marked), and the
//! stepping view of the pooled simulator.

use super::worker::PoolSeries;
use super::{charts, App, Msg, Stepper, JOB_ROWS};
use crate::cluster::ClusterSpec;
use crate::experiment::{Experiment, InferenceSource, Resolved};
use crate::job::JobId;
use crate::policy;
use crate::sim::pooled::{Pool, PooledSimulator};
use crate::sim::Mechanism;
use crate::workload::inference::{DiurnalConfig, LoadCurve};
use crate::workload::presets;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// The Aryl parameters, above the variants in the policy panel.
pub fn view_aryl_help() -> Html {
    html! {
        <p class="hint" id="aryl-params">
            { "Inference pool: the policy is aryl, with two yes/no parameters — " }
            { for policy::aryl::scheduler::PARAMS.iter().map(|p| html! { <><b>{ p.name }</b>{ format!(" ({}, default {}); ", p.help, if p.default == "true" { "yes" } else { "no" }) }</> }) }
            { "tick Aryl and the ablations to compare." }
        </p>
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

/// Inference servers of a cluster spec: (servers, GPUs per server), None without an
/// `inference` type.
fn inference_servers(cluster: &str) -> Option<(u32, u32)> {
    let c = ClusterSpec::parse(cluster).ok()?;
    let t = c.types.iter().find(|t| t.is_inference())?;
    let per = t.per_server.max(1);
    Some((t.count / per, per))
}

fn colour(j: JobId) -> String {
    format!("hsl({}, 65%, 55%)", (j * 137) % 360)
}

impl App {
    fn diurnal(&self) -> Option<DiurnalConfig> {
        match &self.exp.inference {
            Some(InferenceSource::Diurnal(d)) => Some(d.clone()),
            _ => None,
        }
    }

    /// Try an experiment with another inference source; keep the previous one on error.
    fn try_inference(&mut self, src: InferenceSource) {
        let candidate = Experiment {
            inference: Some(src),
            ..self.exp.clone()
        };
        self.pool_error = self
            .try_apply(candidate)
            .err()
            .map(|e| format!("{e} — the previous load is kept"));
    }

    /// Edit a field of the diurnal load (starting from the defaults when the load is a
    /// CSV).
    pub(super) fn set_inference_field(&mut self, field: &str, v: &str) {
        let mut d = self.diurnal().unwrap_or_default();
        let v = v.trim();
        let ok = match field {
            "peak" => v.parse().map(|x| d.peak = x).is_ok(),
            "trough" => v.parse().map(|x| d.trough = x).is_ok(),
            "noise" => v.parse().map(|x| d.noise = x).is_ok(),
            "step_s" => v.parse().map(|x| d.step_s = x).is_ok(),
            "days" => v.parse().map(|x| d.days = x).is_ok(),
            "seed" => v.parse().map(|x| d.seed = x).is_ok(),
            _ => true,
        };
        if !ok {
            self.pool_error = Some(format!(
                "diurnal load: '{v}' is not a valid {field} — the previous load is kept"
            ));
            return;
        }
        self.try_inference(InferenceSource::Diurnal(d));
    }

    /// An uploaded load CSV (`time_s,servers`).
    pub(super) fn set_inference_file(&mut self, name: String, text: String) {
        if let Err(e) = LoadCurve::parse_csv(&text, &name) {
            self.pool_error = Some(format!("{e} — the previous load is kept"));
            return;
        }
        self.try_inference(InferenceSource::Inline { name, text });
    }

    /// Add an inference pool to the experiment (an `inference` GPU type when the cluster
    /// has none, the default diurnal load, Aryl and its ablations, the aryl scenario's
    /// round and restart cost), or take it away (back to the default scenario's policies
    /// and settings).
    pub(super) fn set_inference_pool(&mut self, on: bool) {
        let mut c = self.exp.clone();
        if on {
            let d = presets::aryl_experiment();
            if inference_servers(&c.cluster).is_none() {
                c.cluster = format!("{},inference:128/8", c.cluster);
            }
            c.inference = d.inference;
            // An experiment has an inference pool or a preemption model, not both.
            c.preemption = None;
            c.policies = d.policies;
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = false;
            c.gavel_compat = false;
        } else {
            let d = presets::default_experiment();
            c.inference = None;
            c.policies = d.policies;
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = d.fairness;
        }
        match self.try_apply(c) {
            Ok(()) => {
                self.pool_error = None;
                self.sync_cluster_text();
            }
            Err(e) => self.pool_error = Some(e),
        }
    }

    /// The inference pool's settings (left column).
    pub(super) fn view_pool_settings(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        if self.runs_in(Mechanism::Elastic) || self.runs_in(Mechanism::Slots) {
            return html! {};
        }
        let on_file = {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(f) = input.files().and_then(|l| l.get(0)) {
                    read_load_file(f, link.clone());
                }
                input.set_value("");
            })
        };
        let servers = inference_servers(&self.exp.cluster);
        let d = self.diurnal().unwrap_or_default();
        let field = |label: &'static str,
                     key: &'static str,
                     value: String,
                     step: &'static str,
                     title: &'static str| {
            html! {
                <label title={title}>{ format!("{label} ") }
                    <input id={format!("inference-{key}")} type="number" min="0" step={step} value={value}
                        onchange={link.callback(move |e: Event| Msg::InferenceField(key, super::input_value(&e)))} />
                </label>
            }
        };
        html! {
            <section class="panel" id="inference-panel">
                <h2>{ "Inference pool" }</h2>
                if !self.runs_in(Mechanism::Pooled) {
                    <p class="hint">{ "No inference pool: jobs run on the training cluster only. An inference pool (Aryl) serves a daily load on the cluster's 'inference' GPU type and loans its idle servers to training." }</p>
                    <button id="inference-on" onclick={link.callback(|_| Msg::InferencePool(true))}>{ "Add an inference pool" }</button>
                } else {
                    <p class="current" id="inference-label">{ match &self.exp.inference {
                        Some(InferenceSource::Inline { name, .. }) => format!("uploaded load '{name}'"),
                        Some(InferenceSource::Diurnal(d)) => format!("diurnal load: {:.0}%–{:.0}% of {} servers, noise {:.0}%, {} day(s), seed {}", d.trough * 100.0, d.peak * 100.0, servers.map_or(0, |s| s.0), d.noise * 100.0, d.days, d.seed),
                        None => String::new(),
                    } }</p>
                    if let Some((n, per)) = servers { <p class="hint">{ format!("{n} inference servers of {per} GPUs (the cluster's 'inference' type).") }</p> }
                    <fieldset>
                        <legend>{ "Diurnal load" }</legend>
                        { field("peak (share)", "peak", d.peak.to_string(), "0.01", "Share of the inference servers busy at the daily peak (16:00)") }
                        { field("trough (share)", "trough", d.trough.to_string(), "0.01", "Share busy at the nightly trough (04:00)") }
                        { field("noise (share)", "noise", d.noise.to_string(), "0.01", "Standard deviation of the noise, as a share of the inference servers") }
                        { field("step (s)", "step_s", d.step_s.to_string(), "60", "Seconds between points of the curve") }
                        { field("days", "days", d.days.to_string(), "1", "Days before the curve repeats") }
                        { field("seed", "seed", d.seed.to_string(), "1", "Seed of the noise") }
                    </fieldset>
                    <label title="A CSV with a header time_s,servers: servers needed from each time on; the curve repeats after the last point">{ "Load file (CSV time_s,servers) " }<input id="inference-file" type="file" accept=".csv,.txt" onchange={on_file} /></label>
                    <button id="inference-off" onclick={link.callback(|_| Msg::InferencePool(false))}>{ "Remove the inference pool" }</button>
                }
                if let Some(e) = &self.pool_error { <p class="error" id="inference-error">{ e }</p> }
            </section>
        }
    }

    /// The inference pool panel of the results: the chart and a note.
    pub(super) fn view_pool(&self, ctx: &Context<Self>) -> Html {
        let Some((_, results)) = &self.results else {
            return html! {};
        };
        if self
            .results_resolved
            .as_ref()
            .is_none_or(|r| r.load.is_none())
        {
            return html! {};
        }
        let i = 6;
        html! {
            <section class="panel wide" id="pool-panel">
                <h2>{ "Inference pool" }</h2>
                <p class="hint">{ "Grey: inference servers the load needs. Lines: inference servers loaned to training, per policy. Marks along the bottom, one row per policy: ▲ servers loaned, ▼ servers reclaimed." }</p>
                <table class="jobs" id="pool-table">
                    <thead><tr><th>{ "policy" }</th><th>{ "loans" }</th><th>{ "reclaims" }</th><th>{ "avg GPUs on loan" }</th><th>{ "avg servers needed" }</th></tr></thead>
                    <tbody>
                    { for results.iter().enumerate().map(|(k, r)| {
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
                    <figure>
                        <canvas id={format!("chart-{}", super::CHART_NAMES[i])} width="520" height="400" ref={self.charts[i].clone()} />
                        <button class="png" onclick={ctx.link().callback(move |_| Msg::DownloadChart(i))}>{ "PNG" }</button>
                    </figure>
                </div>
            </section>
        }
    }

    /// Draw the inference pool's chart (nothing when it is not on the page).
    pub(super) fn draw_pool_chart(&self) -> Result<(), String> {
        let (Some((exp, results)), Some(c)) =
            (&self.results, self.charts[6].cast::<HtmlCanvasElement>())
        else {
            return Ok(());
        };
        let servers = inference_servers(&exp.cluster).map_or(1.0, |s| f64::from(s.0));
        let mut demand = Vec::new();
        let mut loaned = Vec::new();
        let mut changes = Vec::new();
        let mut points = 0;
        let mut marks = 0;
        for r in results {
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
        charts::draw_pool(
            c,
            "Inference servers: needed by the load, and loaned to training",
            &demand,
            servers,
            &loaned,
            &changes,
        )
    }

    /// The stepping view of the pooled simulator: training and inference servers with the
    /// jobs on them (inference servers serving the load hatched, loaned ones outlined), and
    /// the active jobs.
    pub(super) fn view_pooled_state(
        &self,
        ctx: &Context<Self>,
        st: &Stepper,
        sim: &PooledSimulator,
        r: &Resolved,
    ) -> Html {
        let demand = sim.demand();
        let servers = sim.servers();
        // The first `demand` inference servers not on loan serve the load.
        let mut serving = vec![false; servers.len()];
        let mut left = demand;
        for (i, s) in servers.iter().enumerate() {
            if left > 0 && s.pool == Pool::Inference && !s.loaned {
                serving[i] = true;
                left -= 1;
            }
        }
        let loaned = servers.iter().filter(|s| s.loaned).count();
        let jobs = sim.jobs();
        let now = sim.now();
        let active: Vec<JobId> = jobs
            .iter()
            .enumerate()
            .filter(|(i, j)| {
                j.finish.is_none()
                    && !j.dropped
                    && r.trace.jobs.get(*i).is_some_and(|s| s.arrival <= now)
                    && (j.queued || j.running())
            })
            .map(|(i, _)| i)
            .collect();
        let shown = if self.show_all_jobs {
            active.len()
        } else {
            active.len().min(JOB_ROWS)
        };
        let pool_view = |pool: Pool, title: String, id: &'static str| {
            html! {
                <>
                <h3 class="servers-title">{ title }</h3>
                <div class="servers" id={id}>
                { for servers.iter().enumerate().filter(|(_, s)| s.pool == pool).map(|(n, s)| {
                    let mut gpus: Vec<Option<JobId>> = Vec::new();
                    for &(j, g) in &s.used {
                        gpus.extend(std::iter::repeat_n(Some(j), g as usize));
                    }
                    gpus.resize(s.gpus as usize, None);
                    let (class, what) = if serving[n] {
                        ("server serving", "serving inference")
                    } else if s.loaned {
                        ("server loaned", "loaned to training")
                    } else if s.pool == Pool::Inference {
                        ("server", "idle inference server")
                    } else {
                        ("server", "training server")
                    };
                    html! {
                        <div class={class} title={format!("server {n}: {what}")} data-server={n.to_string()}>
                        { for gpus.iter().enumerate().map(|(g, o)| match o {
                            Some(j) => html! { <span class="gpu busy" title={format!("server {n}, GPU {g}: job {j}")} style={format!("background:{}", colour(*j))}></span> },
                            None if serving[n] => html! { <span class="gpu serving" title={format!("server {n}, GPU {g}: serving inference")}></span> },
                            None => html! { <span class="gpu" title={format!("server {n}, GPU {g}: idle")}></span> },
                        }) }
                        </div>
                    }
                }) }
                </div>
                </>
            }
        };
        let count = |p: Pool| servers.iter().filter(|s| s.pool == p).count();
        html! {
            <div class="state" id="pool-state" data-demand={demand.to_string()} data-loaned={loaned.to_string()}>
                { pool_view(Pool::Training, format!("training: {} servers", count(Pool::Training)), "training-servers") }
                { pool_view(Pool::Inference, format!("inference: {} servers · {demand} serving the load · {loaned} loaned to training", count(Pool::Inference)), "inference-servers") }
                <table class="jobs" id="pool-step-jobs">
                    <thead><tr>
                        <th>{ "job" }</th><th>{ "type" }</th><th>{ "GPUs (min–max)" }</th><th>{ "on loaned GPUs" }</th><th>{ "progress" }</th><th>{ "state" }</th>
                    </tr></thead>
                    <tbody>
                    { for active.iter().take(shown).map(|&j| {
                        let job = &jobs[j];
                        let ty = r.trace.jobs.get(j).map_or("", |s| s.job_type.as_str());
                        let frac = if job.total > 0.0 { (job.progress / job.total).clamp(0.0, 1.0) } else { 0.0 };
                        let on_loan: u32 = job.placement.iter().filter(|p| servers.get(p.0).is_some_and(|s| s.pool == Pool::Inference)).map(|p| p.1).sum();
                        let state = if !job.running() { "queued" } else if job.overhead > 0.0 { "restarting" } else { "running" };
                        html! {
                            <tr data-job={j.to_string()} data-gpus={job.gpus().to_string()}>
                                <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                                <td>{ ty }</td>
                                <td>{ format!("{} ({}–{})", job.gpus(), job.min_gpus, job.max_gpus) }</td>
                                <td>{ on_loan }</td>
                                <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                                <td>{ state }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if active.len() > JOB_ROWS {
                    <label class="hint"><input type="checkbox" checked={self.show_all_jobs} onchange={ctx.link().callback(|_| Msg::ToggleAllJobs)} />{ format!(" show all {} active jobs ({} more)", active.len(), active.len().saturating_sub(JOB_ROWS)) }</label>
                }
                <p class="hint">{ format!("{} jobs finished, {} active, {} events last tick; {} servers loaned and {} reclaimed so far, {} jobs stopped by reclaims.",
                    st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), sim.loans, sim.reclaims, sim.reclaim_preemptions) }</p>
            </div>
        }
    }
}

/// Read an inference load file and send its text.
fn read_load_file(file: web_sys::File, link: yew::html::Scope<App>) {
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(v) => link.send_message(Msg::InferenceFile(name, v.as_string().unwrap_or_default())),
            Err(e) => link.send_message(Msg::InferenceFileError(format!(
                "{name}: cannot read the file ({e:?})"
            ))),
        }
    });
}
