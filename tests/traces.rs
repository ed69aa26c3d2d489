//! Cluster traces known by duration and GPU count: Philly's job log, the job tables of
//! Helios and Acme, and Philly as Sia's artifact processed it. Small samples in tests/data
//! (invented rows in each published format) with hand-computed values; detection beside
//! the other formats; errors naming file, line and field; the filters; the two ways such
//! jobs run (profile-free, or with job types drawn from a profile); and Sia's processed
//! Philly trace (../shared/reference/sia/philly.csv; SKIPPED when absent).

use crate::common;
use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use orrery::workload::dates::{format_time, parse_time};
use orrery::workload::timed::TimedFormat;
use orrery::workload::{presets, TimePoint, Trace, TraceFilter, TraceStats, WorkloadError};
use std::path::PathBuf;

/// The text of a sample in tests/data.
fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn sample(name: &str) -> Trace {
    Trace::parse(&data(name), name).unwrap()
}

/// (arrival, duration, GPUs, entity) of each job.
fn jobs(t: &Trace) -> Vec<(f64, f64, u32, Option<&str>)> {
    t.jobs
        .iter()
        .map(|j| {
            (
                j.arrival,
                j.total_steps,
                j.scale_factor,
                j.entity.as_deref(),
            )
        })
        .collect()
}

fn statuses(t: &Trace) -> Vec<&str> {
    t.origin
        .as_ref()
        .map(|o| o.statuses.iter().map(String::as_str).collect())
        .unwrap_or_default()
}

fn dropped(t: &Trace) -> Vec<(&str, usize)> {
    t.origin
        .as_ref()
        .map(|o| {
            o.dropped
                .iter()
                .map(|d| (d.reason.as_str(), d.rows))
                .collect()
        })
        .unwrap_or_default()
}

fn start(t: &Trace) -> String {
    format_time(t.origin.as_ref().unwrap().start_s)
}

#[test]
fn philly_job_log() {
    let t = sample("philly_cluster_job_log.json");
    assert_eq!(t.origin.as_ref().unwrap().format, TimedFormat::PhillyJobLog);
    // Submitted 08:05 (330 s, 1 GPU), 09:00 (3600 s, 2), 09:20 (attempts 09:30-09:40 and
    // 09:45-11:45: 8100 s on the last attempt's 16 GPUs), next day 00:58 (120 s, 4).
    assert_eq!(
        jobs(&t),
        [
            (0.0, 330.0, 1, Some("5a3f1c")),
            (3300.0, 3600.0, 2, Some("5a3f1c")),
            (4500.0, 8100.0, 16, Some("9d0e7b")),
            (60_780.0, 120.0, 4, Some("9d0e7b")),
        ]
    );
    assert_eq!(t.lines, [62, 2, 21, 100]);
    assert_eq!(statuses(&t), ["Pass", "Pass", "Killed", "Failed"]);
    assert_eq!(start(&t), "2017-10-02 08:05:00");
    assert!(t.jobs.iter().all(|j| j.job_type == "philly"));
    assert_eq!(
        dropped(&t),
        [
            ("without attempts", 1),
            ("still running at the end of the log", 1)
        ]
    );
    let s = TraceStats::of(&t);
    assert_eq!((s.jobs, s.rows), (4, Some(6)));
    // (330 + 7200 + 129600 + 480) GPU-seconds.
    assert!((s.gpu_hours.unwrap() - 137_610.0 / 3600.0).abs() < 1e-9);
}

#[test]
fn sia_philly_csv() {
    let t = sample("philly_sia.csv");
    assert_eq!(t.origin.as_ref().unwrap().format, TimedFormat::PhillyCsv);
    // Two jobs at 09:00 keep file order; the last one is the next day at 14:00.
    assert_eq!(
        jobs(&t),
        [
            (0.0, 3600.0, 4, Some("c0ffee")),
            (0.0, 45.0, 1, Some("7b21aa")),
            (1800.0, 600.0, 2, Some("7b21aa")),
            (4500.0, 120.0, 1, Some("7b21aa")),
            (104_400.0, 86_400.0, 8, Some("c0ffee")),
        ]
    );
    assert_eq!(t.lines, [3, 6, 4, 2, 5]);
    assert_eq!(statuses(&t), ["", "", "", "", ""]);
    assert_eq!(start(&t), "2017-10-04 09:00:00");
    let s = TraceStats::of(&t);
    assert!((s.gpu_hours.unwrap() - 706_965.0 / 3600.0).abs() < 1e-9);
    assert!(s.by_status.is_empty());
    // Durations 45, 120, 600, 3600 and 86,400 s: the median is 600 s, and a quarter of
    // the jobs take at most 120 s.
    assert_eq!(s.work_quantiles[100], 600.0);
    assert_eq!(s.work_quantiles[50], 120.0);
}

#[test]
fn helios_cluster_log() {
    let t = sample("helios_cluster_log.csv");
    assert_eq!(t.origin.as_ref().unwrap().format, TimedFormat::Helios);
    assert_eq!(
        jobs(&t),
        [
            (0.0, 3600.0, 1, Some("vcAlpha")),
            (120.0, 120.0, 8, Some("vcAlpha")),
            (3600.0, 21_600.0, 16, Some("vcBeta")),
            (84_600.0, 7200.0, 4, Some("vcAlpha")),
        ]
    );
    assert_eq!(t.lines, [2, 4, 5, 7]);
    assert_eq!(
        statuses(&t),
        ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"]
    );
    assert_eq!(
        dropped(&t),
        [("without GPUs", 1), ("of no positive duration", 1)]
    );
    assert!(t.jobs.iter().all(|j| j.job_type == "helios"));
}

#[test]
fn acme_job_traces() {
    let t = sample("acme_trace_seren.csv");
    assert_eq!(t.origin.as_ref().unwrap().format, TimedFormat::Acme);
    // +08:00 times, read as UTC; the job type is Acme's `type`; no virtual cluster.
    assert_eq!(start(&t), "2023-02-28 16:05:00");
    assert_eq!(
        jobs(&t),
        [
            (0.0, 100.0, 2, None),
            (300.0, 7200.0, 8, None),
            (900.0, 120.0, 1, None),
            (3300.0, 10_800.0, 32, None),
        ]
    );
    let types: Vec<&str> = t.jobs.iter().map(|j| j.job_type.as_str()).collect();
    assert_eq!(types, ["Debug", "Pretrain", "Evaluation", "SFT"]);
    assert_eq!(t.lines, [6, 2, 3, 5]);
    assert_eq!(dropped(&t), [("without GPUs", 1)]);

    let k = sample("acme_trace_kalos.csv");
    assert_eq!(k.origin.as_ref().unwrap().format, TimedFormat::Acme);
    assert_eq!(
        jobs(&k),
        [
            (0.0, 1800.0, 16, None),
            (300.0, 600.0, 8, None),
            (3600.0, 60.0, 8, None)
        ]
    );
    assert_eq!(statuses(&k), ["FAILED", "COMPLETED", "CANCELLED"]);
    assert_eq!(start(&k), "2023-05-20 10:00:00");
}

#[test]
fn detection_leaves_the_other_formats_alone() {
    for (name, format) in [
        ("philly_cluster_job_log.json", TimedFormat::PhillyJobLog),
        ("philly_sia.csv", TimedFormat::PhillyCsv),
        ("helios_cluster_log.csv", TimedFormat::Helios),
        ("acme_trace_seren.csv", TimedFormat::Acme),
        ("acme_trace_kalos.csv", TimedFormat::Acme),
    ] {
        let text = data(name);
        assert!(Trace::is_timed_text(&text), "{name}");
        assert_eq!(sample(name).origin.unwrap().format, format, "{name}");
        // Columns in another order, extra columns, a byte-order mark, CRLF.
        if name.ends_with(".csv") {
            let mut rows: Vec<Vec<String>> = text
                .lines()
                .map(|l| l.split(',').map(str::to_string).collect())
                .collect();
            for r in &mut rows {
                r.reverse();
                r.push("extra".into());
            }
            let moved: String = rows.iter().map(|r| r.join(",") + "\r\n").collect();
            let again = Trace::parse(&format!("\u{feff}{moved}"), name).unwrap();
            assert_eq!(again.jobs, sample(name).jobs, "{name}");
        }
    }
    let others = [
        (presets::TRACES[0].text.to_string(), "bundled"),
        (
            "job_type,arrival_s,total_steps\nResNet-18 (batch size 64),0,100\n".to_string(),
            "orrery.csv",
        ),
        (
            "[{\"job_type\": \"A\", \"arrival_s\": 0, \"total_steps\": 5}]".to_string(),
            "orrery.json",
        ),
        (
            "ResNet-18 (batch size 64)\tpython3 main.py\tx\t--num_steps\t1\t100\t1\t1\t-1\t0\n"
                .to_string(),
            "g.trace",
        ),
        (
            "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n"
                .to_string(),
            "pollux.csv",
        ),
    ];
    for (text, name) in others {
        assert!(!Trace::is_timed_text(&text), "{name}");
        let t = Trace::parse(&text, name).unwrap();
        assert!(t.origin.is_none(), "{name}");
    }
}

fn field_error(e: WorkloadError) -> (String, usize, String) {
    match e {
        WorkloadError::Field {
            file, line, field, ..
        } => (file, line, field),
        other => panic!("expected a field error, got {other}"),
    }
}

#[test]
fn errors_name_file_line_and_field() {
    let cases = [
        (
            "helios_cluster_log.csv",
            "vcBeta,16,",
            "vcBeta,sixteen,",
            5,
            "gpu_num",
        ),
        (
            "helios_cluster_log.csv",
            "2020-07-02 07:30:00,",
            "2020-07-02 7:30,",
            7,
            "submit_time",
        ),
        (
            "acme_trace_seren.csv",
            ",120,10,",
            ",2 min,10,",
            3,
            "duration",
        ),
        (
            "philly_sia.csv",
            "2017-10-04 09:30:00",
            "Oct 4 2017",
            4,
            "timestamp",
        ),
        (
            "philly_cluster_job_log.json",
            "\"end_time\": \"2017-10-02 11:45:00\"",
            "\"end_time\": \"2017-10-02T11:45:00+0x\"",
            38,
            "attempts[1].end_time",
        ),
        (
            "philly_cluster_job_log.json",
            "\"gpus\": [\"gpu3\"]",
            "\"gpus\": \"gpu3\"",
            73,
            "attempts[0].detail[0].gpus",
        ),
    ];
    for (name, from, to, line, field) in cases {
        let text = data(name);
        assert!(text.contains(from), "{name}: {from}");
        let e = Trace::parse(&text.replacen(from, to, 1), name).unwrap_err();
        assert_eq!(
            field_error(e),
            (name.to_string(), line, field.to_string()),
            "{name}: {to}"
        );
    }
    // Rows of the wrong width, a missing column, nothing to run.
    let text = data("helios_cluster_log.csv").replacen(",3600,5\n", ",3600\n", 1);
    let e = field_error(Trace::parse(&text, "h.csv").unwrap_err());
    assert_eq!(e, ("h.csv".into(), 2, "row".into()));
    let e = Trace::parse("job_id,vc,gpu_num,submit_time\n1,a,1,5\n", "h.csv").unwrap_err();
    assert_eq!(field_error(e), ("h.csv".into(), 1, "duration".into()));
    let e = Trace::parse(
        "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-04,0,1,0,a\n",
        "s.csv",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "s.csv: none of its 1 jobs can run: 1 of no positive duration"
    );
}

fn filter() -> TraceFilter {
    TraceFilter::default()
}

#[test]
fn filters_hand_checked() {
    let helios = || sample("helios_cluster_log.csv");
    // Status, any case: COMPLETED (line 2) and TIMEOUT (line 7).
    let f = TraceFilter {
        statuses: vec!["completed".into(), "Timeout".into()],
        ..filter()
    };
    let t = f.apply(helios(), 0).unwrap();
    assert_eq!(t.lines, [2, 7]);
    assert_eq!(t.jobs[1].arrival, 84_600.0);
    // vcAlpha submitted from 08:01 on the first day: lines 4 and 7, re-based.
    let f = TraceFilter {
        vcs: vec!["vcAlpha".into()],
        from: Some(TimePoint::Date("2020-07-01 08:01:00".into())),
        ..filter()
    };
    let t = f.apply(helios(), 0).unwrap();
    assert_eq!(t.lines, [4, 7]);
    assert_eq!((t.jobs[0].arrival, t.jobs[1].arrival), (0.0, 84_480.0));
    assert_eq!(start(&t), "2020-07-01 08:02:00");
    // The first hour in seconds: lines 2 and 4 (09:00 is excluded).
    let f = TraceFilter {
        to: Some(TimePoint::Seconds(3600.0)),
        ..filter()
    };
    assert_eq!(f.apply(helios(), 0).unwrap().lines, [2, 4]);
    // Philly statuses; the vc filter of Sia's CSV is its `cluster` column.
    let f = TraceFilter {
        statuses: vec!["pass".into()],
        ..filter()
    };
    let t = f.apply(sample("philly_cluster_job_log.json"), 0).unwrap();
    assert_eq!(t.lines, [62, 2]);
    let f = TraceFilter {
        vcs: vec!["c0ffee".into()],
        ..filter()
    };
    let t = f.apply(sample("philly_sia.csv"), 0).unwrap();
    assert_eq!(t.lines, [3, 5]);
    // Sia's CSV records no status; Acme no virtual cluster.
    let f = TraceFilter {
        statuses: vec!["Pass".into()],
        ..filter()
    };
    let e = f.apply(sample("philly_sia.csv"), 0).unwrap_err();
    assert!(e.to_string().contains("no job status"), "{e}");
    let f = TraceFilter {
        vcs: vec!["x".into()],
        ..filter()
    };
    let e = f.apply(sample("acme_trace_seren.csv"), 0).unwrap_err();
    assert!(e.to_string().contains("no virtual cluster"), "{e}");
    // A sample of 2 of the 4: seeded, in arrival order.
    let f = TraceFilter {
        max_jobs: Some(2),
        ..filter()
    };
    let a = f.apply(helios(), 11).unwrap();
    assert_eq!(a.jobs.len(), 2);
    assert_eq!(a, f.apply(helios(), 11).unwrap());
    assert!(a.lines[0] < a.lines[1]);
    assert_eq!(a.jobs[0].arrival, 0.0);
}

/// An experiment of sample `name` on `cluster` with FIFO and no isolated baseline.
fn experiment(name: &str, cluster: &str, profile: ProfileSource) -> Experiment {
    Experiment {
        cluster: cluster.into(),
        workload: WorkloadSource::Inline {
            name: name.into(),
            text: data(name),
        },
        profile,
        policies: vec!["fifo".into()],
        fairness: false,
        ..Experiment::default()
    }
}

#[test]
fn profile_free_jobs_run_for_their_durations_on_any_type() {
    let exp = experiment("philly_sia.csv", "a:8/8,b:8/8", ProfileSource::ProfileFree);
    let r = exp.resolve().unwrap();
    assert!(
        r.notes.iter().any(|n| n.starts_with("profile-free")),
        "{:?}",
        r.notes
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let results = orrery::experiment::run(&exp).unwrap();
    let rec = &results[0].recorder;
    assert_eq!(rec.jobs.len(), 5);
    for (j, spec) in rec.jobs.iter().zip(&r.trace.jobs) {
        // One step per second: trained for exactly its traced duration, on either type.
        assert!((j.train_s - spec.total_steps).abs() < 1e-6, "{j:?}");
        assert!(j.finish.is_some());
    }
    // Sampled job types need a profile; the generator cannot run profile-free.
    let mut gen = exp.clone();
    gen.workload = WorkloadSource::Generated(Default::default());
    assert!(gen.resolve().is_err());
}

#[test]
fn job_types_drawn_from_a_profile() {
    let gavel = ProfileSource::Preset {
        name: "gavel-types".into(),
    };
    let exp = experiment("philly_sia.csv", "v100:8,p100:8,k80:8", gavel.clone());
    let r = exp.resolve().unwrap();
    let profile = presets::profile("gavel-types").unwrap();
    let durations = [3600.0, 45.0, 600.0, 120.0, 86_400.0];
    for (j, d) in r.trace.jobs.iter().zip(durations) {
        let best = ["v100", "p100", "k80"]
            .iter()
            .filter_map(|g| profile.throughput(&j.job_type, j.scale_factor, g))
            .fold(0.0, f64::max);
        assert!(best > 0.0, "{} at {}", j.job_type, j.scale_factor);
        assert!((j.total_steps - d * best).abs() < 1e-6 * j.total_steps);
    }
    assert!(
        r.notes.iter().any(|n| n.contains("job types drawn")),
        "{:?}",
        r.notes
    );
    // The draw follows the experiment's seed.
    let types = |seed: u64| {
        let e = Experiment {
            seed,
            ..exp.clone()
        };
        let r = e.resolve().unwrap();
        r.trace
            .jobs
            .iter()
            .map(|j| j.job_type.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(types(0), types(0));
    assert!((1..10).any(|s| types(s) != types(0)));
    // Jobs at GPU counts the profile lacks are left out with a warning (16 and 32 GPUs).
    let exp = experiment("helios_cluster_log.csv", "v100:64,p100:64", gavel);
    let r = exp.resolve().unwrap();
    assert_eq!(r.trace.lines, [2, 4, 7]);
    assert!(
        r.warnings.iter().any(|w| w.contains("1 at 16 GPUs")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn the_trace_as_read_keeps_durations_whatever_the_profile() {
    // Profile-free, the trace as read is the trace as run (with the filter and the load).
    let mut exp = experiment("philly_sia.csv", "gpu:16/8", ProfileSource::ProfileFree);
    exp.trace_filter = Some(TraceFilter {
        vcs: vec!["7b21aa".into()],
        ..filter()
    });
    exp.load_factor = 2.0;
    let read = exp.read_trace().unwrap().expect("a trace workload");
    let r = exp.resolve().unwrap();
    assert_eq!(read.jobs.len(), 3);
    assert_eq!(TraceStats::of(&read), TraceStats::of(&r.trace));
    assert_eq!(read.jobs[2].arrival, 4500.0 / 2.0);
    // With a profile the jobs run in steps of drawn job types; as read they keep seconds.
    let gavel = ProfileSource::Preset {
        name: "gavel-types".into(),
    };
    let exp = experiment("philly_sia.csv", "v100:8,p100:8", gavel);
    let s = TraceStats::of(&exp.read_trace().unwrap().unwrap());
    assert!((s.gpu_hours.unwrap() - 706_965.0 / 3600.0).abs() < 1e-9);
    assert_ne!(s, TraceStats::of(&exp.resolve().unwrap().trace));
    // A generated workload has no trace to read; a bundled one does.
    let mut gen = exp.clone();
    gen.workload = WorkloadSource::Generated(Default::default());
    assert_eq!(gen.read_trace().unwrap(), None);
    let bundled = Experiment::default()
        .read_trace()
        .unwrap()
        .expect("the default trace");
    assert_eq!(
        bundled.jobs.len(),
        presets::trace("default").unwrap().jobs.len()
    );
}

#[test]
fn share_link_carries_the_filter_and_profile_free() {
    let mut exp = experiment(
        "helios_cluster_log.csv",
        "gpu:64/8",
        ProfileSource::ProfileFree,
    );
    exp.trace_filter = Some(TraceFilter {
        from: Some(TimePoint::Date("2020-07-01 08:01:00".into())),
        statuses: vec!["FAILED".into(), "TIMEOUT".into()],
        max_jobs: Some(5),
        ..filter()
    });
    let back = Experiment::from_link(&exp.to_link("http://x/")).unwrap();
    assert_eq!(back, exp);
    let json = exp.to_json();
    assert!(json.contains("\"kind\": \"profile_free\""), "{json}");
    let r = back.resolve().unwrap();
    assert_eq!(r.trace.lines, [4, 7]);
    assert!(r.notes[0].contains("2 of 4 jobs kept"), "{:?}", r.notes);
}

#[test]
fn sia_processed_philly_trace() {
    let Some(dir) = common::reference("sia", "Sia's processed Philly trace") else {
        return;
    };
    let path = dir.join("philly.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let t = Trace::parse(&text, "philly.csv").unwrap();
    assert_eq!(t.jobs.len(), 82_247);
    assert_eq!(t.origin.as_ref().unwrap().rows, 82_247);
    let s = TraceStats::of(&t);
    // Sia's README: 978,078 GPU-hours, September to December 2017.
    let h = s.gpu_hours.unwrap();
    assert!((h - 978_078.0).abs() < 1.0, "{h}");
    assert!(s.first_arrival.as_deref().unwrap().starts_with("2017-09"));
    assert!(s.last_arrival.as_deref().unwrap().starts_with("2017-12"));
    assert_eq!(s.by_gpus.iter().map(|g| g.jobs).sum::<usize>(), 82_247);
    assert_eq!(s.by_gpus[0].gpus, 1);
    assert!(s.by_gpus[0].jobs > 70_000, "{:?}", s.by_gpus[0]);
    assert_eq!(s.per_hour.iter().sum::<usize>(), 82_247);
    assert!(s.work.min >= 1.0 && s.work.p50 > 60.0 && s.work.p50 < 3600.0);
    // The quantiles of the durations' CDF: from the shortest to the longest job.
    let q = &s.work_quantiles;
    assert_eq!(q.len(), 201);
    assert_eq!((q[0], q[100], q[200]), (s.work.min, s.work.p50, s.work.max));
    assert!(s.by_vc.len() > 10);
    // Arrivals in order from 0; the first submission is the file's earliest timestamp.
    assert!(t.jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let earliest = text
        .lines()
        .skip(1)
        .filter_map(|l| parse_time(l.split(',').next()?))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(t.origin.as_ref().unwrap().start_s, earliest);
    // A week of it, sampled, runs profile-free.
    let exp = Experiment {
        cluster: "gpu:2496/8".into(),
        workload: WorkloadSource::Inline {
            name: "philly.csv".into(),
            text,
        },
        profile: ProfileSource::ProfileFree,
        policies: vec!["fifo".into()],
        fairness: false,
        trace_filter: Some(TraceFilter {
            from: Some(TimePoint::Date("2017-10-02".into())),
            to: Some(TimePoint::Date("2017-10-09".into())),
            max_jobs: Some(300),
            ..filter()
        }),
        ..Experiment::default()
    };
    let results = orrery::experiment::run(&exp).unwrap();
    assert_eq!(results[0].summary.num_jobs, 300);
}
