//! A sweep's grid: its base experiment, the axis and its values, the cells run so far, each
//! cell's experiment as the request a worker runs, and the intervals an ETTR chart marks.

use crate::experiment::{Experiment, SweepPoint};
use crate::model::failure::checkpoint::{daly_interval, Interval};
use crate::ui::worker::ToWorker;

/// One finished cell: average and p99 JCT (s), unfinished jobs, ETTR.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Cell {
    pub(super) avg: f64,
    pub(super) p99: f64,
    pub(super) unfinished: usize,
    pub(super) ettr: Option<f64>,
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Axis {
    /// The generator's jobs per hour.
    Rates,
    /// The load factor.
    Loads,
    /// The checkpoint interval (s).
    Checkpoint,
}

/// A sweep's grid and what has run of it.
#[derive(Clone, PartialEq)]
pub(super) struct Grid {
    pub(super) base: Experiment,
    pub(super) axis: Axis,
    pub(super) values: Vec<f64>,
    /// Cells, policy-major: `p * values.len() + v`.
    pub(super) cells: Vec<Option<Cell>>,
    /// Intervals marked on an ETTR chart: (name, seconds).
    pub(super) marks: Vec<(String, f64)>,
}

impl Grid {
    fn point(&self, v: usize) -> SweepPoint {
        let x = self.values[v];
        match self.axis {
            Axis::Rates => SweepPoint {
                jobs_per_hour: Some(x),
                ..SweepPoint::default()
            },
            Axis::Loads => SweepPoint {
                load: Some(x),
                ..SweepPoint::default()
            },
            Axis::Checkpoint => SweepPoint {
                checkpoint: Some(Interval::Every(x)),
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

/// Young's (`sqrt(2 w M)`) and Daly's intervals for the experiment's largest job (its GPUs
/// on the first GPU type that holds them, in servers of that type), named, when the
/// experiment has failures and blocking checkpoint writes.
pub(super) fn optimum_marks(exp: &Experiment) -> Vec<(String, f64)> {
    let Some(f) = exp.faults.as_ref() else {
        return Vec::new();
    };
    let w = f.checkpoint.write_s;
    if w <= 0.0 || f.failures.per_server_day <= 0.0 {
        return Vec::new();
    }
    let Ok(r) = exp.resolve() else {
        return Vec::new();
    };
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
    let minutes = |s: f64| s / 60.0;
    let (young, daly) = ((2.0 * w * m).sqrt(), daly_interval(w, m));
    vec![
        (
            format!(
                "Young: {:.1} min (a job on {servers} servers)",
                minutes(young)
            ),
            young,
        ),
        (format!("Daly: {:.1} min", minutes(daly)), daly),
    ]
}
