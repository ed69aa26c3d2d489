//! Branched credit: the greedy actor's walk through a workload, forked at some slots into
//! copies whose returns over a horizon credit a slot's or a decision's choices.

use super::examples::{Example, Recorder};
use super::{lift, RolloutStats, Trainer};
use crate::nn::masked_softmax;
use crate::policy::dl2::learned::{Dl2, Mode};
use crate::rng::Rng;
use crate::sim::slots::{
    NoObserver, SlotAction, SlotObserver, SlotPolicy, SlotSimulator, SlotView,
};

impl Trainer {
    /// Play `sim` for one slot (telling `first` its decisions) and `horizon` more with the
    /// greedy actor `greedy` from the second slot on (when given): the discounted reward.
    fn branch_return(
        &self,
        sim: &mut SlotSimulator,
        first: &mut dyn SlotObserver,
        greedy: Option<Box<dyn SlotPolicy>>,
    ) -> f64 {
        let (mut g, mut d) = (0.0, 1.0);
        let t0 = sim.now();
        let Some(step) = sim.step_slot(first) else {
            return 0.0;
        };
        g += step.reward;
        if let Some(p) = greedy {
            sim.set_policy(p);
        }
        for _ in 0..self.cfg.horizon {
            d *= self.cfg.gamma;
            match sim.step_slot(&mut NoObserver) {
                Some(s) => g += d * s.reward,
                None => break,
            }
        }
        if self.cfg.time_credit {
            // Minus the time the jobs spent in the system over the branch's slots.
            let t1 = sim.now();
            let mut spent = 0.0;
            for j in sim.jobs() {
                let end = j.finish.unwrap_or(t1).min(t1);
                let start = j.arrival.max(t0);
                if end > start {
                    spent += end - start;
                }
            }
            return -spent / sim.config().slot_s;
        }
        g
    }

    /// Branched credit on `workload`: the greedy actor walks the episode; at every
    /// `branch_every`-th slot (from a random offset) the simulation forks, and either
    /// `branches` copies play the slot with the sampling policy (slot credit) or, at
    /// `branch_decisions` of the greedy actor's decisions there, each of the `tries` most
    /// probable actions is taken instead (decision credit); every branch then follows the
    /// greedy actor for `horizon` slots. All branches of a fork see the same jobs, arrivals
    /// and state, so their returns differ only by the decisions being credited.
    pub(super) fn branched(&mut self, workload: u64) -> Result<Vec<Example>, String> {
        let choices = self.rng.next_u64();
        let exp = self.episode_with(workload, choices);
        let r = exp.resolve().map_err(lift)?;
        let ps = r.ps().ok_or("not a DL2 experiment")?;
        let net = self.policy.clone();
        let greedy = || -> Result<Box<dyn SlotPolicy>, String> {
            Ok(Box::new(Dl2::new("dl2", net.clone(), Mode::Greedy)?))
        };
        let mut main = r.slot_simulator_with(greedy()?, ps).map_err(lift)?;
        let every = self.cfg.branch_every as u64;
        let offset = self.rng.below(every);
        let mut fresh = Vec::new();
        let mut cache = self.policy.cache();
        let mut vcache = self.value.cache();
        let (mut reward, mut slots) = (0.0, 0usize);
        loop {
            let slot = main.current_slot();
            let fork = if slot % every == offset {
                Some(main.fork(greedy()?))
            } else {
                None
            };
            let mut rec = Recorder {
                window: self.cfg.window,
                ..Default::default()
            };
            let Some(step) = main.step_slot(&mut rec) else {
                break;
            };
            reward += step.reward;
            slots += 1;
            let Some(fork) = fork else {
                continue;
            };
            let mut group: Vec<Example> = Vec::new();
            if self.cfg.decision_credit {
                let n = rec.examples.len();
                if n == 0 {
                    continue;
                }
                let mut picks: Vec<usize> = (0..n).collect();
                self.rng.shuffle(&mut picks);
                picks.truncate(self.cfg.branch_decisions);
                picks.sort_unstable();
                for at in picks {
                    let base = &rec.examples[at];
                    let logits = self.policy.forward(&base.state, &mut cache);
                    let probs = masked_softmax(logits, Some(&base.mask));
                    let mut order: Vec<usize> =
                        (0..probs.len()).filter(|&i| base.mask[i]).collect();
                    crate::order::sort_by(&mut order, |&a, &b| {
                        probs[b].total_cmp(&probs[a]).then(a.cmp(&b))
                    });
                    order.truncate(self.cfg.tries);
                    if order.len() < 2 {
                        continue;
                    }
                    let mut tried = Vec::with_capacity(order.len());
                    for &action in &order {
                        let mut sim = fork.fork(Box::new(Deviate {
                            net: Dl2::new("dl2", net.clone(), Mode::Greedy)?,
                            slot,
                            at,
                            action,
                            calls: 0,
                        }));
                        let g = self.branch_return(&mut sim, &mut NoObserver, None);
                        tried.push((action, probs[action], g));
                    }
                    // The update compares the tried actions among themselves: their
                    // mask is the tried set, so no probability moves to untried actions.
                    let mass: f64 = tried.iter().map(|t| t.1).sum::<f64>().max(1e-300);
                    let mean = tried.iter().map(|t| t.1 * t.2).sum::<f64>() / mass;
                    let mut mask = vec![false; base.mask.len()];
                    for t in &tried {
                        mask[t.0] = true;
                    }
                    for (action, p, g) in tried {
                        let p = p / mass;
                        group.push(Example {
                            state: base.state.clone(),
                            mask: mask.clone(),
                            action,
                            slot: 0,
                            ret: g,
                            adv: p * (g - mean),
                            old_log_prob: crate::math::ln(p.max(1e-300)),
                            locked: 0.0,
                            gains: Vec::new(),
                            old_probs: Vec::new(),
                        });
                    }
                }
            } else {
                let mut runs = Vec::with_capacity(self.cfg.branches);
                for _ in 0..self.cfg.branches {
                    let sampler = Dl2::new(
                        "dl2",
                        net.clone(),
                        Mode::Sample {
                            explore: self.cfg.explore,
                        },
                    )?;
                    let mut sim = fork.fork(Box::new(sampler));
                    sim.reseed(self.rng.next_u64());
                    let mut brec = Recorder {
                        window: self.cfg.window,
                        ..Default::default()
                    };
                    let g = self.branch_return(&mut sim, &mut brec, Some(greedy()?));
                    runs.push((brec.examples, g));
                }
                let mean = runs.iter().map(|r| r.1).sum::<f64>() / runs.len().max(1) as f64;
                for (examples, g) in runs {
                    for mut e in examples {
                        e.ret = g;
                        e.adv = g - mean;
                        e.old_log_prob = self.behaviour(&mut cache, &e).0;
                        group.push(e);
                    }
                }
            }
            if self.cfg.critic_mix > 0.0 {
                for e in &mut group {
                    let v = self.value.forward(&e.state, &mut vcache)[0];
                    e.adv = (1.0 - self.cfg.critic_mix) * e.adv + self.cfg.critic_mix * (e.ret - v);
                }
            }
            fresh.extend(group);
        }
        let jct: Vec<f64> = main
            .jobs()
            .iter()
            .filter_map(|j| Some(j.finish? - j.arrival))
            .collect();
        self.last_rollouts = RolloutStats {
            reward_per_slot: reward / slots.max(1) as f64,
            avg_jct_s: jct.iter().sum::<f64>() / jct.len().max(1) as f64,
            slots,
            decisions: fresh.len(),
            return0: 0.0,
        };
        Ok(fresh)
    }
}

/// The greedy actor, except at decision `at` of slot `slot`, where it takes `action`.
struct Deviate {
    pub(super) net: Dl2,
    pub(super) slot: u64,
    at: usize,
    pub(super) action: usize,
    calls: usize,
}

impl SlotPolicy for Deviate {
    fn name(&self) -> &str {
        "dl2"
    }

    fn act(&mut self, view: &SlotView, rng: &mut Rng) -> SlotAction {
        if view.slot == self.slot {
            let call = self.calls;
            self.calls += 1;
            if call == self.at {
                return view.action_at(self.net.window(), self.action);
            }
        }
        self.net.act(view, rng)
    }
}
