//! What the shell sees of this mechanism: how it is built from a [`Setup`] ([`build`]), its
//! [`Stepper`](crate::sim::Stepper), and its board for the page's stepper.
//!
//! The board shows the round-based simulator after a round: every GPU with the job (or the
//! pair of jobs sharing it) on it, and the active jobs with their allocation rows.

use super::contract::Policy;
use super::contract::Recompute;
use super::Simulator;
use crate::model::job::JobId;
use crate::sim::board::{
    blank, fraction, Area, Board, BoardContext, Cell, Gpu, GpuKind, Row, Table,
};
use crate::sim::setup::Setup;
use crate::sim::shell::stepper;
use crate::sim::Mechanism;
use crate::sim::{SimConfig, SimError};
use std::collections::{BTreeMap, BTreeSet};

/// Gavel's rounds of `policy` on the setup's jobs as rigid ones ([`Setup::rigid_jobs`]),
/// every `interval` seconds (the setup's when `None`).
pub fn build(
    setup: &Setup,
    policy: Box<dyn Policy>,
    interval: Option<f64>,
) -> Result<Simulator, SimError> {
    let (cluster, jobs, profile) = setup.rigid_jobs(false);
    let cfg = SimConfig {
        round_len: interval.unwrap_or(setup.sim.round_len),
        ..setup.sim.clone()
    };
    Simulator::new(cfg, cluster, jobs, profile, policy)
}

/// The board of the round-based simulator `sim`, `finished` jobs done and `events` in the
/// last round.
fn board(sim: &Simulator, ctx: &BoardContext) -> Board {
    let BoardContext {
        finished,
        events,
        all,
        ..
    } = *ctx;
    let cluster = sim.cluster();
    let owners = sim.gpu_owners();
    let sharers = sim.gpu_sharers();
    let active = sim.active();
    let running: BTreeSet<JobId> = owners
        .iter()
        .chain(sharers)
        .flatten()
        .flatten()
        .copied()
        .collect();
    // The job each job shared its GPUs with in the last round (space sharing).
    let mut partner: BTreeMap<JobId, JobId> = BTreeMap::new();
    for (own, shr) in owners.iter().zip(sharers) {
        for (o, s) in own.iter().zip(shr) {
            if let (Some(a), Some(b)) = (o, s) {
                partner.insert(*a, *b);
                partner.insert(*b, *a);
            }
        }
    }
    let traits = sim.policy_traits();
    let packing = traits.packing;
    let allocation = active
        .first()
        .is_some_and(|&j| sim.allocation_row(j).is_some());
    let types = cluster
        .types
        .iter()
        .zip(owners)
        .zip(sharers)
        .map(|((t, own), shr)| {
            let gpus = own
                .iter()
                .enumerate()
                .map(|(g, o)| match (o, shr.get(g).copied().flatten()) {
                    (Some(a), Some(b)) => Gpu::new(
                        GpuKind::Shared(b),
                        Some(*a),
                        format!("GPU {g}: jobs {a} and {b}, sharing it"),
                    ),
                    (Some(j), None) => {
                        Gpu::new(GpuKind::Busy, Some(*j), format!("GPU {g}: job {j}"))
                    }
                    (None, _) => Gpu::new(GpuKind::Idle, None, format!("GPU {g}: idle")),
                })
                .collect();
            (format!("{} × {}", t.count, t.name), gpus)
        })
        .collect();
    let mut table = Table::new(
        None,
        &["job", "type", "GPUs", "state", "progress"],
        "active jobs",
    );
    if packing {
        table.heads.push((
            "shares with".into(),
            Some(
                "the job it shared GPUs with in the last round, and the pair's allocation row"
                    .into(),
            ),
        ));
    }
    if allocation {
        table.heads.extend(
            cluster
                .types
                .iter()
                .map(|t| (format!("x[{}]", t.name), None)),
        );
    }
    table.fill(active, all, |j| {
        let spec = &sim.specs()[j];
        let s = &sim.states()[j];
        let frac = fraction(s.steps_done, spec.total_steps);
        let mut cells = vec![
            Cell::Job(j),
            Cell::text(&spec.job_type),
            Cell::text(spec.scale_factor),
            Cell::text(if running.contains(&j) {
                "running"
            } else {
                "queued"
            }),
            Cell::Progress(frac),
        ];
        if packing {
            cells.push(Cell::Pair(partner.get(&j).map(|&o| {
                let row = sim
                    .pair_allocation_row(j, o)
                    .map(|r| {
                        r.iter()
                            .map(|x| format!("{x:.3}"))
                            .collect::<Vec<_>>()
                            .join(" / ")
                    })
                    .unwrap_or_default();
                (o, row)
            })));
        }
        if allocation {
            cells.extend((0..cluster.num_types()).map(|t| {
                Cell::Text(
                    sim.allocation_row(j)
                        .map(|r| format!("{:.3}", r[t]))
                        .unwrap_or_default(),
                )
            }));
        }
        Row {
            data: Vec::new(),
            cells,
        }
    });
    let mut b = blank(None, Vec::new(), table);
    b.areas.push(Area::Types(types));
    b.footer = format!(
        "{finished} jobs finished, {} active, {events} events last round, recompute: {}{}",
        active.len(),
        if traits.recompute == Recompute::EveryRound {
            "every round"
        } else {
            "when the job set changes"
        },
        if packing {
            format!(", {} pairs shared GPUs last round", partner.len() / 2)
        } else {
            String::new()
        }
    );
    b
}

impl Simulator {
    /// Whether job `job` has finished (or was dropped).
    pub fn job_done(&self, job: JobId) -> bool {
        self.states().get(job).is_none_or(|s| s.is_done())
    }
}

stepper!(Simulator, Mechanism::Rounds, board, counts_steps);
