//! Fidelity against Gavel's own simulator: the reference runs in ../shared/reference/gavel
//! (traces, throughputs and per-job JCTs of Gavel's simulator, seed 0, 360 s rounds).

use crate::common;
use common::correlation;
use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use std::path::Path;

fn reference_dir() -> Option<std::path::PathBuf> {
    common::reference("gavel", "Gavel fidelity")
}

fn read(dir: &Path, f: &str) -> String {
    std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"))
}

/// (avg JCT, makespan, per-job JCTs) of Orrery's Gavel-compatible run.
fn run(dir: &Path, trace: &str, cluster: &str, policy: &str) -> (f64, f64, Vec<f64>) {
    let exp = Experiment {
        cluster: cluster.into(),
        workload: WorkloadSource::Inline {
            name: trace.into(),
            text: read(dir, trace),
        },
        profile: ProfileSource::Inline {
            name: "simulation_throughputs.json".into(),
            text: read(dir, "simulation_throughputs.json"),
        },
        policies: vec![policy.into()],
        seed: 0,
        round_s: 360.0,
        gavel_compat: true,
        fairness: false,
        ..Experiment::default()
    };
    let r = exp.resolve().unwrap();
    let res = r.run_policy(policy, None, None, |_| {}).unwrap();
    let jcts: Vec<f64> = res
        .recorder
        .jcts()
        .into_iter()
        .map(|j| j.unwrap_or(f64::NAN))
        .collect();
    (res.summary.avg_jct_s, res.summary.makespan_s, jcts)
}

fn reference(dir: &Path, name: &str) -> Vec<f64> {
    read(dir, &format!("results/{name}.jct.csv"))
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().trim().parse().unwrap())
        .collect()
}

fn check(trace: &str, cluster_tag: &str, policy: &str, want_avg: f64, tol: f64, min_corr: f64) {
    let Some(dir) = reference_dir() else { return };
    let cluster = if cluster_tag == "36" {
        "36:36:36"
    } else {
        "8:8:8"
    };
    let (avg, makespan, jcts) = run(&dir, &format!("{trace}_seed0.trace"), cluster, policy);
    let refj = reference(&dir, &format!("replay_{trace}_{cluster_tag}_{policy}"));
    let ref_avg = refj.iter().sum::<f64>() / refj.len() as f64;
    assert!(
        (ref_avg - want_avg).abs() < 1.0,
        "reference file average {ref_avg} vs README {want_avg}"
    );
    let corr = correlation(&jcts, &refj);
    let err = (avg - want_avg) / want_avg;
    println!("{trace} {cluster} {policy}: avg JCT {avg:.1} s vs Gavel {want_avg:.1} s ({:+.2}%), makespan {makespan:.1} s, per-job correlation {corr:.4}", err * 100.0);
    assert!(
        err.abs() <= tol,
        "avg JCT {avg} off by {:.2}% (allowed {:.0}%)",
        err * 100.0,
        tol * 100.0
    );
    assert!(corr >= min_corr, "per-job JCT correlation {corr}");
}

#[test]
fn static100_max_min_fairness_perf_within_1pct() {
    check(
        "static100",
        "36",
        "max_min_fairness_perf",
        57_651.239,
        0.01,
        0.99,
    );
}

#[test]
fn static100m_max_min_fairness_perf_within_1pct() {
    check(
        "static100m",
        "36",
        "max_min_fairness_perf",
        63_480.837,
        0.01,
        0.99,
    );
}

#[test]
fn static100_max_min_fairness_within_5pct() {
    check("static100", "36", "max_min_fairness", 74_828.132, 0.05, 0.9);
}

#[test]
fn static100m_max_min_fairness_within_5pct() {
    check(
        "static100m",
        "36",
        "max_min_fairness",
        87_172.086,
        0.05,
        0.9,
    );
}

#[test]
fn static100_8x8x8_fifo_perf_within_1pct() {
    check("static100", "8", "fifo_perf", 121_581.054, 0.01, 0.99);
}

#[test]
fn static100_8x8x8_max_sum_throughput_perf_within_1pct() {
    check(
        "static100",
        "8",
        "max_sum_throughput_perf",
        110_978.434,
        0.01,
        0.99,
    );
}

#[test]
fn static100_8x8x8_finish_time_fairness_perf_within_1pct() {
    check(
        "static100",
        "8",
        "finish_time_fairness_perf",
        92_223.528,
        0.01,
        0.99,
    );
}

#[test]
fn static100_8x8x8_isolated_within_1pct() {
    check("static100", "8", "isolated", 117_233.040, 0.01, 0.99);
}

/// The makespan LP's feasibility problems have no objective, so which feasible point comes
/// back is the solver's choice. The bisection over T, the LP and its inputs are Gavel's: the
/// same LP given to Clarabel through cvxpy gives Orrery's allocation (to 5e-11), and Gavel's
/// allocations (ECOS) fed to Orrery's Gavel-compatible mechanism give Gavel's average JCT and
/// makespan to 0.1 s. Clarabel's points differ from ECOS's (by up to 0.075 in a fraction at
/// the first solve), which puts Orrery 3.2% below Gavel's average JCT (makespan within 0.5%).
#[test]
fn static100_8x8x8_min_total_duration_perf_within_5pct() {
    check(
        "static100",
        "8",
        "min_total_duration_perf",
        152_361.771,
        0.05,
        0.98,
    );
}
