//! The order GPU types are listed in: outside Gavel-compatible mode it does not change any
//! result (every round-based policy, three orders of four types); a type no job can use
//! gets a warning and no time in any allocation; a job the allocation places on a type
//! visited late is not taken by an earlier type's leftover GPUs.

use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::model::job::JobSpec;
use orrery::policy::{
    self, Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView, Recompute,
};
use orrery::rng::Rng;
use orrery::sim::{SimConfig, SimEvent, Simulator};
use orrery::workload::{GeneratorConfig, Profile};

fn generated(cluster: &str, compat: bool) -> Experiment {
    Experiment {
        cluster: cluster.into(),
        workload: WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 24,
            jobs_per_hour: 6.0,
            multi_gpu: true,
            priority_weights: true,
            elastic_fraction: 0.0,
            duration_scale: 0.3,
            seed: 11,
            dl2: None,
        }),
        profile: ProfileSource::Preset {
            name: "gavel-types".into(),
        },
        seed: 5,
        gavel_compat: compat,
        restart_cost_s: if compat { 0.0 } else { 20.0 },
        fairness: false,
        ..Experiment::default()
    }
}

const ORDERS: [&str; 3] = [
    "v100:4,p100:4,k80:4,a100:4",
    "a100:4,k80:4,p100:4,v100:4",
    "k80:4,v100:4,a100:4,p100:4",
];

#[test]
fn the_listed_order_of_types_changes_no_result() {
    for info in policy::policies() {
        let mut first: Option<String> = None;
        for cluster in ORDERS {
            let exp = Experiment {
                policies: vec![info.name.to_string()],
                ..generated(cluster, false)
            };
            let out = orrery::experiment::run(&exp).unwrap();
            assert_eq!(out[0].summary.unfinished, 0, "{} on {cluster}", info.name);
            let json = serde_json::to_string(&out[0].summary).unwrap();
            match &first {
                None => first = Some(json),
                Some(f) => assert_eq!(f, &json, "{} on {cluster}", info.name),
            }
        }
    }
}

#[test]
fn gavel_compatible_mode_keeps_the_listed_order() {
    let r = generated("v100:4,p100:4,k80:4", true).resolve().unwrap();
    let names: Vec<&str> = r.cluster.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["v100", "p100", "k80"]);
    let r = generated("v100:4,p100:4,k80:4", false).resolve().unwrap();
    let names: Vec<&str> = r.cluster.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["k80", "p100", "v100"]);
}

#[test]
fn a_type_no_job_can_use_is_warned_about_and_given_no_time() {
    let exp = Experiment {
        policies: vec!["max_min_fairness".into()],
        ..generated("v100:4,tpu:8,k80:4", false)
    };
    let r = exp.resolve().unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("'tpu' (8 GPUs)"), "{:?}", r.warnings);
    assert!(generated("v100:4,k80:4", false)
        .resolve()
        .unwrap()
        .warnings
        .is_empty());
    let tpu = r.cluster.type_index("tpu").unwrap();
    for spec in [
        "max_min_fairness",
        "finish_time_fairness",
        "min_total_duration",
    ] {
        let mut sim = r.simulator(spec).unwrap();
        let mut checked = 0;
        while let Some(rep) = sim.step_round() {
            for e in &rep.events {
                if let SimEvent::Ran { gpu_type, .. } = e {
                    assert_ne!(*gpu_type, tpu, "{spec} ran a job on the tpu type");
                }
            }
            for &j in sim.active() {
                if let Some(row) = sim.allocation_row(j) {
                    assert_eq!(row[tpu], 0.0, "{spec}: job {j} has time on tpu: {row:?}");
                    // The plain LP values the two usable types alike, so the job's time
                    // goes to them rather than to a type where it cannot run.
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "{spec}: no allocation was seen");
    }
}

/// A fixed allocation: job 0 on the second type only, job 1 nowhere.
struct Fixed;

impl Policy for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: view
                .jobs
                .iter()
                .map(|j| {
                    if j.id == 0 {
                        vec![0.0, 1.0]
                    } else {
                        vec![0.0, 0.0]
                    }
                })
                .collect(),
            ..Default::default()
        }))
    }
    fn traits(&self) -> PolicyTraits {
        PolicyTraits {
            recompute: Recompute::OnJobSetChange,
            ..PolicyTraits::default()
        }
    }
}

#[test]
fn leftover_gpus_of_an_earlier_type_do_not_take_a_job_placed_on_a_later_one() {
    // Types a and b with one GPU each; both jobs run on both. The allocation puts job 0 on
    // b only. Type a is visited first: its GPU must go to job 1 (zero priority everywhere),
    // not to job 0, which runs on b.
    let cluster = ClusterSpec::parse("a:1,b:1").unwrap();
    let profile = Profile::parse(
        r#"{"format": "orrery-profile", "version": 1, "job_types": {"t": {"throughputs": {"1": {"a": 1.0, "b": 2.0}}}}}"#,
        "p.json",
    )
    .unwrap();
    let jobs = vec![
        JobSpec::new("t", 0.0, 10_000.0),
        JobSpec::new("t", 0.0, 10_000.0),
    ];
    let cfg = SimConfig {
        round_len: 100.0,
        ..SimConfig::default()
    };
    let mut sim = Simulator::new(cfg, cluster, jobs, profile, Box::new(Fixed)).unwrap();
    let rep = sim.step_round().unwrap();
    let ran: Vec<(usize, usize)> = rep
        .events
        .iter()
        .filter_map(|e| match e {
            SimEvent::Ran { job, gpu_type, .. } => Some((*job, *gpu_type)),
            _ => None,
        })
        .collect();
    assert!(ran.contains(&(0, 1)), "job 0 should run on b: {ran:?}");
    assert!(ran.contains(&(1, 0)), "job 1 should fill a: {ran:?}");
}
