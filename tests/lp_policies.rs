//! Whole runs of the hierarchical and SLO policies on Gavel's static trace
//! (../shared/reference/gavel; SKIPPED when absent), 8:8:8 Gavel-compatible: entity weights
//! order the entities' average JCTs, and deadlines are met more often with SLOs than
//! without.

use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::workload::{Profile, Trace};
use std::path::{Path, PathBuf};

fn reference() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/gavel");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("SKIPPED: {} is absent (a bare clone)", dir.display());
        None
    }
}

fn experiment(dir: &Path, cluster: &str, trace: &Trace, policies: &[&str]) -> Experiment {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    Experiment {
        cluster: cluster.into(),
        workload: WorkloadSource::Inline {
            name: "static100.json".into(),
            text: trace.to_json(),
        },
        profile: ProfileSource::Inline {
            name: "simulation_throughputs.json".into(),
            text: read("simulation_throughputs.json"),
        },
        policies: policies.iter().map(|p| p.to_string()).collect(),
        seed: 0,
        round_s: 360.0,
        gavel_compat: true,
        fairness: false,
        ..Experiment::default()
    }
}

fn static_trace(dir: &Path) -> Trace {
    let text = std::fs::read_to_string(dir.join("static100_seed0.trace")).unwrap();
    Trace::parse(&text, "static100_seed0.trace").unwrap()
}

#[test]
fn entity_weights_order_the_entities() {
    let Some(dir) = reference() else { return };
    let mut trace = static_trace(&dir);
    for (i, j) in trace.jobs.iter_mut().enumerate() {
        j.entity = Some(if i % 2 == 0 { "a" } else { "b" }.into());
    }
    let specs = [
        "hierarchical[weights=a:3]",
        "hierarchical[weights=b:3]",
        "hierarchical[weights=a:3,within=fifo]",
    ];
    let exp = experiment(&dir, "8:8:8", &trace, &specs);
    let r = exp.resolve().unwrap();
    for spec in specs {
        let res = r.run_policy(spec, None, None, |_| {}).unwrap();
        assert_eq!((res.summary.num_jobs, res.summary.unfinished), (100, 0));
        let avg = |parity: usize| {
            let jcts: Vec<f64> = res
                .recorder
                .jobs
                .iter()
                .filter(|j| j.id % 2 == parity)
                .map(|j| j.finish.unwrap() - j.arrival)
                .collect();
            jcts.iter().sum::<f64>() / jcts.len() as f64
        };
        let (a, b) = (avg(0), avg(1));
        println!("{spec}: entity a avg JCT {a:.1} s, entity b {b:.1} s");
        if spec.contains("a:3") {
            assert!(a < b, "{spec}: {a} vs {b}");
        } else {
            assert!(b < a, "{spec}: {a} vs {b}");
        }
    }
}

#[test]
fn deadlines_are_met_more_often_with_slos() {
    let Some(dir) = reference() else { return };
    let mut trace = static_trace(&dir);
    let cluster = "v100:8@3.06,p100:8@1.35,k80:8@0.9";
    let text = std::fs::read_to_string(dir.join("simulation_throughputs.json")).unwrap();
    let profile = Profile::parse(&text, "simulation_throughputs.json").unwrap();
    let gpus = ClusterSpec::parse(cluster).unwrap();
    // Every fifth job must finish within twice its duration alone on its fastest type
    // (Gavel's middle SLO factor).
    for (i, j) in trace.jobs.iter_mut().enumerate() {
        if i % 5 == 0 {
            let best = profile
                .throughputs_on(&j.job_type, j.scale_factor, &gpus)
                .into_iter()
                .fold(0.0, f64::max);
            j.slo = Some(2.0 * j.total_steps / best);
        }
    }
    let specs = [
        "max_sum_throughput_normalized_by_cost_perf",
        "max_sum_throughput_normalized_by_cost_perf_slos",
        "max_sum_throughput_normalized_by_cost_packed_slos",
    ];
    let exp = experiment(&dir, cluster, &trace, &specs);
    let r = exp.resolve().unwrap();
    let mut met = Vec::new();
    for spec in specs {
        let res = r.run_policy(spec, None, None, |_| {}).unwrap();
        assert_eq!((res.summary.num_jobs, res.summary.unfinished), (100, 0));
        let m = res
            .recorder
            .jobs
            .iter()
            .filter(|j| {
                let slo = trace.jobs[j.id].slo;
                slo.is_some_and(|d| j.finish.unwrap() - j.arrival <= d)
            })
            .count();
        println!(
            "{spec}: {m} of 20 deadlines met, avg JCT {:.1} s",
            res.summary.avg_jct_s
        );
        met.push(m);
    }
    assert!(met[1] > met[0] && met[2] > met[0], "{met:?}");
}
