//! The "Policies" panel: the catalog's policies for the mechanism the experiment runs in,
//! each with a box and, once selected, its parameters.

use super::pool::aryl_help;
use crate::events::PolicyMsg;
use crate::input_value;
use orrery::policy::catalog;
use orrery::sim::{JobModel, Mechanism};
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The mechanism the experiment runs in (its policies are offered).
    pub mech: Mechanism,
    /// The selected policies' rows with their parameters as typed.
    pub selected: Vec<(String, String)>,
    /// Edits.
    pub on_edit: Callback<PolicyMsg>,
}

/// The "Policies" panel.
#[function_component]
pub fn PoliciesPanel(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let mech = props.mech;
    html! {
        <section class="panel" id="policy-panel">
            <h2>{ "Policies" }</h2>
            { super::intro("policies", "A policy decides which jobs get which GPUs, and for how long. Tick several to compare them on the same jobs. Each line says the idea in one sentence, and the paper it comes from is linked: LAS and max-min fairness share GPU time equally, the _perf forms do so knowing that some job types gain more from a fast GPU, SRTF runs the job closest to done, FIFO runs jobs in arrival order.") }
            if mech.jobs() == JobModel::Elastic { <p class="hint">{ "Elastic policies: the profile is one of elastic applications (Pollux's model). Pollux and its baselines come first; the round-based and preemptive policies after them run the elastic jobs rigid, each at its user's GPU count and batch." }</p> }
            if mech.jobs() != JobModel::ParameterServer { <p class="hint" id="cross-family">{ "After the experiment's own policies come the other families' that take its jobs, each in its own mechanism: Gavel's and the classic policies in rounds, PickyMan's in its events, Pollux in its ticks (a rigid job runs there at its own GPU count, on one GPU type it can run on, or waits). An experiment with an inference pool runs them on its training pool; every one pays the experiment's restart model." }</p> }
            if mech.inference_pool() { { aryl_help() } }
            if mech.preemption_model() { <p class="hint" id="preemptive-policies">{ "Preemptive policies: the experiment has PickyMan's overhead model (Preemption panel); each policy decides at every arrival, completion and end of a suspension." }</p> }
            <div class="ticked" id="policies-ticked" data-count={props.selected.len().to_string()}>
                <span class="hint">{ format!("Ticked ({}): ", props.selected.len()) }</span>
                if props.selected.is_empty() { <span class="hint">{ "none: tick at least one policy below" }</span> }
                { for props.selected.iter().map(|(name, params)| {
                    let untick = { let name = name.clone(); on_edit.reform(move |_| PolicyMsg::Toggle(name.clone())) };
                    let shown = if params.trim().is_empty() { name.clone() } else { format!("{name} ({})", params.trim()) };
                    html! { <button class="chip" data-policy={name.clone()} title={format!("untick {name}")} onclick={untick}>{ shown }{ " ×" }</button> }
                }) }
            </div>
            <ul class="policies">
            if mech.jobs() == JobModel::ParameterServer { <p class="hint" id="ps-policies">{ "Parameter-server policies (family dl2): the profile is one of parameter-server models; each policy adds workers and parameter servers one action at a time in every slot." }</p> }
            { for catalog::rows(mech).iter().map(|info| {
                let name = info.spec.to_string();
                let selected = props.selected.iter().find(|(n, _)| n == info.spec);
                let toggle = { let name = name.clone(); on_edit.reform(move |_| PolicyMsg::Toggle(name.clone())) };
                let params = on_edit.reform(move |e: Event| PolicyMsg::Params(name.clone(), input_value(&e)));
                html! {
                    <li class={classes!(selected.is_some().then_some("on"))}>
                        <label><input type="checkbox" data-policy={info.spec} checked={selected.is_some()} onchange={toggle} />{ " " }<code class="spec">{ info.spec }</code>{ " " }<span class="family">{ info.family }</span></label>
                        <div class="desc">{ info.description }</div>
                        <div class="paper" data-paper={info.paper.short}>{ "Paper: " }<a href={info.paper.url} target="_blank" rel="noopener" title={info.paper.title}>{ format!("{}, \"{}\" ({} {})", info.paper.short, info.paper.title, info.paper.venue, info.paper.year) }</a></div>
                        if let (Some((_, p)), false) = (selected, info.params.is_empty()) {
                            <input type="text" placeholder={info.params.iter().map(|p| format!("{}={}", p.name, p.default)).collect::<Vec<_>>().join(",")} value={p.clone()} onchange={params} />
                        }
                    </li>
                }
            }) }
            </ul>
        </section>
    }
}
