//! An experiment's restart model: the one model every mechanism charges
//! ([`RestartModel`], built from the experiment's fields), and what the page and the CLI
//! call it ([`RestartKind`]).
//!
//! An experiment has one: no cost (Gavel), a fixed delay per change (Pollux), a delay per
//! job type or application (Sia), or PickyMan's drain, checkpoint and reload. Gavel-
//! compatible mode charges nothing, as Gavel does. PickyMan's model makes the experiment
//! preemptive; PickyMan's mechanism charges it to every policy (in experiments of another
//! model, PickyMan runs with its default settings).

use super::{Experiment, ExperimentError};
use crate::model::job::JobSpec;
use crate::model::restart::{PreemptionConfig, RestartModel, MAX_RESTART_S};
use serde::Serialize;
use std::collections::BTreeMap;

/// What an experiment's restart model is called, with its settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RestartKind {
    /// Starts and changes cost nothing (Gavel).
    None,
    /// Every start and change costs `seconds` (Pollux).
    Fixed {
        /// The delay (s).
        seconds: f64,
    },
    /// Every start and change costs the job type's (application's) own delay, `default_s`
    /// for types not listed (Sia).
    PerType {
        /// The delay of types not listed (s).
        default_s: f64,
        /// Delays by job type or application (s).
        seconds: BTreeMap<String, f64>,
    },
    /// Suspensions train to the epoch's end and write a checkpoint; resumptions reload
    /// (PickyMan).
    Checkpoint(PreemptionConfig),
}

impl RestartKind {
    /// Short name (`none`, `fixed`, `per_type`, `checkpoint`).
    pub fn name(&self) -> &'static str {
        match self {
            RestartKind::None => "none",
            RestartKind::Fixed { .. } => "fixed",
            RestartKind::PerType { .. } => "per_type",
            RestartKind::Checkpoint(_) => "checkpoint",
        }
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        match self {
            RestartKind::None => "none: starts and changes cost nothing (Gavel)".into(),
            RestartKind::Fixed { seconds } => {
                format!("fixed: every start and change of a job's GPUs costs {seconds} s (Pollux)")
            }
            RestartKind::PerType { default_s, seconds } => {
                let list: Vec<String> = seconds.iter().map(|(t, s)| format!("{t} {s} s")).collect();
                format!(
                    "per type: every start and change costs the job type's delay ({}; others {default_s} s) (Sia)",
                    list.join(", ")
                )
            }
            RestartKind::Checkpoint(c) => format!(
                "checkpoint: a suspension trains to the epoch's end and writes a checkpoint at {} GB/s, a resumption reloads at {} GB/s (PickyMan)",
                c.write_gbps, c.read_gbps
            ),
        }
    }
}

impl Experiment {
    /// The restart model every mechanism charges: `restart_cost_s` for jobs without a
    /// delay of their own (`restart_by_type` gives theirs: resolution puts them on the jobs),
    /// and PickyMan's checkpoint model when `preemption` is set.
    pub fn restart_model(&self) -> RestartModel {
        RestartModel {
            delay_s: self.restart_cost_s,
            checkpoint: self.preemption,
        }
    }

    /// The restart model in one line for people, as the page and the CLI show it: none in
    /// the Gavel- and DL2-compatible modes, which charge nothing.
    pub fn restart_description(&self) -> String {
        if self.gavel_compat {
            "none (Gavel-compatible mode)".into()
        } else if self.dl2_compat {
            "none (DL2-compatible mode)".into()
        } else {
            self.restart_kind().describe()
        }
    }

    /// What the experiment's restart model is called, from its fields: `preemption`
    /// (checkpoint), `restart_by_type` (per type, `restart_cost_s` for the others),
    /// `restart_cost_s`.
    pub fn restart_kind(&self) -> RestartKind {
        if let Some(c) = self.preemption {
            RestartKind::Checkpoint(c)
        } else if !self.restart_by_type.is_empty() {
            RestartKind::PerType {
                default_s: self.restart_cost_s,
                seconds: self.restart_by_type.clone(),
            }
        } else if self.restart_cost_s > 0.0 {
            RestartKind::Fixed {
                seconds: self.restart_cost_s,
            }
        } else {
            RestartKind::None
        }
    }

    /// Check the per-type delays and give each job of a listed type its own.
    pub(super) fn apply_restart_delays(&self, jobs: &mut [JobSpec]) -> Result<(), ExperimentError> {
        for (t, &s) in &self.restart_by_type {
            if !(s.is_finite() && (0.0..=MAX_RESTART_S).contains(&s)) {
                return Err(ExperimentError::Invalid(format!(
                    "restart_by_type '{t}': {s} must be between 0 and 86,400 s"
                )));
            }
        }
        for j in jobs.iter_mut() {
            j.restart_s = self.restart_by_type.get(&j.job_type).copied();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_named_from_the_fields() {
        let mut e = Experiment {
            preemption: None,
            restart_cost_s: 0.0,
            ..Experiment::default()
        };
        assert_eq!(e.restart_kind(), RestartKind::None);
        e.restart_cost_s = 30.0;
        assert_eq!(e.restart_kind(), RestartKind::Fixed { seconds: 30.0 });
        e.restart_by_type.insert("cifar10".into(), 50.0);
        assert_eq!(e.restart_kind().name(), "per_type");
        assert!(e
            .restart_kind()
            .describe()
            .contains("cifar10 50 s; others 30 s"));
        assert_eq!(e.restart_model(), RestartModel::delay(30.0));
        e.preemption = Some(PreemptionConfig::default());
        assert_eq!(e.restart_kind().name(), "checkpoint");
        assert_eq!(e.restart_model().checkpoint, e.preemption);
    }
}
