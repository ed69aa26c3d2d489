//! What PickyMan knows in advance: execution times predicted per job type from a few
//! profiled jobs, and suspension costs predicted by the overhead model.
//!
//! Profiling a job type measures `profiled` jobs of it, each with a relative error drawn
//! from a normal distribution of spread `error`; the type's prediction is off by the mean
//! of those errors (so more profiled jobs, smaller error). Every job of the type inherits
//! that error: its predicted speed is its true speed divided by `1 + mean error`. The
//! overhead model's checkpoint and reload times are off by a per-type factor of spread
//! `overhead_error`. Draws depend only on the seed and the type's name, not on the order
//! in which jobs appear.

use crate::model::job::JobId;
use crate::rng::Rng;
use crate::sim::preemptive::{Phase, PreemptView};
use std::collections::BTreeMap;

/// Per-type prediction errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictor {
    profiled: u32,
    error: f64,
    overhead_error: f64,
    seed: Option<u64>,
    types: BTreeMap<String, (f64, f64)>,
    /// The factors of each job seen, by id.
    by_job: Vec<Option<(f64, f64)>>,
}

impl Predictor {
    /// A predictor from `profiled` jobs per type measured with relative error `error`, and
    /// an overhead model off by `overhead_error`.
    pub fn new(profiled: u32, error: f64, overhead_error: f64) -> Self {
        Predictor {
            profiled: profiled.max(1),
            error,
            overhead_error,
            seed: None,
            types: BTreeMap::new(),
            by_job: Vec::new(),
        }
    }

    /// (duration factor, overhead factor) of a job type: predicted / actual.
    pub fn factors(&mut self, job_type: &str, rng: &mut Rng) -> (f64, f64) {
        if let Some(f) = self.types.get(job_type) {
            return *f;
        }
        let seed = *self.seed.get_or_insert_with(|| rng.next_u64());
        let mut r = Rng::for_purpose(seed, job_type);
        let k = self.profiled;
        let mean_err = (0..k).map(|_| self.error * r.normal()).sum::<f64>() / f64::from(k);
        let d = (1.0 + mean_err).clamp(0.2, 5.0);
        let o = (1.0 + self.overhead_error * r.normal()).clamp(0.2, 5.0);
        self.types.insert(job_type.to_string(), (d, o));
        (d, o)
    }

    /// The factors of job `j`'s type.
    fn job_factors(&mut self, view: &PreemptView, j: JobId, rng: &mut Rng) -> (f64, f64) {
        if let Some(Some(f)) = self.by_job.get(j) {
            return *f;
        }
        let f = self.factors(&view.specs[j].job_type, rng);
        if self.by_job.len() <= j {
            self.by_job.resize(j + 1, None);
        }
        self.by_job[j] = Some(f);
        f
    }

    /// Predicted steps per second of job `j`.
    pub fn speed(&mut self, view: &PreemptView, j: JobId, rng: &mut Rng) -> f64 {
        let (d, _) = self.job_factors(view, j, rng);
        view.jobs[j].speed / d
    }

    /// Predicted training time of job `j` from start to end (s).
    pub fn total_s(&mut self, view: &PreemptView, j: JobId, rng: &mut Rng) -> f64 {
        view.jobs[j].total / self.speed(view, j, rng)
    }

    /// Predicted training time left of job `j` (s), its pending reload included.
    pub fn remaining_s(&mut self, view: &PreemptView, j: JobId, rng: &mut Rng) -> f64 {
        let job = &view.jobs[j];
        let loading = if job.phase == Phase::Loading {
            (job.phase_end - view.now).max(0.0)
        } else {
            0.0
        };
        loading + job.remaining_steps() / self.speed(view, j, rng)
    }

    /// The predicted cost of suspending running job `j` now.
    pub fn suspension(&mut self, view: &PreemptView, j: JobId, rng: &mut Rng) -> SuspensionCost {
        let job = &view.jobs[j];
        let (_, o) = self.job_factors(view, j, rng);
        let speed = self.speed(view, j, rng);
        SuspensionCost {
            drain_s: job.overhead.drain_s(job.progress, job.total, speed),
            save_s: job.overhead.save_s * o,
            reload_s: job.overhead.reload_s * o,
        }
    }
}

/// The predicted cost of one suspension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuspensionCost {
    /// Seconds to the end of the epoch.
    pub drain_s: f64,
    /// Seconds to write the checkpoint.
    pub save_s: f64,
    /// Seconds to reload on resumption.
    pub reload_s: f64,
}

impl SuspensionCost {
    /// Seconds until the GPUs are free.
    pub fn release_s(&self) -> f64 {
        self.drain_s + self.save_s
    }
    /// Seconds the suspended job loses itself.
    pub fn loss_s(&self) -> f64 {
        self.save_s + self.reload_s
    }
    /// Seconds lost in all: from the decision to free GPUs, and the reload.
    pub fn lost_s(&self) -> f64 {
        self.drain_s + self.save_s + self.reload_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_profiled_jobs_predict_better() {
        let spread = |k: u32| {
            let mut p = Predictor::new(k, 0.2, 0.0);
            let mut rng = Rng::new(3);
            let errs: Vec<f64> = (0..400)
                .map(|i| (p.factors(&format!("type {i}"), &mut rng).0 - 1.0).abs())
                .collect();
            errs.iter().sum::<f64>() / errs.len() as f64
        };
        let (one, sixteen) = (spread(1), spread(16));
        // Mean absolute error of a normal: 0.8 sigma / sqrt(k).
        assert!((one - 0.16).abs() < 0.03, "{one}");
        assert!((sixteen - 0.04).abs() < 0.01, "{sixteen}");
    }

    #[test]
    fn factors_do_not_depend_on_order() {
        let mut a = Predictor::new(4, 0.1, 0.05);
        let mut b = Predictor::new(4, 0.1, 0.05);
        let (mut ra, mut rb) = (Rng::new(9), Rng::new(9));
        let x = a.factors("ResNet-50", &mut ra);
        a.factors("LM", &mut ra);
        b.factors("LM", &mut rb);
        assert_eq!(b.factors("ResNet-50", &mut rb), x);
        let mut exact = Predictor::new(4, 0.0, 0.0);
        assert_eq!(exact.factors("LM", &mut Rng::new(1)), (1.0, 1.0));
    }
}
