//! Inputs that made reading or resolving crash, stall or allocate without bound (those the
//! fuzz targets in fuzz/ found, and the limits added beside them), each inlined with what
//! it must now give: a clear error naming the limit.

use orrery::workload::{Trace, TraceStats};

/// A Sia-style Philly CSV with one job in the year 4034: the trace's statistics binned its
/// arrivals by the hour over 2,000 years (17.6 million bins, then sorted). Arrivals past
/// 100 years are refused.
#[test]
fn trace_arrivals_past_the_limit_are_refused() {
    let text = "timestamp,duration,num_gpus,gpu_time,cluster\n\
                4034-10-04 10:15:00,120.0,1,120.0,7b21aa\n\
                2017-10-04 09:00:00,3600.0,4,14400.0,c0ffee\n\
                2017-10-04 09:30:00,600.0,2,1200.0,7b21aa\n\
                2017-10-05 14:00:00,86400.0,8,691200.0,c0ffee\n\
                2017-10-04 09:00:00,45.0,1,45.0,7b21aa\n";
    let err = Trace::parse(text, "philly.csv").unwrap_err().to_string();
    assert!(
        err.starts_with("philly.csv:2: field 'arrival_s'") && err.contains("100 years"),
        "{err}"
    );
    // The same within the limit reads, and its statistics are quick to compute.
    let ok = text.replace("4034-10-04", "2018-10-04");
    let t = Trace::parse(&ok, "philly.csv").unwrap();
    assert_eq!(TraceStats::of(&t).jobs, 5);
    let csv = "job_type,arrival_s,total_steps\na,0,10\na,1e12,10\n";
    let err = Trace::parse(csv, "t.csv").unwrap_err().to_string();
    assert!(err.starts_with("t.csv:3: field 'arrival_s'"), "{err}");
}

/// A job of 10^18 steps: its simulation would step through billions of rounds. A job that
/// runs for more than 10 years alone on its fastest GPU type is refused when the experiment
/// is resolved, naming the limit.
#[test]
fn jobs_longer_than_the_limit_are_refused() {
    use orrery::experiment::{Experiment, WorkloadSource};
    let exp = |steps: &str| Experiment {
        workload: WorkloadSource::Inline {
            name: "t.csv".into(),
            text: format!("job_type,arrival_s,total_steps\nResNet-18 (batch size 64),0,{steps}\n"),
        },
        ..Experiment::default()
    };
    let err = exp("1e18").resolve().unwrap_err().to_string();
    assert!(
        err.starts_with("t.csv:2: field 'total_steps'") && err.contains("10 years"),
        "{err}"
    );
    exp("1e6").resolve().unwrap();
}

/// A cluster of 4,295 types of 1,000,000 GPUs each: their total overflowed a `u32` (a panic
/// with overflow checks, a wrapped count without). At most 10,000,000 GPUs in all.
#[test]
fn clusters_past_the_total_limit_are_refused() {
    use orrery::model::cluster::ClusterSpec;
    let spec: Vec<String> = (0..4295).map(|i| format!("t{i}:1000000")).collect();
    let err = ClusterSpec::parse(&spec.join(",")).unwrap_err().to_string();
    assert!(err.contains("at most 10,000,000 GPUs in all"), "{err}");
    let ok: Vec<String> = (0..10).map(|i| format!("t{i}:1000000")).collect();
    assert_eq!(
        ClusterSpec::parse(&ok.join(",")).unwrap().total_gpus(),
        10_000_000
    );
}
