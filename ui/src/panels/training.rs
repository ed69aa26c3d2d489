//! The "Train DL2's network" panel, for parameter-server experiments: the training's
//! settings, its progress, the live learning curves, and the trained network's use and
//! downloads.

use super::chart;
use crate::charts::{self, Panel};
use crate::events::TrainMsg;
use crate::plot;
use crate::shared::Shared;
use crate::{input_value, select_value};
use orrery::experiment::train::session::{TrainProgress, Trained};
use orrery::experiment::train::{CurvePoint, TrainConfig};
use orrery::sim::{JobModel, Mechanism};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// The training settings the page offers, with their labels and limits: the ones
/// `orrery dl2 train` takes as flags, so a network trained here can be trained again
/// natively with the same flags.
pub const TRAIN_FIELDS: [(&str, &str, usize, &str); 6] = [
    ("seed", "seed", u32::MAX as usize, "Seed of every random choice of the training (--seed)"),
    (
        "window",
        "window (jobs)",
        64,
        "Jobs the network sees and schedules each slot, the first in arrival order (--window; DL2 uses 20 at its base scale, 40 at its large one)",
    ),
    (
        "episode_jobs",
        "jobs per episode",
        500,
        "Jobs in each training and evaluation episode, drawn by the experiment's generator (--episode-jobs)",
    ),
    (
        "warmup_episodes",
        "warm-up episodes",
        200,
        "Episodes of DRF's decisions the network imitates first (--warmup-episodes)",
    ),
    (
        "warmup_epochs",
        "warm-up epochs",
        200,
        "Passes over DRF's decisions (--warmup-epochs)",
    ),
    (
        "iterations",
        "RL iterations",
        20000,
        "Reinforcement-learning iterations, one episode each; the held-out episodes are evaluated every 10 (--iterations)",
    ),
];

/// The `--gain` value of a setting: `left` when exact credit counts a job's work left.
pub fn gain_name(left: bool) -> &'static str {
    if left {
        "left"
    } else {
        "work"
    }
}

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The mechanism the experiment runs in (the panel is for parameter-server ones).
    pub mech: Mechanism,
    /// Training settings.
    pub cfg: TrainConfig,
    /// Whether training is running.
    pub running: bool,
    /// How far it is.
    pub progress: Option<TrainProgress>,
    /// The learning curve so far.
    pub curve: Shared<Vec<CurvePoint>>,
    /// Times the curves were asked to be drawn (0: never, and they are not).
    pub draws: u64,
    /// The finished training run, with the settings it used.
    pub trained: Option<Shared<(Trained, TrainConfig)>>,
    /// The panel's last error.
    pub error: Option<String>,
    /// Training's messages.
    pub on_train: Callback<TrainMsg>,
}

/// The "Train DL2's network" panel.
#[function_component]
pub fn TrainingPanel(props: &Props) -> Html {
    let warmup = use_node_ref();
    let rl = use_node_ref();
    {
        let canvases = (warmup.clone(), rl.clone());
        let on_train = props.on_train.clone();
        use_effect_with((props.curve.clone(), props.draws), move |(curve, draws)| {
            if *draws > 0 {
                if let Err(e) = draw(&canvases.0, &canvases.1, curve) {
                    on_train.emit(TrainMsg::ChartError(e));
                }
            }
        });
    }
    if props.mech.jobs() != JobModel::ParameterServer {
        return html! {};
    }
    let on_train = &props.on_train;
    let running = props.running;
    let cfg = &props.cfg;
    let value = |key: &str| match key {
        "seed" => cfg.seed.to_string(),
        "episode_jobs" => cfg.episode_jobs.to_string(),
        "warmup_episodes" => cfg.warmup_episodes.to_string(),
        "warmup_epochs" => cfg.warmup_epochs.to_string(),
        "window" => cfg.window.to_string(),
        _ => cfg.iterations.to_string(),
    };
    let progress = props.progress.as_ref();
    let fraction = progress.map_or(0.0, |p| p.done as f64 / p.total.max(1) as f64);
    let live_rate = progress
        .filter(|p| p.slots > 0 && p.ms > 0.0)
        .map(|p| p.slots as f64 / (p.ms / 1000.0));
    let same_cli = format!(
        "orrery dl2 train --seed {} --window {} --episode-jobs {} --warmup-episodes {} --warmup-epochs {} --iterations {} --gain {} --out weights.json --curve curve.csv",
        cfg.seed,
        cfg.window,
        cfg.episode_jobs,
        cfg.warmup_episodes,
        cfg.warmup_epochs,
        cfg.iterations,
        gain_name(cfg.gain_of_left)
    );
    html! {
        <section class="panel wide" id="train-panel">
            <h2>{ "Train DL2's network" }</h2>
            { super::intro("training", "DL2 learns its policy: first by imitating DRF on simulated episodes, then by reinforcement learning, which rewards the work jobs get done per slot. The curve shows the reward per slot and the average JCT on held-out episodes as it trains.") }
            <p class="hint">{ "Trains a network in a Web Worker on episodes drawn from this experiment's generator: a warm-up imitating DRF's decisions, then reinforcement learning that credits every decision with what each allowed action would add to its slot's reward. The same settings give the same weights as " }<code>{ same_cli }</code>{ " on this experiment." }</p>
            <div class="controls">
                { for TRAIN_FIELDS.iter().map(|&(key, label, max, title)| html! {
                    <label title={title}>{ format!("{label} ") }
                        <input id={format!("train-{key}")} type="number" min="0" max={max.to_string()} value={value(key)} disabled={running}
                            onchange={on_train.reform(move |e: Event| TrainMsg::Field(key, input_value(&e)))} />
                    </label>
                }) }
                <label title="What reinforcement learning counts as a decision's gain: the share of its job's whole work it adds (DL2's reward) or the share of its job's work left (--gain)">{ "gain of " }
                    <select id="train-gain" disabled={running}
                        onchange={on_train.reform(|e: Event| TrainMsg::Field("gain", select_value(&e)))}>
                        { for [false, true].into_iter().map(|left| html! {
                            <option value={gain_name(left)} selected={cfg.gain_of_left == left}>{ if left { "work left" } else { "whole work (DL2)" } }</option>
                        }) }
                    </select>
                </label>
            </div>
            <div class="controls">
                <button id="train" disabled={running} onclick={on_train.reform(|_| TrainMsg::Start)}>{ "Train" }</button>
                if running {
                    <progress id="train-progress" max="1" value={fraction.to_string()} />
                    <span class="progress-label" id="train-status">{ progress.map(|p| format!("{} ({}/{}), {:.1} s", p.phase, p.done, p.total, p.ms / 1000.0)).unwrap_or_else(|| "starting".into()) }</span>
                    if let Some(r) = live_rate { <span class="timing">{ format!("{r:.0} slots/s") }</span> }
                    <button id="train-cancel" onclick={on_train.reform(|_| TrainMsg::Cancel)}>{ "Cancel" }</button>
                }
            </div>
            if let Some(e) = &props.error { <p class="error" id="train-error">{ e }</p> }
            if let Some(trained) = &props.trained {
                { view_trained(&trained.0, &trained.1, on_train) }
            }
            <div class="charts">
                { chart("learning-warmup", &warmup, false) }
                { chart("learning-rl", &rl, false) }
            </div>
        </section>
    }
}

/// The finished training run: its figures, and its network's use and downloads.
fn view_trained(t: &Trained, tc: &TrainConfig, on_train: &Callback<TrainMsg>) -> Html {
    html! { <>
        <p class="current" id="trained" data-slots={t.slots.to_string()} data-ms={format!("{:.0}", t.ms)} data-slots-per-s={format!("{:.1}", t.slots_per_s())}
            data-agreement={t.agreement.to_string()} data-jct-before={t.after_warmup.1.to_string()} data-jct-after={t.after_training.1.to_string()}>
            { format!("Trained in {:.1} s: {} slots simulated, {:.0} slots/s. Warm-up: {:.1}% of held-out decisions equal DRF's; held-out average JCT {:.2} h after the warm-up, {:.2} h after {} iterations (reward per slot {:.3} → {:.3}).",
                t.ms / 1000.0, t.slots, t.slots_per_s(), t.agreement * 100.0, t.after_warmup.1 / 3600.0, t.after_training.1 / 3600.0, tc.iterations, t.after_warmup.0, t.after_training.0) }
        </p>
        <div class="downloads">
            <button id="use-trained" onclick={on_train.reform(|_| TrainMsg::UseTrained)}>{ "Use this network" }</button>
            <button id="download-weights" title="For orrery --network FILE" onclick={on_train.reform(|_| TrainMsg::DownloadWeights)}>{ "Weights JSON" }</button>
            <button id="download-curve" onclick={on_train.reform(|_| TrainMsg::DownloadCurve)}>{ "Learning curve CSV" }</button>
        </div>
    </> }
}

/// A curve's points of one number, by step.
fn points(
    curve: &[CurvePoint],
    phase: &str,
    f: impl Fn(&CurvePoint) -> Option<f64>,
) -> Vec<(f64, f64)> {
    curve
        .iter()
        .filter(|p| p.phase == phase)
        .filter_map(|p| Some((p.step as f64, f(p).filter(|v| v.is_finite())?)))
        .collect()
}

/// One plot of a learning chart: one number (its unit on the y axis) by step.
fn panel(name: &str, points: Vec<(f64, f64)>, first: usize) -> Panel {
    Panel {
        y_desc: name.to_string(),
        series: vec![(name.to_string(), points)],
        first,
    }
}

/// Draw the learning curves (nothing when they are not on the page): each number in a plot
/// of its own, over the same steps.
fn draw(warmup: &NodeRef, rl: &NodeRef, curve: &[CurvePoint]) -> Result<(), String> {
    if let Some(c) = warmup.cast::<HtmlCanvasElement>() {
        let panels = [
            panel(
                "agreement with DRF",
                points(curve, "warmup", |p| p.agreement),
                0,
            ),
            panel(
                "loss (cross-entropy)",
                points(curve, "warmup", |p| Some(p.loss)),
                1,
            ),
        ];
        let n = panels[0].series[0].1.len();
        let _ = c.set_attribute("data-points", &n.to_string());
        let title = "Warm-up: imitating DRF";
        plot::show(&c, 420, move |f| {
            if n == 0 {
                f.message(
                    title,
                    "No warm-up yet: its epochs appear here when it is over.",
                )
            } else {
                charts::stacked(f, title, "epoch", None, &panels, true)
            }
        })?;
    }
    if let Some(c) = rl.cast::<HtmlCanvasElement>() {
        let panels = [
            panel(
                "reward per slot",
                points(curve, "rl", |p| p.reward_per_slot),
                0,
            ),
            panel(
                "held-out avg JCT (h)",
                points(curve, "rl", |p| p.avg_jct_s.map(|s| s / 3600.0)),
                1,
            ),
        ];
        let n = panels[0].series[0].1.len();
        let _ = c.set_attribute("data-points", &n.to_string());
        let title = "Reinforcement learning: held-out episodes";
        plot::show(&c, 420, move |f| {
            if n == 0 {
                f.message(
                    title,
                    "No evaluation yet: the greedy policy is evaluated after the warm-up and every 20 iterations.",
                )
            } else {
                charts::stacked(f, title, "iteration", None, &panels, true)
            }
        })?;
    }
    Ok(())
}
