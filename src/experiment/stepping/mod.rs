//! One policy's run of an experiment, a step at a time (rounds, ticks, events or slots, as
//! the policy's simulator goes), and what it looks like after each step ([`Board`]). The page
//! steps it in a worker and draws the boards it gets back; tests step it natively.
//! The board's data and each simulator's board live with the simulators
//! ([`crate::sim::board`]).

use crate::sim::board::BoardContext;
pub use crate::sim::board::{
    shown, Area, Board, Cell, Choices, Gpu, GpuKind, Row, Server, ServerKind, Table, JOB_ROWS,
};

use super::{ExperimentError, Resolved};
use crate::metrics::Recorder;
use crate::sim::{Mechanism, Stepper};

/// One policy's run of a resolved experiment, stepped through, with what it recorded.
pub struct StepRun {
    resolved: Resolved,
    sim: Box<dyn Stepper>,
    rec: Recorder,
    /// Events of the last step.
    last_events: usize,
    /// Steps taken (the round-based and elastic simulators count their own).
    steps: u64,
    /// Seconds between the elastic policies' decisions.
    round_s: f64,
}

impl StepRun {
    /// The run of `policy_spec` on the resolved experiment `r`, at its start; `round_s` is
    /// the experiment's round length (the elastic policies decide that often).
    pub fn new(r: Resolved, policy_spec: &str, round_s: f64) -> Result<Self, ExperimentError> {
        let sim = r.stepper(policy_spec)?;
        let mut rec = Recorder::new(&r.trace.jobs, r.cluster.num_types());
        rec.preemption.enabled = r.sim.restart.checkpoint.is_some();
        rec.faults.on = r.sim.faults.is_some() || !r.sim.spot.is_empty();
        rec.faults.set_spot(&r.sim.spot, &r.cluster);
        Ok(StepRun {
            resolved: r,
            sim,
            rec,
            last_events: 0,
            steps: 0,
            round_s,
        })
    }

    /// One step; false when the simulation is over.
    pub fn step(&mut self) -> bool {
        match self.sim.step() {
            Some(report) => {
                for e in &report.events {
                    self.rec.observe(e);
                }
                self.last_events = report.events.len();
                self.steps += 1;
                true
            }
            None => false,
        }
    }

    /// Simulated seconds so far.
    pub fn now(&self) -> f64 {
        self.sim.now()
    }

    /// Steps done: rounds, ticks, events or slots.
    pub fn steps(&self) -> u64 {
        self.sim.steps_done().unwrap_or(self.steps)
    }

    /// Whether every job is done.
    pub fn is_done(&self) -> bool {
        self.sim.is_done()
    }

    /// The mechanism of the stepped policy (PickyMan steps from event to event in a
    /// round-based experiment too).
    pub fn mechanism(&self) -> Mechanism {
        self.sim.mechanism()
    }

    /// What the run recorded so far.
    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// Jobs finished so far.
    fn finished(&self) -> usize {
        self.rec.jobs.iter().filter(|r| r.finish.is_some()).count()
    }

    /// What the run looks like now; `all` carries every row of the jobs' table, not just
    /// the first [`JOB_ROWS`].
    pub fn board(&self, all: bool) -> Board {
        let r = &self.resolved;
        let ctx = BoardContext {
            cluster: &r.cluster,
            jobs: &r.trace.jobs,
            finished: self.finished(),
            events: self.last_events,
            suspensions: self.rec.preemption.suspensions.len(),
            round_s: self.round_s,
            all,
        };
        let mut b = self.sim.board(&ctx);
        b.now = self.now();
        b.steps = self.steps();
        b.done = self.is_done();
        b.mechanism = self.mechanism();
        b
    }
}
