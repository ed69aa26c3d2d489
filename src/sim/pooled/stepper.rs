//! What the shell sees of this mechanism: how it is built from a [`Setup`] ([`build`]), its
//! [`Stepper`](crate::sim::Stepper), and its board for the page's stepper.
//!
//! The board shows the pooled simulator (Aryl) after a tick: training and inference servers
//! with the jobs on them (inference servers serving the load, loaned ones), and the active
//! jobs.

use super::{Pool, PooledSimulator};
use super::{PooledConfig, PooledPolicy};
use crate::model::job::JobId;
use crate::sim::board::{
    blank, fraction, Area, Board, BoardContext, Cell, Gpu, GpuKind, Row, Server, ServerKind, Table,
};
use crate::sim::setup::Setup;
use crate::sim::shell::stepper;
use crate::sim::Mechanism;
use crate::sim::SimError;

/// Aryl's pools of `policy`, a tick every `interval` seconds (the setup's when `None`); the
/// setup must have an inference load.
pub fn build(
    setup: &Setup,
    policy: Box<dyn PooledPolicy>,
    interval: Option<f64>,
) -> Result<PooledSimulator, SimError> {
    let load = setup.load.ok_or_else(|| Setup::missing("inference load"))?;
    let cfg = PooledConfig {
        tick: interval.unwrap_or(setup.sim.round_len),
        restart: setup.sim.restart,
        ..PooledConfig::default()
    };
    PooledSimulator::new(
        cfg,
        setup.cluster.clone(),
        setup.jobs.to_vec(),
        setup.profile,
        load.clone(),
        policy,
    )?
    .with_faults(setup.sim)
}

/// The board of the pooled simulator `sim` of the experiment `r`, `finished` jobs done and
/// `events` in the last tick.
fn board(sim: &PooledSimulator, ctx: &BoardContext) -> Board {
    let BoardContext {
        finished,
        events,
        all,
        ..
    } = *ctx;
    let demand = sim.demand();
    let servers = sim.servers();
    // The first `demand` inference servers neither on loan nor away serve the load.
    let mut serving = vec![false; servers.len()];
    let mut left = demand;
    for (i, s) in servers.iter().enumerate() {
        if left > 0 && s.pool == Pool::Inference && !s.loaned && !s.down {
            serving[i] = true;
            left -= 1;
        }
    }
    let loaned = servers.iter().filter(|s| s.loaned).count();
    let jobs = sim.jobs();
    let now = sim.now();
    let active: Vec<JobId> = jobs
        .iter()
        .enumerate()
        .filter(|(i, j)| {
            j.finish.is_none()
                && !j.dropped
                && ctx.jobs.get(*i).is_some_and(|s| s.arrival <= now)
                && (j.queued || j.running())
        })
        .map(|(i, _)| i)
        .collect();
    let type_name = |pool: Pool| {
        sim.cluster()
            .types
            .iter()
            .find(|t| t.is_inference() == (pool == Pool::Inference))
            .map_or("", |t| t.name.as_str())
    };
    let pool_area = |pool: Pool, title: String, id: &str| Area::Servers {
        title,
        id: id.into(),
        servers: servers
            .iter()
            .enumerate()
            .filter(|(_, s)| s.pool == pool)
            .map(|(n, s)| {
                let mut held: Vec<Option<JobId>> = Vec::new();
                for &(j, g) in &s.used {
                    held.extend(std::iter::repeat_n(Some(j), g as usize));
                }
                held.resize(s.gpus as usize, None);
                let (kind, what) = if s.down {
                    (
                        ServerKind::Plain,
                        "away (failed, or a spot instance taken back)",
                    )
                } else if serving[n] {
                    (ServerKind::Serving, "serving inference")
                } else if s.loaned {
                    (ServerKind::Loaned, "loaned to training")
                } else if s.pool == Pool::Inference {
                    (ServerKind::Plain, "idle inference server")
                } else {
                    (ServerKind::Plain, "training server")
                };
                Server {
                    kind,
                    title: format!("server {n}: {what}"),
                    // The type, for the marks of failed servers.
                    data: vec![
                        ("server".into(), n.to_string()),
                        ("type".into(), type_name(s.pool).to_string()),
                    ],
                    gpus: held
                        .iter()
                        .enumerate()
                        .map(|(g, o)| match o {
                            Some(j) => Gpu::new(
                                GpuKind::Busy,
                                Some(*j),
                                format!("server {n}, GPU {g}: job {j}"),
                            ),
                            None if serving[n] => Gpu::new(
                                GpuKind::Serving,
                                None,
                                format!("server {n}, GPU {g}: serving inference"),
                            ),
                            None => {
                                Gpu::new(GpuKind::Idle, None, format!("server {n}, GPU {g}: idle"))
                            }
                        })
                        .collect(),
                    cpus: None,
                }
            })
            .collect(),
    };
    let count = |p: Pool| servers.iter().filter(|s| s.pool == p).count();
    let mut table = Table::new(
        Some("pool-step-jobs"),
        &[
            "job",
            "type",
            "GPUs (min–max)",
            "on loaned GPUs",
            "progress",
            "state",
        ],
        "active jobs",
    );
    table.fill(&active, all, |j| {
        let job = &jobs[j];
        let ty = ctx.jobs.get(j).map_or("", |s| s.job_type.as_str());
        let on_loan: u32 = job
            .placement
            .iter()
            .filter(|p| servers.get(p.0).is_some_and(|s| s.pool == Pool::Inference))
            .map(|p| p.1)
            .sum();
        let state = if !job.running() {
            "queued"
        } else if job.overhead > 0.0 {
            "restarting"
        } else {
            "running"
        };
        Row {
            data: vec![
                ("job".into(), j.to_string()),
                ("gpus".into(), job.gpus().to_string()),
            ],
            cells: vec![
                Cell::Job(j),
                Cell::text(ty),
                Cell::Text(format!(
                    "{} ({}–{})",
                    job.gpus(),
                    job.min_gpus,
                    job.max_gpus
                )),
                Cell::text(on_loan),
                Cell::Progress(fraction(job.progress, job.total)),
                Cell::text(state),
            ],
        }
    });
    let mut b = blank(
        Some("pool-state"),
        vec![
            ("demand", demand.to_string()),
            ("loaned", loaned.to_string()),
        ],
        table,
    );
    b.areas.push(pool_area(
        Pool::Training,
        format!("training: {} servers", count(Pool::Training)),
        "training-servers",
    ));
    b.areas.push(pool_area(
        Pool::Inference,
        format!(
            "inference: {} servers · {demand} serving the load · {loaned} loaned to training",
            count(Pool::Inference)
        ),
        "inference-servers",
    ));
    b.footer = format!(
        "{finished} jobs finished, {} active, {events} events last tick; {} servers loaned and {} reclaimed so far, {} jobs stopped by reclaims.",
        active.len(),
        sim.loans,
        sim.reclaims,
        sim.reclaim_preemptions
    );
    b
}

stepper!(PooledSimulator, Mechanism::Pooled, board);
