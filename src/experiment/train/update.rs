//! One reinforcement-learning iteration: its examples, then the actor's clipped surrogate
//! with entropy bonus and KL penalty and the critic's squared error, in minibatches from
//! the replay memory, and the curve's evaluation points.

use super::examples::Example;
use super::{CurvePoint, Trainer};
use crate::nn::{log_softmax, masked_softmax, mse, policy_loss, soft_cross_entropy, Optimizer};

/// Cap of the probability ratio of a decision with a negative advantage (dual-clip PPO).
const DUAL_CLIP: f64 = 3.0;

impl Trainer {
    /// One reinforcement-learning iteration: `rollouts` episodes of the sampling policy on
    /// one training workload (or, with `branches > 0`, the branches of one greedy episode,
    /// see [`super::TrainConfig::branches`]), then `updates` minibatch steps of the actor and the
    /// critic over the decisions of the last `replay` iterations. Returns the actor's
    /// average loss.
    ///
    /// A decision of slot `t` of a rollout has the return `G_t` of its slot; its advantage
    /// is `G_t` minus the baseline, `(1 - critic_mix) * b_t + critic_mix * V(s)`, where `b_t`
    /// is the average of `G_t` over the iteration's rollouts (a rollout that has ended counts
    /// 0) and `V` the critic; advantages are normalised over the iteration's decisions. The
    /// actor minimises the clipped surrogate `-min(rho A, clip(rho, 1 - clip, 1 + clip) A)`
    /// (`rho` the ratio of the actor's probability of the action to that of the policy that
    /// took it) minus `entropy` times the entropy plus `kl` times `KL(warm-up || actor)`.
    pub fn rl_iteration(&mut self) -> Result<f64, String> {
        let k = self.iteration;
        self.iteration += 1;
        if self.reference.is_none() {
            self.reference = Some(self.policy.clone());
        }
        let cycle = if self.cfg.workloads > 0 {
            self.cfg.workloads
        } else {
            usize::MAX
        };
        let workload = self.train_seed(k % cycle) ^ 0x5eed;
        let mut fresh = if self.cfg.branches > 0 {
            self.branched(workload)?
        } else {
            self.rollouts(workload)?
        };
        if self.cfg.exact_credit && !fresh.is_empty() {
            let (mut sq, mut n) = (0.0, 0usize);
            for e in &fresh {
                for (g, &m) in e.gains.iter().zip(&e.mask) {
                    if m {
                        sq += g * g;
                        n += 1;
                    }
                }
            }
            let sd = (sq / n.max(1) as f64).sqrt().max(1e-12) * self.cfg.temperature;
            for e in &mut fresh {
                for g in &mut e.gains {
                    *g /= sd;
                }
            }
        } else if !fresh.is_empty() {
            let n = fresh.len() as f64;
            let mean = fresh.iter().map(|e| e.adv).sum::<f64>() / n;
            let var = fresh.iter().map(|e| (e.adv - mean).powi(2)).sum::<f64>() / n;
            let sd = var.sqrt().max(1e-9);
            for e in &mut fresh {
                e.adv = (e.adv - mean) / sd;
            }
        }
        self.replay.push(fresh);
        if self.replay.len() > self.cfg.replay {
            self.replay.remove(0);
        }
        let pool: Vec<&Example> = self.replay.iter().flatten().collect();
        if pool.is_empty() {
            return Ok(0.0);
        }
        let reference = self.reference.clone();
        let mut pcache = self.policy.cache();
        let mut vcache = self.value.cache();
        let mut rcache = self.policy.cache();
        let mut pgrads = self.policy.zero_grads();
        let mut vgrads = self.value.zero_grads();
        let mut total = 0.0;
        let n = self.cfg.batch.min(pool.len());
        let actor = self.iteration > self.cfg.critic_warmup;
        for _ in 0..self.cfg.updates {
            pgrads.zero();
            vgrads.zero();
            for _ in 0..n {
                let e = pool[self.rng.below(pool.len() as u64) as usize];
                if actor && !e.gains.is_empty() {
                    // Exact credit: cross-entropy toward the improved policy
                    // `old pi(a) exp(A(a))`, with the entropy bonus and the KL penalty.
                    let logits = self.policy.forward(&e.state, &mut pcache).to_vec();
                    let probs = masked_softmax(&logits, Some(&e.mask));
                    let mut target: Vec<f64> = e
                        .gains
                        .iter()
                        .zip(&e.mask)
                        .zip(&e.old_probs)
                        .map(|((g, &m), &q)| {
                            if m {
                                q * crate::math::exp(g.min(30.0))
                            } else {
                                0.0
                            }
                        })
                        .collect();
                    let z: f64 = target.iter().sum::<f64>().max(1e-300);
                    for t in &mut target {
                        *t /= z;
                    }
                    let (loss, mut grad) = soft_cross_entropy(&logits, Some(&e.mask), &target);
                    total += loss;
                    for (g, d) in grad.iter_mut().zip(crate::nn::entropy_grad(&probs)) {
                        *g -= self.cfg.entropy * d;
                    }
                    if let (Some(r), true) = (&reference, self.cfg.kl > 0.0) {
                        let q = masked_softmax(r.forward(&e.state, &mut rcache), Some(&e.mask));
                        for ((g, p), q) in grad.iter_mut().zip(&probs).zip(&q) {
                            *g += self.cfg.kl * (p - q);
                        }
                    }
                    self.policy.backward(&mut pcache, &grad, &mut pgrads);
                } else if actor {
                    let logits = self.policy.forward(&e.state, &mut pcache).to_vec();
                    let log_p = log_softmax(&logits, Some(&e.mask))[e.action];
                    let ratio = crate::math::exp(log_p - e.old_log_prob);
                    // The clipped surrogate's gradient flows only where the ratio is
                    // inside the clip range or clipping would not bind.
                    // (A negative advantage's ratio is also capped at DUAL_CLIP, so that an
                    // action the acting policy rarely took cannot dominate an update.)
                    let clipped = self.cfg.clip > 0.0
                        && ((e.adv > 0.0 && ratio > 1.0 + self.cfg.clip)
                            || (e.adv < 0.0 && (ratio < 1.0 - self.cfg.clip || ratio > DUAL_CLIP)));
                    let weight = if clipped {
                        0.0
                    } else if self.cfg.clip > 0.0 {
                        e.adv * ratio
                    } else {
                        e.adv
                    };
                    let l = policy_loss(&logits, Some(&e.mask), e.action, weight, self.cfg.entropy);
                    total += l.loss;
                    let mut grad = l.grad;
                    if let (Some(r), true) = (&reference, self.cfg.kl > 0.0) {
                        let q = masked_softmax(r.forward(&e.state, &mut rcache), Some(&e.mask));
                        for ((g, p), q) in grad.iter_mut().zip(&l.probs).zip(&q) {
                            *g += self.cfg.kl * (p - q);
                        }
                    }
                    self.policy.backward(&mut pcache, &grad, &mut pgrads);
                }
                let v = self.value.forward(&e.state, &mut vcache).to_vec();
                let (_, dv) = mse(&v, &[e.ret]);
                self.value.backward(&mut vcache, &dv, &mut vgrads);
            }
            pgrads.scale(1.0 / n as f64);
            vgrads.scale(1.0 / n as f64);
            if actor {
                self.opt_policy.step(&mut self.policy, &pgrads);
            }
            self.opt_value.step(&mut self.value, &vgrads);
        }
        let loss = total / (self.cfg.updates * n).max(1) as f64;

        if self.iteration.is_multiple_of(self.cfg.eval_every) {
            let (r, j) = self.evaluate()?;
            self.curve.push(CurvePoint {
                phase: "rl".into(),
                step: self.iteration,
                loss,
                agreement: None,
                reward_per_slot: Some(r),
                avg_jct_s: Some(j),
            });
        }
        Ok(loss)
    }
}
