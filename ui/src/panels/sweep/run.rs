//! Running a sweep: its cells shared among one worker per core, value by value, each
//! worker taking the next cell when it is done; progress, and the preset's own sweep.

use super::grid::{optimum, Cell, Grid};
use super::values::{parse_values, Axis, Choice};
use super::{SweepMsg, SweepPanel};
use crate::plot;
use crate::worker::{FromWorker, WorkerHandle};
use orrery::experiment::scenarios::claims::load_claim_for;
use orrery::experiment::Progress;
use std::collections::VecDeque;
use yew::prelude::*;

/// Most workers a sweep uses.
const MAX_WORKERS: usize = 4;

/// The workers of a running sweep.
pub(super) struct Running {
    workers: Vec<WorkerHandle>,
    /// The cell each worker runs.
    busy: Vec<Option<usize>>,
    queue: VecDeque<usize>,
    progress: Vec<Option<Progress>>,
    started_ms: f64,
}

/// Workers for `cells` runs: one per core the browser reports, at most [`MAX_WORKERS`].
fn workers_for(cells: usize) -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map_or(1, |c| c as usize);
    cores.clamp(1, MAX_WORKERS).min(cells.max(1))
}

impl SweepPanel {
    /// Sweep the rates of the figure against the load of the preset the experiment is, if
    /// it is one.
    pub(super) fn sweep_preset(&mut self, ctx: &Context<Self>) {
        if let Some(c) = load_claim_for(&ctx.props().exp) {
            self.values = c
                .rates
                .iter()
                .map(|r| plot::axis::short(*r))
                .collect::<Vec<_>>()
                .join(", ");
            self.p99 = false;
            self.choice = Choice::Load;
            self.refused = None;
            self.link = None;
            self.start(ctx);
        }
    }

    /// Start the sweep of the values typed (saying why next to them when they are refused).
    pub(super) fn start(&mut self, ctx: &Context<Self>) {
        self.error = None;
        self.running = None;
        let exp = (*ctx.props().exp).clone();
        if exp.policies.is_empty() {
            self.error = Some("Tick at least one policy.".into());
            return;
        }
        let axis = Axis::of(self.choice, &exp);
        let values = match parse_values(&self.values, axis) {
            Ok(v) => v,
            Err(e) => {
                self.refused = Some(e);
                return;
            }
        };
        self.refused = None;
        let n = values.len();
        let cells = exp.policies.len() * n;
        let optimum = if axis == Axis::Checkpoint {
            optimum(&exp)
        } else {
            None
        };
        let grid = Grid {
            base: exp,
            axis,
            values,
            cells: vec![None; cells],
            optimum,
        };
        // Value by value, every policy at each: the chart fills from the left.
        let mut queue: VecDeque<usize> = (0..n)
            .flat_map(|v| (0..grid.base.policies.len()).map(move |p| p * n + v))
            .collect();
        let k = workers_for(cells);
        let mut workers = Vec::with_capacity(k);
        let mut busy = Vec::with_capacity(k);
        for w in 0..k {
            let Some(cell) = queue.pop_front() else { break };
            let cb = ctx.link().callback(move |m| SweepMsg::Worker(w, m));
            match WorkerHandle::spawn(&grid.request(cell), move |m| cb.emit(m)) {
                Ok(h) => {
                    workers.push(h);
                    busy.push(Some(cell));
                }
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
        let n = workers.len();
        self.grid = Some(grid);
        self.running = Some(Running {
            workers,
            busy,
            queue,
            progress: vec![None; n],
            started_ms: crate::now_ms(),
        });
        self.last_ms = None;
        self.sweeps += 1;
    }

    pub(super) fn worker_message(&mut self, k: usize, m: FromWorker) -> bool {
        let (Some(run), Some(grid)) = (self.running.as_mut(), self.grid.as_mut()) else {
            return false;
        };
        match m {
            FromWorker::Progress(p) => {
                if let Some(s) = run.progress.get_mut(k) {
                    *s = Some(p);
                }
                true
            }
            FromWorker::Partial(_, r) => {
                if let Some(Some(cell)) = run.busy.get(k) {
                    if let Some(slot) = grid.cells.get_mut(*cell) {
                        *slot = Some(Cell {
                            avg: r.summary.avg_jct_s,
                            p99: r.summary.p99_jct_s,
                            unfinished: r.summary.unfinished,
                            ettr: r.summary.faults.as_ref().and_then(|f| f.ettr),
                        });
                    }
                }
                true
            }
            FromWorker::Idle(_) => {
                if let Some(p) = run.progress.get_mut(k) {
                    *p = None;
                }
                let next = run.queue.pop_front();
                if let Some(b) = run.busy.get_mut(k) {
                    *b = next;
                }
                if let Some(cell) = next {
                    if let Err(e) = run.workers[k].post(&grid.request(cell)) {
                        self.error = Some(e);
                        self.running = None;
                    }
                } else if run.busy.iter().all(Option::is_none) {
                    self.last_ms = Some(crate::now_ms() - run.started_ms);
                    self.running = None;
                    crate::worker::prepare_spare();
                }
                true
            }
            FromWorker::Failed(e) => {
                self.error = Some(e);
                self.running = None;
                true
            }
            _ => false,
        }
    }

    pub(super) fn progress_text(&self) -> String {
        let Some(run) = &self.running else {
            return String::new();
        };
        let running: Vec<String> = run
            .progress
            .iter()
            .flatten()
            .map(|p| format!("{} {}/{}", p.policy, p.jobs_done, p.jobs))
            .collect();
        if running.is_empty() {
            String::new()
        } else {
            format!(": {}", running.join(", "))
        }
    }
}
