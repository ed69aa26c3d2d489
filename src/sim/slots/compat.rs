//! DL2-compatible mode (`dl2_compat`): the slot mechanism as DL2's own simulator runs it,
//! so that its workloads and speed table ([`crate::workload::dl2_trace`],
//! [`crate::workload::dl2_files`]) give its numbers.
//!
//! What changes against Orrery's slots:
//! - no job is handed a worker and a parameter server before the policy acts (DL2's
//!   heuristics start every slot from nothing; its learning environment does hand them
//!   out, and a policy says so with [`super::SlotPolicy::bundle_first`]);
//! - a task, or a worker and a parameter server together, goes to the least-loaded server
//!   (the fewest CPUs plus GPU slots in use, a GPU counting as many slots as the server has
//!   CPUs per GPU: 4 on DL2's nodes of 8 CPU and 8 GPU slots; ties to the lower index),
//!   both on that server, or nowhere: if it does not fit there, no other server is tried,
//!   the action is refused and the slot's decisions end ([`plan`]); Tetris names its server
//!   instead ([`on`]);
//! - the policy alone decides when a slot's decisions end (every DL2 heuristic stops at its
//!   first task that does not fit);
//! - nothing costs time to start, stop or resize (DL2 has no restart cost).
//!
//! As in Orrery's slots, jobs that arrived by a slot's start join it, jobs with at least
//! one worker and one parameter server train for the whole slot, and a job that completes
//! inside a slot finishes at the exact time its work is done (DL2's fine-grained JCT).

use super::SlotServer;
use crate::workload::ps::PsModel;

/// A server's load as DL2's node queue counts it: CPUs in use plus GPU slots in use.
pub fn load(s: &SlotServer) -> f64 {
    let per_gpu = if s.gpus > 0 {
        f64::from(s.cpus) / f64::from(s.gpus)
    } else {
        0.0
    };
    f64::from(s.cpus - s.free_cpus) + per_gpu * f64::from(s.gpus - s.free_gpus)
}

/// The least-loaded server (ties to the lower index).
pub fn least_loaded(servers: &[SlotServer]) -> Option<usize> {
    servers
        .iter()
        .enumerate()
        .min_by(|(i, a), (k, b)| load(a).total_cmp(&load(b)).then(i.cmp(k)))
        .map(|(i, _)| i)
}

/// Whether a worker (if `worker`) and a parameter server (if `ps`) of type `m` fit
/// together on `s`.
fn fits(s: &SlotServer, m: &PsModel, worker: bool, ps: bool) -> bool {
    let (w, p) = (u32::from(worker), u32::from(ps));
    s.free_gpus >= w * m.worker_gpus && s.free_cpus >= w * m.worker_cpus + p * m.ps_cpus
}

/// Where a new worker (if `worker`) and a new parameter server (if `ps`) of type `m` go:
/// both on the least-loaded server, or None when they do not fit there.
pub fn plan(
    servers: &[SlotServer],
    m: &PsModel,
    worker: bool,
    ps: bool,
) -> Option<(Option<usize>, Option<usize>)> {
    let s = least_loaded(servers)?;
    fits(&servers[s], m, worker, ps).then_some((worker.then_some(s), ps.then_some(s)))
}

/// A worker and a parameter server of type `m` both on server `s`, if they fit there.
pub fn on(servers: &[SlotServer], m: &PsModel, s: usize) -> Option<(Option<usize>, Option<usize>)> {
    let server = servers.get(s)?;
    fits(server, m, true, true).then_some((Some(s), Some(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(free_gpus: u32, free_cpus: u32) -> SlotServer {
        SlotServer {
            gpus: 2,
            cpus: 8,
            free_gpus,
            free_cpus,
            gpu_type: 0,
        }
    }

    fn model(worker_gpus: u32) -> PsModel {
        let text = r#"{"format": "orrery-ps-models", "version": 1,
            "hardware": {"gpu_tflops": 10, "gpu_efficiency": 0.5, "worker_gbps": 10, "ps_gbps": 10,
                         "step_overhead_s": 0, "sync_s_per_worker": 0},
            "worker_cpus": 2, "ps_cpus": 2,
            "models": [{"name": "m", "params_m": 10, "gflops_per_sample": 1, "batch": 32,
                        "dataset": 1000, "epochs": [1, 2], "source": "test"}]}"#;
        let mut m = crate::workload::PsModels::from_json(text, "t")
            .unwrap()
            .models
            .remove(0);
        m.worker_gpus = worker_gpus;
        m
    }

    #[test]
    fn the_least_loaded_server_takes_the_bundle_or_nothing_does() {
        // Loads: a GPU worker and a PS (2 + 4 + 2 = 8), a PS (2), empty (0), empty (0).
        let servers = [server(1, 4), server(2, 6), server(2, 8), server(2, 8)];
        assert_eq!(load(&servers[0]), 8.0);
        assert_eq!(least_loaded(&servers), Some(2));
        let m = model(1);
        assert_eq!(plan(&servers, &m, true, true), Some((Some(2), Some(2))));
        assert_eq!(plan(&servers, &m, false, true), Some((None, Some(2))));
        // Full except for the least-loaded server's CPUs: nothing else is tried.
        let tight = [server(0, 8), server(2, 1)];
        assert_eq!(least_loaded(&tight), Some(1));
        assert_eq!(plan(&tight, &m, true, false), None);
        assert_eq!(on(&tight, &m, 0), None);
        // A CPU-only worker needs no GPU.
        assert_eq!(on(&tight, &model(0), 0), Some((Some(0), Some(0))));
    }
}
