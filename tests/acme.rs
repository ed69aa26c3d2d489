//! Acme's job traces (Seren and Kalos) on the five real head rows of each in
//! ../shared/reference/faults/acme: states, times, the files' own `duration` and `gpu_time`
//! against their times, the trace of their GPU jobs, `orrery import-acme`, and the Kalos
//! file given straight to `--trace`.

use crate::cli::{json, ok, Temp};
use crate::common;
use orrery::workload::acme::{read_acme, AcmeSampling, AcmeSchema, AcmeTable};
use std::path::PathBuf;

fn head(name: &str, what: &str) -> Option<(PathBuf, AcmeTable)> {
    let p = common::reference("faults", what)?.join("acme").join(name);
    let text = std::fs::read_to_string(&p).expect("a reference file");
    let t = read_acme(&text, name).expect("an Acme job table");
    Some((p, t))
}

#[test]
fn kalos_head_rows() {
    let Some((_, t)) = head("trace_kalos.head5.csv", "the Kalos head rows") else {
        return;
    };
    assert_eq!(t.schema, AcmeSchema::Kalos);
    assert_eq!((t.rows, t.cpu_jobs, t.jobs.len()), (5, 0, 5));
    let states: Vec<&str> = t.jobs.iter().map(|j| j.state.as_str()).collect();
    assert_eq!(
        states,
        ["FAILED", "FAILED", "CANCELLED", "COMPLETED", "COMPLETED"]
    );
    for j in &t.jobs {
        let failed = j.state == "FAILED";
        let cancelled = j.state == "CANCELLED";
        // fail_time exactly on FAILED jobs, at their end; stop_time on the CANCELLED one.
        assert_eq!(j.fail_s.is_some(), failed, "line {}", j.line);
        assert_eq!(j.stop_s.is_some(), cancelled, "line {}", j.line);
        if failed {
            assert_eq!(j.fail_s, j.end_s);
        }
        if cancelled {
            assert_eq!(j.stop_s, j.end_s);
        }
        assert_eq!((j.node_num, j.gpu_num), (Some(8), 64));
        // duration = queue + (end - start): the queue is in it; gpu_time = duration x GPUs.
        let (d, q, run) = (
            j.duration_s.unwrap(),
            j.queue_s.unwrap(),
            j.run_s().unwrap(),
        );
        assert_eq!(d, q + run, "line {}", j.line);
        assert_eq!(q, j.start_s.unwrap() - j.submit_s.unwrap());
        assert_eq!(j.gpu_time, Some(d * 64.0));
    }
    let runs: Vec<f64> = t.jobs.iter().filter_map(|j| j.run_s()).collect();
    assert_eq!(runs, [8.0, 6.0, 70.0, 92.0, 70.0]);

    let s = t.summary();
    let states: Vec<(&str, usize)> = s.states.iter().map(|(n, v)| (n.as_str(), v.jobs)).collect();
    assert_eq!(states, [("COMPLETED", 2), ("FAILED", 2), ("CANCELLED", 1)]);
    assert_eq!((s.failed.jobs, s.failed.gpu_s), (2, 64.0 * 14.0));
    assert_eq!(
        (
            s.failed_with_fail_time,
            s.failed_at_end,
            s.fail_time_elsewhere
        ),
        (2, 2, 0)
    );
    assert_eq!(
        (
            s.duration_rows,
            s.duration_is_run,
            s.duration_is_queue_and_run
        ),
        (5, 0, 5)
    );
    assert_eq!((s.gpu_time_rows, s.gpu_time_is_duration_x_gpus), (5, 5));
    assert_eq!(s.node_fail.jobs, 0);
    assert!((s.node_days - 8.0 * 246.0 / 86_400.0).abs() < 1e-15);

    // The trace: run time, not the recorded duration; arrivals from the first submission.
    let trace = t.trace(&AcmeSampling::default()).unwrap();
    let got: Vec<(f64, f64, u32)> = trace
        .jobs
        .iter()
        .map(|j| (j.arrival, j.total_steps, j.scale_factor))
        .collect();
    assert_eq!(
        got,
        [
            (0.0, 8.0, 64),
            (1_234.0, 6.0, 64),
            (1_664.0, 70.0, 64),
            (1_755.0, 92.0, 64),
            (2_068.0, 70.0, 64)
        ]
    );
    assert!(trace
        .jobs
        .iter()
        .all(|j| j.entity() == "uf794" && j.job_type == "Other"));
}

#[test]
fn kalos_head_rows_given_to_trace_run_end_minus_start() {
    let Some((p, _)) = head("trace_kalos.head5.csv", "--trace of the Kalos head rows") else {
        return;
    };
    // Kalos' duration column holds the queue too (18, 19, 82, 104, 78 s): as a trace, each
    // job runs end - start, as import-acme's trace does.
    let text = std::fs::read_to_string(&p).unwrap();
    let trace = orrery::workload::Trace::parse(&text, "trace_kalos.head5.csv").unwrap();
    let steps: Vec<f64> = trace.jobs.iter().map(|j| j.total_steps).collect();
    assert_eq!(steps, [8.0, 6.0, 70.0, 92.0, 70.0]);
    let run = json(&ok(&[
        "run",
        "--trace",
        p.to_str().unwrap(),
        "--cluster",
        "a100:128/8",
        "--policy",
        "fifo",
        "--no-fairness",
        "--format",
        "json",
    ]));
    assert_eq!(
        (run["num_jobs"].as_u64(), run["unfinished"].as_u64()),
        (Some(5), Some(0))
    );
    let want = 64.0 * (8.0 + 6.0 + 70.0 + 92.0 + 70.0) / 3600.0;
    assert!(
        (run["gpu_hours"].as_f64().unwrap() - want).abs() < 1e-6,
        "{run}"
    );
}

#[test]
fn seren_head_rows() {
    let Some((_, t)) = head("trace_seren.head5.csv", "the Seren head rows") else {
        return;
    };
    assert_eq!(t.schema, AcmeSchema::Seren);
    assert_eq!(t.jobs.len(), 5);
    for j in &t.jobs {
        // duration = end - start, gpu_time = duration x GPUs; no fail_time column.
        assert_eq!(j.duration_s, j.run_s(), "line {}", j.line);
        assert_eq!(
            j.gpu_time,
            Some(j.duration_s.unwrap() * f64::from(j.gpu_num))
        );
        assert_eq!(j.queue_s, Some(j.start_s.unwrap() - j.submit_s.unwrap()));
        assert_eq!((j.fail_s, j.stop_s), (None, None));
    }
    let nodes: Vec<(Option<u32>, u32)> = t.jobs.iter().map(|j| (j.node_num, j.gpu_num)).collect();
    assert_eq!(
        nodes,
        [
            (Some(1), 8),
            (Some(1), 8),
            (Some(1), 8),
            (Some(2), 16),
            (Some(4), 32)
        ]
    );
    // +08:00 is taken away: the first submission is 2023-02-28 16:18:22 UTC.
    assert_eq!(t.jobs[0].submit_s, Some(1_677_601_102.0));
    let s = t.summary();
    assert_eq!(
        (
            s.failed.jobs,
            s.duration_is_run,
            s.duration_is_queue_and_run
        ),
        (3, 5, 0)
    );
    assert_eq!(s.failed_with_fail_time, 0);
    assert_eq!(s.failed.gpu_s, 8.0 * (117.0 + 35_019.0) + 16.0 * 46.0);
    let node_s = 117.0 + 2_693.0 + 35_019.0 + 2.0 * 46.0 + 4.0 * 57_202.0;
    assert!((s.node_days - node_s / 86_400.0).abs() < 1e-12);
    assert_eq!(s.failed_per_node_day, Some(3.0 / s.node_days));
    let trace = t.trace(&AcmeSampling::default()).unwrap();
    let steps: Vec<f64> = trace.jobs.iter().map(|j| j.total_steps).collect();
    assert_eq!(steps, [117.0, 2_693.0, 35_019.0, 46.0, 57_202.0]);
    let arrivals: Vec<f64> = trace.jobs.iter().map(|j| j.arrival).collect();
    assert_eq!(arrivals, [0.0, 336.0, 1_529.0, 1_784.0, 2_019.0]);
}

#[test]
fn import_acme_prints_states_and_failures_and_its_trace_runs() {
    let Some((p, _)) = head("trace_kalos.head5.csv", "orrery import-acme") else {
        return;
    };
    let out = Temp::new("acme-trace", "csv");
    let report = ok(&["import-acme", p.to_str().unwrap(), "--out", out.s()]);
    for want in [
        "(Kalos schema): 5 rows, 5 GPU jobs, 0 CPU jobs",
        "FAILED                         2 jobs, 0.2 GPU-hours (user and framework errors included)",
        "duration = queue + run         5 of 5 rows",
        "gpu_time = duration x gpu_num  5 of 5 rows",
        "2 of the 2 FAILED jobs with a fail_time end then",
        "trace: 5 jobs, run time end - start (left out: none)",
    ] {
        assert!(report.contains(want), "{want}:\n{report}");
    }
    let trace = std::fs::read_to_string(out.path()).unwrap();
    assert_eq!(trace.lines().nth(1), Some("Other,0,8,64,1,,uf794"));
    let run = json(&ok(&[
        "run",
        "--trace",
        out.s(),
        "--profile-free",
        "--cluster",
        "a100:128/8",
        "--policy",
        "fifo",
        "--no-fairness",
        "--format",
        "json",
    ]));
    assert_eq!(run["num_jobs"], 5);
    assert_eq!(run["unfinished"], 0);
    let want = 64.0 * (8.0 + 6.0 + 70.0 + 92.0 + 70.0) / 3600.0;
    assert!(
        (run["gpu_hours"].as_f64().unwrap() - want).abs() < 1e-6,
        "{run}"
    );
}

#[test]
fn import_acme_samples_and_writes_json() {
    let Some((p, _)) = head("trace_seren.head5.csv", "orrery import-acme --max-jobs") else {
        return;
    };
    let text = ok(&[
        "import-acme",
        p.to_str().unwrap(),
        "--max-jobs",
        "2",
        "--seed",
        "3",
        "--format",
        "json",
    ]);
    let v = json(&text);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["arrival_s"], 0.0);
}
