//! Training DL2: a supervised warm-up that imitates DRF's decisions, then actor-critic
//! reinforcement learning in the slot simulator.
//!
//! - **Episodes** are workloads of the experiment's generator with `episode_jobs` jobs and
//!   their own seeds: training episodes draw seeds from the training seed, evaluation and
//!   held-out episodes from seeds no training episode uses.
//! - **Warm-up**: DRF runs the warm-up episodes; every applied decision about a job of the
//!   window (and every stop) becomes a (state, action) example. The network learns them by
//!   cross-entropy with Adam over `warmup_epochs` passes in minibatches; agreement is the
//!   share of held-out decisions where its most probable action is DRF's.
//! - **Reinforcement learning**: each iteration runs one training episode with the policy
//!   sampling from its probabilities and exploring job by job with probability `explore`.
//!   A slot's reward is the fraction of their work the jobs did in it (summed over jobs); each
//!   decision of slot `t` gets the discounted return `G_t = r_t + gamma G_{t+1}`. The critic
//!   (a second network on the same input) learns `G` by squared error; the actor follows the
//!   policy gradient of the advantage `G - V(s)` (normalised within a minibatch) with an
//!   entropy bonus. Decisions of the last `replay` episodes are kept and minibatches are
//!   drawn from them (experience replay).
//! - Every random choice derives from `seed`: the same configuration trains the same
//!   weights, natively and in the browser.

use super::learned::{encode, Dl2, Mode};
use crate::experiment::{Experiment, ExperimentError, WorkloadSource};
use crate::nn::{
    cross_entropy, greedy_action, masked_softmax, mse, policy_loss, Activation, Adam, Mlp,
    Optimizer,
};
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotObserver, SlotStep, SlotView, ACTIONS_PER_JOB};
use serde::{Deserialize, Serialize};

/// Training settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// Seed of everything random in training.
    pub seed: u64,
    /// Jobs in the network's window.
    pub window: usize,
    /// Hidden layer sizes.
    pub hidden: Vec<usize>,
    /// Jobs per episode.
    pub episode_jobs: usize,
    /// Episodes of DRF's decisions to imitate.
    pub warmup_episodes: usize,
    /// Passes over them.
    pub warmup_epochs: usize,
    /// Learning rate of the warm-up.
    pub warmup_lr: f64,
    /// Reinforcement-learning iterations (one episode each).
    pub iterations: usize,
    /// Learning rate of the actor and the critic.
    pub rl_lr: f64,
    /// Discount of later slots' rewards.
    pub gamma: f64,
    /// Weight of the entropy bonus.
    pub entropy: f64,
    /// Probability of job-aware exploration per decision.
    pub explore: f64,
    /// Episodes kept for experience replay.
    pub replay: usize,
    /// Examples per minibatch.
    pub batch: usize,
    /// Minibatch updates per iteration.
    pub updates: usize,
    /// Iterations at the start of reinforcement learning that train only the critic (so
    /// the actor's first advantages come from a critic that has learned something).
    pub critic_warmup: usize,
    /// Evaluate every this many iterations.
    pub eval_every: usize,
    /// Episodes of each evaluation (and of the held-out warm-up check).
    pub eval_episodes: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            seed: 0,
            window: 10,
            hidden: vec![64, 64],
            episode_jobs: 60,
            warmup_episodes: 80,
            warmup_epochs: 40,
            warmup_lr: 3e-3,
            iterations: 150,
            rl_lr: 2e-4,
            gamma: 0.9,
            entropy: 0.01,
            explore: 0.05,
            replay: 4,
            batch: 256,
            updates: 8,
            critic_warmup: 20,
            eval_every: 10,
            eval_episodes: 3,
        }
    }
}

impl TrainConfig {
    /// Check every setting, naming the first bad one.
    pub fn check(&self) -> Result<(), String> {
        let bad = |f: &str, r: &str| Err(format!("training setting '{f}': {r}"));
        if !(1..=64).contains(&self.window) {
            return bad("window", "between 1 and 64 jobs");
        }
        if self.hidden.is_empty() || self.hidden.iter().any(|&h| !(1..=1024).contains(&h)) {
            return bad("hidden", "one or more layers of 1 to 1,024 units");
        }
        if !(2..=5000).contains(&self.episode_jobs) {
            return bad("episode_jobs", "between 2 and 5,000");
        }
        for (f, v) in [("warmup_lr", self.warmup_lr), ("rl_lr", self.rl_lr)] {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return bad(f, "a learning rate in (0, 1]");
            }
        }
        for (f, v) in [("gamma", self.gamma), ("explore", self.explore)] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return bad(f, "between 0 and 1");
            }
        }
        if !(self.entropy.is_finite() && self.entropy >= 0.0) {
            return bad("entropy", "a non-negative weight");
        }
        if self.batch == 0 || self.replay == 0 || self.eval_every == 0 || self.eval_episodes == 0 {
            return bad("batch/replay/eval_every/eval_episodes", "at least 1");
        }
        Ok(())
    }
}

/// One recorded decision.
#[derive(Debug, Clone, PartialEq)]
struct Example {
    state: Vec<f64>,
    mask: Vec<bool>,
    action: usize,
    slot: usize,
    ret: f64,
}

/// Records the encoded state, mask and action of every applied decision within the window,
/// and each slot's reward.
#[derive(Debug, Default)]
struct Recorder {
    window: usize,
    examples: Vec<Example>,
    rewards: Vec<f64>,
    jct: Vec<f64>,
}

impl SlotObserver for Recorder {
    fn decision(&mut self, view: &SlotView, action: SlotAction, applied: bool) {
        if !applied && action != SlotAction::Stop {
            return;
        }
        let Some(index) = view.action_index(self.window, action) else {
            return;
        };
        let mask = view.action_mask(self.window);
        if !mask.get(index).copied().unwrap_or(false) {
            return;
        }
        self.examples.push(Example {
            state: encode(view, self.window),
            mask,
            action: index,
            slot: self.rewards.len(),
            ret: 0.0,
        });
    }

    fn slot_end(&mut self, step: &SlotStep) {
        self.rewards.push(step.reward);
    }
}

/// One point of the learning curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// `warmup` (per epoch) or `rl` (per evaluation).
    pub phase: String,
    /// Epoch or iteration.
    pub step: usize,
    /// Average loss of the step (cross-entropy, or the actor's).
    pub loss: f64,
    /// Warm-up: share of held-out decisions equal to DRF's.
    pub agreement: Option<f64>,
    /// Evaluation: average reward per slot of the greedy policy.
    pub reward_per_slot: Option<f64>,
    /// Evaluation: average JCT of the greedy policy (s).
    pub avg_jct_s: Option<f64>,
}

/// Training state: the two networks, their optimisers and the curve so far.
#[derive(Debug)]
pub struct Trainer {
    cfg: TrainConfig,
    base: Experiment,
    /// The actor.
    pub policy: Mlp,
    /// The critic.
    pub value: Mlp,
    opt_policy: Adam,
    opt_value: Adam,
    rng: Rng,
    replay: Vec<Vec<Example>>,
    iteration: usize,
    /// The learning curve.
    pub curve: Vec<CurvePoint>,
    types: usize,
    slots: std::cell::Cell<u64>,
}

fn lift(e: ExperimentError) -> String {
    e.to_string()
}

impl Trainer {
    /// A trainer on the workloads of `base` (a DL2 experiment with a generated workload).
    pub fn new(base: &Experiment, cfg: TrainConfig) -> Result<Self, String> {
        cfg.check()?;
        if !matches!(base.workload, WorkloadSource::Generated(_)) {
            return Err("training needs a DL2 experiment with a generated workload".into());
        }
        let r = base.resolve().map_err(lift)?;
        let ps =
            r.ps.as_ref()
                .ok_or("training needs a DL2 (parameter-server) experiment")?;
        let types = ps.models.models.len();
        let inputs = cfg.window * (types + super::learned::JOB_NUMBERS);
        let outputs = cfg.window * ACTIONS_PER_JOB + 1;
        let mut rng = Rng::for_purpose(cfg.seed, "dl2-train");
        let mut sizes = vec![inputs];
        sizes.extend(&cfg.hidden);
        sizes.push(outputs);
        let mut policy = Mlp::new(&sizes, Activation::Relu, &mut rng);
        policy.scale_output_layer(0.1);
        let mut vsizes = vec![inputs];
        vsizes.extend(&cfg.hidden);
        vsizes.push(1);
        let value = Mlp::new(&vsizes, Activation::Relu, &mut rng);
        Ok(Trainer {
            opt_policy: Adam::new(cfg.warmup_lr).with_max_grad_norm(5.0),
            opt_value: Adam::new(cfg.rl_lr).with_max_grad_norm(5.0),
            cfg,
            base: base.clone(),
            policy,
            value,
            rng,
            replay: Vec::new(),
            iteration: 0,
            curve: Vec::new(),
            types,
            slots: std::cell::Cell::new(0),
        })
    }

    /// The settings.
    pub fn config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// Slots simulated so far (warm-up, reinforcement-learning and evaluation episodes).
    pub fn slots_simulated(&self) -> u64 {
        self.slots.get()
    }

    /// Input size of the networks.
    pub fn inputs(&self) -> usize {
        self.cfg.window * (self.types + super::learned::JOB_NUMBERS)
    }

    /// The experiment of episode `seed`.
    fn episode(&self, seed: u64) -> Experiment {
        let mut e = self.base.clone();
        if let WorkloadSource::Generated(g) = &mut e.workload {
            g.num_jobs = self.cfg.episode_jobs;
            g.seed = seed;
        }
        e.seed = seed;
        e
    }

    /// Run `policy` on the workload of episode `seed`, recording its decisions.
    fn run(
        &self,
        seed: u64,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
    ) -> Result<Recorder, String> {
        let exp = self.episode(seed);
        let r = exp.resolve().map_err(lift)?;
        let ps = r.ps.as_ref().ok_or("not a DL2 experiment")?;
        let mut sim = r.slot_simulator_with(policy, ps).map_err(lift)?;
        let mut rec = Recorder {
            window: self.cfg.window,
            ..Default::default()
        };
        while sim.step_slot(&mut rec).is_some() {}
        self.slots.set(self.slots.get() + rec.rewards.len() as u64);
        rec.jct = sim
            .jobs()
            .iter()
            .filter_map(|j| Some(j.finish? - j.arrival))
            .collect();
        Ok(rec)
    }

    fn train_seed(&self, k: usize) -> u64 {
        self.cfg
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(1000 + k as u64)
    }

    fn heldout_seed(&self, k: usize) -> u64 {
        self.cfg
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(1_000_000 + k as u64)
    }

    /// The current actor as a policy.
    pub fn dl2(&self, mode: Mode) -> Result<Dl2, String> {
        Dl2::new("dl2", self.policy.clone(), mode)
    }

    /// Agreement of the actor's most probable action with the examples' actions.
    fn agreement(&mut self, examples: &[Example]) -> f64 {
        if examples.is_empty() {
            return 0.0;
        }
        let mut cache = self.policy.cache();
        let same = examples
            .iter()
            .filter(|e| {
                let logits = self.policy.forward(&e.state, &mut cache);
                let probs = masked_softmax(logits, Some(&e.mask));
                greedy_action(&probs) == Some(e.action)
            })
            .count();
        same as f64 / examples.len() as f64
    }

    /// The supervised warm-up; `progress(epoch, epochs)` after every epoch.
    pub fn warmup(&mut self, mut progress: impl FnMut(usize, usize)) -> Result<f64, String> {
        let drf = || super::build("drf").map_err(|e| e.to_string());
        let mut train = Vec::new();
        for k in 0..self.cfg.warmup_episodes {
            train.extend(self.run(self.train_seed(k), drf()?)?.examples);
        }
        let mut held = Vec::new();
        for k in 0..self.cfg.eval_episodes {
            held.extend(self.run(self.heldout_seed(k), drf()?)?.examples);
        }
        if train.is_empty() {
            return Err("DRF made no decisions to imitate".into());
        }
        let mut order: Vec<usize> = (0..train.len()).collect();
        let mut cache = self.policy.cache();
        let mut grads = self.policy.zero_grads();
        let mut agreement = 0.0;
        for epoch in 0..self.cfg.warmup_epochs {
            self.rng.shuffle(&mut order);
            let mut total = 0.0;
            for chunk in order.chunks(self.cfg.batch) {
                grads.zero();
                for &i in chunk {
                    let e = &train[i];
                    let logits = self.policy.forward(&e.state, &mut cache).to_vec();
                    let (loss, d) = cross_entropy(&logits, Some(&e.mask), e.action);
                    total += loss;
                    self.policy.backward(&mut cache, &d, &mut grads);
                }
                grads.scale(1.0 / chunk.len() as f64);
                self.opt_policy.step(&mut self.policy, &grads);
            }
            agreement = self.agreement(&held);
            self.curve.push(CurvePoint {
                phase: "warmup".into(),
                step: epoch + 1,
                loss: total / train.len() as f64,
                agreement: Some(agreement),
                reward_per_slot: None,
                avg_jct_s: None,
            });
            progress(epoch + 1, self.cfg.warmup_epochs);
        }
        self.opt_policy = Adam::new(self.cfg.rl_lr).with_max_grad_norm(5.0);
        Ok(agreement)
    }

    /// Evaluate the greedy actor on the held-out episodes: (reward per slot, average JCT).
    pub fn evaluate(&self) -> Result<(f64, f64), String> {
        let (mut reward, mut slots, mut jct, mut jobs) = (0.0, 0usize, 0.0, 0usize);
        for k in 0..self.cfg.eval_episodes {
            let rec = self.run(self.heldout_seed(k), Box::new(self.dl2(Mode::Greedy)?))?;
            reward += rec.rewards.iter().sum::<f64>();
            slots += rec.rewards.len();
            jct += rec.jct.iter().sum::<f64>();
            jobs += rec.jct.len();
        }
        Ok((reward / slots.max(1) as f64, jct / jobs.max(1) as f64))
    }

    /// Average reward per slot of the greedy actor on training episodes `0..n`.
    pub fn training_reward(&self, n: usize) -> Result<f64, String> {
        let (mut reward, mut slots) = (0.0, 0usize);
        for k in 0..n {
            let rec = self.run(self.train_seed(k), Box::new(self.dl2(Mode::Greedy)?))?;
            reward += rec.rewards.iter().sum::<f64>();
            slots += rec.rewards.len();
        }
        Ok(reward / slots.max(1) as f64)
    }

    /// One reinforcement-learning iteration: an episode, then the updates. Returns the
    /// actor's average loss.
    pub fn rl_iteration(&mut self) -> Result<f64, String> {
        let k = self.iteration;
        self.iteration += 1;
        let seed = self.train_seed(k % (4 * self.cfg.warmup_episodes.max(4)));
        let policy = self.dl2(Mode::Sample {
            explore: self.cfg.explore,
        })?;
        let mut rec = self.run(seed ^ 0x5eed, Box::new(policy))?;
        // Discounted returns per slot.
        let mut returns = vec![0.0; rec.rewards.len()];
        let mut g = 0.0;
        for t in (0..rec.rewards.len()).rev() {
            g = rec.rewards[t] + self.cfg.gamma * g;
            returns[t] = g;
        }
        for e in &mut rec.examples {
            e.ret = returns.get(e.slot).copied().unwrap_or(0.0);
        }
        self.replay.push(rec.examples);
        if self.replay.len() > self.cfg.replay {
            self.replay.remove(0);
        }
        let pool: Vec<&Example> = self.replay.iter().flatten().collect();
        if pool.is_empty() {
            return Ok(0.0);
        }
        let mut pcache = self.policy.cache();
        let mut vcache = self.value.cache();
        let mut pgrads = self.policy.zero_grads();
        let mut vgrads = self.value.zero_grads();
        let mut total = 0.0;
        for _ in 0..self.cfg.updates {
            let n = self.cfg.batch.min(pool.len());
            let picks: Vec<usize> = (0..n)
                .map(|_| self.rng.below(pool.len() as u64) as usize)
                .collect();
            // Advantages, normalised within the batch.
            let mut adv: Vec<f64> = picks
                .iter()
                .map(|&i| pool[i].ret - self.value.forward(&pool[i].state, &mut vcache)[0])
                .collect();
            let mean = adv.iter().sum::<f64>() / n as f64;
            let var = adv.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / n as f64;
            let sd = var.sqrt().max(1e-6);
            for a in &mut adv {
                *a = (*a - mean) / sd;
            }
            pgrads.zero();
            vgrads.zero();
            for (&i, &a) in picks.iter().zip(&adv) {
                let e = pool[i];
                let logits = self.policy.forward(&e.state, &mut pcache).to_vec();
                let l = policy_loss(&logits, Some(&e.mask), e.action, a, self.cfg.entropy);
                total += l.loss;
                self.policy.backward(&mut pcache, &l.grad, &mut pgrads);
                let v = self.value.forward(&e.state, &mut vcache).to_vec();
                let (_, dv) = mse(&v, &[e.ret]);
                self.value.backward(&mut vcache, &dv, &mut vgrads);
            }
            pgrads.scale(1.0 / n as f64);
            vgrads.scale(1.0 / n as f64);
            if self.iteration > self.cfg.critic_warmup {
                self.opt_policy.step(&mut self.policy, &pgrads);
            }
            self.opt_value.step(&mut self.value, &vgrads);
        }
        let loss = total / (self.cfg.updates * self.cfg.batch.min(pool.len())).max(1) as f64;
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

    /// The learning curve as CSV.
    pub fn curve_csv(&self) -> String {
        let mut s = String::from("phase,step,loss,agreement,reward_per_slot,avg_jct_s\n");
        let f = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
        for p in &self.curve {
            s.push_str(&format!(
                "{},{},{:.6},{},{},{}\n",
                p.phase,
                p.step,
                p.loss,
                f(p.agreement),
                f(p.reward_per_slot),
                f(p.avg_jct_s)
            ));
        }
        s
    }
}
