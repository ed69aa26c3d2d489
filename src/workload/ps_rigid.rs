//! Parameter-server jobs as rigid ones, so that the other families' policies (Gavel's and
//! the classic rounds, PickyMan's events, Pollux's ticks through [`super::as_elastic`]) run a
//! parameter-server workload beside DL2's family.
//!
//! A job of model `m` runs with a fixed `workers` workers and as many parameter servers (the
//! experiment's [`super::PsConfig::rigid_workers`]): a gang of `workers` GPUs (its workers'
//! GPUs; a model whose workers take no GPU counts one per worker) at the speed of its
//! model's function there, in single-worker steps per second, on each GPU type of the
//! cluster (at the type's compute rate when the profile names it). Its work is unchanged,
//! so it takes as long as the slot mechanism would need for the job alone at that size,
//! restarts and slot boundaries aside. The parameter servers' CPUs are not modelled: the
//! rigid mechanisms count GPUs only.

use super::profile::Profile;
use super::ps::PsModels;
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;

/// The jobs of a parameter-server workload as rigid jobs of `workers` GPUs, with the
/// profile of their throughputs on the GPU types of `cluster`. Jobs of a type the models do
/// not have keep their own size and get no throughput (resolution has refused them before).
pub fn rigid_workload(
    models: &PsModels,
    jobs: &[JobSpec],
    cluster: &ClusterSpec,
    workers: u32,
) -> (Vec<JobSpec>, Profile) {
    let workers = workers.max(1);
    let mut profile = Profile::default();
    for m in &models.models {
        for t in &cluster.types {
            let rate = models.compute_factor(&t.name).unwrap_or(1.0);
            let gpus = workers * m.worker_gpus.max(1);
            profile.set(&m.name, gpus, &t.name, m.speed_at(workers, workers, rate));
        }
    }
    let out = jobs
        .iter()
        .map(|j| {
            let mut r = j.clone();
            if let Some(m) = models.index(&j.job_type).map(|k| &models.models[k]) {
                r.scale_factor = workers * m.worker_gpus.max(1);
            }
            r
        })
        .collect();
    (out, profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_runs_at_its_model_speed_with_the_stated_workers() {
        let models = super::super::presets::ps_models("dl2-models")
            .expect("bundled")
            .unwrap();
        let m = &models.models[0];
        let jobs = vec![JobSpec::new(m.name.clone(), 10.0, 5000.0)];
        let cluster = ClusterSpec::parse("gpu:16/8").unwrap();
        let (out, profile) = rigid_workload(&models, &jobs, &cluster, 2);
        assert_eq!(out[0].scale_factor, 2 * m.worker_gpus);
        assert_eq!((out[0].arrival, out[0].total_steps), (10.0, 5000.0));
        let tput = profile
            .throughput(&m.name, out[0].scale_factor, "gpu")
            .unwrap();
        assert_eq!(tput, m.speed(2, 2));
    }
}
