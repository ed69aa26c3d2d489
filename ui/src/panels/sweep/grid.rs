//! A sweep's grid: its base experiment, the axis and its values, the cells run so far, each
//! cell's experiment as the request a worker runs, and the intervals an ETTR chart marks.

use super::values::{Axis, Value};
use crate::worker::ToWorker;
use orrery::experiment::{Experiment, SweepPoint};
use orrery::model::failure::checkpoint::{daly_interval, Interval};

/// One finished cell: average and p99 JCT (s), unfinished jobs, ETTR.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Cell {
    pub(super) avg: f64,
    pub(super) p99: f64,
    pub(super) unfinished: usize,
    pub(super) ettr: Option<f64>,
}

/// A sweep's grid and what has run of it.
#[derive(Clone, PartialEq)]
pub(super) struct Grid {
    pub(super) base: Experiment,
    pub(super) axis: Axis,
    pub(super) values: Vec<Value>,
    /// Cells, policy-major: `p * values.len() + v`.
    pub(super) cells: Vec<Option<Cell>>,
    /// Young's and Daly's intervals of the experiment's largest job, for a checkpoint
    /// sweep that can have them.
    pub(super) optimum: Option<Optimum>,
}

impl Grid {
    /// The point of value `v`: the axis set to it, the rest the experiment's.
    fn point(&self, v: usize) -> SweepPoint {
        let value = self.values.get(v).copied();
        let x = value.and_then(Value::num);
        match self.axis {
            Axis::Rates => SweepPoint {
                jobs_per_hour: x,
                ..SweepPoint::default()
            },
            Axis::Loads => SweepPoint {
                load: x,
                ..SweepPoint::default()
            },
            Axis::Checkpoint => SweepPoint {
                checkpoint: value.map(|v| v.num().map_or(Interval::Auto, Interval::Every)),
                ..SweepPoint::default()
            },
            Axis::Failures => SweepPoint {
                failures: x,
                ..SweepPoint::default()
            },
        }
    }

    /// The request that runs cell `i`.
    pub(super) fn request(&self, i: usize) -> ToWorker {
        let n = self.values.len().max(1);
        let (p, v) = (i / n, i % n);
        let exp = self
            .base
            .at_point(&self.point(v), self.base.policies.clone());
        ToWorker::RunTasks(Some(Box::new(exp)), vec![p])
    }
}

/// Young's (`sqrt(2 w M)`) and Daly's intervals (s) for a job on `servers` servers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Optimum {
    pub(super) servers: u32,
    pub(super) young: f64,
    pub(super) daly: f64,
}

impl Optimum {
    /// The intervals named, for the chart's marks: (name, seconds).
    pub(super) fn marks(&self) -> Vec<(String, f64)> {
        let minutes = |s: f64| s / 60.0;
        vec![
            (
                format!(
                    "Young: {:.1} min (a job on {} servers)",
                    minutes(self.young),
                    self.servers
                ),
                self.young,
            ),
            (format!("Daly: {:.1} min", minutes(self.daly)), self.daly),
        ]
    }
}

/// Young's and Daly's intervals for the experiment's largest job (its GPUs on the first GPU
/// type that holds them, in servers of that type), when the experiment has failures and
/// blocking checkpoint writes.
pub(super) fn optimum(exp: &Experiment) -> Option<Optimum> {
    let f = exp.faults.as_ref()?;
    let w = f.checkpoint.write_s;
    if w <= 0.0 || f.failures.per_server_day <= 0.0 {
        return None;
    }
    let r = exp.resolve().ok()?;
    let gpus = r
        .trace
        .jobs
        .iter()
        .map(|j| j.scale_factor)
        .max()
        .unwrap_or(1);
    let per = r
        .cluster
        .types
        .iter()
        .find(|t| t.count >= gpus)
        .or(r.cluster.types.first())
        .map_or(1, |t| t.per_server.max(1));
    let servers = gpus.div_ceil(per);
    let m = f.failures.mttf_s(servers);
    Some(Optimum {
        servers,
        young: (2.0 * w * m).sqrt(),
        daly: daly_interval(w, m),
    })
}
