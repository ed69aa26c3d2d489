//! The stepping panel's view of the run after a step, one per simulator: [`rounds`],
//! [`elastic`], [`pooled`], [`preemptive`] and [`slots`]. Each shows the cluster with the
//! jobs holding it and a table of the jobs; [`choices`] shows why a policy that weighs
//! every configuration gave each job what it got.

pub mod choices;
pub mod elastic;
pub mod pooled;
pub mod preemptive;
pub mod rounds;
pub mod slots;

use yew::prelude::*;

/// Rows of the jobs' table shown unless every job is asked for.
const JOB_ROWS: usize = 40;

/// How many rows of the jobs' table to show: the first ones, or all when asked.
pub struct Rows {
    /// Show every job.
    pub all: bool,
    /// The box asking for every job was ticked or unticked.
    pub on_toggle: Callback<Event>,
}

impl Rows {
    /// Rows shown of `n` jobs.
    fn shown(&self, n: usize) -> usize {
        if self.all {
            n
        } else {
            n.min(JOB_ROWS)
        }
    }

    /// The box asking for all `n` jobs (`what`: "active jobs", say), when there are more
    /// than the first rows.
    fn toggle(&self, n: usize, what: &str) -> Html {
        if n <= JOB_ROWS {
            return html! {};
        }
        html! {
            <label class="hint"><input type="checkbox" checked={self.all} onchange={self.on_toggle.clone()} />{ format!(" show all {n} {what} ({} more)", n.saturating_sub(JOB_ROWS)) }</label>
        }
    }
}
