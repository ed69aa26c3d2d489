//! What training learns from: the decisions a run records as examples (state, mask, action,
//! the acting policy's probability), each slot's reward, and exploration's probabilities.

use crate::policy::dl2::learned::encode;
use crate::sim::slots::{SlotAction, SlotObserver, SlotStep, SlotView, ACTIONS_PER_JOB};

/// Probability that job-aware exploration picks `action` under `mask` (see
/// [`crate::policy::dl2::learned::explore`]).
pub(super) fn explore_probability(mask: &[bool], window: usize, action: usize) -> f64 {
    let valid = |k: usize| {
        (0..ACTIONS_PER_JOB)
            .filter(|a| mask.get(k * ACTIONS_PER_JOB + a) == Some(&true))
            .count()
    };
    let jobs = (0..window).filter(|&k| valid(k) > 0).count();
    let k = action / ACTIONS_PER_JOB;
    if action >= window * ACTIONS_PER_JOB || jobs == 0 {
        // Stop: exploration never picks it unless no job has an action (then the policy's
        // own choice stands).
        return if jobs == 0 { 1.0 } else { 0.0 };
    }
    1.0 / (jobs as f64 * valid(k).max(1) as f64)
}

/// The progress of the slot (the fraction of its work) job `id` makes with `w` workers and
/// `p` parameter servers: none unless it trains, after the restart delay when the counts
/// differ from the previous slot's.
fn slot_progress(view: &SlotView, id: usize, w: u32, p: u32) -> f64 {
    slot_progress_of(view, id, w, p, false)
}

/// [`slot_progress`] as a share of the job's work left instead of all its work when
/// `of_left`.
fn slot_progress_of(view: &SlotView, id: usize, w: u32, p: u32, of_left: bool) -> f64 {
    let Some(j) = view.jobs.get(id) else {
        return 0.0;
    };
    if w == 0 || p == 0 || j.total <= 0.0 {
        return 0.0;
    }
    let delay = if (w, p) != (j.prev_workers, j.prev_ps) {
        view.restart_s
    } else {
        0.0
    };
    let steps = view.speed(id, w, p) * (view.slot_s - delay).max(0.0);
    let left = j.remaining_steps();
    steps.min(left) / if of_left { left.max(1e-9) } else { j.total }
}

/// The reward the slot would earn if its allocation stopped now: every job that trains
/// makes its progress of the slot (after the restart delay when its counts changed).
fn locked_progress(view: &SlotView) -> f64 {
    view.active
        .iter()
        .filter_map(|&id| view.jobs.get(id))
        .map(|j| slot_progress(view, j.id, j.workers, j.ps))
        .sum()
}

/// What each action of the window would add to the slot's reward now: the progress of the
/// slot of its job with the task minus without (restart delay included); 0 for stop and
/// for actions the mask forbids.
fn action_gains(view: &SlotView, window: usize, mask: &[bool], of_left: bool) -> Vec<f64> {
    (0..mask.len())
        .map(|i| {
            if !mask[i] {
                return 0.0;
            }
            let a = view.action_at(window, i);
            let Some(j) = a.job().and_then(|id| view.jobs.get(id)) else {
                return 0.0;
            };
            let (dw, dp) = a.adds();
            slot_progress_of(view, j.id, j.workers + dw, j.ps + dp, of_left)
                - slot_progress_of(view, j.id, j.workers, j.ps, of_left)
        })
        .collect()
}

/// One recorded decision.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Example {
    pub(super) state: Vec<f64>,
    pub(super) mask: Vec<bool>,
    pub(super) action: usize,
    pub(super) slot: usize,
    pub(super) ret: f64,
    /// Advantage (normalised over the iteration's decisions).
    pub(super) adv: f64,
    /// `ln pi(action)` of the policy that acted.
    pub(super) old_log_prob: f64,
    /// The slot's progress (its reward) if the allocation stopped before this decision.
    pub(super) locked: f64,
    /// What each action would add to the slot's reward (exact credit; empty otherwise),
    /// then its advantage.
    pub(super) gains: Vec<f64>,
    /// The actor's probabilities when the decision was recorded (exact credit).
    pub(super) old_probs: Vec<f64>,
}

/// Records the encoded state, mask and action of every applied decision within the window,
/// and each slot's reward.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    pub(super) window: usize,
    pub(super) examples: Vec<Example>,
    pub(super) rewards: Vec<f64>,
    pub(super) jct: Vec<f64>,
    /// Work left (the sum of the active jobs' remaining fractions) at the start of each
    /// slot with a decision.
    pub(super) work: Vec<Option<f64>>,
    /// Record every action's gain with each decision (exact credit).
    pub(super) gains: bool,
    /// Count a gain as a share of the job's work left instead of all its work.
    pub(super) gain_of_left: bool,
}

impl SlotObserver for Recorder {
    fn decision(&mut self, view: &SlotView, action: SlotAction, applied: bool) {
        let slot = self.rewards.len();
        if self.work.len() <= slot {
            self.work.resize(slot + 1, None);
        }
        if self.work[slot].is_none() {
            let left = view
                .active
                .iter()
                .filter_map(|&id| view.jobs.get(id))
                .map(|j| j.remaining_fraction())
                .sum();
            self.work[slot] = Some(left);
        }
        if !applied && action != SlotAction::Stop {
            return;
        }
        let Some(index) = view.action_index(self.window, action) else {
            return;
        };
        let mask = view.action_mask(self.window);
        if !mask.get(index).copied().unwrap_or(false) {
            return;
        }
        let gains = if self.gains {
            action_gains(view, self.window, &mask, self.gain_of_left)
        } else {
            Vec::new()
        };
        self.examples.push(Example {
            state: encode(view, self.window),
            mask,
            action: index,
            slot: self.rewards.len(),
            ret: 0.0,
            adv: 0.0,
            old_log_prob: 0.0,
            locked: locked_progress(view),
            gains,
            old_probs: Vec::new(),
        });
    }

    fn slot_end(&mut self, step: &SlotStep) {
        self.rewards.push(step.reward);
    }
}
