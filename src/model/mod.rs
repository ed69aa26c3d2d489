//! The models every mechanism and policy shares, below anything that simulates: today the
//! goodput model of elastic jobs and its fitting ([`goodput`]).

pub mod goodput;
