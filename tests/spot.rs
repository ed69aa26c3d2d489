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
    // Removals: the trace's 167 (several events share a time, so the count's falls are
    // fewer than its removals).
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
