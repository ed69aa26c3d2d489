//! One point of a sweep: an experiment with some of its settings replaced (the cluster,
//! the load factor, the seed, the generator's arrival rate, the failure rate, the
//! checkpoint interval) and its own list of policies.
//! `orrery sweep` and the page's Sweep view both build their runs with it, so the same
//! grid gives the same numbers in both.

use super::{Experiment, WorkloadSource};
use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
use crate::model::failure::{FailureModel, Faults};

/// The settings a sweep point replaces (None keeps the experiment's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepPoint {
    /// The cluster spec.
    pub cluster: Option<String>,
    /// The load factor (arrivals compressed in time).
    pub load: Option<f64>,
    /// The seed, of the experiment and of a generated workload.
    pub seed: Option<u64>,
    /// Jobs per hour of a generated workload (ignored for a trace).
    pub jobs_per_hour: Option<f64>,
    /// Failures per server-day (an experiment without failure settings gets the model's
    /// defaults: a spare at once, Llama 3's causes, hourly checkpoints).
    pub failures: Option<f64>,
    /// The checkpoint interval (the same defaults for an experiment without failures: a
    /// rate of 0 unless `failures` gives one).
    pub checkpoint: Option<Interval>,
}

impl Experiment {
    /// This experiment at `point`, running `policies`.
    pub fn at_point(&self, point: &SweepPoint, policies: Vec<String>) -> Experiment {
        let mut exp = self.clone();
        if let Some(c) = &point.cluster {
            exp.cluster = c.clone();
        }
        if let Some(l) = point.load {
            exp.load_factor = l;
        }
        if let Some(seed) = point.seed {
            exp.seed = seed;
        }
        if let WorkloadSource::Generated(gen) = &mut exp.workload {
            if let Some(seed) = point.seed {
                gen.seed = seed;
            }
            if let Some(rate) = point.jobs_per_hour {
                gen.jobs_per_hour = rate;
            }
        }
        if point.failures.is_some() || point.checkpoint.is_some() {
            let f = exp.faults.get_or_insert_with(|| Faults {
                failures: FailureModel::with_rate(0.0),
                checkpoint: CheckpointPlan::default(),
            });
            if let Some(rate) = point.failures {
                f.failures.per_server_day = rate;
            }
            if let Some(interval) = point.checkpoint {
                f.checkpoint.interval = interval;
            }
        }
        exp.policies = policies;
        exp
    }

    /// The generator's jobs per hour, for a generated workload.
    pub fn jobs_per_hour(&self) -> Option<f64> {
        match &self.workload {
            WorkloadSource::Generated(g) => Some(g.jobs_per_hour),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::GeneratorConfig;

    #[test]
    fn a_point_replaces_what_it_names_only() {
        let base = Experiment {
            workload: WorkloadSource::Generated(GeneratorConfig::default()),
            policies: vec!["fifo".into()],
            ..Experiment::default()
        };
        let same = base.at_point(&SweepPoint::default(), base.policies.clone());
        assert_eq!(same, base);
        let p = SweepPoint {
            jobs_per_hour: Some(12.5),
            seed: Some(7),
            load: Some(2.0),
            cluster: Some("v100:4".into()),
            ..SweepPoint::default()
        };
        let e = base.at_point(&p, vec!["las".into()]);
        assert_eq!(e.jobs_per_hour(), Some(12.5));
        assert_eq!(
            (e.seed, e.load_factor, e.cluster.as_str()),
            (7, 2.0, "v100:4")
        );
        assert_eq!(e.policies, vec!["las".to_string()]);
        match &e.workload {
            WorkloadSource::Generated(g) => assert_eq!(g.seed, 7),
            _ => panic!("the workload is generated"),
        }
        assert_eq!(e.faults, None);
    }

    #[test]
    fn a_failure_point_adds_or_replaces_the_failure_settings() {
        let base = Experiment::default();
        let p = SweepPoint {
            checkpoint: Some(Interval::Every(600.0)),
            ..SweepPoint::default()
        };
        let f = base.at_point(&p, Vec::new()).faults.expect("failures");
        assert_eq!(f.failures, FailureModel::with_rate(0.0));
        assert_eq!(f.checkpoint.interval, Interval::Every(600.0));
        let mut with = base.clone();
        with.faults = Some(Faults {
            failures: FailureModel {
                repair_s: 60.0,
                ..FailureModel::with_rate(1.0)
            },
            checkpoint: CheckpointPlan {
                interval: Interval::Auto,
                write_s: 30.0,
            },
        });
        let p = SweepPoint {
            failures: Some(2.5),
            ..SweepPoint::default()
        };
        let f = with.at_point(&p, Vec::new()).faults.expect("failures");
        assert_eq!(
            (f.failures.per_server_day, f.failures.repair_s),
            (2.5, 60.0)
        );
        assert_eq!(f.checkpoint.interval, Interval::Auto);
        assert_eq!(f.checkpoint.write_s, 30.0);
    }
}
