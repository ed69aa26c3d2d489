//! Why a policy decided as it did, for the policies that weigh every configuration of every
//! job (Sia): what the page's stepper shows beside the board.

use crate::model::job::JobId;

/// Why each job got what it got in a policy's last decision: the configurations it
/// weighed (GPU type and count) and each job's goodput in every one of them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Explanation {
    /// The configurations: GPU type (index into the cluster's types) and GPU count.
    pub configs: Vec<(usize, u32)>,
    /// The jobs decided for (a job still paying its restart delay keeps its GPUs and is
    /// not among them).
    pub jobs: Vec<Weighed>,
}

/// One job's row of an [`Explanation`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Weighed {
    /// The job.
    pub job: JobId,
    /// Goodput in every configuration (examples per second, discounted by statistical
    /// efficiency at the best batch size; 0 where not offered).
    pub goodputs: Vec<f64>,
    /// What each configuration costs in the policy's objective.
    pub costs: Vec<f64>,
    /// The configuration chosen, if any.
    pub chosen: Option<usize>,
}

impl Explanation {
    /// The row of job `job`.
    pub fn job(&self, job: JobId) -> Option<&Weighed> {
        self.jobs.iter().find(|w| w.job == job)
    }
}
