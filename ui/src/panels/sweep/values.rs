//! What a sweep varies and the values typed for it: parsed, sorted, without repeats (a
//! checkpoint interval's `auto` last, as `orrery sweep` orders it); and the values
//! suggested for an experiment.

use crate::plot;
use orrery::experiment::Experiment;
use orrery::model::failure::FailureModel;

/// Most values a sweep takes.
const MAX_VALUES: usize = 12;

/// The checkpoint intervals suggested (s).
const INTERVALS: &str = "300, 600, 900, 1200, 1800, 2400, 3600, auto";

/// The failure rates suggested (failures per server-day) for an experiment without any.
const FAILURE_RATES: &str = "0, 1, 2, 4";

/// What the panel sweeps, as picked in its menu.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Choice {
    /// The load: jobs per hour of a generated workload, else the load factor.
    Load,
    /// The checkpoint interval (an experiment with failures).
    Checkpoint,
    /// The failure rate (any experiment).
    Failures,
}

impl Choice {
    /// Its name in the menu and in a sweep link's `axis=` (the load has none there).
    pub(super) fn name(self) -> &'static str {
        match self {
            Choice::Load => "load",
            Choice::Checkpoint => "checkpoint",
            Choice::Failures => "failures",
        }
    }

    /// The choice of `name` ([`Choice::name`]); the load for any other.
    pub(super) fn from_name(name: &str) -> Choice {
        match name {
            "checkpoint" => Choice::Checkpoint,
            "failures" => Choice::Failures,
            _ => Choice::Load,
        }
    }

    /// Whether `exp` can be swept so: the checkpoint interval needs failures.
    pub(super) fn fits(self, exp: &Experiment) -> bool {
        self != Choice::Checkpoint || exp.faults.is_some()
    }
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Axis {
    /// The generator's jobs per hour.
    Rates,
    /// The load factor.
    Loads,
    /// The checkpoint interval (s).
    Checkpoint,
    /// Failures per server-day.
    Failures,
}

impl Axis {
    /// What `choice` sweeps of `exp` (the load when the choice does not fit it).
    pub(super) fn of(choice: Choice, exp: &Experiment) -> Axis {
        match choice {
            Choice::Checkpoint if choice.fits(exp) => Axis::Checkpoint,
            Choice::Failures => Axis::Failures,
            _ if exp.jobs_per_hour().is_some() => Axis::Rates,
            _ => Axis::Loads,
        }
    }

    /// Whether its chart is ETTR (rather than JCT).
    pub(super) fn ettr(self) -> bool {
        matches!(self, Axis::Checkpoint | Axis::Failures)
    }
}

/// One value of a sweep's axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Value {
    /// A number: jobs per hour, a load factor, seconds, failures per server-day.
    Num(f64),
    /// The checkpoint interval `auto`: Daly's for each job's mean time to failure.
    Auto,
}

impl Value {
    /// The number, if it is one.
    pub(super) fn num(self) -> Option<f64> {
        match self {
            Value::Num(x) => Some(x),
            Value::Auto => None,
        }
    }

    /// As a sweep link and the table's `data-value` write it: the number in full, or `auto`.
    pub(super) fn text(self) -> String {
        match self {
            Value::Num(x) => x.to_string(),
            Value::Auto => "auto".into(),
        }
    }

    /// As the table shows it: the number to three significant digits, or `auto`.
    pub(super) fn label(self) -> String {
        match self {
            Value::Num(x) => plot::axis::short(x),
            Value::Auto => "auto".into(),
        }
    }
}

/// Values suggested for sweeping `exp` along `choice`: around its rate (or load factor), the
/// intervals of [`INTERVALS`], or its failure rate from none to twice it.
pub(super) fn suggested(exp: &Experiment, choice: Choice) -> String {
    let around = |x: f64, factors: &[f64]| {
        factors
            .iter()
            .map(|m| {
                let s = plot::axis::short(m * x);
                // Three significant digits, without an exponent: `0.0019`, not `1.9e-3`.
                s.parse::<f64>().map_or(s, |v| v.to_string())
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match Axis::of(choice, exp) {
        Axis::Checkpoint => INTERVALS.to_string(),
        Axis::Failures => match exp.faults.as_ref().map(|f| f.failures.per_server_day) {
            Some(r) if r > 0.0 => around(r, &[0.0, 0.5, 1.0, 2.0]),
            _ => FAILURE_RATES.to_string(),
        },
        _ => around(
            exp.jobs_per_hour().unwrap_or(exp.load_factor),
            &[0.5, 1.0, 1.5, 2.0],
        ),
    }
}

/// One value typed for `axis`, or why it is refused.
fn parse_value(part: &str, axis: Axis) -> Result<Value, String> {
    if axis == Axis::Checkpoint && part.eq_ignore_ascii_case("auto") {
        return Ok(Value::Auto);
    }
    let x = part.parse::<f64>().ok().filter(|x| x.is_finite());
    match (axis, x) {
        (Axis::Failures, Some(x)) if x >= 0.0 => FailureModel::with_rate(x)
            .check()
            .map(|()| Value::Num(x + 0.0)),
        (Axis::Failures, _) => Err(format!(
            "{part:?} is not a number of failures per server-day, 0 or more"
        )),
        (Axis::Checkpoint, Some(x)) if x > 0.0 => Ok(Value::Num(x)),
        (Axis::Checkpoint, _) => Err(format!(
            "{part:?} is neither a positive number of seconds nor auto"
        )),
        (_, Some(x)) if x > 0.0 => Ok(Value::Num(x)),
        _ => Err(format!("{part:?} is not a positive number")),
    }
}

/// Parse the values typed for `axis`: positive numbers (failure rates: 0 or more, as many a
/// day as a failure model takes; checkpoint intervals: or `auto`), sorted, without repeats,
/// `auto` last.
pub(super) fn parse_values(text: &str, axis: Axis) -> Result<Vec<Value>, String> {
    let mut nums = Vec::new();
    let mut auto = false;
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        match parse_value(part, axis)? {
            Value::Num(x) => nums.push(x),
            Value::Auto => auto = true,
        }
    }
    orrery::order::sort_floats(&mut nums);
    nums.dedup();
    let mut v: Vec<Value> = nums.into_iter().map(Value::Num).collect();
    if auto {
        v.push(Value::Auto);
    }
    if v.is_empty() {
        return Err("give at least one value".into());
    }
    if v.len() > MAX_VALUES {
        return Err(format!("at most {MAX_VALUES} values"));
    }
    Ok(v)
}
