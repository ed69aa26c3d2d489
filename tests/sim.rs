//! Simulator behaviour: invariants on every policy, determinism, restart costs, windows.

use orrery::experiment::{self, Experiment, ProfileSource, WorkloadSource};
use orrery::metrics::Recorder;
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::model::restart::RestartModel;
use orrery::policy;
use orrery::sim::{SimConfig, SimEvent, Simulator};
use orrery::workload::{GeneratorConfig, Profile};

fn generated(num_jobs: usize, rate: f64, multi: bool, seed: u64) -> Experiment {
    Experiment {
        cluster: "v100:4,p100:4,k80:4".into(),
        workload: WorkloadSource::Generated(GeneratorConfig {
            num_jobs,
            jobs_per_hour: rate,
            multi_gpu: multi,
            priority_weights: true,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed,
            dl2: None,
        }),
        profile: ProfileSource::Preset {
            name: "gavel-types".into(),
        },
        seed,
        ..Experiment::default()
    }
}

#[test]
fn every_policy_finishes_every_job_within_capacity() {
    for compat in [false, true] {
        let exp = Experiment {
            gavel_compat: compat,
            restart_cost_s: if compat { 0.0 } else { 20.0 },
            ..generated(30, 4.0, true, 3)
        };
        let r = exp.resolve().unwrap();
        let counts = r.cluster.counts();
        for info in policy::policies() {
            let mut sim = r.simulator(info.name).unwrap();
            let mut rec = Recorder::new(&r.trace.jobs, counts.len());
            let mut last_end = 0.0;
            while let Some(rep) = sim.step_round() {
                assert!(
                    rep.end >= rep.start && rep.start >= last_end - 1e-9,
                    "{}: time went backwards",
                    info.name
                );
                last_end = rep.end;
                for e in &rep.events {
                    rec.observe(e);
                    if let SimEvent::RoundEnded { busy_gpus, .. } = e {
                        for (b, c) in busy_gpus.iter().zip(&counts) {
                            assert!(b <= c, "{}: {b} busy GPUs of {c}", info.name);
                        }
                    }
                }
                // No GPU is held by two jobs, and a job holds GPUs of one type only.
                let mut seen = std::collections::BTreeMap::new();
                for (t, owners) in sim.gpu_owners().iter().enumerate() {
                    for j in owners.iter().flatten() {
                        let prev = seen.insert(*j, t);
                        assert!(
                            prev.is_none_or(|p| p == t),
                            "{}: job {j} on two types",
                            info.name
                        );
                    }
                }
            }
            let s = rec.summary(info.name, &r.cluster, None, None);
            assert_eq!(
                s.num_jobs, 30,
                "{} (compat {compat}): {} unfinished",
                info.name, s.unfinished
            );
            for (job, st) in r.trace.jobs.iter().zip(sim.states()) {
                let fastest = r
                    .cluster
                    .types
                    .iter()
                    .filter_map(|t| {
                        r.profile
                            .throughput(&job.job_type, job.scale_factor, &t.name)
                    })
                    .fold(0.0, f64::max);
                let jct = st.finish_time.unwrap() - job.arrival;
                assert!(
                    jct >= job.total_steps / fastest * (1.0 - 1e-9),
                    "{}: job faster than its fastest GPU",
                    info.name
                );
            }
        }
    }
}

/// The summaries of every policy of `exp`, as JSON.
fn summaries_json(exp: &Experiment) -> String {
    let results = experiment::run(exp).unwrap();
    serde_json::to_string(&results.iter().map(|r| &r.summary).collect::<Vec<_>>()).unwrap()
}

#[test]
fn same_experiment_gives_identical_json() {
    let exp = Experiment {
        policies: vec!["max_min_fairness_perf".into(), "las".into(), "fifo".into()],
        ..generated(40, 3.0, true, 11)
    };
    let a = summaries_json(&exp);
    let b = summaries_json(&exp);
    assert_eq!(a, b);
    let other = Experiment {
        seed: 12,
        workload: WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 40,
            jobs_per_hour: 3.0,
            multi_gpu: true,
            priority_weights: true,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 12,
            dl2: None,
        }),
        ..exp
    };
    let c = summaries_json(&other);
    assert_ne!(a, c);
}

#[test]
fn restart_cost_is_paid_when_a_job_moves() {
    // Two single-GPU jobs, one GPU, LAS: they alternate every round, so each resumption
    // after the first start is a placement change... on the same GPU id, which is not a
    // move. With two GPU types the LAS mechanism moves them; count restarts and lost time.
    let mut profile = Profile::default();
    profile.set("a", 1, "x", 1.0);
    profile.set("a", 1, "y", 1.0);
    let cluster = ClusterSpec::parse("x:1,y:1").unwrap();
    let jobs = vec![
        JobSpec::new("a", 0.0, 3600.0),
        JobSpec::new("a", 0.0, 3600.0),
        JobSpec::new("a", 0.0, 3600.0),
    ];
    let run = |cost: f64| {
        let cfg = SimConfig {
            round_len: 360.0,
            restart: RestartModel::delay(cost),
            ..SimConfig::default()
        };
        let mut sim = Simulator::new(
            cfg,
            cluster.clone(),
            jobs.clone(),
            profile.clone(),
            policy::build("las").unwrap(),
        )
        .unwrap();
        let mut rec = Recorder::new(&jobs, 2);
        let mut overhead = 0.0;
        while let Some(r) = sim.step_round() {
            for e in &r.events {
                rec.observe(e);
                if let SimEvent::Ran { overhead_s, .. } = e {
                    overhead += overhead_s;
                }
            }
        }
        (rec.summary("las", &cluster, None, None), overhead)
    };
    let (free, o0) = run(0.0);
    let (costly, o1) = run(30.0);
    assert_eq!(o0, 0.0);
    assert!(costly.restarts > 0);
    // Every start costs the delay too: three first starts plus the restarts.
    assert!((o1 - 30.0 * (costly.restarts as f64 + 3.0)).abs() < 1e-9);
    assert!(costly.makespan_s > free.makespan_s);
    // 3 jobs x 3600 s of work on 2 GPUs: the makespan is at least 5400 s plus overheads.
    assert!(free.makespan_s >= 5400.0 - 1e-6);
}

/// Hand-solved: one job of 3,600 steps at 1 step/s alone on one GPU, 360 s rounds, a 500 s
/// restart delay: its first round is all delay, the second starts with the 140 s left, and
/// it ends at 500 + 3,600 = 4,100 s. A job type's own delay replaces the experiment's.
#[test]
fn a_restart_delay_longer_than_a_round_carries_on() {
    let mut profile = Profile::default();
    profile.set("a", 1, "x", 1.0);
    profile.set("b", 1, "x", 1.0);
    let cluster = ClusterSpec::parse("x:1").unwrap();
    let run = |job: JobSpec| {
        let cfg = SimConfig {
            round_len: 360.0,
            restart: RestartModel::delay(500.0),
            ..SimConfig::default()
        };
        let jobs = vec![job];
        let mut sim = Simulator::new(
            cfg,
            cluster.clone(),
            jobs.clone(),
            profile.clone(),
            policy::build("fifo").unwrap(),
        )
        .unwrap();
        let mut overheads = Vec::new();
        while let Some(r) = sim.step_round() {
            for e in &r.events {
                if let SimEvent::Ran { overhead_s, .. } = e {
                    overheads.push(*overhead_s);
                }
            }
        }
        (sim.states()[0].finish_time, overheads)
    };
    let (fin, overheads) = run(JobSpec::new("a", 0.0, 3600.0));
    assert_eq!(fin, Some(4100.0));
    assert_eq!(overheads[..3], [360.0, 140.0, 0.0]);
    let mut own = JobSpec::new("b", 0.0, 3600.0);
    own.restart_s = Some(60.0);
    assert_eq!(run(own).0, Some(3660.0));
}

#[test]
fn window_measures_only_its_jobs_and_stops_when_they_are_done() {
    let exp = Experiment {
        policies: vec!["max_min_fairness_perf".into()],
        fairness: false,
        ..generated(60, 6.0, false, 5)
    };
    let r = exp.resolve().unwrap();
    let full = r
        .run_policy("max_min_fairness_perf", None, None, |_| {})
        .unwrap();
    let win = r
        .run_policy("max_min_fairness_perf", Some((10, 20)), None, |_| {})
        .unwrap();
    assert_eq!(win.summary.num_jobs, 10);
    let jcts = full.recorder.jcts();
    let want: f64 = jcts[10..20].iter().map(|j| j.unwrap()).sum::<f64>() / 10.0;
    assert!(
        (win.summary.avg_jct_s - want).abs() < 1e-6,
        "{} vs {want}",
        win.summary.avg_jct_s
    );
    assert!(win.summary.rounds <= full.summary.rounds);
}

#[test]
fn fairness_uses_the_isolated_baseline() {
    let exp = Experiment {
        policies: vec!["isolated".into(), "max_min_fairness_perf".into()],
        ..generated(25, 0.0, false, 2)
    };
    let res = experiment::run(&exp).unwrap();
    let iso = &res[0].summary;
    assert!(
        (iso.max_rho.unwrap() - 1.0).abs() < 1e-12 && (iso.jain_index.unwrap() - 1.0).abs() < 1e-12
    );
    assert!(res[1].summary.mean_rho.unwrap() > 0.0);
}

#[test]
fn jobs_that_cannot_run_are_refused_up_front() {
    let mut profile = Profile::default();
    profile.set("a", 4, "x", 1.0);
    let cluster = ClusterSpec::parse("x:2").unwrap();
    let err = Simulator::new(
        SimConfig::default(),
        cluster,
        vec![JobSpec::new("a", 0.0, 10.0).with_scale(4)],
        profile,
        policy::build("las").unwrap(),
    )
    .err()
    .unwrap();
    assert!(
        err.to_string().contains("no throughput at scale factor 4"),
        "{err}"
    );
}
