//! The Import panel's block for Acme's job tables: the file (Seren's or Kalos'), the
//! sampling's fields, the Import button, and what the last import read.

use super::form::{file_status, AcmeForm, ImportFile, ImportFormat, ImportMsg};
use super::report::report;
use super::{file_input, sampling_fields};
use yew::prelude::*;

/// What the block shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The table read, the fields as typed and the last summary.
    pub form: AcmeForm,
    /// The panel's messages.
    pub on_edit: Callback<ImportMsg>,
}

/// Acme's block.
#[function_component]
pub fn AcmeImport(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let form = &props.form;
    html! {
        <fieldset id="acme-import">
            <legend>{ "Acme job table" }</legend>
            <p class="hint">{ "trace_seren.csv or trace_kalos.csv of InternLM's AcmeTrace (on HuggingFace, Qinghao/AcmeTrace), read like orrery import-acme: its GPU jobs by final state with their failures, and a trace of them, each running end - start (Kalos' duration column holds the queue too). The trace runs profile-free, on the experiment's cluster." }</p>
            <label>{ "Acme CSV " }{ file_input("acme-file", ImportFile::Acme, on_edit) }</label>
            <span class="hint" id="acme-file-status">{ file_status(&form.file) }</span>
            { sampling_fields("acme", ImportFormat::Acme, &form.sampling, on_edit) }
            <button id="acme-import-button" disabled={form.file.is_none()} onclick={on_edit.reform(|_| ImportMsg::Import(ImportFormat::Acme))}>{ "Import" }</button>
            if let Some(e) = &form.error { <p class="error" id="acme-error" role="alert">{ e }</p> }
            if let Some(r) = &form.report { { report("acme-report", r) } }
        </fieldset>
    }
}
