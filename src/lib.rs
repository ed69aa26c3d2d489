//! Orrery: a deep-learning cluster scheduling playground.
//!
//! One crate holds a round-based simulator of a heterogeneous GPU cluster and the
//! scheduling policies of Gavel, Pollux, DL2, Aryl and PickyMan plus classic baselines. The
//! core (everything but `cli` and `ui`) does no I/O, reads no clock and starts no threads, so
//! it runs the same natively and in WebAssembly: the same experiment and seed give the same
//! numbers on both.

#![deny(missing_docs)]

pub mod cluster;
pub mod experiment;
pub mod job;
pub mod math;
pub mod metrics;
pub mod nn;
pub mod policy;
pub mod rng;
pub mod sim;
#[cfg(target_arch = "wasm32")]
pub mod ui;
pub mod workload;
