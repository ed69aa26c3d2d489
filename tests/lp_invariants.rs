//! Invariants of every LP policy over random inputs: x >= 0, each job's row sums to at most
//! 1, and no GPU type is over-allocated (sum_j scale_j x[j][t] <= GPUs of type t). For the
//! packed policies: x in [0, 1], each job's time alone and in its pairs at most 1, each pair
//! of two jobs of one scale factor listed once, and a pair's GPUs counted once per type.
//! For the policies that place jobs themselves (optimus, drf): each job at most once, on its
//! scale factor of GPUs of one type where it can run, within every type's count, and no job
//! left out while it would fit.

use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::policy::{self, Decision, JobView, PolicyView};
use orrery::rng::Rng;
use orrery::workload::Colocation;
use proptest::prelude::*;

const LP_POLICIES: [&str; 24] = [
    "isolated",
    "max_min_fairness",
    "max_min_fairness_perf",
    "finish_time_fairness",
    "finish_time_fairness_perf",
    "min_total_duration",
    "min_total_duration_perf",
    "max_sum_throughput_perf",
    "fifo",
    "fifo_perf",
    // With no colocated throughputs, the packed policies allocate single jobs only.
    "max_min_fairness_packed",
    "finish_time_fairness_packed",
    "min_total_duration_packed",
    "fifo_packed",
    "gandiva",
    "allox",
    "max_min_fairness_water_filling",
    "max_min_fairness_water_filling_perf",
    "hierarchical[weights=e0:2;e1:0.5]",
    "hierarchical[within=fifo,weights=e0:2]",
    "max_sum_throughput_normalized_by_cost_perf",
    "max_sum_throughput_normalized_by_cost_perf_slos",
    "max_min_fairness_water_filling_packed",
    "max_sum_throughput_normalized_by_cost_packed_slos",
];

/// A job: scale factor, throughput per type, remaining steps, seconds since arrival.
type Job = (u32, Vec<f64>, f64, f64);

fn instance() -> impl Strategy<Value = (Vec<u32>, Vec<Job>)> {
    (1usize..=3).prop_flat_map(|n| {
        (
            prop::collection::vec(1u32..=8, n),
            prop::collection::vec(
                (
                    prop::sample::select(vec![1u32, 1, 1, 2, 4]),
                    prop::collection::vec(prop_oneof![Just(0.0), 0.1f64..50.0], n),
                    100.0f64..1e6,
                    0.0f64..1e5,
                ),
                1..12,
            ),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn allocations_respect_base_constraints((counts, jobs) in instance()) {
        let n = counts.len();
        // Prices (for the cost policies): type t at t + 1 dollars per hour.
        let spec = counts.iter().enumerate().map(|(t, c)| format!("t{t}:{c}@{}", t + 1)).collect::<Vec<_>>().join(",");
        let cluster = ClusterSpec::parse(&spec).unwrap();
        // Every job must be able to run somewhere: give it throughput on type 0 if it has none.
        let mut thr: Vec<Vec<f64>> = jobs.iter().map(|j| j.1.clone()).collect();
        for row in &mut thr {
            if row.iter().all(|&v| v == 0.0) {
                row[0] = 1.0;
            }
        }
        // Three entities (for hierarchical); every other job has a deadline 2,000 s from
        // now (for the SLO policies; some cannot be met, which drops the SLOs).
        let specs: Vec<JobSpec> = jobs.iter().enumerate().map(|(i, j)| {
            let mut s = JobSpec::new("t", 0.0, j.2).with_scale(j.0);
            s.entity = Some(format!("e{}", i % 3));
            s.slo = (i % 2 == 0).then_some(j.3 + 2000.0);
            s
        }).collect();
        let time = vec![0.0; n];
        let view = PolicyView {
            now: 1e5,
            round_len: 360.0,
            cluster: &cluster,
            jobs: specs.iter().enumerate().map(|(i, s)| JobView {
                id: i,
                spec: s,
                throughput: &thr[i],
                steps_remaining: jobs[i].2,
                attained_service: 0.0,
                time_since_arrival: jobs[i].3,
                time_on_type: &time,
                running_on: None,
                rounds_run: 0,
            }).collect(),
            colocation: None,
            gavel_compat: false,
        };
        let scale: Vec<f64> = jobs.iter().map(|j| f64::from(j.0)).collect();
        let mut failures = 0;
        for name in LP_POLICIES {
            let mut p = policy::build(name).unwrap();
            match p.decide(&view, &mut Rng::new(1)) {
                Ok(Decision::Allocation(a)) => {
                    prop_assert_eq!(a.jobs.len(), jobs.len());
                    if name == "allox" {
                        // Whole GPUs: each job holds one type or none; multi-GPU jobs none.
                        for (row, j) in a.fractions.iter().zip(&jobs) {
                            prop_assert!(row.iter().all(|&x| x == 0.0 || x == 1.0), "{row:?}");
                            prop_assert!(j.0 == 1 || row.iter().all(|&x| x == 0.0), "{row:?}");
                        }
                    }
                    for row in &a.fractions {
                        prop_assert!(row.iter().all(|&x| (0.0..=1.0).contains(&x)), "{name}: {row:?}");
                        prop_assert!(row.iter().sum::<f64>() <= 1.0 + 1e-6, "{name}: row {row:?}");
                    }
                    for t in 0..n {
                        let used: f64 = a.fractions.iter().zip(&scale).map(|(r, s)| r[t] * s).sum();
                        prop_assert!(used <= f64::from(counts[t]) + 1e-5, "{name}: type {t} uses {used} of {}", counts[t]);
                    }
                }
                Ok(other) => prop_assert!(false, "{name} answered {other:?}"),
                // A failed solve is allowed (the mechanism keeps the previous allocation) but
                // must be reported as an error, never a panic.
                Err(e) => {
                    failures += 1;
                    eprintln!("{name}: {e}");
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
        prop_assert_eq!(failures, 0, "an LP failed on a feasible instance");
    }

    #[test]
    fn packed_allocations_respect_packed_constraints((counts, jobs) in instance(), seed in 0u64..1000) {
        packed_case(&counts, &jobs, seed)?;
    }
}

/// The packed policies' invariants on one instance (`seed` draws the colocated rates).
fn packed_case(counts: &[u32], jobs: &[Job], seed: u64) -> Result<(), TestCaseError> {
    let n = counts.len();
    let spec = counts
        .iter()
        .enumerate()
        .map(|(t, c)| format!("t{t}:{c}"))
        .collect::<Vec<_>>()
        .join(",");
    let cluster = ClusterSpec::parse(&spec).unwrap();
    let mut thr: Vec<Vec<f64>> = jobs.iter().map(|j| j.1.clone()).collect();
    for row in &mut thr {
        if row.iter().all(|&v| v == 0.0) {
            row[0] = 1.0;
        }
    }
    // Random colocated rates: each pair trains on a type with probability 1/2, at 0.1
    // to 1.2 times its isolated rates; some pairs of different scale factors too (the
    // policies must leave those out).
    let mut rng = Rng::new(seed);
    let m = jobs.len();
    let mut pairs = Vec::new();
    for a in 0..m {
        for b in a + 1..m {
            let row: Vec<(f64, f64)> = (0..n)
                .map(|t| {
                    if rng.uniform() < 0.5 {
                        (
                            thr[a][t] * rng.range(0.1, 1.2),
                            thr[b][t] * rng.range(0.1, 1.2),
                        )
                    } else {
                        (0.0, 0.0)
                    }
                })
                .collect();
            pairs.push(((a, b), row));
        }
    }
    let col = Colocation::from_rates(n, m, pairs);
    // Three entities (for hierarchical); every other job has a deadline 2,000 s from
    // now (for the SLO policies; some cannot be met, which drops the SLOs).
    let specs: Vec<JobSpec> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let mut s = JobSpec::new("t", 0.0, j.2).with_scale(j.0);
            s.entity = Some(format!("e{}", i % 3));
            s.slo = (i % 2 == 0).then_some(j.3 + 2000.0);
            s
        })
        .collect();
    let time = vec![0.0; n];
    let view = PolicyView {
        now: 1e5,
        round_len: 360.0,
        cluster: &cluster,
        jobs: specs
            .iter()
            .enumerate()
            .map(|(i, s)| JobView {
                id: i,
                spec: s,
                throughput: &thr[i],
                steps_remaining: jobs[i].2,
                attained_service: 0.0,
                time_since_arrival: jobs[i].3,
                time_on_type: &time,
                running_on: None,
                rounds_run: 0,
            })
            .collect(),
        colocation: Some(&col),
        gavel_compat: false,
    };
    for name in PACKED_POLICIES {
        let mut p = policy::build(name).unwrap();
        prop_assert!(p.traits().packing, "{name}");
        let a = match p.decide(&view, &mut Rng::new(1)) {
            Ok(Decision::Allocation(a)) => a,
            Ok(other) => {
                prop_assert!(false, "{name} answered {other:?}");
                unreachable!()
            }
            Err(e) => {
                prop_assert!(false, "{name} failed: {e}");
                unreachable!()
            }
        };
        prop_assert_eq!(a.jobs.len(), m);
        prop_assert_eq!(a.pairs.len(), a.pair_fractions.len());
        // Pairs once each, lower id first, ascending, of one scale factor.
        prop_assert!(
            a.pairs.windows(2).all(|w| w[0] < w[1]),
            "{name}: {:?}",
            a.pairs
        );
        for &(x, y) in &a.pairs {
            prop_assert!(x < y && y < m, "{name}: pair ({x}, {y})");
            prop_assert_eq!(jobs[x].0, jobs[y].0, "{}: pair of two scale factors", name);
        }
        for row in a.fractions.iter().chain(&a.pair_fractions) {
            prop_assert_eq!(row.len(), n);
            prop_assert!(
                row.iter().all(|&x| (0.0..=1.0).contains(&x)),
                "{name}: {row:?}"
            );
        }
        for j in 0..m {
            let alone: f64 = a.fractions[j].iter().sum();
            let shared: f64 = a
                .pairs
                .iter()
                .zip(&a.pair_fractions)
                .filter(|((x, y), _)| *x == j || *y == j)
                .map(|(_, r)| r.iter().sum::<f64>())
                .sum();
            prop_assert!(
                alone + shared <= 1.0 + 1e-6,
                "{name}: job {j} gets {alone} + {shared}"
            );
        }
        for t in 0..n {
            let singles: f64 = a
                .fractions
                .iter()
                .zip(jobs)
                .map(|(r, j)| r[t] * f64::from(j.0))
                .sum();
            let paired: f64 = a
                .pairs
                .iter()
                .zip(&a.pair_fractions)
                .map(|((x, _), r)| r[t] * f64::from(jobs[*x].0))
                .sum();
            prop_assert!(
                singles + paired <= f64::from(counts[t]) + 1e-5,
                "{name}: type {t} uses {singles} + {paired} of {}",
                counts[t]
            );
        }
    }
    Ok(())
}

/// Policies that place jobs themselves.
const ASSIGNMENT_POLICIES: [&str; 2] = ["optimus", "drf"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() })]

    /// Each job placed at most once, on all its GPUs of one type where it can run, and no
    /// type given more GPUs than it has.
    #[test]
    fn assignments_fit_the_cluster((counts, jobs) in instance(), seed in 0u64..1000) {
        let n = counts.len();
        let spec = counts.iter().enumerate().map(|(t, c)| format!("t{t}:{c}")).collect::<Vec<_>>().join(",");
        let cluster = ClusterSpec::parse(&spec).unwrap();
        let thr: Vec<Vec<f64>> = jobs.iter().map(|j| j.1.clone()).collect();
        let mut rng = Rng::new(seed);
        let time: Vec<Vec<f64>> = jobs.iter().map(|_| (0..n).map(|_| rng.range(0.0, 1e4)).collect()).collect();
        let running: Vec<Option<usize>> = jobs.iter().map(|_| {
            let r = rng.below(n as u64 + 1) as usize;
            (r < n).then_some(r)
        }).collect();
        let specs: Vec<JobSpec> = jobs.iter().enumerate().map(|(i, j)| JobSpec::new("t", (i % 3) as f64, j.2).with_scale(j.0)).collect();
        let view = PolicyView {
            now: 1e5,
            round_len: 360.0,
            cluster: &cluster,
            jobs: specs.iter().enumerate().map(|(i, s)| JobView {
                id: i,
                spec: s,
                throughput: &thr[i],
                steps_remaining: jobs[i].2,
                attained_service: 0.0,
                time_since_arrival: jobs[i].3,
                time_on_type: &time[i],
                running_on: running[i],
                rounds_run: 0,
            }).collect(),
            colocation: None,
            gavel_compat: false,
        };
        for name in ASSIGNMENT_POLICIES {
            let mut p = policy::build(name).unwrap();
            let Ok(Decision::Assignment(a)) = p.decide(&view, &mut Rng::new(1)) else {
                prop_assert!(false, "{name} gave no assignment");
                unreachable!()
            };
            let mut used = vec![0u32; n];
            let mut seen = vec![false; jobs.len()];
            for x in &a {
                prop_assert!(!std::mem::replace(&mut seen[x.job], true), "{name}: job {} twice", x.job);
                prop_assert_eq!(x.gpus, jobs[x.job].0, "{}: job {} on the wrong GPU count", name, x.job);
                prop_assert!(thr[x.job][x.gpu_type] > 0.0, "{name}: job {} where it cannot run", x.job);
                used[x.gpu_type] += x.gpus;
            }
            for t in 0..n {
                prop_assert!(used[t] <= counts[t], "{name}: type {t} gets {} of {}", used[t], counts[t]);
            }
            // Work-conserving: a job left out fits on no type with its free GPUs.
            for (j, job) in jobs.iter().enumerate() {
                if !seen[j] {
                    prop_assert!((0..n).all(|t| thr[j][t] <= 0.0 || counts[t] - used[t] < job.0), "{name}: job {j} left out with room");
                }
            }
        }
    }
}

const PACKED_POLICIES: [&str; 9] = [
    "max_min_fairness_packed",
    "max_min_fairness_packed[by_class=false]",
    "max_min_fairness_packed[partners=2]",
    "finish_time_fairness_packed",
    "min_total_duration_packed",
    "fifo_packed",
    "gandiva",
    "max_min_fairness_water_filling_packed",
    "max_sum_throughput_normalized_by_cost_packed_slos",
];

/// An instance the property test once drew: `max_min_fairness_water_filling_packed` gave
/// job 0 its own time and pair time summing to 1 + 1.1e-5.
#[test]
fn packed_water_filling_keeps_each_jobs_time_within_one() {
    let job = |s: u32, thr: [f64; 3]| -> Job { (s, thr.to_vec(), 100.0, 0.0) };
    let jobs = vec![
        job(1, [1.9752709509751616, 13.419740803151692, 0.0]),
        job(1, [0.0, 0.0, 37.34247744818215]),
        job(1, [0.0, 0.0, 26.02711303987058]),
        job(1, [12.893784106989004, 0.0, 39.30523918411649]),
        job(4, [5.569520149220583, 0.0, 34.617960481365095]),
        job(
            2,
            [6.135112522723156, 37.181153872593825, 20.892182658854118],
        ),
        job(1, [35.938470336093545, 6.8582051074933466, 0.0]),
        job(2, [24.785486831657515, 7.968015807903892, 45.5492509431369]),
        job(1, [0.0, 34.24543325261233, 16.844704753754456]),
        job(1, [37.00516930641742, 0.0, 3.123679773512482]),
        job(4, [0.0, 0.0, 0.0]),
    ];
    if let Err(e) = packed_case(&[4, 5, 2], &jobs, 926) {
        panic!("{e}");
    }
}
