//! The contract of Pollux's ticks: the [`ElasticPolicy`] trait its policies implement, what
//! a policy sees ([`ElasticView`]) and why it decided as it did ([`Explanation`]). A
//! decision is a list of server ids per job, one entry per GPU.

use super::ElasticJobState;
use crate::model::job::{JobId, JobSpec};
use crate::rng::Rng;
use crate::sim::PolicyError;
use crate::workload::ElasticApp;

pub use crate::sim::explanation::{Explanation, Weighed};

/// One active elastic job as a policy sees it.
#[derive(Debug, Clone)]
pub struct ElasticJobView<'a> {
    /// The job's id.
    pub id: JobId,
    /// Its trace entry (the user's GPU count and batch size).
    pub spec: &'a JobSpec,
    /// Its application.
    pub app: &'a ElasticApp,
    /// Its state in the simulator (allocation, epoch, progress, fitted model, restarts).
    pub state: &'a ElasticJobState,
    /// Seconds since submission.
    pub age: f64,
}

/// What an elastic policy sees.
#[derive(Debug, Clone)]
pub struct ElasticView<'a> {
    /// Simulated time (s).
    pub now: f64,
    /// Servers.
    pub num_nodes: u32,
    /// GPUs per server.
    pub gpus_per_node: u32,
    /// GPU type of each server (index into `gpu_types`); servers of a type are contiguous.
    pub node_types: &'a [usize],
    /// The real server each (virtual) server is part of: a server of 8 GPUs on a cluster
    /// whose smallest servers have 4 is two servers of the view with one real server.
    pub node_servers: &'a [u32],
    /// The experiment's restart delay of jobs without their own (s).
    pub restart_s: f64,
    /// GPU type names, in cluster order.
    pub gpu_types: &'a [String],
    /// Active jobs by ascending id (submission order for Pollux workloads).
    pub jobs: Vec<ElasticJobView<'a>>,
}

impl ElasticView<'_> {
    /// Total GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.num_nodes * self.gpus_per_node
    }
}

/// A policy for elastic jobs.
pub trait ElasticPolicy {
    /// Its spec.
    fn name(&self) -> &str;
    /// Whether jobs adapt their batch size to their allocation under this policy (if not,
    /// each job keeps the batch size of its trace entry).
    fn adapts_batch(&self) -> bool;
    /// Server ids per active job (one entry per GPU), in the order of `view.jobs`.
    fn decide(&mut self, view: &ElasticView, rng: &mut Rng) -> Result<Vec<Vec<u32>>, PolicyError>;
    /// Whether jobs keep a throughput model per GPU type (fitted to the step times seen on
    /// that type) and pick their batch size with the model of the type they run on;
    /// otherwise one model is fitted to every step time, whatever the type.
    fn per_type_models(&self) -> bool {
        false
    }
    /// When the throughput-model fit stops: once an iteration decreases its objective by
    /// at most this fraction (scipy's default, as Pollux fits, unless the system passes
    /// another tolerance).
    fn fit_tolerance(&self) -> f64 {
        crate::model::goodput::DEFAULT_FTOL
    }
    /// Whether a job restarts only when its shape changes (its GPU type, or its GPUs per
    /// server, as Sia's simulator counts a restart: the same shape on other servers is
    /// free); otherwise any change of its servers restarts it (Pollux's simulator).
    fn restarts_on_shape(&self) -> bool {
        false
    }
    /// Why the last decision gave each job what it got, for policies that weigh every
    /// configuration of every job.
    fn explanation(&self) -> Option<&Explanation> {
        None
    }
}
