//! The "Step through rounds" panel: one policy's run on the page's thread, a step at a
//! time (rounds, ticks, events or slots, as the policy's simulator goes), with its state
//! after each step.

use super::state::{self, Rows};
use crate::experiment::Experiment;
use crate::sim::Mechanism;
use crate::ui::app::StepMsg;
use crate::ui::select_value;
use crate::ui::shared::Shared;
use crate::ui::stepper::{StepRun, StepSim};
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
    /// The experiment.
    pub exp: Shared<Experiment>,
    /// The mechanism it runs in.
    pub mech: Mechanism,
    /// The run, once a step was asked for.
    pub run: Option<StepRun>,
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
    /// The jobs of a stepping run being set up, when it is.
    pub preparing: Option<usize>,
    /// Stepping's messages.
    pub on_step: Callback<StepMsg>,
}

/// The stepping panel.
#[function_component]
pub fn StepPanel(props: &Props) -> Html {
    let show_all = use_state(|| false);
    let on_step = &props.on_step;
    let mech = props.mech;
    let st = props.run.as_ref().and_then(StepRun::get);
    let sim = st.as_ref().map(|st| &st.sim);
    let (now, round, done) = sim.map_or((0.0, 0, false), |s| (s.now(), s.round(), s.is_done()));
    // What one step is: the mechanism of the policy being stepped (PickyMan steps from
    // event to event in a round-based experiment too).
    let unit = match sim.map_or(mech, StepSim::mechanism) {
        Mechanism::Rounds => "round",
        Mechanism::Elastic | Mechanism::Pooled => "tick",
        Mechanism::Preemptive => "event",
        Mechanism::Slots => "slot",
    };
    let rows = Rows {
        all: *show_all,
        on_toggle: {
            let show_all = show_all.clone();
            Callback::from(move |_: Event| show_all.set(!*show_all))
        },
    };
    html! {
        <section class="panel wide" id="step-panel">
            <h2>{ match mech { Mechanism::Preemptive => "Step through events", Mechanism::Slots => "Step through slots", Mechanism::Elastic | Mechanism::Pooled => "Step through ticks", Mechanism::Rounds => "Step through rounds" } }</h2>
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
            <p class="hint">{ match mech {
                Mechanism::Slots => "Keys: space plays or pauses, → steps one slot. Every server is shown with the jobs whose workers hold its GPUs, and every active job with its workers and parameter servers in the slot just simulated.",
                Mechanism::Preemptive => "Keys: space plays or pauses, → steps to the next event (an arrival, a completion, the end of a suspension or a reload). Every GPU is shown with the job holding it.",
                Mechanism::Pooled => "Keys: space plays or pauses, → steps one tick. Training and inference servers are shown with the jobs on them; inference servers serving the load are hatched, loaned ones outlined.",
                Mechanism::Elastic => "Keys: space plays or pauses, → steps one scheduling interval. Every job is shown on the servers it holds.",
                Mechanism::Rounds => "Keys: space plays or pauses, → steps one round.",
            } }</p>
            <p class="hint" id="keys-hint">{ "The keys act when no field, list or button has the focus (Esc leaves it)." }</p>
            if let Some(e) = &props.error { <p class="error">{ e }</p> }
            if let Some(jobs) = props.preparing { <p class="hint" id="step-preparing">{ format!("Setting up the stepping run of {jobs} jobs: the page pauses for a moment.") }</p> }
            if let Some(st) = &st {
                { match &st.sim {
                    StepSim::Rounds(s) => state::rounds::view(st, s, &rows),
                    StepSim::Elastic(s) => state::elastic::view(st, s, props.exp.round_s, &rows),
                    StepSim::Pooled(s, r, _) => state::pooled::view(st, s, r, &rows),
                    StepSim::Preemptive(s, r, _) => state::preemptive::view(st, s, r, &rows),
                    StepSim::Slots(s, r, _) => state::slots::view(st, s, r, &rows),
                } }
            }
        </section>
    }
}
