//! The page's side of stepping: the worker holding one policy's run, the last board it sent
//! and the requests it has not answered yet. Dropping the session terminates its worker.

use super::worker::step_marks::FaultMarks;
use super::worker::step_worker::StepRequest;
use super::worker::{FromWorker, ToWorker, WorkerHandle};
use orrery::experiment::stepping::Board;
use orrery::experiment::Experiment;
use std::rc::Rc;

/// One stepping run, in its worker.
pub struct StepSession {
    worker: WorkerHandle,
    /// The run after the last answered request.
    pub board: Option<Rc<Board>>,
    /// What failures and spot capacity did up to that board (runs with them).
    pub marks: Option<Rc<FaultMarks>>,
    /// A request is on its way.
    pub busy: bool,
    /// Steps asked for while a request was on its way.
    pub queued: u32,
    /// The rows asked for changed while a request was on its way: the board comes again.
    pub rows_changed: bool,
}

impl StepSession {
    /// Start a worker stepping `policy` of `exp`, with a first request of `steps` steps (or
    /// a time budget); `on_message` gets its answers.
    pub fn start(
        exp: &Experiment,
        policy: &str,
        steps: u32,
        budget_ms: f64,
        all: bool,
        on_message: impl Fn(FromWorker) + 'static,
    ) -> Result<Self, String> {
        let req = StepRequest {
            start: Some((Box::new(exp.clone()), policy.to_string())),
            steps,
            budget_ms,
            all,
        };
        let worker = WorkerHandle::spawn(&ToWorker::Step(Box::new(req)), on_message)?;
        Ok(StepSession {
            worker,
            board: None,
            marks: None,
            busy: true,
            queued: 0,
            rows_changed: false,
        })
    }

    /// Ask for `steps` steps (or for steps during `budget_ms`), the board to carry every row
    /// of the jobs' table when `all`; false when a request is already on its way (the steps
    /// then wait in the queue) or the worker is gone.
    pub fn ask(&mut self, steps: u32, budget_ms: f64, all: bool) -> bool {
        if self.busy {
            self.queued += steps;
            self.rows_changed |= steps == 0;
            return false;
        }
        let req = StepRequest {
            start: None,
            steps,
            budget_ms,
            all,
        };
        self.busy = self.worker.post(&ToWorker::Step(Box::new(req))).is_ok();
        self.busy
    }

    /// Whether the run is over.
    pub fn done(&self) -> bool {
        self.board.as_ref().is_some_and(|b| b.done)
    }
}
