//! DL2's training as the page's Web Worker runs it, natively: the same weights and
//! learning curve as training step by step through the public API (as `orrery dl2 train`
//! does), the learning curve's points reported as they come, progress that only moves
//! forward, and a network that the `dl2` policy then runs. The training is a short one (the
//! page's settings with fewer episodes, epochs and iterations); `tests/browser/bench.mjs`
//! times the page's defaults.

use orrery::experiment::scenarios;
use orrery::experiment::train::session::{page_train_config, train_with_events, TrainEvent};
use orrery::experiment::train::{TrainConfig, Trainer};
use orrery::experiment::{self, NetworkSource};

/// The page's settings, shortened: the equalities hold for any settings.
fn page_config() -> TrainConfig {
    TrainConfig {
        warmup_episodes: 6,
        warmup_epochs: 8,
        iterations: 40,
        ..page_train_config()
    }
}

#[test]
fn page_training_equals_the_trainer_and_its_network_runs() {
    let exp = scenarios::dl2_experiment();
    let cfg = page_config();
    let started = std::time::Instant::now();
    let mut messages = Vec::new();
    let trained = train_with_events(
        &exp,
        cfg.clone(),
        || started.elapsed().as_secs_f64() * 1000.0,
        |m| messages.push(m),
    )
    .expect("training runs");
    let secs = started.elapsed().as_secs_f64();

    // The same steps through the trainer's public API, as the CLI takes them.
    let mut t = Trainer::new(&exp, cfg.clone()).expect("trainer");
    let agreement = t.warmup(|_, _| {}).expect("warm-up");
    let after_warmup = t.evaluate().expect("evaluation");
    for _ in 0..cfg.iterations {
        t.rl_iteration().expect("iteration");
    }
    let after_training = t.evaluate().expect("evaluation");
    let mut net = t.policy.clone();
    net.round_to_f32();
    let layers = |text: &str| {
        let v: serde_json::Value = serde_json::from_str(text).expect("weights JSON");
        v["layers"].clone()
    };
    assert_eq!(layers(&trained.weights), layers(&net.to_json()));
    assert_eq!(trained.curve_csv, t.curve_csv());
    assert_eq!(trained.agreement, agreement);
    assert_eq!(trained.after_warmup, after_warmup);
    assert_eq!(trained.after_training, after_training);
    assert_eq!(trained.slots, t.slots_simulated());

    // Curve points as they came: the warm-up's epochs, the evaluation after it, then one per
    // evaluation of reinforcement learning, in the trainer's order.
    let points: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            TrainEvent::Curve(p) => Some(p.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let warmup = points.iter().filter(|p| p.phase == "warmup").count();
    let rl: Vec<usize> = points
        .iter()
        .filter(|p| p.phase == "rl")
        .map(|p| p.step)
        .collect();
    assert_eq!(warmup, cfg.warmup_epochs);
    let mut expected = vec![0];
    expected.extend((1..=cfg.iterations).filter(|i| i % cfg.eval_every == 0));
    assert_eq!(rl, expected);
    assert_eq!(points[0..warmup], t.curve[0..warmup]);
    assert_eq!(points[warmup + 1..], t.curve[warmup..]);
    assert_eq!(
        points[warmup].avg_jct_s,
        Some(after_warmup.1),
        "the point after the warm-up is its evaluation"
    );

    // Progress only moves forward and ends at the total.
    let progress: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            TrainEvent::Progress(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    assert!(progress
        .windows(2)
        .all(|w| w[0].done <= w[1].done && w[0].slots <= w[1].slots));
    let last = progress.last().expect("progress");
    assert_eq!(last.done, last.total);
    assert_eq!(last.total, cfg.warmup_epochs + cfg.iterations);

    // The network runs as the experiment's dl2 policy.
    let with_net = experiment::Experiment {
        network: Some(NetworkSource::Inline {
            name: "trained.json".into(),
            text: trained.weights.clone(),
        }),
        policies: vec!["dl2".into()],
        ..exp
    };
    let results = experiment::run(&with_net).expect("the trained network runs");
    let s = &results[0].summary;
    assert_eq!(s.num_jobs, 320);
    assert_eq!(s.unfinished, 0);
    println!(
        "page training natively: {} slots in {secs:.2} s = {:.0} slots/s; held-out avg JCT {:.0} s after the warm-up, {:.0} s after {} iterations; on the dl2 scenario avg JCT {:.0} s",
        trained.slots,
        trained.slots as f64 / secs,
        after_warmup.1,
        after_training.1,
        cfg.iterations,
        s.avg_jct_s
    );
}

#[test]
fn page_training_refuses_bad_experiments_and_settings() {
    let report = |_: TrainEvent| {};
    // Not a parameter-server experiment.
    let e = train_with_events(
        &scenarios::default_experiment(),
        page_config(),
        || 0.0,
        report,
    )
    .expect_err("not DL2");
    assert!(e.contains("generated") || e.contains("DL2"), "{e}");
    // A bad setting names itself.
    let bad = TrainConfig {
        episode_jobs: 1,
        ..page_config()
    };
    let e = train_with_events(&scenarios::dl2_experiment(), bad, || 0.0, report).expect_err("bad");
    assert!(e.contains("episode_jobs"), "{e}");
}
