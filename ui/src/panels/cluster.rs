//! The "Cluster" panel: the cluster spec, its presets, and a table of its GPU types.

use crate::events::ClusterMsg;
use crate::shared::Shared;
use crate::{input_value, CLUSTER_PRESETS};
use orrery::experiment::Experiment;
use orrery::model::cluster::ClusterSpec;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment (its cluster fills the table).
    pub exp: Shared<Experiment>,
    /// The spec as typed.
    pub text: String,
    /// The panel's last error.
    pub error: Option<String>,
    /// The experiment's warnings (a GPU type no job can use, say).
    pub warnings: Vec<String>,
    /// Edits.
    pub on_edit: Callback<ClusterMsg>,
}

/// The "Cluster" panel.
#[function_component]
pub fn ClusterPanel(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let cluster = ClusterSpec::parse(&props.exp.cluster).ok();
    let cell = |i: usize, col: &'static str| {
        on_edit.reform(move |e: Event| ClusterMsg::Cell(i, col, input_value(&e)))
    };
    html! {
        <section class="panel" id="cluster-panel">
            <h2>{ "Cluster" }</h2>
            { super::intro("cluster", "The GPUs the jobs share: how many of each type, how many sit in one server (a multi-GPU job is faster inside one server), and what each costs per hour. Types differ in speed, and by how much depends on the job: that difference is what heterogeneity-aware policies use.") }
            <label>{ "Spec " }<input id="cluster-spec" type="text" value={props.text.clone()} onchange={on_edit.reform(|e: Event| ClusterMsg::Text(input_value(&e)))} /></label>
            <div class="presets">
                { for CLUSTER_PRESETS.iter().map(|(label, spec)| {
                    let spec = spec.to_string();
                    html! { <button onclick={on_edit.reform(move |_| ClusterMsg::Preset(spec.clone()))}>{ *label }</button> }
                }) }
            </div>
            if let Some(c) = cluster {
                <table class="cluster-table">
                    <thead><tr><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "per server" }</th><th>{ "$/GPU-h" }</th><th></th></tr></thead>
                    <tbody>
                    { for c.types.iter().enumerate().map(|(i, t)| html! {
                        <tr>
                            <td><input type="text" value={t.name.clone()} onchange={cell(i, "name")} /></td>
                            <td><input type="number" min="0" value={t.count.to_string()} onchange={cell(i, "count")} /></td>
                            <td><input type="number" min="1" value={t.per_server.to_string()} onchange={cell(i, "per_server")} /></td>
                            <td><input type="number" min="0" step="0.01" value={t.price_per_hour.map(|p| p.to_string()).unwrap_or_default()} onchange={cell(i, "price")} /></td>
                            <td><button title="remove" onclick={on_edit.reform(move |_| ClusterMsg::RemoveType(i))}>{ "×" }</button></td>
                        </tr>
                    }) }
                    </tbody>
                </table>
                <button onclick={on_edit.reform(|_| ClusterMsg::AddType)}>{ "Add GPU type" }</button>
            }
            { for props.warnings.iter().map(|w| html! { <p class="hint experiment-warning">{ w }</p> }) }
            if let Some(e) = &props.error { <p class="error" id="cluster-error">{ e }</p> }
        </section>
    }
}
