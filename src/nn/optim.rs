//! Optimizers: SGD and Adam, with optional clipping of the gradients' norm.

use super::{Gradients, Mlp};

// ---------------------------------------------------------------------------------------------
// Optimizers

/// Something that updates a network's parameters from their gradients.
pub trait Optimizer {
    /// Applies one update to `mlp` from `grads` (the gradients of the loss to minimize).
    fn step(&mut self, mlp: &mut Mlp, grads: &Gradients);
}

fn clip_factor(grads: &Gradients, max_norm: Option<f64>) -> f64 {
    match max_norm {
        Some(max) => {
            let norm = grads.norm();
            if norm > max && norm > 0.0 {
                max / norm
            } else {
                1.0
            }
        }
        None => 1.0,
    }
}

/// Plain stochastic gradient descent: `p -= lr * g`, with optional clipping of the gradients'
/// global norm.
#[derive(Debug, Clone, PartialEq)]
pub struct Sgd {
    /// Learning rate.
    pub lr: f64,
    /// If set, gradients whose global norm exceeds it are scaled down to it first.
    pub max_grad_norm: Option<f64>,
}

impl Sgd {
    /// SGD with learning rate `lr` and no clipping.
    pub fn new(lr: f64) -> Self {
        Sgd {
            lr,
            max_grad_norm: None,
        }
    }
}

impl Optimizer for Sgd {
    fn step(&mut self, mlp: &mut Mlp, grads: &Gradients) {
        assert_eq!(
            grads.values.len(),
            mlp.params.len(),
            "gradients are for another network"
        );
        let step = self.lr * clip_factor(grads, self.max_grad_norm);
        for (p, g) in mlp.params.iter_mut().zip(&grads.values) {
            *p -= step * g;
        }
    }
}

/// Adam (Kingma and Ba) with bias correction and optional clipping of the gradients' global
/// norm. Its moment estimates are sized on the first step; use one `Adam` per network.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    /// Learning rate.
    pub lr: f64,
    /// Decay of the first-moment estimate.
    pub beta1: f64,
    /// Decay of the second-moment estimate.
    pub beta2: f64,
    /// Added to the root of the second moment.
    pub eps: f64,
    /// If set, gradients whose global norm exceeds it are scaled down to it first.
    pub max_grad_norm: Option<f64>,
    pub(super) m: Vec<f64>,
    pub(super) v: Vec<f64>,
    pub(super) steps: u64,
    beta1_t: f64,
    beta2_t: f64,
}

impl Adam {
    /// Adam with learning rate `lr`, beta1 0.9, beta2 0.999, eps 1e-8 and no clipping.
    pub fn new(lr: f64) -> Self {
        Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            max_grad_norm: None,
            m: Vec::new(),
            v: Vec::new(),
            steps: 0,
            beta1_t: 1.0,
            beta2_t: 1.0,
        }
    }

    /// The same optimizer, clipping the gradients' global norm to `max_norm`.
    pub fn with_max_grad_norm(mut self, max_norm: f64) -> Self {
        self.max_grad_norm = Some(max_norm);
        self
    }

    /// Number of steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

impl Optimizer for Adam {
    fn step(&mut self, mlp: &mut Mlp, grads: &Gradients) {
        let n = mlp.params.len();
        assert_eq!(grads.values.len(), n, "gradients are for another network");
        if self.m.len() != n {
            self.m = vec![0.0; n];
            self.v = vec![0.0; n];
            self.steps = 0;
            self.beta1_t = 1.0;
            self.beta2_t = 1.0;
        }
        let clip = clip_factor(grads, self.max_grad_norm);
        self.steps += 1;
        self.beta1_t *= self.beta1;
        self.beta2_t *= self.beta2;
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 / (1.0 - self.beta1_t);
        let c2 = 1.0 / (1.0 - self.beta2_t);
        for (((p, &g), m), v) in mlp
            .params
            .iter_mut()
            .zip(&grads.values)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            let g = g * clip;
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *p -= self.lr * (*m * c1) / ((*v * c2).sqrt() + self.eps);
        }
    }
}
