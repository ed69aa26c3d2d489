//! Failures in every mechanism, checked by what a run must add up to: one job alone on one
//! server, a spare taking a failed server's place at once, finishes later than without
//! failures by exactly its restarts and the work the failures took back.

use orrery::experiment::{self, Experiment, InferenceSource};
use orrery::model::failure::checkpoint::{CheckpointPlan, Interval};
use orrery::model::failure::{Domain, FailureModel, Faults};

/// Failures at `rate` per server-day, checkpoints every `interval_s` with writes of
/// `write_s`, a spare at once.
fn faults(rate: f64, interval_s: f64, write_s: f64) -> Faults {
    Faults {
        failures: FailureModel::with_rate(rate),
        checkpoint: CheckpointPlan {
            interval: Interval::Every(interval_s),
            write_s,
        },
    }
}

/// Seconds of work of the job alone.
const DURATION: u64 = 200_000;

/// One 8-GPU job of `duration_s` on the only server of `h100:8/8` under `policy` (Aryl's
/// pools add an inference server the load always needs, so none is loaned).
fn alone(policy: &str, duration_s: u64) -> Experiment {
    let pooled = policy == "aryl";
    let cluster = if pooled {
        "h100:8/8,inference:8/8"
    } else {
        "h100:8/8"
    };
    Experiment {
        policies: vec![policy.into()],
        restart_cost_s: 120.0,
        inference: pooled.then(|| InferenceSource::Inline {
            name: "always.csv".into(),
            text: "time_s,servers\n0,1\n".into(),
        }),
        ..crate::common::one_job(cluster, duration_s, 8, 60.0)
    }
}

/// One parameter-server job alone on one server of 8 GPUs in DL2's slots under `fifo`,
/// 2-minute restarts.
fn dl2_alone() -> Experiment {
    Experiment {
        cluster: "gpu:8/8".into(),
        policies: vec!["fifo".into()],
        workload: orrery::experiment::WorkloadSource::Generated(
            orrery::workload::GeneratorConfig {
                num_jobs: 1,
                ..orrery::workload::GeneratorConfig::default()
            },
        ),
        restart_cost_s: 120.0,
        fairness: false,
        ..orrery::experiment::scenarios::dl2_experiment()
    }
}

/// The JCT and wait of the job alone and the failure figures of `exp`.
fn run(exp: &Experiment) -> (f64, f64, orrery::metrics::FaultFigures) {
    let out = experiment::run(exp).expect("the experiment runs");
    let s = &out[0].summary;
    assert_eq!(s.unfinished, 0, "{}", s.policy);
    (
        s.avg_jct_s,
        s.avg_wait_s,
        s.faults.clone().unwrap_or_default(),
    )
}

#[test]
fn a_failure_costs_a_job_alone_its_restart_and_its_lost_work() {
    // The policies of the round-based, elastic, preemptive and pooled mechanisms (`srtf`
    // and `las` run in rounds in this round-based experiment; `pickyman` only in the
    // preemptive one), the same failures (the experiment's seed, server 0): the job's wall
    // time grows by its restart delay and the seconds of work taken back at every
    // interruption, writes included.
    for policy in ["fifo", "pollux", "pickyman", "aryl"] {
        for write_s in [0.0, 30.0] {
            let base = alone(policy, DURATION);
            let (plain, _, _) = run(&base);
            let mut exp = base.clone();
            exp.faults = Some(faults(6.0, 1800.0, write_s));
            let (with, wait, f) = run(&exp);
            let n = f.interruptions as f64;
            let lost_s = f.lost_gpu_hours.rolled_back * 3600.0 / 8.0;
            let writing_s = f.lost_gpu_hours.checkpoints * 3600.0 / 8.0;
            let want = plain + n * 120.0 + lost_s + writing_s;
            println!(
                "{policy}, writes of {write_s} s: {n} interruptions of {} server failures, {lost_s:.0} s taken back, {writing_s:.0} s writing; {plain} s without, {with} s with (expected {want:.1}, off by {:.1e} s)",
                f.server_failures,
                with - want
            );
            assert!(n >= 10.0, "{policy}: {f:?}");
            assert!(f.interruptions <= f.server_failures);
            // Pollux's ticks round an epoch's end to the second without failures only.
            // PickyMan's events keep exact seconds: the job's progress is added stretch by
            // stretch between events (failures, the ends of restarts) and its end is
            // predicted with the writes still to come, so only floating-point rounding
            // could tell (none here: it lands on the rounds' JCT).
            let slack = if policy == "pollux" { 2.0 } else { 1e-6 };
            assert!((with - want).abs() <= slack, "{policy}: {with} vs {want}");
            // Every interruption took back at most one interval of work.
            assert!(lost_s <= n * 1800.0 + 1e-6);
            // Productive time is the job's own work (one step a second at its GPUs), wall
            // time runs from its first start.
            let ettr = f.ettr.expect("ETTR");
            assert!(
                (ettr - DURATION as f64 / (with - wait)).abs() < 1e-9,
                "{ettr}"
            );
        }
    }
}

#[test]
fn the_failures_scenario_costs_every_family_something_different() {
    // The `failures` scenario against the same experiment without failures: every policy
    // (elastic and round-based) meets failures, loses work to them and finishes every job
    // later on average; the policies lose different amounts.
    let exp = orrery::experiment::scenarios::scenario("failures")
        .expect("the failures scenario")
        .experiment();
    let exp = Experiment {
        fairness: false,
        ..exp
    };
    let plain = Experiment {
        faults: None,
        ..exp.clone()
    };
    let (with, without) = (
        experiment::run(&exp).expect("runs"),
        experiment::run(&plain).expect("runs"),
    );
    let mut growth = Vec::new();
    for (w, p) in with.iter().zip(&without) {
        let (w, p) = (&w.summary, &p.summary);
        let f = w.faults.clone().expect("failure figures");
        println!(
            "{}: avg JCT {:.0} s -> {:.0} s, {} interruptions, ETTR {:.3}",
            w.policy,
            p.avg_jct_s,
            w.avg_jct_s,
            f.interruptions,
            f.ettr.unwrap_or(0.0)
        );
        assert_eq!(w.unfinished, 0, "{}", w.policy);
        assert!(
            f.interruptions > 10 && f.server_failures > 10,
            "{}: {f:?}",
            w.policy
        );
        assert!(f.ettr.is_some_and(|e| e > 0.5 && e < 1.0), "{f:?}");
        assert!(f.lost_gpu_hours.rolled_back > 0.0 && f.lost_gpu_hours.checkpoints > 0.0);
        assert!(w.avg_jct_s > p.avg_jct_s, "{}", w.policy);
        growth.push(w.avg_jct_s / p.avg_jct_s);
    }
    let (lo, hi) = growth
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), &g| (a.min(g), b.max(g)));
    assert!(hi - lo > 0.05, "{growth:?}");
}

#[test]
fn a_failure_costs_a_parameter_server_job_alone_its_restart_and_its_lost_work() {
    // DL2's slots: one parameter-server job alone on one server of 8 GPUs keeps its
    // workers and parameter servers from slot to slot, so only failures restart it; its
    // JCT grows by the restarts it paid and the seconds taken back at every interruption,
    // writes included, exactly. A failure during a restart (1,702.9 s here, 55.3 s into
    // the restart after the failure at 1,647.6 s) interrupts it again, taking back nothing
    // and cutting that restart short.
    let base = dl2_alone();
    let job = |exp: &Experiment| {
        let out = experiment::run(exp).expect("the experiment runs");
        let r = out[0].recorder.jobs[0].clone();
        (out[0].summary.clone(), r)
    };
    let (plain, p) = job(&base);
    assert_eq!(plain.unfinished, 0);
    assert_eq!(p.restarts, 0);
    for write_s in [0.0, 30.0] {
        let mut exp = base.clone();
        exp.faults = Some(faults(24.0, 1800.0, write_s));
        let (with, r) = job(&exp);
        let f = with.faults.clone().expect("failure figures");
        let n = f64::from(r.interruptions);
        let restarting = r.overhead_s - p.overhead_s;
        let want = plain.avg_jct_s + restarting + r.lost_s + r.checkpoint_s;
        println!(
            "dl2 slots, writes of {write_s} s: {n} interruptions of {} server failures, {:.1} s restarting, {:.0} s taken back, {:.0} s writing; {} s without, {} s with (expected {want:.1})",
            f.server_failures, restarting, r.lost_s, r.checkpoint_s, plain.avg_jct_s, with.avg_jct_s
        );
        assert!(n >= 5.0, "{f:?}");
        assert_eq!(r.restarts, r.interruptions);
        assert_eq!(u64::from(r.interruptions), f.interruptions);
        assert!(
            (with.avg_jct_s - want).abs() <= 1e-6,
            "{} vs {want}",
            with.avg_jct_s
        );
        // Every restart but the one cut short was paid in full.
        assert!(
            (restarting - (n * 120.0 - 64.684_821_990_793_81)).abs() < 1e-6,
            "{restarting}"
        );
        assert!(r.lost_s <= n * 1800.0 + 1e-6);
        assert_eq!(write_s > 0.0, r.checkpoint_s > 0.0);
    }
}

/// Seconds the job alone waits for its server after each failure that stopped it
/// (`stops`: the failure times, from the run's own interruptions): from the failure to the
/// first step start (a multiple of `step_s`; any time without one) at or after the server
/// is back at which it is not away again (the failure model's server 0, the experiment's
/// `seed`).
fn waits(rate: f64, repair_s: f64, seed: u64, stops: &[f64], step_s: Option<f64>) -> f64 {
    let model = FailureModel {
        repair_s,
        ..FailureModel::with_rate(rate)
    };
    let mut schedule = orrery::model::failure::schedule::Schedule::new(&model, 1, seed);
    let failures = schedule.until(1e9);
    let mut total = 0.0;
    for &t in stops {
        let i = failures
            .iter()
            .position(|f| f.time == t)
            .expect("a failure of the server stopped the job");
        let mut back = failures[i].back_at;
        let mut next = i + 1;
        loop {
            let resume = step_s.map_or(back, |s| (back / s).ceil() * s);
            match failures.get(next) {
                Some(f) if f.time < resume => {
                    back = f.back_at;
                    next += 1;
                }
                _ => {
                    total += resume - t;
                    break;
                }
            }
        }
    }
    total
}

#[test]
fn a_server_away_for_repair_keeps_a_job_alone_waiting_to_the_next_tick_or_slot() {
    // A repair time of an hour: the job stops at each failure of its server, loses its
    // work since its last checkpoint and starts again (paying its restart) at the first
    // tick (elastic and pooled, 60 s) or slot (DL2, 1,200 s) after the server is back, or
    // (preemptive, from event to event) the moment it is back.
    let repair_s = 3600.0;
    let elastic = alone("pollux", 50_000);
    let preemptive = alone("pickyman", 50_000);
    let pooled = alone("aryl", 50_000);
    let dl2 = dl2_alone();
    for (name, base, rate) in [
        ("elastic", elastic, 6.0),
        ("preemptive", preemptive, 6.0),
        ("pooled", pooled, 6.0),
        ("slots", dl2, 24.0),
    ] {
        let job = |exp: &Experiment| {
            let out = experiment::run(exp).expect("the experiment runs");
            (out[0].summary.clone(), out[0].recorder.jobs[0].clone())
        };
        let (plain, p) = job(&base);
        let mut exp = base.clone();
        let mut f = faults(rate, 1800.0, 30.0);
        f.failures.repair_s = repair_s;
        exp.faults = Some(f);
        let (with, r) = job(&exp);
        let out = experiment::run(&exp).expect("the experiment runs");
        let stops: Vec<f64> = out[0]
            .recorder
            .faults
            .interruptions
            .iter()
            .map(|i| i.0)
            .collect();
        let step = (name != "preemptive").then_some(exp.round_s);
        let waited = waits(rate, repair_s, exp.seed, &stops, step);
        let restarting = r.overhead_s - p.overhead_s;
        let want = plain.avg_jct_s + restarting + r.lost_s + r.checkpoint_s + waited;
        println!(
            "{name}: {} interruptions, {restarting:.1} s restarting, {:.0} s taken back, {:.0} s writing, {waited:.1} s waiting; JCT {} s -> {} s (expected {want:.1})",
            r.interruptions, r.lost_s, r.checkpoint_s, plain.avg_jct_s, with.avg_jct_s
        );
        assert_eq!(with.unfinished, 0);
        assert!(r.interruptions >= 2, "{name}");
        // Stopped and started again by its policy: no restart on a spare (the slots count
        // a job's new tasks as a restart, the elastic ticks every new allocation).
        assert!(
            !matches!(name, "pooled" | "preemptive") || r.restarts == 0,
            "{name}"
        );
        assert!(waited >= f64::from(r.interruptions) * repair_s);
        // Pollux's ticks round an epoch's end to the second without failures only.
        let slack = if name == "elastic" { 2.0 } else { 1e-6 };
        assert!(
            (with.avg_jct_s - want).abs() <= slack,
            "{name}: {} vs {want}",
            with.avg_jct_s
        );
    }
}

/// One 8-GPU job of 3,000 s alone under `policy` on a cluster whose training server is a
/// spot instance taken back at 1,000 s (inside the tick from 960 s) until 1,500 s, with
/// checkpoints every 600 s written in 30 s and a warning of `warning_s`.
fn spot_drop(policy: &str, warning_s: f64) -> (orrery::metrics::Summary, f64) {
    let data: Vec<String> = (0..40)
        .map(|i| if (10..15).contains(&i) { "0" } else { "1" }.to_string())
        .collect();
    let text = format!(
        "{{\"metadata\": {{\"gap_seconds\": 100}}, \"data\": [{}]}}",
        data.join(",")
    );
    let exp = Experiment {
        restart_cost_s: 0.0,
        faults: Some(faults(0.0, 600.0, 30.0)),
        spot: [(
            "h100".to_string(),
            orrery::experiment::SpotSource {
                name: "drop.json".into(),
                text,
            },
        )]
        .into(),
        spot_warning_s: Some(warning_s),
        ..alone(policy, 3000)
    };
    let out = experiment::run(&exp).expect("the experiment runs");
    let lost_s = out[0].recorder.jobs[0].lost_s;
    (out[0].summary.clone(), lost_s)
}

#[test]
fn a_spot_instance_taken_back_inside_a_tick_stops_its_job_after_the_warning() {
    // As in rounds: computing 0-600, writing 600-630, computing 630-1000. A 10-s warning
    // (shorter than a write) loses the 370 s since the checkpoint; AWS's 120 s lets it
    // write in its last 30 s and lose only those. It waits for the instance, back at
    // 1,500 s (a tick's start), and does the rest. The elastic ticks place the job at the
    // end of the first tick, 60 s later: it loses 60 s less.
    for (policy, start) in [("aryl", 0.0), ("pickyman", 0.0), ("pollux", 60.0)] {
        let (cold, cold_lost) = spot_drop(policy, 10.0);
        let (warned, warned_lost) = spot_drop(policy, 120.0);
        let (f, g) = (
            cold.faults.clone().expect("figures"),
            warned.faults.clone().expect("figures"),
        );
        println!(
            "{policy} spot: lost {cold_lost} s cold, {warned_lost} s warned; JCT {} s cold, {} s warned",
            cold.avg_jct_s, warned.avg_jct_s
        );
        let lost = 370.0 - start;
        assert_eq!((f.spot_preemptions, f.interruptions), (1, 0), "{policy}");
        assert_eq!((g.spot_preemptions, g.interruptions), (1, 0), "{policy}");
        assert!(
            (f.lost_gpu_hours.preempted * 3600.0 / 8.0 - lost).abs() < 1e-6,
            "{policy}: {f:?}"
        );
        assert!((cold_lost - lost).abs() < 1e-6, "{policy}: {cold_lost}");
        assert_eq!(g.lost_gpu_hours.preempted, 0.0, "{policy}");
        assert!(
            (g.lost_gpu_hours.checkpoints - f.lost_gpu_hours.checkpoints - 8.0 * 30.0 / 3600.0)
                .abs()
                < 1e-9,
            "{policy}: {g:?} vs {f:?}"
        );
        // Both start again at 1,500 s: the cold one redoes its lost seconds, the warned
        // one 30 s (their later writes may differ by one of 30 s).
        assert!(cold.avg_jct_s >= 3000.0 + 500.0 && warned.avg_jct_s >= 3000.0 + 500.0);
        let d = cold.avg_jct_s - warned.avg_jct_s;
        assert!((d - (lost - 30.0)).abs() <= 30.0 + 1e-6, "{policy}: {d}");
    }
}

#[test]
fn in_a_gpu_domain_a_gpu_failure_stops_only_the_job_on_that_gpu() {
    // Two 4-GPU jobs fill the only training server of 8, stopped at 6 days long before they
    // end, at 6 failures per server-day with a spare at once. In a server domain every failure stops
    // both; in a GPU domain a failure of a GPU cause (Llama 3's GPU category) stops the one
    // job holding the failed GPU, any other both. The same failures (times and causes) in
    // both domains and every mechanism.
    let two = "timestamp,duration,num_gpus\n0,100000000,4\n0,100000000,4\n";
    for policy in ["fifo", "pollux", "pickyman", "aryl"] {
        let mut counts = Vec::new();
        for domain in [Domain::Server, Domain::Gpu] {
            let mut f = faults(6.0, 1800.0, 0.0);
            f.failures.domain = domain;
            let mut exp = alone(policy, 1);
            exp.workload = orrery::experiment::WorkloadSource::Inline {
                name: "two.csv".into(),
                text: two.into(),
            };
            exp.faults = Some(f);
            exp.until_s = Some(6.0 * 86_400.0);
            let out = experiment::run(&exp).expect("the experiment runs");
            let rec = &out[0].recorder.faults;
            // Failures of the training server once both run (they start within the first
            // minute).
            let failures: Vec<&(f64, u32, String)> = (rec.failures.iter())
                .filter(|f| f.0 > 120.0 && f.1 == 0)
                .collect();
            let gpu = failures.iter().filter(|f| f.2 == "GPU").count();
            let stops = rec.interruptions.iter().filter(|i| i.0 > 120.0).count();
            let want = match domain {
                Domain::Server => 2 * failures.len(),
                Domain::Gpu => 2 * failures.len() - gpu,
            };
            println!(
                "{policy}, {domain:?} domain: {} failures ({gpu} of GPU causes), {stops} jobs stopped (expected {want})",
                failures.len()
            );
            assert!(
                failures.len() >= 20 && gpu >= 5,
                "{policy}: {}",
                failures.len()
            );
            assert_eq!(stops, want, "{policy}, {domain:?}");
            counts.push(failures.len());
        }
        assert_eq!(
            counts[0], counts[1],
            "{policy}: the same failures in both domains"
        );
    }
}

#[test]
fn a_job_types_own_checkpoint_write_time_from_its_profile_blocks_its_jobs() {
    // A job type whose profile entry writes its checkpoints in 30 s, the experiment's in 0 s:
    // one 8-GPU job of 10,000 s of work, checkpoints every 1,800 s of computation, no
    // failures. Five writes (at 1,800 ... 9,000 s of computation) of 30 s each: its JCT is
    // 150 s longer than without failure settings, in rounds, ticks and events alike.
    let profile = r#"{"format":"orrery-profile","version":1,"job_types":{"A":{"throughputs":{"8":{"h100":1.0}},"checkpoint_write_s":30}}}"#;
    for policy in ["fifo", "pollux", "pickyman"] {
        let base = Experiment {
            workload: orrery::experiment::WorkloadSource::Inline {
                name: "one.csv".into(),
                text: "job_type,arrival_s,total_steps,scale_factor\nA,0,10000,8\n".into(),
            },
            profile: orrery::experiment::ProfileSource::Inline {
                name: "a.json".into(),
                text: profile.into(),
            },
            restart_cost_s: 0.0,
            ..alone(policy, 1)
        };
        let (plain, _, _) = run(&base);
        let mut exp = base.clone();
        exp.faults = Some(faults(0.0, 1800.0, 0.0));
        let (with, _, f) = run(&exp);
        let writing_s = f.lost_gpu_hours.checkpoints * 3600.0 / 8.0;
        println!("{policy}: {plain} s -> {with} s, {writing_s} s writing");
        assert!((writing_s - 150.0).abs() < 1e-6, "{policy}: {f:?}");
        // Pollux's ticks round an epoch's end to the second without failures only.
        let slack = if policy == "pollux" { 2.0 } else { 1e-6 };
        assert!(
            (with - plain - 150.0).abs() <= slack,
            "{policy}: {plain} -> {with}"
        );
    }
}
