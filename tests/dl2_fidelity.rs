//! DL2-compatible mode against DL2's own simulator: its workloads (10 traces at each of
//! three scales, seed 9973), its speed table and its heuristics' results
//! (`../shared/reference/dl2`). Every trace runs as one file, as `orrery compare --trace
//! ONE_TRACE.csv --profile ../shared/reference/dl2 --cluster gpu:<2 x nodes>/2 --round
//! <slot> --dl2-compat --no-fairness` runs it.

use crate::common::reference;
use orrery::experiment::{self, Experiment, ProfileSource, WorkloadSource};
use orrery::workload::dl2_gen::{Dl2Arrivals, Dl2Scale};
use orrery::workload::{GeneratorConfig, InlineFile};
use std::collections::BTreeMap;
use std::path::Path;

const POLICIES: [&str; 5] = ["drf", "srtf", "fifo", "tetris", "optimus"];

/// A scale: its name, nodes and slot length (s).
const SCALES: [(&str, u32, f64); 3] = [
    ("testbed", 6, 300.0),
    ("base", 96, 1200.0),
    ("large", 500, 1200.0),
];

/// The workload file's traces, each as a CSV of its own (header included).
fn traces(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    let mut by: BTreeMap<u32, String> = BTreeMap::new();
    for l in lines.filter(|l| !l.trim().is_empty()) {
        let t: u32 = l.split(',').next().unwrap().parse().unwrap();
        by.entry(t)
            .or_insert_with(|| format!("{header}\n"))
            .push_str(&format!("{l}\n"));
    }
    by.into_values().collect()
}

fn profile(dir: &Path) -> ProfileSource {
    let files = ["models.csv", "speed_function.csv"]
        .iter()
        .map(|f| InlineFile {
            path: f.to_string(),
            text: std::fs::read_to_string(dir.join(f)).unwrap(),
        })
        .collect();
    ProfileSource::Files {
        name: "dl2".into(),
        files,
    }
}

/// Average JCTs (slots) of DL2's simulator by (scale, numpy seed, policy, trace or
/// "mean"), from a table with the columns of summary.csv (`scale`, `np_seed`, `policy`,
/// `trace`, `avg_jct_slots`; others are ignored).
fn summary(text: &str) -> BTreeMap<(String, u32, String, String), f64> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|c| *c == n).unwrap();
    let (s, seed, p, t, v) = (
        col("scale"),
        col("np_seed"),
        col("policy"),
        col("trace"),
        col("avg_jct_slots"),
    );
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .map(|r| {
            (
                (
                    r[s].to_string(),
                    r[seed].parse().unwrap(),
                    r[p].to_string(),
                    r[t].to_string(),
                ),
                r[v].parse().unwrap(),
            )
        })
        .collect()
}

/// Each policy's per-job JCTs (slots) on one trace, in job order.
fn run_trace(dir: &Path, trace: &str, nodes: u32, slot: f64) -> Vec<Vec<f64>> {
    let workload = WorkloadSource::Inline {
        name: "trace.csv".into(),
        text: trace.into(),
    };
    run_workload(dir, workload, nodes, slot)
}

/// The experiment of `policies` on `workload` in DL2-compatible mode, on `nodes` of DL2's
/// nodes in slots of `slot` seconds, with DL2's profile folder `dir`.
fn compat_experiment(
    dir: &Path,
    workload: WorkloadSource,
    nodes: u32,
    slot: f64,
    policies: &[&str],
) -> Experiment {
    Experiment {
        workload,
        profile: profile(dir),
        cluster: format!("gpu:{}/2", 2 * nodes),
        round_s: slot,
        dl2_compat: true,
        fairness: false,
        policies: policies.iter().map(|p| p.to_string()).collect(),
        ..Experiment::default()
    }
}

/// Trace `trace` of numpy seed `seed` of DL2's generator at `scale`.
fn generated(scale: Dl2Scale, seed: u32, trace: u32) -> WorkloadSource {
    WorkloadSource::Generated(GeneratorConfig {
        num_jobs: scale.jobs(),
        seed: u64::from(seed),
        dl2: Some(Dl2Arrivals { scale, trace }),
        ..GeneratorConfig::default()
    })
}

/// Each policy's per-job JCTs (slots) on one workload, in job order.
fn run_workload(dir: &Path, workload: WorkloadSource, nodes: u32, slot: f64) -> Vec<Vec<f64>> {
    let exp = compat_experiment(dir, workload, nodes, slot, &POLICIES);
    experiment::run(&exp)
        .unwrap()
        .iter()
        .map(|r| {
            r.recorder
                .jcts()
                .iter()
                .map(|j| j.expect("every job finishes") / slot)
                .collect()
        })
        .collect()
}

#[test]
fn every_heuristic_matches_dl2s_simulator_on_its_workloads() {
    let Some(dir) = reference("dl2", "DL2-compatible mode against DL2's simulator") else {
        return;
    };
    let reference = summary(&std::fs::read_to_string(dir.join("summary.csv")).unwrap());
    for (scale, nodes, slot) in SCALES {
        let text =
            std::fs::read_to_string(dir.join(format!("workloads/{scale}_seed9973.csv"))).unwrap();
        let traces = traces(&text);
        assert_eq!(traces.len(), 10, "{scale}");
        let mut means = [0.0; POLICIES.len()];
        let mut off = Vec::new();
        for (t, trace) in traces.iter().enumerate() {
            let jcts = run_trace(&dir, trace, nodes, slot);
            for (k, p) in POLICIES.iter().enumerate() {
                let avg = jcts[k].iter().sum::<f64>() / jcts[k].len() as f64;
                means[k] += avg / traces.len() as f64;
                let r = reference[&(scale.to_string(), 9973, p.to_string(), t.to_string())];
                if (avg / r - 1.0).abs() > 1e-6 {
                    off.push(format!("{p} trace {t}: {avg:.4} against {r:.4}"));
                }
            }
        }
        for (k, p) in POLICIES.iter().enumerate() {
            let r = reference[&(scale.to_string(), 9973, p.to_string(), "mean".to_string())];
            let d = means[k] / r - 1.0;
            println!(
                "dl2 {scale} {p}: avg JCT {:.4} slots, DL2's simulator {r:.4} ({:+.4}%)",
                means[k],
                d * 100.0
            );
            assert!(
                d.abs() <= 0.02,
                "{scale} {p}: {:.4} against {r:.4}",
                means[k]
            );
        }
        println!(
            "dl2 {scale}: {} of {} (policy, trace) pairs differ from DL2's by more than 1e-6 {off:?}",
            off.len(),
            traces.len() * POLICIES.len()
        );
        // Every heuristic but Tetris takes DL2's decisions exactly; Tetris's packing
        // scores may tie differently in their last bits.
        assert!(off.iter().all(|o| o.starts_with("tetris")), "{off:?}");
    }
}

#[test]
fn each_job_finishes_when_it_does_in_dl2s_simulator() {
    let Some(dir) = reference("dl2", "DL2-compatible mode's per-job JCTs") else {
        return;
    };
    // Base scale, trace 0, every policy: each job's JCT (slots) as DL2's simulator has it.
    let text = std::fs::read_to_string(dir.join("workloads/base_seed9973.csv")).unwrap();
    let trace = traces(&text).remove(0);
    let jcts = run_trace(&dir, &trace, 96, 1200.0);
    for (k, p) in POLICIES.iter().enumerate() {
        let results =
            std::fs::read_to_string(dir.join(format!("results/base_seed9973_{p}.jct.csv")))
                .unwrap();
        let mut lines = results.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |n: &str| header.iter().position(|c| *c == n).unwrap();
        let (t, id, jct) = (col("trace"), col("job_id"), col("jct_slots"));
        let mut want: Vec<(usize, f64)> = lines
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|r| r[t] == "0")
            .map(|r| (r[id].parse().unwrap(), r[jct].parse().unwrap()))
            .collect();
        orrery::order::sort_by_key(&mut want, |w| w.0);
        assert_eq!(want.len(), jcts[k].len(), "{p}");
        if *p == "tetris" {
            // The same completion times, but jobs of one type that tie exactly (none of
            // them started) are served in another order than DL2's: compare the times.
            let arrivals: Vec<f64> = trace
                .lines()
                .skip(1)
                .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
                .collect();
            let mut ours: Vec<f64> = jcts[k].iter().zip(&arrivals).map(|(j, a)| j + a).collect();
            let mut theirs: Vec<f64> = want
                .iter()
                .zip(&arrivals)
                .map(|((_, j), a)| j + a)
                .collect();
            orrery::order::sort_by(&mut ours, f64::total_cmp);
            orrery::order::sort_by(&mut theirs, f64::total_cmp);
            for (o, t) in ours.iter().zip(&theirs) {
                assert!(
                    (o - t).abs() <= 1e-6 * t,
                    "tetris: a completion at {o} slots against {t}"
                );
            }
            continue;
        }
        for ((job, w), got) in want.iter().zip(&jcts[k]) {
            assert!(
                (got - w).abs() <= 1e-6 * w.max(1.0),
                "{p}: job {job} JCT {got} slots against {w}"
            );
        }
    }
}

#[test]
fn dl2s_generator_draws_dl2s_traces() {
    use orrery::workload::dl2_gen::{draw, epochs, TYPES};
    let Some(dir) = reference("dl2", "DL2's workload generator against DL2's traces") else {
        return;
    };
    for scale in Dl2Scale::ALL {
        let text =
            std::fs::read_to_string(dir.join(format!("workloads/{}_seed9973.csv", scale.name())))
                .unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |n: &str| header.iter().position(|c| *c == n).unwrap();
        let (t, slot, model, ep) = (
            col("trace"),
            col("arrival_slot"),
            col("model"),
            col("num_epochs"),
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        for k in 0..10u32 {
            let want: Vec<_> = rows.iter().filter(|r| r[t] == k.to_string()).collect();
            let got = draw(scale, 9973, k, scale.jobs());
            assert_eq!(got.len(), want.len(), "{} trace {k}", scale.name());
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.slot.to_string(), w[slot], "{} trace {k}", scale.name());
                assert_eq!(TYPES[g.kind].0, w[model], "{} trace {k}", scale.name());
                assert_eq!(
                    epochs(scale, g.kind),
                    w[ep].parse::<f64>().unwrap(),
                    "{} trace {k}",
                    scale.name()
                );
            }
        }
    }
}

/// DL2's simulator on other seeds of its generator (`tests/data/dl2_seeds.csv`: numpy
/// seeds 1 and 2, 10 traces at each scale, each heuristic's average JCT per trace and the
/// mean, as docs/fidelity.md says how they were run): Orrery's generator draws the traces
/// and DL2-compatible mode runs them.
#[test]
fn other_seeds_of_dl2s_generator_match_dl2s_simulator() {
    let Some(dir) = reference("dl2", "DL2's simulator on other seeds of its generator") else {
        return;
    };
    let want = summary(include_str!("data/dl2_seeds.csv"));
    for seed in [1u32, 2] {
        for scale in Dl2Scale::ALL {
            let mut means = [0.0; POLICIES.len()];
            let mut off = Vec::new();
            for t in 0..10u32 {
                let workload = generated(scale, seed, t);
                let jcts = run_workload(&dir, workload, scale.nodes(), scale.slot_s());
                for (k, p) in POLICIES.iter().enumerate() {
                    let avg = jcts[k].iter().sum::<f64>() / jcts[k].len() as f64;
                    means[k] += avg / 10.0;
                    let r = want[&(scale.name().into(), seed, p.to_string(), t.to_string())];
                    if (avg / r - 1.0).abs() > 1e-6 {
                        off.push(format!("{p} trace {t}: {avg:.4} against {r:.4}"));
                    }
                }
            }
            for (k, p) in POLICIES.iter().enumerate() {
                let r = want[&(scale.name().into(), seed, p.to_string(), "mean".into())];
                let d = means[k] / r - 1.0;
                println!(
                    "dl2 seed {seed} {} {p}: avg JCT {:.4} slots, DL2's simulator {r:.4} ({:+.4}%)",
                    scale.name(),
                    means[k],
                    d * 100.0
                );
                assert!(d.abs() <= 0.02, "seed {seed} {} {p}", scale.name());
            }
            assert!(off.iter().all(|o| o.starts_with("tetris")), "{off:?}");
        }
    }
}

/// DL2's bundled network of DL2's world against Optimus and DRF on DL2's base traces
/// (seed 9973), in DL2-compatible mode: DL2's paper has it below both.
#[test]
fn dl2s_network_beats_optimus_and_drf_on_dl2s_base_traces() {
    let Some(dir) = reference("dl2", "DL2's network in DL2's world") else {
        return;
    };
    let scale = Dl2Scale::Base;
    let mut means = [0.0; 3];
    for t in 0..10u32 {
        let exp = compat_experiment(
            &dir,
            generated(scale, 9973, t),
            scale.nodes(),
            scale.slot_s(),
            &["dl2", "optimus", "drf"],
        );
        for (k, r) in experiment::run(&exp).unwrap().iter().enumerate() {
            assert_eq!(r.summary.unfinished, 0);
            means[k] += r.summary.avg_jct_s / scale.slot_s() / 10.0;
        }
    }
    println!(
        "dl2 base seed 9973: dl2 {:.3}, optimus {:.3}, drf {:.3} slots ({:+.1}% / {:+.1}%)",
        means[0],
        means[1],
        means[2],
        (means[0] / means[1] - 1.0) * 100.0,
        (means[0] / means[2] - 1.0) * 100.0
    );
    assert!(means[0] < means[1] && means[0] < means[2], "{means:?}");
}
