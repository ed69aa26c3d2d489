//! `orrery dl2 train`: DL2's warm-up and reinforcement learning.

use orrery::experiment::scenarios;

use super::*;

pub(crate) fn cmd_dl2_train(a: Dl2TrainArgs) -> CliResult<()> {
    use orrery::experiment::train::{TrainConfig, Trainer};
    let mut exp = match &a.config {
        Some(path) => Experiment::from_json(&read_file(path, "experiment")?)?,
        None => scenarios::scenario(&a.preset)
            .ok_or_else(|| CliError::Input(format!("no bundled scenario '{}'", a.preset)))?
            .experiment(),
    };
    if let Some(path) = &a.profile {
        exp.profile = profile_source(path)?;
    }
    if let Some(w) = a.dl2_workload {
        dl2_workload(&mut exp, w);
    }
    if a.dl2_compat {
        exp.set_dl2_compat(true);
    }
    let mut cfg = TrainConfig {
        seed: a.seed,
        ..TrainConfig::default()
    };
    if let Some(v) = a.iterations {
        cfg.iterations = v;
    }
    if let Some(v) = a.warmup_epochs {
        cfg.warmup_epochs = v;
    }
    if let Some(v) = a.window {
        cfg.window = v;
    }
    if let Some(v) = a.episode_jobs {
        cfg.episode_jobs = v;
    }
    if let Some(v) = a.warmup_episodes {
        cfg.warmup_episodes = v;
    }
    if let Some(v) = a.warmup_lr {
        cfg.warmup_lr = v;
    }
    if let Some(v) = a.rl_lr {
        cfg.rl_lr = v;
    }
    if let Some(v) = a.rollouts {
        cfg.rollouts = v;
    }
    if let Some(v) = a.kl {
        cfg.kl = v;
    }
    if let Some(v) = a.branches {
        cfg.branches = v;
    }
    if let Some(v) = a.horizon {
        cfg.horizon = v;
    }
    if a.decision_credit {
        cfg.decision_credit = true;
        cfg.branches = cfg.branches.max(1);
    }
    if let Some(c) = &a.credit {
        cfg.exact_credit = c == "exact";
    }
    if let Some(g) = &a.gain {
        cfg.gain_of_left = g == "left";
    }
    if let Some(v) = a.temperature {
        cfg.temperature = v;
    }
    if let Some(v) = a.smoothing {
        cfg.warmup_smoothing = v;
    }
    if let Some(v) = &a.teacher {
        cfg.teacher = v.clone();
    }
    if let Some(v) = a.eval_episodes {
        cfg.eval_episodes = v;
    }
    let out = a.out.as_deref().map(create_output).transpose()?;
    let curve_out = a.curve.as_deref().map(create_output).transpose()?;
    let mut t = Trainer::new(&exp, cfg.clone()).map_err(CliError::Input)?;
    let pb = progress_bar((cfg.warmup_epochs + cfg.iterations) as u64, "dl2 train");
    pb.set_message(format!("warm-up on {}", cfg.teacher));
    let agreement = t.warmup(|_, _| pb.inc(1)).map_err(CliError::Failure)?;
    note(&format!(
        "warm-up: {:.1}% of held-out decisions equal {}'s",
        agreement * 100.0,
        cfg.teacher
    ));
    let (r0, j0) = t.evaluate().map_err(CliError::Failure)?;
    note(&format!(
        "after warm-up: {r0:.4} reward per slot, average JCT {j0:.0} s on held-out episodes"
    ));
    for _ in 0..cfg.iterations {
        t.rl_iteration().map_err(CliError::Failure)?;
        if let Some(p) = t.curve.last() {
            if let (Some(r), Some(j)) = (p.reward_per_slot, p.avg_jct_s) {
                pb.set_message(format!("reward/slot {r:.4}, avg JCT {j:.0} s"));
            }
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let (r1, j1) = t.evaluate().map_err(CliError::Failure)?;
    note(&format!(
        "after {} iterations: {r1:.4} reward per slot, average JCT {j1:.0} s on held-out episodes",
        cfg.iterations
    ));
    for h in ["drf", "optimus"] {
        let (_, j) = t.evaluate_heuristic(h).map_err(CliError::Failure)?;
        note(&format!("{h} on the same episodes: average JCT {j:.0} s"));
    }
    let mut net = t.policy.clone();
    net.round_to_f32();
    let json = net.to_json_with_description(Some(&format!(
        "DL2 policy trained by `orrery dl2 train --preset {} --seed {}` ({} warm-up epochs, {} iterations, {} jobs per episode)",
        a.preset, cfg.seed, cfg.warmup_epochs, cfg.iterations, cfg.episode_jobs
    )));
    match out {
        Some(o) => write_file(o, &(json + "\n"))?,
        None => print_stdout(&(json + "\n"))?,
    }
    if let Some(o) = curve_out {
        write_file(o, &t.curve_csv())?;
    }
    Ok(())
}

pub(crate) fn cmd_dl2_bundle(a: Dl2BundleArgs) -> CliResult<()> {
    let slots = read_file(&a.slots, "network")?;
    let compat = read_file(&a.dl2_compat, "network")?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let text = orrery::policy::dl2::bundled::write([&slots, &compat]).map_err(CliError::Input)?;
    match out {
        Some(o) => write_file(o, &(text + "\n")),
        None => print_stdout(&(text + "\n")),
    }
}
