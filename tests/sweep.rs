//! `orrery sweep` and `orrery sweep merge`: the grid's order, shards that merge into exactly
//! the whole sweep, merges refused, sweeps of every family, and a cell against `orrery run`.

use crate::cli::{bad, json, ok, stderr, stdout, Temp, SMALL_CLUSTER};
use std::process::Command;

/// A small sweep (12 cells of 12 generated jobs) that runs in a second.
const SMALL: &[&str] = &[
    "sweep",
    "--policy",
    "las",
    "--policy",
    "fifo",
    "--policy",
    "srtf",
    "--num-jobs",
    "12",
    "--rates",
    "4",
    "--loads",
    "2,1",
    "--seeds",
    "0..2",
    "--cluster",
    SMALL_CLUSTER,
];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn run(args: &[String]) -> String {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&a)
}

/// Run with `threads` rayon threads.
fn run_threads(args: &[&str], threads: usize) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .output()
        .expect("the orrery binary runs");
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The first field of every row (the cell).
fn cells(out: &str) -> Vec<usize> {
    out.lines()
        .skip(2)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn rows_come_in_the_grid_order_whatever_the_threads() {
    let out = run_threads(SMALL, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("# orrery sweep 1; fingerprint=")
            && lines[0].ends_with(
                "; cells=12; grid=3 policies x 1 cluster x 1 cluster scale x 1 rate x 2 loads x 2 seeds"
            ),
        "{}",
        lines[0]
    );
    assert_eq!(
        lines[1],
        "cell,policy,cluster,cluster_scale,jobs_per_hour,load,seed,num_jobs,unfinished,avg_jct_s,median_jct_s,p95_jct_s,p99_jct_s,makespan_s,avg_wait_s,p99_wait_s,utilization,max_rho,mean_rho,jain_index,restarts,preemptions,gpu_hours,time_lost_s,policy_failures"
    );
    // Policy-major, then load (sorted), then seed; the cluster in its canonical form.
    let keys: Vec<String> = lines[2..]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!("{} {} {} {}", f[0], f[1], f[7], f[8])
        })
        .collect();
    assert_eq!(
        keys,
        [
            "0 las 1 0",
            "1 las 1 1",
            "2 las 2 0",
            "3 las 2 1",
            "4 fifo 1 0",
            "5 fifo 1 1",
            "6 fifo 2 0",
            "7 fifo 2 1",
            "8 srtf 1 0",
            "9 srtf 1 1",
            "10 srtf 2 0",
            "11 srtf 2 1"
        ]
    );
    assert!(lines[2].starts_with("0,las,\"v100:4,p100:4,k80:4\",1,4,1,0,12,0,"));
    assert!(lines[2..]
        .iter()
        .all(|l| l.matches(',').count() == 26 && !l.contains("NaN")));
    // The same bytes with three threads, and in a file with --out.
    assert_eq!(out, run_threads(SMALL, 3));
    let f = Temp::new("sweep", "csv");
    run(&with(SMALL, &["--out", f.s()]));
    assert_eq!(std::fs::read_to_string(f.path()).unwrap(), out);
}

#[test]
fn shards_cover_every_cell_once_and_merge_into_the_whole_sweep() {
    for format in ["csv", "json"] {
        let whole = run(&with(SMALL, &["--format", format]));
        for n in 1..=3usize {
            let files: Vec<Temp> = (1..=n)
                .map(|k| {
                    let f = Temp::new(&format!("shard{k}of{n}"), format);
                    let shard = format!("{k}/{n}");
                    run(&with(
                        SMALL,
                        &["--format", format, "--shard", &shard, "--out", f.s()],
                    ));
                    f
                })
                .collect();
            if format == "csv" {
                // Shard k holds the cells i with i % n == k - 1, each exactly once.
                let mut all = Vec::new();
                for (k, f) in files.iter().enumerate() {
                    let c = cells(&std::fs::read_to_string(f.path()).unwrap());
                    assert!(c.iter().all(|i| i % n == k), "shard {}/{n}: {c:?}", k + 1);
                    all.extend(c);
                }
                all.sort_unstable();
                assert_eq!(all, (0..12).collect::<Vec<_>>(), "{n} shards");
            }
            // Merged in any order: byte for byte the whole sweep.
            let mut args = vec!["sweep".to_string(), "merge".to_string()];
            args.extend(files.iter().rev().map(|f| f.s().to_string()));
            assert_eq!(run(&args), whole, "{format}, {n} shards");
        }
        if format == "json" {
            let v = json(&whole);
            assert_eq!(v["sweep"]["cells"], 12);
            assert_eq!(v["rows"].as_array().unwrap().len(), 12);
            assert_eq!(v["rows"][5]["policy"], "fifo");
            assert!(v["rows"][5]["summary"]["avg_jct_s"].is_number());
        }
    }
    // More shards than cells: the empty shards merge too.
    let files: Vec<Temp> = (1..=13)
        .map(|k| {
            let f = Temp::new(&format!("shard{k}of13"), "csv");
            run(&with(
                SMALL,
                &["--shard", &format!("{k}/13"), "--out", f.s()],
            ));
            f
        })
        .collect();
    let mut args = vec!["sweep".to_string(), "merge".to_string()];
    args.extend(files.iter().map(|f| f.s().to_string()));
    assert_eq!(run(&args), run(&with(SMALL, &[])));
}

#[test]
fn merge_refuses_what_does_not_make_the_sweep() {
    let shard = |extra: &[&str], k: usize, tag: &str| {
        let f = Temp::new(tag, "csv");
        let s = format!("{k}/3");
        let mut args = with(SMALL, extra);
        args.extend(["--shard", &s, "--out", f.s()].map(String::from));
        run(&args);
        f
    };
    let (s1, s2, s3) = (shard(&[], 1, "a"), shard(&[], 2, "b"), shard(&[], 3, "c"));
    // Another grid (one more seed) and another base experiment (more jobs).
    for (extra, tag) in [
        (&["--seeds", "7"][..], "grid"),
        (&["--round", "300"][..], "base"),
    ] {
        let other = shard(extra, 3, tag);
        let err = bad(&["sweep", "merge", s1.s(), s2.s(), other.s()]);
        assert!(err.contains("different sweeps"), "{err}");
        assert!(err.contains(other.s()), "{err}");
    }
    let err = bad(&["sweep", "merge", s1.s(), s3.s()]);
    assert!(
        err.contains("4 of 12 cells missing: 1, 4, 7, 10 (shard 2/3: absent, or not finished)"),
        "{err}"
    );
    let err = bad(&["sweep", "merge", s1.s(), s2.s(), s3.s(), s2.s()]);
    assert!(err.contains("4 duplicate cells: 1 (in"), "{err}");
    // A row moved into another shard's file, a cut file, other formats.
    let text = std::fs::read_to_string(s1.path()).unwrap();
    let row = std::fs::read_to_string(s2.path()).unwrap();
    let moved = Temp::with(
        "moved",
        "csv",
        &format!("{text}{}\n", row.lines().nth(2).unwrap()),
    );
    let err = bad(&["sweep", "merge", moved.s(), s3.s()]);
    assert!(
        err.contains("cell 1 is shard 2/3's, not this file's (1/3)"),
        "{err}"
    );
    let cut = Temp::with("cut", "csv", &text[..text.len() - 20]);
    bad(&["sweep", "merge", cut.s(), s2.s(), s3.s()]);
    let other = Temp::with("other", "csv", "policy,avg_jct_s\nlas,1\n");
    let err = bad(&["sweep", "merge", other.s()]);
    assert!(err.contains("not an output of orrery sweep"), "{err}");
    let j = Temp::new("json", "json");
    run(&with(
        SMALL,
        &["--format", "json", "--shard", "2/3", "--out", j.s()],
    ));
    let err = bad(&["sweep", "merge", s1.s(), j.s(), s3.s()]);
    assert!(err.contains("merge outputs of one format"), "{err}");
}

#[test]
fn sweep_flags_are_checked() {
    for shard in ["0/3", "4/3", "1/0", "2", "a/b"] {
        bad(&["sweep", "--shard", shard]);
    }
    bad(&["sweep", "--seed", "1", "--seeds", "1,2"]);
    bad(&["sweep", "--cluster-scales", "0"]);
    bad(&["sweep", "--loads", "-1"]);
    // The default scenario runs a trace: no arrival rate to set.
    let err = bad(&["sweep", "--rates", "1"]);
    assert!(
        err.contains("--num-jobs") && err.contains("--loads"),
        "{err}"
    );
    // An error of a group names it.
    let err = bad(&[
        "sweep",
        "--preset",
        "pollux",
        "--policy",
        "no_such_policy",
        "--num-jobs",
        "8",
        "--cluster-scales",
        "0.5",
    ]);
    assert!(err.starts_with("error: cluster gpu:32/4: "), "{err}");
    bad(&["run", "--cluster", "v100:1", "--cluster", "v100:2"]);
}

#[test]
fn a_cell_is_the_run_of_its_settings() {
    let trace = crate::cli::small_trace(16);
    let sweep = ok(&[
        "sweep",
        "--trace",
        trace.s(),
        "--policy",
        "las",
        "--cluster",
        "v100:4/2,p100:4,k80:4",
        "--cluster-scales",
        "0.5,1",
        "--loads",
        "0.5,3",
        "--seeds",
        "1,2",
    ]);
    // Cell 3: scale 0.5, load 3, seed 2.
    let row: Vec<&str> = sweep.lines().nth(5).unwrap().split(',').collect();
    assert_eq!(
        &row[..10],
        [
            "3",
            "las",
            "\"v100:2/2",
            "p100:2",
            "k80:2\"",
            "0.5",
            "",
            "3",
            "2",
            "16"
        ]
    );
    let v = json(&ok(&[
        "run",
        "--trace",
        trace.s(),
        "--policy",
        "las",
        "--cluster",
        "v100:2/2,p100:2,k80:2",
        "--load",
        "3",
        "--seed",
        "2",
        "--format",
        "json",
    ]));
    let num = |s: &str| s.parse::<f64>().unwrap();
    assert_eq!(num(row[11]), v["avg_jct_s"].as_f64().unwrap());
    assert_eq!(num(row[15]), v["makespan_s"].as_f64().unwrap());
    assert_eq!(num(row[18]), v["utilization"].as_f64().unwrap());
    assert_eq!(num(row[19]), v["max_rho"].as_f64().unwrap());
}

#[test]
fn a_load_compresses_the_arrivals() {
    let trace = crate::cli::small_trace(6);
    let arrivals = |load: &str| -> Vec<f64> {
        let f = Temp::new(&format!("jobs-{load}"), "csv");
        ok(&[
            "run",
            "--trace",
            trace.s(),
            "--load",
            load,
            "--jobs-csv",
            f.s(),
            "--cluster",
            SMALL_CLUSTER,
            "--no-fairness",
        ]);
        let text = std::fs::read_to_string(f.path()).unwrap();
        let mut lines = text.lines();
        let col = lines
            .next()
            .unwrap()
            .split(',')
            .position(|h| h.starts_with("arrival"))
            .unwrap();
        lines
            .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
            .collect()
    };
    let one = arrivals("1");
    let four = arrivals("4");
    assert_eq!(one.len(), 6);
    for (a, b) in one.iter().zip(&four) {
        let want = one[0] + (a - one[0]) / 4.0;
        // The jobs CSV gives arrivals to the hundredth of a second.
        assert!((b - want).abs() <= 0.006, "{b} != {want}");
    }
    assert!(one[5] > one[0] && four[5] < one[5]);
}

#[test]
fn every_family_sweeps() {
    for (preset, policies) in [
        ("pollux", &["pollux", "tiresias", "optimus"][..]),
        (
            "pickyman",
            &[
                "pickyman",
                "pickyman[overhead_aware=false]",
                "srtf",
                "las",
                "fifo",
            ],
        ),
        (
            "aryl",
            &[
                "aryl",
                "aryl[loaning=false]",
                "aryl[elastic=false]",
                "aryl[elastic=false,loaning=false]",
            ],
        ),
    ] {
        let out = ok(&[
            "sweep",
            "--preset",
            preset,
            "--num-jobs",
            "8",
            "--seeds",
            "0,1",
            "--loads",
            "1,2",
        ]);
        let rows: Vec<&str> = out.lines().skip(2).collect();
        assert_eq!(rows.len(), policies.len() * 4, "{preset}:\n{out}");
        for (p, spec) in policies.iter().enumerate() {
            let quoted = if spec.contains(',') {
                format!("\"{spec}\"")
            } else {
                spec.to_string()
            };
            assert!(
                rows[p * 4..p * 4 + 4]
                    .iter()
                    .all(|r| r.split(',').nth(1) == Some(quoted.split(',').next().unwrap())),
                "{preset} {spec}:\n{out}"
            );
        }
        assert!(
            rows.iter().all(|r| r.contains(",8,0,")),
            "{preset}: every job finished:\n{out}"
        );
    }
    // DL2's slots, two heuristics.
    let out = ok(&[
        "sweep",
        "--preset",
        "dl2",
        "--policy",
        "drf",
        "--policy",
        "fifo",
        "--num-jobs",
        "8",
        "--cluster-scales",
        "0.5,1",
    ]);
    assert_eq!(out.lines().count(), 2 + 4, "{out}");
}

/// The gavel-load preset sweeps its figure's rates by itself, and says the paper's figure
/// beside the sweep's: heterogeneity-aware LAS below LAS at every rate.
#[test]
fn a_preset_with_a_figure_against_the_load_sweeps_its_rates() {
    let o = crate::cli::orrery(&["sweep", "--preset", "gavel-load"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(2)
        .map(|l| l.split(',').collect())
        .collect();
    let cols: Vec<&str> = out.lines().nth(1).unwrap().split(',').collect();
    let at = |name: &str| cols.iter().position(|c| *c == name).unwrap();
    let rates: Vec<&str> = rows.iter().map(|r| r[at("jobs_per_hour") + 2]).collect();
    assert_eq!(rows.len(), 8, "{out}");
    assert_eq!(rates[..4], ["2", "4", "6", "8"], "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("paper: Gavel reports"))
        .unwrap_or_else(|| panic!("{err}"));
    // One ratio per rate, each above 1 (the cluster column's commas shift the fields by 2).
    let ratios: Vec<f64> = line
        .split("over max_min_fairness_perf's: ")
        .nth(1)
        .unwrap()
        .split(", ")
        .map(|p| p.split('x').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ratios.len(), 4, "{line}");
    assert!(ratios.iter().all(|&r| r > 1.2), "{line}");
    // Rates given on the command line win over the preset's.
    let o = crate::cli::orrery(&[
        "sweep",
        "--preset",
        "gavel-load",
        "--rates",
        "3",
        "--policy",
        "max_min_fairness",
    ]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 3);
}

#[test]
fn failure_rates_and_checkpoint_intervals_are_axes() {
    // A small sweep over two failure rates and two intervals (one of them Daly's): each
    // cell is `orrery run` with those settings, and its shards merge into it.
    let trace = crate::cli::small_trace(16);
    let base = [
        "sweep",
        "--trace",
        trace.s(),
        "--cluster",
        "v100:8/4",
        "--policy",
        "las",
        "--policy",
        "fifo",
        "--checkpoint-write-s",
        "30",
        "--failure-rates",
        "20,0",
        "--checkpoint-intervals",
        "auto,600",
    ];
    for format in ["csv", "json"] {
        let whole = run(&with(&base, &["--format", format]));
        let files: Vec<Temp> = (1..=2)
            .map(|k| {
                let f = Temp::new(&format!("fault-shard{k}"), format);
                run(&with(
                    &base,
                    &[
                        "--format",
                        format,
                        "--shard",
                        &format!("{k}/2"),
                        "--out",
                        f.s(),
                    ],
                ));
                f
            })
            .collect();
        let mut args = vec!["sweep".to_string(), "merge".to_string()];
        args.extend(files.iter().map(|f| f.s().to_string()));
        assert_eq!(run(&args), whole, "{format}");
        if format == "json" {
            let v = json(&whole);
            assert_eq!(v["rows"][3]["failures_per_server_day"], 20.0);
            assert_eq!(v["rows"][3]["checkpoint_s"], "auto");
            continue;
        }
        let lines: Vec<&str> = whole.lines().collect();
        assert!(
            lines[0].contains("2 failure rates x 2 checkpoint intervals"),
            "{}",
            lines[0]
        );
        let header: Vec<&str> = lines[1].split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        // Rates sorted (0 then 20), then intervals (600 then auto): cell 3 is 20 and auto.
        let row: Vec<&str> = lines[5].split(',').collect();
        assert_eq!(row[0], "3");
        assert_eq!(
            (
                row[col("failures_per_server_day")],
                row[col("checkpoint_s")]
            ),
            ("20", "auto")
        );
        let v = json(&ok(&[
            "run",
            "--trace",
            trace.s(),
            "--cluster",
            "v100:8/4",
            "--policy",
            "las",
            "--checkpoint-write-s",
            "30",
            "--failures",
            "20",
            "--checkpoint-s",
            "auto",
            "--format",
            "json",
        ]));
        let num = |s: &str| s.parse::<f64>().unwrap();
        assert_eq!(num(row[col("avg_jct_s")]), v["avg_jct_s"].as_f64().unwrap());
        assert_eq!(num(row[col("ettr")]), v["faults"]["ettr"].as_f64().unwrap());
        assert_eq!(
            row[col("interruptions")],
            v["faults"]["interruptions"].to_string()
        );
        assert!(num(row[col("interruptions")]) > 0.0);
        // At rate 0 nothing fails.
        let quiet: Vec<&str> = lines[2].split(',').collect();
        assert_eq!(quiet[col("server_failures")], "0");
    }
    // Without failure axes or settings the columns are as before.
    let plain = run(&with(SMALL, &[]));
    assert!(!plain.contains("failures_per_server_day"));
}
