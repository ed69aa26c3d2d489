//! PickyMan: the preemptive simulator's overhead model on hand-made cases, its invariants
//! (GPUs never over-committed, every job finishes, the preemption bound holds),
//! determinism, and the direction of the bundled scenario.

use orrery::experiment::scenarios;

use orrery::experiment::{run, Experiment, ProfileSource, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::model::restart::{PreemptionConfig, PreemptionCosts, RestartModel};
use orrery::policy::pickyman;
use orrery::sim::preemptive::{Phase, PreemptiveSimulator};
use orrery::sim::SimEvent;
use orrery::workload::Profile;

/// One GPU type with one GPU; job type "A" makes 10 steps/s with 100-step epochs, a 1 GB
/// checkpoint written at 0.5 GB/s (2 s) and read back with 3 GB of data at 1 GB/s after a
/// 6 s start (10 s).
fn tiny() -> (ClusterSpec, Profile, RestartModel) {
    let mut profile = Profile::default();
    profile.set("A", 1, "v100", 10.0);
    profile.job_types.get_mut("A").unwrap().preemption = Some(PreemptionCosts {
        epoch_steps: 100.0,
        checkpoint_gb: 1.0,
        data_gb: 3.0,
        init_s: 6.0,
    });
    let model = RestartModel::with_checkpoint(PreemptionConfig {
        read_gbps: 1.0,
        write_gbps: 0.5,
        noise: 0.0,
        default_epoch_s: 300.0,
    });
    (ClusterSpec::parse("v100:1").unwrap(), profile, model)
}

fn events(mut sim: PreemptiveSimulator) -> Vec<SimEvent> {
    let mut all = Vec::new();
    while let Some(r) = sim.step_round() {
        all.extend(r.events);
    }
    all
}

#[test]
fn a_suspension_costs_the_rest_of_the_epoch_a_checkpoint_and_a_reload() {
    let (cluster, profile, model) = tiny();
    // A long job starts at 0; a short one arrives at 23 s, 230 steps into A's work: A is
    // 30 steps into its third epoch, so it trains 70 more steps (7 s), checkpoints (2 s),
    // and the short job starts at 32 s.
    let jobs = vec![
        JobSpec::new("A", 0.0, 1000.0),
        JobSpec::new("A", 23.0, 50.0),
    ];
    let sim = PreemptiveSimulator::new(
        &cluster,
        jobs,
        profile,
        model,
        0,
        pickyman::build("srtf").unwrap(),
    )
    .unwrap();
    let ev = events(sim);
    let suspend = ev
        .iter()
        .find_map(|e| match e {
            SimEvent::Suspending {
                job,
                time,
                for_job,
                drain_s,
                save_s,
                modelled_s,
                ..
            } => Some((*job, *time, *for_job, *drain_s, *save_s, *modelled_s)),
            _ => None,
        })
        .expect("a suspension");
    assert_eq!((suspend.0, suspend.2), (0, 1));
    assert!((suspend.1 - 23.0).abs() < 1e-9);
    assert!((suspend.3 - 7.0).abs() < 1e-9, "drain {}", suspend.3);
    assert!((suspend.4 - 2.0).abs() < 1e-9, "checkpoint {}", suspend.4);
    assert!((suspend.5 - 19.0).abs() < 1e-9, "modelled {}", suspend.5);
    let released = ev.iter().find_map(|e| match e {
        SimEvent::Preempted { job: 0, time } => Some(*time),
        _ => None,
    });
    assert!((released.unwrap() - 32.0).abs() < 1e-9);
    // The short job runs 5 s from 32 s; A then reloads for 10 s and trains the 700 steps
    // left after its third epoch (70 s).
    let finish = |id| {
        ev.iter()
            .find_map(|e| match e {
                SimEvent::Finished { job, time } if *job == id => Some(*time),
                _ => None,
            })
            .unwrap()
    };
    assert!((finish(1) - 37.0).abs() < 1e-9);
    let resumed = ev.iter().find_map(|e| match e {
        SimEvent::Resumed {
            job: 0,
            time,
            reload_s,
            ..
        } => Some((*time, *reload_s)),
        _ => None,
    });
    assert_eq!(resumed, Some((37.0, 10.0)));
    assert!((finish(0) - 117.0).abs() < 1e-9, "{}", finish(0));
}

#[test]
fn at_an_epoch_boundary_only_the_checkpoint_is_paid() {
    let (cluster, profile, model) = tiny();
    // At 20 s job A is exactly 200 steps in: no epoch to finish.
    let jobs = vec![
        JobSpec::new("A", 0.0, 1000.0),
        JobSpec::new("A", 20.0, 50.0),
    ];
    let sim = PreemptiveSimulator::new(
        &cluster,
        jobs,
        profile,
        model,
        0,
        pickyman::build("srtf").unwrap(),
    )
    .unwrap();
    let drain = events(sim).iter().find_map(|e| match e {
        SimEvent::Suspending { drain_s, .. } => Some(*drain_s),
        _ => None,
    });
    assert_eq!(drain, Some(0.0));
}

#[test]
fn a_victim_that_ends_within_its_epoch_just_finishes() {
    let (cluster, profile, model) = tiny();
    // A has 250 steps; at 23 s it has 20 left, fewer than the rest of its epoch: it
    // finishes at 25 s, writes no checkpoint, and is never resumed.
    let jobs = vec![JobSpec::new("A", 0.0, 250.0), JobSpec::new("A", 23.0, 10.0)];
    let sim = PreemptiveSimulator::new(
        &cluster,
        jobs,
        profile,
        model,
        0,
        pickyman::build("srtf").unwrap(),
    )
    .unwrap();
    let ev = events(sim);
    assert!(ev
        .iter()
        .any(|e| matches!(e, SimEvent::Finished { job: 0, time } if (*time - 25.0).abs() < 1e-9)));
    assert!(!ev.iter().any(|e| matches!(e, SimEvent::Preempted { .. })));
    assert!(!ev.iter().any(|e| matches!(e, SimEvent::Resumed { .. })));
}

#[test]
fn pickyman_waits_when_waiting_is_cheaper() {
    let (cluster, profile, model) = tiny();
    // A finishes 3 s after the short job arrives; suspending it would cost a 7 s drain and
    // a 2 s checkpoint: PickyMan waits, SRTF suspends (and A finishes within its epoch).
    let jobs = vec![JobSpec::new("A", 0.0, 260.0), JobSpec::new("A", 23.0, 10.0)];
    for (policy, suspends) in [("pickyman[predict_error=0]", false), ("srtf", true)] {
        let sim = PreemptiveSimulator::new(
            &cluster,
            jobs.clone(),
            profile.clone(),
            model,
            0,
            pickyman::build(policy).unwrap(),
        )
        .unwrap();
        let any = events(sim)
            .iter()
            .any(|e| matches!(e, SimEvent::Suspending { .. }));
        assert_eq!(any, suspends, "{policy}");
    }
}

fn small_preset(n: usize) -> Experiment {
    let mut exp = scenarios::pickyman_experiment();
    if let WorkloadSource::Generated(g) = &mut exp.workload {
        g.num_jobs = n;
    }
    exp
}

/// Failures every 6 hours per server of 8 GPUs (the preset's 32 V100s are 4 servers),
/// half-hourly checkpoints with 30-second writes, a spare at once.
fn failing(exp: &Experiment) -> Experiment {
    use orrery::model::failure::checkpoint::{CheckpointPlan, Interval};
    use orrery::model::failure::{FailureModel, Faults};
    Experiment {
        cluster: "v100:32/8".into(),
        faults: Some(Faults {
            failures: FailureModel::with_rate(4.0),
            checkpoint: CheckpointPlan {
                interval: Interval::Every(1800.0),
                write_s: 30.0,
            },
        }),
        ..exp.clone()
    }
}

#[test]
fn gpus_are_never_over_committed_and_every_job_finishes() {
    // Without failures and with them: the jobs holding GPUs hold that many distinct GPU
    // indices, on every step.
    let exp = small_preset(150);
    for exp in [exp.clone(), failing(&exp)] {
        gpus_are_never_over_committed(&exp);
    }
}

fn gpus_are_never_over_committed(exp: &Experiment) {
    let r = exp.resolve().unwrap();
    let model = r.sim.restart;
    assert!(model.checkpoint.is_some());
    for policy in &exp.policies {
        let mut sim = r.preemptive_simulator(policy).unwrap();
        while sim.step_round().is_some() {
            let held: u32 = sim
                .jobs()
                .iter()
                .filter(|j| j.holds_gpus())
                .map(|j| j.gpus)
                .sum();
            let kept: u32 = sim.jobs().iter().map(|j| j.reserved).sum();
            assert_eq!(held + kept + sim.free_gpus(), 32, "{policy}");
            let mut ids: Vec<u32> = Vec::new();
            for j in sim.jobs() {
                assert!(j.progress <= j.total * (1.0 + 1e-12), "{policy}");
                if j.phase != Phase::Waiting {
                    assert_eq!(j.reserved, 0, "{policy}: only waiting jobs keep GPUs");
                }
                let n = ids.len();
                ids.extend(j.gpu_ids().iter().flat_map(|r| r.clone()));
                let want = if j.holds_gpus() { j.gpus as usize } else { 0 };
                assert_eq!(ids.len() - n, want, "{policy}");
            }
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len() as u32, held, "{policy}: a GPU held twice");
            assert!(ids.iter().all(|&g| g < 32));
        }
        assert!(
            sim.jobs()
                .iter()
                .all(|j| j.phase == Phase::Done && j.finish.is_some()),
            "{policy}: a job did not finish"
        );
        if policy == "pickyman" {
            assert!(sim.jobs().iter().all(|j| j.preemptions <= 2));
        }
        if policy == "fifo" {
            assert!(sim.jobs().iter().all(|j| j.preemptions == 0));
            // Strict FIFO: jobs start in arrival order.
            let mut starts: Vec<(f64, usize)> = sim
                .jobs()
                .iter()
                .enumerate()
                .map(|(i, j)| (j.first_start.unwrap(), i))
                .collect();
            orrery::order::sort_by(&mut starts, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let ids: Vec<usize> = starts.iter().map(|s| s.1).collect();
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            assert_eq!(ids, sorted);
        }
    }
}

#[test]
fn failures_restart_running_jobs_and_end_suspensions() {
    // Under failures every interruption is followed, at its time, by a restart on a spare
    // or, for a job being suspended, by the end of its suspension; both happen here (the
    // preset's 400 jobs).
    let exp = failing(&scenarios::pickyman_experiment());
    let r = exp.resolve().unwrap();
    let (mut restarted, mut stopped) = (0, 0);
    for policy in ["pickyman", "srtf", "las"] {
        let mut sim = r.preemptive_simulator(policy).unwrap();
        let mut events = Vec::new();
        while let Some(report) = sim.step_round() {
            events.extend(report.events);
        }
        for (i, e) in events.iter().enumerate() {
            let SimEvent::Interrupted { job, time, .. } = *e else {
                continue;
            };
            let next = events[i + 1..].iter().find(|e| match e {
                SimEvent::Restarted { job: j, .. } | SimEvent::Preempted { job: j, .. } => {
                    *j == job
                }
                _ => false,
            });
            match next {
                Some(SimEvent::Restarted { time: t, .. }) if *t == time => restarted += 1,
                Some(SimEvent::Preempted { time: t, .. }) if *t == time => stopped += 1,
                other => panic!("{policy}: job {job} interrupted at {time}, then {other:?}"),
            }
        }
        assert!(sim.jobs().iter().all(|j| j.finish.is_some()), "{policy}");
    }
    println!("{restarted} interruptions restarted on a spare, {stopped} ended a suspension");
    assert!(restarted >= 10 && stopped >= 1, "{restarted} {stopped}");
}

#[test]
fn without_failures_and_with_free_checkpoints_a_run_is_as_before() {
    // A rate of 0 with hourly checkpoints written in the background: every number of the
    // summary is the run's without failure settings. (Without rho: its isolated baseline
    // runs in rounds, where the checkpoints split a round's work into sums rounded apart
    // in the last digit.)
    use orrery::model::failure::{FailureModel, Faults};
    let plain = Experiment {
        fairness: false,
        ..small_preset(150)
    };
    let with = Experiment {
        faults: Some(Faults {
            failures: FailureModel::with_rate(0.0),
            checkpoint: Default::default(),
        }),
        ..plain.clone()
    };
    let (a, b) = (run(&plain).unwrap(), run(&with).unwrap());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        let f = y.summary.faults.clone().expect("failure figures");
        assert_eq!((f.server_failures, f.interruptions), (0, 0));
        let y = orrery::metrics::Summary {
            faults: None,
            ..y.summary.clone()
        };
        assert_eq!(x.summary, y, "{}", x.summary.policy);
    }
}

#[test]
fn summaries_are_deterministic_and_count_the_costs() {
    let exp = small_preset(150);
    let a = run(&exp).unwrap();
    let b = run(&exp).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.summary, y.summary);
    }
    for r in &a {
        let s = &r.summary;
        let p = s.preemption.expect("preemptive figures");
        assert_eq!(s.unfinished, 0, "{}", s.policy);
        assert_eq!(
            p.suspensions,
            s.preemptions + p.finished_instead,
            "{}",
            s.policy
        );
        // Time lost = suspending (epoch ends and checkpoints) + reloading.
        assert!(
            (s.time_lost_s - (p.suspend_s + p.resume_s)).abs() < 1e-6 * s.time_lost_s.max(1.0),
            "{}: {} vs {} + {}",
            s.policy,
            s.time_lost_s,
            p.suspend_s,
            p.resume_s
        );
        // Waiting includes the waits after suspensions.
        assert!(s.avg_wait_s >= p.avg_first_wait_s - 1e-9);
        if s.policy.starts_with("pickyman") {
            let e = p.duration_error.unwrap();
            assert!(e > 0.0 && e < 0.3, "{}: {e}", s.policy);
        } else {
            assert!(p.duration_error.is_none());
        }
    }
    let mut other = exp.clone();
    other.seed = 7;
    let c = run(&other).unwrap();
    assert_ne!(a[0].summary, c[0].summary, "the seed must change the noise");
}

#[test]
fn the_bundled_scenario_shows_the_direction() {
    let exp = scenarios::pickyman_experiment();
    let res = run(&exp).unwrap();
    let by = |name: &str| {
        res.iter()
            .find(|r| r.summary.policy == name)
            .map(|r| r.summary.clone())
            .unwrap()
    };
    let (pm, blind, srtf, las, fifo) = (
        by("pickyman"),
        by("pickyman[overhead_aware=false]"),
        by("srtf"),
        by("las"),
        by("fifo"),
    );
    for s in [&pm, &blind, &srtf, &las, &fifo] {
        println!(
            "{:32} avg JCT {:7.0} s  avg wait {:6.0} s  p99 wait {:7.0} s  makespan {:7.0} s  lost {:6.0} s  preemptions {}",
            s.policy, s.avg_jct_s, s.avg_wait_s, s.p99_wait_s, s.makespan_s, s.time_lost_s, s.preemptions
        );
        assert_eq!(s.num_jobs, 400);
    }
    // PickyMan waits less than overhead-blind preemptive scheduling and loses less time.
    assert!(pm.avg_wait_s < srtf.avg_wait_s && pm.avg_wait_s < las.avg_wait_s);
    assert!(pm.avg_wait_s < blind.avg_wait_s);
    assert!(pm.time_lost_s < 0.5 * blind.time_lost_s);
    assert!(pm.time_lost_s < 0.5 * srtf.time_lost_s);
    assert!(pm.makespan_s < srtf.makespan_s);
    assert!(pm.avg_jct_s < srtf.avg_jct_s);
    // Preemption at all beats FIFO's head-of-line blocking.
    assert!(srtf.avg_wait_s < fifo.avg_wait_s && fifo.preemptions == 0);
}

#[test]
fn bad_preemptive_experiments_are_refused() {
    let mut exp = scenarios::pickyman_experiment();
    exp.preemption = Some(PreemptionConfig {
        read_gbps: 0.0,
        ..Default::default()
    });
    let err = exp.resolve().unwrap_err().to_string();
    assert!(err.contains("read_gbps"), "{err}");

    // Round-based policies run its rigid jobs in rounds; Aryl (no inference pool) and DL2
    // (no parameter-server jobs) do not run here.
    let mut exp = scenarios::pickyman_experiment();
    exp.policies = vec!["max_min_fairness".into()];
    assert!(exp.resolve().is_ok());
    for p in ["aryl", "dl2"] {
        exp.policies = vec![p.into()];
        let err = exp.resolve().unwrap_err().to_string();
        assert!(err.contains(&format!("'{p}'")), "{err}");
    }

    let mut exp = scenarios::pickyman_experiment();
    exp.profile = ProfileSource::Preset {
        name: "pollux-apps".into(),
    };
    assert!(exp.resolve().is_err());

    let exp = scenarios::pickyman_experiment();
    let json = exp.to_json();
    assert_eq!(Experiment::from_json(&json).unwrap(), exp);
}

/// Finish time of every job, by id.
fn finishes(ev: &[SimEvent], n: usize) -> Vec<f64> {
    let mut out = vec![f64::NAN; n];
    for e in ev {
        if let SimEvent::Finished { job, time } = e {
            out[*job] = *time;
        }
    }
    out
}

#[test]
fn under_a_delay_model_every_start_costs_the_delay_and_suspensions_are_immediate() {
    let (cluster, profile, _) = tiny();
    // A long job (1,000 steps at 10 steps/s) at 0 and a short one (50 steps) at 23 s under
    // preemptive SRTF on one GPU.
    let jobs = vec![
        JobSpec::new("A", 0.0, 1000.0),
        JobSpec::new("A", 23.0, 50.0),
    ];
    let run = |overheads: RestartModel, jobs: Vec<JobSpec>| {
        let sim = PreemptiveSimulator::new(
            &cluster,
            jobs,
            profile.clone(),
            overheads,
            0,
            pickyman::build("srtf").unwrap(),
        )
        .unwrap();
        events(sim)
    };
    // None: A is suspended at 23 s with nothing to drain or write, the short job runs
    // 23-28 s, A resumes at 28 s with 770 steps left: 105 s.
    let ev = run(RestartModel::delay(0.0), jobs.clone());
    let f = finishes(&ev, 2);
    assert!(
        (f[1] - 28.0).abs() < 1e-6 && (f[0] - 105.0).abs() < 1e-6,
        "{f:?}"
    );
    // A fixed 4 s: A starts at 0 and trains from 4 s (190 steps by 23 s); the short job
    // trains 27-32 s; A resumes at 32 s, trains from 36 s, 810 steps: 117 s.
    let ev = run(RestartModel::delay(4.0), jobs.clone());
    let f = finishes(&ev, 2);
    assert!(
        (f[1] - 32.0).abs() < 1e-6 && (f[0] - 117.0).abs() < 1e-6,
        "{f:?}"
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        SimEvent::Suspending { drain_s, save_s, .. } if *drain_s == 0.0 && *save_s == 0.0
    )));
    // A job's own delay (per type) wins over the default: the short job's 1 s.
    let mut own = jobs;
    own[1].restart_s = Some(1.0);
    let f = finishes(&run(RestartModel::delay(4.0), own), 2);
    assert!(
        (f[1] - 29.0).abs() < 1e-6 && (f[0] - 114.0).abs() < 1e-6,
        "{f:?}"
    );
}
