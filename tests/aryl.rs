//! Aryl: the pooled simulator's invariants (no GPU in both pools at once, every job
//! finishes), determinism, and the direction of the bundled scenario.

use orrery::experiment::run;
use orrery::experiment::scenarios;
use orrery::sim::pooled::Pool;
use orrery::sim::SimEvent;

const VARIANTS: [&str; 4] = [
    "aryl",
    "aryl[loaning=false]",
    "aryl[elastic=false]",
    "aryl[elastic=false,loaning=false]",
];

#[test]
fn pools_never_share_a_gpu_and_every_job_finishes() {
    let mut exp = scenarios::aryl_experiment();
    if let orrery::experiment::WorkloadSource::Generated(g) = &mut exp.workload {
        g.num_jobs = 120;
    }
    let r = exp.resolve().unwrap();
    let load = r.load.clone().unwrap();
    for policy in VARIANTS {
        let mut sim = r.pooled_simulator(policy, &load).unwrap();
        let inference = sim
            .servers()
            .iter()
            .filter(|s| s.pool == Pool::Inference)
            .count() as u32;
        let mut loaned_seen = 0;
        while let Some(rep) = sim.step_round() {
            for s in sim.servers() {
                let used: u32 = s.used.iter().map(|u| u.1).sum();
                assert!(used <= s.gpus, "{policy}: server over-allocated");
                if s.pool == Pool::Inference && !s.loaned {
                    assert!(s.used.is_empty(), "{policy}: training on a serving server");
                }
            }
            for e in &rep.events {
                if let SimEvent::PoolState { demand, loaned, .. } = e {
                    assert!(
                        demand + loaned <= inference,
                        "{policy}: {demand} + {loaned} > {inference}"
                    );
                    loaned_seen = loaned_seen.max(*loaned);
                }
            }
            for (id, j) in sim.jobs().iter().enumerate() {
                let held: u32 = j.placement.iter().map(|p| p.1).sum();
                if j.running() {
                    assert!(
                        held >= j.min_gpus && held <= j.max_gpus,
                        "{policy}: job {id} holds {held}"
                    );
                }
            }
        }
        assert!(
            sim.jobs().iter().all(|j| j.finish.is_some()),
            "{policy}: every job finishes"
        );
        if policy.contains("loaning=false") {
            assert_eq!(loaned_seen, 0, "{policy} loaned servers");
        } else {
            assert!(loaned_seen > 0, "{policy} never loaned");
        }
    }
}

#[test]
fn loaning_and_elasticity_beat_the_ablations_on_the_bundled_scenario() {
    let out = run(&scenarios::aryl_experiment()).unwrap();
    let s: Vec<_> = out.iter().map(|r| r.summary.clone()).collect();
    for x in &s {
        println!(
            "{}: avg JCT {:.0} s, avg queueing {:.0} s, cluster usage {:.3}, GPUs on loan {:.1}, preemptions {}",
            x.policy,
            x.avg_jct_s,
            x.avg_wait_s,
            x.pool.unwrap().cluster_usage,
            x.pool.unwrap().avg_loaned_gpus,
            x.preemptions
        );
        assert_eq!(x.unfinished, 0);
    }
    let (aryl, no_loan) = (&s[0], &s[1]);
    println!(
        "against no loaning: queueing {:.2}x lower, JCT {:.2}x lower",
        no_loan.avg_wait_s / aryl.avg_wait_s,
        no_loan.avg_jct_s / aryl.avg_jct_s
    );
    assert!(aryl.avg_wait_s < no_loan.avg_wait_s);
    assert!(aryl.avg_jct_s < no_loan.avg_jct_s);
    assert!(aryl.avg_jct_s < s[3].avg_jct_s);
    assert!(aryl.pool.unwrap().cluster_usage > no_loan.pool.unwrap().cluster_usage);
}

#[test]
fn pooled_runs_are_deterministic() {
    let exp = scenarios::aryl_experiment();
    let a = serde_json::to_string(&run(&exp).unwrap()[0].summary).unwrap();
    let b = serde_json::to_string(&run(&exp).unwrap()[0].summary).unwrap();
    assert_eq!(a, b);
}

/// A job that would run for more than 10 years even on every GPU it may hold is refused,
/// with its limit named, before anything runs (an imported PAI job of 1e18 seconds, say).
#[test]
fn a_job_longer_than_ten_years_at_its_fastest_is_refused() {
    let exp = orrery::experiment::Experiment {
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "long.csv".into(),
            text: "job_type,arrival_s,total_steps\nimported,0,100\nimported,5,1e18\n".into(),
        },
        ..scenarios::aryl_experiment()
    };
    let r = exp.resolve().unwrap();
    let Err(e) = r.pooled_simulator("aryl", r.load.as_ref().unwrap()) else {
        panic!("a 1e18-step job was taken");
    };
    assert!(
        e.to_string().contains("10 years") && e.to_string().contains("job 1"),
        "{e}"
    );
    let short = orrery::experiment::Experiment {
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "short.csv".into(),
            text: "job_type,arrival_s,total_steps\nimported,0,100\nimported,5,1e6\n".into(),
        },
        ..scenarios::aryl_experiment()
    };
    assert!(run(&short).is_ok());
}
