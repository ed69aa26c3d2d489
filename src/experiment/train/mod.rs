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
//! - **Reinforcement learning** (actor-critic, PPO-style): each iteration runs `rollouts`
//!   episodes of one training workload, the policy sampling from its probabilities and
//!   exploring job by job with probability `explore`. A slot's reward is the fraction of
//!   their work the jobs did in it (summed over jobs); each decision of slot `t` gets the
//!   discounted return `G_t = r_t + gamma G_{t+1}`. Its baseline is the rollouts' average
//!   return of slot `t` corrected linearly for the work the rollout has left then (the
//!   total reward of a workload is fixed, so a rollout that fell behind has more progress
//!   left to collect), mixed with the critic's `V(s)` by `critic_mix`; the critic (a second
//!   network on the same input) learns `G` by squared error. Advantages are normalised
//!   over the iteration. The actor minimises the clipped surrogate of the probability ratio
//!   to the policy that acted (exploration included), with an entropy bonus and a KL
//!   penalty toward the warm-up's policy, in `updates` minibatches drawn from the decisions
//!   of the last `replay` iterations (experience replay).
//! - **Branched credit** (`branches > 0`): the greedy actor walks the iteration's workload;
//!   at one slot in `branch_every` the simulation forks
//!   ([`crate::sim::slots::SlotSimulator::fork`]) into copies that share every job, arrival
//!   and allocation so far. Slot credit: `branches` copies play the slot with the sampling
//!   policy, then `horizon` slots with the greedy actor; every decision of copy `k` gets the
//!   advantage `R_k - mean_j R_j` of its discounted return over those slots. Decision credit
//!   (`decision_credit`): at `branch_decisions` of the greedy actor's decisions of the slot,
//!   each of its `tries` most probable actions is taken there and the greedy actor does the
//!   rest; an action's advantage is its probability among the tried ones times its return
//!   minus their probability-weighted average, and the update's softmax is over the tried
//!   actions only. The same clipped update follows (with `critic_mix` mixing in the critic's
//!   advantage).
//! - Every random choice derives from `seed`: the same configuration trains the same
//!   weights, natively and in the browser.

mod branched;
mod examples;
mod rollouts;
pub mod session;
mod update;

use examples::{Example, Recorder};

use crate::experiment::{Experiment, ExperimentError, WorkloadSource};
use crate::nn::{
    greedy_action, masked_softmax, smoothed_cross_entropy, Activation, Adam, Mlp, Optimizer,
};
use crate::policy::dl2::learned::{Dl2, Mode};
use crate::rng::Rng;
use crate::sim::slots::ACTIONS_PER_JOB;
use serde::{Deserialize, Serialize};

/// Training settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    /// Label smoothing of the warm-up: the share of each example's target spread over the
    /// allowed actions, so that the imitating policy keeps probability on other actions
    /// and policy gradients can still move it.
    pub warmup_smoothing: f64,
    /// Reinforcement-learning iterations (`rollouts` episodes each).
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
    /// Rollouts per iteration, all on the iteration's workload (each with its own random
    /// choices): a decision's baseline is the average return of its slot over them.
    pub rollouts: usize,
    /// Weight of the critic in the baseline (0: the rollouts' average return of the slot
    /// alone, 1: the critic alone).
    pub critic_mix: f64,
    /// Clip of the probability ratio of the new policy to the policy that acted (PPO);
    /// 0 turns clipping off.
    pub clip: f64,
    /// Weight of the penalty `KL(warm-up policy || policy)` that keeps the actor near the
    /// warm-up's policy.
    pub kl: f64,
    /// Workloads the iterations cycle through (0: a new workload every iteration).
    pub workloads: usize,
    /// Credit every decision with its rollout's whole return (against the rollouts'
    /// average) instead of its slot's.
    pub episode_credit: bool,
    /// Per-action credit: a decision's return counts only the slot's progress not yet
    /// locked in by the allocation before it.
    pub action_credit: bool,
    /// Branched credit (0: independent rollouts instead): the greedy actor walks the
    /// iteration's workload and, at every `branch_every`-th slot, this many copies of the
    /// simulation play the slot with the sampling policy and `horizon` more slots with the
    /// greedy actor; a branch's decisions get its return minus the branches' average.
    pub branches: usize,
    /// Slots after the branched slot that count in a branch's return.
    pub horizon: usize,
    /// Branch at one slot in this many (from a random offset).
    pub branch_every: usize,
    /// Per-decision branching instead (with `branches > 0`): at `branch_decisions`
    /// decisions of a branched slot,
    /// each of the actor's `tries` most probable actions is taken there (the greedy actor
    /// doing the rest); an action's advantage is its return minus the probability-weighted
    /// average of the tried actions' returns, times its probability.
    pub decision_credit: bool,
    /// Decisions branched per branched slot (per-decision branching).
    pub branch_decisions: usize,
    /// Actions tried per branched decision.
    pub tries: usize,
    /// A branch's return is minus the time its jobs spend in the system over its slots
    /// (in slots; what the average JCT sums) instead of its discounted reward.
    pub time_credit: bool,
    /// The dl2-family policy whose decisions the warm-up imitates.
    pub teacher: String,
    /// Exact per-decision credit: at every recorded decision the trainer computes what each
    /// allowed action would add to the slot's reward (its job's progress of the slot with
    /// and without the task, restart delay included; stop adds nothing), and the actor moves
    /// toward `pi(a) exp(A(a) / (temperature sd))` where `A` is that gain minus its mean
    /// under the actor and `sd` the spread of `A` over the iteration (a KL-regularised
    /// policy-improvement step with the critic's values exact).
    pub exact_credit: bool,
    /// Temperature of the exact-credit step (smaller: larger steps).
    pub temperature: f64,
    /// Exact credit counts an action's gain as the share of its job's *work left* it adds
    /// in the slot (what finishing a nearly done job is worth to the average JCT) instead
    /// of the share of the job's whole work (DL2's reward).
    pub gain_of_left: bool,
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
            warmup_smoothing: 0.1,
            iterations: 1000,
            rl_lr: 1e-3,
            gamma: 0.9,
            entropy: 0.01,
            explore: 0.05,
            replay: 1,
            batch: 256,
            updates: 16,
            critic_warmup: 0,
            eval_every: 20,
            eval_episodes: 3,
            rollouts: 2,
            critic_mix: 0.0,
            clip: 0.2,
            kl: 0.0,
            workloads: 0,
            episode_credit: false,
            action_credit: false,
            branches: 0,
            horizon: 4,
            branch_every: 2,
            decision_credit: false,
            branch_decisions: 4,
            tries: 3,
            time_credit: false,
            teacher: "drf".into(),
            exact_credit: true,
            temperature: 1.0,
            gain_of_left: false,
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
        for (f, v) in [
            ("gamma", self.gamma),
            ("explore", self.explore),
            ("warmup_smoothing", self.warmup_smoothing),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return bad(f, "between 0 and 1");
            }
        }
        if !(self.entropy.is_finite() && self.entropy >= 0.0) {
            return bad("entropy", "a non-negative weight");
        }
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            return bad("temperature", "a positive number");
        }
        if !(self.kl.is_finite() && self.kl >= 0.0) {
            return bad("kl", "a non-negative weight");
        }
        if !(self.critic_mix.is_finite() && (0.0..=1.0).contains(&self.critic_mix)) {
            return bad("critic_mix", "between 0 and 1");
        }
        if !(self.clip.is_finite() && (0.0..=1.0).contains(&self.clip)) {
            return bad("clip", "between 0 and 1");
        }
        if self.branches > 64 || self.horizon > 1000 || self.branch_every == 0 {
            return bad(
                "branches/horizon/branch_every",
                "at most 64 branches, a horizon of at most 1,000 slots, branching every 1 or more slots",
            );
        }
        if !(1..=64).contains(&self.branch_decisions) || !(2..=64).contains(&self.tries) {
            return bad("branch_decisions/tries", "1 to 64 decisions, 2 to 64 tries");
        }
        if !(1..=64).contains(&self.rollouts) {
            return bad("rollouts", "between 1 and 64");
        }
        if self.batch == 0 || self.replay == 0 || self.eval_every == 0 || self.eval_episodes == 0 {
            return bad("batch/replay/eval_every/eval_episodes", "at least 1");
        }
        Ok(())
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

/// What the rollouts of one reinforcement-learning iteration did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RolloutStats {
    /// Average reward per slot.
    pub reward_per_slot: f64,
    /// Average JCT (s).
    pub avg_jct_s: f64,
    /// Slots simulated.
    pub slots: usize,
    /// Decisions recorded (within the window).
    pub decisions: usize,
    /// Average discounted return from the first slot.
    pub return0: f64,
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
    /// The last iteration's rollouts.
    pub last_rollouts: RolloutStats,
    /// Examples of DRF's decisions the warm-up learned from.
    pub warmup_examples: usize,
    /// The warm-up's policy (the anchor of the KL penalty), set when RL starts.
    reference: Option<Mlp>,
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
        // The episodes run the trainer's own policies: the experiment's policy list and
        // network (which may not fit the network being trained) play no part.
        let mut base = base.clone();
        base.policies = vec!["drf".into()];
        base.network = None;
        let r = base.resolve().map_err(lift)?;
        let ps = r
            .ps()
            .ok_or("training needs a DL2 (parameter-server) experiment")?;
        if cfg.teacher.trim() == "dl2" || crate::policy::dl2::build(&cfg.teacher).is_err() {
            return Err(format!(
                "training setting 'teacher': '{}' is not a dl2-family heuristic (drf, fifo, srtf, optimus)",
                cfg.teacher
            ));
        }
        let types = ps.models.models.len();
        let inputs = cfg.window * (types + crate::policy::dl2::learned::JOB_NUMBERS);
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
            base,
            policy,
            value,
            rng,
            replay: Vec::new(),
            iteration: 0,
            reference: None,
            last_rollouts: RolloutStats::default(),
            warmup_examples: 0,
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
        self.cfg.window * (self.types + crate::policy::dl2::learned::JOB_NUMBERS)
    }

    /// Start reinforcement learning from `net` instead of the warm-up's result (for
    /// example to fine-tune the bundled network): it becomes the actor and the anchor of
    /// the KL penalty.
    pub fn start_from(&mut self, net: Mlp) -> Result<(), String> {
        if net.sizes() != self.policy.sizes() {
            return Err(format!(
                "the network's layers {:?} differ from the trainer's {:?}",
                net.sizes(),
                self.policy.sizes()
            ));
        }
        self.policy = net;
        self.reference = None;
        self.opt_policy = Adam::new(self.cfg.rl_lr).with_max_grad_norm(5.0);
        Ok(())
    }

    /// Reinforcement-learning iterations done.
    pub fn iterations_done(&self) -> usize {
        self.iteration
    }

    /// The experiment of episode `seed` (its workload and its random choices).
    fn episode(&self, seed: u64) -> Experiment {
        self.episode_with(seed, seed)
    }

    /// The experiment of the workload of seed `workload` with the policy's random choices
    /// from seed `choices`.
    fn episode_with(&self, workload: u64, choices: u64) -> Experiment {
        let mut e = self.base.clone();
        if let WorkloadSource::Generated(g) = &mut e.workload {
            g.num_jobs = self.cfg.episode_jobs;
            g.seed = workload;
        }
        e.seed = choices;
        e
    }

    /// Run `policy` on the workload of episode `seed`, recording its decisions.
    fn run(
        &self,
        seed: u64,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
    ) -> Result<Recorder, String> {
        self.run_exp(self.episode(seed), policy, false)
    }

    /// Run `policy` on `exp`, recording its decisions (with every action's gain when
    /// `gains`, which only the exact-credit rollouts use).
    fn run_exp(
        &self,
        exp: Experiment,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
        gains: bool,
    ) -> Result<Recorder, String> {
        let r = exp.resolve().map_err(lift)?;
        let ps = r.ps().ok_or("not a DL2 experiment")?;
        let mut sim = r.slot_simulator_with(policy, ps).map_err(lift)?;
        let mut rec = Recorder {
            window: self.cfg.window,
            gains,
            gain_of_left: self.cfg.gain_of_left,
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
        self.warmup_with(|epoch, epochs, _| progress(epoch, epochs))
    }

    /// The supervised warm-up; `progress(epoch, epochs, point)` after every epoch, with the
    /// epoch's point of the learning curve (loss and held-out agreement).
    pub fn warmup_with(
        &mut self,
        mut progress: impl FnMut(usize, usize, &CurvePoint),
    ) -> Result<f64, String> {
        let teacher = || crate::policy::dl2::build(&self.cfg.teacher).map_err(|e| e.to_string());
        let mut train = Vec::new();
        for k in 0..self.cfg.warmup_episodes {
            train.extend(self.run(self.train_seed(k), teacher()?)?.examples);
        }
        let mut held = Vec::new();
        for k in 0..self.cfg.eval_episodes {
            held.extend(self.run(self.heldout_seed(k), teacher()?)?.examples);
        }
        if train.is_empty() {
            return Err("DRF made no decisions to imitate".into());
        }
        self.warmup_examples = train.len();
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
                    let (loss, d) = smoothed_cross_entropy(
                        &logits,
                        Some(&e.mask),
                        e.action,
                        self.cfg.warmup_smoothing,
                    );
                    total += loss;
                    self.policy.backward(&mut cache, &d, &mut grads);
                }
                grads.scale(1.0 / chunk.len() as f64);
                self.opt_policy.step(&mut self.policy, &grads);
            }
            agreement = self.agreement(&held);
            let point = CurvePoint {
                phase: "warmup".into(),
                step: epoch + 1,
                loss: total / train.len() as f64,
                agreement: Some(agreement),
                reward_per_slot: None,
                avg_jct_s: None,
            };
            progress(epoch + 1, self.cfg.warmup_epochs, &point);
            self.curve.push(point);
        }
        self.opt_policy = Adam::new(self.cfg.rl_lr).with_max_grad_norm(5.0);
        self.reference = None;
        Ok(agreement)
    }

    /// Evaluate the greedy actor on the held-out episodes: (reward per slot, average JCT).
    pub fn evaluate(&self) -> Result<(f64, f64), String> {
        self.evaluate_policy(&|| Ok(Box::new(self.dl2(Mode::Greedy)?)))
    }

    /// Evaluate the dl2-family policy `spec` (for example `drf`) on the held-out episodes:
    /// (reward per slot, average JCT).
    pub fn evaluate_heuristic(&self, spec: &str) -> Result<(f64, f64), String> {
        self.evaluate_policy(&|| crate::policy::dl2::build(spec).map_err(|e| e.to_string()))
    }

    #[allow(clippy::type_complexity)]
    fn evaluate_policy(
        &self,
        make: &dyn Fn() -> Result<Box<dyn crate::sim::slots::SlotPolicy>, String>,
    ) -> Result<(f64, f64), String> {
        let (mut reward, mut slots, mut jct, mut jobs) = (0.0, 0usize, 0.0, 0usize);
        for k in 0..self.cfg.eval_episodes {
            let rec = self.run(self.heldout_seed(k), make()?)?;
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
