//! What a person types, checked: the generator's fields (a refused value says why, next to
//! its field), and whether a key belongs to the control that has the focus.

use crate::workload::GeneratorConfig;
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
    let target = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
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
pub const GENERATOR_FIELDS: [(&str, &str, &str); 4] = [
    ("num_jobs", "gen-jobs", "jobs"),
    ("jobs_per_hour", "gen-rate", "jobs/hour"),
    ("seed", "gen-seed", "seed"),
    ("duration_scale", "gen-duration-scale", "durations ×"),
];

/// The id of a generator field's input (its message is `<id>-error`).
pub fn generator_field_id(field: &str) -> &'static str {
    GENERATOR_FIELDS
        .iter()
        .find(|f| f.0 == field)
        .map_or("gen-other", |f| f.1)
}

/// Set generator field `field` to the typed `v`, or say why the value is refused (the
/// setting keeps its value, named in the message).
pub(super) fn set_generator_field(
    g: &mut GeneratorConfig,
    field: &str,
    v: &str,
) -> Result<(), String> {
    let v = v.trim();
    match field {
        "num_jobs" => match v.parse::<usize>() {
            Ok(n) if (1..=1_000_000).contains(&n) => {
                g.num_jobs = n;
                Ok(())
            }
            _ => Err(format!(
                "'{v}' is refused: the generator makes 1 to 1,000,000 jobs, a whole number (kept {}).",
                g.num_jobs
            )),
        },
        "jobs_per_hour" => match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => {
                g.jobs_per_hour = x;
                Ok(())
            }
            _ => Err(format!(
                "'{v}' is refused: jobs per hour must be 0 or more (0 puts every job at t = 0) (kept {}).",
                g.jobs_per_hour
            )),
        },
        "seed" => match v.parse::<u64>() {
            Ok(x) => {
                g.seed = x;
                Ok(())
            }
            _ => Err(format!(
                "'{v}' is refused: the seed is a whole number, 0 or more (kept {}).",
                g.seed
            )),
        },
        "duration_scale" => match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 && x <= 100.0 => {
                g.duration_scale = x;
                Ok(())
            }
            _ => Err(format!(
                "'{v}' is refused: the durations factor must be above 0 and at most 100 (kept {}).",
                g.duration_scale
            )),
        },
        "multi_gpu" => {
            g.multi_gpu = v == "true";
            Ok(())
        }
        _ => {
            g.priority_weights = v == "true";
            Ok(())
        }
    }
}

/// A refused value: its field, why, and what was typed (the field keeps showing it).
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    /// The field's id.
    pub id: &'static str,
    /// Why the value was refused.
    pub why: String,
    /// The value as typed.
    pub typed: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_generator_values_say_why_and_keep_the_setting() {
        let mut g = GeneratorConfig::default();
        let before = g.clone();
        for (field, bad) in [
            ("num_jobs", "0"),
            ("num_jobs", "2.5"),
            ("num_jobs", "1000001"),
            ("num_jobs", ""),
            ("jobs_per_hour", "-1"),
            ("jobs_per_hour", "inf"),
            ("seed", "-3"),
            ("duration_scale", "0"),
            ("duration_scale", "101"),
        ] {
            let e = set_generator_field(&mut g, field, bad).unwrap_err();
            assert!(e.contains("refused") && e.contains("kept"), "{field}: {e}");
            assert!(!e.contains(field), "internal name in '{e}'");
        }
        assert_eq!(g, before);
        set_generator_field(&mut g, "num_jobs", " 1000000 ").unwrap();
        set_generator_field(&mut g, "jobs_per_hour", "0").unwrap();
        set_generator_field(&mut g, "duration_scale", "0.1").unwrap();
        assert_eq!(
            (g.num_jobs, g.jobs_per_hour, g.duration_scale),
            (1_000_000, 0.0, 0.1)
        );
    }

    #[test]
    fn a_field_has_one_message_at_most() {
        let mut f = Vec::new();
        set_field_error(&mut f, "seed", "-1", Some("a".into()));
        set_field_error(&mut f, "seed", "-2", Some("b".into()));
        set_field_error(&mut f, "round", "0", Some("c".into()));
        let ids = |f: &[Refused]| {
            f.iter()
                .map(|r| (r.id, r.why.clone(), r.typed.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ids(&f),
            vec![
                ("seed", "b".to_string(), "-2".to_string()),
                ("round", "c".to_string(), "0".to_string())
            ]
        );
        set_field_error(&mut f, "seed", "3", None);
        assert_eq!(ids(&f).len(), 1);
    }
}
