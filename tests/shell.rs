//! The one shell over the mechanisms: a policy's own scheduling interval (`round_s` in its
//! spec) gives exactly the run of an experiment with that interval, alone or beside other
//! policies; the plan runs every policy and then the isolated baseline, and joins them into
//! the numbers of each policy's run alone with rho; every mechanism steps behind one
//! interface.

use orrery::experiment::{self, Experiment};
use orrery::sim::Mechanism;
use orrery::workload::presets;

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
    let pollux = presets::scenario("pollux").unwrap().experiment();
    let own = summaries_json(&Experiment {
        policies: vec!["tiresias[round_s=300]".into()],
        ..pollux.clone()
    });
    let whole = summaries_json(&Experiment {
        policies: vec!["tiresias".into()],
        round_s: 300.0,
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
            ..presets::scenario(preset).unwrap().experiment()
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
    // Mechanisms without the isolated policy plan no baseline.
    for preset in ["pollux", "pickyman", "dl2", "aryl"] {
        let e = presets::scenario(preset).unwrap().experiment();
        let r = e.resolve().unwrap();
        assert_ne!(r.mechanism(), Mechanism::Rounds, "{preset}");
        let plan = r.plan(&Experiment {
            fairness: true,
            ..e.clone()
        });
        assert!(!plan.has_baseline(), "{preset}");
        assert_eq!(plan.tasks.len(), e.policies.len(), "{preset}");
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
        let e = presets::scenario(preset).unwrap().experiment();
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
        ..presets::scenario("pollux").unwrap().experiment()
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
        one.jobs = vec![orrery::job::JobSpec {
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
    // its own mechanism with the default overhead model, which gives exactly the run of
    // the same experiment made preemptive.
    let base = Experiment {
        cluster: "v100:32".into(),
        fairness: false,
        ..Experiment::default()
    };
    let mixed = experiment::run(&Experiment {
        policies: vec![
            "las".into(),
            "max_min_fairness_perf".into(),
            "pickyman".into(),
        ],
        ..base.clone()
    })
    .unwrap();
    assert!(mixed.iter().all(|r| r.summary.unfinished == 0));
    let preemptive = experiment::run(&Experiment {
        policies: vec!["pickyman".into()],
        preemption: Some(orrery::workload::overhead::PreemptionConfig::default()),
        ..base.clone()
    })
    .unwrap();
    assert_eq!(mixed[2].summary, preemptive[0].summary);
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
    use orrery::experiment::RestartModel;
    let pollux = presets::scenario("pollux").unwrap().experiment();
    let with = |by_type: &[(&str, f64)], policies: &[&str]| {
        let exp = Experiment {
            restart_by_type: by_type.iter().map(|(t, s)| (t.to_string(), *s)).collect(),
            policies: policies.iter().map(|p| p.to_string()).collect(),
            fairness: false,
            ..pollux.clone()
        };
        (exp.restart_model(), experiment::run(&exp).unwrap())
    };
    let (m0, base) = with(&[], &["tiresias", "las"]);
    assert_eq!(m0, RestartModel::Fixed { seconds: 30.0 });
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
    let dl2 = presets::dl2_experiment();
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
