//! The "Step through rounds" panel: one policy's run, stepped in a worker a step at a time
//! (rounds, ticks, events or slots, as the policy's simulator goes), with its state after
//! each step as the worker's board shows it.

use super::state;
use crate::events::StepMsg;
use crate::select_value;
use crate::worker::step_marks::FaultMarks;
use orrery::experiment::stepping::Board;
use orrery::sim::Mechanism;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A clock's seconds as days, hours, minutes and seconds.
fn clock(s: f64) -> String {
    let t = s.max(0.0) as u64;
    format!(
        "{}d {:02}:{:02}:{:02}",
        t / 86400,
        (t / 3600) % 24,
        (t / 60) % 60,
        t % 60
    )
}

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The mechanism it runs in.
    pub mech: Mechanism,
    /// The run after its last step, once a step was answered.
    pub board: Option<Rc<Board>>,
    /// What failures and spot capacity did up to that step (runs with them).
    #[prop_or_default]
    pub marks: Option<Rc<FaultMarks>>,
    /// The run is being set up in its worker.
    pub setting_up: bool,
    /// Every row of the jobs' table is asked for.
    pub all: bool,
    /// The selected policies' row names.
    pub policies: Vec<String>,
    /// The one stepped through.
    pub policy: String,
    /// Whether it plays.
    pub playing: bool,
    /// Milliseconds between steps while playing.
    pub speed_ms: u32,
    /// Why the run could not be made.
    pub error: Option<String>,
    /// Stepping's messages.
    pub on_step: Callback<StepMsg>,
}

/// The stepping panel.
#[function_component]
pub fn StepPanel(props: &Props) -> Html {
    let on_step = &props.on_step;
    let mech = props.mech;
    let board = props.board.as_deref();
    let (now, round, done) = board.map_or((0.0, 0, false), |b| (b.now, b.steps, b.done));
    // What one step is: the mechanism of the policy being stepped (PickyMan steps from
    // event to event in a round-based experiment too).
    let unit = board.map_or(mech, |b| b.mechanism).step_noun();
    let all = props.all;
    let on_all = on_step.reform(move |_: Event| StepMsg::AllRows(!all));
    html! {
        <section class="panel wide" id="step-panel">
            <h2>{ mech.stepper_title() }</h2>
            { super::intro("stepper", "Replay one policy decision by decision: which job holds which GPUs after each round, tick, slot or event, and who waits. Space plays or pauses, the right arrow steps.") }
            <div class="controls">
                <label>{ "policy " }
                    <select id="step-policy" onchange={on_step.reform(|e: Event| StepMsg::Policy(select_value(&e)))}>
                        { for props.policies.iter().map(|n| html! { <option value={n.clone()} selected={*n == props.policy}>{ n.clone() }</option> }) }
                    </select>
                </label>
                <button id="step" title="right arrow" onclick={on_step.reform(|_| StepMsg::Step)} disabled={done}>{ "Step ▸" }</button>
                <button id="play" title="space" onclick={on_step.reform(|_| StepMsg::TogglePlay)} disabled={done}>{ if props.playing { "Pause ❚❚" } else { "Play ▶" } }</button>
                <label>{ "speed " }<input id="speed" type="range" min="0" max="1000" step="50" value={(1000 - props.speed_ms.min(1000)).to_string()} oninput={on_step.reform(|e: InputEvent| StepMsg::Speed((1000 - e.target_unchecked_into::<HtmlInputElement>().value().parse::<u32>().unwrap_or(800)).to_string()))} /></label>
                <button id="run-to-end" onclick={on_step.reform(|_| StepMsg::RunToEnd)} disabled={done}>{ "Run to end" }</button>
                <button id="reset" onclick={on_step.reform(|_| StepMsg::Reset)}>{ "Reset" }</button>
                <span class="clock" id="clock" data-now-s={now.to_string()} data-round={round.to_string()}>{ format!("t = {} · {unit} {}", clock(now), round) }</span>
                if done { <span class="done">{ "finished" }</span> }
            </div>
            <p class="hint">{ mech.stepper_help() }</p>
            <p class="hint" id="keys-hint">{ "The keys act when no field, list or button has the focus (Esc leaves it)." }</p>
            if let Some(e) = &props.error { <p class="error">{ e }</p> }
            if props.setting_up { <p class="hint" id="step-preparing">{ "Setting up the stepping run in the background…" }</p> }
            if let Some(b) = board { { state::view(b, all, &on_all, props.marks.as_deref()) } }
        </section>
    }
}
