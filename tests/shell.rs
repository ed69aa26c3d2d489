//! The one shell over the mechanisms: a policy's own scheduling interval (`round_s` in its
//! spec) gives exactly the run of an experiment with that interval, alone or beside other
//! policies; the plan runs every policy and then the isolated baseline, and joins them into
//! the numbers of each policy's run alone with rho; every mechanism steps behind one
//! interface.

use orrery::experiment::scenarios;
use orrery::experiment::{self, Experiment};
use orrery::sim::Mechanism;

fn summaries_json(exp: &Experiment) -> Vec<String> {
    experiment::run(exp)
        .unwrap()
        .iter()
        .map(|r| serde_json::to_string(&r.summary).unwrap())
        .collect()
}

/// `a`'s JSON with its policy name replaced by `name`.
fn renamed(a: &str, from: &str, to: &str) -> String {
    a.replacen(
        &format!("\"policy\":\"{from}\""),
        &format!("\"policy\":\"{to}\""),
        1,
    )
}

#[test]
fn a_policy_interval_equals_the_experiment_interval() {
    let base = Experiment {
        fairness: false,
        ..Experiment::default()
    };
    // Rounds: max_min_fairness_perf every 120 s beside las at the experiment's 360 s.
    let mixed = summaries_json(&Experiment {
        policies: vec!["max_min_fairness_perf[round_s=120]".into(), "las".into()],
        ..base.clone()
    });
    let at_120 = summaries_json(&Experiment {
        policies: vec!["max_min_fairness_perf".into()],
        round_s: 120.0,
        ..base.clone()
    });
    let las = summaries_json(&Experiment {
        policies: vec!["las".into()],
        ..base.clone()
    });
    assert_eq!(
        mixed[0],
        renamed(
            &at_120[0],
            "max_min_fairness_perf",
            "max_min_fairness_perf[round_s=120]"
        )
    );
    assert_eq!(mixed[1], las[0]);
    assert_ne!(
        mixed[0],
        renamed(&las[0], "las", "max_min_fairness_perf[round_s=120]")
    );

    // Elastic: Pollux's Tiresias every 300 s against the experiment at 300 s.
    let pollux = scenarios::scenario("pollux").unwrap().experiment();
    // (Without rho: the isolated baseline runs at the experiment's round length.)
    let own = summaries_json(&Experiment {
        policies: vec!["tiresias[round_s=300]".into()],
        fairness: false,
        ..pollux.clone()
    });
    let whole = summaries_json(&Experiment {
        policies: vec!["tiresias".into()],
        round_s: 300.0,
        fairness: false,
        ..pollux
    });
    assert_eq!(
        own[0],
        renamed(&whole[0], "tiresias", "tiresias[round_s=300]")
    );
}

#[test]
fn bad_intervals_are_refused_naming_the_parameter() {
    for (spec, preset) in [
        ("las[round_s=0]", "default"),
        ("las[round_s=soon]", "default"),
        ("pickyman[round_s=60]", "pickyman"),
    ] {
        let exp = Experiment {
            policies: vec![spec.into()],
            ..scenarios::scenario(preset).unwrap().experiment()
        };
        let err = exp.resolve().unwrap_err().to_string();
        assert!(err.contains("round_s"), "{spec}: {err}");
    }
}

#[test]
fn the_plan_runs_policies_then_the_baseline_and_gives_rho() {
    let exp = Experiment {
        policies: vec!["las".into(), "max_min_fairness_perf".into()],
        ..Experiment::default()
    };
    let r = exp.resolve().unwrap();
    let plan = r.plan(&exp);
    let names: Vec<(&str, bool)> = plan
        .tasks
        .iter()
        .map(|t| (t.policy.as_str(), t.baseline))
        .collect();
    assert_eq!(
        names,
        [
            ("las", false),
            ("max_min_fairness_perf", false),
            (orrery::policy::BASELINE, true)
        ]
    );
    // Tasks run in any order join into the same outcome.
    let mut runs: Vec<_> = plan
        .tasks
        .iter()
        .rev()
        .map(|t| r.run_task(&plan, t, |_| {}).unwrap())
        .collect();
    runs.reverse();
    let out = r.finish(&plan, runs);
    assert_eq!(out.results.len(), 2);
    assert!(out.isolated_jct.is_some());
    assert_eq!(out.results, experiment::run(&exp).unwrap());
    assert!(out.results.iter().all(|r| r.summary.max_rho.is_some()));
    // Every other mechanism plans the baseline too (in rounds, on the jobs as rigid ones),
    // unless its jobs cannot run there.
    for preset in ["pollux", "pickyman", "dl2", "aryl"] {
        let e = scenarios::scenario(preset).unwrap().experiment();
        let r = e.resolve().unwrap();
        assert_ne!(r.mechanism(), Mechanism::Rounds, "{preset}");
        assert_eq!(r.fairness_unavailable(), None, "{preset}");
        let plan = r.plan(&e);
        assert!(plan.has_baseline(), "{preset}");
        assert_eq!(plan.tasks.len(), e.policies.len() + 1, "{preset}");
    }
}

#[test]
fn every_mechanism_steps_behind_one_interface() {
    for (preset, mechanism) in [
        ("default", Mechanism::Rounds),
        ("pollux", Mechanism::Elastic),
        ("aryl", Mechanism::Pooled),
        ("pickyman", Mechanism::Preemptive),
        ("dl2", Mechanism::Slots),
    ] {
        let e = scenarios::scenario(preset).unwrap().experiment();
        let r = e.resolve().unwrap();
        assert_eq!(r.mechanism(), mechanism, "{preset}");
        let mut sim = r.stepper(&e.policies[0]).unwrap();
        assert_eq!(sim.mechanism(), mechanism);
        assert_eq!(sim.policy_name(), e.policies[0]);
        let mut last = sim.now();
        for _ in 0..5 {
            let Some(rep) = sim.step() else { break };
            assert!(rep.end >= rep.start && sim.now() >= last, "{preset}");
            last = sim.now();
        }
        assert!(!sim.is_done(), "{preset}: done after 5 steps");
    }
}

/// The pollux scenario with `policies`.
fn pollux_with(policies: &[&str]) -> Experiment {
    Experiment {
        policies: policies.iter().map(|p| p.to_string()).collect(),
        ..scenarios::scenario("pollux").unwrap().experiment()
    }
}

#[test]
fn policies_of_several_families_compare_on_one_elastic_workload() {
    let specs = [
        "pollux[generations=20,population=30]",
        "tiresias",
        "optimus",
        "las",
        "max_min_fairness_perf[round_s=360]",
        "fifo",
    ];
    let together = experiment::run(&pollux_with(&specs)).unwrap();
    assert_eq!(together.len(), specs.len());
    for (res, spec) in together.iter().zip(specs) {
        assert_eq!(res.summary.num_jobs, 160, "{spec}");
        assert_eq!(res.summary.unfinished, 0, "{spec}");
        // Each policy's numbers equal its run alone.
        let alone = experiment::run(&pollux_with(&[spec])).unwrap();
        assert_eq!(res.summary, alone[0].summary, "{spec}");
    }
    // Tiresias runs as Pollux's evaluation ran it (elastic ticks), LAS as rigid jobs in
    // rounds: the experiment's mechanism decides, and the mechanisms differ.
    let r = pollux_with(&specs).resolve().unwrap();
    assert_eq!(
        r.stepper("tiresias").unwrap().mechanism(),
        Mechanism::Elastic
    );
    assert_eq!(r.stepper("las").unwrap().mechanism(), Mechanism::Rounds);
    // A policy no mechanism of the experiment runs is refused, naming it.
    let err = pollux_with(&["aryl"]).resolve().unwrap_err().to_string();
    assert!(err.contains("'aryl'") && err.contains("elastic"), "{err}");
}

#[test]
fn a_rigid_job_takes_as_long_alone_as_in_the_elastic_simulator() {
    // One job of each application at its user's size and batch, alone on the cluster, no
    // restart cost: Pollux's Tiresias (elastic ticks, fixed batch) and FIFO in rounds (the
    // rigid throughput) agree to within the first tick and whole-second rounding.
    let base = pollux_with(&["tiresias"]);
    let r = base.resolve().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for job in &r.trace.jobs {
        if !seen.insert(job.job_type.clone()) {
            continue;
        }
        let mut one = r.trace.clone();
        one.jobs = vec![orrery::model::job::JobSpec {
            arrival: 0.0,
            ..job.clone()
        }];
        one.lines = vec![0];
        let exp = Experiment {
            workload: orrery::experiment::WorkloadSource::Inline {
                name: "one.json".into(),
                text: one.to_json(),
            },
            policies: vec!["tiresias".into(), "fifo".into()],
            restart_cost_s: 0.0,
            ..base.clone()
        };
        let out = experiment::run(&exp).unwrap();
        let (elastic, rigid) = (out[0].summary.avg_jct_s, out[1].summary.avg_jct_s);
        println!("{}: elastic {elastic} s, rigid {rigid} s", job.job_type);
        // The elastic job first runs at the first tick after its arrival (60 s); epoch
        // ends round to whole seconds there.
        assert!(
            (elastic - (rigid + 60.0)).abs() <= 0.001 * elastic + 5.0,
            "{}: elastic {elastic} s, rigid {rigid} s",
            job.job_type
        );
    }
    assert!(seen.len() >= 4, "{seen:?}");
}

#[test]
fn pickyman_runs_a_rigid_workload_beside_round_based_policies() {
    // The default trace on one GPU type: LAS and Gavel's LP policy in rounds, PickyMan in
    // its own mechanism under the experiment's restart model.
    let base = Experiment {
        cluster: "v100:32".into(),
        fairness: false,
        ..Experiment::default()
    };
    let mixed = |preemption, restart_cost_s| {
        experiment::run(&Experiment {
            policies: vec![
                "las".into(),
                "max_min_fairness_perf".into(),
                "pickyman".into(),
            ],
            preemption,
            restart_cost_s,
            ..base.clone()
        })
        .unwrap()
    };
    // No restart cost: a suspension frees the GPUs at once and loses nothing.
    let free = mixed(None, 0.0);
    assert!(free.iter().all(|r| r.summary.unfinished == 0));
    assert_eq!(free[2].summary.time_lost_s, 0.0);
    // A fixed delay: every start and resumption costs it, in every mechanism.
    let fixed = mixed(None, 600.0);
    for (f, d) in free.iter().zip(&fixed) {
        assert!(
            d.summary.avg_jct_s > f.summary.avg_jct_s,
            "{}",
            f.summary.policy
        );
    }
    // PickyMan's checkpoint model: PickyMan drains, checkpoints and reloads; the
    // round-based policies pay a checkpoint write and reload at each start and change.
    let ckpt = mixed(
        Some(orrery::model::restart::PreemptionConfig::default()),
        0.0,
    );
    assert!(ckpt[2].summary.time_lost_s > 0.0);
    // (`las` is PickyMan's preemptive LAS there: the experiment's own mechanism has it.)
    for (f, c) in free.iter().zip(&ckpt).skip(1) {
        assert!(
            c.summary.avg_jct_s > f.summary.avg_jct_s,
            "{}",
            f.summary.policy
        );
    }
    let r = Experiment {
        policies: vec!["las".into(), "pickyman".into()],
        ..base.clone()
    }
    .resolve()
    .unwrap();
    assert_eq!(
        r.stepper("pickyman").unwrap().mechanism(),
        Mechanism::Preemptive
    );
    // PickyMan's mechanism takes the default experiment's three GPU types, a pool each.
    let r = Experiment {
        policies: vec!["pickyman".into()],
        ..Experiment::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(r.cluster.types.len(), 3);
    assert_eq!(
        r.stepper("pickyman").unwrap().mechanism(),
        Mechanism::Preemptive
    );
}

/// The named restart model: a fixed delay or per-type delays mean the same in every
/// mechanism (a job pays its delay at every start and change), so a larger delay for one
/// application slows every mechanism's runs of it, and the CLI and page name the model.
#[test]
fn per_type_restart_delays_apply_in_every_mechanism() {
    use orrery::experiment::RestartKind;
    let pollux = scenarios::scenario("pollux").unwrap().experiment();
    let with = |by_type: &[(&str, f64)], policies: &[&str]| {
        let exp = Experiment {
            restart_by_type: by_type.iter().map(|(t, s)| (t.to_string(), *s)).collect(),
            policies: policies.iter().map(|p| p.to_string()).collect(),
            fairness: false,
            ..pollux.clone()
        };
        (exp.restart_kind(), experiment::run(&exp).unwrap())
    };
    let (m0, base) = with(&[], &["tiresias", "las"]);
    assert_eq!(m0, RestartKind::Fixed { seconds: 30.0 });
    let (m1, slow) = with(&[("cifar10", 900.0)], &["tiresias", "las"]);
    assert_eq!(m1.name(), "per_type");
    // Elastic ticks (tiresias) and rounds (las, rigid): both pay cifar10's 900 s.
    for (b, s) in base.iter().zip(&slow) {
        assert!(
            s.summary.avg_jct_s > b.summary.avg_jct_s + 100.0,
            "{}: {} vs {}",
            b.summary.policy,
            s.summary.avg_jct_s,
            b.summary.avg_jct_s
        );
    }
    // Slots: a delay longer than DL2's 20-minute slot carries into the next slot.
    let dl2 = scenarios::dl2_experiment();
    let run = |s: f64| {
        experiment::run(&Experiment {
            restart_cost_s: s,
            policies: vec!["fifo".into()],
            ..dl2.clone()
        })
        .unwrap()[0]
            .summary
            .avg_jct_s
    };
    let (short, long) = (run(600.0), run(3000.0));
    assert!(long > short + 1200.0, "{long} vs {short}");
    // Bad delays are refused, naming the type.
    let err = Experiment {
        restart_by_type: [("cifar10".to_string(), -1.0)].into(),
        ..pollux
    }
    .resolve()
    .unwrap_err()
    .to_string();
    assert!(err.contains("cifar10"), "{err}");
}

/// A small round-based experiment: 40 jobs of the default generator (some multi-GPU) on
/// two GPU types.
fn small_rigid(policies: &[&str]) -> Experiment {
    let g = orrery::workload::GeneratorConfig {
        num_jobs: 40,
        jobs_per_hour: 4.0,
        multi_gpu: true,
        seed: 5,
        ..Default::default()
    };
    Experiment {
        cluster: "v100:8/4,k80:8/4".into(),
        workload: orrery::experiment::WorkloadSource::Generated(g),
        policies: policies.iter().map(|p| p.to_string()).collect(),
        fairness: false,
        ..Experiment::default()
    }
}

#[test]
fn rigid_jobs_run_under_every_family_that_takes_them() {
    let specs = [
        "las",
        "max_min_fairness_perf",
        "pollux[generations=20,population=30]",
        "pollux[generations=20,population=30,per_type=true]",
        "pickyman",
    ];
    let exp = small_rigid(&specs);
    let r = exp.resolve().unwrap();
    assert_eq!(r.mechanism(), Mechanism::Rounds);
    assert_eq!(r.stepper(specs[2]).unwrap().mechanism(), Mechanism::Elastic);
    let together = experiment::run(&exp).unwrap();
    for (res, spec) in together.iter().zip(specs) {
        assert_eq!(res.summary.num_jobs, 40, "{spec}");
        assert_eq!(res.summary.unfinished, 0, "{spec}");
        let alone = experiment::run(&small_rigid(&[spec])).unwrap();
        assert_eq!(res.summary, alone[0].summary, "{spec}");
    }
    // Under Pollux a rigid job holds its own GPU count or nothing, and runs on one type.
    let mut sim = r.stepper(specs[2]).unwrap();
    let mut ran = 0;
    while let Some(rep) = sim.step() {
        for e in &rep.events {
            match e {
                orrery::sim::SimEvent::Resized { job, gpus, .. } => {
                    let want = r.trace.jobs[*job].scale_factor;
                    assert!(*gpus == 0 || *gpus == want, "job {job}: {gpus} of {want}");
                }
                orrery::sim::SimEvent::Ran { job, gpus, .. } => {
                    assert_eq!(*gpus, r.trace.jobs[*job].scale_factor);
                    ran += 1;
                }
                _ => {}
            }
        }
    }
    assert!(ran > 0);
}

#[test]
fn round_based_policies_run_preemptive_and_pooled_experiments() {
    // PickyMan's scenario (checkpoint model): Gavel's LP policy and Tiresias in rounds
    // beside PickyMan and its preemptive LAS; each equals its run alone.
    let pm = scenarios::scenario("pickyman").unwrap().experiment();
    let specs = ["pickyman", "las", "max_min_fairness_perf", "tiresias"];
    let with = |e: &Experiment, specs: &[&str]| Experiment {
        policies: specs.iter().map(|p| p.to_string()).collect(),
        ..e.clone()
    };
    let together = experiment::run(&with(&pm, &specs)).unwrap();
    for (res, spec) in together.iter().zip(specs) {
        assert_eq!(res.summary.unfinished, 0, "{spec}");
        let alone = experiment::run(&with(&pm, &[spec])).unwrap();
        assert_eq!(res.summary, alone[0].summary, "{spec}");
    }
    let r = with(&pm, &specs).resolve().unwrap();
    assert_eq!(r.stepper("las").unwrap().mechanism(), Mechanism::Preemptive);
    assert_eq!(
        r.stepper("max_min_fairness_perf").unwrap().mechanism(),
        Mechanism::Rounds
    );
    // In rounds the checkpoint model costs a job its checkpoint write and reload at each
    // start and change: slower than the same jobs with no restart cost.
    let free = experiment::run(&Experiment {
        preemption: None,
        ..with(&pm, &["max_min_fairness_perf"])
    })
    .unwrap();
    assert!(
        together[2].summary.avg_jct_s > free[0].summary.avg_jct_s,
        "{} vs {}",
        together[2].summary.avg_jct_s,
        free[0].summary.avg_jct_s
    );

    // Aryl's scenario: LAS runs the training pool only (the inference servers serve
    // inference): its jobs finish exactly as on the training pool alone.
    let aryl = scenarios::scenario("aryl").unwrap().experiment();
    let mixed = experiment::run(&with(&aryl, &["aryl", "las", "pickyman"])).unwrap();
    let training = aryl
        .cluster
        .split(',')
        .filter(|t| !t.starts_with("inference"))
        .collect::<Vec<_>>()
        .join(",");
    let plain = experiment::run(&Experiment {
        cluster: training,
        inference: None,
        ..with(&aryl, &["las", "pickyman"])
    })
    .unwrap();
    for (m, p) in mixed[1..].iter().zip(&plain) {
        assert_eq!(m.summary.unfinished, 0);
        assert_eq!(
            m.summary.avg_jct_s, p.summary.avg_jct_s,
            "{}",
            p.summary.policy
        );
        assert_eq!(m.summary.makespan_s, p.summary.makespan_s);
        assert_eq!(m.recorder.jcts(), p.recorder.jcts());
    }
    // What no mechanism of the experiment runs is refused, naming the policy.
    let err = with(&aryl, &["dl2"]).resolve().unwrap_err().to_string();
    assert!(
        err.contains("'dl2'") && err.contains("parameter-server"),
        "{err}"
    );
}

#[test]
fn finish_time_fairness_is_computed_in_every_mechanism() {
    // Every bundled scenario (one per mechanism and more) on a sample of its jobs: every
    // policy's jobs have rho against the isolated baseline, which runs in rounds on the
    // experiment's jobs as rigid ones.
    let mut seen = std::collections::BTreeSet::new();
    for sc in orrery::experiment::scenarios::SCENARIOS {
        let mut exp = sc.experiment();
        if exp.until_s.is_some() {
            // Stopped before its jobs end (llama3's 54 days): no JCT, no rho.
            assert!(!exp.fairness, "{}", sc.name);
            continue;
        }
        assert!(exp.fairness, "{}: the scenario computes rho", sc.name);
        exp.window = None;
        exp.trace_filter = Some(orrery::workload::TraceFilter {
            max_jobs: Some(16),
            ..Default::default()
        });
        let r = exp.resolve().unwrap();
        seen.insert(format!("{:?}", r.mechanism()));
        for res in experiment::run(&exp).unwrap() {
            let s = &res.summary;
            let (max, mean, jain) = (
                s.max_rho.unwrap(),
                s.mean_rho.unwrap(),
                s.jain_index.unwrap(),
            );
            assert!(
                mean > 0.0 && mean <= max && jain > 0.0 && jain <= 1.0 + 1e-12,
                "{} {}: max {max} mean {mean} jain {jain}",
                sc.name,
                s.policy
            );
        }
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn rho_is_left_out_with_its_reason_when_rounds_cannot_run_the_jobs() {
    // Job types only an inference pool's mechanism knows (Alibaba PAI's, at one step per
    // second): the isolated baseline cannot run them in rounds.
    let e = Experiment {
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "pai-sample.csv".into(),
            text: "job_type,arrival_s,total_steps,scale_factor\nworker,0,590,2\ntensorflow,100,4750,4\n"
                .into(),
        },
        policies: vec!["aryl".into()],
        ..scenarios::scenario("aryl").unwrap().experiment()
    };
    let r = e.resolve().unwrap();
    let why = r.fairness_unavailable().expect("no baseline");
    assert!(why.contains("'worker' is not in the profile"), "{why}");
    assert!(!r.plan(&e).has_baseline());
    let out = experiment::run(&e).unwrap();
    assert!(out[0].summary.max_rho.is_none() && out[0].summary.num_jobs == 2);
}

#[test]
fn pollux_on_rigid_jobs_runs_more_jobs_before_a_large_one() {
    // Two single-GPU servers; a 2-GPU job and two 1-GPU jobs of an hour arrive together
    // (the large one first in the trace). Running the two small jobs leaves one job
    // waiting, running the large one two: Pollux's search over which jobs run starts the
    // small ones, and the large one only once both have finished.
    let exp = Experiment {
        cluster: "gpu:2".into(),
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "three.csv".into(),
            text: "timestamp,duration,num_gpus\n0,3600,2\n0,3600,1\n0,3600,1\n".into(),
        },
        profile: orrery::experiment::ProfileSource::ProfileFree,
        policies: vec!["pollux".into()],
        fairness: false,
        round_s: 60.0,
        ..scenarios::default_experiment()
    };
    let out = experiment::run(&exp).unwrap();
    let jobs = &out[0].recorder.jobs;
    assert_eq!(out[0].summary.unfinished, 0);
    let (large, small) = (&jobs[0], [&jobs[1], &jobs[2]]);
    for s in small {
        assert_eq!(s.first_start, small[0].first_start);
        assert_eq!(s.restarts, 0, "{s:?}");
    }
    let small_done = small.iter().filter_map(|s| s.finish).fold(0.0, f64::max);
    let large_start = large.first_start.unwrap();
    assert!(large_start >= small_done, "{large_start} < {small_done}");
    assert!(small_done - small[0].first_start.unwrap() >= 3600.0);
    assert!(large.finish.unwrap() - large_start >= 3600.0);
}
