//! What the shell sees of this mechanism: how it is built from a [`Setup`] ([`build`]), its
//! [`Stepper`](crate::sim::Stepper), and its board for the page's stepper.
//!
//! The board shows the preemptive simulator (PickyMan) after an event: the cluster's GPUs
//! with the jobs holding them (draining, checkpointing and reloading ones marked), and the
//! active jobs.

use super::PreemptivePolicy;
use super::{Phase, PreemptiveSimulator};
use crate::model::job::JobId;
use crate::sim::board::{
    blank, fraction, Area, Board, BoardContext, Cell, Gpu, GpuKind, Row, Table,
};
use crate::sim::setup::Setup;
use crate::sim::shell::stepper;
use crate::sim::Mechanism;
use crate::sim::SimError;

/// PickyMan's events of `policy` on the setup's jobs as rigid ones ([`Setup::rigid_jobs`]),
/// with the setup's restart model, failures, checkpoints and stop time.
pub fn build(
    setup: &Setup,
    policy: Box<dyn PreemptivePolicy>,
) -> Result<PreemptiveSimulator, SimError> {
    let (cluster, jobs, profile) = setup.rigid_jobs(true);
    PreemptiveSimulator::new(
        &cluster,
        jobs,
        profile,
        setup.sim.restart,
        setup.sim.seed,
        policy,
    )?
    .with_faults(setup.sim, &cluster)
}

/// The board of the preemptive simulator `sim` of the experiment `r`, `finished` jobs done,
/// `events` at the last step and `suspensions` so far.
fn board(sim: &PreemptiveSimulator, ctx: &BoardContext) -> Board {
    let BoardContext {
        finished,
        events,
        suspensions,
        all,
        ..
    } = *ctx;
    let jobs = sim.jobs();
    let total = ctx.cluster.total_gpus() as usize;
    let gpu_type = ctx.cluster.types.first().map_or("gpu", |t| t.name.as_str());
    let mut gpus: Vec<Gpu> = Vec::new();
    for (id, j) in jobs.iter().enumerate().filter(|(_, j)| j.holds_gpus()) {
        let (kind, what) = match j.phase {
            Phase::Loading => (GpuKind::Loading, "reloading its checkpoint"),
            Phase::Draining => (GpuKind::Draining, "suspended, finishing its epoch"),
            Phase::Saving => (GpuKind::Saving, "suspended, writing its checkpoint"),
            _ => (GpuKind::Busy, "training"),
        };
        for _ in 0..j.gpus {
            let g = gpus.len();
            gpus.push(Gpu::new(
                kind,
                Some(id),
                format!("GPU {g}: job {id}: {what}"),
            ));
        }
    }
    let kept: u32 = jobs.iter().map(|j| j.reserved).sum();
    for _ in 0..kept {
        let g = gpus.len();
        gpus.push(Gpu::new(
            GpuKind::Kept,
            None,
            format!("GPU {g}: kept for a waiting job"),
        ));
    }
    gpus.truncate(total);
    while gpus.len() < total {
        let g = gpus.len();
        gpus.push(Gpu::new(GpuKind::Idle, None, format!("GPU {g}: idle")));
    }
    let active: Vec<JobId> = jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| !matches!(j.phase, Phase::Pending | Phase::Done))
        .map(|(i, _)| i)
        .collect();
    let holding = jobs.iter().filter(|j| j.holds_gpus()).count();
    let busy = gpus.iter().filter(|g| g.job.is_some()).count();
    let mut table = Table::new(
        Some("preempt-step-jobs"),
        &[
            "job",
            "type",
            "GPUs",
            "state",
            "progress",
            "suspensions",
            "GPU-h so far",
        ],
        "active jobs",
    );
    table.fill(&active, all, |j| {
        let job = &jobs[j];
        let ty = ctx.jobs.get(j).map_or("", |s| s.job_type.as_str());
        let state = match job.phase {
            Phase::Waiting if job.victims_pending > 0 => {
                format!("waiting for {} suspended job(s)", job.victims_pending)
            }
            Phase::Waiting if job.first_start.is_some() => "suspended, waiting".to_string(),
            Phase::Waiting => "queued".to_string(),
            Phase::Loading => "reloading".to_string(),
            Phase::Running => "running".to_string(),
            Phase::Draining => format!(
                "finishing its epoch (for job {})",
                job.suspended_for.map(|w| w.to_string()).unwrap_or_default()
            ),
            Phase::Saving => "checkpointing".to_string(),
            Phase::Pending | Phase::Done => String::new(),
        };
        Row {
            data: vec![
                ("job".into(), j.to_string()),
                ("phase".into(), format!("{:?}", job.phase)),
            ],
            cells: vec![
                Cell::Job(j),
                Cell::text(ty),
                Cell::text(job.gpus),
                Cell::Text(state),
                Cell::Progress(fraction(job.progress, job.total)),
                Cell::text(job.preemptions),
                Cell::Text(format!("{:.2}", job.attained / 3600.0)),
            ],
        }
    });
    let mut b = blank(
        Some("preempt-state"),
        vec![
            ("holding", holding.to_string()),
            ("free", sim.free_gpus().to_string()),
        ],
        table,
    );
    b.areas.push(Area::Row {
        title: format!(
            "{total} × {gpu_type} · {busy} busy · {kept} kept for waiting jobs · {} free",
            sim.free_gpus()
        ),
        id: "preempt-gpus".into(),
        gpus,
    });
    b.areas.push(Area::Note("Hatched: suspended (finishing the epoch, then checkpointing); outlined: reloading after a suspension; dashed: kept for the waiting job a suspension makes room for.".into()));
    b.footer = format!(
        "{finished} jobs finished, {} active, {events} events at this step; {suspensions} suspensions so far.",
        active.len()
    );
    b
}

stepper!(PreemptiveSimulator, Mechanism::Preemptive, board);
