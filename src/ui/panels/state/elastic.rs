//! The elastic simulator after a tick: its servers with the jobs on them, the active jobs
//! with their GPU type and count, batch size, epoch and progress, and, for policies that
//! say why, each job's goodput in every configuration it was weighed in.

use super::choices::Choices;
use super::Rows;
use crate::job::JobId;
use crate::sim::elastic::ElasticSimulator;
use crate::ui::job_colour as colour;
use crate::ui::stepper::Stepper;
use yew::prelude::*;

/// The view of the elastic simulator `sim` of the run `st`; the policy decides every
/// `round_s` seconds.
pub fn view(st: &Stepper, sim: &ElasticSimulator, round_s: f64, rows: &Rows) -> Html {
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
    let shown = rows.shown(active.len());
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
                    <th>{ "job" }</th><th>{ "application" }</th><th>{ "user's GPUs × batch" }</th><th>{ "GPU type" }</th><th>{ "GPUs (servers)" }</th><th>{ "batch" }</th>
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
                    let ty = s
                        .allocation
                        .first()
                        .and_then(|&v| sim.real_server(v))
                        .and_then(|(_, t)| cluster.types.get(t))
                        .map_or("—", |t| t.name.as_str());
                    html! {
                        <tr data-job={j.to_string()} data-gpus={s.replicas().to_string()} data-type={ty.to_string()}>
                            <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                            <td>{ &spec.job_type }</td>
                            <td>{ format!("{} × {}", spec.scale_factor, spec.batch_size.map_or_else(|| "—".to_string(), |b| b.to_string())) }</td>
                            <td>{ ty }</td>
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
            { rows.toggle(active.len(), "active jobs") }
            if let Some(e) = sim.explanation().filter(|e| !e.configs.is_empty()) {
                <Choices explanation={e.clone()} types={cluster.types.iter().map(|t| t.name.clone()).collect::<Vec<_>>()}
                    apps={sim.specs().iter().map(|s| s.job_type.clone()).collect::<Vec<_>>()} />
            }
            <p class="hint">{ format!("{} jobs finished, {} active, {} events last tick; the policy decides every {} s, and each allocation change costs the restart cost.",
                st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), round_s) }</p>
        </div>
    }
}
