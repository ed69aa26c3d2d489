//! Stepping in a worker: the worker holds one policy's run ([`StepRun`]), steps it as the
//! page asks and answers with the run's [`Board`](orrery::experiment::stepping::Board), so a huge workload's set-up and steps
//! never hold the page's thread.

use super::step_marks::Marker;
use super::{post, FromWorker};
use orrery::experiment::stepping::StepRun;
use orrery::experiment::Experiment;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use web_sys::DedicatedWorkerGlobalScope;

/// What the page asks of the stepping worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRequest {
    /// With the first request: the experiment and the policy to step through.
    pub start: Option<(Box<Experiment>, String)>,
    /// Steps to take (0: just the board).
    pub steps: u32,
    /// When above 0: take steps (at least one) until this many milliseconds have passed,
    /// whatever `steps` says.
    pub budget_ms: f64,
    /// Carry every row of the jobs' table.
    pub all: bool,
}

thread_local! {
    static RUN: RefCell<Option<(StepRun, Option<Marker>)>> = const { RefCell::new(None) };
}

/// Answer one stepping request with the board after it, or why it failed.
pub fn answer(scope: &DedicatedWorkerGlobalScope, req: StepRequest) {
    if let Some((exp, policy)) = req.start {
        let made = exp
            .resolve()
            .and_then(|r| {
                let marker = Marker::new(&exp, &r);
                Ok((StepRun::new(r, &policy, exp.round_s)?, marker))
            })
            .map_err(|e| e.to_string());
        match made {
            Ok(run) => RUN.with(|r| *r.borrow_mut() = Some(run)),
            Err(e) => return post(scope, &FromWorker::Failed(e)),
        }
    }
    let board = RUN.with(|r| {
        let mut r = r.borrow_mut();
        let (run, marker) = r.as_mut()?;
        // When the last step started: the spot capacity its placement saw.
        let mut start = run.now();
        if req.budget_ms > 0.0 {
            let started = js_sys::Date::now();
            loop {
                start = run.now();
                if !run.step() || js_sys::Date::now() - started >= req.budget_ms {
                    break;
                }
            }
        } else {
            for _ in 0..req.steps {
                start = run.now();
                if !run.step() {
                    break;
                }
            }
        }
        let marks = marker
            .as_mut()
            .map(|m| Box::new(m.marks(run.recorder(), run.now(), start)));
        Some((run.board(req.all), marks))
    });
    match board {
        Some((b, marks)) => post(scope, &FromWorker::Stepped(Box::new(b), marks)),
        None => post(
            scope,
            &FromWorker::Failed("the stepping run was not set up".into()),
        ),
    }
}
