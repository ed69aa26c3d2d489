//! Reinforcement learning's rollouts: independent episodes of the sampling policy on one
//! workload, each decision with its discounted return and its advantage against the
//! rollouts' baseline.

use super::examples::{explore_probability, Example};
use super::{RolloutStats, Trainer};
use crate::nn::masked_softmax;
use crate::policy::dl2::learned::Mode;

impl Trainer {
    /// The decisions of `rollouts` independent episodes of the sampling policy on
    /// `workload`, with their returns and advantages (before normalisation).
    pub(super) fn rollouts(&mut self, workload: u64) -> Result<Vec<Example>, String> {
        // The rollouts.
        let mut recs = Vec::with_capacity(self.cfg.rollouts);
        for r in 0..self.cfg.rollouts {
            let policy = self.dl2(Mode::Sample {
                explore: self.cfg.explore,
            })?;
            let _ = r;
            let choices = self.rng.next_u64();
            recs.push(self.run_exp(
                self.episode_with(workload, choices),
                Box::new(policy),
                self.cfg.exact_credit,
            )?);
        }
        // Returns per slot; the baseline of slot `t` of a rollout is the rollouts' average
        // return of the slot corrected linearly for the work the rollout has left then
        // (a rollout that fell behind has more progress left to make): `b_t + beta (W - W_t)`
        // with `W_t` the rollouts' average work left, `beta` fitted by least squares over
        // the iteration's slots. A rollout that has ended counts with return and work 0.
        let slots = recs.iter().map(|r| r.rewards.len()).max().unwrap_or(0);
        let mut returns: Vec<Vec<f64>> = Vec::with_capacity(recs.len());
        for rec in &recs {
            let mut ret = vec![0.0; rec.rewards.len()];
            let mut g = 0.0;
            for t in (0..rec.rewards.len()).rev() {
                g = rec.rewards[t] + self.cfg.gamma * g;
                ret[t] = g;
            }
            returns.push(ret);
        }
        let point = |r: usize, t: usize| -> Option<(f64, f64)> {
            if t >= recs[r].rewards.len() {
                return Some((0.0, 0.0));
            }
            let w = recs[r].work.get(t).copied().flatten()?;
            Some((w, returns[r][t]))
        };
        let mut mean_w = vec![0.0; slots];
        let mut mean_g = vec![0.0; slots];
        for t in 0..slots {
            let pts: Vec<(f64, f64)> = (0..recs.len()).filter_map(|r| point(r, t)).collect();
            let n = pts.len().max(1) as f64;
            mean_w[t] = pts.iter().map(|p| p.0).sum::<f64>() / n;
            mean_g[t] = pts.iter().map(|p| p.1).sum::<f64>() / n;
        }
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for t in 0..slots {
            for r in 0..recs.len() {
                if let Some((w, g)) = point(r, t) {
                    sxy += (w - mean_w[t]) * (g - mean_g[t]);
                    sxx += (w - mean_w[t]) * (w - mean_w[t]);
                }
            }
        }
        let beta = if sxx > 1e-12 { sxy / sxx } else { 0.0 };
        let mean0 = returns
            .iter()
            .map(|r| r.first().copied().unwrap_or(0.0))
            .sum::<f64>()
            / returns.len().max(1) as f64;
        let (rw, sl, jc, jb) = recs.iter().fold((0.0, 0, 0.0, 0), |a, r| {
            (
                a.0 + r.rewards.iter().sum::<f64>(),
                a.1 + r.rewards.len(),
                a.2 + r.jct.iter().sum::<f64>(),
                a.3 + r.jct.len(),
            )
        });
        self.last_rollouts = RolloutStats {
            reward_per_slot: rw / sl.max(1) as f64,
            avg_jct_s: jc / jb.max(1) as f64,
            slots: sl,
            decisions: recs.iter().map(|r| r.examples.len()).sum(),
            return0: returns
                .iter()
                .map(|r| r.first().copied().unwrap_or(0.0))
                .sum::<f64>()
                / returns.len().max(1) as f64,
        };
        // Per-action credit: the mean over the iteration's decisions of each slot of the
        // progress already locked in before the decision.
        let mut locked = vec![(0.0, 0usize); slots];
        for rec in &recs {
            for e in &rec.examples {
                if let Some(l) = locked.get_mut(e.slot) {
                    l.0 += e.locked;
                    l.1 += 1;
                }
            }
        }
        let mut fresh = Vec::new();
        let mut pcache = self.policy.cache();
        let mut vcache = self.value.cache();
        if self.cfg.exact_credit {
            for (rec, ret) in recs.into_iter().zip(&returns) {
                for mut e in rec.examples {
                    e.ret = ret.get(e.slot).copied().unwrap_or(0.0);
                    let (b, probs) = self.behaviour(&mut pcache, &e);
                    e.old_log_prob = b;
                    let mean: f64 = probs.iter().zip(&e.gains).map(|(p, g)| p * g).sum();
                    for (g, &m) in e.gains.iter_mut().zip(&e.mask) {
                        *g = if m { *g - mean } else { 0.0 };
                    }
                    e.old_probs = probs;
                    fresh.push(e);
                }
            }
            return Ok(fresh);
        }
        for (rec, ret) in recs.into_iter().zip(&returns) {
            for mut e in rec.examples {
                e.ret = ret.get(e.slot).copied().unwrap_or(0.0);
                if self.cfg.episode_credit {
                    e.ret = ret.first().copied().unwrap_or(0.0);
                }
                let b = if self.cfg.episode_credit {
                    mean0
                } else {
                    match rec.work.get(e.slot).copied().flatten() {
                        Some(w) => mean_g[e.slot] + beta * (w - mean_w[e.slot]),
                        None => mean_g.get(e.slot).copied().unwrap_or(0.0),
                    }
                };
                let v = if self.cfg.critic_mix > 0.0 {
                    self.value.forward(&e.state, &mut vcache)[0]
                } else {
                    0.0
                };
                e.adv = e.ret - ((1.0 - self.cfg.critic_mix) * b + self.cfg.critic_mix * v);
                if self.cfg.action_credit {
                    let (sum, n) = locked.get(e.slot).copied().unwrap_or((0.0, 0));
                    e.adv -= e.locked - sum / n.max(1) as f64;
                }
                let logits = self.policy.forward(&e.state, &mut pcache);
                let p = masked_softmax(logits, Some(&e.mask))[e.action];
                let q = explore_probability(&e.mask, self.cfg.window, e.action);
                let behaviour = (1.0 - self.cfg.explore) * p + self.cfg.explore * q;
                e.old_log_prob = crate::math::ln(behaviour.max(1e-300));
                fresh.push(e);
            }
        }
        Ok(fresh)
    }

    /// The behaviour probability's logarithm of `action` under the sampling policy
    /// (sampling from the actor with job-aware exploration), and the actor's probabilities.
    pub(super) fn behaviour(&self, cache: &mut crate::nn::Cache, e: &Example) -> (f64, Vec<f64>) {
        let logits = self.policy.forward(&e.state, cache);
        let probs = masked_softmax(logits, Some(&e.mask));
        let p = probs[e.action];
        let q = explore_probability(&e.mask, self.cfg.window, e.action);
        let b = (1.0 - self.cfg.explore) * p + self.cfg.explore * q;
        (crate::math::ln(b.max(1e-300)), probs)
    }
}
