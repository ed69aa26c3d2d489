//! Properties of random small experiments of every policy family: at every step no GPU type
//! holds more jobs' GPUs than it has, every job finishes (none dropped, none left running),
//! each job's JCT is at least its time alone on its fastest GPU type (see [`time_alone`]),
//! and the same experiment run twice gives identical summaries.
//!
//! Each case draws a family's policy, a cluster of its mechanism's shape, a generated
//! workload of 1 to 6 jobs, and seeds. The case count is `PROPTEST_CASES` per family when
//! set (docs/hardening.md's 10,000-case run), else [`DEFAULT_CASES`]; the policy of each case is
//! drawn from the family's catalog entries, so every policy of a family is exercised.

use orrery::experiment::scenarios;

use orrery::experiment::{Experiment, ProfileSource, Resolved};
use orrery::metrics::Recorder;
use orrery::policy::catalog;
use orrery::sim::{Mechanism, SimEvent};
use orrery::workload::GeneratorConfig;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Cases per family in the default test run.
const DEFAULT_CASES: u32 = 200;

/// Steps after which a run counts as a stall.
const MAX_STEPS: usize = 200_000;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

/// The policies of `family` with the mechanism each runs in, from the catalog: each name,
/// and the variants the page lists beside it (Aryl's ablations, PickyMan's overhead-blind
/// form).
fn family_policies(family: &str) -> Vec<(&'static str, Mechanism)> {
    let mut out = Vec::new();
    for e in catalog::catalog() {
        for i in e.implementations.iter().filter(|i| i.family == family) {
            out.push((e.name, i.mechanism));
            for v in catalog::variants(e.name) {
                if v.spec != e.name {
                    out.push((v.spec, i.mechanism));
                }
            }
        }
    }
    out
}

/// One random experiment's draws.
#[derive(Debug, Clone)]
struct Draw {
    policy: usize,
    counts: [u32; 3],
    jobs: usize,
    rate: f64,
    multi_gpu: bool,
    weights: bool,
    seed: u64,
}

fn draws() -> impl Strategy<Value = Draw> {
    (
        any::<usize>(),
        (1u32..=4, 1u32..=8, 1u32..=8),
        1usize..=6,
        prop_oneof![Just(0.0), 0.5f64..20.0],
        any::<bool>(),
        any::<bool>(),
        0u64..1_000_000,
    )
        .prop_map(
            |(policy, (a, b, c), jobs, rate, multi_gpu, weights, seed)| Draw {
                policy,
                counts: [a, b, c],
                jobs,
                rate,
                multi_gpu,
                weights,
                seed,
            },
        )
}

/// The experiment of `d` for a policy of `family` running in `mechanism`: the family's
/// bundled scenario with a cluster of the draw's size and a short generated workload.
fn experiment(family: &str, mechanism: Mechanism, policy: &str, d: &Draw) -> Experiment {
    let [a, b, c] = d.counts;
    let (base, cluster) = match mechanism {
        // At least 8 GPUs of one type, so a job of 8 GPUs fits.
        Mechanism::Rounds => (
            scenarios::default_experiment(),
            format!("v100:{},p100:{b},k80:{c}", 4 + a),
        ),
        // At least 32 GPUs of one type: an elastic job may ask for 32 replicas.
        Mechanism::Elastic if family == "sia" => (
            scenarios::sia_experiment(),
            format!("t4:{}/4,a100:{}/8,v100:32/8", 4 * a, 8 * b.min(4)),
        ),
        Mechanism::Elastic => (
            scenarios::pollux_experiment(),
            format!("gpu:{}/4", 28 + 4 * a),
        ),
        Mechanism::Pooled => (
            scenarios::aryl_experiment(),
            format!("v100:{}/8,inference:{}/8", 8 * (1 + a), 8 * a),
        ),
        Mechanism::Preemptive => (scenarios::pickyman_experiment(), format!("v100:{}", 4 + a)),
        Mechanism::Slots => (scenarios::dl2_experiment(), format!("gpu:{}/8", 8 * a)),
    };
    let generated = match &base.workload {
        orrery::experiment::WorkloadSource::Generated(g) => g.clone(),
        _ => GeneratorConfig {
            num_jobs: 0,
            jobs_per_hour: 0.0,
            multi_gpu: true,
            priority_weights: true,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 0,
            dl2: None,
        },
    };
    let profile = match mechanism {
        Mechanism::Elastic => short_apps(),
        _ => base.profile.clone(),
    };
    Experiment {
        cluster,
        profile,
        workload: orrery::experiment::WorkloadSource::Generated(GeneratorConfig {
            num_jobs: d.jobs,
            jobs_per_hour: d.rate,
            // Parameter-server jobs take their sizes from their models.
            multi_gpu: d.multi_gpu && mechanism != Mechanism::Slots,
            priority_weights: d.weights,
            // Short jobs keep a case fast: minutes, not days.
            duration_scale: 0.02,
            seed: d.seed,
            ..generated
        }),
        policies: vec![policy.to_string()],
        seed: d.seed,
        fairness: false,
        ..base
    }
}

/// The bundled elastic applications with a tenth of their data set and at most two epochs:
/// the same models, jobs of minutes instead of hours.
fn short_apps() -> ProfileSource {
    let text = include_str!("../traces/pollux_apps.json");
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    for app in v["apps"].as_object_mut().unwrap().values_mut() {
        let epochs = app["max_epochs"].as_u64().unwrap().min(2);
        app["max_epochs"] = epochs.into();
        let size = app["dataset_size"].as_f64().unwrap() / 10.0;
        app["dataset_size"] = size.round().into();
    }
    ProfileSource::Inline {
        name: "short-apps.json".into(),
        text: v.to_string(),
    }
}

/// What one run gave: each job's JCT, the summary as JSON and the steps it took.
struct RunOutcome {
    jcts: Vec<f64>,
    summary: String,
    steps: usize,
}

/// Run `policy` on `r`, checking capacity at every step and that every job finishes.
fn run_checked(r: &Resolved, policy: &str) -> Result<RunOutcome, TestCaseError> {
    let mut sim = r
        .stepper(policy)
        .map_err(|e| TestCaseError::fail(format!("{policy}: {e}")))?;
    let counts = r.cluster.counts();
    let mut rec = Recorder::new(&r.trace.jobs, counts.len());
    let mut steps = 0;
    while let Some(rep) = sim.step() {
        steps += 1;
        prop_assert!(
            steps < MAX_STEPS,
            "{policy}: no end after {MAX_STEPS} steps"
        );
        let mut slices = Vec::new();
        for e in &rep.events {
            rec.observe(e);
            match e {
                // A pair's GPUs count once: on the lower id's event.
                SimEvent::Ran {
                    job,
                    gpu_type,
                    gpus,
                    start,
                    end,
                    shared_with,
                    ..
                } if shared_with.is_none_or(|o| *job < o) => {
                    slices.push((*gpu_type, *gpus, *start, *end));
                }
                SimEvent::Dropped { job, reason, .. } => {
                    prop_assert!(false, "{policy}: job {job} dropped: {reason}");
                }
                _ => {}
            }
        }
        check_capacity(policy, &counts, &slices)?;
    }
    let jcts: Vec<f64> = rec.jcts().into_iter().flatten().collect();
    prop_assert_eq!(
        jcts.len(),
        r.trace.jobs.len(),
        "{}: {} of {} jobs finished",
        policy,
        jcts.len(),
        r.trace.jobs.len()
    );
    let name = sim.policy_name().to_string();
    let summary = rec.summary(&name, &r.cluster, None, None);
    Ok(RunOutcome {
        jcts,
        summary: serde_json::to_string(&summary).unwrap(),
        steps,
    })
}

/// At every instant of a step, the GPUs of each type held by the slices running then are at
/// most the type's count.
fn check_capacity(
    policy: &str,
    counts: &[u32],
    slices: &[(usize, u32, f64, f64)],
) -> Result<(), TestCaseError> {
    for &(_, _, at, _) in slices {
        let mut used = vec![0u32; counts.len()];
        for &(t, g, s, e) in slices {
            if s <= at && (at < e || s == e) {
                used[t] += g;
            }
        }
        for (t, (u, c)) in used.iter().zip(counts).enumerate() {
            prop_assert!(
                u <= c,
                "{policy}: {u} GPUs of type {t} in use at {at}, of {c}"
            );
        }
    }
    Ok(())
}

/// Each job's time alone on its fastest GPU type, as the mechanism that runs it computes
/// speeds (for elastic jobs a lower bound of it, see [`elastic_time_alone`]).
fn time_alone(r: &Resolved, mechanism: Mechanism) -> Option<Vec<f64>> {
    match mechanism {
        Mechanism::Rounds | Mechanism::Preemptive => {
            let (cluster, jobs, profile) = r.rigid_jobs(mechanism == Mechanism::Preemptive);
            Some(
                jobs.iter()
                    .map(|j| {
                        let fastest = cluster
                            .types
                            .iter()
                            .filter_map(|t| {
                                profile.throughput(&j.job_type, j.scale_factor, &t.name)
                            })
                            .fold(0.0, f64::max);
                        j.total_steps / fastest
                    })
                    .collect(),
            )
        }
        Mechanism::Pooled => {
            let (_, jobs, profile) = r.rigid_jobs(false);
            Some(
                jobs.iter()
                    .map(|j| {
                        let most = j.max_gpus.unwrap_or(j.scale_factor).max(j.scale_factor);
                        let fastest = r
                            .cluster
                            .types
                            .iter()
                            .flat_map(|t| {
                                orrery::sim::pooled::speed_curve(
                                    &profile,
                                    &j.job_type,
                                    &t.name,
                                    j.scale_factor,
                                    most,
                                )
                            })
                            .fold(0.0, f64::max);
                        j.total_steps / fastest
                    })
                    .collect(),
            )
        }
        Mechanism::Slots => {
            let ps = r.ps()?;
            let compute = r
                .cluster
                .types
                .iter()
                .map(|t| ps.models.compute_factor(&t.name).unwrap_or(1.0))
                .fold(0.0, f64::max);
            Some(
                r.trace
                    .jobs
                    .iter()
                    .map(|j| {
                        let m = &ps.models.models[ps.models.index(&j.job_type).unwrap()];
                        let mut fastest = 0.0f64;
                        for w in 1..=ps.config.max_workers {
                            for p in 1..=ps.config.max_ps {
                                fastest = fastest.max(m.speed_at(w, p, compute));
                            }
                        }
                        j.total_steps / fastest
                    })
                    .collect(),
            )
        }
        Mechanism::Elastic => elastic_time_alone(r),
    }
}

/// A lower bound of each elastic job's time alone: its application's progress over the
/// largest goodput any configuration could give. Goodput is `gain / step time`, with a gain
/// of at most the batch over the initial batch (or 1 below it: statistical efficiency is at
/// most 1) and a step time of at least the compute time of its local batches (accumulation
/// steps included), so no configuration beats all of a type's GPUs (up to the application's
/// most replicas) computing at the best local batch with no synchronisation. The simulator keeps time in whole
/// seconds and rounds each epoch's end to the nearest one: up to half a second per epoch
/// earlier than exact, allowed for. `None` for applications measured in tables rather than
/// modelled (their synchronisation time depends on the placement).
fn elastic_time_alone(r: &Resolved) -> Option<Vec<f64>> {
    let apps = r.apps()?;
    let mut out = Vec::new();
    for j in &r.trace.jobs {
        let app = &apps.apps[apps.index(&j.job_type)?];
        if app.is_measured() {
            return None;
        }
        let mut best = 0.0f64;
        for t in &r.cluster.types {
            let replicas = t.count.min(app.max_replicas.unwrap_or(u32::MAX));
            let placement = orrery::workload::elastic::packed_placement(replicas, t.per_server);
            for key in [None, Some(t.name.as_str())] {
                for local in app.min_local_bsz..=app.max_local_bsz {
                    if let Some((step, sync)) = app.step_time_on(key, &placement, local) {
                        let compute = step - sync;
                        if compute > 0.0 {
                            let scale = f64::from(replicas) * f64::from(local)
                                / f64::from(app.init_batch_size);
                            best = best.max(scale.max(1.0) / compute);
                        }
                    }
                }
            }
        }
        out.push(app.target_progress() * app.slowdown / best - 0.5 * f64::from(app.max_epochs));
    }
    Some(out)
}

/// Check one case: the properties on one run, then the same experiment again.
fn check_case(
    family: &str,
    policies: &[(&str, Mechanism)],
    d: &Draw,
    totals: &[AtomicUsize; 2],
) -> Result<(), TestCaseError> {
    let (policy, mechanism) = policies[d.policy % policies.len()];
    let exp = experiment(family, mechanism, policy, d);
    let r = exp
        .resolve()
        .map_err(|e| TestCaseError::fail(format!("{policy}: {e}")))?;
    let first = run_checked(&r, policy)?;
    totals[0].fetch_add(first.jcts.len(), Ordering::Relaxed);
    totals[1].fetch_add(first.steps, Ordering::Relaxed);
    let runner = r
        .stepper(policy)
        .map_err(|e| TestCaseError::fail(e.to_string()))?
        .mechanism();
    if let Some(alone) = time_alone(&r, runner) {
        for (id, (jct, t)) in first.jcts.iter().zip(&alone).enumerate() {
            prop_assert!(
                *jct >= t * (1.0 - 1e-9) - 1e-6,
                "{policy}: job {id} took {jct} s, less than its {t} s alone on its fastest type"
            );
        }
    }
    let again = exp
        .resolve()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let second = run_checked(&again, policy)?;
    prop_assert_eq!(first.summary, second.summary, "{}: two runs differ", policy);
    Ok(())
}

fn check_family(family: &str) {
    let policies = family_policies(family);
    assert!(!policies.is_empty(), "no policies of family {family}");
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let started = std::time::Instant::now();
    let totals = [AtomicUsize::new(0), AtomicUsize::new(0)];
    runner
        .run(&draws(), |d| check_case(family, &policies, &d, &totals))
        .unwrap();
    println!(
        "properties: {} cases of family {family} ({} policies; {} jobs, {} steps) in {:.1} s",
        cases(),
        policies.len(),
        totals[0].load(Ordering::Relaxed),
        totals[1].load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn gavel_family() {
    check_family("gavel");
}

#[test]
fn classic_family() {
    check_family("classic");
}

#[test]
fn pollux_family() {
    check_family("pollux");
}

#[test]
fn sia_family() {
    check_family("sia");
}

#[test]
fn aryl_family() {
    check_family("aryl");
}

#[test]
fn pickyman_family() {
    check_family("pickyman");
}

#[test]
fn dl2_family() {
    check_family("dl2");
}
