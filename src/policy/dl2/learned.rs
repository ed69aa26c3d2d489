//! DL2's neural policy: an MLP over a window of jobs' states with a softmax over the
//! window's actions (a worker, a parameter server or both for each job, or stop).
//!
//! The input is the first `window` active jobs in arrival order, each encoded as its job
//! type one-hot, then `ln(1 + slots since arrival) / 4`, the fraction of its work left, its
//! dominant share, its workers and parameter servers over the per-job caps, `ln(1 + slots
//! it needs alone) / 4` (at one worker and one parameter server), and what one more worker,
//! parameter server or both would do to its speed (the log of the ratio, within [-1, 1]);
//! empty window positions are zeros. Actions that cannot be applied are masked out. Running a trained
//! network, the policy takes the most probable action; while training, it samples from the
//! probabilities and, with probability `explore`, explores job by job (a job of the window
//! drawn uniformly among those with a valid action, then one of its valid actions).

use super::super::registry::Params;
use super::super::{ParamInfo, PolicyError};
use crate::nn::{greedy_action, masked_softmax, sample_action, Cache, Mlp};
use crate::rng::Rng;
use crate::sim::slots::{SlotAction, SlotPolicy, SlotView, ACTIONS_PER_JOB};

/// Numbers per job of the encoding besides the job type's one-hot.
pub const JOB_NUMBERS: usize = 9;

/// The bundled network of the world an experiment in DL2-compatible mode or not runs in
/// (see [`super::bundled`] for where it comes from).
pub fn bundled(dl2_compat: bool) -> Result<Mlp, String> {
    super::bundled::network(super::bundled::World::of(dl2_compat))
}

/// DL2's parameters.
pub const PARAMS: &[ParamInfo] = &[ParamInfo {
    name: "sample",
    default: "false",
    help:
        "draw actions from the policy's probabilities (seeded) instead of taking the most probable",
}];

/// The encoded state of the window: `window * (types + JOB_NUMBERS)` numbers.
pub fn encode(view: &SlotView, window: usize) -> Vec<f64> {
    let types = view.models.models.len();
    let per = types + JOB_NUMBERS;
    let mut out = vec![0.0; window * per];
    let max_w = f64::from(view.max_workers.max(1));
    let max_p = f64::from(view.max_ps.max(1));
    for (k, &id) in view.active.iter().take(window).enumerate() {
        let Some(j) = view.jobs.get(id) else {
            continue;
        };
        let row = &mut out[k * per..(k + 1) * per];
        if j.model < types {
            row[j.model] = 1.0;
        }
        let slots = ((view.now - j.arrival) / view.slot_s).max(0.0);
        row[types] = crate::math::ln_1p(slots) / 4.0;
        row[types + 1] = j.remaining_fraction();
        row[types + 2] = view.dominant_share(id).min(1.0);
        row[types + 3] = f64::from(j.workers) / max_w;
        row[types + 4] = f64::from(j.ps) / max_p;
        // Work left in slots of one worker and one parameter server (DL2's remaining
        // epochs, in the job's own time).
        let alone = view.remaining_s(id, 1, 1) / view.slot_s;
        row[types + 5] = if alone.is_finite() {
            crate::math::ln_1p(alone.max(0.0)) / 4.0
        } else {
            0.0
        };
        // What each of its actions does to its speed (the speed function Optimus knows):
        // ln of the speed with one more worker, parameter server or both over its speed,
        // within [-1, 1]; 0 past the caps.
        let now = view.speed(id, j.workers, j.ps);
        for (k, (dw, dp)) in [(1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            let (w, p) = (j.workers + dw, j.ps + dp);
            row[types + 6 + k] = if w > view.max_workers || p > view.max_ps {
                0.0
            } else {
                let next = view.speed(id, w, p);
                if now > 0.0 && next > 0.0 {
                    crate::math::ln(next / now).clamp(-1.0, 1.0)
                } else if next > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            };
        }
    }
    out
}

/// The window a network's shape implies: outputs = 3 x window + 1.
pub fn window_of(net: &Mlp) -> Option<usize> {
    let outputs = *net.sizes().last()?;
    let w = outputs.checked_sub(1)? / ACTIONS_PER_JOB;
    (w > 0 && w * ACTIONS_PER_JOB + 1 == outputs).then_some(w)
}

/// Whether a network of `inputs` inputs over a window of `window` jobs takes the encoding
/// of `types` job types.
fn check_inputs(inputs: usize, window: usize, types: usize) -> Result<(), String> {
    let want = window * (types + JOB_NUMBERS);
    if inputs != want {
        return Err(format!(
            "the network takes {inputs} inputs; a window of {window} jobs of {types} job types needs {want}"
        ));
    }
    Ok(())
}

/// Job-aware exploration: a job of the window drawn uniformly among those with a valid
/// action, then one of its valid actions; None when no job has one.
pub fn explore(mask: &[bool], window: usize, rng: &mut Rng) -> Option<usize> {
    let jobs: Vec<usize> = (0..window)
        .filter(|k| (0..ACTIONS_PER_JOB).any(|a| mask.get(k * ACTIONS_PER_JOB + a) == Some(&true)))
        .collect();
    if jobs.is_empty() {
        return None;
    }
    let k = jobs[rng.below(jobs.len() as u64) as usize];
    let acts: Vec<usize> = (0..ACTIONS_PER_JOB)
        .map(|a| k * ACTIONS_PER_JOB + a)
        .filter(|&i| mask.get(i) == Some(&true))
        .collect();
    Some(acts[rng.below(acts.len() as u64) as usize])
}

/// How the policy picks among the network's probabilities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// The most probable action.
    Greedy,
    /// An action drawn from the probabilities, and job-aware exploration with this
    /// probability.
    Sample {
        /// Probability of exploring instead.
        explore: f64,
    },
}

/// The DL2 policy.
#[derive(Debug, Clone)]
pub struct Dl2 {
    name: String,
    net: Mlp,
    window: usize,
    mode: Mode,
    cache: Cache,
}

impl Dl2 {
    /// The policy of network `net` (its output size fixes the window).
    pub fn new(name: &str, net: Mlp, mode: Mode) -> Result<Self, String> {
        let window = window_of(&net).ok_or_else(|| {
            format!(
                "a DL2 network has 3 x window + 1 outputs; this one has {}",
                net.sizes().last().copied().unwrap_or(0)
            )
        })?;
        let cache = Cache::default();
        Ok(Dl2 {
            name: name.to_string(),
            net,
            window,
            mode,
            cache,
        })
    }

    /// Build from registry parameters, with the bundled network of Orrery's slot world.
    pub fn build(p: &Params) -> Result<Box<dyn SlotPolicy>, PolicyError> {
        let net = bundled(false).map_err(|reason| PolicyError::Failed {
            policy: "dl2".into(),
            reason,
        })?;
        let mode = Self::mode_of(p)?;
        Ok(Box::new(Dl2::new(p.spec(), net, mode).map_err(
            |reason| PolicyError::Failed {
                policy: "dl2".into(),
                reason,
            },
        )?))
    }

    /// Build from registry parameters with `network` (when None, the bundled network of
    /// the world of an experiment in DL2-compatible mode or not), checking that it takes
    /// the encoding of `types` job types.
    pub fn from_params(
        p: &Params,
        network: Option<&Mlp>,
        types: usize,
        dl2_compat: bool,
    ) -> Result<Dl2, PolicyError> {
        let err = |reason: String| PolicyError::Failed {
            policy: "dl2".into(),
            reason,
        };
        let net = match network {
            Some(n) => n.clone(),
            None => bundled(dl2_compat).map_err(err)?,
        };
        let dl2 = Dl2::new(p.spec(), net, Self::mode_of(p)?).map_err(err)?;
        check_inputs(dl2.net.inputs(), dl2.window, types).map_err(err)?;
        Ok(dl2)
    }

    /// Check the parameters, and that the bundled network of the world (DL2-compatible or
    /// not) takes the encoding of `types` job types, without its weights (which the page
    /// may not have loaded yet).
    pub fn check_bundled(p: &Params, types: usize, dl2_compat: bool) -> Result<(), PolicyError> {
        Self::check_params(p)?;
        let (inputs, outputs) = super::bundled::World::of(dl2_compat).shape();
        let window = (outputs - 1) / ACTIONS_PER_JOB;
        check_inputs(inputs, window, types).map_err(|reason| PolicyError::Failed {
            policy: "dl2".into(),
            reason,
        })
    }

    /// Check the parameters.
    pub fn check_params(p: &Params) -> Result<(), PolicyError> {
        Self::mode_of(p).map(drop)
    }

    fn mode_of(p: &Params) -> Result<Mode, PolicyError> {
        Ok(if p.bool("sample", false)? {
            Mode::Sample { explore: 0.0 }
        } else {
            Mode::Greedy
        })
    }

    /// The network.
    pub fn net(&self) -> &Mlp {
        &self.net
    }

    /// Jobs in its window.
    pub fn window(&self) -> usize {
        self.window
    }

    /// The action index the policy picks for `state` under `mask`.
    pub fn pick(&mut self, state: &[f64], mask: &[bool], rng: &mut Rng) -> usize {
        let stop = self.window * ACTIONS_PER_JOB;
        if state.len() != self.net.sizes()[0] || mask.len() != stop + 1 {
            return stop;
        }
        if let Mode::Sample { explore: e } = self.mode {
            if e > 0.0 && rng.uniform() < e {
                if let Some(a) = explore(mask, self.window, rng) {
                    return a;
                }
            }
        }
        let logits = self.net.forward(state, &mut self.cache).to_vec();
        let probs = masked_softmax(&logits, Some(mask));
        let a = match self.mode {
            Mode::Greedy => greedy_action(&probs),
            Mode::Sample { .. } => sample_action(&probs, rng),
        };
        a.unwrap_or(stop)
    }
}

impl SlotPolicy for Dl2 {
    fn name(&self) -> &str {
        &self.name
    }

    /// DL2's learning environment hands every job a worker and a parameter server before
    /// the network acts.
    fn bundle_first(&self) -> bool {
        true
    }

    fn act(&mut self, view: &SlotView, rng: &mut Rng) -> SlotAction {
        let state = encode(view, self.window);
        let mask = view.action_mask(self.window);
        let a = self.pick(&state, &mask, rng);
        view.action_at(self.window, a)
    }
}
