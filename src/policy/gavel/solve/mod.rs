//! The solver side of Gavel's policies, apart from their objectives: the LP skeleton and
//! its solve ([`lp`]), one Clarabel solver shared by LPs of one structure ([`family`]),
//! the structured interior-point method ([`ipm`]) with classes of identical jobs
//! ([`job_classes`]), the pair-aware layout of the packing policies ([`packed`]) and its
//! partner classes ([`partner_classes`]), and the root search of finish-time fairness
//! (`rho_root`); the bound that settles water-filling's bottleneck tests ([`bottleneck`]).

pub mod bottleneck;
pub mod family;
pub mod ipm;
pub mod job_classes;
pub mod lp;
pub mod packed;
pub mod partner_classes;
pub(in crate::policy::gavel) mod rho_root;
