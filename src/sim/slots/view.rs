//! What a slot policy sees: the jobs of the window with their features and the actions the
//! cluster allows, dominant shares, and the plan that places a slot's workers and parameter
//! servers.

use super::{SlotAction, SlotJob, SlotServer, ACTIONS_PER_JOB, STATE_FEATURES};
use crate::model::job::JobId;
use crate::workload::ps::{PsModel, PsModels};

/// What a slot policy sees at each call.
#[derive(Debug)]
pub struct SlotView<'a> {
    /// Start of the slot (s).
    pub now: f64,
    /// Slot number (0-based).
    pub slot: u64,
    /// Seconds per slot.
    pub slot_s: f64,
    /// Restart delay (s).
    pub restart_s: f64,
    /// GPUs of the cluster.
    pub total_gpus: u32,
    /// CPUs of the cluster.
    pub total_cpus: u32,
    /// GPUs not allocated in this slot.
    pub free_gpus: u32,
    /// CPUs not allocated in this slot.
    pub free_cpus: u32,
    /// Most workers one job may hold.
    pub max_workers: u32,
    /// Most parameter servers one job may hold.
    pub max_ps: u32,
    /// DL2's simulator's mechanism: tasks go to the least-loaded server only
    /// ([`super::compat`]).
    pub dl2_compat: bool,
    /// Every job, by id.
    pub jobs: &'a [SlotJob],
    /// Active jobs (arrived, unfinished) in arrival order: DL2's window is a prefix of it.
    pub active: &'a [JobId],
    /// The servers.
    pub servers: &'a [SlotServer],
    /// The job types.
    pub models: &'a PsModels,
}

impl SlotView<'_> {
    /// The type of job `id`.
    pub fn model(&self, id: JobId) -> Option<&PsModel> {
        self.models.models.get(self.jobs.get(id)?.model)
    }

    /// Steps per second of job `id` with `w` workers and `p` parameter servers.
    pub fn speed(&self, id: JobId, w: u32, p: u32) -> f64 {
        self.model(id).map_or(0.0, |m| m.speed(w, p))
    }

    /// Seconds job `id` needs to finish with `w` workers and `p` parameter servers
    /// (infinite when it cannot train).
    pub fn remaining_s(&self, id: JobId, w: u32, p: u32) -> f64 {
        let s = self.speed(id, w, p);
        match self.jobs.get(id) {
            Some(j) if s > 0.0 => j.remaining_steps() / s,
            _ => f64::INFINITY,
        }
    }

    /// Dominant resource share of job `id` with `w` workers and `p` parameter servers: the
    /// larger of its GPUs over the cluster's and its CPUs over the cluster's.
    pub fn share_with(&self, id: JobId, w: u32, p: u32) -> f64 {
        let Some(m) = self.model(id) else {
            return 0.0;
        };
        dominant_share(m, w, p, self.total_gpus, self.total_cpus)
    }

    /// Dominant resource share of job `id` with its current allocation.
    pub fn dominant_share(&self, id: JobId) -> f64 {
        self.jobs
            .get(id)
            .map_or(0.0, |j| self.share_with(id, j.workers, j.ps))
    }

    /// Whether `action` can be applied now: its job is active, within the caps, and its
    /// tasks fit on the servers (Stop always can).
    pub fn can(&self, action: SlotAction) -> bool {
        let Some(id) = action.job() else {
            return true;
        };
        let (Some(j), Some(m)) = (self.jobs.get(id), self.model(id)) else {
            return false;
        };
        if j.finish.is_some()
            || self
                .active
                .binary_search_by(|&a| arrival_cmp(self.jobs, a, id))
                .is_err()
        {
            return false;
        }
        let (dw, dp) = action.adds();
        let fits = match action {
            SlotAction::AddBothOn(_, s) => super::compat::on(self.servers, m, s).is_some(),
            _ if self.dl2_compat => {
                super::compat::plan(self.servers, m, dw == 1, dp == 1).is_some()
            }
            _ => plan(self.servers, m, dw == 1, dp == 1, None).is_some(),
        };
        j.workers + dw <= self.max_workers && j.ps + dp <= self.max_ps && fits
    }

    /// Whether some active job can take another worker or parameter server.
    pub fn any_action(&self) -> bool {
        self.active
            .iter()
            .any(|&j| self.can(SlotAction::AddWorker(j)) || self.can(SlotAction::AddPs(j)))
    }

    /// DL2's state features of job `id` (see [`STATE_FEATURES`]), unscaled.
    pub fn features(&self, id: JobId) -> [f64; STATE_FEATURES] {
        let Some(j) = self.jobs.get(id) else {
            return [0.0; STATE_FEATURES];
        };
        [
            j.model as f64,
            ((self.now - j.arrival) / self.slot_s).max(0.0),
            j.remaining_fraction(),
            self.dominant_share(id),
            f64::from(j.workers),
            f64::from(j.ps),
        ]
    }

    /// The state of the first `window` active jobs (arrival order), `window *
    /// STATE_FEATURES` numbers, job by job, zero-padded.
    pub fn state(&self, window: usize) -> Vec<f64> {
        let mut out = vec![0.0; window * STATE_FEATURES];
        for (k, &id) in self.active.iter().take(window).enumerate() {
            out[k * STATE_FEATURES..(k + 1) * STATE_FEATURES].copy_from_slice(&self.features(id));
        }
        out
    }

    /// Number of actions for a window of `window` jobs: three per job (worker, parameter
    /// server, both) and stop, last.
    pub fn action_count(window: usize) -> usize {
        window * ACTIONS_PER_JOB + 1
    }

    /// The action of index `index` for a window of `window` jobs (Stop for the last index,
    /// an empty window position or an index out of range).
    pub fn action_at(&self, window: usize, index: usize) -> SlotAction {
        let k = index / ACTIONS_PER_JOB;
        if k >= window {
            return SlotAction::Stop;
        }
        let Some(&id) = self.active.get(k) else {
            return SlotAction::Stop;
        };
        match index % ACTIONS_PER_JOB {
            0 => SlotAction::AddWorker(id),
            1 => SlotAction::AddPs(id),
            _ => SlotAction::AddBoth(id),
        }
    }

    /// The index of `action` for a window of `window` jobs (None when its job is not in
    /// the window).
    pub fn action_index(&self, window: usize, action: SlotAction) -> Option<usize> {
        let Some(id) = action.job() else {
            return Some(window * ACTIONS_PER_JOB);
        };
        let k = self.active.iter().take(window).position(|&a| a == id)?;
        Some(
            k * ACTIONS_PER_JOB
                + match action {
                    SlotAction::AddWorker(_) => 0,
                    SlotAction::AddPs(_) => 1,
                    _ => 2,
                },
        )
    }

    /// Which actions of a window of `window` jobs can be applied now (stop always can).
    pub fn action_mask(&self, window: usize) -> Vec<bool> {
        (0..Self::action_count(window))
            .map(|i| {
                let a = self.action_at(window, i);
                a == SlotAction::Stop && i == window * ACTIONS_PER_JOB
                    || a != SlotAction::Stop && self.can(a)
            })
            .collect()
    }
}

/// Dominant share of `w` workers and `p` parameter servers of type `m`.
pub fn dominant_share(m: &PsModel, w: u32, p: u32, total_gpus: u32, total_cpus: u32) -> f64 {
    let gpus = f64::from(w) * f64::from(m.worker_gpus);
    let cpus = f64::from(w) * f64::from(m.worker_cpus) + f64::from(p) * f64::from(m.ps_cpus);
    let g = if total_gpus > 0 {
        gpus / f64::from(total_gpus)
    } else {
        0.0
    };
    let c = if total_cpus > 0 {
        cpus / f64::from(total_cpus)
    } else {
        0.0
    };
    g.max(c)
}

/// Order of jobs by arrival, then id.
pub(super) fn arrival_cmp(jobs: &[SlotJob], a: JobId, b: JobId) -> std::cmp::Ordering {
    jobs[a].arrival.total_cmp(&jobs[b].arrival).then(a.cmp(&b))
}

/// Where a new worker (if `worker`) and a new parameter server (if `ps`) of type `m` go:
/// (worker's server, parameter server's server), None if they do not fit. A worker goes to
/// a server of GPU type `keep` when one has room (a job's workers stay on one type: a
/// synchronous step waits for the slowest), else to any.
pub fn plan(
    servers: &[SlotServer],
    m: &PsModel,
    worker: bool,
    ps: bool,
    keep: Option<usize>,
) -> Option<(Option<usize>, Option<usize>)> {
    let w = if worker {
        let fits = |s: &SlotServer| s.free_gpus >= m.worker_gpus && s.free_cpus >= m.worker_cpus;
        let best = |same: bool| {
            servers
                .iter()
                .enumerate()
                .filter(|(_, s)| fits(s) && (!same || Some(s.gpu_type) == keep))
                .max_by(|(i, a), (k, b)| {
                    a.free_gpus
                        .cmp(&b.free_gpus)
                        .then(a.free_cpus.cmp(&b.free_cpus))
                        .then(k.cmp(i))
                })
                .map(|b| b.0)
        };
        Some(if keep.is_some() {
            best(true).or_else(|| best(false))?
        } else {
            best(false)?
        })
    } else {
        None
    };
    let p = if ps {
        let free = |i: usize, s: &SlotServer| -> (u32, u32) {
            if Some(i) == w {
                (s.free_gpus - m.worker_gpus, s.free_cpus - m.worker_cpus)
            } else {
                (s.free_gpus, s.free_cpus)
            }
        };
        let spare = |g: u32, c: u32| i64::from(c) - i64::from(g) * i64::from(m.worker_cpus);
        let best = servers
            .iter()
            .enumerate()
            .map(|(i, s)| (i, free(i, s)))
            .filter(|(_, (_, c))| *c >= m.ps_cpus)
            .max_by(|(i, (ga, ca)), (k, (gb, cb))| {
                spare(*ga, *ca)
                    .cmp(&spare(*gb, *cb))
                    .then(ca.cmp(cb))
                    .then(k.cmp(i))
            })?;
        Some(best.0)
    } else {
        None
    };
    Some((w, p))
}
