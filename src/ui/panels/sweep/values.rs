//! What a sweep varies and the values typed for it: parsed, sorted, without repeats; and
//! the values suggested for an experiment.

use crate::experiment::Experiment;
use crate::ui::plot;

/// Most values a sweep takes.
const MAX_VALUES: usize = 12;

/// The checkpoint intervals suggested (s).
pub(super) const INTERVALS: &str = "300, 600, 900, 1200, 1800, 2400, 3600";

/// Values suggested for an experiment: around its rate (or load factor).
pub(super) fn suggested(exp: &Experiment) -> String {
    let x = exp.jobs_per_hour().unwrap_or(exp.load_factor);
    [0.5, 1.0, 1.5, 2.0]
        .iter()
        .map(|m| plot::axis::short(m * x))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parse the values typed: positive numbers, sorted, without repeats.
pub(super) fn parse_values(text: &str) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        match part.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => v.push(x),
            _ => return Err(format!("{part:?} is not a positive number")),
        }
    }
    crate::order::sort_floats(&mut v);
    v.dedup();
    if v.is_empty() {
        return Err("give at least one value".into());
    }
    if v.len() > MAX_VALUES {
        return Err(format!("at most {MAX_VALUES} values"));
    }
    Ok(v)
}
