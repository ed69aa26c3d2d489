//! What a job pays when it starts on GPUs or its GPUs change: the one restart model every
//! mechanism charges ([`RestartModel`]). It is a delay without progress (none, fixed, or a
//! job type's own, which the job carries as [`crate::model::job::JobSpec::restart_s`]), or
//! PickyMan's drain, checkpoint and reload ([`checkpoint`]).
//!
//! How each mechanism charges it:
//! - rounds, ticks and slots reallocate at their boundaries, where a job is between
//!   steps: a job pays its delay at each start and change of its GPUs (its first start
//!   included), and a delay longer than a round, tick or slot carries on into the next.
//!   Under the checkpoint model, that delay is the job's checkpoint write and reload
//!   ([`RestartModel::change_delay`]).
//! - the preemptive mechanism suspends and resumes at any time ([`RestartModel::job`]):
//!   under a delay, a start or resumption pays the delay and a suspension frees the GPUs at
//!   once; under the checkpoint model, a suspension trains to the epoch's end and writes a
//!   checkpoint, a resumption reloads, and each cost is drawn with the model's noise.

pub mod checkpoint;

use crate::rng::Rng;
pub use checkpoint::{JobOverhead, PreemptionConfig, PreemptionCosts};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Longest restart delay accepted (s).
pub const MAX_RESTART_S: f64 = 86_400.0;

/// A restart setting out of its range.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("experiment:0: field '{field}': {reason}")]
pub struct RestartError {
    /// The setting, as the experiment names it.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

/// The restart model of an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct RestartModel {
    /// The delay of a job that has none of its own (s).
    pub delay_s: f64,
    /// PickyMan's checkpoint model, when suspensions drain, checkpoint and reload.
    pub checkpoint: Option<PreemptionConfig>,
}

impl RestartModel {
    /// A delay of `delay_s` for jobs without their own, no checkpoint model.
    pub fn delay(delay_s: f64) -> Self {
        RestartModel {
            delay_s,
            checkpoint: None,
        }
    }

    /// PickyMan's checkpoint model `config`, no delay for jobs without their own.
    pub fn with_checkpoint(config: PreemptionConfig) -> Self {
        RestartModel {
            delay_s: 0.0,
            checkpoint: Some(config),
        }
    }

    /// The delay of a job with its own delay `own` (None: the model's).
    pub fn delay_of(&self, own: Option<f64>) -> f64 {
        own.unwrap_or(self.delay_s)
    }

    /// Under the checkpoint model, the delay one start or change of GPUs costs a job of a
    /// type with `costs` (None = not profiled) on `scale` GPUs where nothing drains
    /// ([`PreemptionConfig::change_delay`]).
    pub fn change_delay(&self, costs: Option<&PreemptionCosts>, scale: u32) -> Option<f64> {
        self.checkpoint.map(|c| c.change_delay(costs, scale))
    }

    /// The preemptive mechanism's costs of a job of a type with `costs` (None = not
    /// profiled) on `scale` GPUs making `speed` steps/s, with its own delay `own`.
    pub fn job(
        &self,
        costs: Option<&PreemptionCosts>,
        scale: u32,
        speed: f64,
        own: Option<f64>,
    ) -> JobOverhead {
        match &self.checkpoint {
            Some(c) => c.job(costs, scale, speed),
            None => {
                let d = self.delay_of(own);
                JobOverhead {
                    epoch_steps: costs
                        .map_or(1.0, |p| (p.epoch_steps / f64::from(scale.max(1))).max(1.0)),
                    save_s: 0.0,
                    reload_s: d,
                    start_s: d,
                    drains: false,
                }
            }
        }
    }

    /// An actual cost for the modelled `seconds`: drawn with the checkpoint model's noise,
    /// exact under a delay.
    pub fn draw(&self, seconds: f64, rng: &mut Rng) -> f64 {
        match &self.checkpoint {
            Some(c) => c.draw(seconds, rng),
            None => seconds.max(0.0),
        }
    }

    /// Check what the preemptive mechanism charges: the checkpoint model's settings, or
    /// the delay.
    pub fn check(&self) -> Result<(), RestartError> {
        match &self.checkpoint {
            Some(c) => c.check(),
            None => self.check_delay(),
        }
    }

    /// Check the delay: between 0 and [`MAX_RESTART_S`].
    pub fn check_delay(&self) -> Result<(), RestartError> {
        if self.delay_s.is_finite() && (0.0..=MAX_RESTART_S).contains(&self.delay_s) {
            Ok(())
        } else {
            Err(RestartError {
                field: "restart_cost_s".into(),
                reason: "must be between 0 and 86,400 s".into(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delay_is_paid_at_starts_and_resumptions_and_does_not_drain() {
        let m = RestartModel::delay(30.0);
        let d = m.job(None, 2, 10.0, None);
        assert_eq!(d.drain_s(230.0, 1000.0, 10.0), 0.0);
        assert_eq!((d.save_s, d.reload_s, d.start_s), (0.0, 30.0, 30.0));
        let own = m.job(None, 2, 10.0, Some(5.0));
        assert_eq!((own.reload_s, own.start_s), (5.0, 5.0));
        assert_eq!(m.change_delay(None, 2), None);
        let mut rng = Rng::new(1);
        assert_eq!(m.draw(7.0, &mut rng), 7.0);
    }

    #[test]
    fn the_checkpoint_model_drains_and_its_changes_cost_a_write_and_a_reload() {
        let m = RestartModel {
            delay_s: 30.0,
            checkpoint: Some(PreemptionConfig::default()),
        };
        let o = m.job(None, 1, 20.0, Some(5.0));
        assert!(o.drains);
        assert_eq!(o.start_s, 0.0);
        // 0.5 GB at 0.25 GB/s, then 10 s + 1.5 GB at 0.5 GB/s.
        assert_eq!(m.change_delay(None, 1), Some(2.0 + 13.0));
    }

    #[test]
    fn delays_out_of_range_are_named() {
        assert!(RestartModel::delay(86_400.0).check().is_ok());
        let e = RestartModel::delay(-1.0).check().unwrap_err();
        assert_eq!(
            e.to_string(),
            "experiment:0: field 'restart_cost_s': must be between 0 and 86,400 s"
        );
        assert!(RestartModel::delay(f64::NAN).check_delay().is_err());
    }
}
