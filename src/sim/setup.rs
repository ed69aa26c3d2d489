//! What every mechanism is handed: the experiment's world as resolution built it (its
//! cluster and inference load, its jobs as the trace gives them in their job model, and the
//! settings: interval, restart model, seed), borrowed from the resolved experiment.

use super::{JobModel, Mechanism, SimConfig, SimError};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use crate::nn::Mlp;
use crate::workload::inference::LoadCurve;
use crate::workload::ps::{PsConfig, PsModels};
use crate::workload::{Apps, Profile};
use std::sync::Arc;

/// The world every mechanism is built from.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// The cluster.
    pub cluster: &'a ClusterSpec,
    /// The jobs, as the trace gives them.
    pub jobs: &'a [JobSpec],
    /// The throughputs of rigid jobs.
    pub profile: &'a Profile,
    /// What the jobs are: rigid (the profile's), elastic or parameter-server.
    pub models: &'a JobModels,
    /// The settings: interval, restart model, seed, Gavel-compatible mode.
    pub sim: &'a SimConfig,
    /// The inference load, when the cluster has an inference pool.
    pub load: Option<&'a LoadCurve>,
}

impl Setup<'_> {
    /// The mechanism that runs the experiment's own policies.
    pub fn mechanism(&self) -> Mechanism {
        Mechanism::of_world(
            self.models.kind(),
            self.load.is_some(),
            self.sim.restart.checkpoint.is_some(),
        )
    }

    /// The jobs as rigid ones, on the cluster the rigid mechanisms (rounds, events, and
    /// ticks for rigid jobs) run them on, with the profile of their throughputs:
    /// - elastic jobs run at their user's GPU count and batch, with the throughput their
    ///   application's model gives there ([`crate::workload::rigid`]);
    /// - parameter-server jobs run with the experiment's `rigid_workers` workers and as many
    ///   parameter servers, at their model's speed there ([`crate::workload::ps_rigid`]);
    /// - a world with an inference pool runs its training pool only: the inference types
    ///   keep their place in the cluster with no GPUs (they serve inference);
    /// - under PickyMan's checkpoint model, mechanisms that preempt at round, tick or slot
    ///   boundaries (`drains` false) charge a job its checkpoint write and reload at each
    ///   start and change ([`crate::model::restart::RestartModel::change_delay`]); the
    ///   preemptive mechanism charges the model itself.
    pub fn rigid_jobs(&self, drains: bool) -> (ClusterSpec, Vec<JobSpec>, Profile) {
        let mut cluster = self.cluster.clone();
        let (mut jobs, profile) = match self.models {
            JobModels::Elastic(apps) => {
                crate::workload::rigid::rigid_workload(apps, self.jobs, &cluster)
            }
            JobModels::ParameterServer(ps) => crate::workload::ps_rigid::rigid_workload(
                &ps.models,
                self.jobs,
                &cluster,
                ps.config.rigid_workers,
            ),
            JobModels::Rigid => (self.jobs.to_vec(), self.profile.clone()),
        };
        if self.load.is_some() {
            for t in cluster.types.iter_mut().filter(|t| t.is_inference()) {
                t.count = 0;
            }
        }
        if !drains {
            for j in jobs.iter_mut().filter(|j| j.restart_s.is_none()) {
                let costs = profile
                    .job_types
                    .get(&j.job_type)
                    .and_then(|p| p.preemption.as_ref());
                j.restart_s = self.sim.restart.change_delay(costs, j.scale_factor);
            }
        }
        (cluster, jobs, profile)
    }

    /// A part of the world a mechanism needs and this one lacks.
    pub fn missing(what: &str) -> SimError {
        SimError::Config {
            field: what.to_string(),
            reason: format!("the experiment has no {what}"),
        }
    }
}

/// What an experiment's jobs are beyond what the trace gives: their job model and its data.
#[derive(Debug, Clone, PartialEq)]
pub enum JobModels {
    /// Rigid jobs: a GPU count and the profile's throughput per GPU type.
    Rigid,
    /// Jobs of elastic applications, each with its goodput model.
    Elastic(Arc<Apps>),
    /// Jobs of workers and parameter servers, with their models' speed functions.
    ParameterServer(PsSetup),
}

impl JobModels {
    /// Which job model this is.
    pub fn kind(&self) -> JobModel {
        match self {
            JobModels::Rigid => JobModel::Rigid,
            JobModels::Elastic(_) => JobModel::Elastic,
            JobModels::ParameterServer(_) => JobModel::ParameterServer,
        }
    }

    /// The elastic applications, when the jobs are elastic.
    pub fn apps(&self) -> Option<&Arc<Apps>> {
        match self {
            JobModels::Elastic(a) => Some(a),
            _ => None,
        }
    }

    /// The parameter-server world, when the jobs are parameter-server ones.
    pub fn ps(&self) -> Option<&PsSetup> {
        match self {
            JobModels::ParameterServer(p) => Some(p),
            _ => None,
        }
    }
}

/// The parameter-server world of a DL2 experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct PsSetup {
    /// The job types.
    pub models: Arc<PsModels>,
    /// CPUs per server and per-job caps.
    pub config: PsConfig,
    /// The `dl2` policy's network when the experiment brings its own (else the bundled one).
    pub network: Option<Arc<Mlp>>,
}
