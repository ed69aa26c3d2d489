//! The "Run settings" panel: seed, round length (scheduling interval, slot), restart costs,
//! the measurement window, and for round-based experiments Gavel's mechanism and the
//! isolated baseline.

use super::{field_note, invalid, shown};
use crate::events::SettingsMsg;
use crate::shared::Shared;
use crate::{input_checked, input_value};
use orrery::experiment::Experiment;
use orrery::sim::{JobModel, Mechanism};
use yew::prelude::*;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment.
    pub exp: Shared<Experiment>,
    /// The mechanism it runs in.
    pub mech: Mechanism,
    /// Edits.
    pub on_edit: Callback<SettingsMsg>,
    /// Refused values.
    pub fields: Vec<crate::events::Refused>,
}

/// The "Run settings" panel.
#[function_component]
pub fn SettingsPanel(props: &Props) -> Html {
    let on_edit = &props.on_edit;
    let exp = &props.exp;
    let mech = props.mech;
    let f = props.fields.as_slice();
    let preemptive = mech.preemption_model();
    html! {
        <section class="panel" id="settings-panel">
            <h2>{ "Run settings" }</h2>
            { super::intro("settings", "How the simulation runs: the round (how often policies decide), the seed (every random choice follows from it), the restart cost a job pays when its GPUs change, and whether to run the isolated baseline that finish-time fairness (rho) needs.") }
            <label>{ "seed " }<input id="seed" aria-invalid={invalid(f, "seed")} type="number" min="0" value={shown(f, "seed", exp.seed.to_string())} onchange={on_edit.reform(|e: Event| SettingsMsg::Seed(input_value(&e)))} />{ field_note(f, "seed") }</label>
            <label title={if mech.jobs() == JobModel::Elastic { "Elastic experiments: seconds between scheduling decisions (Pollux: 60)" } else if preemptive { "PickyMan's family goes from event to event; the other families' policies use this round" } else { "" }}>{ if mech.jobs() == JobModel::Elastic { "scheduling interval (s) " } else if mech.jobs() == JobModel::ParameterServer { "slot (s) " } else { "round (s) " } }<input id="round" aria-invalid={invalid(f, "round")} type="number" min="1" value={shown(f, "round", exp.round_s.to_string())} onchange={on_edit.reform(|e: Event| SettingsMsg::Round(input_value(&e)))} />{ field_note(f, "round") }</label>
            <label title={if preemptive { "Preemptive experiments charge the overhead model's drain, checkpoint and reload instead" } else { "Seconds without progress each time a job starts or its GPUs change" }}>{ "restart cost (s) " }<input id="restart-cost" aria-invalid={invalid(f, "restart-cost")} type="number" min="0" disabled={preemptive} value={shown(f, "restart-cost", exp.restart_cost_s.to_string())} onchange={on_edit.reform(|e: Event| SettingsMsg::RestartCost(input_value(&e)))} />{ field_note(f, "restart-cost") }</label>
            <label title="A job type's or application's own delay, as Sia gives each application its own: type=seconds, separated by commas">{ "per-type delays " }<input id="restart-types" aria-invalid={invalid(f, "restart-types")} type="text" placeholder="cifar10=50, bert=120" disabled={preemptive} value={shown(f, "restart-types", exp.restart_by_type.iter().map(|(t, s)| format!("{t}={s}")).collect::<Vec<_>>().join(", "))} onchange={on_edit.reform(|e: Event| SettingsMsg::RestartTypes(input_value(&e)))} />{ field_note(f, "restart-types") }</label>
            if mech.jobs() == JobModel::Elastic {
                <label title="How many times longer an application's steps take than its profile measured, as Sia's simulator slows each application (cifar10 1.8, others 1.2): application=factor, separated by commas">{ "slowdowns " }<input id="slowdowns" aria-invalid={invalid(f, "slowdowns")} type="text" placeholder="cifar10=1.8, bert=1.2" value={shown(f, "slowdowns", exp.slowdown.iter().map(|(t, s)| format!("{t}={s}")).collect::<Vec<_>>().join(", "))} onchange={on_edit.reform(|e: Event| SettingsMsg::Slowdowns(input_value(&e)))} />{ field_note(f, "slowdowns") }</label>
            }
            <p class="hint" id="restart-model" data-model={exp.restart_kind().name()}>{ format!("Restart model: {}.", exp.restart_description()) }</p>
            <label>{ "measure jobs A:B " }<input id="window" aria-invalid={invalid(f, "window")} type="text" placeholder="all" value={shown(f, "window", exp.window.map(|(a, b)| format!("{a}:{b}")).unwrap_or_default())} onchange={on_edit.reform(|e: Event| SettingsMsg::Window(input_value(&e)))} />{ field_note(f, "window") }</label>
            if mech.jobs() == JobModel::ParameterServer {
                <p class="hint" id="ps-settings">{ "Parameter-server experiments: time goes in slots of the round length (DL2: 20 minutes); every change of a job's workers or parameter servers costs the restart cost. Gavel's mechanism does not apply." }</p>
                <label title="DL2's simulator's mechanism: each task goes to the least-loaded server or nowhere, no job is handed a worker and a parameter server before a heuristic acts, nothing costs time to restart, and the heuristics take DL2's forms"><input id="dl2-compat" type="checkbox" checked={exp.dl2_compat} onchange={on_edit.reform(|e: Event| SettingsMsg::Dl2Compat(input_checked(&e)))} />{ " DL2-compatible mechanism" }</label>
            } else if preemptive {
                <p class="hint" id="preemptive-settings">{ "Preemptive experiments: time goes from event to event (arrivals, completions, the ends of suspensions and reloads); a suspension costs what the Preemption panel's model says. The round length is that of the other families' policies (rounds, ticks), which pay a checkpoint write and reload at each start and change. Gavel's mechanism does not apply." }</p>
            } else if mech.inference_pool() {
                <p class="hint" id="pool-settings">{ "Experiments with an inference pool: jobs run in the pooled simulator (ticks of the round length, each allocation change costs the restart cost); Gavel's mechanism does not apply." }</p>
            } else if mech.jobs() == JobModel::Elastic {
                <p class="hint" id="elastic-settings">{ "Elastic experiments: Gavel's mechanism does not apply; every allocation change costs the restart cost." }</p>
            } else {
                <label><input type="checkbox" checked={exp.gavel_compat} onchange={on_edit.reform(|e: Event| SettingsMsg::GavelCompat(input_checked(&e)))} />{ " Gavel-compatible mechanism" }</label>
            }
            <label title="Each job's JCT over its JCT under Gavel's isolated policy (every active job gets an equal share of the cluster's time), run in rounds on the experiment's jobs as rigid ones"><input id="fairness" type="checkbox" checked={exp.fairness} onchange={on_edit.reform(|e: Event| SettingsMsg::Fairness(input_checked(&e)))} />{ " finish-time fairness (runs the isolated baseline)" }</label>
        </section>
    }
}
