//! What the shell sees of this mechanism: how it is built from a [`Setup`] ([`build`]), its
//! [`Stepper`](crate::sim::Stepper), and its board for the page's stepper.
//!
//! The board shows the elastic simulator after a tick: its servers with the jobs on them,
//! the active jobs with their GPU type and count, batch size, epoch and progress, and, for
//! policies that say why, each job's goodput in every configuration it was weighed in.

use super::contract::ElasticPolicy;
use super::ElasticConfig;
use super::ElasticSimulator;
use crate::model::job::JobId;
use crate::sim::board::{
    blank, fraction, Area, Board, BoardContext, Cell, Choices, Gpu, GpuKind, Row, Server,
    ServerKind, Table,
};
use crate::sim::setup::Setup;
use crate::sim::shell::stepper;
use crate::sim::Mechanism;
use crate::sim::SimError;
use std::sync::Arc;

/// Pollux's ticks of `policy` every `interval` seconds (the setup's when `None`): on the
/// setup's elastic applications, or on its jobs as rigid ones ([`Setup::rigid_jobs`]), each
/// an application that runs only at its GPU count ([`crate::workload::as_elastic`]).
pub fn build(
    setup: &Setup,
    policy: Box<dyn ElasticPolicy>,
    interval: Option<f64>,
) -> Result<ElasticSimulator, SimError> {
    let (cluster, jobs, apps) = match setup.models.apps() {
        Some(apps) => (setup.cluster.clone(), setup.jobs.to_vec(), Arc::clone(apps)),
        None => {
            let (cluster, jobs, profile) = setup.rigid_jobs(false);
            let (jobs, apps) =
                crate::workload::as_elastic::elastic_workload(&jobs, &profile, &cluster);
            (cluster, jobs, Arc::new(apps))
        }
    };
    let cfg = ElasticConfig {
        interval: interval.unwrap_or(setup.sim.round_len),
        restart: setup.sim.restart,
        seed: setup.sim.seed,
        faults: setup.sim.faults.clone(),
        until: setup.sim.until,
        spot: setup.sim.spot.clone(),
        spot_warning_s: setup.sim.spot_warning_s,
        ..ElasticConfig::default()
    };
    ElasticSimulator::new(cfg, cluster, jobs, apps, policy)
}

/// The board of the elastic simulator `sim`, `finished` jobs done and `events` in the last
/// tick; the policy decides every `round_s` seconds.
fn board(sim: &ElasticSimulator, ctx: &BoardContext) -> Board {
    let BoardContext {
        finished,
        events,
        round_s,
        all,
        ..
    } = *ctx;
    // Real servers, each with its GPU type's name and size.
    let cluster = sim.cluster();
    let mut kinds: Vec<&str> = Vec::new();
    let mut servers: Vec<Vec<Option<JobId>>> = Vec::new();
    let mut layout: Vec<String> = Vec::new();
    for (t, &n) in sim.servers().iter().enumerate() {
        let Some(ty) = cluster.types.get(t) else {
            continue;
        };
        let per = ty.per_server.max(1);
        layout.push(format!("{n} × {per} {}", ty.name));
        for _ in 0..n {
            kinds.push(&ty.name);
            servers.push(vec![None; per as usize]);
        }
    }
    let total: usize = servers.iter().map(Vec::len).sum();
    let states = sim.states();
    for (id, s) in states.iter().enumerate() {
        if s.completion.is_some() {
            continue;
        }
        for &v in &s.allocation {
            if let Some(slot) = sim
                .real_server(v)
                .and_then(|(n, _)| servers.get_mut(n as usize))
                .and_then(|v| v.iter_mut().find(|o| o.is_none()))
            {
                *slot = Some(id);
            }
        }
    }
    let active: Vec<JobId> = states
        .iter()
        .enumerate()
        .filter(|(_, s)| s.admitted && s.completion.is_none())
        .map(|(i, _)| i)
        .collect();
    let busy: u32 = active.iter().map(|&j| states[j].replicas()).sum();
    let apps = sim.apps();
    let specs = sim.specs();
    let servers = servers
        .iter()
        .enumerate()
        .map(|(n, gpus)| {
            let kind = kinds.get(n).copied().unwrap_or("");
            let away = match sim.away_parts(n as u32) {
                (0, _) => "",
                (a, of) if a == of => ": away (failed, or a spot instance taken back)",
                _ => ": a virtual server of it away (a failed GPU's)",
            };
            Server {
                kind: ServerKind::Plain,
                title: format!("server {n} ({kind}){away}"),
                data: vec![("type".into(), kind.to_string())],
                gpus: gpus
                    .iter()
                    .enumerate()
                    .map(|(g, o)| match o {
                        Some(j) => Gpu::new(
                            GpuKind::Busy,
                            Some(*j),
                            format!(
                                "server {n} ({kind}), GPU {g}: job {j} ({})",
                                specs[*j].job_type
                            ),
                        ),
                        None => Gpu::new(
                            GpuKind::Idle,
                            None,
                            format!("server {n} ({kind}), GPU {g}: idle"),
                        ),
                    })
                    .collect(),
                cpus: None,
            }
        })
        .collect();
    let mut table = Table::new(
        Some("elastic-step-jobs"),
        &[
            "job",
            "application",
            "user's GPUs × batch",
            "GPU type",
            "GPUs (servers)",
            "batch",
            "epoch",
            "progress",
            "restarts",
            "state",
        ],
        "active jobs",
    );
    table.fill(&active, all, |j| {
        let spec = &specs[j];
        let s = &states[j];
        let app = apps.apps.get(s.app);
        let target = app.map_or(1.0, |a| a.target_progress()).max(1e-9);
        let state = if s.replicas() == 0 {
            "queued"
        } else if s.rescale_time > 0.0 {
            "restarting"
        } else {
            "running"
        };
        let ty = s
            .allocation
            .first()
            .and_then(|&v| sim.real_server(v))
            .and_then(|(_, t)| cluster.types.get(t))
            .map_or("—", |t| t.name.as_str());
        let idle = s.replicas() == 0;
        Row {
            data: vec![
                ("job".into(), j.to_string()),
                ("gpus".into(), s.replicas().to_string()),
                ("type".into(), ty.to_string()),
            ],
            cells: vec![
                Cell::Job(j),
                Cell::text(&spec.job_type),
                Cell::Text(format!(
                    "{} × {}",
                    spec.scale_factor,
                    spec.batch_size
                        .map_or_else(|| "—".to_string(), |b| b.to_string())
                )),
                Cell::text(ty),
                Cell::Text(if idle {
                    "—".to_string()
                } else {
                    format!("{} ({})", s.replicas(), s.nodes())
                }),
                Cell::Text(if idle {
                    "—".to_string()
                } else {
                    s.batch_size().to_string()
                }),
                Cell::Text(format!("{}/{}", s.epoch, app.map_or(0, |a| a.max_epochs))),
                Cell::Progress(fraction(s.progress, target)),
                Cell::text(s.num_restarts.unwrap_or(0)),
                Cell::text(state),
            ],
        }
    });
    let mut b = blank(None, Vec::new(), table);
    b.areas.push(Area::Servers {
        title: format!(
            "servers: {} · {busy} of {total} GPUs busy",
            layout.join(", ")
        ),
        id: "servers".into(),
        servers,
    });
    b.choices = sim
        .explanation()
        .filter(|e| !e.configs.is_empty())
        .map(|e| Choices {
            explanation: e.clone(),
            types: cluster.types.iter().map(|t| t.name.clone()).collect(),
            apps: e
                .jobs
                .iter()
                .filter_map(|w| Some((w.job, specs.get(w.job)?.job_type.clone())))
                .collect(),
        });
    b.footer = format!(
        "{finished} jobs finished, {} active, {events} events last tick; the policy decides every {round_s} s, and each allocation change costs the restart cost.",
        active.len()
    );
    b
}

stepper!(ElasticSimulator, Mechanism::Elastic, board, counts_steps);
