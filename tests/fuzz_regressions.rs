//! Inputs the fuzz targets (fuzz/) found to crash, hang or allocate without bound, each
//! inlined with what reading it must now give: a clear error, within the input limits.

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
