//! Orrery: a deep-learning cluster scheduling playground.
//!
//! One crate holds simulators of a heterogeneous GPU cluster in five mechanisms (rounds,
//! ticks, pools, events, slots) and the scheduling policies of Gavel, Pollux, Sia, DL2, Aryl
//! and PickyMan plus classic baselines. The core (everything but `cli`; the web page is the
//! `orrery-ui` crate in `ui/`) does no I/O, reads no clock and starts no threads, so it runs
//! the same natively and in WebAssembly: the same experiment and seed give the same numbers
//! on both.
//!
//! One shell runs every policy: [`experiment::Experiment`] is the one description of a run;
//! [`experiment::Resolved`] checks it and hands every mechanism the same world
//! ([`sim::Setup`]); [`policy::catalog`] is the one list of policies, one entry per name
//! with an implementation per mechanism that builds the policy's simulation from that setup
//! behind one stepping interface ([`sim::Stepper`]; [`sim::shell`] says where each mechanism
//! lives); [`experiment::Plan`] is the one orchestration of runs (policies, then the
//! isolated baseline) for the CLI, the page's worker and the tests.
//!
//! Modules depend downward only: `math`, `rng`, `order`; `model`, `nn`; `workload`; `sim`;
//! `policy`; `metrics`; `experiment`; `view`; the CLI and the page's crate on top (see
//! `docs/architecture.md`).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod experiment;
pub mod math;
pub mod metrics;
pub mod model;
pub mod nn;
pub mod order;
pub mod policy;
pub mod rng;
pub mod sim;
pub mod view;
pub mod workload;

/// The WebAssembly module's allocator: Talc, smaller than the target's default (dlmalloc)
/// and as fast on the simulator's allocations. The page's module is single-threaded.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
