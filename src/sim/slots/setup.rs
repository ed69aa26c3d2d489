//! Checking a slot experiment before it runs: every job's type has a model and fits on
//! empty servers; the servers and each type's compute factor from the cluster.

use super::view::plan;
use super::SlotServer;
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use crate::sim::SimError;
use crate::workload::ps::{PsConfig, PsModels};

/// Check that every job's type is in `models` and that one worker and one parameter
/// server of it fit on empty servers of the cluster.
pub fn check_jobs(
    cluster: &ClusterSpec,
    ps: &PsConfig,
    specs: &[JobSpec],
    models: &PsModels,
) -> Result<(), SimError> {
    let servers = servers_of(cluster, ps)?;
    compute_factors(cluster, models)?;
    for (id, s) in specs.iter().enumerate() {
        let bad = |reason: String| SimError::Job {
            job: id,
            job_type: s.job_type.clone(),
            reason,
        };
        let m = models
            .index(&s.job_type)
            .map(|k| &models.models[k])
            .ok_or_else(|| bad("not a model of the parameter-server profile".into()))?;
        if !(s.total_steps.is_finite() && s.total_steps > 0.0) {
            return Err(bad(format!(
                "total steps {} must be positive",
                s.total_steps
            )));
        }
        if !(s.arrival.is_finite() && s.arrival >= 0.0) {
            return Err(bad(format!("arrival {} must be non-negative", s.arrival)));
        }
        if plan(&servers, m, true, true, None).is_none() {
            let first = servers.first().copied().unwrap_or(SlotServer {
                gpus: 0,
                cpus: 0,
                free_gpus: 0,
                free_cpus: 0,
                gpu_type: 0,
            });
            return Err(bad(format!(
                "a worker ({} GPU, {} CPUs) and a parameter server ({} CPUs) do not fit on servers of {} GPUs and {} CPUs",
                m.worker_gpus, m.worker_cpus, m.ps_cpus, first.gpus, first.cpus
            )));
        }
    }
    Ok(())
}

pub(super) fn cfg_err(field: &str, reason: impl Into<String>) -> SimError {
    SimError::Config {
        field: field.into(),
        reason: reason.into(),
    }
}

/// The servers of `cluster` (each GPU type in whole servers of its own size) with
/// `ps.cpus_per_server` CPUs each, type by type.
pub(super) fn servers_of(
    cluster: &ClusterSpec,
    ps: &PsConfig,
) -> Result<Vec<SlotServer>, SimError> {
    if cluster.types.is_empty() {
        return Err(cfg_err("cluster", "the cluster has no GPUs"));
    }
    ps.check().map_err(|e| cfg_err("ps", e.to_string()))?;
    let mut servers = Vec::new();
    for (k, t) in cluster.types.iter().enumerate() {
        let per = t.per_server.max(1);
        if t.count == 0 || t.count % per != 0 {
            return Err(cfg_err(
                "cluster",
                format!(
                    "{}: {} GPUs do not make whole servers of {per} (e.g. gpu:64/8)",
                    t.name, t.count
                ),
            ));
        }
        servers.extend((0..t.count / per).map(|_| SlotServer {
            gpus: per,
            cpus: ps.cpus_per_server,
            free_gpus: per,
            free_cpus: ps.cpus_per_server,
            gpu_type: k,
        }));
    }
    Ok(servers)
}

/// How many times as fast as the profile's hardware each GPU type of `cluster` computes:
/// its named rate, or on a cluster of one type the profile does not name, the hardware's.
pub(super) fn compute_factors(
    cluster: &ClusterSpec,
    models: &PsModels,
) -> Result<Vec<f64>, SimError> {
    cluster
        .types
        .iter()
        .map(|t| match models.compute_factor(&t.name) {
            Some(f) => Ok(f),
            None if cluster.types.len() == 1 => Ok(1.0),
            None => {
                let known = models.gpu_types();
                Err(cfg_err(
                    "cluster",
                    format!(
                        "the parameter-server profile has no rate for GPU type '{}' (it knows {}); a cluster of several types needs types it knows",
                        t.name,
                        if known.is_empty() {
                            "no named types".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ))
            }
        })
        .collect()
}
