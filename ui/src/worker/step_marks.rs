//! What failures and spot capacity did to a stepped run since its last board, for the
//! stepper to mark on the cluster's picture: the servers that failed (and those still away
//! for repair), the GPUs a spot trace does not hold, and the jobs a failure interrupted with
//! the work they lost. The worker reads them from the run's recorder, which holds every
//! failure and interruption as it happened.

use orrery::experiment::{Experiment, Resolved};
use orrery::metrics::Recorder;
use orrery::model::job::JobId;
use orrery::model::spot::CapacityTrace;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A failed server on the board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerMark {
    /// Its global index (types in the cluster's order, servers in GPU order).
    pub server: u32,
    /// Its GPU type's index (the board's order).
    pub ty: usize,
    /// Its GPU type's name.
    pub ty_name: String,
    /// Its index among its type's servers.
    pub index: u32,
    /// Its GPUs of that type, from the first to the one past the last.
    pub gpus: (u32, u32),
    /// When it failed (s).
    pub time: f64,
    /// The category of the cause.
    pub category: String,
    /// When it is back (its failure's time when a spare replaced it at once).
    pub back_at: f64,
}

/// A job a failure interrupted, rolled back to its last checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rollback {
    /// The job.
    pub job: JobId,
    /// When (s; the last interruption's time when it was interrupted more than once).
    pub time: f64,
    /// Times it was interrupted.
    pub times: u32,
    /// Seconds of computation taken back.
    pub lost_s: f64,
    /// GPU-hours taken back.
    pub lost_gpu_h: f64,
}

/// The marks of one board.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FaultMarks {
    /// The time of the previous board (s): the marks are of what happened since.
    pub since: f64,
    /// Servers that failed since the previous board.
    pub failed: Vec<ServerMark>,
    /// Servers that failed before and are still away for repair.
    pub down: Vec<ServerMark>,
    /// Spot types: (type index, the first GPU the trace does not hold, instances held) in
    /// the last step.
    pub withheld: Vec<(usize, u32, u32)>,
    /// Jobs interrupted since the previous board.
    pub interrupted: Vec<Rollback>,
}

impl FaultMarks {
    /// The mark of GPU `gpu` of type `ty`: its class and what its tooltip adds.
    pub fn gpu(&self, ty: usize, gpu: u32) -> Option<(&'static str, String)> {
        let on = |m: &&ServerMark| m.ty == ty && (m.gpus.0..m.gpus.1).contains(&gpu);
        if let Some(m) = self.failed.iter().find(on) {
            return Some((
                "failed",
                format!(
                    "server {} failed at {} ({}){}",
                    m.server,
                    clock(m.time),
                    m.category,
                    if m.back_at > m.time {
                        format!(", away until {}", clock(m.back_at))
                    } else {
                        ", a spare took its place".into()
                    }
                ),
            ));
        }
        if let Some(m) = self.down.iter().find(on) {
            return Some((
                "down",
                format!(
                    "server {} away for repair until {} (failed at {}, {})",
                    m.server,
                    clock(m.back_at),
                    clock(m.time),
                    m.category
                ),
            ));
        }
        self.withheld
            .iter()
            .find(|w| w.0 == ty && gpu >= w.1)
            .map(|w| {
                (
                    "withheld",
                    format!("not held: the spot trace holds {} instances", w.2),
                )
            })
    }

    /// The mark of server `index` of GPU type `ty_name` (boards that draw servers): its
    /// class and what its tooltip adds.
    pub fn server(&self, ty_name: &str, index: u32) -> Option<(&'static str, String)> {
        let on = |m: &&ServerMark| m.ty_name == ty_name && m.index == index;
        if let Some(m) = self.failed.iter().find(on) {
            return Some((
                "failed",
                format!("failed at {} ({})", clock(m.time), m.category),
            ));
        }
        self.down.iter().find(on).map(|m| {
            (
                "down",
                format!("away for repair until {}", clock(m.back_at)),
            )
        })
    }

    /// The rollback of job `job`, if a failure interrupted it since the previous board.
    pub fn rollback(&self, job: JobId) -> Option<&Rollback> {
        self.interrupted.iter().find(|r| r.job == job)
    }
}

/// A clock's seconds as days, hours, minutes and seconds.
pub fn clock(s: f64) -> String {
    let t = s.max(0.0) as u64;
    format!(
        "{}d {:02}:{:02}:{:02}",
        t / 86400,
        (t / 3600) % 24,
        (t / 60) % 60,
        t % 60
    )
}

/// What the worker remembers between boards to mark the next one.
pub struct Marker {
    /// Per GPU type (the board's order): the global index of its first server, its GPUs
    /// per server and its GPUs.
    types: Vec<(u32, u32, u32)>,
    /// The GPU types' names.
    names: Vec<String>,
    /// Seconds a failed server is away.
    repair_s: f64,
    /// Spot types: type index, GPUs per instance, GPUs, the trace.
    spot: Vec<(usize, u32, u32, CapacityTrace)>,
    /// Failures and interruptions of the recorder already marked.
    seen: (usize, usize),
    /// Seconds and GPU-seconds each interrupted job had lost at the last board.
    lost: HashMap<JobId, (f64, f64)>,
    /// Servers away for repair at the last board.
    away: Vec<ServerMark>,
    /// The time of the last board.
    since: f64,
}

impl Marker {
    /// The marker of `exp` resolved as `r`; None when it has neither failures nor spot
    /// capacity.
    pub fn new(exp: &Experiment, r: &Resolved) -> Option<Self> {
        if r.sim.faults.is_none() && exp.spot.is_empty() {
            return None;
        }
        let mut first = 0;
        let types = r
            .cluster
            .types
            .iter()
            .map(|t| {
                let per = t.per_server.max(1);
                let at = (first, per, t.count);
                first += t.count.div_ceil(per);
                at
            })
            .collect();
        let spot = exp
            .spot
            .iter()
            .filter_map(|(name, src)| {
                let t = r.cluster.types.iter().position(|c| &c.name == name)?;
                let spec = &r.cluster.types[t];
                let trace = CapacityTrace::parse(&src.text).ok()?;
                Some((t, spec.per_server.max(1), spec.count, trace))
            })
            .collect();
        Some(Marker {
            types,
            names: r.cluster.types.iter().map(|t| t.name.clone()).collect(),
            repair_s: r.sim.faults.as_ref().map_or(0.0, |f| f.failures.repair_s),
            spot,
            seen: (0, 0),
            lost: HashMap::new(),
            away: Vec::new(),
            since: 0.0,
        })
    }

    /// Server `s`'s type, its index among the type's servers and its GPUs.
    fn place(&self, s: u32) -> Option<(usize, u32, (u32, u32))> {
        let t = self.types.iter().rposition(|x| x.0 <= s)?;
        let (first, per, count) = self.types[t];
        let k = s - first;
        (k * per < count).then(|| (t, k, (k * per, ((k + 1) * per).min(count))))
    }

    /// The marks of the board at `now`, the last step having started at `step_start`.
    pub fn marks(&mut self, rec: &Recorder, now: f64, step_start: f64) -> FaultMarks {
        let failures = &rec.faults.failures;
        let mut failed = Vec::new();
        for (i, (time, server, category)) in failures.iter().enumerate().skip(self.seen.0) {
            if let Some((ty, index, mut gpus)) = self.place(*server) {
                // In a GPU domain, one GPU of the server failed.
                let gpu = (rec.faults.failed_gpus.iter())
                    .find(|x| x.0 == i)
                    .map(|x| x.1);
                let mut category = category.clone();
                if let Some(g) = gpu {
                    gpus = (gpus.0 + g, (gpus.0 + g + 1).min(gpus.1));
                    category = format!("{category}, its GPU {g}");
                }
                failed.push(ServerMark {
                    server: *server,
                    ty,
                    ty_name: self.names.get(ty).cloned().unwrap_or_default(),
                    index,
                    gpus,
                    time: *time,
                    category,
                    back_at: time + self.repair_s,
                });
            }
        }
        let mut interrupted: Vec<Rollback> = Vec::new();
        for &(time, job) in rec.faults.interruptions.iter().skip(self.seen.1) {
            match interrupted.iter_mut().find(|r| r.job == job) {
                Some(r) => {
                    r.time = time;
                    r.times += 1;
                }
                None => interrupted.push(Rollback {
                    job,
                    time,
                    times: 1,
                    lost_s: 0.0,
                    lost_gpu_h: 0.0,
                }),
            }
        }
        for r in &mut interrupted {
            let Some(j) = rec.jobs.get(r.job) else {
                continue;
            };
            let before = self.lost.insert(r.job, (j.lost_s, j.lost_gpu_s));
            let (s0, g0) = before.unwrap_or((0.0, 0.0));
            r.lost_s = j.lost_s - s0;
            r.lost_gpu_h = (j.lost_gpu_s - g0) / 3600.0;
        }
        self.seen = (failures.len(), rec.faults.interruptions.len());
        let down = std::mem::take(&mut self.away)
            .into_iter()
            .filter(|m| m.back_at > now)
            .collect::<Vec<_>>();
        self.away = down
            .iter()
            .chain(failed.iter().filter(|m| m.back_at > now))
            .cloned()
            .collect();
        let withheld = self
            .spot
            .iter()
            .map(|(t, per, count, trace)| {
                let held = trace.at(step_start);
                (*t, held.saturating_mul(*per).min(*count), held)
            })
            .filter(|w| {
                self.types
                    .get(w.0)
                    .is_some_and(|&(_, _, count)| w.1 < count)
            })
            .collect();
        let since = std::mem::replace(&mut self.since, now);
        FaultMarks {
            since,
            failed,
            down,
            withheld,
            interrupted,
        }
    }
}
