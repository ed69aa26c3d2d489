//! The page's panels, one component each. A panel shows what its props give it (the
//! experiment, the mechanism it runs in, the results...) and reports edits through its
//! callbacks as messages for the App; panels with charts draw them once rendered, when what
//! they chart changed.
//!
//! Left column: [`workload`] (with the [`filter`] and the [`pai`] import), [`cluster`], [`policies`],
//! [`settings`], [`pool`], [`preemption`] and [`dl2`]. Main column: [`results`],
//! [`pool_results`], [`preemption_results`], [`elastic`], [`training`], [`trace_shape`] and
//! [`stepper`] (with one view per simulator in [`state`]).

pub mod cluster;
pub mod dl2;
pub mod elastic;
pub mod filter;
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
pub mod trace_shape;
pub mod training;
pub mod workload;

use super::app::Refused;
use super::files::download_canvas;
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

/// A chart: its canvas (id `chart-<name>`, `width` × `height`) and a PNG button that
/// downloads it as drawn; a wide chart's figure spans the column.
fn chart(
    name: &'static str,
    width: &'static str,
    height: &'static str,
    canvas: &NodeRef,
    wide: bool,
) -> Html {
    let node = canvas.clone();
    let png = Callback::from(move |_: MouseEvent| download_canvas(&node, name));
    let canvas = html! {
        <canvas id={format!("chart-{name}")} width={width} height={height} ref={canvas.clone()} />
    };
    let button = html! { <button class="png" onclick={png}>{ "PNG" }</button> };
    if wide {
        html! { <figure class="wide-chart">{ canvas }{ button }</figure> }
    } else {
        html! { <figure>{ canvas }{ button }</figure> }
    }
}
