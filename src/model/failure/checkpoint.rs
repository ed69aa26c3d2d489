//! Checkpoints: how often a job saves its state and what a failure takes back.
//!
//! A job computes for `interval` seconds, then writes a checkpoint for `write_s` seconds
//! (blocking: no progress while it writes); a checkpoint counts once written. A failure
//! takes back the work done since the last written checkpoint. The interval is fixed, or
//! `auto`: Daly's higher-order optimum for the job's own mean time to failure (its servers
//! times the failure rate), `sqrt(2 w M) (1 + sqrt(w / 2M) / 3 + (w / 2M) / 9) - w` for
//! `w < 2M`, `M` otherwise (Daly, "A higher order estimate of the optimum checkpoint
//! interval for restart dumps", FGCS 22(3), 2006).

use serde::{Deserialize, Serialize};

/// How often jobs checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interval {
    /// Every this many seconds of computation.
    Every(f64),
    /// Daly's optimum for each job's mean time to failure.
    Auto,
}

/// A job's checkpointing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CheckpointPlan {
    /// How often.
    pub interval: Interval,
    /// Seconds each write blocks the job.
    #[serde(default)]
    pub write_s: f64,
}

impl Default for CheckpointPlan {
    /// Hourly checkpoints written without blocking.
    fn default() -> Self {
        CheckpointPlan {
            interval: Interval::Every(3600.0),
            write_s: 0.0,
        }
    }
}

impl CheckpointPlan {
    /// Why the plan is not usable, if it is not.
    pub fn check(&self) -> Result<(), String> {
        if let Interval::Every(s) = self.interval {
            if !(s.is_finite() && s > 0.0) {
                return Err(format!(
                    "the checkpoint interval must be above 0 s (got {s})"
                ));
            }
        }
        if !(self.write_s.is_finite() && self.write_s >= 0.0) {
            return Err(format!(
                "the checkpoint write time must be at least 0 s (got {})",
                self.write_s
            ));
        }
        Ok(())
    }

    /// Seconds of computation between checkpoints for a job whose mean time to failure is
    /// `mttf_s` (infinite without failures: then `auto` never checkpoints).
    pub fn interval_s(&self, mttf_s: f64) -> f64 {
        match self.interval {
            Interval::Every(s) => s,
            Interval::Auto => daly_interval(self.write_s, mttf_s),
        }
    }
}

/// Daly's higher-order optimum compute time between checkpoints for write time `w` and
/// mean time to failure `m` (both in seconds); infinite when `m` is.
pub fn daly_interval(w: f64, m: f64) -> f64 {
    if !m.is_finite() {
        return f64::INFINITY;
    }
    if w >= 2.0 * m {
        return m;
    }
    let x = w / (2.0 * m);
    (2.0 * w * m).sqrt() * (1.0 + x.sqrt() / 3.0 + x / 9.0) - w
}

/// Meta's expected effective training time ratio of a job on `nodes` servers failing at
/// `rate` per server per second, restarting in `u0` seconds, checkpointing every
/// `interval` seconds with blocking writes of `w` (Kokolis et al., HPCA'25):
/// `(1 - N r (u0 + interval / 2)) / (1 + w / interval)`.
pub fn expected_ettr(nodes: f64, rate: f64, u0: f64, interval: f64, w: f64) -> f64 {
    (1.0 - nodes * rate * (u0 + interval / 2.0)) / (1.0 + w / interval)
}

/// The exact long-run ETTR of the same job when failures are Poisson: each failure
/// restarts the job (`u0` seconds, during which a failure restarts it again) from its last
/// written checkpoint, so between failures (a mean of `1 / (N r)`) it keeps `interval`
/// seconds of work per write completed. With `q = exp(-N r (interval + w))`, the expected
/// number of completed writes after a restart is `q / (1 - q)`, and
/// `ETTR = N r * interval * exp(-N r u0) * q / (1 - q)`. Meta's expression is its first-order
/// form in `interval / MTTF`; at hourly checkpoints on RSC-1 (`interval` 0.55 of the
/// job's MTTF) it gives 0.676 where this gives 0.715 (Meta quotes "0.7").
pub fn renewal_ettr(nodes: f64, rate: f64, u0: f64, interval: f64, w: f64) -> f64 {
    let l = nodes * rate;
    let q = (-l * (interval + w)).exp();
    l * interval * (-l * u0).exp() * q / (1.0 - q)
}

/// Where a job is between checkpoints.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Ledger {
    /// Seconds computed since the last written checkpoint.
    pub computed_s: f64,
    /// Work done since the last written checkpoint (what a failure takes back).
    pub work_since: f64,
    /// Seconds of the current write still to go (0: not writing).
    pub writing_s: f64,
}

/// What a stretch of running gave.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stretch {
    /// Work done.
    pub work: f64,
    /// Seconds used (at most the time given; less when the work ran out).
    pub used_s: f64,
    /// Seconds of it spent writing checkpoints.
    pub writing_s: f64,
}

impl Ledger {
    /// Runs the job for up to `time_s` seconds at `rate` work per second with at most
    /// `work_left` to do, checkpointing every `interval_s` seconds of computation with
    /// writes of `write_s`.
    pub fn run(
        &mut self,
        time_s: f64,
        rate: f64,
        work_left: f64,
        interval_s: f64,
        write_s: f64,
    ) -> Stretch {
        let mut out = Stretch::default();
        let mut left = time_s.max(0.0);
        let mut work_left = work_left.max(0.0);
        if interval_s <= 0.0 {
            // Checkpointed continuously: nothing is ever at risk.
            let c = left.min(work_left / rate.max(f64::MIN_POSITIVE));
            out.work = (c * rate).min(work_left);
            out.used_s = c;
            return out;
        }
        // Bounded: each pass ends a write, reaches a checkpoint or uses up the time or work.
        while left > 0.0 && work_left > 0.0 && rate > 0.0 {
            if self.writing_s > 0.0 {
                let w = self.writing_s.min(left);
                self.writing_s -= w;
                left -= w;
                out.used_s += w;
                out.writing_s += w;
                if self.writing_s <= 0.0 {
                    self.writing_s = 0.0;
                    self.computed_s = 0.0;
                    self.work_since = 0.0;
                }
                continue;
            }
            let to_checkpoint = (interval_s - self.computed_s).max(0.0);
            let by_work = work_left / rate;
            let c = left.min(to_checkpoint).min(by_work);
            // The work ends exactly when its time does (no residue to chase).
            let w = if c >= by_work { work_left } else { c * rate };
            self.computed_s += c;
            self.work_since += w;
            out.work += w;
            out.used_s += c;
            left -= c;
            work_left -= w;
            if self.computed_s >= interval_s && work_left > 0.0 {
                if write_s > 0.0 {
                    self.writing_s = write_s;
                } else {
                    self.computed_s = 0.0;
                    self.work_since = 0.0;
                }
            }
        }
        out
    }

    /// The job's instance is taken back after a warning of `warning_s` seconds: a warning
    /// at least as long as a write (`write_s`) lets it write a checkpoint in its last
    /// `write_s` seconds, so only their work is lost; a shorter one is a failure. The work
    /// lost, the seconds of computation lost, and the seconds spent writing.
    pub fn preempt(&mut self, warning_s: f64, write_s: f64) -> (f64, f64, f64) {
        if warning_s < write_s {
            let lost_s = self.computed_s;
            return (self.fail(), lost_s, 0.0);
        }
        let written = write_s.min(self.computed_s).max(0.0);
        let lost = if self.computed_s > 0.0 {
            self.work_since * written / self.computed_s
        } else {
            0.0
        };
        *self = Ledger::default();
        (lost, 0.0, written)
    }

    /// A failure: the work since the last written checkpoint is lost (returned) and the job
    /// starts again from that checkpoint.
    pub fn fail(&mut self) -> f64 {
        let lost = self.work_since;
        *self = Ledger::default();
        lost
    }

    /// A checkpoint written outside the plan (a suspension's): the work so far is safe, and
    /// a periodic write under way is not needed any more.
    pub fn checkpointed(&mut self) {
        *self = Ledger::default();
    }

    /// Seconds [`Ledger::run`] takes to do `work_left` at `rate` work per second,
    /// checkpointing every `interval_s` seconds of computation with writes of `write_s`:
    /// the write under way, the computation, and a write at each checkpoint before the end.
    pub fn time_to_finish(&self, work_left: f64, rate: f64, interval_s: f64, write_s: f64) -> f64 {
        let compute = work_left.max(0.0) / rate;
        if compute.is_nan() || compute <= 0.0 {
            return 0.0;
        }
        if interval_s <= 0.0 {
            return compute;
        }
        let (pending, computed) = if self.writing_s > 0.0 {
            (self.writing_s, 0.0)
        } else {
            (0.0, self.computed_s)
        };
        // The k-th write (from 0) follows `first + k interval_s` seconds of computation, if
        // work is left then.
        let first = (interval_s - computed).max(0.0);
        let writes = if write_s > 0.0 && compute > first {
            ((compute - first) / interval_s).ceil()
        } else {
            0.0
        };
        pending + compute + writes * write_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dalys_check_values() {
        // Daly's Figures 3-5: a 5-minute dump gives 116.69 min at M = 24 h, 56.71 min at
        // 6 h and 9.14 min at 15 min.
        for (m_min, want) in [(1440.0, 116.69), (360.0, 56.71), (15.0, 9.14)] {
            let t = daly_interval(300.0, m_min * 60.0) / 60.0;
            assert!((t - want).abs() < 0.01, "M {m_min} min: {t}");
        }
        assert_eq!(daly_interval(300.0, 100.0), 100.0);
        assert_eq!(daly_interval(0.0, 1e4), 0.0);
    }

    #[test]
    fn metas_scenario_figures() {
        // One 16,000-GPU job on RSC-1 (2,048 nodes, 6.5 per 1,000 node-days, 5-minute
        // restarts, writes that do not block): 0.676 with hourly checkpoints, 0.931 with
        // 5-minute ones.
        let r = 6.5e-3 / 86_400.0;
        assert!((expected_ettr(2048.0, r, 300.0, 3600.0, 0.0) - 0.676).abs() < 5e-4);
        assert!((expected_ettr(2048.0, r, 300.0, 300.0, 0.0) - 0.931).abs() < 5e-4);
    }

    #[test]
    fn the_renewal_ettr_is_metas_to_first_order() {
        let r = 6.5e-3 / 86_400.0;
        let exact = renewal_ettr(2048.0, r, 300.0, 3600.0, 0.0);
        assert!((exact - 0.7145).abs() < 5e-4, "{exact}");
        let exact = renewal_ettr(2048.0, r, 300.0, 300.0, 0.0);
        assert!((exact - 0.9330).abs() < 5e-4, "{exact}");
        // Far below the MTTF the two agree.
        let (a, b) = (
            renewal_ettr(16.0, r, 60.0, 120.0, 1.0),
            expected_ettr(16.0, r, 60.0, 120.0, 1.0),
        );
        assert!((a - b).abs() < 1e-4, "{a} {b}");
    }

    #[test]
    fn running_checkpoints_and_failing_take_back_the_work_since() {
        // Rate 2, checkpoint every 100 s with 10-s writes.
        let mut l = Ledger::default();
        let s = l.run(250.0, 2.0, 1e9, 100.0, 10.0);
        // 100 s compute, 10 s write, 100 s compute, 10 s write, 30 s compute.
        assert_eq!((s.work, s.used_s, s.writing_s), (460.0, 250.0, 20.0));
        assert_eq!((l.computed_s, l.work_since, l.writing_s), (30.0, 60.0, 0.0));
        // A failure now loses the 60 since the second checkpoint.
        assert_eq!(l.fail(), 60.0);
        // Failing during a write loses the whole interval before it.
        let mut l = Ledger::default();
        l.run(105.0, 1.0, 1e9, 100.0, 10.0);
        assert_eq!(l.writing_s, 5.0);
        assert_eq!(l.fail(), 100.0);
        // The work runs out: the time used stops there, and no write follows the end.
        let mut l = Ledger::default();
        let s = l.run(500.0, 2.0, 250.0, 100.0, 10.0);
        assert_eq!((s.work, s.used_s, s.writing_s), (250.0, 135.0, 10.0));
        assert_eq!(l.writing_s, 0.0);
        // Work that ends within a stretch ends exactly, however small what is left.
        let mut l = Ledger::default();
        let s = l.run(100.0, 3.0, 1e-300, 50.0, 1.0);
        assert_eq!(s.work, 1e-300);
        let s = l.run(100.0, 7.0, 0.1 + 0.2 - 0.3, 50.0, 0.0);
        assert_eq!(s.work, 0.1 + 0.2 - 0.3);
        // Writes that do not block cost no time.
        let mut l = Ledger::default();
        let s = l.run(250.0, 1.0, 1e9, 100.0, 0.0);
        assert_eq!((s.work, s.used_s, l.work_since), (250.0, 250.0, 50.0));
    }

    #[test]
    fn the_time_to_finish_is_what_running_takes() {
        // Rate 2, checkpoints every 100 s with 10-s writes, from several states of the
        // ledger: the time predicted is the time a run to the end uses.
        for (before, work) in [
            (0.0, 460.0),
            (0.0, 400.0),
            (0.0, 200.0),
            (0.0, 199.0),
            (105.0, 1e4),
            (230.0, 1234.5),
            (50.0, 1e-6),
        ] {
            let mut l = Ledger::default();
            l.run(before, 2.0, 1e9, 100.0, 10.0);
            let want = l.time_to_finish(work, 2.0, 100.0, 10.0);
            let s = l.run(1e9, 2.0, work, 100.0, 10.0);
            assert_eq!(s.work, work);
            assert!(
                (s.used_s - want).abs() < 1e-9,
                "{before} {work}: {s:?} vs {want}"
            );
        }
        // Writes that cost nothing, checkpoints never or continuously: the computation.
        let l = Ledger::default();
        assert_eq!(l.time_to_finish(300.0, 2.0, 100.0, 0.0), 150.0);
        assert_eq!(l.time_to_finish(300.0, 2.0, f64::INFINITY, 5.0), 150.0);
        assert_eq!(l.time_to_finish(300.0, 2.0, 0.0, 5.0), 150.0);
        // A checkpoint outside the plan: nothing at risk, nothing being written.
        let mut l = Ledger::default();
        l.run(105.0, 1.0, 1e9, 100.0, 10.0);
        l.checkpointed();
        assert_eq!(l, Ledger::default());
        assert_eq!(l.fail(), 0.0);
    }

    #[test]
    fn a_plan_checks_its_numbers() {
        let bad = CheckpointPlan {
            interval: Interval::Every(0.0),
            write_s: 0.0,
        };
        assert!(bad.check().is_err());
        let bad = CheckpointPlan {
            interval: Interval::Auto,
            write_s: -1.0,
        };
        assert!(bad.check().is_err());
        assert!(CheckpointPlan::default().check().is_ok());
        let auto = CheckpointPlan {
            interval: Interval::Auto,
            write_s: 60.0,
        };
        assert!(auto.interval_s(f64::INFINITY).is_infinite());
    }
}
