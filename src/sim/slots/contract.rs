//! The contract of DL2's slots: the [`SlotPolicy`] trait its policies implement, the actions
//! it answers with ([`SlotAction`]) and the size of the state and action space; what a
//! policy sees is [`super::SlotView`]. An observer ([`SlotObserver`]) sees every step's
//! decisions (for training and records).

use super::SlotView;
use crate::model::job::JobId;
use crate::rng::Rng;
use crate::sim::RoundReport;

/// One decision of a slot policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotAction {
    /// One more worker for the job.
    AddWorker(JobId),
    /// One more parameter server for the job.
    AddPs(JobId),
    /// One more worker and one more parameter server for the job.
    AddBoth(JobId),
    /// One more worker and one more parameter server for the job, both on this server
    /// (Tetris's packing names the server).
    AddBothOn(JobId, usize),
    /// No more changes in this slot.
    Stop,
}

impl SlotAction {
    /// The job it concerns (None for [`SlotAction::Stop`]).
    pub fn job(self) -> Option<JobId> {
        match self {
            SlotAction::AddWorker(j)
            | SlotAction::AddPs(j)
            | SlotAction::AddBoth(j)
            | SlotAction::AddBothOn(j, _) => Some(j),
            SlotAction::Stop => None,
        }
    }

    /// Workers and parameter servers it adds.
    pub fn adds(self) -> (u32, u32) {
        match self {
            SlotAction::AddWorker(_) => (1, 0),
            SlotAction::AddPs(_) => (0, 1),
            SlotAction::AddBoth(_) | SlotAction::AddBothOn(..) => (1, 1),
            SlotAction::Stop => (0, 0),
        }
    }
}

/// Per-job features of DL2's state, in this order: type index, slots since arrival, share of
/// the work left, dominant resource share, workers, parameter servers.
pub const STATE_FEATURES: usize = 6;

/// Actions per job in DL2's action layout: worker, parameter server, both.
pub const ACTIONS_PER_JOB: usize = 3;

/// A scheduler for the slot simulator: asked for one action at a time.
pub trait SlotPolicy {
    /// Its spec.
    fn name(&self) -> &str;
    /// The next action in this slot.
    fn act(&mut self, view: &SlotView, rng: &mut Rng) -> SlotAction;
    /// In DL2-compatible mode, whether every active job gets one worker and one parameter
    /// server before the policy acts (DL2's learning environment does; its heuristics do
    /// not). Outside that mode every policy gets them.
    fn bundle_first(&self) -> bool {
        false
    }
}

/// What one slot did.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotStep {
    /// Its events (with the slot's start and end).
    pub report: RoundReport,
    /// DL2's reward: the sum over jobs of the fraction of their work done in the slot.
    pub reward: f64,
    /// Actions of the policy applied.
    pub actions: u32,
    /// Actions of the policy that could not be applied (at most one; it ends the slot's
    /// decisions).
    pub invalid_actions: u32,
    /// Jobs that trained.
    pub running: usize,
}

/// Sees every decision of a slot policy (for example to record what a heuristic does, so
/// that a neural policy can learn to imitate it).
pub trait SlotObserver {
    /// The policy answered `action` to `view`; `applied` says whether it could be applied.
    fn decision(&mut self, view: &SlotView, action: SlotAction, applied: bool) {
        let _ = (view, action, applied);
    }
    /// A slot ended.
    fn slot_end(&mut self, step: &SlotStep) {
        let _ = step;
    }
}

/// An observer that does nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl SlotObserver for NoObserver {}
