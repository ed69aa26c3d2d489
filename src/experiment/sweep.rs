//! One point of a sweep: an experiment with some of its settings replaced (the cluster,
//! the load factor, the seed, the generator's arrival rate) and its own list of policies.
//! `orrery sweep` and the page's Sweep view both build their runs with it, so the same
//! grid gives the same numbers in both.

use super::{Experiment, WorkloadSource};

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
    }
}
