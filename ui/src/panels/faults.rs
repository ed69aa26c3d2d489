//! The "Failures & spot" settings panel: how often servers fail (Llama 3's rate a click
//! away) and how long they are away, how jobs checkpoint, when every run stops, the mix of
//! causes a failure is drawn from (Llama 3's Table 5 unless edited), and per GPU type a spot
//! capacity trace to upload, with what the trace holds.

use super::{field_note, invalid, shown};
use crate::events::{FaultsMsg, Refused};
use crate::files::{chosen_file, read_text, FileText};
use crate::input_value;
use crate::shared::Shared;
use orrery::experiment::{Experiment, SpotSource};
use orrery::model::cluster::ClusterSpec;
use orrery::model::failure::checkpoint::{daly_interval, Interval};
use orrery::model::failure::{Domain, Faults, DAY_S, LLAMA3_RATE};
use orrery::model::spot::CapacityTrace;
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment.
    pub exp: Shared<Experiment>,
    /// Refused values.
    pub fields: Vec<Refused>,
    /// The panel's last error.
    pub error: Option<String>,
    /// A spot trace's last error: its GPU type and why.
    pub spot_error: Option<(String, String)>,
    /// Edits.
    pub on_edit: Callback<FaultsMsg>,
}

/// Seconds for people: "45 s", "10.0 min", "3.09 h", "54.0 d".
pub fn span(s: f64) -> String {
    if !s.is_finite() {
        "never".into()
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 2.0 * DAY_S {
        format!("{:.2} h", s / 3600.0)
    } else {
        format!("{:.1} d", s / DAY_S)
    }
}

/// What a spot trace holds, for people and tests.
pub struct TraceSummary {
    /// Steps of the trace (changes of the count, or ticks).
    pub steps: usize,
    /// Hours it spans.
    pub hours: f64,
    /// Instance-hours available.
    pub instance_hours: f64,
    /// Times the trace takes instances back (preemptions) and the instances lost in all,
    /// removals at the time of additions included.
    pub preemptions: (u32, u64),
    /// The fewest and most instances held.
    pub range: (u32, u32),
}

impl TraceSummary {
    /// The summary of trace `t`.
    pub fn of(t: &CapacityTrace) -> Self {
        let counts = t.steps.iter().map(|s| s.1);
        TraceSummary {
            steps: t.steps.len(),
            hours: t.end_s / 3600.0,
            instance_hours: t.instance_hours(),
            preemptions: t.removals(),
            range: (counts.clone().min().unwrap_or(0), counts.max().unwrap_or(0)),
        }
    }
}

/// A GPU type's spot row: its file input, and the trace's summary or why it was refused.
fn spot_row(
    ty: &str,
    per_server: u32,
    src: Option<&SpotSource>,
    error: Option<&String>,
    on_edit: &Callback<FaultsMsg>,
) -> Html {
    let on_file = {
        let t = ty.to_string();
        let done = on_edit.reform(move |read: FileText| match read {
            Ok((name, text)) => FaultsMsg::SpotFile(t.clone(), name, text),
            Err(e) => FaultsMsg::SpotFileError(t.clone(), e),
        });
        Callback::from(move |e: Event| {
            if let Some(f) = chosen_file(&e) {
                read_text(f, done.clone());
            }
        })
    };
    let remove = {
        let t = ty.to_string();
        on_edit.reform(move |_: MouseEvent| FaultsMsg::SpotRemove(t.clone()))
    };
    let summary = src.map(|s| {
        (
            s,
            CapacityTrace::parse(&s.text).map(|t| TraceSummary::of(&t)),
        )
    });
    html! {
        <div class="spot-type" data-type={ty.to_string()}>
            <label title="SkyPilot's spot-traces JSON ({\"metadata\": {\"gap_seconds\": g}, \"data\": [instances, ...]}) or Parcae's CSV (time_ms,add|remove,node): instances of this type's servers held over time">
                { format!("{ty} ({per_server} GPUs per instance) ") }
                <input id={format!("spot-file-{ty}")} type="file" accept=".json,.csv,.txt" onchange={on_file} />
            </label>
            { match summary {
                Some((s, Ok(t))) => html! {
                    <p class="hint spot-summary" id={format!("spot-{ty}-summary")} data-steps={t.steps.to_string()}
                        data-instance-hours={t.instance_hours.to_string()} data-preemptions={t.preemptions.0.to_string()}>
                        { format!("'{}': {} steps over {:.2} h, {:.3} instance-hours, {} preemptions ({} instances lost), {} to {} instances held. ",
                            s.name, t.steps, t.hours, t.instance_hours, t.preemptions.0, t.preemptions.1, t.range.0, t.range.1) }
                        <button id={format!("spot-remove-{ty}")} onclick={remove}>{ "Remove" }</button>
                    </p>
                },
                Some((s, Err(e))) => html! { <p class="error">{ format!("'{}': {e}", s.name) }</p> },
                None => html! {},
            } }
            if let Some(e) = error { <p class="error" id={format!("spot-{ty}-error")}>{ e }</p> }
        </div>
    }
}

/// The causes in use with their weights (editable when the experiment has failures) and
/// shares.
fn causes(faults: Option<&Faults>, on_edit: &Callback<FaultsMsg>) -> Html {
    let list = faults.map_or_else(orrery::model::failure::llama3_causes, |f| {
        f.failures.causes()
    });
    let total: f64 = list.iter().map(|c| c.weight).sum();
    let own = faults.is_some_and(|f| !f.failures.causes.is_empty());
    let mut by_category: Vec<(String, f64)> = Vec::new();
    for c in &list {
        match by_category.iter_mut().find(|(k, _)| *k == c.category) {
            Some(k) => k.1 += c.weight,
            None => by_category.push((c.category.clone(), c.weight)),
        }
    }
    let share = |w: f64| {
        if total > 0.0 {
            format!("{:.1}%", 100.0 * w / total)
        } else {
            "—".into()
        }
    };
    let categories = by_category
        .iter()
        .map(|(k, w)| format!("{k} {}", share(*w)))
        .collect::<Vec<_>>()
        .join(", ");
    html! {
        <details class="fault-causes" id="fault-causes" data-own={own.to_string()}>
            <summary>{ if own { format!("Causes: {} of your own mix", list.len()) } else { "Causes: Llama 3's Table 5 (419 interruptions in 54 days)".to_string() } }</summary>
            <p class="hint" id="fault-categories">{ format!("By category: {categories}.") }</p>
            <div class="table-x">
            <table class="fault-causes-table">
                <thead><tr><th>{ "cause" }</th><th>{ "category" }</th><th>{ "weight" }</th><th>{ "share" }</th></tr></thead>
                <tbody>
                { for list.iter().enumerate().map(|(i, c)| html! {
                    <tr data-cause={c.name.clone()}>
                        <td>{ &c.name }</td><td>{ &c.category }</td>
                        <td><input id={format!("fault-cause-{i}")} class="num" type="number" min="0" step="1" value={c.weight.to_string()} disabled={faults.is_none()}
                            onchange={on_edit.reform(move |e: Event| FaultsMsg::Cause(i, input_value(&e)))} /></td>
                        <td>{ share(c.weight) }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
            if own { <button id="fault-causes-llama3" onclick={on_edit.reform(|_| FaultsMsg::Llama3Causes)}>{ "Back to Llama 3's mix" }</button> }
            if faults.is_none() { <p class="hint">{ "Set a failure rate to edit the weights." }</p> }
        </details>
    }
}

/// What the failure rate means on this cluster: per 1,000 server-days, a server's mean time
/// to failure, the cluster's failures per day, and the checkpoint interval in use.
fn meaning(f: &Faults, servers: u32) -> String {
    let m = &f.failures;
    let rate = m.per_server_day;
    let every = match f.checkpoint.interval {
        Interval::Every(s) => format!("checkpoints every {}", span(s)),
        Interval::Auto => format!(
            "checkpoints at Daly's optimum: {} for a one-server job, {} for a job on all {servers} servers",
            span(daly_interval(f.checkpoint.write_s, m.mttf_s(1))),
            span(daly_interval(f.checkpoint.write_s, m.mttf_s(servers)))
        ),
    };
    if rate <= 0.0 {
        return format!("Servers never fail; {every} cost their writes.");
    }
    format!(
        "{:.3} per 1,000 server-days: a server fails every {} on average, the cluster's {servers} servers {:.2} times a day (a job on all of them every {}); {every}.",
        rate * 1000.0,
        span(DAY_S / rate),
        rate * f64::from(servers),
        span(m.mttf_s(servers)),
    )
}

/// The "Failures & spot" settings panel.
#[function_component]
pub fn FaultsSettings(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let exp = &props.exp;
    let f = props.fields.as_slice();
    let faults = exp.faults.as_ref();
    let cluster = ClusterSpec::parse(&exp.cluster).ok();
    let servers: u32 = cluster.as_ref().map_or(0, |c| {
        c.types
            .iter()
            .map(|t| t.count.div_ceil(t.per_server.max(1)))
            .sum()
    });
    let field = |key: &'static str,
                 id: &'static str,
                 label: &str,
                 value: String,
                 placeholder: &'static str,
                 title: &'static str| {
        html! {
            <label title={title}>{ format!("{label} ") }
                <input id={id} class="num" type="text" inputmode="decimal" placeholder={placeholder} aria-invalid={invalid(f, id)}
                    value={shown(f, id, value)} onchange={on_edit.reform(move |e: Event| FaultsMsg::Field(key, input_value(&e)))} />
                { field_note(f, id) }
            </label>
        }
    };
    let value = |g: &dyn Fn(&Faults) -> String| faults.map(g).unwrap_or_default();
    let spot_error = |ty: &str| {
        props
            .spot_error
            .as_ref()
            .filter(|(t, _)| t == ty)
            .map(|(_, e)| e)
    };
    html! {
        <section class="panel" id="faults-panel">
            <h2>{ "Failures & spot" }</h2>
            { super::intro("faults", "Large training jobs meet hardware failures: every server fails now and then (Llama 3 saw 419 interruptions in 54 days on 2,048 servers). A failure stops the jobs on the server and takes back their work since their last checkpoint; checkpoints cost a blocking write each. Spot GPUs come and go as the cloud takes its instances back: a trace says how many a GPU type holds over time.") }
            <p class="current" id="faults-label">{ exp.faults_description().map_or_else(|| "Servers never fail.".to_string(), |d| format!("{d}.")) }
                { exp.until_s.map(|u| format!(" Every run stops at {}.", span(u))).unwrap_or_default() }</p>
            <div class="presets">
                <button id="faults-llama3" title={format!("419 failures over 2,048 servers and 54 days: {:.3} per 1,000 server-days", LLAMA3_RATE * 1000.0)}
                    onclick={on_edit.reform(|_| FaultsMsg::Llama3)}>{ "Llama 3's rate" }</button>
                <button id="faults-off" disabled={faults.is_none()} onclick={on_edit.reform(|_| FaultsMsg::Off)}>{ "No failures" }</button>
            </div>
            { field("rate", "fault-rate", "failures per server-day", value(&|x| x.failures.per_server_day.to_string()), "none", "Each server fails as a Poisson process of this rate, the same failures for every policy (Llama 3: 0.003789)") }
            if let Some(x) = faults { <p class="hint" id="fault-meaning">{ meaning(x, servers) }</p> }
            { field("repair", "fault-repair", "repair time (s)", value(&|x| x.failures.repair_s.to_string()), "0", "Seconds a failed server is away; 0: a spare takes its place at once") }
            <label title="What a failure takes: its whole server (every job on it stops), or for a GPU cause one GPU of it, drawn uniformly (only the job on it stops; with a repair time only that GPU is away)">{ "a failure takes " }
                <select id="fault-domain" onchange={on_edit.reform(|e: Event| FaultsMsg::Field("domain", input_value(&e)))}>
                    { for [Domain::Server, Domain::Gpu].iter().map(|d| html! {
                        <option value={d.name()} selected={faults.map_or(Domain::Server, |x| x.failures.domain) == *d}>
                            { if *d == Domain::Server { "its server" } else { "one GPU (GPU causes)" } }
                        </option>
                    }) }
                </select>
                { field_note(f, "fault-domain") }
            </label>
            { field("checkpoint", "fault-checkpoint", "checkpoint every (s or auto)", value(&|x| match x.checkpoint.interval { Interval::Every(s) => s.to_string(), Interval::Auto => "auto".into() }), "3600", "Seconds of computation between a job's checkpoints, or auto: Daly's optimum for the job's own mean time to failure") }
            { field("write", "fault-write", "checkpoint write (s)", value(&|x| x.checkpoint.write_s.to_string()), "0", "Seconds each checkpoint write blocks its job (0: written in the background)") }
            { field("until", "fault-until", "stop at (s)", exp.until_s.map(|u| u.to_string()).unwrap_or_default(), "the end", "Stop every run at this time, its jobs left unfinished (seconds, or 12h, 54d)") }
            { causes(faults, on_edit) }
            <fieldset id="spot">
                <legend>{ "Spot capacity" }</legend>
                <p class="hint">{ "A GPU type whose capacity follows a trace: GPUs of instances the trace does not hold are not placed, jobs on them are preempted and restart elsewhere, and an idle cluster waits for capacity to come back." }</p>
                { field("warning", "spot-warning", "spot warning (s)", exp.spot_warning_s.map(|w| w.to_string()).unwrap_or_default(), "120", "Seconds of warning before the cloud takes a spot instance back (AWS: 120): a job whose checkpoint write fits in it loses only that write's work, else its work since its last checkpoint") }
                { for cluster.iter().flat_map(|c| c.types.iter()).map(|t| spot_row(&t.name, t.per_server.max(1), exp.spot.get(&t.name), spot_error(&t.name), on_edit)) }
            </fieldset>
            if let Some(e) = &props.error { <p class="error" id="faults-error">{ e }</p> }
        </section>
    }
}
