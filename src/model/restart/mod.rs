//! What a job pays when it starts on GPUs or its GPUs change: a delay without progress,
//! or PickyMan's drain, checkpoint and reload ([`checkpoint`]).

pub mod checkpoint;

pub use checkpoint::{JobOverhead, OverheadModel, Overheads, PreemptionConfig, PreemptionCosts};
use thiserror::Error;

/// A restart setting out of its range.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("experiment:0: field '{field}': {reason}")]
pub struct RestartError {
    /// The setting, as the experiment names it.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}
