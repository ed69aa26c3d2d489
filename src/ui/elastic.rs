//! The page's views of elastic experiments (Pollux's model): the "Elastic jobs" panel (a
//! job's GPUs and batch size over time under each policy, its application's goodput against
//! GPUs), the stepping view of the elastic simulator, and the numbers behind them.

use super::worker::{PolicyResult, Resize};
use super::{charts, App, Msg, Stepper, JOB_ROWS};
use crate::job::JobId;
use crate::sim::elastic::ElasticSimulator;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// Every policy's resizes as CSV: policy, job, time, GPUs, servers, total batch size.
pub fn resizes_csv(results: &[PolicyResult]) -> String {
    let mut out = String::from("policy,job_id,time_s,gpus,nodes,batch_size\n");
    for r in results {
        let Some(e) = &r.elastic else { continue };
        let policy = crate::workload::csv::quote(&r.summary.policy);
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
pub fn job_steps(points: &[Resize], arrival: f64, end: f64, finished: bool) -> (Line, Line) {
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

fn colour(j: JobId) -> String {
    format!("hsl({}, 65%, 55%)", (j * 137) % 360)
}

fn set_attr(canvas: &HtmlCanvasElement, name: &str, value: &str) {
    let _ = canvas.set_attribute(name, value);
}

impl App {
    /// Whether the shown results are of an elastic experiment.
    pub(super) fn results_elastic(&self) -> bool {
        self.results_resolved
            .as_ref()
            .is_some_and(|r| r.apps.is_some())
    }

    /// The job the elastic panel shows.
    fn current_elastic_job(&self) -> usize {
        let n = self
            .results_resolved
            .as_ref()
            .map_or(0, |r| r.trace.jobs.len());
        self.elastic_job
            .unwrap_or_else(|| self.default_elastic_job())
            .min(n.saturating_sub(1))
    }

    /// The "Elastic jobs" panel (elastic results only).
    pub(super) fn view_elastic(&self, ctx: &Context<Self>) -> Html {
        let (Some((_, results)), Some(r)) = (&self.results, &self.results_resolved) else {
            return html! {};
        };
        let Some(apps) = &r.apps else {
            return html! {};
        };
        let link = ctx.link();
        let job = self.current_elastic_job();
        let Some(spec) = r.trace.jobs.get(job) else {
            return html! {};
        };
        let app = apps.index(&spec.job_type).map(|i| &apps.apps[i]);
        let max_epoch = app.map_or(0, |a| a.max_epochs.saturating_sub(1));
        let epoch = self.elastic_epoch.min(max_epoch);
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
                <p class="hint">{ "How each policy sized one job over time, and what its application gains from more GPUs. Pollux picks GPUs and batch size for goodput (throughput × statistical efficiency); Tiresias and Optimus keep the user's batch size." }</p>
                <div class="controls">
                    <label>{ "job " }
                        <select id="elastic-job" onchange={link.callback(|e: Event| Msg::ElasticJob(super::select_value(&e).parse().unwrap_or(0)))}>
                            { for r.trace.jobs.iter().enumerate().map(|(i, s)| html! {
                                <option value={i.to_string()} selected={i == job}>{ format!("{i} · {} · user: {}", s.job_type, user(s.scale_factor, s.batch_size)) }</option>
                            }) }
                        </select>
                    </label>
                    if let Some(a) = app {
                        <label title="The goodput chart's training epoch: the gradient noise grows as training advances, so large batches pay off more later">{ "epoch " }
                            <input id="elastic-epoch" type="range" min="0" max={max_epoch.to_string()} value={epoch.to_string()}
                                oninput={link.callback(|e: InputEvent| Msg::ElasticEpoch(e.target_unchecked_into::<HtmlInputElement>().value().parse().unwrap_or(0)))} />
                            <span id="elastic-epoch-label">{ format!(" {epoch} (of 0–{max_epoch})") }</span>
                        </label>
                        <span class="hint" title={a.source.clone()}>{ format!("{}: total batch {}–{}, {} epochs{}", a.name, a.init_batch_size, a.max_batch_size, a.max_epochs, if a.source.is_empty() { "" } else { " (hover for sources)" }) }</span>
                    }
                </div>
                <table class="jobs" id="elastic-job-table">
                    <thead><tr><th>{ "policy" }</th><th>{ "JCT (h)" }</th><th>{ "wait (h)" }</th><th>{ "GPUs" }</th><th>{ "total batch" }</th><th>{ "resizes" }</th></tr></thead>
                    <tbody>
                    { for results.iter().enumerate().filter_map(|(i, res)| {
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
                                <td>{ finish.map(|f| super::hours(f - spec.arrival)).unwrap_or_else(|| "unfinished".into()) }</td>
                                <td>{ start.map(|t| super::hours(t - spec.arrival)).unwrap_or_else(|| "—".into()) }</td>
                                <td>{ range(&Resize::gpus) }</td>
                                <td>{ range(&Resize::batch) }</td>
                                <td>{ pts.len() }</td>
                            </tr>
                        })
                    }) }
                    </tbody>
                </table>
                <div class="charts">
                    { for [4usize, 5].into_iter().map(|i| html! {
                        <figure>
                            <canvas id={format!("chart-{}", super::CHART_NAMES[i])} width="520" height="400" ref={self.charts[i].clone()} />
                            <button class="png" onclick={link.callback(move |_| Msg::DownloadChart(i))}>{ "PNG" }</button>
                        </figure>
                    }) }
                </div>
            </section>
        }
    }

    /// Draw the elastic panel's two charts (nothing when they are not on the page).
    pub(super) fn draw_elastic_charts(&self) -> Result<(), String> {
        let (Some((_, results)), Some(r)) = (&self.results, &self.results_resolved) else {
            return Ok(());
        };
        let Some(apps) = &r.apps else {
            return Ok(());
        };
        let job = self.current_elastic_job();
        let Some(spec) = r.trace.jobs.get(job) else {
            return Ok(());
        };
        if let Some(c) = self.charts[4].cast::<HtmlCanvasElement>() {
            let (mut gpus, mut batch) = (Vec::new(), Vec::new());
            let mut t1 = spec.arrival + 60.0;
            let mut points = 0;
            for res in results {
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
            set_attr(&c, "data-points", &points.to_string());
            charts::draw_job_history(
                c,
                &format!("Job {job} ({}): GPUs and batch size", spec.job_type),
                &gpus,
                &batch,
                (spec.arrival, t1),
            )?;
        }
        if let Some(c) = self.charts[5].cast::<HtmlCanvasElement>() {
            let Some(app) = apps.index(&spec.job_type).map(|i| &apps.apps[i]) else {
                return Ok(());
            };
            let epoch = self.elastic_epoch.min(app.max_epochs.saturating_sub(1));
            let (per, gpus) = r.cluster.types.first().map_or((1, 1), |t| {
                let per = t.per_server.max(1);
                (per, t.count - t.count % per)
            });
            let started = super::now_ms();
            let curve = app.goodput_curve(epoch, per, gpus);
            set_attr(&c, "data-points", &curve.len().to_string());
            set_attr(&c, "data-ms", &format!("{:.1}", super::now_ms() - started));
            set_attr(&c, "data-epoch", &epoch.to_string());
            charts::draw_goodput(
                c,
                &format!(
                    "{}: best configuration per GPU count, epoch {epoch}",
                    app.name
                ),
                &curve,
                Some((spec.scale_factor, "user's GPUs")),
            )?;
        }
        Ok(())
    }

    /// The stepping view of the elastic simulator: servers with the jobs on them, and the
    /// active jobs with their GPUs, batch size, epoch and progress.
    pub(super) fn view_elastic_state(
        &self,
        ctx: &Context<Self>,
        st: &Stepper,
        sim: &ElasticSimulator,
    ) -> Html {
        // Real servers, each with its GPU type's name and size.
        let cluster = sim.cluster();
        let mut kinds: Vec<&str> = Vec::new();
        let mut servers: Vec<Vec<Option<JobId>>> = Vec::new();
        let mut layout: Vec<String> = Vec::new();
        for (t, &n) in sim.servers().iter().enumerate() {
            let Some(ty) = cluster.types.get(t) else {
                continue;
            };
            let per = ty.per_server.max(1);
            layout.push(format!("{n} × {per} {}", ty.name));
            for _ in 0..n {
                kinds.push(&ty.name);
                servers.push(vec![None; per as usize]);
            }
        }
        let total: usize = servers.iter().map(Vec::len).sum();
        let states = sim.states();
        for (id, s) in states.iter().enumerate() {
            if s.completion.is_some() {
                continue;
            }
            for &v in &s.allocation {
                if let Some(slot) = sim
                    .real_server(v)
                    .and_then(|(n, _)| servers.get_mut(n as usize))
                    .and_then(|v| v.iter_mut().find(|o| o.is_none()))
                {
                    *slot = Some(id);
                }
            }
        }
        let active: Vec<JobId> = states
            .iter()
            .enumerate()
            .filter(|(_, s)| s.admitted && s.completion.is_none())
            .map(|(i, _)| i)
            .collect();
        let shown = if self.show_all_jobs {
            active.len()
        } else {
            active.len().min(JOB_ROWS)
        };
        let busy: u32 = active.iter().map(|&j| states[j].replicas()).sum();
        let apps = sim.apps();
        html! {
            <div class="state">
                <h3 class="servers-title">{ format!("servers: {} · {busy} of {total} GPUs busy", layout.join(", ")) }</h3>
                <div class="servers" id="servers">
                { for servers.iter().enumerate().map(|(n, gpus)| { let kind = kinds.get(n).copied().unwrap_or(""); html! {
                    <div class="server" data-type={kind.to_string()} title={format!("server {n} ({kind})")}>
                    { for gpus.iter().enumerate().map(|(g, o)| match o {
                        Some(j) => html! { <span class="gpu busy" title={format!("server {n} ({kind}), GPU {g}: job {j} ({})", sim.specs()[*j].job_type)} style={format!("background:{}", colour(*j))}></span> },
                        None => html! { <span class="gpu" title={format!("server {n} ({kind}), GPU {g}: idle")}></span> },
                    }) }
                    </div>
                }}) }
                </div>
                <table class="jobs" id="elastic-step-jobs">
                    <thead><tr>
                        <th>{ "job" }</th><th>{ "application" }</th><th>{ "user's GPUs × batch" }</th><th>{ "GPUs (servers)" }</th><th>{ "batch" }</th>
                        <th>{ "epoch" }</th><th>{ "progress" }</th><th>{ "restarts" }</th><th>{ "state" }</th>
                    </tr></thead>
                    <tbody>
                    { for active.iter().take(shown).map(|&j| {
                        let spec = &sim.specs()[j];
                        let s = &states[j];
                        let app = apps.apps.get(s.app);
                        let target = app.map_or(1.0, |a| a.target_progress()).max(1e-9);
                        let frac = (s.progress / target).clamp(0.0, 1.0);
                        let state = if s.replicas() == 0 {
                            "queued"
                        } else if s.rescale_time > 0.0 {
                            "restarting"
                        } else {
                            "running"
                        };
                        html! {
                            <tr data-job={j.to_string()} data-gpus={s.replicas().to_string()}>
                                <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                                <td>{ &spec.job_type }</td>
                                <td>{ format!("{} × {}", spec.scale_factor, spec.batch_size.map_or_else(|| "—".to_string(), |b| b.to_string())) }</td>
                                <td>{ if s.replicas() == 0 { "—".to_string() } else { format!("{} ({})", s.replicas(), s.nodes()) } }</td>
                                <td>{ if s.replicas() == 0 { "—".to_string() } else { s.batch_size().to_string() } }</td>
                                <td>{ format!("{}/{}", s.epoch, app.map_or(0, |a| a.max_epochs)) }</td>
                                <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                                <td>{ s.num_restarts.unwrap_or(0) }</td>
                                <td>{ state }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if active.len() > JOB_ROWS {
                    <label class="hint"><input type="checkbox" checked={self.show_all_jobs} onchange={ctx.link().callback(|_| Msg::ToggleAllJobs)} />{ format!(" show all {} active jobs ({} more)", active.len(), active.len().saturating_sub(JOB_ROWS)) }</label>
                }
                <p class="hint">{ format!("{} jobs finished, {} active, {} events last tick; the policy decides every {} s, and each allocation change costs the restart cost.",
                    st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), self.exp.round_s) }</p>
            </div>
        }
    }
}
