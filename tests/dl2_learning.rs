//! DL2's neural policy: the supervised warm-up imitates DRF on held-out slots,
//! reinforcement learning raises the reward over the warm-up, training is reproducible, and
//! the bundled network runs the dl2 scenario to the end, ahead of DRF.

use orrery::experiment::run;
use orrery::experiment::scenarios;
use orrery::experiment::train::{TrainConfig, Trainer};

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
    let mut t = Trainer::new(&scenarios::dl2_experiment(), TrainConfig::default()).unwrap();
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
            &scenarios::dl2_experiment(),
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
fn the_other_credits_train_reproducibly_and_move_the_actor() {
    // Slot credit (the clipped actor-critic update on slot returns), branched slot credit
    // and branched decision credit: the same seed trains the same weights, and the
    // iterations change the warm-up's network.
    let slot = TrainConfig {
        exact_credit: false,
        rollouts: 3,
        ..small()
    };
    let branched = |decision_credit| TrainConfig {
        branches: 3,
        horizon: 2,
        branch_every: 3,
        decision_credit,
        branch_decisions: 2,
        tries: 2,
        ..small()
    };
    for (name, cfg) in [
        ("slot", slot),
        ("branched slot", branched(false)),
        ("branched decision", branched(true)),
    ] {
        let train = |seed: u64| {
            let mut t = Trainer::new(
                &scenarios::dl2_experiment(),
                TrainConfig {
                    seed,
                    warmup_episodes: 4,
                    warmup_epochs: 3,
                    ..cfg.clone()
                },
            )
            .unwrap();
            t.warmup(|_, _| {}).unwrap();
            let warm = t.policy.to_json();
            for _ in 0..3 {
                t.rl_iteration().unwrap();
            }
            assert!(t.last_rollouts.decisions > 0, "{name}");
            assert!(t.last_rollouts.slots > 0, "{name}");
            (warm, t.policy.to_json(), t.curve_csv())
        };
        let a = train(5);
        assert_ne!(a.0, a.1, "{name}");
        assert_eq!(a, train(5), "{name}");
    }
}

#[test]
fn the_bundled_network_runs_the_dl2_scenario() {
    let mut exp = scenarios::dl2_experiment();
    exp.policies = vec!["dl2".into(), "drf".into(), "optimus".into()];
    let res = run(&exp).unwrap();
    for r in &res {
        println!(
            "{:8} avg JCT {:8.0} s",
            r.summary.policy, r.summary.avg_jct_s
        );
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
    }
    // Trained by reinforcement learning, it is ahead of DRF and of Optimus, as DL2's
    // paper has it.
    assert!(res[0].summary.avg_jct_s < 0.8 * res[1].summary.avg_jct_s);
    assert!(res[0].summary.avg_jct_s < res[2].summary.avg_jct_s);
    // Same seed, same numbers.
    assert_eq!(run(&exp).unwrap()[0].summary, res[0].summary);
}

#[test]
fn bad_training_settings_are_named() {
    let err = Trainer::new(
        &scenarios::dl2_experiment(),
        TrainConfig {
            window: 0,
            ..TrainConfig::default()
        },
    )
    .unwrap_err();
    assert!(err.contains("window"), "{err}");
    assert!(Trainer::new(&scenarios::default_experiment(), TrainConfig::default()).is_err());
}

#[test]
fn reinforcement_learning_raises_the_reward_over_the_warm_up() {
    // A small configuration: 40-job episodes of the dl2 scenario's generator, a short
    // warm-up, then 300 iterations of exact-credit reinforcement learning (the defaults
    // otherwise). Measured on six held-out episodes of the same generator and on six
    // training episodes.
    let cfg = TrainConfig {
        episode_jobs: 40,
        warmup_episodes: 30,
        warmup_epochs: 25,
        iterations: 300,
        eval_every: 100,
        eval_episodes: 6,
        ..TrainConfig::default()
    };
    let mut t = Trainer::new(&scenarios::dl2_experiment(), cfg.clone()).unwrap();
    t.warmup(|_, _| {}).unwrap();
    let (r0, j0) = t.evaluate().unwrap();
    let train0 = t.training_reward(6).unwrap();
    for _ in 0..cfg.iterations {
        t.rl_iteration().unwrap();
    }
    let (r1, j1) = t.evaluate().unwrap();
    let train1 = t.training_reward(6).unwrap();
    println!(
        "held-out reward per slot {r0:.4} -> {r1:.4}, average JCT {j0:.0} s -> {j1:.0} s; \
         training episodes' reward per slot {train0:.4} -> {train1:.4}"
    );
    assert!(r1 > r0 * 1.03, "{r0} -> {r1}");
    assert!(train1 > train0, "{train0} -> {train1}");
    assert!(j1 < 0.95 * j0, "{j0} -> {j1}");
    // The curve's last point is the final evaluation.
    let last = t.curve.last().unwrap();
    assert_eq!(last.phase, "rl");
    assert_eq!(last.reward_per_slot, Some(r1));
}

#[test]
fn a_bad_teacher_or_temperature_is_named() {
    for (cfg, word) in [
        (
            TrainConfig {
                teacher: "nope".into(),
                ..TrainConfig::default()
            },
            "teacher",
        ),
        (
            TrainConfig {
                teacher: "dl2".into(),
                ..TrainConfig::default()
            },
            "teacher",
        ),
        (
            TrainConfig {
                temperature: 0.0,
                ..TrainConfig::default()
            },
            "temperature",
        ),
    ] {
        let err = Trainer::new(&scenarios::dl2_experiment(), cfg).unwrap_err();
        assert!(err.contains(word), "{err}");
    }
    // Another teacher: the warm-up imitates Optimus instead.
    let mut t = Trainer::new(
        &scenarios::dl2_experiment(),
        TrainConfig {
            teacher: "optimus".into(),
            warmup_episodes: 4,
            warmup_epochs: 3,
            ..small()
        },
    )
    .unwrap();
    assert!(t.warmup(|_, _| {}).unwrap() > 0.0);
}
