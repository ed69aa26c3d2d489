//! Sia against Sia's own simulator: saturn workload-2 on Sia's cluster of T4, A100 and
//! RTX 2080Ti servers with Sia's per-type measurements, under `sia` and Sia's Gavel
//! baseline (`max_sum_throughput_perf` every 360 s over rigid jobs), compared with the
//! per-job JCTs of the artifact's runs (../shared/reference/sia/results).

use crate::common;
use common::correlation;
use orrery::experiment::{self, Experiment};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn sia_dir() -> Option<PathBuf> {
    common::reference("sia", "Sia's fidelity")
}

/// Sia's cluster (6 servers of 4 T4s, 2 of 8 A100s, 3 of 8 RTX 2080Tis).
const CLUSTER: &str = "aws:24/4,dgx-ext:16/8,rtx:24/8";

/// The experiment `orrery compare --trace workload-N.csv --profile traces --cluster
/// aws:24/4,dgx-ext:16/8,rtx:24/8` makes: 60 s ticks, each application with Sia's own
/// restart delay and slowdown (from the folder being Sia's).
fn saturn(dir: &Path, n: u32, policies: &[&str]) -> Experiment {
    common::folder_experiment(
        &dir.join(format!("workloads/saturn/workload-{n}.csv")),
        &dir.join("traces"),
        CLUSTER,
        policies,
    )
}

/// Per-job JCTs of a reference run, by job name.
fn reference(path: &Path) -> BTreeMap<String, f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (n, v) = l.split_once(',')?;
            Some((n.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// Runs saturn workload `n` under each policy and asserts its average JCT within its
/// tolerance of the reference run's (a per-job JCT file) and a per-job correlation of at
/// least 0.95.
fn matches_sias_simulator(dir: &Path, n: u32, runs: &[(&str, PathBuf, f64)]) {
    let specs: Vec<&str> = runs.iter().map(|r| r.0).collect();
    let exp = saturn(dir, n, &specs);
    let r = exp.resolve().unwrap();
    let names: Vec<String> =
        std::fs::read_to_string(dir.join(format!("workloads/saturn/workload-{n}.csv")))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap_or("").to_string())
            .collect();
    assert_eq!(names.len(), r.trace.jobs.len());
    let out = experiment::run(&exp).unwrap();
    for (res, (spec, file, tolerance)) in out.iter().zip(runs) {
        assert_eq!(res.summary.policy, *spec);
        assert_eq!(res.summary.num_jobs, 160);
        assert_eq!(res.summary.unfinished, 0, "{spec}");
        let avg = res.summary.avg_jct_s;
        let reference = reference(file);
        let target = reference.values().sum::<f64>() / reference.len() as f64;
        let jcts = res.recorder.jcts();
        let (ours, theirs): (Vec<f64>, Vec<f64>) = names
            .iter()
            .zip(&jcts)
            .filter_map(|(n, j)| Some(((*j)?, *reference.get(n)?)))
            .unzip();
        assert_eq!(ours.len(), 160, "{spec}: jobs matched by name");
        let rho = correlation(&ours, &theirs);
        let off = avg / target - 1.0;
        println!(
            "workload-{n}, {spec}: avg JCT {avg:.1} s against {target:.1} s in Sia's simulator ({:+.2}%); per-job correlation {rho:.3}",
            off * 100.0
        );
        assert!(off.abs() <= *tolerance, "{spec}: {avg} s vs {target} s");
        assert!(rho >= 0.95, "{spec}: per-job correlation {rho}");
    }
}

#[test]
fn sia_and_its_gavel_baseline_match_sias_simulator_on_saturn_workload_2() {
    let Some(dir) = sia_dir() else { return };
    let results = dir.join("results");
    matches_sias_simulator(
        &dir,
        2,
        &[
            ("sia", results.join("sia_saturn-2.jct.csv"), 0.05),
            (
                "max_sum_throughput_perf[round_s=360]",
                results.join("gavel_saturn-2.jct.csv"),
                0.05,
            ),
        ],
    );
}

#[test]
fn sia_matches_sias_simulator_on_saturn_workloads_3_and_4() {
    // Sia's simulator run here on workloads 3 and 4 as the artifact ran workload-2
    // (tests/data/sia_saturn-N.jct.csv; docs/fidelity.md has the command).
    let Some(dir) = sia_dir() else { return };
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for n in [3, 4] {
        let file = data.join(format!("sia_saturn-{n}.jct.csv"));
        matches_sias_simulator(&dir, n, &[("sia", file, 0.05)]);
    }
}

#[test]
fn sia_beats_pollux_and_its_gavel_baseline_on_the_bundled_scenario() {
    let exp = Experiment {
        policies: ["sia", "pollux", "max_sum_throughput_perf[round_s=360]"]
            .map(String::from)
            .to_vec(),
        ..orrery::experiment::scenarios::sia_experiment()
    };
    let out = experiment::run(&exp).unwrap();
    let avg: Vec<f64> = out.iter().map(|r| r.summary.avg_jct_s).collect();
    for r in &out {
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
        println!(
            "{}: avg JCT {:.0} s, makespan {:.0} s",
            r.summary.policy, r.summary.avg_jct_s, r.summary.makespan_s
        );
    }
    assert!(
        avg[0] < avg[1],
        "sia {} s not below pollux {} s",
        avg[0],
        avg[1]
    );
    assert!(
        avg[0] < avg[2],
        "sia {} s not below its Gavel baseline {} s",
        avg[0],
        avg[2]
    );
}
