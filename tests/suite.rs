//! Orrery's integration tests, one module per file beside this one, compiled as one test
//! binary. Run one file's tests with its module name as the filter, e.g.
//! `cargo test --release --test suite -- gavel_fidelity:: --show-output`.

mod common;

mod acme;
mod alibaba_spot;
mod aryl;
mod cli;
mod dl2;
mod dl2_fidelity;
mod dl2_learning;
mod dl2_page;
mod fault_families;
mod faults;
mod fuzz_regressions;
mod gavel_fidelity;
mod hetero;
mod layers;
mod lp_invariants;
mod lp_policies;
mod open_workloads;
mod packing;
mod pickyman;
mod pollux;
mod properties;
mod shell;
mod sia;
mod sim;
mod spot;
mod spot_jobs;
mod stepping;
mod sweep;
mod traces;
mod type_order;
