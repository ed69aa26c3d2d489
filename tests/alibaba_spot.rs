//! Alibaba's spot GPU trace (cluster-trace-v2026-spot-gpu): the node table against the
//! per-model figures of ../shared/reference/faults/README.md, the README's four job rows,
//! hand-written job tables, and an imported trace, cluster and profile run by `orrery run`.

use crate::cli::{bad, json, ok, Temp};
use crate::common;
use orrery::workload::alibaba_spot::{profile, read_jobs, read_nodes, JobSampling};
use std::path::PathBuf;

/// A file of the reference folder's alibaba-spot-gpu/.
fn reference(name: &str, what: &str) -> Option<PathBuf> {
    Some(
        common::reference("faults", what)?
            .join("alibaba-spot-gpu")
            .join(name),
    )
}

fn read(p: &PathBuf) -> String {
    std::fs::read_to_string(p).expect("a reference file")
}

#[test]
fn node_table_gives_the_readmes_models_and_10412_gpus() {
    let Some(p) = reference("node_info_df.csv", "the Alibaba node table's totals") else {
        return;
    };
    let t = read_nodes(&read(&p), "node_info_df.csv").unwrap();
    assert_eq!((t.nodes(), t.gpus()), (4_278, 10_412));
    let mut got: Vec<(&str, u64, u64)> = t
        .models
        .iter()
        .map(|m| (m.model.as_str(), m.nodes, m.gpus))
        .collect();
    orrery::order::sort(&mut got);
    assert_eq!(
        got,
        [
            ("A10", 2_494, 2_494),
            ("A100-SXM4-80GB", 432, 3_456),
            ("A800-SXM4-80GB", 22, 176),
            ("GPU-series-1", 989, 1_558),
            ("GPU-series-2", 122, 976),
            ("H800", 219, 1_752),
        ]
    );
    let series1 = t.models.iter().find(|m| m.model == "GPU-series-1").unwrap();
    assert_eq!(series1.sizes, [(1, 902), (4, 10), (8, 77)]);
    // vCPUs: 192 on every GPU-series-1 node but one of 128; A10 128 but two of 126.
    assert_eq!(series1.cpus, 988.0 * 192.0 + 128.0);
    let a10 = t.models.iter().find(|m| m.model == "A10").unwrap();
    assert_eq!(a10.cpus, 2_492.0 * 128.0 + 2.0 * 126.0);
    let c = t.cluster().unwrap();
    assert_eq!(c.total_gpus(), 10_412);
    assert_eq!(
        c.to_string(),
        "gpu-series-1:1558,a10:2494,a100-sxm4-80gb:3456/8,gpu-series-2:976/8,h800:1752/8,a800-sxm4-80gb:176/8"
    );
}

#[test]
fn the_readmes_four_job_rows() {
    let (Some(nodes), Some(jobs)) = (
        reference("node_info_df.csv", "the Alibaba job rows"),
        reference("job_info_df.readme-rows.csv", "the Alibaba job rows"),
    ) else {
        return;
    };
    let cluster = read_nodes(&read(&nodes), "nodes")
        .unwrap()
        .cluster()
        .unwrap();
    let t = read_jobs(
        &read(&jobs),
        "jobs",
        Some(&cluster),
        &JobSampling::default(),
    )
    .unwrap();
    let s = &t.summary;
    assert_eq!((s.rows, s.hp.jobs, s.spot.jobs), (4, 2, 2));
    assert!(s.dropped.is_empty());
    let got: Vec<_> = t
        .trace
        .jobs
        .iter()
        .map(|j| {
            (
                j.job_type.as_str(),
                j.scale_factor,
                j.arrival,
                j.total_steps,
                j.spot,
                j.entity(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a10", 1, 0.0, 2_764_799.0, false, "13"),
            ("a10", 1, 0.0, 15_897_599.0, false, "13"),
            ("a100-sxm4-80gb", 16, 9_589_663.0, 41_060.0, true, "57"),
            ("a100-sxm4-80gb", 94, 9_589_663.0, 71_718.0, true, "57"),
        ]
    );
    let p = profile(&t.trace);
    t.trace.check_against(&p, &cluster).unwrap();
    for j in &t.trace.jobs {
        for g in &cluster.types {
            let want = (g.name == j.job_type).then_some(1.0);
            assert_eq!(p.throughput(&j.job_type, j.scale_factor, &g.name), want);
        }
    }
}

const HEADER: &str =
    "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type\n";

#[test]
fn hand_written_job_tables() {
    // Fractional requests, numbers written as floats, a reordered header, blank lines.
    let text = "\njob_type,duration,worker_num,gpu_model,gpu_request,submit_time,organization\n\n\
                Spot,600.0,3,H800,0.5,120.0,7\n\
                HP,60,3,H800,0.3333333333,100,7\n\
                HP,30.0,1.0,H800,0.25,100.0,\n";
    let t = read_jobs(text, "j.csv", None, &JobSampling::default()).unwrap();
    let got: Vec<_> = t
        .trace
        .jobs
        .iter()
        .map(|j| {
            (
                j.arrival,
                j.scale_factor,
                j.total_steps,
                j.spot,
                j.entity.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (0.0, 1, 60.0, false, Some("7".to_string())),
            (0.0, 1, 30.0, false, None),
            (20.0, 2, 600.0, true, Some("7".to_string())),
        ]
    );
    assert_eq!(t.trace.lines, [5, 6, 4]);
    // Bad rows: the error names the file, the line and the column.
    for (rows, want) in [
        (
            "1,2,A10,20.0,1.0,1,0,10,HP\n\n1,2,A10,20,1,1,0,10,Preemptible\n",
            "j.csv:4: field 'job_type': 'Preemptible' is neither HP nor Spot",
        ),
        (
            "1,2,A10,20,half,1,0,10,HP\n",
            "j.csv:2: field 'gpu_request': 'half' is not a number",
        ),
        (
            "1,2,A10,20,1,2.5,0,10,Spot\n",
            "j.csv:2: field 'worker_num': 2.5 is not a whole number",
        ),
        (
            "1,2,A10,20,1,1,0,-10,HP\n",
            "j.csv:2: field 'duration': -10 is negative",
        ),
        (
            "1,2,A10,20,1,1,0\n",
            "j.csv:2: field 'row': expected 9 fields (as the header), found 7",
        ),
    ] {
        let e = read_jobs(
            &format!("{HEADER}{rows}"),
            "j.csv",
            None,
            &JobSampling::default(),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), want);
    }
}

/// An invented node table: 4 H800 nodes of 8, 16 A10 nodes of 1, 2 mixed nodes.
const NODES: &str = "gpu_model,gpu_capacity_num,cpu_num,node_name\n\
    H800,8,192,0\nH800,8,192,1\nH800,8,192,2\nH800,8,192,3\n\
    A10,1,128,4\nA10,1,128,5\nA10,1,128,6\nA10,1,128,7\nA10,1,128,8\nA10,1,128,9\n\
    A10,1,128,10\nA10,1,128,11\nA10,1,128,12\nA10,1,128,13\nA10,1,128,14\nA10,1,128,15\n\
    A10,1,128,16\nA10,1,128,17\nA10,1,128,18\nA10,1,128,19\n\
    GPU-series-1,4,192,20\nGPU-series-1,1,192,21\n";

/// `n` invented jobs over the three models, one in four Spot, some fractional.
fn job_table(n: usize) -> String {
    let mut t = String::from(HEADER);
    for k in 0..n {
        let (model, gpu, workers) = match k % 4 {
            0 => ("H800", "1", 1 + k % 8),
            1 => ("A10", "0.5", 1 + k % 3),
            2 => ("GPU-series-1", "1.0", 1 + k % 2),
            _ => ("A10", "1", 1),
        };
        let kind = if k % 4 == 3 { "Spot" } else { "HP" };
        t.push_str(&format!(
            "{k},{},{model},8,{gpu},{workers},{}.0,{},{kind}\n",
            k % 5,
            60 * k,
            300 + 97 * (k % 11)
        ));
    }
    t
}

/// Import the tables with the CLI; run the trace with its cluster and profile under FIFO.
fn import_and_run(nodes: &str, jobs: &str, extra: &[&str]) -> (String, serde_json::Value) {
    let (trace, cluster, prof) = (
        Temp::new("spot-trace", "csv"),
        Temp::new("spot-cluster", "txt"),
        Temp::new("spot-profile", "json"),
    );
    let mut args = vec![
        "import-alibaba-spot",
        "--nodes",
        nodes,
        "--jobs",
        jobs,
        "--out",
        trace.s(),
        "--cluster-out",
        cluster.s(),
        "--profile-out",
        prof.s(),
    ];
    args.extend_from_slice(extra);
    let report = ok(&args);
    let spec = std::fs::read_to_string(cluster.path()).unwrap();
    let run = json(&ok(&[
        "run",
        "--trace",
        trace.s(),
        "--profile",
        prof.s(),
        "--cluster",
        spec.trim(),
        "--policy",
        "fifo",
        "--no-fairness",
        "--format",
        "json",
    ]));
    (report, run)
}

#[test]
fn an_imported_trace_runs_on_its_cluster_and_models() {
    let nodes = Temp::with("spot-nodes", "csv", NODES);
    let jobs = Temp::with("spot-jobs", "csv", &job_table(120));
    let (report, run) = import_and_run(nodes.s(), jobs.s(), &["--max-jobs", "30", "--seed", "4"]);
    for want in [
        "22 nodes, 53 GPUs, 3 GPU models",
        "cluster: h800:32/8,a10:16,gpu-series-1:5/4",
        "1 (1), 4 (1)",
        "120 rows, 120 jobs kept from 5 organizations",
        "trace: 30 jobs",
    ] {
        assert!(report.contains(want), "{want}:\n{report}");
    }
    assert_eq!(run["num_jobs"], 30);
    assert_eq!(run["unfinished"], 0);
    // Every job ran on its model alone: each model's GPUs are busy.
    for t in ["h800", "a10", "gpu-series-1"] {
        assert!(
            run["utilization_by_type"][t].as_f64().unwrap() > 0.0,
            "{t}: {run}"
        );
    }
    // A table of H800 jobs alone leaves every other type idle.
    let h800: String = job_table(40)
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l.contains("H800"))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let only = Temp::with("spot-h800", "csv", &h800);
    let (_, run) = import_and_run(nodes.s(), only.s(), &[]);
    assert_eq!(run["num_jobs"], 10);
    let by_type = &run["utilization_by_type"];
    assert!(by_type["h800"].as_f64().unwrap() > 0.0);
    assert_eq!(
        (by_type["a10"].as_f64(), by_type["gpu-series-1"].as_f64()),
        (Some(0.0), Some(0.0))
    );
}

#[test]
fn the_readme_rows_run_on_the_real_cluster() {
    let (Some(nodes), Some(jobs)) = (
        reference("node_info_df.csv", "a run of the Alibaba job rows"),
        reference(
            "job_info_df.readme-rows.csv",
            "a run of the Alibaba job rows",
        ),
    ) else {
        return;
    };
    let (report, run) = import_and_run(
        nodes.to_str().unwrap(),
        jobs.to_str().unwrap(),
        &["--format", "json"],
    );
    assert!(
        report.contains("4278 nodes, 10412 GPUs, 6 GPU models"),
        "{report}"
    );
    assert!(report.contains("trace: 4 jobs (2 HP, 2 Spot)"), "{report}");
    assert_eq!(run["num_jobs"], 4);
    assert_eq!(run["unfinished"], 0);
    // GPU-hours: 1 x (2,764,799 + 15,897,599) + 16 x 41,060 + 94 x 71,718 GPU-seconds.
    let want = (2_764_799.0 + 15_897_599.0 + 16.0 * 41_060.0 + 94.0 * 71_718.0) / 3600.0;
    assert!(
        (run["gpu_hours"].as_f64().unwrap() - want).abs() < 0.5,
        "{run}"
    );
}

#[test]
fn cli_errors_and_a_node_table_alone() {
    let nodes = Temp::with("spot-nodes", "csv", NODES);
    let cluster = Temp::new("spot-cluster", "txt");
    let out = ok(&[
        "import-alibaba-spot",
        "--nodes",
        nodes.s(),
        "--cluster-out",
        cluster.s(),
    ]);
    assert!(out.starts_with("node table "), "{out}");
    assert_eq!(
        std::fs::read_to_string(cluster.path()).unwrap(),
        "h800:32/8,a10:16,gpu-series-1:5/4\n"
    );
    let jobs = Temp::with(
        "spot-bad",
        "csv",
        &format!("{HEADER}1,2,A10,1,1,1,0,10,HP\n1,2,A10,1,1,1,x,10,HP\n"),
    );
    let err = bad(&[
        "import-alibaba-spot",
        "--nodes",
        nodes.s(),
        "--jobs",
        jobs.s(),
    ]);
    assert!(
        err.contains(":3: field 'submit_time': 'x' is not a number"),
        "{err}"
    );
    let err = bad(&["import-alibaba-spot", "--nodes", jobs.s()]);
    assert!(
        err.contains(":1: field 'gpu_capacity_num': missing column"),
        "{err}"
    );
}
