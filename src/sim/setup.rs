//! What every mechanism is handed: the experiment's world as resolution built it (its
//! cluster, its jobs as the trace gives them, the profile, the optional parts that make a
//! world elastic, pooled, preemptive or parameter-server, and the settings: interval,
//! restart cost, seed), borrowed from the resolved experiment.

use super::{Mechanism, SimConfig, SimError};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use crate::model::restart::{OverheadModel, Overheads};
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
    /// The settings: interval, restart cost, seed, Gavel-compatible mode.
    pub sim: &'a SimConfig,
    /// Elastic applications, when the jobs are elastic.
    pub apps: Option<&'a Arc<Apps>>,
    /// The inference load, when the cluster has an inference pool.
    pub load: Option<&'a LoadCurve>,
    /// PickyMan's overhead model, when suspensions drain, checkpoint and reload.
    pub preemption: Option<&'a OverheadModel>,
    /// The parameter-server world, when the jobs are parameter-server ones.
    pub ps: Option<&'a PsSetup>,
}

impl Setup<'_> {
    /// The mechanism that runs the experiment's own policies.
    pub fn mechanism(&self) -> Mechanism {
        Mechanism::of_world(
            self.apps.is_some(),
            self.load.is_some(),
            self.preemption.is_some(),
            self.ps.is_some(),
        )
    }

    /// The jobs as rigid ones, on the cluster the rigid mechanisms (rounds, events, and
    /// ticks for rigid jobs) run them on, with the profile of their throughputs:
    /// - elastic jobs run at their user's GPU count and batch, with the throughput their
    ///   application's model gives there ([`crate::workload::rigid`]);
    /// - a world with an inference pool runs its training pool only: the inference types
    ///   keep their place in the cluster with no GPUs (they serve inference);
    /// - under PickyMan's checkpoint model, mechanisms that preempt at round, tick or slot
    ///   boundaries (`drains` false) charge a job its checkpoint write and reload at each
    ///   start and change ([`OverheadModel::change_delay`]); the preemptive mechanism
    ///   charges the model itself.
    pub fn rigid_jobs(&self, drains: bool) -> (ClusterSpec, Vec<JobSpec>, Profile) {
        let mut cluster = self.cluster.clone();
        let (mut jobs, profile) = match self.apps {
            Some(apps) => crate::workload::rigid::rigid_workload(apps, self.jobs, &cluster),
            None => (self.jobs.to_vec(), self.profile.clone()),
        };
        if self.load.is_some() {
            for t in cluster.types.iter_mut().filter(|t| t.is_inference()) {
                t.count = 0;
            }
        }
        if let (Some(model), false) = (self.preemption, drains) {
            for j in jobs.iter_mut().filter(|j| j.restart_s.is_none()) {
                let costs = profile
                    .job_types
                    .get(&j.job_type)
                    .and_then(|p| p.preemption.as_ref());
                j.restart_s = Some(model.change_delay(costs, j.scale_factor));
            }
        }
        (cluster, jobs, profile)
    }

    /// What starts, suspensions and resumptions cost in the preemptive mechanism: PickyMan's
    /// checkpoint model when the world has one, else the restart delay (every start costs
    /// the job's delay and a suspension is immediate).
    pub fn overheads(&self) -> Overheads {
        match self.preemption {
            Some(m) => Overheads::Checkpoint(*m),
            None => Overheads::Delay {
                default_s: self.sim.restart_cost,
            },
        }
    }

    /// A part of the world a mechanism needs and this one lacks.
    pub fn missing(what: &str) -> SimError {
        SimError::Config {
            field: what.to_string(),
            reason: format!("the experiment has no {what}"),
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
