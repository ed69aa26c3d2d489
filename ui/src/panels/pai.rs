//! The Import panel's block importing the Alibaba PAI tables: the job and task tables,
//! the sampling's fields, and the Import button.

use crate::events::{PaiFile, PaiForm, PaiMsg, PaiTable};
use crate::files::{chosen_file, read_text, FileText};
use crate::input_value;
use crate::shared::Shared;
use yew::prelude::*;

/// What the block shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The tables read and the fields as typed.
    pub form: PaiForm,
    /// The block's messages.
    pub on_edit: Callback<PaiMsg>,
}

/// The PAI import block.
#[function_component]
pub fn PaiImport(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let form = &props.form;
    let on_file = |table: PaiTable| {
        let done = on_edit.reform(move |read: FileText| match read {
            Ok((name, text)) => PaiMsg::File(table, name, text),
            Err(e) => PaiMsg::FileError(e),
        });
        Callback::from(move |e: Event| {
            if let Some(f) = chosen_file(&e) {
                read_text(f, done.clone());
            }
        })
    };
    let field =
        |name: &'static str| on_edit.reform(move |e: Event| PaiMsg::Field(name, input_value(&e)));
    let read = |t: &Option<Shared<PaiFile>>| match t {
        Some(f) => {
            let n = f.lines;
            format!(
                "read '{}' ({n} line{})",
                f.name,
                if n == 1 { "" } else { "s" }
            )
        }
        None => "not chosen".to_string(),
    };
    let ready = form.jobs.is_some() && form.tasks.is_some();
    html! {
        <fieldset id="pai-import">
            <legend>{ "Alibaba PAI tables" }</legend>
            <p class="hint">{ "cluster-trace-gpu-v2020 from github.com/alibaba/clusterdata, sampled like orrery import-pai. Its job types run only with an inference pool (the aryl scenario), at one step per second on their traced GPUs." }</p>
            <label>{ "pai_job_table.csv " }<input id="pai-jobs" type="file" accept=".csv,.txt" onchange={on_file(PaiTable::Jobs)} /></label>
            <span class="hint" id="pai-jobs-status">{ read(&form.jobs) }</span>
            <label>{ "pai_task_table.csv " }<input id="pai-tasks" type="file" accept=".csv,.txt" onchange={on_file(PaiTable::Tasks)} /></label>
            <span class="hint" id="pai-tasks-status">{ read(&form.tasks) }</span>
            <label>{ "max jobs " }<input id="pai-max-jobs" type="number" min="1" value={form.max_jobs.clone()} onchange={field("max_jobs")} /></label>
            <label>{ "seed " }<input id="pai-seed" type="number" min="0" value={form.seed.clone()} onchange={field("seed")} /></label>
            <label title="Share of the sampled jobs with 2 or more GPUs made elastic (up to twice their GPUs)">{ "elastic share " }<input id="pai-elastic" type="number" min="0" max="1" step="0.05" value={form.elastic.clone()} onchange={field("elastic")} /></label>
            <button id="pai-import-button" disabled={!ready} onclick={on_edit.reform(|_| PaiMsg::Import)}>{ "Import" }</button>
            if let Some(e) = &form.error { <p class="error" id="pai-error">{ e }</p> }
        </fieldset>
    }
}
