//! The Import panel's block for Alibaba's spot GPU trace: the node table (the cluster),
//! the job table (the trace, optional), the sampling's fields, the Import button, and what
//! the last import read.

use super::form::{file_status, ImportFile, ImportFormat, ImportMsg, SpotForm};
use super::report::report;
use super::{file_input, sampling_fields};
use yew::prelude::*;

/// What the block shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The tables read, the fields as typed and the last summary.
    pub form: SpotForm,
    /// The panel's messages.
    pub on_edit: Callback<ImportMsg>,
}

/// The spot GPU trace's block.
#[function_component]
pub fn SpotImport(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let form = &props.form;
    html! {
        <fieldset id="spot-import">
            <legend>{ "Alibaba spot GPU trace" }</legend>
            <p class="hint">{ "cluster-trace-v2026-spot-gpu from github.com/alibaba/clusterdata, read like orrery import-alibaba-spot. The node table becomes the cluster, one GPU type per model; the job table the trace, each job running its traced duration on the GPU model it requested and on no other (the profile made with it). Without a job table only the cluster changes." }</p>
            <label>{ "node_info_df.csv " }{ file_input("spot-nodes", ImportFile::SpotNodes, on_edit) }</label>
            <span class="hint" id="spot-nodes-status">{ file_status(&form.nodes) }</span>
            <label>{ "job_info_df.csv (optional) " }{ file_input("spot-jobs", ImportFile::SpotJobs, on_edit) }</label>
            <span class="hint" id="spot-jobs-status">{ file_status(&form.jobs) }</span>
            if form.jobs.is_some() {
                <button id="spot-jobs-clear" title="Import the node table alone" onclick={on_edit.reform(|_| ImportMsg::ClearJobs)}>{ "no job table" }</button>
            }
            { sampling_fields("spot", ImportFormat::AlibabaSpot, &form.sampling, on_edit) }
            <button id="spot-import-button" disabled={form.nodes.is_none()} onclick={on_edit.reform(|_| ImportMsg::Import(ImportFormat::AlibabaSpot))}>{ "Import" }</button>
            if let Some(e) = &form.error { <p class="error" id="spot-error" role="alert">{ e }</p> }
            if let Some(r) = &form.report { { report("spot-report", r) } }
        </fieldset>
    }
}
