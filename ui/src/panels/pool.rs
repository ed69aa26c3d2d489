//! The "Inference pool" settings panel (Aryl): add or remove the pool, its diurnal load or
//! an uploaded load CSV. Not shown for elastic and parameter-server experiments.

use crate::events::PoolMsg;
use crate::files::{chosen_file, read_text};
use crate::input_value;
use crate::shared::Shared;
use orrery::experiment::{Experiment, InferenceSource};
use orrery::model::cluster::ClusterSpec;
use orrery::policy;
use orrery::sim::{JobModel, Mechanism};
use yew::prelude::*;

/// Inference servers of a cluster spec: (servers, GPUs per server), None without an
/// `inference` type.
pub fn inference_servers(cluster: &str) -> Option<(u32, u32)> {
    let c = ClusterSpec::parse(cluster).ok()?;
    let t = c.types.iter().find(|t| t.is_inference())?;
    let per = t.per_server.max(1);
    Some((t.count / per, per))
}

/// The Aryl parameters, above the variants in the policy panel.
pub fn aryl_help() -> Html {
    html! {
        <p class="hint" id="aryl-params">
            { "Inference pool: the policy is aryl, with two yes/no parameters — " }
            { for policy::aryl::scheduler::PARAMS.iter().map(|p| html! { <><b>{ p.name }</b>{ format!(" ({}, default {}); ", p.help, if p.default == "true" { "yes" } else { "no" }) }</> }) }
            { "tick Aryl and the ablations to compare." }
        </p>
    }
}

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
    pub on_edit: Callback<PoolMsg>,
}

/// The "Inference pool" settings panel.
#[function_component]
pub fn PoolSettings(props: &Props) -> Html {
    let mech = props.mech;
    if mech.jobs() != JobModel::Rigid {
        return html! {};
    }
    let on_edit = &props.on_edit;
    let on_file = {
        let done = on_edit.reform(|read: Result<(String, String), String>| match read {
            Ok((name, text)) => PoolMsg::File(name, text),
            Err(e) => PoolMsg::FileError(e),
        });
        Callback::from(move |e: Event| {
            if let Some(f) = chosen_file(&e) {
                read_text(f, done.clone());
            }
        })
    };
    let exp = &props.exp;
    let servers = inference_servers(&exp.cluster);
    let d = match &exp.inference {
        Some(InferenceSource::Diurnal(d)) => d.clone(),
        _ => Default::default(),
    };
    let field = |label: &'static str,
                 key: &'static str,
                 value: String,
                 step: &'static str,
                 title: &'static str| {
        html! {
            <label title={title}>{ format!("{label} ") }
                <input id={format!("inference-{key}")} type="number" min="0" step={step} value={value}
                    onchange={on_edit.reform(move |e: Event| PoolMsg::Field(key, input_value(&e)))} />
            </label>
        }
    };
    html! {
        <section class="panel" id="inference-panel">
            <h2>{ "Inference pool" }</h2>
            { super::intro("pool", "Aryl's setting: besides the training GPUs, an inference pool serves a load that rises and falls over the day. When inference needs few servers, Aryl lends the idle ones to training, and takes them back (stopping the jobs on them) when the load comes back.") }
            if !mech.inference_pool() {
                <p class="hint">{ "No inference pool: jobs run on the training cluster only. An inference pool (Aryl) serves a daily load on the cluster's 'inference' GPU type and loans its idle servers to training." }</p>
                <button id="inference-on" onclick={on_edit.reform(|_| PoolMsg::Enable(true))}>{ "Add an inference pool" }</button>
            } else {
                <p class="current" id="inference-label">{ match &exp.inference {
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
                <button id="inference-off" onclick={on_edit.reform(|_| PoolMsg::Enable(false))}>{ "Remove the inference pool" }</button>
            }
            if let Some(e) = &props.error { <p class="error" id="inference-error">{ e }</p> }
        </section>
    }
}
