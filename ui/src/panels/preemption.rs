//! The "Preemption" settings panel (PickyMan): make the experiment preemptive or
//! round-based again, and the overhead model's storage bandwidths, noise and default epoch.
//! Not shown for elastic and parameter-server experiments.

use crate::events::PreemptMsg;
use crate::input_value;
use crate::shared::Shared;
use orrery::experiment::Experiment;
use orrery::sim::{JobModel, Mechanism};
use yew::prelude::*;

/// The fields of the overhead model, with their labels and hints: key, label, step, hint.
pub const FIELDS: [(&str, &str, &str, &str); 4] = [
    (
        "read_gbps",
        "read GB/s",
        "0.05",
        "Storage read bandwidth when a job resumes: its checkpoint and training data are loaded at this speed",
    ),
    (
        "write_gbps",
        "write GB/s",
        "0.05",
        "Storage write bandwidth when a suspended job writes its checkpoint",
    ),
    (
        "noise",
        "noise (share)",
        "0.01",
        "Relative spread of the actual checkpoint and reload times around the model's (0 to 1)",
    ),
    (
        "default_epoch_s",
        "default epoch (s)",
        "10",
        "Epoch length of job types whose profile gives no preemption costs",
    ),
];

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment.
    pub exp: Shared<Experiment>,
    /// The mechanism it runs in.
    pub mech: Mechanism,
    /// The panel's last error.
    pub error: Option<String>,
    /// Edits.
    pub on_edit: Callback<PreemptMsg>,
}

/// The "Preemption" settings panel.
#[function_component]
pub fn PreemptionSettings(props: &Props) -> Html {
    if props.mech.jobs() != JobModel::Rigid {
        return html! {};
    }
    let on_edit = &props.on_edit;
    html! {
        <section class="panel" id="preemption-panel">
            <h2>{ "Preemption" }</h2>
            { super::intro("preemption", "Preemption: a running job can be suspended to make room for a waiting one. Suspending is not free: the job trains to the end of its epoch, writes a checkpoint, and later reloads it. PickyMan counts that cost when choosing whom to suspend; blind policies do not.") }
            if let Some(c) = props.exp.preemption {
                <p class="current" id="preemption-label">{ format!("preemptive (PickyMan's model): read {} GB/s, write {} GB/s, noise {:.0}%, default epoch {} s", c.read_gbps, c.write_gbps, c.noise * 100.0, c.default_epoch_s) }</p>
                <p class="hint">{ "A waiting job may take a running job's GPUs: the victim trains to the end of its epoch, writes a checkpoint, and reloads it and its data when it resumes. Per job type the profile gives epoch steps and the GB to write and read." }</p>
                <fieldset>
                    <legend>{ "Overhead model" }</legend>
                    { for FIELDS.iter().map(|&(key, label, step, title)| {
                        let value = match key {
                            "read_gbps" => c.read_gbps,
                            "write_gbps" => c.write_gbps,
                            "noise" => c.noise,
                            _ => c.default_epoch_s,
                        };
                        html! {
                            <label title={title}>{ format!("{label} ") }
                                <input id={format!("preemption-{key}")} type="number" min="0" step={step} value={value.to_string()}
                                    onchange={on_edit.reform(move |e: Event| PreemptMsg::Field(key, input_value(&e)))} />
                            </label>
                        }
                    }) }
                </fieldset>
                <button id="preemption-off" onclick={on_edit.reform(|_| PreemptMsg::Preemptive(false))}>{ "Back to round-based" }</button>
            } else {
                <p class="hint">{ "Round-based: jobs are placed every round and a preemption costs only the restart cost. A preemptive experiment (PickyMan) charges every suspension the rest of the victim's epoch, a checkpoint and a reload, on one GPU type." }</p>
                <button id="preemption-on" onclick={on_edit.reform(|_| PreemptMsg::Preemptive(true))}>{ "Make preemptive (PickyMan)" }</button>
            }
            if let Some(e) = &props.error { <p class="error" id="preemption-error">{ e }</p> }
        </section>
    }
}
