//! Workloads: traces of jobs, throughput profiles, the synthetic generator and the bundled
//! presets.
//!
//! Readers take the file's text and its name (for messages); they never touch the file
//! system, so the same code serves the CLI and the page. Every error names the file, the
//! line and the field.

pub mod acme;
pub mod alibaba_spot;
pub mod as_elastic;
pub mod cluster_log;
pub mod colocation;
pub mod csv;
pub mod dates;
pub mod dl2_files;
pub mod dl2_gen;
pub mod dl2_trace;
pub mod elastic;
mod elastic_files;
pub mod filter;
pub mod generator;
pub mod inference;
pub mod load;
pub mod pai;
pub mod philly;
pub mod presets;
pub mod profile;
pub mod ps;
pub mod ps_rigid;
pub mod rigid;
pub mod stats;
mod table;
pub mod timed;
pub mod trace;

pub use colocation::Colocation;
pub use elastic::{Apps, ElasticApp};
pub use elastic_files::InlineFile;
pub use filter::{TimePoint, TraceFilter};
pub use generator::{generate, GeneratorConfig};
pub use profile::{JobTypeProfile, Profile};
pub use ps::{PsConfig, PsModels};
pub use stats::TraceStats;
pub use trace::Trace;

use thiserror::Error;

/// An error reading or checking a workload file.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WorkloadError {
    /// A field on a given line is missing or wrong.
    #[error("{file}:{line}: field '{field}': {reason}")]
    Field {
        /// File name as the user gave it.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Column or key.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// The file as a whole is wrong (unknown format, empty, bad JSON).
    #[error("{file}: {reason}")]
    File {
        /// File name as the user gave it.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

impl From<crate::model::restart::RestartError> for WorkloadError {
    fn from(e: crate::model::restart::RestartError) -> Self {
        WorkloadError::field("experiment", 0, e.field, e.reason)
    }
}

impl WorkloadError {
    pub(crate) fn field(
        file: &str,
        line: usize,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        WorkloadError::Field {
            file: file.to_string(),
            line,
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn file(file: &str, reason: impl Into<String>) -> Self {
        WorkloadError::File {
            file: file.to_string(),
            reason: reason.into(),
        }
    }
}

/// Parse a finite, non-negative number, naming the field on failure.
pub(crate) fn parse_nonneg(
    file: &str,
    line: usize,
    field: &str,
    text: &str,
) -> Result<f64, WorkloadError> {
    let t = text.trim();
    let v: f64 = t
        .parse()
        .map_err(|_| WorkloadError::field(file, line, field, format!("'{t}' is not a number")))?;
    if !v.is_finite() {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("'{t}' is not a finite number"),
        ));
    }
    if v < 0.0 {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("{v} is negative"),
        ));
    }
    Ok(v)
}

/// Parse a positive whole number, naming the field on failure.
pub(crate) fn parse_count(
    file: &str,
    line: usize,
    field: &str,
    text: &str,
) -> Result<u32, WorkloadError> {
    let v = parse_nonneg(file, line, field, text)?;
    if v.fract() != 0.0 || v < 1.0 || v > f64::from(u32::MAX) {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("{v} is not a positive whole number"),
        ));
    }
    Ok(v as u32)
}

/// 1-based line of a byte offset in `text`.
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}
