//! `orrery bench`'s DL2 figures: decisions, slots, warm-up and training.

use orrery::experiment::scenarios;

use crate::cli::*;

/// A slot policy that times every decision of the policy it wraps (seconds and decisions,
/// shared with the caller).
pub(crate) struct TimedPolicy {
    pub(crate) inner: Box<dyn orrery::sim::slots::SlotPolicy>,
    pub(crate) spent: std::rc::Rc<std::cell::Cell<(f64, u64)>>,
}

impl orrery::sim::slots::SlotPolicy for TimedPolicy {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act(
        &mut self,
        view: &orrery::sim::slots::SlotView,
        rng: &mut orrery::rng::Rng,
    ) -> orrery::sim::slots::SlotAction {
        let t0 = Instant::now();
        let a = self.inner.act(view, rng);
        let (s, n) = self.spent.get();
        self.spent.set((s + t0.elapsed().as_secs_f64(), n + 1));
        a
    }
}

pub(crate) fn bench_dl2(
    rows: &mut Vec<BenchRow>,
    quick: bool,
    progress: &dyn Fn(&str),
) -> CliResult<()> {
    use orrery::experiment::train::{TrainConfig, Trainer};
    use orrery::policy::dl2::learned::{bundled, Dl2, Mode};
    let fail = |e: String| CliError::Failure(format!("dl2 bench: {e}"));
    let exp = scenarios::dl2_experiment();
    let net = bundled(false).map_err(fail)?;
    let shape = net
        .sizes()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("-");
    // Inference: every decision of the bundled network over a whole run of the scenario.
    progress("dl2 inference per decision");
    let reps = if quick { 1 } else { 5 };
    let (mut per_decision, mut per_slot) = (Vec::new(), Vec::new());
    let (mut decisions, mut slots) = (0, 0);
    for _ in 0..reps {
        let dl2 = Dl2::new("dl2", net.clone(), Mode::Greedy).map_err(fail)?;
        let spent = std::rc::Rc::new(std::cell::Cell::new((0.0, 0u64)));
        let policy = TimedPolicy {
            inner: Box::new(dl2),
            spent: std::rc::Rc::clone(&spent),
        };
        let r = exp.resolve().map_err(|e| fail(e.to_string()))?;
        let ps = r.ps().ok_or_else(|| fail("not a DL2 experiment".into()))?;
        let mut sim = r
            .slot_simulator_with(Box::new(policy), ps)
            .map_err(|e| fail(e.to_string()))?;
        let mut obs = orrery::sim::slots::NoObserver;
        let t0 = Instant::now();
        let mut n = 0u64;
        while sim.step_slot(&mut obs).is_some() {
            n += 1;
        }
        per_slot.push(t0.elapsed().as_secs_f64() / n.max(1) as f64);
        slots = n;
        let (secs, count) = spent.get();
        per_decision.push(secs / count.max(1) as f64);
        decisions = count;
    }
    rows.push(BenchRow::new(
        "dl2 inference per decision (encode, forward, masked softmax)".into(),
        format!("bundled {shape} network on the dl2 scenario's {decisions} decisions"),
        per_decision,
        None,
    ));
    let slot_s = orrery::metrics::percentile(&per_slot, 50.0);
    rows.push(BenchRow::new(
        format!(
            "dl2 slot simulator per slot ({:.0} slots/s)",
            1.0 / slot_s.max(1e-12)
        ),
        format!("dl2 scenario (320 jobs), bundled network, {slots} slots"),
        per_slot,
        None,
    ));
    // Training throughput with the defaults of `orrery dl2 train`.
    progress("dl2 warm-up");
    let cfg = TrainConfig {
        warmup_epochs: if quick { 2 } else { 5 },
        ..TrainConfig::default()
    };
    let mut t = Trainer::new(&exp, cfg.clone()).map_err(fail)?;
    let (secs, res) = time_it(|| t.warmup(|_, _| {}));
    res.map_err(fail)?;
    let examples = t.warmup_examples * cfg.warmup_epochs;
    rows.push(BenchRow::new(
        format!(
            "dl2 warm-up ({:.0} examples/s)",
            examples as f64 / secs.max(1e-12)
        ),
        format!(
            "{} DRF episodes of {} jobs, {} examples x {} epochs, batch {}",
            cfg.warmup_episodes, cfg.episode_jobs, t.warmup_examples, cfg.warmup_epochs, cfg.batch
        ),
        vec![secs],
        None,
    ));
    progress("dl2 reinforcement-learning iterations");
    let iters = if quick { 2 } else { 10 };
    let (mut times, mut slots) = (Vec::new(), 0usize);
    for _ in 0..iters {
        let (secs, res) = time_it(|| t.rl_iteration());
        res.map_err(fail)?;
        times.push(secs);
        slots += t.last_rollouts.slots;
    }
    let total: f64 = times.iter().sum();
    rows.push(BenchRow::with_stat(
        format!(
            "dl2 RL iteration ({:.0} slots/s)",
            slots as f64 / total.max(1e-12)
        ),
        format!(
            "{} rollouts of {} jobs, {} updates of {} examples (eval every {})",
            cfg.rollouts, cfg.episode_jobs, cfg.updates, cfg.batch, cfg.eval_every
        ),
        times,
        None,
        "mean",
    ));
    Ok(())
}
