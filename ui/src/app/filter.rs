//! The Workload panel's trace filter (the experiment's `trace_filter`: a range of
//! submission times, virtual clusters, statuses and a sample drawn with the experiment's
//! seed), and uploads of traces of durations, which run profile-free.

use super::App;
use orrery::experiment::edit::{self, Edit};
use orrery::experiment::switch;
use orrery::experiment::Experiment;

impl App {
    /// Edit a field of the trace filter (`from`, `to`, `vcs`, `statuses`, `max_jobs`); an
    /// empty field filters nothing. A bad value, or a filter that keeps no job, keeps the
    /// previous filter and says why.
    pub(super) fn set_filter_field(&mut self, field: &str, v: &str) {
        let change = Edit::Filter(field.to_string(), v.to_string());
        let result = edit::apply(&self.exp, &change).and_then(|e| self.try_apply(e.exp));
        self.errors.workload = result
            .err()
            .map(|e| format!("{e} — the previous filter is kept"));
    }

    /// Try an uploaded trace of durations (Philly, Helios, Acme) whose largest job takes
    /// `largest` GPUs: it runs profile-free, with the round-based family's settings when the
    /// experiment was of another family. Returns the note saying so; an error says when the
    /// cluster has no GPU type as large as the largest job.
    pub(super) fn try_timed_trace(
        &mut self,
        name: String,
        text: String,
        largest: u32,
    ) -> Result<String, String> {
        let exp = Experiment::clone(&self.exp);
        let current = self.mech.jobs();
        let (c, note) = switch::with_timed_trace(&exp, current, name, text, largest, &mut |e| {
            self.resolve_cached(e).map(drop)
        })?;
        self.try_apply(c)?;
        self.sync_cluster_text();
        Ok(note)
    }
}
