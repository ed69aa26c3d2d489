//! The glossary: what each figure of a summary means, in plain words, one entry per column
//! of every mechanism's summary table (and the result tables beside it). The page puts the
//! text in each header's tooltip and accessible description; docs/playground.md describes
//! the same list.

/// One term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// Key the tables name it by (a column may mean something else in another mechanism,
    /// so keys like `restarts-elastic` tell them apart).
    pub key: &'static str,
    /// The column's header.
    pub label: &'static str,
    /// What it means.
    pub text: &'static str,
}

const fn t(key: &'static str, label: &'static str, text: &'static str) -> Term {
    Term { key, label, text }
}

/// Every term, the common columns first, then each mechanism's.
pub const TERMS: &[Term] = &[
    t("policy", "policy", "The scheduling policy that ran, as its spec (name[key=value,...]); its colour in the charts is the swatch beside it."),
    t("jobs", "jobs", "Jobs measured: those that finished (a window keeps only some); unfinished jobs are counted apart."),
    t("avg-jct", "avg JCT (h)", "Average job completion time: from a job's arrival to its end, waiting included, averaged over the jobs. Lower is better; the usual headline figure."),
    t("p99-jct", "p99 JCT (h)", "99th percentile of the job completion time: 99 jobs in 100 finish within it. It tells how badly the slowest jobs fare (the tail), which the average hides."),
    t("makespan", "makespan (h)", "Time from the first arrival until the last measured job ends: how long the whole workload took. It follows the longest jobs more than the policy."),
    t("avg-wait", "avg wait (h)", "Average queueing time: a job's first run minus its arrival. Policies that share GPUs in time start every job almost at once, so this is small for them."),
    t("avg-wait-preemptive", "avg wait (h)", "Average time waiting for GPUs: after arrival and after each suspension, until the job runs again."),
    t("utilization", "utilization", "Share of the training GPUs' time spent busy with jobs, from the first arrival to the end. Low utilization with long JCTs means the load is light or GPUs sit idle between rounds."),
    t("max-rho", "max rho", "Finish-time fairness, worst job: rho is a job's JCT divided by its JCT under the isolated policy (a static 1/n share of the cluster). rho above 1 means the job did worse than its fair share would give; the largest rho is the unfairest job's."),
    t("restarts", "restarts", "Times a job started again after being stopped or moved to other GPUs (each may cost the restart delay)."),
    t("avg-workers", "avg workers", "Workers of a training job, time-weighted (largest in the tooltip): the parameter-server job's GPUs."),
    t("avg-ps", "avg PS", "Parameter servers of a training job, time-weighted (largest in the tooltip): the CPU tasks that hold and update the model."),
    t("cpu-utilization", "CPU utilization", "Share of the cluster's CPU time held by workers and parameter servers."),
    t("reward-per-slot", "reward/slot", "DL2's reward averaged over the slots: the fraction of their work the jobs did in a slot, summed over jobs. Summed over a whole run it always equals the jobs finished (each does all its work once), so only the mean per slot tells policies apart: higher means the same work in fewer slots."),
    t("reallocations", "reallocations", "Changes of a job's workers or parameter servers from one slot to the next."),
    t("p99-wait", "p99 wait (h)", "99th percentile of the time waiting for GPUs, after arrival and after suspensions."),
    t("time-lost", "time lost (h)", "Time jobs lost to suspensions: the rest of the epoch after the decision, checkpoints and reloads. What blind preemption wastes."),
    t("preemptions-preemptive", "preemptions", "Jobs suspended (whose checkpoint was written and GPUs released)."),
    t("duration-error", "duration error", "Mean relative error of the policy's predicted training time per job (— when it predicts none)."),
    t("overhead-error", "overhead error", "Mean relative error of the policy's predicted time lost per suspension (— when it predicts none)."),
    t("cluster-usage", "cluster usage", "Share of all the cluster's GPU time in use, by training (own or loaned GPUs) or by the inference load."),
    t("avg-loaned", "avg GPUs on loan", "Inference GPUs on loan to training, time-averaged."),
    t("loans", "loans", "Inference servers loaned to training, summed over loans."),
    t("reclaims", "reclaims", "Loaned servers reclaimed by inference, summed over reclaims: each may stop the training jobs on them."),
    t("preemptions-pooled", "preemptions", "Jobs stopped (by reclaims or otherwise)."),
    t("restarts-pooled", "restarts", "Allocation changes after a job's first."),
    t("avg-servers-needed", "avg servers needed", "Inference servers the inference load needed, time-averaged: the rest could be loaned."),
    t("gpu-hours", "GPU-h", "GPU-hours held by jobs, restarts included: the cluster time the workload cost."),
    t("avg-gpus-job", "avg GPUs/job", "GPUs per running job, time-weighted: how wide elastic policies made the jobs."),
    t("avg-batch", "avg batch", "Total batch size of a running job, time-weighted (Pollux grows it with the GPUs)."),
    t("restarts-elastic", "restarts", "Allocation changes after a job's first (each costs the restart cost)."),
    t("preemptions-elastic", "preemptions", "Jobs stopped with no GPUs left."),
    t("resizes", "resizes", "Changes of a job's GPU count or total batch size, the first allocation included."),
    t("jct", "JCT (h)", "This job's completion time: its end minus its arrival."),
    t("wait", "wait (h)", "This job's queueing time: its first run minus its arrival."),
    t("gpus", "GPUs", "GPUs this job held, time-weighted (largest in the tooltip)."),
    t("total-batch", "total batch", "This job's total batch size over its GPUs, time-weighted."),
    t("time", "time (h)", "When the suspension was decided, hours after the first arrival."),
    t("job", "job", "The suspended job."),
    t("for-job", "for job", "The waiting job the suspension made room for."),
    t("drain", "drain (s)", "Seconds from the decision to the end of the job's epoch (or its completion), training on while the waiting job waits."),
    t("checkpoint", "checkpoint (s)", "Seconds writing the checkpoint."),
    t("reload", "reload (s)", "Seconds reloading the checkpoint and data when the job resumed."),
    t("lost", "lost (s)", "Drain, checkpoint and reload."),
    t("model", "model (s)", "The overhead model's time lost for this suspension."),
    t("predicted", "predicted (s)", "The time lost the policy predicted when it chose this victim (blank when it predicts none)."),
    t("server-failures", "server failures", "Servers that failed while the policy's run went on (every policy meets the same failures at the same times), by category of cause in the tooltip. A failure stops the jobs on the server."),
    t("interruptions", "interruptions", "Times a server failure stopped a measured job: its work since its last checkpoint is taken back and its policy starts it again."),
    t("ettr", "ETTR", "Effective training time ratio: of a job's time from its first start to its end, the share spent on computation it kept (not restarting, writing checkpoints, redoing rolled-back work or waiting), averaged over the jobs. 1 is perfect; Llama 3 reports over 90%."),
    t("gpu-h-lost", "GPU-h lost", "GPU-hours that failures and checkpoints cost: work rolled back by failures, GPUs held while jobs start again, and blocking checkpoint writes (each in the tooltip)."),
];

/// The summary table's columns of runs with failures or checkpoints, after the mechanism's
/// own.
pub const FAULT_COLUMNS: [&str; 4] = ["server-failures", "interruptions", "ettr", "gpu-h-lost"];

/// What a chart's axes show: across (x) and up (y), each a label and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChartAxes {
    /// The chart's name (its canvas is `chart-<name>`).
    pub chart: &'static str,
    /// The horizontal axis: label and meaning.
    pub across: (&'static str, &'static str),
    /// The vertical axis: label and meaning.
    pub up: (&'static str, &'static str),
}

const fn axes(
    chart: &'static str,
    across: (&'static str, &'static str),
    up: (&'static str, &'static str),
) -> ChartAxes {
    ChartAxes { chart, across, up }
}

const SHARE_OF_JOBS: (&str, &str) = ("fraction of jobs", "The share of the measured jobs at or below the value across: a curve further left is better, and where it reaches 1 is the slowest job.");
const TIME_H: (&str, &str) = ("time (h)", "Hours since the first job arrived.");

/// The axes of every chart of the page, in plain words (the page shows them under each
/// chart, each with its meaning as tooltip).
pub const CHART_AXES: &[ChartAxes] = &[
    axes("jct-cdf", ("JCT (h)", "Job completion time: from a job's arrival to its end, waiting included (log scale: each step is ten times the last)."), SHARE_OF_JOBS),
    axes("rho-cdf", ("rho", "A job's JCT divided by its JCT under the isolated policy (a static 1/n share of the cluster): above 1 the job did worse than its fair share would give (log scale)."), SHARE_OF_JOBS),
    axes("utilization", TIME_H, ("busy GPUs / GPUs", "Share of each GPU type's GPUs busy with jobs at that time, one line per type, for the policy picked above the chart.")),
    axes("queue", TIME_H, ("jobs", "Jobs waiting at that time: arrived, not finished, holding no GPU; one line per policy.")),
    axes("sweep", ("load", "Jobs arriving per hour (a generated workload) or the load factor (a trace's arrivals compressed in time by it): more load to the right."), ("JCT (h)", "Average (or, when asked, p99) job completion time of the measured jobs at that load, one line per policy.")),
    axes("inference-pool", TIME_H, ("inference servers", "Inference servers serving the load, and those loaned to training, at that time.")),
    axes("job-history", TIME_H, ("GPUs, batch", "The job's GPUs and its total batch size at that time, one panel each.")),
    axes("goodput", ("GPUs", "GPUs given to the job, on one type."), ("goodput", "Examples per second the job trains at on that many GPUs at its best batch size, discounted by statistical efficiency; the efficiency and the batch size below it.")),
    axes("preemption-timeline", ("time of the decision (h)", "When each suspension was decided, hours after the first arrival."), ("time lost (s)", "What the suspension cost: finishing the epoch, the checkpoint and the reload, stacked; the line is the overhead model's estimate.")),
    axes("predictions", ("actual training time (h)", "How long a finished job actually trained (log scale)."), ("predicted (h)", "How long the policy predicted it would train (log scale); points on the dashed diagonal were predicted exactly.")),
    axes("learning-warmup", ("epoch", "Passes of the training: imitation of DRF first."), ("agreement, loss", "The share of DRF's choices the network makes the same way, and its cross-entropy loss against them, one panel each.")),
    axes("learning-rl", ("epoch", "Passes of reinforcement learning after the warm-up."), ("reward, JCT", "The reward per slot the network earns on held-out episodes, and the average JCT (h) its policy gives there, one panel each.")),
    axes("trace-gpus", ("GPUs per job", "GPUs a job asks for, gang-scheduled (its scale factor)."), ("share", "Share of the jobs, and of the GPU-hours, asking for that many GPUs.")),
    axes("trace-durations", ("duration", "How long a job runs alone (or its work in steps when the trace gives no durations), log scale."), SHARE_OF_JOBS),
    axes("trace-arrivals", TIME_H, ("jobs per hour", "Jobs arriving in each hour of the trace.")),
    axes("choices", ("GPUs", "GPUs of one type the policy could give the job."), ("goodput (examples/s)", "The job's goodput on that many GPUs of that type, one line per GPU type; the ring marks the configuration chosen.")),
    axes("interruptions", TIME_H, ("interruptions", "Interruptions of the measured jobs by server failures up to that time, one line per policy.")),
    axes("lost-gpu-hours", ("cause", "What the GPU-hours went to: rollback (work a failure took back), restarts (GPUs held while jobs started again), writes (blocking checkpoint writes)."), ("GPU-hours", "GPU-hours lost to that cause, one bar per policy.")),
    axes("ettr-sweep", ("checkpoint interval (min)", "Minutes of computation between a job's checkpoints, one run at each; the grey lines mark Young's interval sqrt(2wM) and Daly's for the experiment's largest job (w: the write time, M: the job's mean time to failure). A run with auto (each job at Daly's interval for its own M) is ringed at the largest job's Daly interval."), ("ETTR", "Effective training time ratio at that interval, one line per policy: the share of the jobs' time spent on work they kept. Its peak is the best interval.")),
    axes("ettr-failures", ("failures per server-day", "How often each server fails, one run at each rate (an experiment without failure settings gets the model's: a spare at once, Llama 3's causes, hourly checkpoints)."), ("ETTR", "Effective training time ratio at that failure rate, one line per policy: the share of the jobs' time spent on work they kept.")),
    axes("spot-capacity", TIME_H, ("GPUs", "GPUs of the spot type the trace holds at that time (its instances times the GPUs per instance), and the GPUs of the type each policy kept busy.")),
];

/// The axes of chart `name`.
pub fn chart_axes(name: &str) -> Option<&'static ChartAxes> {
    CHART_AXES.iter().find(|c| c.chart == name)
}

/// The term of key `key`.
pub fn term(key: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.key == key)
}

/// How many of [`summary_columns`]' keys are common to every mechanism (the first ones).
pub const COMMON_COLUMNS: usize = 7;

/// The summary table's column keys for results of `mechanism`, in order: the
/// [`COMMON_COLUMNS`] common columns, then the mechanism's own.
pub fn summary_columns(mechanism: crate::sim::Mechanism) -> Vec<&'static str> {
    use crate::sim::Mechanism::*;
    let wait = if mechanism == Preemptive {
        "avg-wait-preemptive"
    } else {
        "avg-wait"
    };
    let mut keys = vec![
        "policy",
        "jobs",
        "avg-jct",
        "p99-jct",
        "makespan",
        wait,
        "utilization",
    ];
    keys.extend_from_slice(match mechanism {
        Slots => &[
            "max-rho",
            "avg-workers",
            "avg-ps",
            "cpu-utilization",
            "reward-per-slot",
            "reallocations",
        ][..],
        Preemptive => &[
            "max-rho",
            "p99-wait",
            "time-lost",
            "preemptions-preemptive",
            "duration-error",
            "overhead-error",
        ],
        Pooled => &[
            "max-rho",
            "cluster-usage",
            "avg-loaned",
            "loans",
            "reclaims",
            "preemptions-pooled",
            "restarts-pooled",
        ],
        Elastic => &[
            "max-rho",
            "gpu-hours",
            "avg-gpus-job",
            "avg-batch",
            "restarts-elastic",
            "preemptions-elastic",
            "resizes",
        ],
        Rounds => &["max-rho", "restarts"],
    });
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Mechanism;

    #[test]
    fn every_summary_column_of_every_mechanism_has_a_term() {
        for m in Mechanism::ALL {
            let cols = summary_columns(m);
            assert!(cols.len() >= 9, "{m:?}");
            for k in cols {
                let t = term(k).unwrap_or_else(|| panic!("no term '{k}' ({m:?})"));
                assert!(t.text.len() > 20 && t.text.ends_with('.'), "{k}");
            }
        }
        assert_eq!(
            summary_columns(Mechanism::Rounds)[COMMON_COLUMNS],
            "max-rho"
        );
        assert!(term("max-rho").unwrap().text.contains("isolated"));
        assert!(term("p99-jct").unwrap().text.contains("99"));
        assert!(term("nope").is_none());
    }

    #[test]
    fn every_fault_column_has_a_term() {
        for k in FAULT_COLUMNS {
            let t = term(k).unwrap_or_else(|| panic!("no term '{k}'"));
            assert!(t.text.len() > 20 && t.text.ends_with('.'), "{k}");
        }
    }

    #[test]
    fn keys_are_unique_and_labels_say_their_unit() {
        for (i, a) in TERMS.iter().enumerate() {
            assert!(TERMS[..i].iter().all(|b| b.key != a.key), "{}", a.key);
        }
        for k in ["avg-jct", "p99-jct", "makespan", "avg-wait", "time-lost"] {
            assert!(term(k).unwrap().label.ends_with("(h)"), "{k}");
        }
    }

    #[test]
    fn every_chart_of_the_page_has_its_axes_explained_once() {
        let names: Vec<&str> = CHART_AXES.iter().map(|c| c.chart).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "a chart twice");
        for c in CHART_AXES {
            for (label, text) in [c.across, c.up] {
                assert!(
                    !label.is_empty() && text.len() > 20 && text.ends_with('.'),
                    "{}: {label}",
                    c.chart
                );
            }
        }
        assert!(chart_axes("jct-cdf").is_some() && chart_axes("nope").is_none());
    }
}
