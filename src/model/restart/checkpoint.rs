//! The cost of preempting a training job, as PickyMan models it: suspending a job lets it
//! finish its current epoch and then write a checkpoint; resuming it reloads the checkpoint
//! and the training data before it makes progress again.
//!
//! Per job type, a profile may give a [`PreemptionCosts`] entry (steps per epoch,
//! checkpoint size, data to reload, start-up time); [`PreemptionConfig`] turns those and
//! the experiment's storage bandwidths into seconds. The simulator draws the actual costs
//! around the model's values with the configured noise.

use super::RestartError;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// What preempting a job of one type costs, from the profile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PreemptionCosts {
    /// Steps in one epoch at scale factor 1 (a job on `k` GPUs does the epoch in `1/k` as
    /// many steps: the per-GPU batch is fixed).
    pub epoch_steps: f64,
    /// Size of a checkpoint (weights and optimizer state), GB.
    pub checkpoint_gb: f64,
    /// Training data to load before the job runs again, GB.
    pub data_gb: f64,
    /// Seconds to start the process and the framework, before any loading.
    pub init_s: f64,
}

impl PreemptionCosts {
    /// Check the values, naming the field.
    pub fn check(&self, job_type: &str) -> Result<(), RestartError> {
        let fields = [
            ("epoch_steps", self.epoch_steps, 1e-9),
            ("checkpoint_gb", self.checkpoint_gb, 0.0),
            ("data_gb", self.data_gb, 0.0),
            ("init_s", self.init_s, 0.0),
        ];
        for (name, v, lo) in fields {
            if !(v.is_finite() && v >= lo && v <= 1e12) {
                return Err(RestartError {
                    field: format!("{job_type}/preemption/{name}"),
                    reason: format!("{v} must be a finite number, at least {lo}"),
                });
            }
        }
        Ok(())
    }
}

fn default_read() -> f64 {
    0.5
}
fn default_write() -> f64 {
    0.25
}
fn default_noise() -> f64 {
    0.1
}
fn default_epoch() -> f64 {
    300.0
}

/// PickyMan's checkpoint model: storage speeds, noise, and the epoch length of job types
/// the profile gives no costs for. Its presence in an experiment selects the preemptive
/// simulator for PickyMan's policies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PreemptionConfig {
    /// Read bandwidth from storage when resuming (GB/s).
    #[serde(default = "default_read")]
    pub read_gbps: f64,
    /// Write bandwidth to storage when checkpointing (GB/s).
    #[serde(default = "default_write")]
    pub write_gbps: f64,
    /// Relative spread of the actual checkpoint and reload times around the model's
    /// (standard deviation of a log-normal factor with mean 1).
    #[serde(default = "default_noise")]
    pub noise: f64,
    /// Epoch length (s on the job's GPUs) of job types the profile gives no costs for.
    #[serde(default = "default_epoch")]
    pub default_epoch_s: f64,
}

impl Default for PreemptionConfig {
    fn default() -> Self {
        PreemptionConfig {
            read_gbps: default_read(),
            write_gbps: default_write(),
            noise: default_noise(),
            default_epoch_s: default_epoch(),
        }
    }
}

impl PreemptionConfig {
    /// Check every field, naming the first bad one.
    pub fn check(&self) -> Result<(), RestartError> {
        let bad = |field: &str, reason: &str| {
            Err(RestartError {
                field: format!("preemption.{field}"),
                reason: reason.to_string(),
            })
        };
        if !(self.read_gbps.is_finite() && self.read_gbps > 0.0 && self.read_gbps <= 1e6) {
            return bad("read_gbps", "must be a positive number of GB/s");
        }
        if !(self.write_gbps.is_finite() && self.write_gbps > 0.0 && self.write_gbps <= 1e6) {
            return bad("write_gbps", "must be a positive number of GB/s");
        }
        if !(self.noise.is_finite() && (0.0..=1.0).contains(&self.noise)) {
            return bad("noise", "must be between 0 and 1");
        }
        if !(self.default_epoch_s.is_finite()
            && self.default_epoch_s >= 1.0
            && self.default_epoch_s <= 1e7)
        {
            return bad("default_epoch_s", "must be between 1 and 10,000,000 s");
        }
        Ok(())
    }
}

/// The modelled costs of one job (type, scale factor and speed fixed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobOverhead {
    /// Steps in one epoch of this job.
    pub epoch_steps: f64,
    /// Seconds to write a checkpoint.
    pub save_s: f64,
    /// Seconds to restart the process, read the checkpoint and the data.
    pub reload_s: f64,
    /// Seconds its first start costs (0 in PickyMan's model: a new job has no checkpoint).
    pub start_s: f64,
    /// Whether a suspension trains to the end of the current epoch first (PickyMan's
    /// model); otherwise the GPUs are free at once and the progress made is kept.
    pub drains: bool,
}

impl JobOverhead {
    /// Seconds until the current epoch ends, at `speed` steps/s, from `progress` steps; 0
    /// at an epoch boundary or when suspensions do not drain. Never beyond the job's end
    /// (`total` steps).
    pub fn drain_s(&self, progress: f64, total: f64, speed: f64) -> f64 {
        if speed <= 0.0 || !self.drains {
            return 0.0;
        }
        let e = self.epoch_steps.max(1e-9);
        let k = (progress / e).floor();
        let mut end = (k + 1.0) * e;
        // Progress a hair past a boundary (floating point) counts as at the boundary.
        if progress - k * e <= 1e-9 * e.max(1.0) {
            end = k * e;
        }
        (end.min(total) - progress).max(0.0) / speed
    }
}

impl PreemptionConfig {
    /// The modelled costs of a job of a type with `costs` (None = not profiled) on `scale`
    /// GPUs making `speed` steps/s.
    pub fn job(&self, costs: Option<&PreemptionCosts>, scale: u32, speed: f64) -> JobOverhead {
        match costs {
            Some(p) => JobOverhead {
                epoch_steps: (p.epoch_steps / f64::from(scale.max(1))).max(1.0),
                save_s: p.checkpoint_gb / self.write_gbps,
                reload_s: p.init_s + (p.checkpoint_gb + p.data_gb) / self.read_gbps,
                start_s: 0.0,
                drains: true,
            },
            None => JobOverhead {
                epoch_steps: (self.default_epoch_s * speed).max(1.0),
                save_s: 0.5 / self.write_gbps,
                reload_s: 10.0 + 1.5 / self.read_gbps,
                start_s: 0.0,
                drains: true,
            },
        }
    }

    /// The delay one start or change of GPUs costs a job of a type with `costs` on
    /// `scale` GPUs in mechanisms that preempt at round, tick or slot boundaries (where a
    /// job is between steps, so there is nothing to drain): writing its checkpoint and
    /// reloading it, as modelled (no noise).
    pub fn change_delay(&self, costs: Option<&PreemptionCosts>, scale: u32) -> f64 {
        let o = self.job(costs, scale, 1.0);
        o.save_s + o.reload_s
    }

    /// An actual cost drawn around the modelled `seconds`: a log-normal factor with mean 1
    /// and spread `noise`.
    pub fn draw(&self, seconds: f64, rng: &mut Rng) -> f64 {
        let s = self.noise;
        if s <= 0.0 || seconds <= 0.0 {
            return seconds.max(0.0);
        }
        let sigma2 = crate::math::ln(1.0 + s * s);
        let z = rng.normal();
        seconds * crate::math::exp(sigma2.sqrt() * z - sigma2 / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> PreemptionConfig {
        PreemptionConfig::default()
    }

    #[test]
    fn drain_is_the_rest_of_the_epoch() {
        let o = JobOverhead {
            epoch_steps: 100.0,
            save_s: 1.0,
            reload_s: 2.0,
            start_s: 0.0,
            drains: true,
        };
        // 30 steps into the third epoch at 10 steps/s: 70 steps, 7 s.
        assert!((o.drain_s(230.0, 1000.0, 10.0) - 7.0).abs() < 1e-12);
        // At a boundary: nothing to finish.
        assert_eq!(o.drain_s(200.0, 1000.0, 10.0), 0.0);
        // The job ends before the epoch does.
        assert!((o.drain_s(950.0, 960.0, 10.0) - 1.0).abs() < 1e-12);
        // Stopped job: no drain.
        assert_eq!(o.drain_s(50.0, 1000.0, 0.0), 0.0);
    }

    #[test]
    fn costs_follow_sizes_and_bandwidths() {
        let m = model();
        let c = PreemptionCosts {
            epoch_steps: 800.0,
            checkpoint_gb: 0.5,
            data_gb: 2.0,
            init_s: 10.0,
        };
        let o = m.job(Some(&c), 4, 100.0);
        assert_eq!(o.epoch_steps, 200.0);
        assert!((o.save_s - 2.0).abs() < 1e-12); // 0.5 GB at 0.25 GB/s
        assert!((o.reload_s - 15.0).abs() < 1e-12); // 10 s + 2.5 GB at 0.5 GB/s
        let d = m.job(None, 1, 20.0);
        assert_eq!(d.epoch_steps, 6000.0); // 300 s at 20 steps/s
    }

    #[test]
    fn noise_has_mean_one() {
        let m = model();
        let mut rng = Rng::new(7);
        let n = 20_000;
        let mean: f64 = (0..n).map(|_| m.draw(10.0, &mut rng)).sum::<f64>() / f64::from(n);
        assert!((mean - 10.0).abs() < 0.05, "{mean}");
        let quiet = PreemptionConfig {
            noise: 0.0,
            ..Default::default()
        };
        assert_eq!(quiet.draw(10.0, &mut rng), 10.0);
    }

    #[test]
    fn bad_settings_are_named() {
        let c = PreemptionConfig {
            read_gbps: 0.0,
            ..Default::default()
        };
        assert!(c.check().unwrap_err().to_string().contains("read_gbps"));
        let p = PreemptionCosts {
            epoch_steps: 0.0,
            checkpoint_gb: 1.0,
            data_gb: 1.0,
            init_s: 1.0,
        };
        assert!(p
            .check("T")
            .unwrap_err()
            .to_string()
            .contains("epoch_steps"));
    }
}
