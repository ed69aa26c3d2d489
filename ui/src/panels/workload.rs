//! The "Workload" panel: a bundled trace, the generator or an uploaded trace, and the
//! profile (bundled, an uploaded file, or Pollux's or Sia's application folders). Public
//! traces that need reading first (Alibaba's, Acme's) are the Import panel's.

use super::filter::TraceFilterBlock;
use super::{field_note, invalid, shown};
use crate::events::{WorkloadMsg, PROFILE_FREE};
use crate::files::{chosen_file, read_folder, read_text, FileText, FolderFiles};
use crate::shared::Shared;
use crate::{input_checked, input_value, select_value};
use orrery::experiment::{Experiment, JobTypes, ProfileSource, WorkloadSource};
use orrery::sim::{JobModel, Mechanism};
use orrery::workload::{presets, GeneratorConfig};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment.
    pub exp: Shared<Experiment>,
    /// The mechanism it runs in.
    pub mech: Mechanism,
    /// The workload, for people.
    pub label: String,
    /// The generator's settings as edited.
    pub generator: GeneratorConfig,
    /// The workload's last error.
    pub workload_error: Option<String>,
    /// Refused values of the generator's fields.
    pub fields: Vec<crate::events::Refused>,
    /// The profile's last error.
    pub profile_error: Option<String>,
    /// What the profile knows (GPU types, job types), when the experiment resolves.
    pub profile_types: Option<String>,
    /// The profile's job types with their speeds per GPU type, when the experiment
    /// resolves.
    #[prop_or_default]
    pub job_types: Option<JobTypes>,
    /// How the workload was read (filter, profile-free, job types drawn), when the
    /// experiment resolves.
    pub notes: Vec<String>,
    /// Edits.
    pub on_edit: Callback<WorkloadMsg>,
}

/// The "Workload" panel.
#[function_component]
pub fn WorkloadPanel(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let trace_read = on_edit.reform(|read: FileText| match read {
        Ok((name, text)) => WorkloadMsg::TraceFile(name, text),
        Err(e) => WorkloadMsg::FileError(e),
    });
    let profile_read = on_edit.reform(|read: FileText| match read {
        Ok((name, text)) => WorkloadMsg::ProfileFile(name, text),
        Err(e) => WorkloadMsg::ProfileFileError(e),
    });
    let on_trace = {
        let done = trace_read.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = chosen_file(&e) {
                read_text(f, done.clone());
            }
        })
    };
    let on_profile = {
        let done = profile_read.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = chosen_file(&e) {
                read_text(f, done.clone());
            }
        })
    };
    let on_folder = {
        let done = on_edit.reform(|read: FolderFiles| match read {
            Ok((folder, files, skipped)) => WorkloadMsg::ProfileFolder(folder, files, skipped),
            Err(e) => WorkloadMsg::ProfileFileError(e),
        });
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(list) = input.files().filter(|l| l.length() > 0) {
                read_folder(list, done.clone());
            }
            input.set_value("");
        })
    };
    let on_drop = Callback::from(move |e: DragEvent| {
        e.prevent_default();
        if let Some(f) = e
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|l| l.get(0))
        {
            let name = f.name().to_ascii_lowercase();
            let is_profile = name.contains("profile") || name.contains("throughput");
            read_text(
                f,
                if is_profile {
                    profile_read.clone()
                } else {
                    trace_read.clone()
                },
            );
        }
    });
    let mech = props.mech;
    let g = &props.generator;
    let f = props.fields.as_slice();
    let exp = &props.exp;
    let preset_name = match &exp.workload {
        WorkloadSource::Preset { name } => name.clone(),
        _ => String::new(),
    };
    let profile_name = match &exp.profile {
        ProfileSource::Preset { name } => name.clone(),
        ProfileSource::Inline { name, .. } => format!("uploaded '{name}'"),
        ProfileSource::Files { name, files } => {
            format!("uploaded folder '{name}' ({} files)", files.len())
        }
        ProfileSource::ProfileFree => PROFILE_FREE.to_string(),
    };
    let generator = |field: &'static str| {
        on_edit.reform(move |e: Event| WorkloadMsg::Generator(field, input_value(&e)))
    };
    let generator_box = |field: &'static str| {
        on_edit.reform(move |e: Event| WorkloadMsg::Generator(field, input_checked(&e).to_string()))
    };
    html! {
        <section class="panel" id="workload-panel">
            <h2>{ "Workload" }</h2>
            { super::intro("workload", "The jobs: when each arrives, what model it trains (its job type) and how much work it has. The profile says how fast each job type runs on each GPU type; the table below lists them. Jobs come from a bundled trace, the generator, or a file of your own.") }
            <p class="current" id="workload-label">{ &props.label }</p>
            <label title={if mech.jobs() == JobModel::Elastic { "The bundled traces name round-based job types; elastic experiments use the generator or an uploaded Pollux workload" } else { "" }}>{ "Bundled trace " }
                <select id="trace-preset" disabled={mech.jobs() != JobModel::Rigid} onchange={on_edit.reform(|e: Event| WorkloadMsg::TracePreset(select_value(&e)))}>
                    <option value="" selected={preset_name.is_empty()} disabled=true>{ "—" }</option>
                    { for presets::TRACES.iter().map(|t| html! { <option value={t.name} selected={preset_name == t.name} title={t.description}>{ t.name }</option> }) }
                </select>
            </label>
            <fieldset>
                <legend>{ "Generator" }</legend>
                <label>{ "jobs " }<input id="gen-jobs" type="number" min="1" max="1000000" aria-invalid={invalid(f, "gen-jobs")} value={shown(f, "gen-jobs", g.num_jobs.to_string())} onchange={generator("num_jobs")} />{ field_note(f, "gen-jobs") }</label>
                <label>{ "jobs/hour (0 = all at t=0) " }<input id="gen-rate" type="number" min="0" step="0.1" aria-invalid={invalid(f, "gen-rate")} value={shown(f, "gen-rate", g.jobs_per_hour.to_string())} onchange={generator("jobs_per_hour")} />{ field_note(f, "gen-rate") }</label>
                <label>{ "seed " }<input id="gen-seed" type="number" min="0" aria-invalid={invalid(f, "gen-seed")} value={shown(f, "gen-seed", g.seed.to_string())} onchange={generator("seed")} />{ field_note(f, "gen-seed") }</label>
                <label title="Factor on every job's drawn duration: 1 is Gavel's recipe (10^1.5 to 10^3 minutes for 80% of jobs, 10^3 to 10^4 for the rest); the pickyman scenario uses 0.1">{ "durations × " }<input id="gen-duration-scale" type="number" min="0.001" max="100" step="0.1" aria-invalid={invalid(f, "gen-duration-scale")} value={shown(f, "gen-duration-scale", g.duration_scale.to_string())} onchange={generator("duration_scale")} />{ field_note(f, "gen-duration-scale") }</label>
                if mech.jobs() == JobModel::Elastic {
                    <p class="hint">{ "Elastic jobs: each draws an application by size class (Pollux's mix) and its user's GPU count and batch size." }</p>
                } else if mech.jobs() == JobModel::ParameterServer {
                    <label title="DL2's own generator (its simulator's trace.py): DL2's eight job types drawn uniformly, arrivals after Google's cluster trace, job lengths of the scale; with numpy's seed it draws DL2's own traces. Needs DL2's profile folder. DL2 runs testbed on gpu:12/2 in 300 s slots, base on gpu:192/2 and large on gpu:1000/2 in 1,200 s slots.">{ "DL2's generator " }
                        <select id="gen-dl2" onchange={on_edit.reform(|e: Event| WorkloadMsg::Generator("dl2", select_value(&e)))}>
                            <option value="" selected={g.dl2.is_none()}>{ "off (Orrery's)" }</option>
                            { for orrery::workload::dl2_gen::Dl2Scale::ALL.iter().map(|s| html! { <option value={s.name()} selected={g.dl2.is_some_and(|d| d.scale == *s)}>{ s.name() }</option> }) }
                        </select>{ field_note(f, "gen-dl2") }
                    </label>
                    if let Some(d) = g.dl2 {
                        <label title="Which trace of the seed: DL2 draws its traces one after another after seeding numpy">{ "trace " }<input id="gen-dl2-trace" type="number" min="0" aria-invalid={invalid(f, "gen-dl2-trace")} value={shown(f, "gen-dl2-trace", d.trace.to_string())} onchange={generator("dl2_trace")} />{ field_note(f, "gen-dl2-trace") }</label>
                        <p class="hint">{ format!("DL2's {} scale: {} jobs, at most {} arriving per slot; DL2 runs it on gpu:{}/2 in {} s slots. The seed is numpy's (DL2's runs use 9973).", d.scale.name(), d.scale.jobs(), d.scale.max_per_slot(), 2 * d.scale.nodes(), d.scale.slot_s()) }</p>
                    } else {
                        <p class="hint">{ "Parameter-server jobs: each draws a model type of the profile and its epochs in the model's range (times the durations factor)." }</p>
                    }
                } else {
                    <label><input type="checkbox" checked={g.multi_gpu} onchange={generator_box("multi_gpu")} />{ " multi-GPU jobs" }</label>
                    <label><input type="checkbox" checked={g.priority_weights} onchange={generator_box("priority_weights")} />{ " priority weights" }</label>
                }
                <button id="generate" onclick={on_edit.reform(|_| WorkloadMsg::Generate)}>{ "Generate" }</button>
            </fieldset>
            <div class="drop" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
                <label title="Philly's job log and the job tables of Helios, Acme and Philly (Sia's CSV) know jobs by duration and GPU count: they run profile-free unless a profile is picked after the upload">{ "Trace file (Orrery CSV/JSON, Gavel .trace, Pollux workload CSV, Philly job log, Helios/Acme/Sia Philly CSV) " }<input id="trace-file" type="file" accept=".csv,.json,.trace,.txt" onchange={on_trace} /></label>
                <p class="hint">{ "or drop a file here" }</p>
            </div>
            <TraceFilterBlock filter={exp.trace_filter.clone()} on_edit={on_edit.clone()} />
            { for props.notes.iter().map(|n| html! { <p class="hint workload-note">{ n }</p> }) }
            if let Some(e) = &props.workload_error { <p class="error" id="workload-error">{ e }</p> }
            <label>{ "Profile " }
                <select id="profile-preset" onchange={on_edit.reform(|e: Event| WorkloadMsg::ProfilePreset(select_value(&e)))}>
                    { for presets::PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ p.name }</option> }) }
                    { for presets::ELASTIC_PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ format!("{} (elastic)", p.name) }</option> }) }
                    { for presets::PS_PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ format!("{} (parameter-server)", p.name) }</option> }) }
                    <option value={PROFILE_FREE} selected={profile_name == PROFILE_FREE} title="No profile: every job makes one step per second at its GPU count on any GPU type, so a job of a trace of durations (Philly, Helios, Acme) runs for its traced duration">{ "profile-free (durations as traced)" }</option>
                    if profile_name != PROFILE_FREE && !presets::PROFILES.iter().chain(presets::ELASTIC_PROFILES).chain(presets::PS_PROFILES).any(|p| p.name == profile_name) { <option selected=true disabled=true>{ profile_name.clone() }</option> }
                </select>
            </label>
            <label>{ "Profile file (Orrery JSON/CSV, Gavel throughputs JSON, Orrery elastic-apps JSON) " }<input id="profile-file" type="file" accept=".csv,.json" onchange={on_profile} /></label>
            <label title="A folder with one sub-folder per application holding placements.csv, scalability.csv and validation-<batch>.csv, like the Pollux simulator's traces/ folder (Sia's adds placements-<type>.csv and scalability-<type>.csv per GPU type); or DL2's folder with models.csv and speed_function.csv">{ "Pollux or Sia application folders, or DL2's profile folder " }<input id="profile-folder" type="file" webkitdirectory=true multiple=true onchange={on_folder} /></label>
            if let Some(types) = &props.profile_types { <p class="hint" id="profile-types">{ format!("The profile knows {types}.") }</p> }
            if let Some(t) = &props.job_types { { job_types(t) } }
            if let Some(e) = &props.profile_error { <p class="error" id="profile-error">{ e }</p> }
        </section>
    }
}

/// The profile's job types as a table: name, then the speed on each GPU type.
fn job_types(t: &JobTypes) -> Html {
    html! {
        <details class="job-types" id="job-types" data-count={t.rows.len().to_string()}>
            <summary>{ format!("The profile's {} {} (speed per GPU type)", t.rows.len(), t.kind) }</summary>
            <table class="job-types" id="job-types-table">
                <thead><tr><th>{ "name" }</th>{ for t.gpu_types.iter().map(|g| html! { <th>{ g }</th> }) }</tr></thead>
                <tbody>
                { for t.rows.iter().map(|(name, speeds)| html! {
                    <tr data-job-type={name.clone()}>
                        <td>{ name }</td>
                        { for speeds.iter().map(|v| html! { <td>{ v.map_or_else(|| "—".to_string(), |x| if x >= 100.0 { format!("{x:.0}") } else { format!("{x:.2}") }) }</td> }) }
                    </tr>
                }) }
                </tbody>
            </table>
            <p class="hint">{ format!("Speeds in {}; a trace's job types must be among these names.", t.unit) }</p>
        </details>
    }
}
