//! Bundled scenarios: experiments ready to run on the bundled traces and profiles, with the
//! paper claims they reproduce ([`claims`]).

pub mod claims;

use crate::experiment::{Experiment, ProfileSource, WorkloadSource};
use claims::{Claim, LoadClaim};

/// A named scenario: an experiment ready to run.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Name (`--preset NAME`).
    pub name: &'static str,
    /// What it shows.
    pub description: &'static str,
    /// The paper's headline comparison it reproduces, if it is a paper preset.
    pub claim: Option<&'static Claim>,
    /// The paper's figure against the load it reproduces by a sweep of the arrival rate,
    /// if it has one (the page runs the sweep with the comparison; `orrery sweep --preset`
    /// takes its rates).
    pub load: Option<&'static LoadClaim>,
    build: fn() -> Experiment,
}

impl Scenario {
    /// The experiment.
    pub fn experiment(&self) -> Experiment {
        (self.build)()
    }
}

/// The default scenario: the bundled trace on a 12:12:12 cluster, max-min fairness (Gavel's
/// LAS) against its heterogeneity-aware form.
pub fn default_experiment() -> Experiment {
    Experiment {
        version: crate::experiment::SCHEMA_VERSION,
        cluster: "v100:12,p100:12,k80:12".into(),
        workload: WorkloadSource::Preset {
            name: "default".into(),
        },
        profile: ProfileSource::Preset {
            name: "gavel-types".into(),
        },
        policies: vec!["max_min_fairness".into(), "max_min_fairness_perf".into()],
        seed: 0,
        round_s: 360.0,
        gavel_compat: false,
        restart_cost_s: 0.0,
        restart_by_type: Default::default(),
        slowdown: Default::default(),
        trace_filter: None,
        window: None,
        load_factor: 1.0,
        fairness: true,
        inference: None,
        preemption: None,
        ps: None,
        network: None,
        dl2_compat: false,
        faults: None,
        until_s: None,
        spot: Default::default(),
        spot_warning_s: None,
    }
}

/// Gavel's continuous-arrival setting (its Figure 9 shape): 400 generated jobs, one in
/// five multi-GPU, arriving at 6 per hour on 36 GPUs of each of V100, P100 and K80, jobs
/// 100 to 300 measured (the cluster is loaded by then); LAS (`max_min_fairness`) against
/// its heterogeneity-aware form.
pub fn gavel_paper_experiment() -> Experiment {
    Experiment {
        cluster: "v100:36,p100:36,k80:36".into(),
        workload: WorkloadSource::Generated(crate::workload::GeneratorConfig {
            num_jobs: 400,
            jobs_per_hour: 6.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 1,
            dl2: None,
        }),
        policies: ["max_min_fairness", "max_min_fairness_perf"]
            .map(String::from)
            .to_vec(),
        window: Some((100, 300)),
        ..default_experiment()
    }
}

/// Gavel's figure against the load: the gavel-paper workload at 8 jobs per hour, the top
/// of the rates its sweep runs.
pub fn gavel_load_experiment() -> Experiment {
    let mut e = gavel_paper_experiment();
    if let WorkloadSource::Generated(g) = &mut e.workload {
        g.jobs_per_hour = 8.0;
    }
    e
}

/// Pollux's setting: 160 elastic jobs arriving over 8 hours on 16 servers of 4 GPUs,
/// Pollux against the two baselines of its evaluation.
pub fn pollux_experiment() -> Experiment {
    Experiment {
        cluster: "gpu:64/4".into(),
        workload: WorkloadSource::Generated(crate::workload::GeneratorConfig {
            num_jobs: 160,
            jobs_per_hour: 20.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 1,
            dl2: None,
        }),
        profile: ProfileSource::Preset {
            name: "pollux-apps".into(),
        },
        policies: vec!["pollux".into(), "tiresias".into(), "optimus".into()],
        round_s: 60.0,
        restart_cost_s: 30.0,
        fairness: true,
        ..default_experiment()
    }
}

/// Sia's setting with the bundled applications: 160 elastic jobs over 8 hours on three GPU
/// types in servers of their own sizes (24 T4s in servers of 4, 16 A100s and 24 V100s in
/// servers of 8, as Sia's 64-GPU cluster of T4, A100 and RTX servers), Sia against Pollux
/// in both forms, Sia's Gavel baseline and Tiresias.
pub fn sia_experiment() -> Experiment {
    Experiment {
        cluster: "t4:24/4,a100:16/8,v100:24/8".into(),
        policies: [
            "sia",
            "pollux",
            "pollux[per_type=true]",
            "max_sum_throughput_perf[round_s=360]",
            "tiresias",
        ]
        .map(String::from)
        .to_vec(),
        ..pollux_experiment()
    }
}

/// Aryl's setting: a training pool and an inference pool of 8-GPU servers, the inference
/// load following a day-shaped curve; Aryl against itself without loaning, without
/// elasticity and without either.
pub fn aryl_experiment() -> Experiment {
    Experiment {
        cluster: "v100:128/8,inference:128/8".into(),
        workload: WorkloadSource::Generated(crate::workload::GeneratorConfig {
            num_jobs: 400,
            jobs_per_hour: 16.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.5,
            duration_scale: 1.0,
            seed: 1,
            dl2: None,
        }),
        policies: [
            "aryl",
            "aryl[loaning=false]",
            "aryl[elastic=false]",
            "aryl[elastic=false,loaning=false]",
        ]
        .map(String::from)
        .to_vec(),
        round_s: 60.0,
        restart_cost_s: 30.0,
        fairness: true,
        inference: Some(crate::experiment::InferenceSource::Diurnal(
            crate::workload::inference::DiurnalConfig {
                seed: 1,
                ..Default::default()
            },
        )),
        ..default_experiment()
    }
}

/// PickyMan's setting: a busy cluster of one GPU type where waiting jobs preempt running
/// ones, and preempting costs the rest of an epoch, a checkpoint and a reload; PickyMan
/// against itself blind to that cost, and the overhead-blind SRTF and LAS and
/// non-preemptive FIFO.
pub fn pickyman_experiment() -> Experiment {
    Experiment {
        cluster: "v100:32".into(),
        workload: WorkloadSource::Generated(crate::workload::GeneratorConfig {
            num_jobs: 400,
            jobs_per_hour: 20.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 0.1,
            seed: 1,
            dl2: None,
        }),
        policies: [
            "pickyman",
            "pickyman[overhead_aware=false]",
            "srtf",
            "las",
            "fifo",
        ]
        .map(String::from)
        .to_vec(),
        fairness: true,
        preemption: Some(crate::model::restart::PreemptionConfig::default()),
        ..default_experiment()
    }
}

/// DL2's setting: 320 parameter-server jobs of eight model types arriving over 20 hours on
/// eight servers of 8 GPUs and 48 CPUs, scheduled in DL2's 20-minute slots by the
/// heuristics DL2 is compared with.
pub fn dl2_experiment() -> Experiment {
    Experiment {
        cluster: "gpu:64/8".into(),
        workload: WorkloadSource::Generated(crate::workload::GeneratorConfig {
            num_jobs: 320,
            jobs_per_hour: 16.0,
            multi_gpu: false,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 1,
            dl2: None,
        }),
        profile: ProfileSource::Preset {
            name: "dl2-models".into(),
        },
        policies: ["dl2", "drf", "fifo", "srtf", "optimus"]
            .map(String::from)
            .to_vec(),
        round_s: 1200.0,
        restart_cost_s: 10.0,
        fairness: true,
        ps: Some(crate::workload::PsConfig {
            cpus_per_server: 48,
            // The other families run each job with 2 workers and 2 parameter servers.
            rigid_workers: 2,
            ..crate::workload::PsConfig::default()
        }),
        ..default_experiment()
    }
}

/// Bundled scenarios.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "default",
        description: "The default scenario: 120 jobs on 12 V100 + 12 P100 + 12 K80, max-min fairness plain vs heterogeneity-aware",
        claim: None,
        load: None,
        build: default_experiment,
    },
    Scenario {
        name: "gavel",
        description: "Gavel's policies on the default trace: isolated, FIFO, max-min fairness, finish-time fairness, makespan and throughput",
        claim: None,
        load: None,
        build: || Experiment {
            policies: ["fifo_perf", "max_min_fairness", "max_min_fairness_perf", "finish_time_fairness_perf", "min_total_duration_perf", "max_sum_throughput_perf", "isolated"]
                .map(String::from)
                .to_vec(),
            ..default_experiment()
        },
    },
    Scenario {
        name: "gavel-paper",
        description: "Gavel's LAS figure: 400 jobs (one in five multi-GPU) arriving at 6 per hour on 36 V100 + 36 P100 + 36 K80, jobs 100-300 measured; LAS against heterogeneity-aware LAS",
        claim: Some(&claims::GAVEL),
        load: None,
        build: gavel_paper_experiment,
    },
    Scenario {
        name: "gavel-load",
        description: "Gavel's JCT-against-load figure: the gavel-paper workload (400 jobs on 36 V100 + 36 P100 + 36 K80, jobs 100-300 measured) at 8 jobs per hour, and swept at 2, 4, 6 and 8; LAS against heterogeneity-aware LAS",
        claim: None,
        load: Some(&claims::GAVEL_LOAD),
        build: gavel_load_experiment,
    },
    Scenario {
        name: "classic",
        description: "Classic baselines (FIFO, SJF, SRTF, LAS, Tiresias) on the default trace",
        claim: None,
        load: None,
        build: || Experiment { policies: ["fifo", "sjf", "srtf", "las", "tiresias"].map(String::from).to_vec(), ..default_experiment() },
    },
    Scenario {
        name: "pollux",
        description: "Pollux vs Tiresias vs Optimus: 160 elastic jobs over 8 hours on 16 servers x 4 GPUs (Pollux's setting), six applications of the bundled pollux-apps profile",
        claim: Some(&claims::POLLUX),
        load: None,
        build: pollux_experiment,
    },
    Scenario {
        name: "sia",
        description: "Sia vs Pollux (as published and per GPU type), Sia's Gavel baseline and Tiresias: 160 elastic jobs over 8 hours on 24 T4s in servers of 4, 16 A100s and 24 V100s in servers of 8",
        claim: None,
        load: None,
        build: sia_experiment,
    },
    Scenario {
        name: "aryl",
        description: "Aryl: 400 jobs (half elastic) on 128 training GPUs with 128 inference GPUs following a daily load; loaning and elastic scaling against their ablations",
        claim: Some(&claims::ARYL),
        load: None,
        build: aryl_experiment,
    },
    Scenario {
        name: "pickyman",
        description: "PickyMan: 400 short jobs (Gavel's durations / 10) at 20 per hour on 32 V100s, preemption costing the rest of an epoch, a checkpoint and a reload; PickyMan against itself blind to the cost, preemptive SRTF and LAS, and FIFO",
        claim: Some(&claims::PICKYMAN),
        load: None,
        build: pickyman_experiment,
    },
    Scenario {
        name: "dl2",
        description: "DL2's world: 320 parameter-server jobs of eight model types at 16 per hour on 8 servers of 8 GPUs and 48 CPUs, 20-minute slots; DRF, FIFO, SRTF and Optimus",
        claim: Some(&claims::DL2),
        load: None,
        build: dl2_experiment,
    },
    Scenario {
        name: "llama3",
        description: "Llama 3's 54 days: one 16,384-GPU job on 2,048 H100 servers failing at Llama 3's rate (3.789 per 1,000 server-days, its Table 5 causes), 5-minute restarts, checkpoints every 10 minutes with 10-second writes; interruptions and ETTR against the paper's 419 and over 90%",
        claim: None,
        load: None,
        build: llama3_experiment,
    },
    Scenario {
        name: "failures",
        description: "Failures in a mixed cluster: Sia's 160 elastic jobs on 24 T4s, 16 A100s and 24 V100s whose servers fail about every 6 hours (a spare at once), checkpoints at Daly's interval with 30-second writes; Sia, Pollux, two of Gavel's LPs and Tiresias",
        claim: None,
        load: None,
        build: failures_experiment,
    },
    Scenario {
        name: "spot",
        description: "On-demand and spot GPUs: the default trace on 16 on-demand V100s ($3.06/GPU-h) and 32 spot ones ($0.918) whose 8 instances come and go (held 6 h, away 2 h on average), checkpoints every 30 minutes, a two-minute warning; cost on-demand and spot",
        claim: None,
        load: None,
        build: spot_experiment,
    },
];

/// Sia's setting on an unreliable cluster: every server fails about once every 6 hours (4
/// failures per server-day, a spare at once), jobs checkpoint at Daly's interval for their
/// own servers with 30-second writes; Sia, Pollux, two of Gavel's LPs and Tiresias, whose
/// jobs meet the same failures and lose different work to them.
pub fn failures_experiment() -> Experiment {
    use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
    use crate::model::failure::{FailureModel, Faults};
    Experiment {
        policies: [
            "sia",
            "pollux",
            "max_sum_throughput_perf[round_s=360]",
            "max_min_fairness_perf[round_s=360]",
            "tiresias",
        ]
        .map(String::from)
        .to_vec(),
        faults: Some(Faults {
            failures: FailureModel::with_rate(4.0),
            checkpoint: CheckpointPlan {
                interval: Interval::Auto,
                write_s: 30.0,
            },
        }),
        ..sia_experiment()
    }
}

/// The spot capacity of the `spot` scenario: 8 instances of 4 V100s, each held 6 hours
/// on average and away 2 hours, over 30 days (seed 1).
pub const SPOT_PROCESS: crate::model::spot_process::SpotProcess =
    crate::model::spot_process::SpotProcess {
        instances: 8,
        mean_held_s: 6.0 * 3600.0,
        mean_away_s: 2.0 * 3600.0,
        length_s: 30.0 * 86_400.0,
    };

/// On-demand and spot V100s: 16 on-demand V100s at AWS's $3.06 per GPU-hour and 32 spot
/// ones (8 instances of 4) at SkyPilot's traced $0.918 whose instances come and go as
/// [`SPOT_PROCESS`] draws them; the default trace's jobs checkpoint every 30 minutes with
/// 30-second writes and get AWS's two-minute warning.
pub fn spot_experiment() -> Experiment {
    use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
    use crate::model::failure::{FailureModel, Faults};
    Experiment {
        cluster: "v100:16/4@3.06,v100-spot:32/4@0.918".into(),
        policies: [
            "fifo",
            "las",
            "tiresias",
            "max_min_fairness_perf",
            "finish_time_fairness_perf",
        ]
        .map(String::from)
        .to_vec(),
        faults: Some(Faults {
            failures: FailureModel::with_rate(0.0),
            checkpoint: CheckpointPlan {
                interval: Interval::Every(1800.0),
                write_s: 30.0,
            },
        }),
        spot: [(
            "v100-spot".to_string(),
            super::SpotSource {
                name: "spot-v100-8x4.csv".into(),
                text: SPOT_PROCESS.csv(1),
            },
        )]
        .into(),
        ..default_experiment()
    }
}

/// Llama 3's 54-day pre-training snapshot (Grattafiori et al., arXiv 2407.21783, section
/// 3.3.4): one job on 16,384 H100s in servers of 8, longer than the window, through 54 days
/// of failures at Llama 3's rate (419 over 2,048 servers and 54 days) with its causes; a
/// spare replaces a failed server at once, a restart costs 5 minutes (Meta's u0), and the
/// job checkpoints every 10 minutes with 10-second blocking writes, which keeps its ETTR
/// above Llama 3's 90%.
pub fn llama3_experiment() -> Experiment {
    use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
    use crate::model::failure::{FailureModel, Faults, DAY_S, LLAMA3_RATE};
    Experiment {
        cluster: "h100:16384/8".into(),
        workload: WorkloadSource::Inline {
            name: "llama3.csv".into(),
            text: "timestamp,duration,num_gpus\n0,5184000,16384\n".into(),
        },
        profile: ProfileSource::ProfileFree,
        policies: vec!["fifo".into()],
        restart_cost_s: 300.0,
        fairness: false,
        faults: Some(Faults {
            failures: FailureModel::with_rate(LLAMA3_RATE),
            checkpoint: CheckpointPlan {
                interval: Interval::Every(600.0),
                write_s: 10.0,
            },
        }),
        until_s: Some(54.0 * DAY_S),
        ..default_experiment()
    }
}

/// A scenario by name.
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}
