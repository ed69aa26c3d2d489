//! DL2's neural policy: the supervised warm-up imitates DRF on held-out slots, training is
//! reproducible, and the bundled network runs the dl2 scenario to the end. (That
//! reinforcement learning raises the held-out reward over the warm-up is an ignored test:
//! it does not hold yet in its small configuration.)

use orrery::experiment::run;
use orrery::policy::dl2::train::{TrainConfig, Trainer};
use orrery::workload::presets;

fn small() -> TrainConfig {
    TrainConfig {
        episode_jobs: 40,
        warmup_episodes: 30,
        warmup_epochs: 25,
        iterations: 4,
        eval_every: 2,
        eval_episodes: 2,
        critic_warmup: 1,
        ..TrainConfig::default()
    }
}

#[test]
fn the_warm_up_imitates_drf_on_held_out_slots() {
    // The settings of `orrery dl2 train` (the bundled network's warm-up).
    let mut t = Trainer::new(&presets::dl2_experiment(), TrainConfig::default()).unwrap();
    let agreement = t.warmup(|_, _| {}).unwrap();
    println!(
        "warm-up agreement with DRF on held-out decisions: {:.1}%",
        agreement * 100.0
    );
    assert!(agreement > 0.85, "{agreement}");
    // The curve has one point per epoch, with falling loss.
    let warm: Vec<_> = t.curve.iter().filter(|p| p.phase == "warmup").collect();
    assert_eq!(warm.len(), TrainConfig::default().warmup_epochs);
    assert!(warm.last().unwrap().loss < 0.5 * warm[0].loss);
}

#[test]
fn training_is_reproducible() {
    let train = |seed: u64| {
        let mut t = Trainer::new(
            &presets::dl2_experiment(),
            TrainConfig {
                seed,
                warmup_episodes: 4,
                warmup_epochs: 3,
                ..small()
            },
        )
        .unwrap();
        t.warmup(|_, _| {}).unwrap();
        for _ in 0..4 {
            t.rl_iteration().unwrap();
        }
        (t.policy.to_json(), t.curve_csv())
    };
    let a = train(3);
    assert_eq!(a, train(3));
    assert_ne!(a.0, train(4).0);
}

#[test]
fn branched_training_is_reproducible_and_moves_the_actor() {
    // Slot credit and decision credit: the same seed trains the same weights, and the
    // iterations change the warm-up's network.
    for decision_credit in [false, true] {
        let train = |seed: u64| {
            let mut t = Trainer::new(
                &presets::dl2_experiment(),
                TrainConfig {
                    seed,
                    warmup_episodes: 4,
                    warmup_epochs: 3,
                    branches: 3,
                    horizon: 2,
                    branch_every: 3,
                    decision_credit,
                    branch_decisions: 2,
                    tries: 2,
                    ..small()
                },
            )
            .unwrap();
            t.warmup(|_, _| {}).unwrap();
            let warm = t.policy.to_json();
            for _ in 0..3 {
                t.rl_iteration().unwrap();
            }
            assert!(t.last_rollouts.decisions > 0);
            assert!(t.last_rollouts.slots > 0);
            (warm, t.policy.to_json(), t.curve_csv())
        };
        let a = train(5);
        assert_ne!(a.0, a.1, "decision credit {decision_credit}");
        assert_eq!(a, train(5));
    }
}

#[test]
fn the_bundled_network_runs_the_dl2_scenario() {
    let mut exp = presets::dl2_experiment();
    exp.policies = vec!["dl2".into(), "drf".into()];
    let res = run(&exp).unwrap();
    for r in &res {
        println!(
            "{:8} avg JCT {:8.0} s",
            r.summary.policy, r.summary.avg_jct_s
        );
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
    }
    // Same seed, same numbers.
    assert_eq!(run(&exp).unwrap()[0].summary, res[0].summary);
}

#[test]
fn bad_training_settings_are_named() {
    let err = Trainer::new(
        &presets::dl2_experiment(),
        TrainConfig {
            window: 0,
            ..TrainConfig::default()
        },
    )
    .unwrap_err();
    assert!(err.contains("window"), "{err}");
    assert!(Trainer::new(&presets::default_experiment(), TrainConfig::default()).is_err());
}

#[test]
#[ignore = "does not hold yet: 40 iterations leave the held-out reward at the warm-up's (3.0769 -> 3.0769; JCT 3,677 s -> 3,694 s)"]
fn reinforcement_learning_raises_the_reward_over_the_warm_up() {
    // A small configuration: 40-job episodes of the dl2 scenario's generator, a short
    // warm-up, then 40 iterations of 8 rollouts; six held-out episodes.
    let cfg = TrainConfig {
        episode_jobs: 40,
        warmup_episodes: 30,
        warmup_epochs: 25,
        iterations: 40,
        eval_every: 40,
        eval_episodes: 6,
        ..TrainConfig::default()
    };
    let mut t = Trainer::new(&presets::dl2_experiment(), cfg.clone()).unwrap();
    t.warmup(|_, _| {}).unwrap();
    let (r0, j0) = t.evaluate().unwrap();
    for _ in 0..cfg.iterations {
        t.rl_iteration().unwrap();
    }
    let (r1, j1) = t.evaluate().unwrap();
    println!("held-out reward per slot {r0:.4} -> {r1:.4}, average JCT {j0:.0} s -> {j1:.0} s");
    assert!(r1 > r0 * 1.005, "{r0} -> {r1}");
    // The curve's last point is the final evaluation.
    let last = t.curve.last().unwrap();
    assert_eq!(last.phase, "rl");
    assert_eq!(last.reward_per_slot, Some(r1));
}
