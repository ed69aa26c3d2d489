//! DL2's training as the page runs it in its Web Worker: the trainer's steps (the warm-up,
//! an evaluation, the reinforcement-learning iterations) with progress and the learning
//! curve's points reported as they come, and the slots simulated per second. The caller
//! gives the clock (the core reads none).

use super::{CurvePoint, TrainConfig, Trainer};
use crate::experiment::Experiment;
use serde::{Deserialize, Serialize};

/// The training settings of the page: few episodes and iterations, about a minute in a
/// browser.
pub fn page_train_config() -> TrainConfig {
    TrainConfig {
        seed: 0,
        episode_jobs: 40,
        warmup_episodes: 20,
        warmup_epochs: 30,
        iterations: 200,
        ..TrainConfig::default()
    }
}

/// What a training run reports while it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TrainEvent {
    /// How far it is.
    Progress(TrainProgress),
    /// New points of the learning curve.
    Curve(Vec<CurvePoint>),
}

/// How far a training run is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainProgress {
    /// `warm-up` or `reinforcement learning`.
    pub phase: String,
    /// Warm-up epochs and iterations done.
    pub done: usize,
    /// Warm-up epochs and iterations in all.
    pub total: usize,
    /// Slots simulated so far (known between the phases and during reinforcement
    /// learning).
    pub slots: u64,
    /// Milliseconds since the training started.
    pub ms: f64,
}

/// A finished training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trained {
    /// The network's weights JSON (numbers at `f32` precision, as `orrery dl2 train`
    /// writes them).
    pub weights: String,
    /// The learning curve as CSV (as `orrery dl2 train --curve` writes it).
    pub curve_csv: String,
    /// Slots simulated (every episode of the warm-up, of reinforcement learning and of
    /// the evaluations).
    pub slots: u64,
    /// Milliseconds the training took in the worker.
    pub ms: f64,
    /// Share of held-out decisions equal to DRF's after the warm-up.
    pub agreement: f64,
    /// (reward per slot, average JCT s) of the greedy policy on the held-out episodes after
    /// the warm-up.
    pub after_warmup: (f64, f64),
    /// The same at the end.
    pub after_training: (f64, f64),
}

impl Trained {
    /// Slots simulated per second of training.
    pub fn slots_per_s(&self) -> f64 {
        self.slots as f64 / (self.ms / 1000.0).max(1e-9)
    }
}

/// The weights' description of a network trained with `cfg` in the page.
pub fn trained_description(cfg: &TrainConfig) -> String {
    format!(
        "DL2 policy trained in the page (seed {}, {} warm-up episodes of {} jobs, {} warm-up epochs, {} iterations)",
        cfg.seed, cfg.warmup_episodes, cfg.episode_jobs, cfg.warmup_epochs, cfg.iterations
    )
}

/// Train DL2's network on `exp`'s workloads: the warm-up, an evaluation, then the
/// reinforcement-learning iterations. `report` gets progress (at most every 100 ms of
/// `clock`, which counts milliseconds) and the learning curve's points as they come: the
/// warm-up's epochs when it is over, an evaluation after it (iteration 0), then each
/// evaluation of reinforcement learning. The weights equal those of `orrery dl2 train` with
/// the same settings.
pub fn train_with_events(
    exp: &Experiment,
    cfg: TrainConfig,
    clock: impl Fn() -> f64,
    mut report: impl FnMut(TrainEvent),
) -> Result<Trained, String> {
    let started = clock();
    let total = cfg.warmup_epochs + cfg.iterations;
    let mut t = Trainer::new(exp, cfg.clone())?;
    let mut last = started;
    let progress = |phase: &str, done: usize, slots: u64, now: f64| {
        TrainEvent::Progress(TrainProgress {
            phase: phase.into(),
            done,
            total,
            slots,
            ms: now - started,
        })
    };
    report(progress("warm-up", 0, 0, started));
    // The curve's warm-up points go out with the progress, at most every 100 ms.
    let mut pending = Vec::new();
    let agreement = t.warmup_with(|epoch, _, point| {
        pending.push(point.clone());
        let now = clock();
        if now - last >= 100.0 {
            last = now;
            report(TrainEvent::Curve(std::mem::take(&mut pending)));
            report(progress("warm-up", epoch, 0, now));
        }
    })?;
    if !pending.is_empty() {
        report(TrainEvent::Curve(pending));
    }
    let after_warmup = t.evaluate()?;
    report(TrainEvent::Curve(vec![CurvePoint {
        phase: "rl".into(),
        step: 0,
        loss: 0.0,
        agreement: None,
        reward_per_slot: Some(after_warmup.0),
        avg_jct_s: Some(after_warmup.1),
    }]));
    let phase = "reinforcement learning";
    report(progress(
        phase,
        cfg.warmup_epochs,
        t.slots_simulated(),
        clock(),
    ));
    for i in 0..cfg.iterations {
        let before = t.curve.len();
        t.rl_iteration()?;
        if t.curve.len() > before {
            report(TrainEvent::Curve(t.curve[before..].to_vec()));
        }
        let now = clock();
        if now - last >= 100.0 || i + 1 == cfg.iterations {
            last = now;
            report(progress(
                phase,
                cfg.warmup_epochs + i + 1,
                t.slots_simulated(),
                now,
            ));
        }
    }
    let after_training = if cfg.iterations == 0 {
        after_warmup
    } else {
        t.evaluate()?
    };
    let mut net = t.policy.clone();
    net.round_to_f32();
    Ok(Trained {
        weights: net.to_json_with_description(Some(&trained_description(&cfg))),
        curve_csv: t.curve_csv(),
        slots: t.slots_simulated(),
        ms: clock() - started,
        agreement,
        after_warmup,
        after_training,
    })
}
