//! The page's panels, one component each. A panel shows what its props give it (the
//! experiment, the mechanism it runs in, the results...) and reports edits through its
//! callbacks as messages for the App; panels with charts draw them once rendered, when what
//! they chart changed.
//!
//! Left column: [`workload`] (with the [`filter`]), [`import`] (with the [`pai`] block),
//! [`cluster`], [`policies`], [`settings`], [`pool`], [`preemption`], [`dl2`] and
//! [`faults`]. Main column: [`results`], [`fault_results`], [`pool_results`],
//! [`preemption_results`], [`elastic`], [`training`], [`trace_shape`] and [`stepper`] (with
//! one view per simulator in [`state`]), and [`sweep`].

pub mod cluster;
pub mod dl2;
pub mod elastic;
pub mod fault_results;
pub mod faults;
pub mod filter;
pub mod import;
pub mod pai;
pub mod policies;
pub mod pool;
pub mod pool_results;
pub mod preemption;
pub mod preemption_results;
pub mod results;
pub mod settings;
pub mod state;
pub mod stepper;
pub mod sweep;
pub mod trace_shape;
pub mod training;
pub mod workload;

use super::plot::{export, Format};
use crate::events::Refused;
use yew::prelude::*;

/// A refused value's message, next to its field `id` (id `<id>-error`), if it has one.
fn field_note(fields: &[Refused], id: &str) -> Html {
    match fields.iter().find(|f| f.id == id) {
        Some(f) => html! {
            <span class="field-error" id={format!("{id}-error")} role="alert">{ f.why.clone() }</span>
        },
        None => html! {},
    }
}

/// Whether field `id` has a refused value (for `aria-invalid`).
fn invalid(fields: &[Refused], id: &str) -> &'static str {
    if fields.iter().any(|f| f.id == id) {
        "true"
    } else {
        "false"
    }
}

/// What field `id` shows: the refused value as typed, else `value`.
fn shown(fields: &[Refused], id: &str, value: String) -> String {
    fields
        .iter()
        .find(|f| f.id == id)
        .map_or(value, |f| f.typed.clone())
}

/// A chart: its canvas (id `chart-<name>`, as wide as its container; the chart sets its
/// height) and buttons that download it as PNG and as SVG; a wide chart's figure spans the
/// column.
fn chart(name: &'static str, canvas: &NodeRef, wide: bool) -> Html {
    let id = format!("chart-{name}");
    let button = |format: Format, label: &'static str, class: &'static str| {
        let id = id.clone();
        let on = Callback::from(move |_: MouseEvent| {
            if let Err(e) = export(&id, name, format) {
                web_sys::console::warn_1(&e.into());
            }
        });
        html! { <button class={class} title={format!("Download this chart as {label}")} onclick={on}>{ label }</button> }
    };
    html! {
        <figure class={classes!("chart", wide.then_some("wide-chart"))} data-chart={name}>
            <canvas id={id.clone()} ref={canvas.clone()} />
            <span class="export">{ button(Format::Png, "PNG", "png") }{ button(Format::Svg, "SVG", "svg") }</span>
            if let Some(a) = orrery::view::glossary::chart_axes(name) {
                <figcaption class="axes">
                    { "across: " }<abbr title={a.across.1} aria-description={a.across.1} data-axis="x">{ a.across.0 }</abbr>
                    { " · up: " }<abbr title={a.up.1} aria-description={a.up.1} data-axis="y">{ a.up.0 }</abbr>
                </figcaption>
            }
        </figure>
    }
}

/// A table header of glossary term `key` ([`orrery::view::glossary`]): its label, with the
/// term's text as tooltip and accessible description.
fn th(key: &'static str) -> Html {
    match orrery::view::glossary::term(key) {
        Some(t) => html! {
            <th title={t.text} aria-description={t.text} data-term={key}>{ t.label }</th>
        },
        None => html! { <th>{ key }</th> },
    }
}

/// The headers of the glossary terms `keys`.
fn ths(keys: &[&'static str]) -> Html {
    html! { <>{ for keys.iter().map(|k| th(k)) }</> }
}

/// A collapsible "what am I looking at": a few plain sentences about a panel.
fn intro(id: &'static str, text: &'static str) -> Html {
    html! {
        <details class="intro" id={format!("intro-{id}")}>
            <summary>{ "What am I looking at?" }</summary>
            <p>{ text }</p>
        </details>
    }
}
