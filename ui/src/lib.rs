//! The web playground (Yew): load and edit a workload, a cluster and policies; step through
//! rounds; compare policies in a Web Worker; share the whole experiment as a link.
//! Charts read result series only; no user-supplied text is ever inserted as HTML.
//!
//! One component, the App (`app/`), holds the experiment as the one state (and the mechanism
//! it runs in, from its resolution), and owns the comparison's worker and results, the
//! stepping run and DL2's training. Every panel is a component of its own (`panels/`): it
//! shows what its props give it and reports edits as messages for the App.

//!
//! A crate of its own on the `orrery` core, which it reads and never the other way round;
//! it compiles to nothing natively.

#![cfg(target_arch = "wasm32")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod charts;
pub mod plot;
pub mod trace_charts;
pub mod worker;

mod app;
mod events;
mod files;
mod network;
mod panels;
mod shared;
mod stepper;
mod wire;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Share links longer than this (characters) get a warning: some tools cut long links.
pub const LONG_LINK_LEN: usize = 100_000;

/// Largest share link the page makes (characters): browsers refuse longer addresses.
pub const MAX_LINK_LEN: usize = 2_000_000;

/// Cluster presets of the cluster panel.
pub const CLUSTER_PRESETS: [(&str, &str); 3] = [
    ("36:36:36 (Gavel)", "v100:36,p100:36,k80:36"),
    ("8:8:8 (Gavel)", "v100:8,p100:8,k80:8"),
    (
        "modern A100/H100 mix",
        "h100:16/8@6.98,a100:32/8@3.67,v100:16/4@2.48",
    ),
];

/// Mount the app on the page's body.
pub fn start() {
    console_error_panic_hook::set_once();
    mark("orrery:start");
    worker::adopt_early_worker();
    yew::Renderer::<app::App>::new().render();
}

/// Milliseconds since the page opened (0 without a window).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The value of the input an event came from.
fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

/// Whether the checkbox an event came from is ticked.
fn input_checked(e: &Event) -> bool {
    e.target_unchecked_into::<HtmlInputElement>().checked()
}

/// The value of the select an event came from.
fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

/// A browser error's message for people (never its debug form).
fn js_text(e: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    e.dyn_ref::<js_sys::Error>()
        .map(|err| String::from(err.message()))
        .or_else(|| e.as_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "the browser gave no reason".into())
}

/// Seconds as hours, two decimals.
fn hours(s: f64) -> String {
    format!("{:.2}", s / 3600.0)
}

/// A job's colour in the stepping views.
fn job_colour(j: orrery::model::job::JobId) -> String {
    format!("hsl({}, 65%, 55%)", (j * 137) % 360)
}

/// A mark on the page's performance timeline, once per name (tests/browser/bench.mjs
/// reads them).
fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        if p.get_entries_by_name(name).length() == 0 {
            let _ = p.mark(name);
        }
    }
}
