//! The edits of the Failures & spot panel: how often servers fail and how long they are
//! away, how jobs checkpoint, when every run stops, the mix of causes, and the GPU types
//! whose capacity follows a spot trace. Every edit makes a candidate experiment, kept only if
//! it resolves (the resolution checks the settings and reads the traces), so the share link
//! and `orrery compare --link` carry exactly what the panel shows.

use super::inputs::set_field_error;
use super::{App, FaultsMsg};
use orrery::experiment::{Experiment, SpotSource};
use orrery::model::failure::checkpoint::Interval;
use orrery::model::failure::{llama3_causes, Domain, FailureModel, Faults, LLAMA3_RATE};
use orrery::model::spot::CapacityTrace;

/// The panel's fields: (message key, id of the input, name for people).
pub const FIELDS: [(&str, &str, &str); 7] = [
    ("rate", "fault-rate", "failure rate"),
    ("repair", "fault-repair", "repair time"),
    ("domain", "fault-domain", "failure domain"),
    ("checkpoint", "fault-checkpoint", "checkpoint interval"),
    ("write", "fault-write", "checkpoint write time"),
    ("until", "fault-until", "stop time"),
    ("warning", "spot-warning", "spot warning"),
];

/// The id of a field's input (its message is `<id>-error`).
fn field_id(field: &str) -> &'static str {
    FIELDS
        .iter()
        .find(|f| f.0 == field)
        .map_or("fault-other", |f| f.1)
}

/// Seconds from a duration as typed: a number of seconds, or a number followed by `s`,
/// `min`, `h` or `d`.
pub fn parse_duration(text: &str) -> Option<f64> {
    let t = text.trim();
    if let Ok(v) = t.parse::<f64>() {
        return v.is_finite().then_some(v);
    }
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    let v: f64 = number.trim().parse().ok()?;
    let s = v * scale;
    s.is_finite().then_some(s)
}

/// The experiment's failures, or none yet: a rate of 0 with hourly checkpoints (as the CLI
/// makes them when a checkpoint or repair flag comes without `--failures`).
fn faults_of(exp: &Experiment) -> Faults {
    exp.faults.clone().unwrap_or_else(|| Faults {
        failures: FailureModel::with_rate(0.0),
        checkpoint: Default::default(),
    })
}

/// `exp` with field `field` set to `typed`, or why the value is refused (one sentence for
/// the field).
pub fn with_field(exp: &Experiment, field: &str, typed: &str) -> Result<Experiment, String> {
    let t = typed.trim();
    let mut e = exp.clone();
    if field == "until" {
        e.until_s = if t.is_empty() {
            None
        } else {
            match parse_duration(t) {
                Some(s) if s > 0.0 => Some(s),
                _ => return Err(format!("'{typed}' is refused: the stop time is a positive number of seconds (or of min, h, d: 54d), or empty to run to the end.")),
            }
        };
        return Ok(e);
    }
    if field == "warning" {
        e.spot_warning_s = if t.is_empty() {
            None
        } else {
            match parse_duration(t) {
                Some(s) if (0.0..=86_400.0).contains(&s) => Some(s),
                _ => return Err(format!("'{typed}' is refused: the spot warning is a number of seconds from 0 to 86,400 (or of min, h), or empty for AWS's 120 s.")),
            }
        };
        return Ok(e);
    }
    let mut f = faults_of(exp);
    let seconds = |what: &str| {
        parse_duration(t).ok_or_else(|| {
            format!("'{typed}' is refused: the {what} is a number of seconds (or of min, h, d).")
        })
    };
    match field {
        "rate" => {
            f.failures.per_server_day = if t.is_empty() {
                0.0
            } else {
                t.parse().map_err(|_| {
                    format!("'{typed}' is refused: the failure rate is a number of failures per server per day, 0 or more (Llama 3's: {LLAMA3_RATE:.6}).")
                })?
            }
        }
        "repair" => {
            f.failures.repair_s = if t.is_empty() {
                0.0
            } else {
                seconds("repair time")?
            }
        }
        "domain" => {
            f.failures.domain =
                Domain::parse(t).map_err(|why| format!("'{typed}' is refused: {why}."))?
        }
        "checkpoint" => {
            f.checkpoint.interval = if t.eq_ignore_ascii_case("auto") {
                Interval::Auto
            } else if t.is_empty() {
                Interval::Every(3600.0)
            } else {
                Interval::Every(seconds("checkpoint interval")?)
            }
        }
        _ => {
            f.checkpoint.write_s = if t.is_empty() {
                0.0
            } else {
                seconds("checkpoint write time")?
            }
        }
    }
    f.check()
        .map_err(|why| format!("'{typed}' is refused: {why}."))?;
    e.faults = Some(f);
    Ok(e)
}

/// `exp` with the weight of cause `i` (of the causes in use) set to `typed`, or why not;
/// Llama 3's own mix is kept as no list at all.
pub fn with_cause(exp: &Experiment, i: usize, typed: &str) -> Result<Experiment, String> {
    let mut f = faults_of(exp);
    let mut causes = f.failures.causes();
    let name = causes.get(i).map(|c| c.name.clone()).unwrap_or_default();
    let w: f64 = typed
        .trim()
        .parse()
        .ok()
        .filter(|w: &f64| w.is_finite() && *w >= 0.0)
        .ok_or_else(|| {
            format!("{name}: '{typed}' is refused: a cause's weight is a number, 0 or more.")
        })?;
    if let Some(c) = causes.get_mut(i) {
        c.weight = w;
    }
    f.failures.causes = if causes == llama3_causes() {
        Vec::new()
    } else {
        causes
    };
    f.check()
        .map_err(|why| format!("{name}: '{typed}' is refused: {why}."))?;
    let mut e = exp.clone();
    e.faults = Some(f);
    Ok(e)
}

impl App {
    /// An edit of the Failures & spot panel.
    pub(super) fn faults_update(&mut self, msg: FaultsMsg) -> bool {
        match msg {
            FaultsMsg::Field(field, v) => {
                let refused = with_field(&self.exp, field, &v).and_then(|c| self.try_apply(c));
                set_field_error(&mut self.errors.fields, field_id(field), &v, refused.err());
            }
            FaultsMsg::Llama3 => {
                let candidate = with_field(&self.exp, "rate", &LLAMA3_RATE.to_string());
                self.errors.faults = candidate.and_then(|c| self.try_apply(c)).err();
                if self.errors.faults.is_none() {
                    self.errors.fields.retain(|f| f.id != "fault-rate");
                }
            }
            FaultsMsg::Off => {
                let candidate = self.with(|e| e.faults = None);
                self.errors.faults = self.try_apply(candidate).err();
                if self.errors.faults.is_none() {
                    self.errors
                        .fields
                        .retain(|f| !FIELDS.iter().take(4).any(|x| x.1 == f.id));
                }
            }
            FaultsMsg::Cause(i, v) => {
                self.errors.faults = with_cause(&self.exp, i, &v)
                    .and_then(|c| self.try_apply(c))
                    .err();
            }
            FaultsMsg::Llama3Causes => {
                let candidate = self.with(|e| {
                    if let Some(f) = e.faults.as_mut() {
                        f.failures.causes.clear();
                    }
                });
                self.errors.faults = self.try_apply(candidate).err();
            }
            FaultsMsg::SpotFile(ty, name, text) => {
                let refused = match CapacityTrace::parse(&text) {
                    Err(e) => Err(format!("{name}: {e} — the previous trace is kept")),
                    Ok(_) => {
                        let candidate = self.with(|e| {
                            e.spot.insert(ty.clone(), SpotSource { name, text });
                        });
                        self.try_apply(candidate)
                    }
                };
                self.errors.spot = refused.err().map(|e| (ty, e));
            }
            FaultsMsg::SpotFileError(ty, e) => self.errors.spot = Some((ty, e)),
            FaultsMsg::SpotRemove(ty) => {
                let candidate = self.with(|e| {
                    e.spot.remove(&ty);
                });
                self.errors.spot = self.try_apply(candidate).err().map(|e| (ty, e));
            }
        }
        true
    }
}
