//! The preemptive simulator (PickyMan) after an event: the cluster's GPUs with the jobs
//! holding them (draining, checkpointing and reloading ones marked), and the active jobs.

use super::Rows;
use crate::experiment::Resolved;
use crate::job::JobId;
use crate::sim::preemptive::{Phase, PreemptiveSimulator};
use crate::ui::job_colour as colour;
use crate::ui::stepper::Stepper;
use yew::prelude::*;

/// The view of the preemptive simulator `sim` of the run `st` of the experiment `r`.
pub fn view(st: &Stepper, sim: &PreemptiveSimulator, r: &Resolved, rows: &Rows) -> Html {
    let jobs = sim.jobs();
    let total = r.cluster.total_gpus();
    let gpu_type = r.cluster.types.first().map_or("gpu", |t| t.name.as_str());
    let mut slots: Vec<(Option<JobId>, &'static str, String)> = Vec::new();
    for (id, j) in jobs.iter().enumerate().filter(|(_, j)| j.holds_gpus()) {
        let (class, what) = match j.phase {
            Phase::Loading => ("gpu busy loading", "reloading its checkpoint"),
            Phase::Draining => ("gpu busy draining", "suspended, finishing its epoch"),
            Phase::Saving => ("gpu busy saving", "suspended, writing its checkpoint"),
            _ => ("gpu busy", "training"),
        };
        for _ in 0..j.gpus {
            slots.push((Some(id), class, format!("job {id}: {what}")));
        }
    }
    let kept: u32 = jobs.iter().map(|j| j.reserved).sum();
    for _ in 0..kept {
        slots.push((None, "gpu kept", "kept for a waiting job".into()));
    }
    slots.truncate(total as usize);
    while slots.len() < total as usize {
        slots.push((None, "gpu", "idle".into()));
    }
    let active: Vec<JobId> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| !matches!(j.phase, Phase::Pending | Phase::Done))
        .map(|(i, _)| i)
        .collect();
    let shown = rows.shown(active.len());
    let holding = jobs.iter().filter(|j| j.holds_gpus()).count();
    html! {
        <div class="state" id="preempt-state" data-holding={holding.to_string()} data-free={sim.free_gpus().to_string()}>
            <h3 class="servers-title">{ format!("{total} × {gpu_type} · {} busy · {kept} kept for waiting jobs · {} free", slots.iter().filter(|s| s.0.is_some()).count(), sim.free_gpus()) }</h3>
            <div class="gpus wide" id="preempt-gpus">
            { for slots.iter().enumerate().map(|(g, (job, class, what))| html! {
                <span class={*class} title={format!("GPU {g}: {what}")} style={job.map(|j| format!("background-color:{}", colour(j))).unwrap_or_default()}></span>
            }) }
            </div>
            <p class="hint">{ "Hatched: suspended (finishing the epoch, then checkpointing); outlined: reloading after a suspension; dashed: kept for the waiting job a suspension makes room for." }</p>
            <table class="jobs" id="preempt-step-jobs">
                <thead><tr>
                    <th>{ "job" }</th><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "state" }</th><th>{ "progress" }</th><th>{ "suspensions" }</th><th>{ "GPU-h so far" }</th>
                </tr></thead>
                <tbody>
                { for active.iter().take(shown).map(|&j| {
                    let job = &jobs[j];
                    let ty = r.trace.jobs.get(j).map_or("", |s| s.job_type.as_str());
                    let frac = if job.total > 0.0 { (job.progress / job.total).clamp(0.0, 1.0) } else { 0.0 };
                    let state = match job.phase {
                        Phase::Waiting if job.victims_pending > 0 => format!("waiting for {} suspended job(s)", job.victims_pending),
                        Phase::Waiting if job.first_start.is_some() => "suspended, waiting".to_string(),
                        Phase::Waiting => "queued".to_string(),
                        Phase::Loading => "reloading".to_string(),
                        Phase::Running => "running".to_string(),
                        Phase::Draining => format!("finishing its epoch (for job {})", job.suspended_for.map(|w| w.to_string()).unwrap_or_default()),
                        Phase::Saving => "checkpointing".to_string(),
                        Phase::Pending | Phase::Done => String::new(),
                    };
                    html! {
                        <tr data-job={j.to_string()} data-phase={format!("{:?}", job.phase)}>
                            <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                            <td>{ ty }</td>
                            <td>{ job.gpus }</td>
                            <td>{ state }</td>
                            <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                            <td>{ job.preemptions }</td>
                            <td>{ format!("{:.2}", job.attained / 3600.0) }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            { rows.toggle(active.len(), "active jobs") }
            <p class="hint">{ format!("{} jobs finished, {} active, {} events at this step; {} suspensions so far.",
                st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(), st.rec.preemption.suspensions.len()) }</p>
        </div>
    }
}
