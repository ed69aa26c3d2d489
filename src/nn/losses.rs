//! Losses of softmax policies and value baselines with their gradients, and choosing an
//! action from a policy's probabilities.

use crate::math;
use crate::rng::Rng;

// ---------------------------------------------------------------------------------------------
// Softmax policies

pub(super) fn allowed(mask: Option<&[bool]>, i: usize) -> bool {
    mask.is_none_or(|m| m[i])
}

fn check_mask(logits: &[f64], mask: Option<&[bool]>) {
    if let Some(m) = mask {
        assert_eq!(m.len(), logits.len(), "mask and logits differ in length");
    }
}

/// Log-probabilities of a softmax over `logits` restricted to the actions that `mask` allows
/// (`true` = allowed; `None` allows all); a masked action gets negative infinity. With no
/// allowed action every entry is negative infinity.
pub fn log_softmax(logits: &[f64], mask: Option<&[bool]>) -> Vec<f64> {
    check_mask(logits, mask);
    let mut max = f64::NEG_INFINITY;
    for (i, &z) in logits.iter().enumerate() {
        if allowed(mask, i) && z > max {
            max = z;
        }
    }
    if max == f64::NEG_INFINITY {
        return vec![f64::NEG_INFINITY; logits.len()];
    }
    let mut sum = 0.0;
    for (i, &z) in logits.iter().enumerate() {
        if allowed(mask, i) {
            sum += math::exp(z - max);
        }
    }
    let log_sum = math::ln(sum);
    logits
        .iter()
        .enumerate()
        .map(|(i, &z)| {
            if allowed(mask, i) {
                z - max - log_sum
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect()
}

/// Probabilities of a softmax over `logits` restricted to the actions that `mask` allows
/// (`true` = allowed; `None` allows all). A masked action gets exactly 0; with no allowed
/// action every probability is 0.
pub fn masked_softmax(logits: &[f64], mask: Option<&[bool]>) -> Vec<f64> {
    check_mask(logits, mask);
    let mut max = f64::NEG_INFINITY;
    for (i, &z) in logits.iter().enumerate() {
        if allowed(mask, i) && z > max {
            max = z;
        }
    }
    if max == f64::NEG_INFINITY {
        return vec![0.0; logits.len()];
    }
    let mut probs: Vec<f64> = logits
        .iter()
        .enumerate()
        .map(|(i, &z)| {
            if allowed(mask, i) {
                math::exp(z - max)
            } else {
                0.0
            }
        })
        .collect();
    let sum: f64 = probs.iter().sum();
    probs.iter_mut().for_each(|p| *p /= sum);
    probs
}

/// Cross-entropy `-ln p(target)` of the masked softmax over `logits`, and its gradient with
/// respect to the logits (`p - onehot(target)`, zero at masked actions). This is the loss of
/// supervised warm-up: imitating a heuristic's choice `target`.
///
/// # Panics
/// If `target` is out of range or masked.
pub fn cross_entropy(logits: &[f64], mask: Option<&[bool]>, target: usize) -> (f64, Vec<f64>) {
    assert!(target < logits.len(), "target action out of range");
    assert!(allowed(mask, target), "target action is masked");
    let log_p = log_softmax(logits, mask);
    let mut grad = masked_softmax(logits, mask);
    grad[target] -= 1.0;
    (-log_p[target], grad)
}

/// Cross-entropy `-sum_i q_i ln p_i` of the masked softmax `p` over `logits` against the
/// distribution `q` (zero at masked actions), and its gradient with respect to the logits
/// (`p - q`, zero at masked actions). Imitating one action is `q` one-hot
/// ([`cross_entropy`]); a policy-improvement step imitates a whole distribution.
///
/// # Panics
/// If `q` and `logits` differ in length.
pub fn soft_cross_entropy(logits: &[f64], mask: Option<&[bool]>, q: &[f64]) -> (f64, Vec<f64>) {
    assert_eq!(
        q.len(),
        logits.len(),
        "target distribution of the wrong length"
    );
    let log_p = log_softmax(logits, mask);
    let mut grad = masked_softmax(logits, mask);
    let mut loss = 0.0;
    for (i, g) in grad.iter_mut().enumerate() {
        if !allowed(mask, i) {
            continue;
        }
        *g -= q[i];
        if q[i] > 0.0 {
            loss -= q[i] * log_p[i];
        }
    }
    (loss, grad)
}

/// Cross-entropy of the masked softmax over `logits` against the smoothed target that puts
/// `1 - smoothing` on `target` and spreads `smoothing` evenly over the allowed actions, and
/// its gradient with respect to the logits (see [`soft_cross_entropy`]). With `smoothing` 0
/// this is [`cross_entropy`]; above 0 the imitating policy keeps some probability on every
/// allowed action (it stays trainable by policy gradient).
///
/// # Panics
/// If `target` is out of range or masked.
pub fn smoothed_cross_entropy(
    logits: &[f64],
    mask: Option<&[bool]>,
    target: usize,
    smoothing: f64,
) -> (f64, Vec<f64>) {
    assert!(target < logits.len(), "target action out of range");
    assert!(allowed(mask, target), "target action is masked");
    let allowed_count = (0..logits.len()).filter(|&i| allowed(mask, i)).count() as f64;
    let spread = smoothing / allowed_count;
    let q: Vec<f64> = (0..logits.len())
        .map(|i| {
            if !allowed(mask, i) {
                0.0
            } else if i == target {
                spread + (1.0 - smoothing)
            } else {
                spread
            }
        })
        .collect();
    soft_cross_entropy(logits, mask, &q)
}

/// Entropy `-sum p ln p` of a probability vector (zero entries contribute nothing), in nats.
pub fn entropy(probs: &[f64]) -> f64 {
    -probs
        .iter()
        .filter(|&&p| p > 0.0)
        .map(|&p| p * math::ln(p))
        .sum::<f64>()
}

/// Gradient of the entropy of a softmax with respect to its logits, given the softmax's
/// probabilities: `dH/dz_j = -p_j (ln p_j + H)` (zero at masked actions).
pub fn entropy_grad(probs: &[f64]) -> Vec<f64> {
    let h = entropy(probs);
    probs
        .iter()
        .map(|&p| if p > 0.0 { -p * (math::ln(p) + h) } else { 0.0 })
        .collect()
}

/// Gradient with respect to the logits of the policy-gradient loss `-advantage * ln pi(action)`,
/// given the softmax's probabilities: `advantage * (p - onehot(action))` (zero at masked
/// actions).
///
/// # Panics
/// If `action` is out of range.
pub fn policy_gradient_grad(probs: &[f64], action: usize, advantage: f64) -> Vec<f64> {
    assert!(action < probs.len(), "action out of range");
    let mut grad: Vec<f64> = probs.iter().map(|&p| advantage * p).collect();
    grad[action] -= advantage;
    grad
}

/// The actor's loss for one decision, with the parts a trainer reports.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyLoss {
    /// `-advantage * ln pi(action) - entropy_weight * H(pi)`.
    pub loss: f64,
    /// The loss's gradient with respect to the logits.
    pub grad: Vec<f64>,
    /// The masked softmax's probabilities.
    pub probs: Vec<f64>,
    /// `ln pi(action)`.
    pub log_prob: f64,
    /// `H(pi)` in nats.
    pub entropy: f64,
}

/// The actor-critic policy loss of one decision: policy gradient `-advantage * ln pi(action)`
/// minus `entropy_weight` times the entropy (an entropy bonus keeps the policy exploring),
/// with its gradient with respect to the logits.
///
/// # Panics
/// If `action` is out of range or masked.
pub fn policy_loss(
    logits: &[f64],
    mask: Option<&[bool]>,
    action: usize,
    advantage: f64,
    entropy_weight: f64,
) -> PolicyLoss {
    assert!(action < logits.len(), "action out of range");
    assert!(allowed(mask, action), "action is masked");
    let log_p = log_softmax(logits, mask);
    let probs = masked_softmax(logits, mask);
    let h = entropy(&probs);
    let mut grad = policy_gradient_grad(&probs, action, advantage);
    for (g, e) in grad.iter_mut().zip(entropy_grad(&probs)) {
        *g -= entropy_weight * e;
    }
    PolicyLoss {
        loss: -advantage * log_p[action] - entropy_weight * h,
        grad,
        probs,
        log_prob: log_p[action],
        entropy: h,
    }
}

/// Draws an action from `probs` with one uniform draw of `rng`; an action of probability 0
/// is never drawn. `None` if every probability is 0.
pub fn sample_action(probs: &[f64], rng: &mut Rng) -> Option<usize> {
    let last = probs.iter().rposition(|&p| p > 0.0)?;
    let total: f64 = probs.iter().filter(|&&p| p > 0.0).sum();
    let r = rng.uniform() * total;
    let mut cum = 0.0;
    for (i, &p) in probs.iter().enumerate().take(last) {
        if p > 0.0 {
            cum += p;
            if r < cum {
                return Some(i);
            }
        }
    }
    Some(last)
}

/// The most probable action (the first on ties), ignoring zero-probability actions; `None` if
/// every probability is 0. Greedy evaluation of a policy uses this.
pub fn greedy_action(probs: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &p) in probs.iter().enumerate() {
        if p > 0.0 && best.is_none_or(|b| p > probs[b]) {
            best = Some(i);
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// Value baseline

/// Squared-error loss `0.5 * sum (prediction - target)^2` of a value network's outputs and its
/// gradient `prediction - target` with respect to them.
///
/// # Panics
/// If the lengths differ.
pub fn mse(prediction: &[f64], target: &[f64]) -> (f64, Vec<f64>) {
    assert_eq!(
        prediction.len(),
        target.len(),
        "prediction and target differ in length"
    );
    let grad: Vec<f64> = prediction.iter().zip(target).map(|(p, t)| p - t).collect();
    let loss = 0.5 * grad.iter().map(|d| d * d).sum::<f64>();
    (loss, grad)
}
