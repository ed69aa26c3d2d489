//! The pooled simulator (Aryl) after a tick: training and inference servers with the jobs
//! on them (inference servers serving the load hatched, loaned ones outlined), and the
//! active jobs.

use super::Rows;
use crate::experiment::Resolved;
use crate::job::JobId;
use crate::sim::pooled::{Pool, PooledSimulator};
use crate::ui::job_colour as colour;
use crate::ui::stepper::Stepper;
use yew::prelude::*;

/// The view of the pooled simulator `sim` of the run `st` of the experiment `r`.
pub fn view(st: &Stepper, sim: &PooledSimulator, r: &Resolved, rows: &Rows) -> Html {
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
    let shown = rows.shown(active.len());
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
            { rows.toggle(active.len(), "active jobs") }
            <p class="hint">{ format!("{} jobs finished, {} active, {} events last tick; {} servers loaned and {} reclaimed so far, {} jobs stopped by reclaims.",
                st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), sim.loans, sim.reclaims, sim.reclaim_preemptions) }</p>
        </div>
    }
}
