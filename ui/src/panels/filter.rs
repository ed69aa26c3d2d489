//! The Workload panel's trace filter block: a range of submission times, virtual
//! clusters, statuses and a sample of at most so many jobs (the experiment's
//! `trace_filter`, so a share link carries it).

use crate::events::{filter_field, WorkloadMsg};
use crate::input_value;
use orrery::workload::TraceFilter;
use yew::prelude::*;

/// What the block shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The experiment's filter.
    pub filter: Option<TraceFilter>,
    /// Edits, as Workload panel messages.
    pub on_edit: Callback<WorkloadMsg>,
}

/// The trace filter block.
#[function_component]
pub fn TraceFilterBlock(props: &Props) -> Html {
    let f = props.filter.as_ref();
    let field = |name: &'static str| {
        props
            .on_edit
            .reform(move |e: Event| WorkloadMsg::Filter(name, input_value(&e)))
    };
    html! {
        <fieldset id="trace-filter">
            <legend>{ "Trace filter" }</legend>
            <p class="hint">{ "Applied to the trace before it runs: times are seconds after its first arrival or dates of its clock (2017-10-03 12:00:00); the sample follows the experiment's seed. Empty fields keep every job." }</p>
            <label>{ "submitted from " }<input id="filter-from" type="text" placeholder="2017-10-03" value={filter_field(f, "from")} onchange={field("from")} /></label>
            <label>{ "before " }<input id="filter-to" type="text" placeholder="2017-10-10" value={filter_field(f, "to")} onchange={field("to")} /></label>
            <label title="Virtual clusters (Philly's and Helios's vc, the Sia CSV's cluster, an Orrery trace's entity), comma-separated">{ "virtual clusters " }<input id="filter-vcs" type="text" value={filter_field(f, "vcs")} onchange={field("vcs")} /></label>
            <label title="Statuses, any case, comma-separated: Pass, Killed, Failed (Philly); COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL (Helios, Acme)">{ "statuses " }<input id="filter-statuses" type="text" value={filter_field(f, "statuses")} onchange={field("statuses")} /></label>
            <label>{ "at most jobs " }<input id="filter-max-jobs" type="number" min="1" value={filter_field(f, "max_jobs")} onchange={field("max_jobs")} /></label>
        </fieldset>
    }
}
