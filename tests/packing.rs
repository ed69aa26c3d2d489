//! Space sharing in the round simulator: a pair of jobs runs on one set of GPUs, each job
//! at its colocated rate, and the GPUs' time counts once; the packed policies on Gavel's
//! static trace (../shared/reference/gavel; SKIPPED when absent).

use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use orrery::metrics::Recorder;
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::policy;
use orrery::sim::{RoundReport, SimConfig, SimEvent, Simulator};
use orrery::workload::profile::ColocatedEntry;
use orrery::workload::Profile;
use std::path::PathBuf;

/// Job types A and B at 1 step/s alone on v100; together A trains at 0.9 and B at 0.8.
fn profile() -> Profile {
    let mut p = Profile::default();
    p.set("A", 1, "v100", 1.0);
    p.set("B", 1, "v100", 1.0);
    for (this, other, a, b) in [("A", "B", 0.9, 0.8), ("B", "A", 0.8, 0.9)] {
        if let Some(jt) = p.job_types.get_mut(this) {
            jt.colocated.push(ColocatedEntry {
                scale: 1,
                with: other.into(),
                with_scale: 1,
                gpu: "v100".into(),
                this: a,
                other: b,
            });
        }
    }
    p
}

/// Job 0 (A) of 9 x 324 + 90 steps and job 1 (B) of 10 x 288 + 100 steps on one V100.
fn simulator(policy: &str, gavel_compat: bool) -> Simulator {
    let jobs = vec![
        JobSpec::new("A", 0.0, 9.0 * 324.0 + 90.0),
        JobSpec::new("B", 0.0, 10.0 * 288.0 + 100.0),
    ];
    Simulator::new(
        SimConfig {
            gavel_compat,
            ..SimConfig::default()
        },
        ClusterSpec::parse("v100:1").unwrap(),
        jobs,
        profile(),
        policy::build(policy).unwrap(),
    )
    .unwrap()
}

fn run(sim: &mut Simulator) -> (Vec<RoundReport>, Recorder) {
    let mut rec = Recorder::new(sim.specs(), sim.cluster().num_types());
    let mut reports = Vec::new();
    while let Some(r) = sim.step_round() {
        for e in &r.events {
            rec.observe(e);
        }
        reports.push(r);
    }
    (reports, rec)
}

fn ran(r: &RoundReport) -> Vec<(usize, f64, f64, Option<usize>)> {
    r.events
        .iter()
        .filter_map(|e| match e {
            SimEvent::Ran {
                job,
                steps,
                end,
                shared_with,
                ..
            } => Some((*job, *steps, *end, *shared_with)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_pair_shares_one_gpu_at_its_colocated_rates_gavel_compat() {
    // fifo_packed places job 0 and packs job 1 onto it (0.9 + 0.8 > 1.5).
    let mut sim = simulator("fifo_packed", true);
    let first = sim.step_round().unwrap();
    // Both run on GPU 0 for the whole round: trunc(0.9 x 360) and trunc(0.8 x 360) steps.
    assert_eq!(
        ran(&first),
        vec![(0, 324.0, 360.0, Some(1)), (1, 288.0, 360.0, Some(0))]
    );
    assert!(first.events.iter().any(|e| matches!(
        e,
        SimEvent::RoundEnded { busy_gpus, running: 2, .. } if busy_gpus == &vec![1]
    )));
    assert_eq!(sim.gpu_owners(), &[vec![Some(0)]]);
    assert_eq!(sim.gpu_sharers(), &[vec![Some(1)]]);
    assert_eq!(sim.pair_allocation_row(1, 0), Some(&[1.0][..]));
    let mut sim = simulator("fifo_packed", true);
    let (reports, rec) = run(&mut sim);
    assert_eq!(reports[0], first);
    // Round 10: job 0 needs 90 steps (100 s) but, as in Gavel, finishes with its pair at
    // 3,600 s; job 1 then runs alone for its last 100 steps (the allocation is recomputed:
    // the job set changed and 3,600 s >= 1,920 s passed).
    let jcts = rec.jcts();
    assert_eq!(jcts, vec![Some(3600.0), Some(3700.0)]);
    let last = reports.last().unwrap();
    assert_eq!(ran(last), vec![(1, 100.0, 3700.0, None)]);
    assert_eq!(sim.gpu_sharers(), &[vec![None]]);
    // The GPU was busy from 0 to 3,700 s, counted once.
    let s = rec.summary("fifo_packed", sim.cluster(), None, None);
    assert!((s.utilization - 1.0).abs() < 1e-12, "{}", s.utilization);
    assert!(
        (s.gpu_hours - 3700.0 / 3600.0).abs() < 1e-12,
        "{}",
        s.gpu_hours
    );
    assert_eq!(rec.jobs[0].gpu_seconds, vec![1800.0]);
    assert_eq!(rec.jobs[1].gpu_seconds, vec![1900.0]);
}

#[test]
fn a_pair_in_the_default_mode() {
    let mut sim = simulator("fifo_packed", false);
    let (reports, rec) = run(&mut sim);
    // Fractional steps at the colocated rates; job 0 finishes at its own last step,
    // 3,240 + 90 / 0.9 = 3,340 s, while the pair's slice (and the GPU) lasts to 3,600 s.
    let jcts = rec.jcts();
    assert!((jcts[0].unwrap() - 3340.0).abs() < 1e-6, "{jcts:?}");
    assert!((jcts[1].unwrap() - 3700.0).abs() < 1e-6, "{jcts:?}");
    let tenth = ran(&reports[9]);
    assert_eq!(tenth.len(), 2);
    assert!((tenth[0].1 - 90.0).abs() < 1e-9 && (tenth[0].2 - 3600.0).abs() < 1e-9);
    let busy: f64 = rec.busy_seconds.iter().sum();
    assert!((busy - 3700.0).abs() < 1e-6, "{busy}");
}

#[test]
fn max_min_fairness_packed_mostly_pairs_the_jobs() {
    // The LP gives the pair 1/1.1 of the GPU and job 1 alone 0.1/1.1 (both then train at
    // 0.9/1.1 steps/s); the mechanism runs the pair in most rounds and job 1 alone in some.
    for compat in [true, false] {
        let mut sim = simulator("max_min_fairness_packed", compat);
        let (reports, rec) = run(&mut sim);
        assert!(rec.jcts().iter().all(Option::is_some));
        let pair_rounds = reports
            .iter()
            .filter(|r| ran(r).iter().any(|x| x.3.is_some()))
            .count();
        let alone_1 = reports
            .iter()
            .filter(|r| ran(r).iter().any(|x| x.0 == 1 && x.3.is_none()))
            .count();
        assert!(pair_rounds >= 8 && alone_1 >= 1, "{pair_rounds} {alone_1}");
        // Never more than the one GPU busy.
        let s = rec.summary("p", sim.cluster(), None, None);
        assert!(s.utilization <= 1.0 + 1e-12, "{}", s.utilization);
    }
}

#[test]
fn gandiva_pairs_the_two_jobs_on_the_oversubscribed_gpu() {
    // Two jobs, one GPU: Gandiva's only draw pairs them (gain 0.9 + 0.8 >= 1), and the pair
    // gets the whole GPU until job 0 is done; then job 1 is alone and time-slices by itself.
    for compat in [true, false] {
        let mut sim = simulator("gandiva", compat);
        let (reports, rec) = run(&mut sim);
        assert!(ran(&reports[0]).iter().all(|x| x.3.is_some()), "{compat}");
        let paired = reports
            .iter()
            .filter(|r| ran(r).iter().any(|x| x.3.is_some()))
            .count();
        assert_eq!(paired, 10, "{compat}");
        let jcts = rec.jcts();
        assert!((jcts[1].unwrap() - 3700.0).abs() < 1e-6, "{jcts:?}");
        if compat {
            assert_eq!(jcts[0], Some(3600.0));
        }
    }
}

#[test]
fn policies_that_do_not_pack_never_share_gpus() {
    let mut sim = simulator("max_min_fairness_perf", true);
    let (reports, _) = run(&mut sim);
    assert!(reports.iter().all(|r| ran(r).iter().all(|x| x.3.is_none())));
    assert!(sim.colocation().is_empty());
}

/// Gavel's static trace (100 single-GPU jobs at t = 0) on 8:8:8, Gavel-compatible: every
/// job finishes under each packed policy. Gavel has no reference runs of these; the
/// average JCTs are printed next to the unpacked policy's.
fn static100(packed: &str, unpacked: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/gavel");
    if !dir.is_dir() {
        println!("SKIPPED: {} is absent (a bare clone)", dir.display());
        return;
    }
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let exp = Experiment {
        cluster: "8:8:8".into(),
        workload: WorkloadSource::Inline {
            name: "static100_seed0.trace".into(),
            text: read("static100_seed0.trace"),
        },
        profile: ProfileSource::Inline {
            name: "simulation_throughputs.json".into(),
            text: read("simulation_throughputs.json"),
        },
        policies: vec![packed.into(), unpacked.into()],
        seed: 0,
        round_s: 360.0,
        gavel_compat: true,
        fairness: false,
        ..Experiment::default()
    };
    let r = exp.resolve().unwrap();
    let mut avg = Vec::new();
    for p in [packed, unpacked] {
        let res = r.run_policy(p, None, None, |_| {}).unwrap();
        let s = &res.summary;
        assert_eq!((s.num_jobs, s.unfinished), (100, 0), "{p}");
        assert_eq!(s.policy_failures, 0, "{p}");
        assert!(s.utilization <= 1.0 + 1e-9, "{p}: {}", s.utilization);
        avg.push((s.avg_jct_s, s.makespan_s, s.utilization));
    }
    println!(
        "static100 8:8:8 {packed}: avg JCT {:.1} s, makespan {:.1} s, utilization {:.3}; {unpacked}: avg JCT {:.1} s, makespan {:.1} s, utilization {:.3} ({:+.1}%)",
        avg[0].0,
        avg[0].1,
        avg[0].2,
        avg[1].0,
        avg[1].1,
        avg[1].2,
        (avg[0].0 / avg[1].0 - 1.0) * 100.0
    );
}

#[test]
fn static100_max_min_fairness_packed_finishes_every_job() {
    static100("max_min_fairness_packed", "max_min_fairness_perf");
}

#[test]
fn static100_finish_time_fairness_packed_finishes_every_job() {
    static100("finish_time_fairness_packed", "finish_time_fairness_perf");
}

#[test]
fn static100_min_total_duration_packed_finishes_every_job() {
    static100("min_total_duration_packed", "min_total_duration_perf");
}

#[test]
fn static100_gandiva_finishes_every_job() {
    static100("gandiva", "max_min_fairness_perf");
}

#[test]
fn static100_fifo_packed_finishes_every_job() {
    static100("fifo_packed", "fifo_perf");
}
