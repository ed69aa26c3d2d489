//! The Workload panel's trace filter (the experiment's `trace_filter`: a range of
//! submission times, virtual clusters, statuses and a sample drawn with the experiment's
//! seed), and uploads of traces of durations, which run profile-free.

use super::experiment::{adopt_family, Family};
use super::App;
use crate::experiment::edit::{self, Edit};
use crate::experiment::{ProfileSource, WorkloadSource};
use crate::model::cluster::ClusterSpec;

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
        let mut c = self.with(|e| {
            e.workload = WorkloadSource::Inline {
                name: name.clone(),
                text,
            };
            e.profile = ProfileSource::ProfileFree;
        });
        let changed = if Family::of_mechanism(self.mech) == Family::Rounds {
            Vec::new()
        } else {
            adopt_family(&mut c, Family::Rounds)
        };
        let was_free = self.exp.is_profile_free();
        // The cluster's largest GPU type: a trace of durations needs one as large as its
        // largest job.
        let biggest = ClusterSpec::parse(&c.cluster)
            .ok()
            .and_then(|k| k.types.into_iter().rev().max_by_key(|t| t.count));
        self.try_apply(c).map_err(|e| match biggest {
            Some(t) if largest > t.count => {
                let servers = if largest.is_multiple_of(8) { "/8" } else { "" };
                format!(
                    "{e}: its largest job takes {largest} GPUs and the cluster's largest GPU type, {}, has {}; give a GPU type at least {largest} GPUs first ({}:{largest}{servers}, say), then upload the trace again",
                    t.name, t.count, t.name
                )
            }
            _ => e,
        })?;
        self.sync_cluster_text();
        let mut note = format!(
            "'{name}' knows its jobs by duration and GPU count: each runs for its traced duration on any GPU type"
        );
        if !was_free {
            note.push_str(" (the profile is now 'profile-free'; pick a profile to draw job types of it instead)");
        }
        if !changed.is_empty() {
            note.push_str(&format!("; switched to {}", changed.join("; ")));
        }
        note.push('.');
        Ok(note)
    }
}
