//! The spot capacity readers on the published traces: SkyPilot's spot traces and Parcae's
//! node trace, against the figures of ../shared/reference/faults (its summary.csv and
//! README).

use crate::common;
use orrery::model::spot::CapacityTrace;

fn read(rel: &str) -> Option<CapacityTrace> {
    let dir = common::reference("faults", "the spot capacity readers")?;
    let text = std::fs::read_to_string(dir.join(rel)).expect("a trace file");
    Some(CapacityTrace::parse(&text).expect("a trace"))
}

#[test]
fn skypilots_preemption_trace_reads_as_published() {
    // us-west-2b, one V100 held: 19,961 points 32 s apart (177.43 h), 44 preemptions,
    // 140.667 instance-hours, available 79.28% of the time, price 0.918 throughout.
    let Some(t) = read("spot-traces/preemption/1-node/aws-04-22-2023/us-west-2b_v100_1.json")
    else {
        return;
    };
    assert_eq!(t.steps.len(), 19_961);
    assert!((t.end_s / 3600.0 - 177.431).abs() < 1e-3);
    assert_eq!(t.decreases(), (44, 44));
    assert!(
        (t.instance_hours() - 140.667).abs() < 1e-3,
        "{}",
        t.instance_hours()
    );
    let prices = t.prices.as_ref().expect("prices");
    assert!(prices.iter().all(|&p| p == 0.918));
}

#[test]
fn skypilots_16_node_availability_trace_reads_as_published() {
    // us-east-2b, up to 16 instances: 136 decreases losing 910 instances, 2,369.75
    // instance-hours over 270.6 h.
    let Some(t) = read("spot-traces/availability/16-node/aws-08-27-2023/us-east-2b_v100_1.json")
    else {
        return;
    };
    assert_eq!(t.decreases(), (136, 910));
    assert!(
        (t.instance_hours() - 2369.75).abs() < 1e-2,
        "{}",
        t.instance_hours()
    );
    assert!((t.end_s / 3600.0 - 270.6).abs() < 0.1);
}

#[test]
fn parcaes_trace_reads_as_published() {
    // 32 p3.2xlarge at most: 18 nodes at 0, 177 additions and 167 removals over 11.37 h,
    // 10 nodes at the end, 273.12 node-hours, live nodes between 10 and 32.
    let Some(t) = read("parcae/p3trace.csv") else {
        return;
    };
    assert_eq!(t.at(0.0), 18);
    assert_eq!(t.at(t.end_s), 10);
    assert!((t.end_s - 40_920.0).abs() < 1e-9);
    let max = t.steps.iter().map(|s| s.1).max();
    let min = t.steps.iter().map(|s| s.1).min();
    assert_eq!((min, max), (Some(10), Some(32)));
    assert!(
        (t.instance_hours() - 273.12).abs() < 0.01,
        "{}",
        t.instance_hours()
    );
    // Removals: the trace's 167, at 79 times (several share a time; none shares one with
    // an addition, so the count falls by as many).
    assert_eq!(t.removals(), (79, 167));
    assert_eq!(t.decreases(), (79, 167));
    let text = std::fs::read_to_string(
        common::reference("faults", "the spot capacity readers")
            .expect("present")
            .join("parcae/p3trace.csv"),
    )
    .expect("the file");
    assert_eq!(text.lines().filter(|l| l.contains(",remove,")).count(), 167);
}

#[test]
fn a_job_on_a_spot_v100_replays_skypilots_trace() {
    // One 1-GPU job longer than the trace on one V100 whose capacity follows the
    // us-west-2b preemption trace, in rounds of the trace's 32 s: the job is preempted at
    // each of the trace's 44 drops (and restarts each time) and holds the GPU for the
    // trace's 140.667 instance-hours.
    let Some(dir) = common::reference("faults", "the spot replay") else {
        return;
    };
    let file = "us-west-2b_v100_1.json";
    let text = std::fs::read_to_string(
        dir.join("spot-traces/preemption/1-node/aws-04-22-2023")
            .join(file),
    )
    .expect("the trace");
    let exp = orrery::experiment::Experiment {
        until_s: Some(638_751.0),
        spot: [(
            "v100".to_string(),
            orrery::experiment::SpotSource {
                name: file.into(),
                text,
            },
        )]
        .into(),
        ..common::one_job("v100:1", 1_000_000, 1, 32.0)
    };
    let s = orrery::experiment::run(&exp).unwrap()[0].summary.clone();
    assert_eq!((s.unfinished, s.preemptions, s.restarts), (1, 44, 44));
    // Each drop took the instance back after AWS's two-minute warning: the job wrote a
    // checkpoint in it (writes of 0 s) and lost nothing.
    let f = s.faults.clone().expect("spot figures");
    assert_eq!((f.spot_preemptions, f.interruptions), (44, 0));
    assert_eq!(f.lost_gpu_hours.preempted, 0.0);
    assert!(
        (s.gpu_hours - 140.67).abs() <= 140.67 * 0.005,
        "{}",
        s.gpu_hours
    );
    // A type the cluster lacks is named.
    let mut bad = exp.clone();
    bad.spot = [(
        "a100".to_string(),
        orrery::experiment::SpotSource {
            name: file.into(),
            text: "{}".into(),
        },
    )]
    .into();
    let err = bad.resolve().unwrap_err().to_string();
    assert!(err.contains("no GPU type 'a100'"), "{err}");
}

/// One 1-GPU job of 3,000 s (one step a second) on one V100 whose instance goes at 1,000 s
/// and is back at 1,500 s (rounds of 360 s: the drop falls inside a round), checkpoints
/// every 600 s of computation with 30-s writes, no restart cost, a warning of `warning_s`.
fn dropped_at_1000(warning_s: f64) -> orrery::metrics::Summary {
    let data: Vec<String> = (0..40)
        .map(|i| if (10..15).contains(&i) { "0" } else { "1" }.to_string())
        .collect();
    let text = format!(
        "{{\"metadata\": {{\"gap_seconds\": 100}}, \"data\": [{}]}}",
        data.join(",")
    );
    let exp = orrery::experiment::Experiment {
        restart_cost_s: 0.0,
        faults: Some(orrery::model::failure::Faults {
            failures: orrery::model::failure::FailureModel::with_rate(0.0),
            checkpoint: orrery::model::failure::checkpoint::CheckpointPlan {
                interval: orrery::model::failure::checkpoint::Interval::Every(600.0),
                write_s: 30.0,
            },
        }),
        spot: [(
            "v100".to_string(),
            orrery::experiment::SpotSource {
                name: "drop.json".into(),
                text,
            },
        )]
        .into(),
        spot_warning_s: Some(warning_s),
        ..common::one_job("v100:1", 3000, 1, 360.0)
    };
    orrery::experiment::run(&exp).unwrap()[0].summary.clone()
}

#[test]
fn a_spot_instance_taken_back_inside_a_round_rolls_its_job_back_unless_warned() {
    // Computing 0-600, writing 600-630, computing 630-1000: the drop at 1,000 s stops it.
    // A 10-s warning is shorter than a write: the 370 s since the checkpoint are lost.
    let cold = dropped_at_1000(10.0);
    let f = cold.faults.clone().expect("figures");
    assert_eq!((f.spot_preemptions, f.interruptions), (1, 0));
    assert!(
        (f.lost_gpu_hours.preempted * 3600.0 - 370.0).abs() < 1e-6,
        "{f:?}"
    );
    // AWS's 120 s: it writes a checkpoint in its last 30 s instead of computing, and loses
    // only those.
    let warned = dropped_at_1000(120.0);
    let g = warned.faults.clone().expect("figures");
    assert_eq!(g.spot_preemptions, 1);
    assert_eq!(g.lost_gpu_hours.preempted, 0.0);
    assert!(
        (g.lost_gpu_hours.checkpoints - f.lost_gpu_hours.checkpoints - 30.0 / 3600.0).abs() < 1e-9,
        "{g:?} vs {f:?}"
    );
    // Both wait for the instance (back at 1,500 s) and finish their 3,000 s of work: the
    // cold one redoes 370 s, the warned one 30 s (and their later writes may differ by
    // one of 30 s).
    let d = cold.avg_jct_s - warned.avg_jct_s;
    println!(
        "JCT {} s cold, {} s warned",
        cold.avg_jct_s, warned.avg_jct_s
    );
    assert!((d - 340.0).abs() <= 30.0 + 1e-6, "{d}");
    assert!(warned.avg_jct_s >= 3000.0 + 500.0);
}

#[test]
fn the_spot_scenario_pays_on_demand_and_spot_prices() {
    // Every policy meets spot preemptions, loses only checkpoint writes to them (the
    // two-minute warning covers a 30-s write), and pays $3.06 per on-demand GPU-hour and
    // $0.918 per spot one.
    let exp = orrery::experiment::scenarios::scenario("spot")
        .expect("the spot scenario")
        .experiment();
    let exp = orrery::experiment::Experiment {
        fairness: false,
        ..exp
    };
    for r in orrery::experiment::run(&exp).expect("runs") {
        let s = &r.summary;
        let f = s.faults.as_ref().expect("spot figures");
        let (cost, spot) = (s.cost.expect("prices"), s.spot_cost.expect("spot prices"));
        let spot_hours = (3.06 * s.gpu_hours - cost) / (3.06 - 0.918);
        println!(
            "{}: avg JCT {:.0} s, {} spot preemptions, ${:.2} on-demand + ${spot:.2} spot",
            s.policy,
            s.avg_jct_s,
            f.spot_preemptions,
            cost - spot
        );
        assert_eq!(s.unfinished, 0);
        assert!(f.spot_preemptions > 10, "{}: {f:?}", s.policy);
        assert_eq!((f.interruptions, f.server_failures), (0, 0));
        assert_eq!(f.lost_gpu_hours.preempted, 0.0);
        assert!(
            (spot - 0.918 * spot_hours).abs() < 1e-6 * cost,
            "{}",
            s.policy
        );
        assert!(spot_hours > 0.0 && spot_hours < s.gpu_hours);
    }
}

#[test]
fn a_replay_of_parcaes_trace_stops_a_job_at_each_of_its_167_removals() {
    // Parcae's p3trace on 32 p3.2xlarge (one V100 each) with 40 one-GPU jobs longer than
    // the trace, in rounds of 60 s on the trace's minute grid: every event falls on a
    // round's start, and with more jobs than the trace ever holds (32) every live instance
    // runs a job in every round, a new one from the round it comes up in. So each of the
    // 167 removals takes back a busy instance and stops its job, and the GPU-hours held
    // are the trace's node-hours. The trace's last removal is at its end (40,920 s): the
    // run goes one round past it, in which the 10 instances left are held.
    let Some(dir) = common::reference("faults", "the Parcae replay") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("parcae/p3trace.csv")).expect("the trace");
    let trace = CapacityTrace::parse(&text).expect("a trace");
    assert_eq!(trace.removals(), (79, 167));
    let jobs: String = (0..40).map(|_| "0,100000,1\n").collect();
    let exp = orrery::experiment::Experiment {
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "forty.csv".into(),
            text: format!("timestamp,duration,num_gpus\n{jobs}"),
        },
        until_s: Some(trace.end_s + 60.0),
        spot: [(
            "v100".to_string(),
            orrery::experiment::SpotSource {
                name: "p3trace.csv".into(),
                text,
            },
        )]
        .into(),
        ..common::one_job("v100:32/1", 100_000, 1, 60.0)
    };
    let s = orrery::experiment::run(&exp).unwrap()[0].summary.clone();
    let f = s.faults.clone().expect("spot figures");
    println!(
        "{} spot preemptions, {} GPU-hours ({} node-hours in the trace)",
        f.spot_preemptions,
        s.gpu_hours,
        trace.instance_hours()
    );
    assert_eq!(
        (s.unfinished, f.spot_preemptions, f.interruptions),
        (40, 167, 0)
    );
    assert!(
        (s.gpu_hours - (trace.instance_hours() + 10.0 * 60.0 / 3600.0)).abs() < 1e-9,
        "{}",
        s.gpu_hours
    );
    assert!(
        (s.gpu_hours - 273.12).abs() <= 273.12 * 0.005,
        "{}",
        s.gpu_hours
    );
    // A run to the trace's end stops before its last removal, holding its node-hours.
    let to_end = orrery::experiment::Experiment {
        until_s: Some(trace.end_s),
        ..exp
    };
    let e = orrery::experiment::run(&to_end).unwrap()[0].summary.clone();
    let f = e.faults.clone().expect("spot figures");
    assert_eq!(f.spot_preemptions, 166);
    assert!(
        (e.gpu_hours - trace.instance_hours()).abs() < 1e-9,
        "{}",
        e.gpu_hours
    );
}

/// Two one-GPU jobs of 3,000 s on two V100 instances (one GPU each) whose capacity follows
/// the Parcae trace `text`, in rounds of `round_s` seconds, no restart cost.
fn two_jobs_on_two_spot_instances(text: &str, round_s: f64) -> orrery::metrics::Summary {
    let exp = orrery::experiment::Experiment {
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "two.csv".into(),
            text: "timestamp,duration,num_gpus\n0,3000,1\n0,3000,1\n".into(),
        },
        restart_cost_s: 0.0,
        spot: [(
            "v100".to_string(),
            orrery::experiment::SpotSource {
                name: "swap.csv".into(),
                text: text.into(),
            },
        )]
        .into(),
        ..common::one_job("v100:2/1", 3000, 1, round_s)
    };
    orrery::experiment::run(&exp).unwrap()[0].summary.clone()
}

#[test]
fn an_instance_taken_back_as_another_comes_stops_its_job() {
    // At 1,000 s node b is taken back and node c given: the count stays 2, but the job on
    // the instance taken back (the higher) stops there (after the two-minute warning, in
    // which it writes a checkpoint of 0 s and loses nothing) and starts again on the new
    // one, at the next round's start: 1,080 s with rounds of 360 s (1,000 s falls inside a
    // round), at once with rounds of 100 s (it falls on a round's start).
    let swap = "0,add,a\n0,add,b\n1000000,remove,b\n1000000,add,c\n";
    // A node that comes and goes at once takes nothing back.
    let flicker = "0,add,a\n0,add,b\n1000000,add,c\n1000000,remove,c\n";
    for (round_s, waits) in [(360.0, 80.0), (100.0, 0.0)] {
        let s = two_jobs_on_two_spot_instances(swap, round_s);
        let f = s.faults.clone().expect("spot figures");
        println!(
            "rounds of {round_s} s: {} spot preemptions, {} restarts, avg JCT {} s",
            f.spot_preemptions, s.restarts, s.avg_jct_s
        );
        assert_eq!((s.unfinished, f.spot_preemptions, s.restarts), (0, 1, 1));
        assert_eq!(f.lost_gpu_hours.preempted, 0.0);
        assert!(
            (s.avg_jct_s - (3000.0 + waits / 2.0)).abs() < 1e-6,
            "{}",
            s.avg_jct_s
        );
        let calm = two_jobs_on_two_spot_instances(flicker, round_s);
        let g = calm.faults.clone().expect("spot figures");
        assert_eq!((g.spot_preemptions, calm.restarts), (0, 0));
        assert!((calm.avg_jct_s - 3000.0).abs() < 1e-6, "{}", calm.avg_jct_s);
    }
}

#[test]
fn the_spot_scenarios_process_takes_back_one_instance_as_another_comes_back() {
    // The `spot` scenario's draw (seed 1): 694 falls of the count losing 694 instances, and
    // one instance more taken back in the second another comes back, at 1,128,239 s (day
    // 13, after the scenario's runs end, so its results are those of the count alone).
    let scenario = orrery::experiment::scenarios::SPOT_PROCESS;
    let drawn = CapacityTrace::parse(&scenario.csv(1)).expect("a Parcae trace");
    assert_eq!(
        (drawn.decreases(), drawn.removals()),
        ((694, 694), (695, 695))
    );
    let i = drawn.steps.partition_point(|s| s.0 < 1_128_239.0);
    assert_eq!(
        (drawn.steps[i - 1].1, drawn.steps[i], drawn.removed[i]),
        (7, (1_128_239.0, 7), 1)
    );
}
