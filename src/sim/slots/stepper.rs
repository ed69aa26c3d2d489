//! What the shell sees of this mechanism: how it is built from a [`Setup`] ([`build`]), its
//! [`Stepper`](crate::sim::Stepper), and its board for the page's stepper.
//!
//! The board shows the slot simulator (DL2) after a slot: every server's GPUs (with the job
//! whose worker holds each) and CPUs in use, and the jobs' workers and parameter servers in
//! the slot just simulated.

use super::SlotSimulator;
use super::{SlotConfig, SlotPolicy};
use crate::model::job::JobId;
use crate::sim::board::{
    blank, fraction, Area, Board, BoardContext, Cell, Gpu, GpuKind, Row, Server, ServerKind, Table,
};
use crate::sim::setup::Setup;
use crate::sim::shell::stepper;
use crate::sim::Mechanism;
use crate::sim::SimError;
use std::sync::Arc;

/// DL2's slots of `policy`, a slot every `interval` seconds (the setup's when `None`); the
/// setup must have a parameter-server world.
pub fn build(
    setup: &Setup,
    policy: Box<dyn SlotPolicy>,
    interval: Option<f64>,
) -> Result<SlotSimulator, SimError> {
    let ps = setup
        .models
        .ps()
        .ok_or_else(|| Setup::missing("parameter-server setup"))?;
    let cfg = SlotConfig {
        slot_s: interval.unwrap_or(setup.sim.round_len),
        restart: setup.sim.restart,
        ps: ps.config,
        seed: setup.sim.seed,
        dl2_compat: setup.sim.dl2_compat,
        ..SlotConfig::default()
    };
    SlotSimulator::new(
        cfg,
        setup.cluster,
        setup.jobs.to_vec(),
        Arc::clone(&ps.models),
        policy,
    )?
    .with_faults(setup.sim, setup.cluster)
}

/// The board of the slot simulator `sim` of the experiment `r`, `finished` jobs done and
/// `events` in the last slot.
fn board(sim: &SlotSimulator, ctx: &BoardContext) -> Board {
    let BoardContext {
        finished,
        events,
        all,
        ..
    } = *ctx;
    let jobs = sim.jobs();
    let models = sim.models();
    let servers = sim.servers();
    // The jobs of the slot just simulated: the active ones and those that finished in it
    // (a job keeps its last allocation once finished).
    let since = sim.now() - sim.config().slot_s;
    let in_slot: Vec<JobId> = jobs
        .iter()
        .enumerate()
        .filter(|(id, j)| {
            sim.active().contains(id)
                || (j.finish.is_some_and(|f| f >= since) && !j.worker_servers.is_empty())
        })
        .map(|(id, _)| id)
        .collect();
    // Per server: the jobs holding its GPUs (one entry per GPU) and its parameter servers.
    let mut held: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
    let mut ps_on: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
    for (id, j) in in_slot.iter().filter_map(|&id| Some((id, jobs.get(id)?))) {
        let Some(m) = models.models.get(j.model) else {
            continue;
        };
        for &s in &j.worker_servers {
            if let Some(h) = held.get_mut(s) {
                h.extend(std::iter::repeat_n(id, m.worker_gpus as usize));
            }
        }
        for &s in &j.ps_servers {
            if let Some(p) = ps_on.get_mut(s) {
                p.push(id);
            }
        }
    }
    let (workers, ps): (u32, u32) = in_slot
        .iter()
        .filter_map(|&j| jobs.get(j))
        .fold((0, 0), |(w, p), j| (w + j.workers, p + j.ps));
    let gpu_type = ctx.cluster.types.first().map_or("gpu", |t| t.name.as_str());
    let boxes = servers
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let used_cpus = s.cpus.saturating_sub(s.free_cpus);
            Server {
                kind: ServerKind::Plain,
                title: format!(
                    "server {k}: {} of {} GPUs and {used_cpus} of {} CPUs in use; parameter servers of jobs {:?}",
                    s.gpus - s.free_gpus.min(s.gpus),
                    s.gpus,
                    s.cpus,
                    ps_on[k]
                ),
                // The type, for the marks of failed servers.
                data: vec![(
                    "type".into(),
                    ctx.cluster
                        .types
                        .get(s.gpu_type)
                        .map_or(gpu_type, |t| t.name.as_str())
                        .to_string(),
                )],
                gpus: (0..s.gpus as usize)
                    .map(|g| match held[k].get(g) {
                        Some(&j) => Gpu::new(
                            GpuKind::Busy,
                            Some(j),
                            format!("GPU {g}: a worker of job {j}"),
                        ),
                        None => Gpu::new(GpuKind::Idle, None, format!("GPU {g}: idle")),
                    })
                    .collect(),
                cpus: Some((used_cpus, s.cpus)),
            }
        })
        .collect();
    let mut table = Table::new(
        Some("slot-jobs"),
        &[
            "job",
            "type",
            "workers",
            "PS",
            "servers",
            "progress",
            "slots run",
            "state",
        ],
        "jobs of this slot",
    );
    table.fill(&in_slot, all, |j| {
        let job = &jobs[j];
        let ty = models.models.get(job.model).map_or("", |m| m.name.as_str());
        let mut on: Vec<usize> = job
            .worker_servers
            .iter()
            .chain(&job.ps_servers)
            .copied()
            .collect();
        on.sort_unstable();
        on.dedup();
        Row {
            data: vec![
                ("job".into(), j.to_string()),
                ("workers".into(), job.workers.to_string()),
                ("ps".into(), job.ps.to_string()),
            ],
            cells: vec![
                Cell::Job(j),
                Cell::text(ty),
                Cell::text(job.workers),
                Cell::text(job.ps),
                Cell::Text(
                    on.iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Cell::Progress(fraction(job.progress, job.total)),
                Cell::text(job.slots_run),
                Cell::text(if job.finish.is_some() {
                    "finished in this slot"
                } else if job.trains() {
                    "training"
                } else {
                    "waiting"
                }),
            ],
        }
    });
    let mut b = blank(
        Some("slot-state"),
        vec![
            ("workers", workers.to_string()),
            ("ps", ps.to_string()),
            ("active", in_slot.len().to_string()),
        ],
        table,
    );
    b.areas.push(Area::Servers {
        title: format!(
            "{} servers of {} {gpu_type} GPUs and {} CPUs · {workers} workers and {ps} parameter servers in this slot",
            servers.len(),
            servers.first().map_or(0, |s| s.gpus),
            servers.first().map_or(0, |s| s.cpus)
        ),
        id: "slot-servers".into(),
        servers: boxes,
    });
    b.areas.push(Area::Note("Each server's GPUs with the job whose worker holds each; the bar is the share of its CPUs held by workers and parameter servers.".into()));
    b.footer = format!(
        "{finished} jobs finished, {} active, {events} events in this slot.",
        sim.active().len()
    );
    b
}

stepper!(SlotSimulator, Mechanism::Slots, board);
