//! Integration tests of the `orrery` command line: every command on small inputs, output
//! formats, determinism, and the exit code and message of bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

pub(crate) fn orrery(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_orrery"))
        .args(args)
        .output()
        .expect("the orrery binary runs")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run and require success; returns stdout.
pub(crate) fn ok(args: &[&str]) -> String {
    let o = orrery(args);
    assert!(
        o.status.success(),
        "orrery {args:?} failed ({:?}):\n{}",
        o.status.code(),
        stderr(&o)
    );
    stdout(&o)
}

/// Run and require exit code 2 with an `error:` message; returns stderr.
pub(crate) fn bad(args: &[&str]) -> String {
    let o = orrery(args);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "orrery {args:?} should exit with 2; stdout:\n{}\nstderr:\n{err}",
        stdout(&o)
    );
    assert!(err.starts_with("error:"), "no 'error:' prefix: {err}");
    err
}

/// A temp file path unique to this process and call, removed on drop.
pub(crate) struct Temp(PathBuf);

impl Temp {
    pub(crate) fn new(tag: &str, ext: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        Temp(std::env::temp_dir().join(format!(
            "orrery-cli-test-{}-{n}-{tag}.{ext}",
            std::process::id()
        )))
    }

    pub(crate) fn with(tag: &str, ext: &str, text: &str) -> Self {
        let t = Temp::new(tag, ext);
        std::fs::write(&t.0, text).expect("write temp file");
        t
    }

    pub(crate) fn s(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub(crate) fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// A small generated trace (CSV) of `n` jobs at 4 jobs/hour.
pub(crate) fn small_trace(n: usize) -> Temp {
    let t = Temp::new("trace", "csv");
    ok(&[
        "generate",
        "--num-jobs",
        &n.to_string(),
        "--jobs-per-hour",
        "4",
        "--seed",
        "3",
        "--cluster",
        "v100:4,p100:4,k80:4",
        "--out",
        t.s(),
    ]);
    t
}

pub(crate) const SMALL_CLUSTER: &str = "v100:4,p100:4,k80:4";

#[test]
fn run_with_no_arguments_prints_a_table() {
    let out = ok(&["run"]);
    for key in ["policy", "avg JCT", "p99 JCT", "makespan", "utilization"] {
        assert!(out.contains(key), "no '{key}' in:\n{out}");
    }
    assert!(
        out.contains(" h ("),
        "JCTs should be in hours and seconds:\n{out}"
    );
}

#[test]
fn run_json_has_the_summary_fields() {
    let v = json(&ok(&["run", "--format", "json"]));
    assert!(v.is_object());
    for key in [
        "avg_jct_s",
        "p99_jct_s",
        "makespan_s",
        "utilization",
        "avg_wait_s",
        "num_jobs",
        "policy",
        "max_rho",
    ] {
        assert!(v.get(key).is_some(), "no '{key}' in {v}");
    }
    assert!(v["avg_jct_s"].as_f64().is_some_and(|x| x > 0.0));
    assert!(v["num_jobs"].as_u64().is_some_and(|n| n > 0));
    // The isolated baseline ran, so rho is there.
    assert!(v["max_rho"].as_f64().is_some());
}

#[test]
fn run_is_deterministic() {
    let t = small_trace(25);
    let args = [
        "run",
        "--trace",
        t.s(),
        "--cluster",
        SMALL_CLUSTER,
        "--policy",
        "max_min_fairness_perf",
        "--seed",
        "7",
        "--format",
        "json",
    ];
    let a = orrery(&args);
    let b = orrery(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    // And the default scenario too.
    assert_eq!(
        ok(&["run", "--format", "json"]),
        ok(&["run", "--format", "json"])
    );
}

#[test]
fn compare_json_keeps_the_given_order() {
    let t = small_trace(20);
    let v = json(&ok(&[
        "compare",
        "--trace",
        t.s(),
        "--cluster",
        SMALL_CLUSTER,
        "--policy",
        "las",
        "--policy",
        "max_min_fairness_perf",
        "--format",
        "json",
    ]));
    let arr = v.as_array().expect("an array");
    assert_eq!(arr.len(), 2);
    assert_eq!(arr[0]["policy"], "las");
    assert_eq!(arr[1]["policy"], "max_min_fairness_perf");
    assert!(arr.iter().all(|s| s["num_jobs"] == 20));
}

#[test]
fn compare_table_and_csv_out() {
    let t = small_trace(15);
    let csv = Temp::new("compare", "csv");
    let out = ok(&[
        "compare",
        "--trace",
        t.s(),
        "--cluster",
        SMALL_CLUSTER,
        "--policy",
        "fifo",
        "--policy",
        "srtf",
        "--no-fairness",
        "--out",
        csv.s(),
    ]);
    assert!(out.contains("avg JCT (h)") && out.contains("fifo") && out.contains("srtf"));
    let text = std::fs::read_to_string(csv.path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("policy,num_jobs,"));
    assert!(lines[1].starts_with("fifo,15,") && lines[2].starts_with("srtf,15,"));
}

#[test]
fn jobs_csv_has_one_row_per_job() {
    let t = small_trace(20);
    let jobs = Temp::new("jobs", "csv");
    ok(&[
        "run",
        "--trace",
        t.s(),
        "--cluster",
        SMALL_CLUSTER,
        "--policy",
        "las",
        "--jobs-csv",
        jobs.s(),
    ]);
    let text = std::fs::read_to_string(jobs.path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 21, "{text}");
    let header: Vec<&str> = lines[0].split(',').collect();
    for col in ["arrival_s", "finish_s", "jct_s", "rho"] {
        assert!(header.contains(&col), "no '{col}' in {header:?}");
    }
    let rho = header.iter().position(|c| *c == "rho").unwrap();
    for (i, l) in lines[1..].iter().enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), header.len());
        assert_eq!(f[0], i.to_string());
        assert!(f[rho].parse::<f64>().is_ok(), "rho missing in {l}");
    }
}

#[test]
fn generated_traces_read_back() {
    for format in ["csv", "json"] {
        let t = Temp::new("gen", format);
        ok(&[
            "generate",
            "--num-jobs",
            "12",
            "--jobs-per-hour",
            "0",
            "--multi-gpu",
            "--priority-weights",
            "--seed",
            "5",
            "--format",
            format,
            "--out",
            t.s(),
        ]);
        let v = json(&ok(&[
            "run",
            "--trace",
            t.s(),
            "--policy",
            "fifo_perf",
            "--no-fairness",
            "--format",
            "json",
        ]));
        assert_eq!(v["num_jobs"], 12, "{format}: {v}");
        assert_eq!(v["max_rho"], serde_json::Value::Null);
    }
    // Same seed, same trace; stdout by default.
    let a = ok(&["generate", "--num-jobs", "30", "--seed", "9"]);
    assert_eq!(a, ok(&["generate", "--num-jobs", "30", "--seed", "9"]));
    assert_eq!(a.lines().count(), 31);
    assert!(a.starts_with("job_type,arrival_s,total_steps"));
    assert_ne!(a, ok(&["generate", "--num-jobs", "30", "--seed", "10"]));
}

#[test]
fn config_file_with_overrides() {
    let cfg = Temp::with(
        "config",
        "json",
        r#"{
  "cluster": "v100:4,p100:4,k80:4",
  "workload": {"kind": "generated", "num_jobs": 10, "jobs_per_hour": 0, "seed": 2},
  "profile": {"kind": "preset", "name": "gavel-types"},
  "policies": ["sjf", "las"],
  "fairness": false
}"#,
    );
    let v = json(&ok(&["run", "--config", cfg.s(), "--format", "json"]));
    assert_eq!(v["policy"], "sjf");
    assert_eq!(v["num_jobs"], 10);
    assert_eq!(v["max_rho"], serde_json::Value::Null);
    // Flags override the file's fields.
    let v = json(&ok(&[
        "run",
        "--config",
        cfg.s(),
        "--policy",
        "las",
        "--cluster",
        "v100:6",
        "--window",
        "0:5",
        "--format",
        "json",
    ]));
    assert_eq!(v["policy"], "las");
    assert_eq!(v["num_jobs"], 5);
    let types: Vec<&String> = v["utilization_by_type"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(types, ["v100"]);
    // compare takes the file's policy list.
    let v = json(&ok(&["compare", "--config", cfg.s(), "--format", "json"]));
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sjf", "las"]);
    // A broken config names the file.
    let broken = Temp::with("config-bad", "json", "{\"cluster\": 3}");
    let err = bad(&["run", "--config", broken.s()]);
    assert!(err.contains(broken.s()), "{err}");
}

#[test]
fn policies_and_presets_are_listed() {
    let out = ok(&["policies"]);
    assert!(out.contains("max_min_fairness_perf") && out.contains("las"));
    let v = json(&ok(&["policies", "--format", "json"]));
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"max_min_fairness_perf"));
    assert!(v[0]["family"].is_string() && v[0]["params"].is_array());
    // One entry per name, with every mechanism's implementation.
    let tiresias: Vec<&serde_json::Value> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"] == "tiresias")
        .collect();
    assert_eq!(tiresias.len(), 1);
    assert_eq!(
        tiresias[0]["mechanisms"],
        serde_json::json!(["rounds", "elastic"])
    );
    assert_eq!(tiresias[0]["implementations"][1]["family"], "pollux");

    let out = ok(&["presets"]);
    assert!(out.contains("default") && out.contains("gavel-types"));
    assert!(
        out.contains("GPU types: a100, h100, k80, p100, t4, v100"),
        "{out}"
    );
    assert!(
        out.contains("pollux-apps") && out.contains("dl2-models"),
        "{out}"
    );
    let v = json(&ok(&["presets", "--format", "json"]));
    assert!(v["scenarios"].as_array().is_some_and(|s| !s.is_empty()));
    assert!(v["traces"].is_array() && v["profiles"].is_array());
}

#[test]
fn help_and_usage_errors() {
    let out = ok(&["--help"]);
    for cmd in [
        "run", "compare", "sweep", "generate", "policies", "presets", "bench",
    ] {
        assert!(out.contains(cmd), "{cmd} not in --help");
    }
    assert!(ok(&["run", "--help"]).contains("--no-fairness"));
    bad(&["run", "--format", "xml"]);
    bad(&["run", "--no-such-flag"]);
    bad(&["frobnicate"]);
}

/// A trace error names the file, the line and the field, with exit code 2.
fn bad_trace(text: &str, line: usize, field: &str) {
    let t = Temp::with("bad-trace", "csv", text);
    let err = bad(&["run", "--trace", t.s(), "--no-fairness"]);
    assert!(
        err.contains(&format!("{}:{line}:", t.s())),
        "no file:line in: {err}"
    );
    assert!(err.contains(&format!("'{field}'")), "no field in: {err}");
}

#[test]
fn bad_traces_name_file_line_and_field() {
    // Missing column.
    bad_trace("job_type,arrival_s\nA3C,0\n", 1, "total_steps");
    // Not a number.
    bad_trace(
        "job_type,arrival_s,total_steps\nA3C,0,100\nA3C,soon,100\n",
        3,
        "arrival_s",
    );
    // Negative.
    bad_trace(
        "job_type,arrival_s,total_steps\nA3C,0,100\nA3C,-5,100\n",
        3,
        "arrival_s",
    );
    // NaN.
    bad_trace(
        "job_type,arrival_s,total_steps\nA3C,0,NaN\n",
        2,
        "total_steps",
    );
    // Unknown job type.
    bad_trace(
        "job_type,arrival_s,total_steps\nA3C,0,100\nNoSuchNet,0,100\n",
        3,
        "job_type",
    );
    // Scale factor with no throughput.
    bad_trace(
        "job_type,arrival_s,total_steps,scale_factor\nA3C,0,100,3\n",
        2,
        "scale_factor",
    );
}

#[test]
fn bad_files_and_flags_exit_with_2() {
    let err = bad(&["run", "--trace", "/no/such/dir/trace.csv"]);
    assert!(err.contains("/no/such/dir/trace.csv"), "{err}");
    let err = bad(&["run", "--profile", "/no/such/profile.json"]);
    assert!(err.contains("/no/such/profile.json"), "{err}");
    let err = bad(&["run", "--cluster", "v100:lots"]);
    assert!(err.contains("cluster"), "{err}");
    bad(&["run", "--cluster", "1:2"]);
    let err = bad(&["run", "--policy", "no_such_policy"]);
    assert!(err.contains("no_such_policy"), "{err}");
    let err = bad(&["compare", "--policy", "las", "--policy", "las[nope=1]"]);
    assert!(err.contains("nope"), "{err}");
    let err = bad(&["run", "--window", "9:3"]);
    assert!(err.contains("--window"), "{err}");
    bad(&["run", "--window", "3"]);
    bad(&["run", "--window", "a:b"]);
    let err = bad(&["run", "--window", "0:1000000"]);
    assert!(err.contains("window"), "{err}");
    bad(&["run", "--round", "0"]);
    bad(&["run", "--round", "NaN"]);
    bad(&["run", "--restart-cost", "-1"]);
    bad(&["run", "--seed", "-1"]);
    bad(&["run", "--preset", "no_such_preset"]);
    bad(&["run", "--jobs-csv", "/no/such/dir/jobs.csv"]);
    bad(&["generate", "--num-jobs", "0"]);
    bad(&["generate", "--jobs-per-hour", "-3"]);
    bad(&["generate", "--cluster", "v100:"]);
    bad(&["sweep", "--seeds", "4..2"]);
    bad(&["sweep", "--rates", "1,x"]);
    bad(&["sweep", "--policy", "no_such_policy"]);
}

#[test]
fn link_round_trips_to_the_same_numbers() {
    let link = ok(&[
        "link",
        "--policy",
        "las",
        "--seed",
        "4",
        "--base",
        "http://localhost:9000/",
    ]);
    let link = link.trim();
    assert!(link.starts_with("http://localhost:9000/#x1."), "{link}");
    let via_link = ok(&["run", "--link", link, "--no-fairness", "--format", "json"]);
    let direct = ok(&[
        "run",
        "--policy",
        "las",
        "--seed",
        "4",
        "--no-fairness",
        "--format",
        "json",
    ]);
    assert_eq!(via_link, direct);
    let err = bad(&["run", "--link", "http://x/#x1.garbage!"]);
    assert!(err.contains("--link") && err.contains("garbled"), "{err}");
    let err = bad(&["run", "--link", &link[..link.len() - 12]]);
    assert!(err.contains("--link"), "{err}");
}

#[test]
fn series_csv_has_a_row_per_round() {
    let series = Temp::new("series", "csv");
    let out = ok(&[
        "run",
        "--policy",
        "las",
        "--no-fairness",
        "--format",
        "json",
        "--series-csv",
        series.s(),
    ]);
    let rounds = out
        .split("\"rounds\":")
        .nth(1)
        .unwrap()
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse::<usize>()
        .unwrap();
    let text = std::fs::read_to_string(series.path()).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("round,start_s,end_s,active,running,busy_k80,busy_p100,busy_v100")
    );
    assert_eq!(lines.count(), rounds);
}

#[test]
fn pollux_preset_prints_one_summary_per_policy() {
    let out = json(&ok(&["compare", "--preset", "pollux", "--format", "json"]));
    let arr = out.as_array().expect("an array of summaries");
    let names: Vec<&str> = arr.iter().map(|s| s["policy"].as_str().unwrap()).collect();
    assert_eq!(names, ["pollux", "tiresias", "optimus"]);
    for s in arr {
        assert_eq!(s["num_jobs"], 160);
        assert_eq!(s["unfinished"], 0);
        assert!(s["avg_jct_s"].as_f64().unwrap() > 0.0);
        assert!(s["restarts"].as_u64().is_some());
        // Rho against the isolated baseline (in rounds, the jobs at their user's size).
        assert!(s["max_rho"].as_f64().unwrap() >= s["mean_rho"].as_f64().unwrap());
        assert!(s["jain_index"].as_f64().unwrap() > 0.0);
        assert!(s["elastic"]["avg_gpus"].as_f64().unwrap() >= 1.0);
        assert!(s["elastic"]["avg_batch_size"].as_f64().unwrap() > 0.0);
    }
    assert!(arr[0]["avg_jct_s"].as_f64() < arr[1]["avg_jct_s"].as_f64());
}

#[test]
fn pickyman_preset_prints_one_summary_per_policy() {
    let out = json(&ok(&[
        "compare", "--preset", "pickyman", "--format", "json",
    ]));
    let arr = out.as_array().expect("an array of summaries");
    let names: Vec<&str> = arr.iter().map(|s| s["policy"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "pickyman",
            "pickyman[overhead_aware=false]",
            "srtf",
            "las",
            "fifo"
        ]
    );
    for s in arr {
        assert_eq!(s["num_jobs"], 400);
        for field in ["avg_jct_s", "avg_wait_s", "p99_wait_s", "time_lost_s"] {
            assert!(s[field].as_f64().is_some(), "{field}");
        }
        assert!(s["preemptions"].as_u64().is_some());
        assert!(s["preemption"]["suspensions"].as_u64().is_some());
    }
    let wait = |i: usize| arr[i]["avg_wait_s"].as_f64().unwrap();
    assert!(wait(0) < wait(2), "pickyman waits less than srtf");
    assert_eq!(arr[4]["preemptions"], 0, "fifo never preempts");
    // The table names the preemptive columns, and every family is listed.
    let table = ok(&["compare", "--preset", "pickyman", "--policy", "pickyman"]);
    assert!(table.contains("time lost (h)") && table.contains("preemptions"));
    let policies = ok(&["policies"]);
    for name in ["pickyman", "aryl", "pollux", "max_min_fairness_perf"] {
        assert!(policies.contains(name), "{name}");
    }
}

#[test]
fn dl2_preset_prints_one_summary_per_policy() {
    let out = json(&ok(&["compare", "--preset", "dl2", "--format", "json"]));
    let arr = out.as_array().expect("an array of summaries");
    let names: Vec<&str> = arr.iter().map(|s| s["policy"].as_str().unwrap()).collect();
    assert_eq!(names, ["dl2", "drf", "fifo", "srtf", "optimus"]);
    for s in arr {
        assert_eq!(s["num_jobs"], 320);
        assert_eq!(s["unfinished"], 0);
        assert!(s["avg_jct_s"].as_f64().unwrap() > 0.0);
        assert!(s["max_rho"].as_f64().unwrap() >= s["mean_rho"].as_f64().unwrap());
        assert!(s["jain_index"].as_f64().unwrap() > 0.0);
        let ps = &s["ps"];
        assert!(ps["avg_workers"].as_f64().unwrap() >= 1.0);
        assert!(ps["avg_ps"].as_f64().unwrap() >= 1.0);
        assert!((ps["total_reward"].as_f64().unwrap() - 320.0).abs() < 1e-6);
        assert!(ps["cpu_utilization"].as_f64().unwrap() > 0.0);
    }
    // One policy of the family with a parameter, and a policy of another family on the
    // jobs as rigid ones (2 workers and 2 parameter servers each, as the scenario states).
    let one = json(&ok(&[
        "run",
        "--preset",
        "dl2",
        "--policy",
        "fifo[min_gain=0.2]",
        "--format",
        "json",
    ]));
    assert_eq!(one["policy"], "fifo[min_gain=0.2]");
    let las = json(&ok(&[
        "run", "--preset", "dl2", "--policy", "las", "--format", "json",
    ]));
    assert_eq!(
        (las["policy"].as_str(), las["num_jobs"].as_u64()),
        (Some("las"), Some(320))
    );
    assert!(
        las["ps"].is_null(),
        "a rigid run has no parameter-server figures"
    );
    // The dl2 policy reads a network file: the bundled one gives the bundled result, a
    // malformed one and one of the wrong shape are refused, naming the file.
    let bundled = one_dl2(&[]);
    let same = one_dl2(&["--network", "traces/dl2_weights.json"]);
    assert_eq!(bundled, same);
    let garbled = Temp::with("network", "json", "{\"layers\": 3}");
    let err = bad(&[
        "run",
        "--preset",
        "dl2",
        "--policy",
        "dl2",
        "--network",
        garbled.s(),
    ]);
    assert!(
        err.contains("network") && err.contains(garbled.s()),
        "{err}"
    );
    let mut rng = orrery::rng::Rng::new(1);
    let net = orrery::nn::Mlp::new(&[4, 8, 7], orrery::nn::Activation::Relu, &mut rng);
    let small = Temp::with("network-small", "json", &net.to_json());
    let err = bad(&[
        "run",
        "--preset",
        "dl2",
        "--policy",
        "dl2",
        "--network",
        small.s(),
    ]);
    assert!(err.contains("inputs"), "{err}");
    let err = bad(&["run", "--network", "traces/dl2_weights.json"]);
    assert!(err.contains("parameter-server"), "{err}");
}

fn one_dl2(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run", "--preset", "dl2", "--policy", "dl2", "--format", "json",
    ];
    args.extend_from_slice(extra);
    json(&ok(&args))
}

#[test]
fn elastic_workloads_generate_and_run() {
    let w = Temp::new("pollux-workload", "csv");
    ok(&[
        "generate",
        "--apps",
        "pollux-apps",
        "--num-jobs",
        "12",
        "--jobs-per-hour",
        "30",
        "--seed",
        "4",
        "--out",
        w.s(),
    ]);
    let text = std::fs::read_to_string(w.path()).unwrap();
    assert!(text.starts_with("name,time,application,num_replicas,batch_size\n"));
    assert_eq!(text.lines().count(), 13);
    let exp = ok(&[
        "link",
        "--preset",
        "pollux",
        "--trace",
        w.s(),
        "--policy",
        "tiresias",
        "--policy",
        "optimus",
    ]);
    assert!(exp.contains('#'), "a link: {exp}");
    let a = ok(&[
        "compare",
        "--preset",
        "pollux",
        "--trace",
        w.s(),
        "--policy",
        "tiresias",
        "--policy",
        "optimus",
        "--format",
        "json",
    ]);
    let b = ok(&["compare", "--link", exp.trim(), "--format", "json"]);
    assert_eq!(a, b, "the link reproduces the run");
    let listed = ok(&["policies"]);
    assert!(listed.contains("pollux ") && listed.contains("optimus"));
    // An application the profile does not have: file, line and field.
    let bad_w = Temp::with(
        "pollux-bad",
        "csv",
        "name,time,application,num_replicas,batch_size\nx-0,0,resnet,1,128\n",
    );
    let err = bad(&[
        "run",
        "--preset",
        "pollux",
        "--trace",
        bad_w.s(),
        "--policy",
        "tiresias",
    ]);
    assert!(
        err.contains(":2: field 'application': 'resnet' is not an application"),
        "{err}"
    );
}

#[test]
fn pai_tables_import_and_run_with_an_inference_pool() {
    let jobs = Temp::with(
        "pai-jobs",
        "csv",
        "j1,i1,u1,Terminated,100,700\nj2,i2,u2,Terminated,200,5000\nj3,i3,u1,Failed,300,400\n",
    );
    let tasks = Temp::with(
        "pai-tasks",
        "csv",
        "j1,worker,2,Terminated,110,700,600,29,100,V100\nj2,tensorflow,1,Terminated,250,5000,600,29,400,V100\nj3,worker,1,Failed,300,400,600,29,100,V100\n",
    );
    let out = Temp::new("pai-trace", "csv");
    ok(&[
        "import-pai",
        "--jobs",
        jobs.s(),
        "--tasks",
        tasks.s(),
        "--max-jobs",
        "10",
        "--out",
        out.s(),
    ]);
    let text = std::fs::read_to_string(out.path()).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows, ["worker,0,590,2,1,", "tensorflow,100,4750,4,1,"]);
    let res = json(&ok(&[
        "compare",
        "--preset",
        "aryl",
        "--trace",
        out.s(),
        "--format",
        "json",
    ]));
    for s in res.as_array().unwrap() {
        assert_eq!(s["unfinished"], 0);
        assert!(s["pool"]["cluster_usage"].as_f64().is_some());
    }
    let bad_tasks = Temp::with(
        "pai-bad",
        "csv",
        "j1,worker,two,Terminated,110,700,600,29,100,V100\n",
    );
    let err = bad(&["import-pai", "--jobs", jobs.s(), "--tasks", bad_tasks.s()]);
    assert!(err.contains(":1: field 'inst_num'"), "{err}");
}

/// A sample trace of tests/data.
fn data_file(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn trace_stats_text_and_json() {
    let helios = data_file("helios_cluster_log.csv");
    let text = ok(&["trace-stats", &helios]);
    for want in [
        "(Helios cluster log)",
        "jobs           4 (of 6 in the file)",
        "  left out     1 without GPUs",
        "GPU-hours      105.3",
        "arrivals       2020-07-01 08:00:00 to 2020-07-02 07:30:00 (23.5 h)",
        "vcAlpha",
        "COMPLETED",
        "2020-07-02",
    ] {
        assert!(text.contains(want), "missing '{want}' in:\n{text}");
    }
    let j = json(&ok(&["trace-stats", &helios, "--format", "json"]));
    assert_eq!(j["jobs"], 4);
    assert_eq!(j["by_gpus"].as_array().map(Vec::len), Some(4));
    assert_eq!(j["per_day"][0]["day"], "2020-07-01");
    assert_eq!(j["per_day"][0]["jobs"], 3);
    // Filters apply before the statistics.
    let j = json(&ok(&[
        "trace-stats",
        &helios,
        "--format",
        "json",
        "--status",
        "completed,timeout",
    ]));
    assert_eq!(j["jobs"], 2);
    let text = ok(&["trace-stats", &helios, "--vc", "vcBeta"]);
    assert!(text.contains("filter         vc vcBeta"), "{text}");
    let e = bad(&["trace-stats", &helios, "--vc", "vcNone"]);
    assert!(e.contains("keeps none of its 4 jobs"), "{e}");
    let e = bad(&["trace-stats", &helios, "--from", "June"]);
    assert!(e.contains("neither seconds nor a date-time"), "{e}");
    let broken = Temp::with(
        "broken",
        "csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-04,60,one,60,a\n",
    );
    let e = bad(&["trace-stats", broken.s()]);
    assert!(e.contains(":2: field 'num_gpus'"), "{e}");
}

#[test]
fn traces_of_durations_run_profile_free_or_with_a_profile() {
    let sia = data_file("philly_sia.csv");
    let o = orrery(&[
        "run",
        "--trace",
        &sia,
        "--cluster",
        "gpu:16/8",
        "--policy",
        "fifo",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("note ") && l.contains("profile-free: every job")),
        "{out}"
    );
    assert!(out.contains("jobs finished      5"), "{out}");
    // The same with the flag, and a filter with the seed; the summary names the filter.
    let out = ok(&[
        "run",
        "--trace",
        &sia,
        "--cluster",
        "gpu:16/8",
        "--policy",
        "fifo",
        "--profile-free",
        "--vc",
        "7b21aa",
        "--max-jobs",
        "2",
        "--seed",
        "4",
    ]);
    assert!(
        out.contains("trace filter (vc 7b21aa, at most 2 jobs sampled): 2 of 5 jobs kept"),
        "{out}"
    );
    // With a profile the jobs draw its job types (the gavel-types profile's GPU types).
    let profile = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces/gavel_types_profile.json");
    let out = ok(&[
        "run",
        "--trace",
        &sia,
        "--profile",
        profile.to_str().unwrap(),
        "--cluster",
        "v100:8,p100:8",
        "--policy",
        "fifo",
    ]);
    assert!(out.contains("job types drawn from the profile"), "{out}");
    assert!(!out.contains("profile-free"), "{out}");
    // The share link keeps the filter; a filter the trace cannot apply is refused.
    let link = ok(&[
        "link",
        "--trace",
        &sia,
        "--cluster",
        "gpu:16/8",
        "--policy",
        "fifo",
        "--from",
        "2017-10-04 09:15:00",
        "--max-jobs",
        "3",
    ]);
    let back = orrery::experiment::Experiment::from_link(link.trim()).unwrap();
    let f = back.trace_filter.clone().expect("the link's filter");
    assert_eq!(
        f.from,
        Some(orrery::workload::TimePoint::Date(
            "2017-10-04 09:15:00".into()
        ))
    );
    assert_eq!(f.max_jobs, Some(3));
    assert!(back.is_profile_free());
    let e = bad(&["link", "--trace", &sia, "--status", "Pass"]);
    assert!(e.contains("no job status"), "{e}");
}

#[test]
fn json_of_run_and_compare_says_profile_free_and_carries_the_notes() {
    let sia = data_file("philly_sia.csv");
    let common = ["--trace", &sia, "--cluster", "gpu:16/8", "--format", "json"];
    let run = json(&ok(&[&["run", "--policy", "fifo"], &common[..]].concat()));
    assert_eq!(run["profile_free"], serde_json::Value::Bool(true), "{run}");
    assert_eq!(run["num_jobs"], 5, "{run}");
    let notes = run["notes"].as_array().expect("notes");
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.starts_with("profile-free: every job"))),
        "{run}"
    );
    // Every summary of a comparison says so, with the filter's note.
    let cmp = json(&ok(&[
        &[
            "compare",
            "--policy",
            "fifo",
            "--policy",
            "las",
            "--max-jobs",
            "3",
        ],
        &common[..],
    ]
    .concat()));
    let rows = cmp.as_array().expect("an array of summaries");
    assert_eq!(rows.len(), 2);
    for s in rows {
        assert_eq!(s["profile_free"], serde_json::Value::Bool(true), "{s}");
        assert_eq!(s["num_jobs"], 3, "{s}");
        let notes: Vec<&str> = s["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .filter_map(|n| n.as_str())
            .collect();
        assert!(notes.iter().any(|n| n.contains("3 of 5 jobs kept")), "{s}");
    }
    // With a profile the trace is not profile-free: no such key, the note of job types drawn.
    let profile = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces/gavel_types_profile.json");
    let with = json(&ok(&[
        "run",
        "--trace",
        &sia,
        "--profile",
        profile.to_str().unwrap(),
        "--cluster",
        "v100:8,p100:8",
        "--policy",
        "fifo",
        "--format",
        "json",
    ]));
    assert!(with.get("profile_free").is_none(), "{with}");
    assert!(with["notes"][0]
        .as_str()
        .is_some_and(|n| n.contains("job types drawn from the profile")));
    // An experiment without notes prints the summary's fields alone.
    let plain = json(&ok(&["run", "--format", "json"]));
    assert!(
        plain.get("profile_free").is_none() && plain.get("notes").is_none(),
        "{plain}"
    );
}

#[test]
fn every_policy_lists_its_paper_and_paper_presets_print_the_papers_number() {
    let listed = ok(&["list"]);
    assert_eq!(listed, ok(&["policies"]), "`list` is `policies`");
    let papers = listed
        .lines()
        .filter(|l| l.trim_start().starts_with("paper: "))
        .count();
    let v = json(&ok(&["policies", "--format", "json"]));
    let all = v.as_array().unwrap();
    assert_eq!(papers, all.len(), "one paper line per policy");
    assert!(all.iter().all(|p| p["paper"]["url"]
        .as_str()
        .is_some_and(|u| u.starts_with("https://"))));
    assert!(listed.contains("Pollux: \"Pollux: Co-adaptive Cluster Scheduling"));
    let out = ok(&["compare", "--preset", "gavel-paper"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("paper: avg JCT of max_min_fairness_perf against max_min_fairness"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("Gavel reports up to 3.5x lower; here: "),
        "{line}"
    );
    assert!(out.contains("source: Gavel, OSDI 2020"), "{out}");
    // A preset by link is the preset; a plain run of the default trace states no paper.
    let a = ok(&["compare", "--preset", "dl2", "--format", "json"]);
    assert_eq!(
        a,
        ok(&["compare", "--link", "#preset=dl2", "--format", "json"])
    );
    assert!(!ok(&["compare", "--preset", "default"]).contains("paper:"));
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    // `orrery ... | head -c 0`: the pipe's reader is gone before the command writes.
    for args in [
        &["link"][..],
        &["compare", "--preset", "default", "--format", "json"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_orrery"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the orrery binary runs");
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("it ends");
        let err = stderr(&o);
        assert!(
            o.status.success(),
            "orrery {args:?}: {:?}\n{err}",
            o.status.code()
        );
        assert!(
            !err.contains("panicked") && !err.contains("cannot write"),
            "{err}"
        );
    }
}
