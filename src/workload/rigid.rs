//! Elastic jobs as rigid ones: the per-GPU-type throughput of an elastic application's job
//! at its user-chosen size and batch, so that round-based policies (Gavel's, the classic
//! ones) run an elastic workload beside Pollux and its baselines.
//!
//! A job of application `app` asking for `r` GPUs at total batch `B` (its trace's batch, or
//! the size the elastic simulator gives a job without a target: the initial batch, at least
//! the smallest local batch on every GPU) runs packed on servers of `per_server` GPUs with
//! the local batch and gradient accumulation the elastic simulator picks for a fixed batch.
//! Its step time comes from the application's model; its progress per step from the
//! statistical efficiency of each epoch. Its work is the iterations it needs at that batch
//! to reach its application's progress target, epoch by epoch, so that it takes exactly
//! as long as the elastic simulator needs for the job alone at that configuration,
//! restarts aside; its throughput is in iterations per second, as Gavel's are.

use super::elastic::{packed_placement, Apps, ElasticApp};
use super::profile::Profile;
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;

/// Progress units per second of a job of `app` run rigidly on `gpus` GPUs packed on servers
/// of `per_server`, at total batch `batch` (see the module docs); `None` where the model
/// cannot say.
pub fn rigid_rate(app: &ElasticApp, gpus: u32, per_server: u32, batch: Option<u32>) -> Option<f64> {
    rigid_rate_on(app, None, gpus, per_server, batch)
}

/// [`rigid_rate`] on GPU type `gpu` (None: the application's unnamed type).
pub fn rigid_rate_on(
    app: &ElasticApp,
    gpu: Option<&str>,
    gpus: u32,
    per_server: u32,
    batch: Option<u32>,
) -> Option<f64> {
    let (step, iterations) = rigid_steps(app, gpu, gpus, per_server, batch)?;
    let seconds = step * iterations;
    let target = app.target_progress();
    (seconds > 0.0 && target > 0.0).then(|| target / seconds)
}

/// Seconds per iteration of a job of `app` run rigidly on `gpus` GPUs of type `gpu` packed
/// on servers of `per_server` at total batch `batch`, and the iterations it needs to reach
/// its application's progress target (epoch by epoch, each iteration worth the epoch's
/// statistical-efficiency gain); `None` where the model cannot say.
pub fn rigid_steps(
    app: &ElasticApp,
    gpu: Option<&str>,
    gpus: u32,
    per_server: u32,
    batch: Option<u32>,
) -> Option<(f64, f64)> {
    if gpus == 0 {
        return None;
    }
    let (_, max_local) = app.local_range(gpu);
    let (atomic, accum) = app.fixed_batch_within(gpus, batch.map(f64::from), max_local);
    let total_batch = f64::from(gpus * atomic * (accum + 1));
    let scale = total_batch / f64::from(app.init_batch_size);
    let placement = packed_placement(gpus, per_server.max(1));
    let (step, sync) = app.step_time_on(gpu, &placement, atomic)?;
    let per_step = (step + (step - sync) * f64::from(accum)) * app.slowdown;
    if !(per_step.is_finite() && per_step > 0.0) {
        return None;
    }
    let mut iterations = 0.0;
    for epoch in 0..app.max_epochs {
        let gain = app.grad_stats(total_batch, epoch).gain(scale);
        if !(gain.is_finite() && gain > 0.0) {
            return None;
        }
        let work = app.progress_at_epoch(epoch + 1) - app.progress_at_epoch(epoch);
        iterations += work / gain;
    }
    (iterations > 0.0).then_some((per_step, iterations))
}

/// The name of the rigid job type of `app` at total batch `batch`.
fn type_name(app: &str, batch: Option<u32>) -> String {
    match batch {
        Some(b) => format!("{app} (batch {b})"),
        None => app.to_string(),
    }
}

/// An elastic trace as rigid jobs with a profile of their throughputs on every GPU type of
/// the cluster: each job keeps its arrival and GPU count and becomes a job type of its
/// application and batch, whose steps are its iterations at that batch (as Gavel counts
/// them): its work is the iterations it needs on the first type (in the cluster's order)
/// that can run it, and its throughput on each type is such that it takes there as long as
/// its application's model says. A type the application has no speeds for gets none (the
/// job does not run there), except on a cluster of one type, which runs at the
/// application's unnamed speeds. Jobs whose configuration the model cannot rate anywhere
/// keep their application's progress target and get no throughput (the round simulator
/// refuses them, naming the job).
pub fn rigid_workload(
    apps: &Apps,
    jobs: &[JobSpec],
    cluster: &ClusterSpec,
) -> (Vec<JobSpec>, Profile) {
    let mut profile = Profile::default();
    let mut work: std::collections::BTreeMap<String, f64> = Default::default();
    let one_type = cluster.types.len() == 1;
    let out = jobs
        .iter()
        .map(|j| {
            let name = type_name(&j.job_type, j.batch_size);
            let mut total = None;
            if let Some(app) = apps.index(&j.job_type).map(|k| &apps.apps[k]) {
                total = work.get(&format!("{name}/{}", j.scale_factor)).copied();
                for gpu in &cluster.types {
                    let key = if app.knows_type(&gpu.name) {
                        Some(gpu.name.as_str())
                    } else if one_type {
                        None
                    } else {
                        continue;
                    };
                    if profile
                        .throughput(&name, j.scale_factor, &gpu.name)
                        .is_some()
                    {
                        continue;
                    }
                    let Some((step, iterations)) =
                        rigid_steps(app, key, j.scale_factor, gpu.per_server, j.batch_size)
                    else {
                        continue;
                    };
                    let n = *total.get_or_insert(iterations);
                    profile.set(&name, j.scale_factor, &gpu.name, n / (step * iterations));
                }
                if let Some(n) = total {
                    work.insert(format!("{name}/{}", j.scale_factor), n);
                }
            }
            JobSpec {
                job_type: name,
                total_steps: total.unwrap_or(j.total_steps),
                ..j.clone()
            }
        })
        .collect();
    (out, profile)
}
