//! The "Import a trace" panel: a public cluster trace read in the page into the experiment,
//! as the CLI's import commands read it. A format choice shows one block: Alibaba's PAI
//! tables ([`super::pai`]), Alibaba's spot GPU trace ([`spot`]) or an Acme job table
//! ([`acme`]), each with its files, its sampling and an Import button; the spot trace's and
//! Acme's blocks then show what the import read ([`report`]). The panel's state and
//! messages are in [`form`].

pub mod acme;
pub mod form;
pub mod report;
pub mod spot;

use super::pai::PaiImport;
use crate::events::{PaiForm, PaiMsg};
use crate::files::{chosen_file, read_text, FileText};
use crate::{input_value, select_value};
use acme::AcmeImport;
use form::{ImportFile, ImportForm, ImportFormat, ImportMsg, SamplingFields};
use spot::SpotImport;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The format chosen, and the spot trace's and Acme's blocks.
    pub form: ImportForm,
    /// The PAI block's state.
    pub pai: PaiForm,
    /// The panel's messages.
    pub on_edit: Callback<ImportMsg>,
    /// The PAI block's messages.
    pub on_pai: Callback<PaiMsg>,
}

/// The "Import a trace" panel.
#[function_component]
pub fn ImportPanel(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let format = props.form.format;
    html! {
        <section class="panel" id="import-panel">
            <h2>{ "Import a trace" }</h2>
            { super::intro("import", "A public trace of a real GPU cluster, read here as the orrery CLI's import commands read it. Nothing leaves the page: the files are read in the browser, and what the import makes (the sampled jobs, and for Alibaba's spot trace its cluster and profile) becomes the experiment, which its share link carries.") }
            <label>{ "Format " }
                <select id="import-format" onchange={on_edit.reform(|e: Event| ImportMsg::Format(select_value(&e)))}>
                    { for ImportFormat::ALL.iter().map(|f| html! { <option value={f.id()} selected={*f == format}>{ f.label() }</option> }) }
                </select>
            </label>
            {
                match format {
                    ImportFormat::Pai => html! { <PaiImport form={props.pai.clone()} on_edit={props.on_pai.clone()} /> },
                    ImportFormat::AlibabaSpot => html! { <SpotImport form={props.form.spot.clone()} on_edit={on_edit.clone()} /> },
                    ImportFormat::Acme => html! { <AcmeImport form={props.form.acme.clone()} on_edit={on_edit.clone()} /> },
                }
            }
        </section>
    }
}

/// A CSV file input of id `id` whose file's text is sent as `file`.
fn file_input(id: &'static str, file: ImportFile, on_edit: &Callback<ImportMsg>) -> Html {
    let done = on_edit.reform(move |read: FileText| match read {
        Ok((name, text)) => ImportMsg::File(file, name, text),
        Err(e) => ImportMsg::FileError(file, e),
    });
    let on_change = Callback::from(move |e: Event| {
        if let Some(f) = chosen_file(&e) {
            read_text(f, done.clone());
        }
    });
    html! { <input id={id} type="file" accept=".csv,.txt" onchange={on_change} /> }
}

/// The sampling's fields of `format` (ids `<prefix>-max-jobs` and `<prefix>-seed`).
fn sampling_fields(
    prefix: &'static str,
    format: ImportFormat,
    s: &SamplingFields,
    on_edit: &Callback<ImportMsg>,
) -> Html {
    let field = |name: &'static str| {
        on_edit.reform(move |e: Event| ImportMsg::Field(format, name, input_value(&e)))
    };
    html! {
        <>
            <label title="Jobs kept, drawn uniformly and kept in arrival order (--max-jobs); empty keeps every job">{ "max jobs " }<input id={format!("{prefix}-max-jobs")} type="text" inputmode="numeric" size="8" placeholder="all" value={s.max_jobs.clone()} onchange={field("max_jobs")} /></label>
            <label title="Seed of the draw (--seed)">{ "seed " }<input id={format!("{prefix}-seed")} type="number" min="0" value={s.seed.clone()} onchange={field("seed")} /></label>
        </>
    }
}
