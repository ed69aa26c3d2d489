//! The models every mechanism and policy shares, below anything that simulates: the
//! cluster and its GPU types ([`cluster`]), jobs and their state ([`job`]) and their
//! placements' GPU lists ([`gpu_ids`]), the goodput model of elastic jobs and its fitting
//! ([`goodput`]), interpolation over measured points ([`interp`]), what restarts and preemptions cost ([`restart`]), and when servers
//! fail and what a failure takes back ([`failure`]), and spot capacity over time
//! ([`spot`]), read or drawn from a process of Orrery's own ([`spot_process`]).

pub mod cluster;
pub mod failure;
pub mod goodput;
pub mod gpu_ids;
pub mod interp;
pub mod job;
pub mod restart;
pub mod spot;
pub mod spot_process;
