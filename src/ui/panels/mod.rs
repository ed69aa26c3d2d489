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

use super::files::download_canvas;
use yew::prelude::*;

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

/// A table header of glossary term `key` ([`crate::metrics::glossary`]): its label, with the
/// term's text as tooltip and accessible description.
fn th(key: &'static str) -> Html {
    match crate::metrics::glossary::term(key) {
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
