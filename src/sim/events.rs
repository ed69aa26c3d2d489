//! Events the simulator emits; metrics and stateful policies observe them.

use crate::model::cluster::TypeIdx;
use crate::model::job::JobId;
use serde::{Deserialize, Serialize};

/// Something that happened in the simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimEvent {
    /// A job was admitted into the active set (at a round boundary after its arrival).
    Admitted {
        /// The job.
        job: JobId,
        /// Admission time (s).
        time: f64,
    },
    /// A job ran during a round.
    Ran {
        /// The job.
        job: JobId,
        /// GPU type.
        gpu_type: TypeIdx,
        /// GPUs held.
        gpus: u32,
        /// Start of its slice (s).
        start: f64,
        /// End of its slice (s).
        end: f64,
        /// GPU-busy seconds charged per GPU (Gavel-compatible accounting may differ from
        /// `end - start`). For a pair, the pair's (the same on both jobs' events).
        busy_s: f64,
        /// Steps completed.
        steps: f64,
        /// Seconds of the slice lost to a restart.
        overhead_s: f64,
        /// Space sharing: the other job of a pair on the same GPUs. Both jobs' events then
        /// carry the pair's slice (`end` is when the later job releases the GPUs) and the
        /// pair's `busy_s`, and each job is charged half of the GPUs' time, so a pair's GPUs
        /// count once.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared_with: Option<JobId>,
    },
    /// A job's placement changed after it had run (it pays the restart cost).
    Restarted {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
    },
    /// A job that ran in the previous round did not run in this one.
    Preempted {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
    },
    /// A job finished.
    Finished {
        /// The job.
        job: JobId,
        /// Completion time (s).
        time: f64,
    },
    /// A job was given up on (it can never be scheduled).
    Dropped {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
        /// Why.
        reason: String,
    },
    /// The policy produced a new decision.
    Decided {
        /// Time (s).
        time: f64,
    },
    /// The policy failed; the previous decision is kept.
    PolicyFailed {
        /// Time (s).
        time: f64,
        /// The policy's message.
        reason: String,
    },
    /// An elastic job's GPU count or batch size changed (reported at the end of a tick).
    Resized {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
        /// GPUs held (0 when suspended).
        gpus: u32,
        /// Servers spanned.
        nodes: u32,
        /// Total batch size (0 when suspended).
        batch_size: u32,
    },
    /// Inference servers were loaned to training.
    Loaned {
        /// Time (s).
        time: f64,
        /// Servers loaned.
        servers: u32,
    },
    /// Loaned servers went back to inference.
    Reclaimed {
        /// Time (s).
        time: f64,
        /// Servers returned.
        servers: u32,
    },
    /// The inference pool at the start of a tick (pooled simulations).
    PoolState {
        /// Time (s).
        time: f64,
        /// Inference servers needed by the load.
        demand: u32,
        /// Inference servers loaned to training.
        loaned: u32,
    },
    /// A running job is being suspended for a waiting one (preemptive simulations): it
    /// trains to the end of its epoch, then writes a checkpoint; then its GPUs are free.
    Suspending {
        /// The suspended job.
        job: JobId,
        /// Decision time (s).
        time: f64,
        /// The waiting job its GPUs go to.
        for_job: JobId,
        /// Seconds until its epoch ends (it keeps training meanwhile).
        drain_s: f64,
        /// Seconds its checkpoint takes to write (drawn around the model's).
        save_s: f64,
        /// The overhead model's time lost to this preemption: drain, checkpoint and reload
        /// (s).
        modelled_s: f64,
        /// The time lost the policy predicted (s), if it predicts one.
        predicted_s: Option<f64>,
    },
    /// A suspended job starts again: it reloads its checkpoint and data first.
    Resumed {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
        /// Seconds the reload takes (drawn around the model's).
        reload_s: f64,
        /// The overhead model's reload time (s).
        modelled_s: f64,
    },
    /// A policy's prediction of a job's execution time.
    Predicted {
        /// The job.
        job: JobId,
        /// Time of the prediction (s).
        time: f64,
        /// Predicted seconds of training on its GPUs, without overheads.
        duration_s: f64,
    },
    /// A parameter-server job's workers or parameter servers changed from the previous
    /// slot's (slot simulations; reported at the start of the slot).
    PsAllocated {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
        /// Workers.
        workers: u32,
        /// Parameter servers.
        ps: u32,
    },
    /// A slot of the slot simulator ended (after its `RoundEnded`).
    SlotEnded {
        /// Slot start (s).
        start: f64,
        /// Slot end (s).
        end: f64,
        /// DL2's reward: the sum over jobs of the fraction of their work done in the slot.
        reward: f64,
        /// Actions of the policy applied.
        actions: u32,
        /// Actions of the policy that could not be applied.
        invalid_actions: u32,
        /// CPUs held by jobs that trained.
        busy_cpus: u32,
        /// CPUs of the cluster.
        total_cpus: u32,
        /// Workers times seconds held, summed over jobs that trained.
        worker_s: f64,
        /// Parameter servers times seconds held, summed over jobs that trained.
        ps_s: f64,
        /// Seconds jobs trained (including restart delays), summed.
        job_s: f64,
    },
    /// A server failed (runs with failures).
    ServerFailed {
        /// Time (s).
        time: f64,
        /// The server's global index (types in the cluster's order, servers in GPU order).
        server: u32,
        /// The category of its cause (GPU, Network, Host, ...).
        category: String,
        /// In a GPU domain, the GPU of the server that failed (its index in the server);
        /// None when the whole server failed.
        gpu: Option<u32>,
    },
    /// A failure of one of its servers stopped a job, or a spot instance it ran on was
    /// taken back: the work since its last checkpoint is taken back (after a warning long
    /// enough to write a checkpoint, only the work of that write) and its policy restarts
    /// it.
    Interrupted {
        /// The job.
        job: JobId,
        /// Time (s).
        time: f64,
        /// GPUs it held.
        gpus: u32,
        /// Work taken back (steps).
        lost_steps: f64,
        /// Seconds of computation taken back (per GPU).
        lost_s: f64,
        /// A spot instance taken back (else a server failure).
        spot: bool,
    },
    /// A job wrote checkpoints while it ran (blocking writes; runs with checkpoints).
    Checkpointed {
        /// The job.
        job: JobId,
        /// End of the stretch it ran (s).
        time: f64,
        /// GPUs it held.
        gpus: u32,
        /// Seconds spent writing (per GPU).
        write_s: f64,
    },
    /// A round ended.
    RoundEnded {
        /// Round number (0-based).
        round: u64,
        /// Round start (s).
        start: f64,
        /// Round end (s).
        end: f64,
        /// Active jobs during the round.
        active: usize,
        /// Jobs that ran during the round.
        running: usize,
        /// Busy GPUs per type during the round.
        busy_gpus: Vec<u32>,
    },
}
