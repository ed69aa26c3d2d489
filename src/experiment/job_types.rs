//! The job types of a resolved experiment's profile, with each one's speed per GPU type
//! where the profile gives it: what the Workload panel lists so that nobody has to guess
//! the names a trace may use.

use super::Resolved;

/// The job types of a profile, one row each.
#[derive(Debug, Clone, PartialEq)]
pub struct JobTypes {
    /// What the kind of profile calls them (job types, elastic applications, models).
    pub kind: &'static str,
    /// The unit of the speeds.
    pub unit: &'static str,
    /// The GPU types of the columns.
    pub gpu_types: Vec<String>,
    /// Each job type's name and speed per GPU type (None where the profile has none).
    pub rows: Vec<(String, Vec<Option<f64>>)>,
}

impl Resolved {
    /// The profile's job types: a round-based profile's types with their single-GPU
    /// throughputs (steps/s), an elastic profile's applications with one GPU's samples per
    /// second at their initial batch, a parameter-server profile's models with the steps per
    /// second of one worker and one parameter server on each named GPU type.
    pub fn job_types(&self) -> JobTypes {
        if let Some(apps) = self.apps() {
            let gpu_types = apps.gpu_types();
            let rows = apps
                .apps
                .iter()
                .map(|a| {
                    let b = a
                        .init_batch_size
                        .clamp(a.min_local_bsz.max(1), a.max_local_bsz.max(1));
                    let speeds = gpu_types
                        .iter()
                        .map(|t| {
                            let (step, sync) = a.step_time_on(Some(t), &[1], b)?;
                            let s = step + sync;
                            (s > 0.0 && s.is_finite()).then(|| f64::from(b) / s)
                        })
                        .collect();
                    (a.name.clone(), speeds)
                })
                .collect();
            return JobTypes {
                kind: "elastic applications",
                unit: "samples/s on one GPU at the initial batch",
                gpu_types,
                rows,
            };
        }
        if let Some(ps) = self.ps() {
            let gpu_types = ps.models.gpu_types();
            let rows = ps
                .models
                .models
                .iter()
                .map(|m| {
                    let speeds = gpu_types
                        .iter()
                        .map(|t| {
                            let f = ps.models.compute_factor(t)?;
                            let v = m.speed_at(1, 1, f);
                            (v > 0.0 && v.is_finite()).then_some(v)
                        })
                        .collect();
                    (m.name.clone(), speeds)
                })
                .collect();
            return JobTypes {
                kind: "parameter-server models",
                unit: "steps/s with one worker and one parameter server",
                gpu_types,
                rows,
            };
        }
        let gpu_types = self.profile.gpu_types();
        let rows = self
            .profile
            .job_type_names()
            .into_iter()
            .map(|n| {
                let speeds = gpu_types
                    .iter()
                    .map(|t| self.profile.throughput(&n, 1, t))
                    .collect();
                (n, speeds)
            })
            .collect();
        JobTypes {
            kind: "job types",
            unit: "steps/s on one GPU",
            gpu_types,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::experiment::scenarios;

    #[test]
    fn every_kind_of_profile_lists_its_job_types_with_speeds() {
        let r = scenarios::default_experiment().resolve().unwrap();
        let t = r.job_types();
        assert_eq!(t.kind, "job types");
        assert_eq!(t.rows.len(), 26);
        assert!(t.gpu_types.contains(&"v100".to_string()));
        let a3c = t.rows.iter().find(|(n, _)| n == "A3C").unwrap();
        let v = t.gpu_types.iter().position(|g| g == "v100").unwrap();
        assert_eq!(a3c.1[v], Some(5.2));
        for exp in [scenarios::pollux_experiment(), scenarios::dl2_experiment()] {
            let t = exp.resolve().unwrap().job_types();
            assert!(t.rows.len() >= 6, "{}", t.kind);
            assert!(!t.gpu_types.is_empty(), "{}", t.kind);
            assert!(
                t.rows
                    .iter()
                    .all(|(_, s)| s.iter().any(|x| x.is_some_and(|v| v > 0.0))),
                "{}: {:?}",
                t.kind,
                t.rows
            );
        }
    }
}
