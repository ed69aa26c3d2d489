//! What a person types: refused values (each shown with its message next to its field), the
//! generator's fields, and whether a key belongs to the control that has the focus.

use crate::events::Refused;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

/// Elements whose keys are their own: the page's shortcuts leave them alone.
const CONTROLS: &str =
    "input, select, textarea, button, a[href], summary, [contenteditable], [tabindex]";

/// Whether the key event's target, or the element that has the focus, is (inside) a
/// control.
pub(super) fn focus_in_control(e: &KeyboardEvent) -> bool {
    let in_control = |el: Option<web_sys::Element>| {
        el.is_some_and(|el| el.closest(CONTROLS).ok().flatten().is_some())
    };
    let target = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element());
    in_control(target) || in_control(active)
}

/// Take the focus from the control that has it.
pub(super) fn blur_focus() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.blur();
    }
}

/// The generator's fields: (message key, id of the input, name for people).
pub const GENERATOR_FIELDS: [(&str, &str, &str); 6] = [
    ("num_jobs", "gen-jobs", "jobs"),
    ("jobs_per_hour", "gen-rate", "jobs/hour"),
    ("seed", "gen-seed", "seed"),
    ("duration_scale", "gen-duration-scale", "durations ×"),
    ("dl2", "gen-dl2", "DL2's generator"),
    ("dl2_trace", "gen-dl2-trace", "trace"),
];

/// The id of a generator field's input (its message is `<id>-error`).
pub fn generator_field_id(field: &str) -> &'static str {
    GENERATOR_FIELDS
        .iter()
        .find(|f| f.0 == field)
        .map_or("gen-other", |f| f.1)
}

/// Put field `id`'s refusal of `typed` (or take it away, for `None`).
pub(super) fn set_field_error(
    fields: &mut Vec<Refused>,
    id: &'static str,
    typed: &str,
    why: Option<String>,
) {
    fields.retain(|f| f.id != id);
    if let Some(why) = why {
        fields.push(Refused {
            id,
            why,
            typed: typed.to_string(),
        });
    }
}
