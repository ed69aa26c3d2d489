//! Rigid jobs as elastic ones: a job of a round-based profile (a job type at a scale
//! factor, with a throughput on each GPU type) as an application of the elastic mechanism,
//! so that Pollux runs a rigid workload beside the round-based and preemptive policies.
//!
//! A rigid job runs on exactly its GPU count at its fixed batch or not at all: its
//! application gives a step time only at that count, on a GPU type where the profile has a
//! throughput for it (one step in `1 / throughput` seconds), and its statistical efficiency
//! is 1 (the batch never changes). Each distinct (job type, GPU count, steps) becomes one
//! application named after them, so that every job keeps its own amount of work.

use super::elastic::{AppModel, Apps, ElasticApp, RigidModel};
use super::profile::Profile;
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use std::collections::BTreeMap;

/// The name of the application of a rigid job.
fn app_name(job: &JobSpec) -> String {
    format!(
        "{} [{} GPU{}, {} steps]",
        job.job_type,
        job.scale_factor,
        if job.scale_factor == 1 { "" } else { "s" },
        job.total_steps
    )
}

/// A rigid trace as elastic jobs, each of an application of its own (see the module
/// docs), with the throughputs of `profile` on every GPU type of `cluster`. Each job keeps
/// its arrival, GPU count, work, weight and restart delay.
pub fn elastic_workload(
    jobs: &[JobSpec],
    profile: &Profile,
    cluster: &ClusterSpec,
) -> (Vec<JobSpec>, Apps) {
    let mut apps: BTreeMap<String, ElasticApp> = BTreeMap::new();
    let out = jobs
        .iter()
        .map(|j| {
            let name = app_name(j);
            let gpus = j.scale_factor.max(1);
            apps.entry(name.clone()).or_insert_with(|| {
                let rates = cluster
                    .types
                    .iter()
                    .map(|t| {
                        let r = profile
                            .throughput(&j.job_type, j.scale_factor, &t.name)
                            .filter(|v| v.is_finite() && *v > 0.0 && t.count >= gpus)
                            .unwrap_or(0.0);
                        (t.name.clone(), r)
                    })
                    .collect();
                ElasticApp {
                    name: name.clone(),
                    init_batch_size: gpus,
                    max_batch_size: gpus,
                    min_local_bsz: 1,
                    max_local_bsz: 1,
                    max_epochs: 1,
                    fixed_batch_size: Some(gpus),
                    max_replicas: Some(gpus),
                    model: AppModel::Rigid(RigidModel {
                        gpus,
                        steps: j.total_steps,
                        rates,
                    }),
                    source: format!("rigid job of type {} from the profile", j.job_type),
                    user_configs: vec![[gpus, gpus]],
                    slowdown: 1.0,
                    restart_s: None,
                }
            });
            JobSpec {
                job_type: name,
                batch_size: None,
                ..j.clone()
            }
        })
        .collect();
    let apps = Apps {
        apps: apps.into_values().collect(),
        unread: Vec::new(),
    };
    (out, apps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rigid_job_runs_only_at_its_size_where_it_has_a_throughput() {
        let mut profile = Profile::default();
        profile.set("A", 2, "v100", 4.0);
        profile.set("A", 2, "k80", 1.0);
        let cluster = ClusterSpec::parse("k80:4,t4:4,v100:4").unwrap();
        let jobs = vec![
            JobSpec::new("A", 0.0, 100.0).with_scale(2),
            JobSpec::new("A", 5.0, 100.0).with_scale(2),
            JobSpec::new("A", 9.0, 50.0).with_scale(2),
        ];
        let (out, apps) = elastic_workload(&jobs, &profile, &cluster);
        // Two applications: the two jobs of 100 steps share one.
        assert_eq!(apps.apps.len(), 2);
        assert_eq!(out[0].job_type, out[1].job_type);
        assert_eq!(out[0].job_type, "A [2 GPUs, 100 steps]");
        assert_eq!(out[1].arrival, 5.0);
        let app = &apps.apps[apps.index(&out[0].job_type).unwrap()];
        assert_eq!(app.target_progress(), 100.0);
        assert_eq!(app.step_time_on(Some("v100"), &[2], 1), Some((0.25, 0.0)));
        assert_eq!(app.step_time_on(Some("v100"), &[1], 1), None);
        assert_eq!(app.step_time_on(Some("t4"), &[2], 1), None);
        assert!(app.knows_type("t4"));
        // Every batch is its own: efficiency 1, no accumulation.
        assert_eq!(app.efficiency(2.0, 0), 1.0);
        assert_eq!(app.fixed_batch(2, None), (1, 0));
    }
}
