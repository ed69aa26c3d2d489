//! The comparison's estimate in the page ([`orrery::view::estimate`]): a run expected to
//! be long waits for the person to confirm it in the page.

use super::{App, RunMsg};
use orrery::experiment::Experiment;
pub use orrery::view::estimate::{duration, Calibration, Estimate};
use yew::prelude::*;

impl App {
    /// The estimate of a comparison of the current experiment (None when it does not
    /// resolve).
    pub(super) fn estimate(&mut self) -> Option<Estimate> {
        let exp = self.exp.clone();
        let r = self.resolve_cached(&exp).ok()?;
        let runs = r.plan(&exp).tasks.len();
        Some(Estimate::new(
            Experiment::clone(&exp),
            r.mechanism(),
            r.trace.jobs.len(),
            runs,
            super::pool::workers_for(runs),
            &self.run.calibration,
        ))
    }

    /// Compare the current experiment now, or, when the run is expected to be long, show
    /// the estimate and wait for a confirmation (the results shown stay, marked stale).
    pub(super) fn compare_or_confirm(&mut self, ctx: &Context<Self>) {
        match self.estimate() {
            Some(e) if e.is_long() => {
                self.run.worker = None;
                self.run.pool = None;
                self.run.progress = None;
                self.errors.run = None;
                self.run.pending = Some(e);
            }
            _ => self.start_compare(ctx),
        }
    }

    /// The confirmation's answers; returns whether to render.
    pub(super) fn confirm_update(&mut self, ctx: &Context<Self>, msg: RunMsg) -> bool {
        match msg {
            RunMsg::Confirm => {
                if let Some(e) = self.run.pending.take() {
                    if e.exp == *self.exp {
                        self.run.estimate = Some(e);
                        self.start_compare(ctx);
                    } else {
                        self.compare_or_confirm(ctx);
                    }
                }
            }
            _ => self.run.pending = None,
        }
        true
    }

    /// The estimate waiting for a confirmation, when it is of the current experiment.
    pub(super) fn pending_estimate(&self) -> Option<&Estimate> {
        self.run.pending.as_ref().filter(|e| e.exp == *self.exp)
    }
}
