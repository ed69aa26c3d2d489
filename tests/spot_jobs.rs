//! Spot jobs (a trace's `spot` column, Alibaba's `Spot` type) yield to high-priority jobs in
//! every mechanism, checked on hand-solved cases: a high-priority job left waiting by the
//! policy takes a spot job's GPUs at the next round or tick (suspends it, under PickyMan's
//! events; gets its first tasks first, in DL2's slots), the last-ranked spot jobs go first
//! and only as many as it needs, and a spot job resumes when the GPUs are free.

use orrery::experiment::{self, Experiment, ProfileSource, WorkloadSource};

/// The trace `rows` (job_type,arrival_s,total_steps,scale_factor,spot) as a workload.
fn trace(rows: &str) -> WorkloadSource {
    WorkloadSource::Inline {
        name: "spot-jobs.csv".into(),
        text: format!("job_type,arrival_s,total_steps,scale_factor,spot\n{rows}"),
    }
}

/// (start, finish, preemptions) of every job of `exp`'s first policy.
fn jobs_of(exp: &Experiment) -> Vec<(f64, f64, u32)> {
    let out = experiment::run(exp).expect("the experiment runs");
    out[0]
        .recorder
        .jobs
        .iter()
        .map(|r| {
            (
                r.first_start.expect("started"),
                r.finish.expect("finished"),
                r.preemptions,
            )
        })
        .collect()
}

/// The trace `rows` profile-free on four V100s under `policy`, 360-s rounds: (start,
/// finish, preemptions) of every job.
fn run(policy: &str, rows: &str) -> Vec<(f64, f64, u32)> {
    jobs_of(&Experiment {
        cluster: "v100:4".into(),
        workload: trace(rows),
        profile: ProfileSource::ProfileFree,
        policies: vec![policy.into()],
        fairness: false,
        round_s: 360.0,
        restart_cost_s: 0.0,
        ..orrery::experiment::scenarios::default_experiment()
    })
}

#[test]
fn a_high_priority_job_takes_a_spot_jobs_gpus_at_the_next_round() {
    // A spot job of 10,000 s holds all four GPUs; a high-priority job of 1,000 s on four
    // GPUs arrives at 1,000 s. FIFO would keep it waiting to 10,000 s; as a spot job the
    // first gives up its GPUs at the round after the arrival (1,080 s), and resumes when
    // the other is done (2,080 s), ending 1,080 s late.
    for policy in ["fifo", "las", "max_min_fairness"] {
        let spot = run(policy, "a,0,10000,4,true\nb,1000,1000,4,false\n");
        assert_eq!(spot[1], (1080.0, 2080.0, 0), "{policy}: {spot:?}");
        assert_eq!(spot[0], (0.0, 11080.0, 1), "{policy}: {spot:?}");
    }
    // Both high-priority: FIFO runs them in arrival order.
    let plain = run("fifo", "a,0,10000,4,false\nb,1000,1000,4,false\n");
    assert_eq!(plain[0], (0.0, 10000.0, 0));
    assert_eq!(plain[1].0, 10080.0);
}

#[test]
fn the_last_ranked_spot_jobs_yield_and_only_as_many_as_needed() {
    // Shortest remaining time first ranks three 1-GPU spot jobs of 5,000, 6,000 and 7,000 s
    // and a 1-GPU high-priority job of 5,000 s, all at 0, on the four GPUs; a 2-GPU
    // high-priority job of 20,000 s arrives at 1,000 s, ranked last. At 1,080 s it takes the
    // GPUs of the two last-ranked spot jobs (7,000 s and 6,000 s); the first spot job and
    // the high-priority one keep theirs and end at 5,000 s; the two spot jobs resume at the
    // round after (5,040 s) with 4,920 and 5,920 s to go.
    let jobs = run(
        "srtf",
        "s1,0,5000,1,true\ns2,0,6000,1,true\ns3,0,7000,1,true\nh1,0,5000,1,false\nh2,1000,20000,2,false\n",
    );
    assert_eq!(jobs[0], (0.0, 5000.0, 0), "{jobs:?}");
    assert_eq!(jobs[3], (0.0, 5000.0, 0), "{jobs:?}");
    assert_eq!(jobs[4], (1080.0, 21080.0, 0), "{jobs:?}");
    assert_eq!(jobs[1], (0.0, 9960.0, 1), "{jobs:?}");
    assert_eq!(jobs[2], (0.0, 10960.0, 1), "{jobs:?}");
}

#[test]
fn in_the_preemptive_mechanism_a_high_priority_job_suspends_the_spot_job_it_waits_for() {
    // PickyMan's events, first-in first-out (which never suspends a job): a spot job of
    // 10,000 s holds all four GPUs, a high-priority job of 1,000 s on four arrives at
    // 1,000 s. As a spot job the first is suspended at the arrival (it finishes its epoch and
    // checkpoints under PickyMan's model), the other starts as soon as its GPUs are free
    // and ends before it; both high-priority, the second waits for the first to end.
    let run = |rows: &str| {
        jobs_of(&Experiment {
            cluster: "v100:4".into(),
            workload: trace(rows),
            profile: ProfileSource::ProfileFree,
            policies: vec!["fifo".into()],
            fairness: false,
            preemption: Some(Default::default()),
            ..orrery::experiment::scenarios::default_experiment()
        })
    };
    let spot = run("a,0,10000,4,true\nb,1000,1000,4,false\n");
    println!("spot: {spot:?}");
    let (a, b) = (spot[0], spot[1]);
    assert_eq!(a.2, 1, "{spot:?}");
    assert!(b.0 >= 1000.0 && b.0 < 10_000.0 && b.1 < a.1, "{spot:?}");
    // The spot job resumes once the other is done and ends late by what it waited and its
    // suspension cost.
    assert!(a.1 >= 10_000.0 + (b.1 - b.0), "{spot:?}");
    let plain = run("a,0,10000,4,false\nb,1000,1000,4,false\n");
    println!("plain: {plain:?}");
    assert_eq!(plain[0].2, 0, "{plain:?}");
    assert!(plain[1].0 >= plain[0].1, "{plain:?}");
}

/// The trace `rows` under `policy` on `cluster`, profile-free, 60-s ticks, with Aryl's
/// inference server (the load always needs it) when `pooled`: (start, finish, preemptions)
/// of every job.
fn ticks(policy: &str, cluster: &str, pooled: bool, rows: &str) -> Vec<(f64, f64, u32)> {
    jobs_of(&Experiment {
        cluster: cluster.into(),
        workload: trace(rows),
        profile: ProfileSource::ProfileFree,
        policies: vec![policy.into()],
        fairness: false,
        round_s: 60.0,
        restart_cost_s: 0.0,
        inference: pooled.then(|| orrery::experiment::InferenceSource::Inline {
            name: "always.csv".into(),
            text: "time_s,servers\n0,1\n".into(),
        }),
        ..orrery::experiment::scenarios::default_experiment()
    })
}

#[test]
fn in_the_elastic_and_pooled_mechanisms_a_high_priority_job_takes_a_spot_jobs_gpus() {
    // Pollux's ticks (rigid jobs) and Aryl's pools, 60-s ticks: a spot job of 10,000 s on
    // all four GPUs, a high-priority job of 1,000 s on four arriving at 1,000 s. The second
    // takes the first's GPUs at the tick after its arrival (1,020 s) and runs to 2,020 s;
    // the spot job runs again from the tick after that (2,040 s); both high-priority, the
    // second waits for the first to end.
    for (policy, cluster, pooled) in [
        ("pollux", "v100:4/4", false),
        ("aryl", "v100:4/4,inference:8/8", true),
    ] {
        let spot = ticks(
            policy,
            cluster,
            pooled,
            "a,0,10000,4,true\nb,1000,1000,4,false\n",
        );
        let plain = ticks(
            policy,
            cluster,
            pooled,
            "a,0,10000,4,false\nb,1000,1000,4,false\n",
        );
        println!("{policy}: spot {spot:?}, plain {plain:?}");
        let (a, b) = (spot[0], spot[1]);
        assert_eq!(a.2, 1, "{policy}: {spot:?}");
        assert!(
            b.0 <= 1080.0 && (b.1 - b.0 - 1000.0).abs() < 1.0,
            "{policy}: {spot:?}"
        );
        // The spot job waited from the high-priority job's start to the tick after its end
        // (1,020 s). Aryl's pools send it back to its last checkpoint (every 1,800 s: none
        // yet, so it redoes its 1,020 s); Pollux's ticks keep its progress, as any change of
        // allocation does there.
        let waited = (b.1 / 60.0).ceil() * 60.0 - b.0;
        let lost = if pooled { b.0 - a.0 } else { 0.0 };
        assert!(
            (a.1 - plain[0].1 - waited - lost).abs() < 1e-6,
            "{policy}: {spot:?} vs {plain:?}"
        );
        assert_eq!(plain[0].2, 0, "{policy}: {plain:?}");
        assert!(plain[1].0 >= plain[0].1, "{policy}: {plain:?}");
    }
}

#[test]
fn in_dl2s_slots_high_priority_jobs_get_their_first_tasks_before_spot_jobs() {
    // DL2's slots (1,200 s), one GPU: two ResNet-50 jobs arrive at 0, the first a spot job.
    // The high-priority one gets the only worker at every slot's start and runs first
    // (0-3,053.3 s), the spot job from the slot after (3,600-6,653.3 s); both high-priority,
    // they run in arrival order.
    let run = |rows: &str| {
        jobs_of(&Experiment {
            cluster: "gpu:1/1".into(),
            workload: trace(rows),
            policies: vec!["fifo".into()],
            fairness: false,
            ..orrery::experiment::scenarios::dl2_experiment()
        })
    };
    let spot = run("resnet50,0,20000,1,true\nresnet50,0,20000,1,false\n");
    let plain = run("resnet50,0,20000,1,false\nresnet50,0,20000,1,false\n");
    println!("spot {spot:?}, plain {plain:?}");
    assert_eq!(spot[1].0, 0.0, "{spot:?}");
    assert_eq!(spot[0].0, 3600.0, "{spot:?}");
    assert!(
        (spot[1].1 - 3053.3).abs() < 0.1 && (spot[0].1 - 6653.3).abs() < 0.1,
        "{spot:?}"
    );
    assert_eq!((plain[0].0, plain[1].0), (0.0, 3600.0), "{plain:?}");
}
