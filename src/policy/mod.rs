//! Scheduling policies: each family implements the contract of the mechanism that runs it
//! (Gavel's rounds' [`Policy`], [`PolicyView`] and [`Decision`] are re-exported here from
//! [`crate::sim::rounds::contract`]); specs parsed once ([`spec`]), each family's entries
//! ([`registry`]), the papers ([`papers`]) and the [`catalog`] that joins them.

pub mod aryl;
pub mod catalog;
pub mod classic;
pub mod dl2;
pub mod gavel;
pub mod hungarian;
pub mod papers;
pub mod pickyman;
pub mod pollux;
pub mod registry;
pub mod sia;
pub mod spec;

pub use catalog::{build, policies, BASELINE};
pub use registry::{parse_spec, ParamInfo, PolicyInfo};
pub use spec::{Spec, Split};

pub use crate::sim::rounds::contract::{
    Allocation, Assignment, Decision, JobView, Policy, PolicyTraits, PolicyView, Recompute, Rows,
};
pub use crate::sim::PolicyError;
