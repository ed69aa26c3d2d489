//! How long a comparison is expected to take, before it starts: jobs × runs × the cost of
//! one job in one run of the experiment's mechanism, spread over the workers. The costs
//! start from the page's measured figures on the bundled scenarios and follow the last
//! completed run of each mechanism (the caller measures it: the core reads no clock). A run
//! expected to take longer than [`CONFIRM_ABOVE_MS`] asks first.

use crate::experiment::Experiment;
use crate::sim::Mechanism;
use crate::view::format::thousands;

/// Runs expected to take longer than this (milliseconds) ask first.
pub const CONFIRM_ABOVE_MS: f64 = 20_000.0;

/// Measured cost of one job in one run, by mechanism (the last completed comparison's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibration {
    measured: Vec<(Mechanism, f64)>,
}

impl Calibration {
    /// The cost of a job in a run of mechanism `m`: measured here, or the default, and
    /// whether it was measured.
    pub fn ms_per_job(&self, m: Mechanism) -> (f64, bool) {
        self.measured
            .iter()
            .find(|(k, _)| *k == m)
            .map_or((m.typical_ms_per_job(), false), |(_, v)| (*v, true))
    }

    /// Learn from a completed comparison: `wall_ms` for `jobs` × `runs` on `workers`.
    pub fn learn(&mut self, m: Mechanism, wall_ms: f64, jobs: usize, runs: usize, workers: usize) {
        let work = (jobs * runs) as f64;
        if work < 1.0 || !wall_ms.is_finite() || wall_ms <= 0.0 {
            return;
        }
        let per = wall_ms * workers.max(1) as f64 / work;
        self.measured.retain(|(k, _)| *k != m);
        self.measured.push((m, per));
    }
}

/// What a run is expected to cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The experiment it is of.
    pub exp: Experiment,
    /// Its mechanism.
    pub mech: Mechanism,
    /// Jobs in its trace.
    pub jobs: usize,
    /// Runs: the policies, and the isolated baseline when fairness is on.
    pub runs: usize,
    /// Workers sharing the runs.
    pub workers: usize,
    /// Milliseconds per job and run used.
    pub ms_per_job: f64,
    /// Whether that cost was measured on this machine.
    pub measured: bool,
}

impl Estimate {
    /// The estimate of `jobs` × `runs` on `workers` in mechanism `mech`.
    pub fn new(
        exp: Experiment,
        mech: Mechanism,
        jobs: usize,
        runs: usize,
        workers: usize,
        calibration: &Calibration,
    ) -> Self {
        let (ms_per_job, measured) = calibration.ms_per_job(mech);
        Estimate {
            exp,
            mech,
            jobs,
            runs,
            workers: workers.clamp(1, runs.max(1)),
            ms_per_job,
            measured,
        }
    }

    /// Expected milliseconds, wall clock.
    pub fn ms(&self) -> f64 {
        self.jobs as f64 * self.runs as f64 * self.ms_per_job / self.workers as f64
    }

    /// Whether the run asks for a confirmation first.
    pub fn is_long(&self) -> bool {
        self.ms() > CONFIRM_ABOVE_MS
    }

    /// The estimate, for people.
    pub fn describe(&self) -> String {
        format!(
            "This comparison is expected to take about {}: {} jobs × {} run{} at about {} ms per job and run ({}){}.",
            duration(self.ms()),
            thousands(self.jobs as u64),
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            significant(self.ms_per_job),
            if self.measured { "measured on this machine by the last comparison" } else { "measured on the bundled scenarios; the first run here refines it" },
            if self.workers > 1 { format!(", shared by {} workers", self.workers) } else { String::new() }
        )
    }
}

/// A duration for people: seconds, minutes or hours.
pub fn duration(ms: f64) -> String {
    let s = ms / 1000.0;
    if s < 90.0 {
        format!("{:.0} s", s.max(1.0))
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Two significant figures.
fn significant(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::scenarios;

    /// The mechanisms of the default scenario (Gavel's rounds), the Pollux scenario and the
    /// DL2 scenario.
    fn mechanisms() -> (Mechanism, Mechanism, Mechanism) {
        let of = |e: Experiment| e.resolve().expect("a bundled scenario").mechanism();
        (
            of(scenarios::default_experiment()),
            of(scenarios::pollux_experiment()),
            of(scenarios::dl2_experiment()),
        )
    }

    fn estimate(jobs: usize, runs: usize, workers: usize, c: &Calibration) -> Estimate {
        Estimate::new(
            Experiment::default(),
            mechanisms().0,
            jobs,
            runs,
            workers,
            c,
        )
    }

    #[test]
    fn a_huge_workload_asks_and_a_small_one_does_not() {
        let c = Calibration::default();
        let big = estimate(1_000_000, 2, 2, &c);
        assert!(big.is_long() && big.ms() > 1.0e6, "{}", big.ms());
        let text = big.describe();
        assert!(
            text.contains("1,000,000 jobs × 2 runs") && text.contains("2 workers"),
            "{text}"
        );
        assert!(!estimate(120, 2, 2, &c).is_long());
    }

    #[test]
    fn a_measured_run_replaces_the_default_cost() {
        let (rounds, elastic, slots) = mechanisms();
        let mut c = Calibration::default();
        assert_eq!(c.ms_per_job(rounds), (10.0, false));
        c.learn(rounds, 1200.0, 120, 2, 2);
        assert_eq!(c.ms_per_job(rounds), (10.0, true));
        c.learn(rounds, 600.0, 120, 2, 1);
        assert_eq!(c.ms_per_job(rounds), (2.5, true));
        assert!(!c.ms_per_job(elastic).1);
        // Nothing learnt from an empty run.
        c.learn(slots, 100.0, 0, 2, 1);
        assert!(!c.ms_per_job(slots).1);
        // Workers never outnumber the runs.
        assert_eq!(estimate(100, 1, 8, &c).workers, 1);
    }

    #[test]
    fn durations_and_counts_read_well() {
        assert_eq!(duration(400.0), "1 s");
        assert_eq!(duration(45_000.0), "45 s");
        assert_eq!(duration(600_000.0), "10 min");
        assert_eq!(duration(2.0e7), "5.6 h");
    }
}
