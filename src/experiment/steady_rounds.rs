//! The rounds' steady types (owners left as the last round left them) against claiming
//! every GPU again, round by round, on experiments of every kind the rounds run.

use crate::experiment::scenarios::{default_experiment, llama3_experiment, spot_experiment};
use crate::experiment::Experiment;
use crate::model::failure::checkpoint::{CheckpointPlan, Interval};
use crate::model::failure::{Domain, FailureModel, Faults};
use crate::sim::Simulator;

/// Steps `policy` on `exp` twice, with steady types and with every GPU claimed in every
/// round, and checks that every round's report and owners agree; returns the rounds with
/// a steady type.
fn same_rounds(exp: &Experiment, policy: &str) -> usize {
    let r = exp.resolve().unwrap();
    let mut fast: Simulator = r.simulator(policy).unwrap();
    let mut full: Simulator = r.simulator(policy).unwrap();
    full.claim_every_gpu();
    let mut rounds = 0;
    loop {
        let (a, b) = (fast.step_round(), full.step_round());
        assert_eq!(a, b, "{policy}: round {rounds}");
        assert_eq!(
            fast.gpu_owners(),
            full.gpu_owners(),
            "{policy}: round {rounds}"
        );
        assert_eq!(
            fast.gpu_sharers(),
            full.gpu_sharers(),
            "{policy}: round {rounds}"
        );
        if a.is_none() {
            break;
        }
        rounds += 1;
    }
    assert_eq!(full.steady_rounds(), 0);
    fast.steady_rounds()
}

const POLICIES: [&str; 6] = [
    "fifo",
    "las",
    "srtf",
    "tiresias",
    "max_min_fairness_perf",
    "max_min_fairness_packed",
];

#[test]
fn steady_types_change_no_round_of_the_default_scenario() {
    for p in POLICIES {
        assert!(same_rounds(&default_experiment(), p) > 0, "{p}");
    }
}

#[test]
fn steady_types_change_no_round_under_spot_capacity() {
    for p in POLICIES {
        assert!(same_rounds(&spot_experiment(), p) > 0, "{p}");
    }
}

#[test]
fn steady_types_change_no_round_with_servers_away_for_repair() {
    for domain in [Domain::Server, Domain::Gpu] {
        let exp = Experiment {
            faults: Some(Faults {
                failures: FailureModel {
                    repair_s: 3.0 * 3600.0,
                    domain,
                    ..FailureModel::with_rate(3.0)
                },
                checkpoint: CheckpointPlan {
                    interval: Interval::Every(1800.0),
                    write_s: 30.0,
                },
            }),
            ..default_experiment()
        };
        for p in POLICIES {
            assert!(same_rounds(&exp, p) > 0, "{p}");
        }
    }
}

#[test]
fn steady_types_change_no_round_of_a_failing_gang() {
    let exp = Experiment {
        until_s: Some(20.0 * 86_400.0),
        ..llama3_experiment()
    };
    // The gang keeps its GPUs in all but the rounds after a failure.
    assert!(same_rounds(&exp, "fifo") > 1_000);
}
