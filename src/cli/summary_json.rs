//! The JSON of `orrery run` and `compare`: one object per policy, the summary's fields, then
//! what the table's `note` lines say when there is any: `"profile_free": true` when the
//! experiment runs profile-free, and `"notes"`, the notes of its resolution (profile-free,
//! the trace filter and what it kept, the load factor, job types drawn from the profile).
//! Experiments without notes print the summary's fields alone.

use orrery::experiment::{Experiment, Resolved};
use orrery::metrics::Summary;
use serde::Serialize;

/// A policy's summary with the notes of the experiment it ran.
#[derive(Serialize)]
pub(crate) struct SummaryJson<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    profile_free: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

impl<'a> SummaryJson<'a> {
    /// `summary` of a run of `exp`, resolved as `r`.
    pub(crate) fn new(summary: &'a Summary, exp: &Experiment, r: &'a Resolved) -> Self {
        SummaryJson {
            summary,
            profile_free: exp.is_profile_free(),
            notes: &r.notes,
        }
    }
}
