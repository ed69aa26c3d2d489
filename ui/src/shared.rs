//! What the App hands its panels besides the experiment's fields: values shared without
//! copying, and the results of a comparison.

use super::worker::PolicyResult;
use orrery::experiment::{Experiment, Resolved};
use orrery::model::cluster::ClusterSpec;
use orrery::sim::Mechanism;
use std::ops::Deref;
use std::rc::Rc;

/// A value the App shares with its panels and never changes once made: a change is a new
/// value. Two are equal when they are the same value (the same allocation), so props holding
/// one compare in no time however large it is (an experiment carrying an uploaded profile
/// folder, say).
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    /// Share a value.
    pub fn new(value: T) -> Self {
        Shared(Rc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// The results of a comparison (complete or as far as the worker got), with the experiment
/// they are of.
pub struct Results {
    /// The experiment that was run.
    pub exp: Experiment,
    /// One result per policy, in the experiment's order.
    pub runs: Vec<PolicyResult>,
    /// The experiment resolved (None if it no longer resolves).
    pub resolved: Option<Rc<Resolved>>,
}

impl Results {
    /// The mechanism the results' experiment runs in.
    pub fn mechanism(&self) -> Option<Mechanism> {
        self.resolved.as_ref().map(|r| r.mechanism())
    }

    /// The cluster the results ran on, its GPU types in the order the results index them
    /// (name order for round-based experiments outside Gavel-compatible mode).
    pub fn cluster(&self) -> Option<&ClusterSpec> {
        self.resolved.as_ref().map(|r| &r.cluster)
    }

    /// The result at index `i`, or the last one when there are fewer (None when there is
    /// none).
    pub fn at_most(&self, i: usize) -> Option<(usize, &PolicyResult)> {
        let i = i.min(self.runs.len().checked_sub(1)?);
        Some((i, self.runs.get(i)?))
    }
}
