//! The "DL2" settings panel, for parameter-server experiments: CPUs per server, the most
//! workers and parameter servers per job, and the `dl2` policy's network (the bundled one
//! or an uploaded weights file).

use crate::events::Dl2Msg;
use crate::files::{chosen_file, read_text, FileText};
use crate::input_value;
use crate::shared::Shared;
use orrery::experiment::{Experiment, NetworkSource};
use orrery::sim::{JobModel, Mechanism};
use yew::prelude::*;

/// Largest weights file the page reads (bytes).
const MAX_NETWORK_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

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
    pub on_edit: Callback<Dl2Msg>,
}

/// The "DL2" settings panel.
#[function_component]
pub fn Dl2Settings(props: &Props) -> Html {
    if props.mech.jobs() != JobModel::ParameterServer {
        return html! {};
    }
    let on_edit = &props.on_edit;
    let exp = &props.exp;
    let c = exp.ps.unwrap_or_default();
    let on_file = {
        let on_edit = on_edit.clone();
        let done = on_edit.reform(|read: FileText| match read {
            Ok((name, text)) => Dl2Msg::NetworkFile(name, text),
            Err(e) => Dl2Msg::NetworkFileError(e),
        });
        Callback::from(move |e: Event| {
            let Some(f) = chosen_file(&e) else {
                return;
            };
            if f.size() > MAX_NETWORK_BYTES {
                on_edit.emit(Dl2Msg::NetworkFileError(format!(
                    "{}: larger than {} MB; a DL2 weights file is far smaller",
                    f.name(),
                    MAX_NETWORK_BYTES / (1024.0 * 1024.0)
                )));
            } else {
                read_text(f, done.clone());
            }
        })
    };
    let field = |key: &'static str, label: &'static str, value: u32, title: &'static str| {
        html! {
            <label title={title}>{ format!("{label} ") }
                <input id={format!("ps-{key}")} type="number" min="1" value={value.to_string()}
                    onchange={on_edit.reform(move |e: Event| Dl2Msg::Field(key, input_value(&e)))} />
            </label>
        }
    };
    let network = match &exp.network {
        None => "bundled network (warm-up on DRF, then reinforcement learning: orrery dl2 train)"
            .to_string(),
        Some(NetworkSource::Inline { name, text }) => {
            format!("network '{name}' ({} kB)", text.len() / 1000)
        }
    };
    html! {
        <section class="panel" id="dl2-panel">
            <h2>{ "DL2" }</h2>
            { super::intro("dl2", "A parameter-server experiment: each job trains with workers (GPUs) and parameter servers (CPUs), and every slot the policy decides how many of each a job gets. DL2 makes that decision with a small neural network; DRF, FIFO, SRTF and Optimus are the rules it is compared with.") }
            <p class="hint">{ "Parameter-server jobs in the slot simulator: every slot each active job gets a worker and a parameter server, then the policy adds workers (a GPU and CPUs each) and parameter servers (CPUs) one action at a time." }</p>
            <fieldset>
                <legend>{ "Servers and jobs" }</legend>
                { field("cpus_per_server", "CPUs per server", c.cpus_per_server, "CPUs of each server (the cluster spec gives its GPUs)") }
                { field("max_workers", "most workers per job", c.max_workers, "The most workers one job may hold") }
                { field("max_ps", "most PS per job", c.max_ps, "The most parameter servers one job may hold") }
            </fieldset>
            <p class="current" id="dl2-network" data-custom={exp.network.is_some().to_string()}>{ format!("dl2 policy: {network}") }</p>
            <label title="A weights JSON written by orrery dl2 train --out or downloaded from the training panel">{ "Network weights file " }<input id="network-file" type="file" accept=".json" onchange={on_file} /></label>
            if exp.network.is_some() {
                <button id="network-bundled" onclick={on_edit.reform(|_| Dl2Msg::Bundled)}>{ "Back to the bundled network" }</button>
            }
            if let Some(e) = &props.error { <p class="error" id="dl2-error">{ e }</p> }
        </section>
    }
}
