//! The slot simulator (DL2) after a slot: every server's GPUs (with the job whose worker
//! holds each) and CPUs in use, and the jobs' workers and parameter servers in the slot
//! just simulated.

use super::Rows;
use crate::experiment::Resolved;
use crate::job::JobId;
use crate::sim::slots::SlotSimulator;
use crate::ui::job_colour as colour;
use crate::ui::stepper::Stepper;
use yew::prelude::*;

/// The view of the slot simulator `sim` of the run `st` of the experiment `r`.
pub fn view(st: &Stepper, sim: &SlotSimulator, r: &Resolved, rows: &Rows) -> Html {
    let jobs = sim.jobs();
    let models = sim.models();
    // Per server: the jobs holding its GPUs (one entry per GPU) and its parameter
    // servers.
    let servers = sim.servers();
    // The jobs of the slot just simulated: the active ones and those that finished in it
    // (a job keeps its last allocation once finished).
    let since = sim.now() - sim.config().slot_s;
    let in_slot: Vec<JobId> = jobs
        .iter()
        .enumerate()
        .filter(|(id, j)| {
            sim.active().contains(id)
                || (j.finish.is_some_and(|f| f >= since) && !j.worker_servers.is_empty())
        })
        .map(|(id, _)| id)
        .collect();
    let mut held: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
    let mut ps_on: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
    for (id, j) in in_slot.iter().filter_map(|&id| Some((id, jobs.get(id)?))) {
        let Some(m) = models.models.get(j.model) else {
            continue;
        };
        for &s in &j.worker_servers {
            if let Some(h) = held.get_mut(s) {
                h.extend(std::iter::repeat_n(id, m.worker_gpus as usize));
            }
        }
        for &s in &j.ps_servers {
            if let Some(p) = ps_on.get_mut(s) {
                p.push(id);
            }
        }
    }
    let active = in_slot;
    let shown = rows.shown(active.len());
    let (workers, ps): (u32, u32) = active
        .iter()
        .filter_map(|&j| jobs.get(j))
        .fold((0, 0), |(w, p), j| (w + j.workers, p + j.ps));
    let gpu_type = r.cluster.types.first().map_or("gpu", |t| t.name.as_str());
    html! {
        <div class="state" id="slot-state" data-workers={workers.to_string()} data-ps={ps.to_string()} data-active={active.len().to_string()}>
            <h3 class="servers-title">{ format!("{} servers of {} {gpu_type} GPUs and {} CPUs · {workers} workers and {ps} parameter servers in this slot", servers.len(), servers.first().map_or(0, |s| s.gpus), servers.first().map_or(0, |s| s.cpus)) }</h3>
            <div class="servers" id="slot-servers">
            { for servers.iter().enumerate().map(|(k, s)| {
                let used_cpus = s.cpus.saturating_sub(s.free_cpus);
                html! {
                    <div class="server" title={format!("server {k}: {} of {} GPUs and {used_cpus} of {} CPUs in use; parameter servers of jobs {:?}", s.gpus - s.free_gpus.min(s.gpus), s.gpus, s.cpus, ps_on[k])}>
                        { for (0..s.gpus as usize).map(|g| match held[k].get(g) {
                            Some(&j) => html! { <span class="gpu busy" title={format!("GPU {g}: a worker of job {j}")} style={format!("background:{}", colour(j))}></span> },
                            None => html! { <span class="gpu" title={format!("GPU {g}: idle")}></span> },
                        }) }
                        <span class="cpu-bar" title={format!("{used_cpus} of {} CPUs in use", s.cpus)}>
                            <span style={format!("height:{:.0}%", 100.0 * f64::from(used_cpus) / f64::from(s.cpus.max(1)))}></span>
                        </span>
                    </div>
                }
            }) }
            </div>
            <p class="hint">{ "Each server's GPUs with the job whose worker holds each; the bar is the share of its CPUs held by workers and parameter servers." }</p>
            <table class="jobs" id="slot-jobs">
                <thead><tr>
                    <th>{ "job" }</th><th>{ "type" }</th><th>{ "workers" }</th><th>{ "PS" }</th><th>{ "servers" }</th><th>{ "progress" }</th><th>{ "slots run" }</th><th>{ "state" }</th>
                </tr></thead>
                <tbody>
                { for active.iter().take(shown).filter_map(|&j| jobs.get(j).map(|job| (j, job))).map(|(j, job)| {
                    let ty = models.models.get(job.model).map_or("", |m| m.name.as_str());
                    let frac = if job.total > 0.0 { (job.progress / job.total).clamp(0.0, 1.0) } else { 0.0 };
                    let mut on: Vec<usize> = job.worker_servers.iter().chain(&job.ps_servers).copied().collect();
                    on.sort_unstable();
                    on.dedup();
                    html! {
                        <tr data-job={j.to_string()} data-workers={job.workers.to_string()} data-ps={job.ps.to_string()}>
                            <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                            <td>{ ty }</td>
                            <td>{ job.workers }</td>
                            <td>{ job.ps }</td>
                            <td>{ on.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" ") }</td>
                            <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                            <td>{ job.slots_run }</td>
                            <td>{ if job.finish.is_some() { "finished in this slot" } else if job.trains() { "training" } else { "waiting" } }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            { rows.toggle(active.len(), "jobs of this slot") }
            <p class="hint">{ format!("{} jobs finished, {} active, {} events in this slot.",
                st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), sim.active().len(), st.last_events.len()) }</p>
        </div>
    }
}
