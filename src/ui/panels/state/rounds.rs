//! The round-based simulator after a round: every GPU with the job (or the pair of jobs
//! sharing it) on it, and the active jobs with their allocation rows.

use super::Rows;
use crate::job::JobId;
use crate::policy::Recompute;
use crate::sim::Simulator;
use crate::ui::job_colour as colour;
use crate::ui::stepper::Stepper;
use std::collections::{BTreeMap, BTreeSet};
use yew::prelude::*;

/// The view of the round-based simulator `sim` of the run `st`.
pub fn view(st: &Stepper, sim: &Simulator, rows: &Rows) -> Html {
    let cluster = sim.cluster();
    let owners = sim.gpu_owners();
    let sharers = sim.gpu_sharers();
    let active: Vec<JobId> = sim.active().to_vec();
    let running: BTreeSet<JobId> = owners
        .iter()
        .chain(sharers)
        .flatten()
        .flatten()
        .copied()
        .collect();
    // The job each job shared its GPUs with in the last round (space sharing).
    let mut partner: BTreeMap<JobId, JobId> = Default::default();
    for (own, shr) in owners.iter().zip(sharers) {
        for (o, s) in own.iter().zip(shr) {
            if let (Some(a), Some(b)) = (o, s) {
                partner.insert(*a, *b);
                partner.insert(*b, *a);
            }
        }
    }
    let packing = sim.policy_traits().packing;
    let allocation = sim
        .active()
        .first()
        .is_some_and(|&j| sim.allocation_row(j).is_some());
    let shown = rows.shown(active.len());
    html! {
        <div class="state">
            <div class="gpu-grid">
            { for cluster.types.iter().zip(owners).zip(sharers).map(|((t, own), shr)| html! {
                <div class="gpu-type">
                    <h3>{ format!("{} × {}", t.count, t.name) }</h3>
                    <div class="gpus">
                    { for own.iter().enumerate().map(|(g, o)| match (o, shr.get(g).copied().flatten()) {
                        (Some(a), Some(b)) => html! { <span class="gpu busy shared" title={format!("GPU {g}: jobs {a} and {b}, sharing it")} style={format!("background:linear-gradient(135deg, {} 50%, {} 50%)", colour(*a), colour(b))}></span> },
                        (Some(j), None) => html! { <span class="gpu busy" title={format!("GPU {g}: job {j}")} style={format!("background:{}", colour(*j))}></span> },
                        (None, _) => html! { <span class="gpu" title={format!("GPU {g}: idle")}></span> },
                    }) }
                    </div>
                </div>
            }) }
            </div>
            <table class="jobs">
                <thead><tr>
                    <th>{ "job" }</th><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "state" }</th><th>{ "progress" }</th>
                    if packing { <th title="the job it shared GPUs with in the last round, and the pair's allocation row">{ "shares with" }</th> }
                    if allocation { { for cluster.types.iter().map(|t| html! { <th>{ format!("x[{}]", t.name) }</th> }) } }
                </tr></thead>
                <tbody>
                { for active.iter().take(shown).map(|&j| {
                    let spec = &sim.specs()[j];
                    let s = &sim.states()[j];
                    let frac = (s.steps_done / spec.total_steps).clamp(0.0, 1.0);
                    html! {
                        <tr>
                            <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                            <td>{ &spec.job_type }</td>
                            <td>{ spec.scale_factor }</td>
                            <td>{ if running.contains(&j) { "running" } else { "queued" } }</td>
                            <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                            if packing {
                                <td class="pair">{ partner.get(&j).map(|&o| {
                                    let row = sim.pair_allocation_row(j, o).map(|r| r.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(" / ")).unwrap_or_default();
                                    html! { <><span class="swatch" style={format!("background:{}", colour(o))}></span>{ format!("{o} {row}") }</> }
                                }).unwrap_or_default() }</td>
                            }
                            if allocation {
                                { for (0..cluster.num_types()).map(|t| html! { <td>{ sim.allocation_row(j).map(|r| format!("{:.3}", r[t])).unwrap_or_default() }</td> }) }
                            }
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            { rows.toggle(active.len(), "active jobs") }
            <p class="hint">{ format!("{} jobs finished, {} active, {} events last round, recompute: {}{}", st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(),
                if sim.policy_traits().recompute == Recompute::EveryRound { "every round" } else { "when the job set changes" },
                if packing { format!(", {} pairs shared GPUs last round", partner.len() / 2) } else { String::new() }) }</p>
        </div>
    }
}
