//! Small neural networks for learned schedulers: a multilayer perceptron with backpropagation,
//! softmax-policy and value losses with their gradients, Adam and SGD, and a versioned JSON
//! weights format.
//!
//! DL2 schedules with an MLP policy over a window of jobs x features, first trained to imitate
//! a heuristic (cross-entropy on the heuristic's choices), then improved by actor-critic
//! reinforcement learning (policy gradient `-A log pi(a|s)` with the advantage `A` taken
//! against a learned value baseline, plus an entropy bonus). This module holds the numerical
//! building blocks; the scheduler, its state encoding and its replay memory live with the
//! policy.
//!
//! # Why an implementation of our own
//!
//! The maintained pure-Rust frameworks were weighed against the core's rules (same bits
//! natively and in WebAssembly, no threads, small page):
//!
//! * `candle-core` builds for `wasm32`, but its CPU matrix products go through the `gemm`
//!   crate, which picks SIMD kernels (with fused multiply-add) by run-time CPU detection, and
//!   its `exp` is the platform's (`f64::exp`), so a native run and a browser run round
//!   differently. It also brings `rayon`, `rand`, `zip` and `safetensors`.
//! * `burn` (autodiff over its `ndarray` backend, now deprecated in favour of `burn-flex`)
//!   compiles a large tree; its products go through `matrixmultiply` and `macerator`, which
//!   also choose SIMD kernels by CPU, and its `exp` and `ln` are the platform's.
//! * `dfdx` has had no release since 2023 and uses `gemm` and `rayon` as well.
//!
//! The networks here are tiny (about 80 inputs, two hidden layers of 64 to 128 units, about
//! 31 outputs: some 30,000 weights), so a framework buys nothing in speed and costs
//! determinism, binary size and a dependency tree. This module is plain `f64` arithmetic in a
//! fixed order, with `exp`, `ln` and `tanh` from [`crate::math`]; every gradient is
//! checked against central finite differences in the tests.
//!
//! # Determinism
//!
//! Every sum is evaluated in an order fixed by the source: a layer's outputs are accumulated
//! input by input (`y[o] += x[i] * w[i][o]`, which vectorizes across `o` without reordering
//! any sum), and the few dot products used in backpropagation keep four partial sums combined
//! in a fixed order. Rust never contracts `a * b + c` into a fused multiply-add, so the same
//! weights, inputs and seed give the same bits on every target. Random initialization and
//! action sampling draw only from a [`Rng`].
//!
//! # Cost
//!
//! One [`Mlp::forward`] of an 80-128-128-31 ReLU network is about 30,600 multiply-adds: some
//! 4 µs of CPU time natively in a release build, and about 15 µs with [`Mlp::backward`] (which
//! streams through every weight and gradient once more). Tanh networks cost about 6 µs more
//! per forward pass for their 256 `tanh` calls. Exact zeros among a layer's inputs (ReLU
//! outputs) are skipped, which is also deterministic. [`bench_forward`] and
//! [`bench_forward_backward`] give the command line's benchmark a fixed workload to time.
//!
//! # Weights files
//!
//! [`Mlp::to_json`] writes
//! `{"format":"orrery-mlp","version":1,"activation":"relu","layers":[{"inputs":..,"outputs":..,"weights":[..],"biases":[..]},..]}`
//! with every number stored at `f32` precision (the shortest decimal that reads back to the
//! same `f32`), about 11.7 bytes per parameter (360 kB for an 80-128-128-31 network), about
//! half the text of full `f64` numbers; `weights` lists a layer's matrix
//! input-major: the weight from input `i` to output `o` is at `i * outputs + o`. An optional
//! top-level `"description"` string is kept for people. [`Mlp::from_json`] checks every field
//! and names the one at fault in its [`WeightsError`]. A network whose weights were rounded
//! with [`Mlp::round_to_f32`] writes and reads back bit for bit.

mod bench;
mod losses;
mod optim;
#[cfg(test)]
mod tests;
mod weights;

pub use bench::{bench_forward, bench_forward_backward, determinism_fingerprint};
pub use losses::{
    cross_entropy, entropy, entropy_grad, greedy_action, log_softmax, masked_softmax, mse,
    policy_gradient_grad, policy_loss, sample_action, smoothed_cross_entropy, soft_cross_entropy,
    PolicyLoss,
};
pub use optim::{Adam, Optimizer, Sgd};
pub use weights::WeightsError;

use crate::math;
use crate::rng::Rng;

/// The `format` field of a weights file.
pub const WEIGHTS_FORMAT: &str = "orrery-mlp";

/// The weights-file version this build writes and reads.
pub const WEIGHTS_VERSION: u64 = 1;

/// The nonlinearity after each hidden layer (the output layer is linear).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// `max(0, z)`; weights start with He initialization.
    Relu,
    /// `tanh(z)`; weights start with Glorot (Xavier) initialization.
    Tanh,
}

impl Activation {
    /// The name used in weights files: `relu` or `tanh`.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Tanh => "tanh",
        }
    }

    /// The activation called `name` in a weights file.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "relu" => Some(Activation::Relu),
            "tanh" => Some(Activation::Tanh),
            _ => None,
        }
    }

    #[inline]
    fn apply(self, z: f64) -> f64 {
        match self {
            Activation::Relu => {
                if z > 0.0 {
                    z
                } else {
                    0.0
                }
            }
            Activation::Tanh => math::tanh(z),
        }
    }

    /// The derivative at the pre-activation, written in terms of the activation's output `a`.
    #[inline]
    fn derivative_at_output(self, a: f64) -> f64 {
        match self {
            Activation::Relu => {
                if a > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Activation::Tanh => 1.0 - a * a,
        }
    }
}

/// A multilayer perceptron: dense layers with an [`Activation`] after each hidden layer and a
/// linear output.
///
/// All parameters live in one vector, layer after layer; a layer's block holds its weights
/// input-major (`inputs x outputs`, the weight from input `i` to output `o` at
/// `i * outputs + o`) followed by its `outputs` biases. [`Gradients`] has the same layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    sizes: Vec<usize>,
    activation: Activation,
    offsets: Vec<usize>,
    params: Vec<f64>,
}

/// Activations kept by [`Mlp::forward`] for [`Mlp::backward`], and scratch space for the
/// backward pass. One cache serves any number of passes; it resizes itself to the network.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    acts: Vec<Vec<f64>>,
    delta: Vec<f64>,
    delta_prev: Vec<f64>,
    nonzero: Vec<usize>,
}

impl Cache {
    fn prepare(&mut self, sizes: &[usize]) {
        let fits = self.acts.len() == sizes.len()
            && self.acts.iter().zip(sizes).all(|(a, &n)| a.len() == n);
        if !fits {
            self.acts = sizes.iter().map(|&n| vec![0.0; n]).collect();
            let widest = sizes.iter().copied().max().unwrap_or(0);
            self.delta = vec![0.0; widest];
            self.delta_prev = vec![0.0; widest];
        }
    }

    /// The network's output of the last forward pass (empty before any).
    pub fn output(&self) -> &[f64] {
        self.acts.last().map_or(&[], |v| v.as_slice())
    }
}

/// Gradients of a loss with respect to every parameter of an [`Mlp`], in the network's
/// parameter layout. [`Mlp::backward`] adds to them, so a batch is summed by running several
/// backward passes before one optimizer step.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradients {
    values: Vec<f64>,
}

impl Gradients {
    /// The gradient of each parameter, in [`Mlp::params`] order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Mutable access to the gradient of each parameter.
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// Sets every gradient to zero.
    pub fn zero(&mut self) {
        self.values.iter_mut().for_each(|g| *g = 0.0);
    }

    /// Multiplies every gradient by `factor` (for example `1 / batch size`).
    pub fn scale(&mut self, factor: f64) {
        self.values.iter_mut().for_each(|g| *g *= factor);
    }

    /// Adds `other` (of the same network shape) to these gradients.
    ///
    /// # Panics
    /// If the two have different lengths.
    pub fn add(&mut self, other: &Gradients) {
        assert_eq!(
            self.values.len(),
            other.values.len(),
            "gradient shapes differ"
        );
        for (g, o) in self.values.iter_mut().zip(&other.values) {
            *g += o;
        }
    }

    /// The Euclidean norm of all gradients together.
    pub fn norm(&self) -> f64 {
        self.values.iter().map(|g| g * g).sum::<f64>().sqrt()
    }

    /// Scales the gradients down so that their norm is at most `max_norm`; returns the norm
    /// before clipping.
    pub fn clip_norm(&mut self, max_norm: f64) -> f64 {
        let norm = self.norm();
        if norm > max_norm && norm > 0.0 {
            self.scale(max_norm / norm);
        }
        norm
    }
}

impl Mlp {
    /// A network with layer widths `sizes` (inputs, hidden..., outputs) and freshly drawn
    /// weights: He-normal (variance `2 / fan_in`) for ReLU hidden layers, Glorot-normal
    /// (variance `2 / (fan_in + fan_out)`) for tanh hidden layers and for the linear output
    /// layer; biases start at zero.
    ///
    /// # Panics
    /// If there are fewer than two sizes or a size is zero.
    pub fn new(sizes: &[usize], activation: Activation, rng: &mut Rng) -> Self {
        assert!(sizes.len() >= 2, "an MLP needs an input and an output size");
        assert!(sizes.iter().all(|&n| n > 0), "layer sizes must be positive");
        let mut mlp = Mlp::zeros(sizes, activation);
        let layers = mlp.layers();
        for l in 0..layers {
            let (fan_in, fan_out) = (sizes[l], sizes[l + 1]);
            let variance = if l + 1 < layers && activation == Activation::Relu {
                2.0 / fan_in as f64
            } else {
                2.0 / (fan_in + fan_out) as f64
            };
            let std = variance.sqrt();
            let start = mlp.offsets[l];
            for w in &mut mlp.params[start..start + fan_in * fan_out] {
                *w = std * rng.normal();
            }
        }
        mlp
    }

    fn zeros(sizes: &[usize], activation: Activation) -> Self {
        let mut offsets = Vec::with_capacity(sizes.len());
        let mut total = 0;
        for pair in sizes.windows(2) {
            offsets.push(total);
            total += pair[0] * pair[1] + pair[1];
        }
        offsets.push(total);
        Mlp {
            sizes: sizes.to_vec(),
            activation,
            offsets,
            params: vec![0.0; total],
        }
    }

    /// Layer widths: inputs, hidden layers, outputs.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.sizes[self.sizes.len() - 1]
    }

    /// Number of dense layers (hidden layers plus the output layer).
    pub fn layers(&self) -> usize {
        self.sizes.len() - 1
    }

    /// The hidden-layer activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Number of parameters (weights and biases).
    pub fn num_params(&self) -> usize {
        self.params.len()
    }

    /// All parameters, in the layout described on [`Mlp`].
    pub fn params(&self) -> &[f64] {
        &self.params
    }

    /// Mutable access to all parameters.
    pub fn params_mut(&mut self) -> &mut [f64] {
        &mut self.params
    }

    /// Layer `layer`'s weights, input-major (`inputs x outputs`).
    pub fn weights(&self, layer: usize) -> &[f64] {
        let (start, n_in, n_out) = self.block(layer);
        &self.params[start..start + n_in * n_out]
    }

    /// Layer `layer`'s biases.
    pub fn biases(&self, layer: usize) -> &[f64] {
        let (start, n_in, n_out) = self.block(layer);
        &self.params[start + n_in * n_out..start + n_in * n_out + n_out]
    }

    fn block(&self, layer: usize) -> (usize, usize, usize) {
        (
            self.offsets[layer],
            self.sizes[layer],
            self.sizes[layer + 1],
        )
    }

    /// Multiplies the output layer's weights by `factor`; a small factor (say 0.01) makes a
    /// fresh policy start close to uniform.
    pub fn scale_output_layer(&mut self, factor: f64) {
        let (start, n_in, n_out) = self.block(self.layers() - 1);
        for w in &mut self.params[start..start + n_in * n_out] {
            *w *= factor;
        }
    }

    /// Rounds every parameter to the nearest `f32`, the precision of a weights file, so that
    /// the network in memory is exactly the one [`Mlp::to_json`] writes.
    pub fn round_to_f32(&mut self) {
        for p in &mut self.params {
            *p = f64::from(*p as f32);
        }
    }

    /// Zero gradients shaped for this network.
    pub fn zero_grads(&self) -> Gradients {
        Gradients {
            values: vec![0.0; self.params.len()],
        }
    }

    /// A cache sized for this network.
    pub fn cache(&self) -> Cache {
        let mut c = Cache::default();
        c.prepare(&self.sizes);
        c
    }

    /// Runs the network on `input`, keeping every layer's activations in `cache` for a
    /// following [`Mlp::backward`]; returns the outputs (borrowed from the cache).
    ///
    /// # Panics
    /// If `input.len()` is not [`Mlp::inputs`].
    pub fn forward<'c>(&self, input: &[f64], cache: &'c mut Cache) -> &'c [f64] {
        assert_eq!(
            input.len(),
            self.inputs(),
            "input size does not match the network"
        );
        cache.prepare(&self.sizes);
        cache.acts[0].copy_from_slice(input);
        let layers = self.layers();
        for l in 0..layers {
            let (start, n_in, n_out) = self.block(l);
            let w = &self.params[start..start + n_in * n_out];
            let b = &self.params[start + n_in * n_out..start + n_in * n_out + n_out];
            let (done, rest) = cache.acts.split_at_mut(l + 1);
            let x = &done[l];
            let y = &mut rest[0];
            y.copy_from_slice(b);
            affine_accumulate(w, x, y, &mut cache.nonzero);
            if l + 1 < layers {
                let act = self.activation;
                y.iter_mut().for_each(|v| *v = act.apply(*v));
            }
        }
        &cache.acts[layers]
    }

    /// The network's outputs for `input`, with a throw-away cache.
    pub fn predict(&self, input: &[f64]) -> Vec<f64> {
        let mut cache = Cache::default();
        self.forward(input, &mut cache).to_vec()
    }

    /// Backpropagates `d_output` (the loss's gradient with respect to the outputs of the last
    /// [`Mlp::forward`] on `cache`) and adds the loss's gradient with respect to every
    /// parameter to `grads`.
    ///
    /// # Panics
    /// If `d_output.len()` is not [`Mlp::outputs`], or `cache` holds no forward pass of this
    /// network's shape.
    pub fn backward(&self, cache: &mut Cache, d_output: &[f64], grads: &mut Gradients) {
        self.backprop(cache, d_output, grads, false);
    }

    /// As [`Mlp::backward`], and also returns the loss's gradient with respect to the inputs
    /// (borrowed from the cache).
    pub fn backward_input<'c>(
        &self,
        cache: &'c mut Cache,
        d_output: &[f64],
        grads: &mut Gradients,
    ) -> &'c [f64] {
        self.backprop(cache, d_output, grads, true);
        &cache.delta[..self.inputs()]
    }

    fn backprop(&self, cache: &mut Cache, d_output: &[f64], grads: &mut Gradients, input: bool) {
        assert_eq!(
            d_output.len(),
            self.outputs(),
            "output gradient size does not match"
        );
        assert_eq!(
            grads.values.len(),
            self.params.len(),
            "gradients are for another network"
        );
        assert!(
            cache.acts.len() == self.sizes.len()
                && cache
                    .acts
                    .iter()
                    .zip(&self.sizes)
                    .all(|(a, &n)| a.len() == n),
            "the cache holds no forward pass of this network"
        );
        let Cache {
            acts,
            delta,
            delta_prev,
            ..
        } = cache;
        delta[..d_output.len()].copy_from_slice(d_output);
        for l in (0..self.layers()).rev() {
            let (start, n_in, n_out) = self.block(l);
            let x = &acts[l];
            let d = &delta[..n_out];
            let (gw, gb) =
                grads.values[start..start + n_in * n_out + n_out].split_at_mut(n_in * n_out);
            for (g, &dv) in gb.iter_mut().zip(d) {
                *g += dv;
            }
            for (i, &xi) in x.iter().enumerate() {
                if xi == 0.0 {
                    continue;
                }
                for (g, &dv) in gw[i * n_out..(i + 1) * n_out].iter_mut().zip(d) {
                    *g += xi * dv;
                }
            }
            if l == 0 && !input {
                break;
            }
            let w = &self.params[start..start + n_in * n_out];
            for (i, dp) in delta_prev[..n_in].iter_mut().enumerate() {
                let scale = if l > 0 {
                    self.activation.derivative_at_output(x[i])
                } else {
                    1.0
                };
                *dp = if scale == 0.0 {
                    0.0
                } else {
                    dot(&w[i * n_out..(i + 1) * n_out], d) * scale
                };
            }
            std::mem::swap(delta, delta_prev);
        }
    }
}

/// `y[o] += x[i] * w[i * y.len() + o]` for every input `i` with `x[i] != 0`, in increasing `i`
/// for each `o` (so each output's sum has a fixed order). Inputs go four at a time, which
/// reads and writes `y` a quarter as often without changing any result.
#[inline]
fn affine_accumulate(w: &[f64], x: &[f64], y: &mut [f64], nonzero: &mut Vec<usize>) {
    let n = y.len();
    nonzero.clear();
    nonzero.extend(
        x.iter()
            .enumerate()
            .filter(|(_, &v)| v != 0.0)
            .map(|(i, _)| i),
    );
    let groups = nonzero.chunks_exact(4);
    let rest = groups.remainder();
    for g in groups {
        let (x0, x1, x2, x3) = (x[g[0]], x[g[1]], x[g[2]], x[g[3]]);
        let r0 = &w[g[0] * n..g[0] * n + n];
        let r1 = &w[g[1] * n..g[1] * n + n];
        let r2 = &w[g[2] * n..g[2] * n + n];
        let r3 = &w[g[3] * n..g[3] * n + n];
        for o in 0..n {
            let mut v = y[o];
            v += x0 * r0[o];
            v += x1 * r1[o];
            v += x2 * r2[o];
            v += x3 * r3[o];
            y[o] = v;
        }
    }
    for &i in rest {
        let xi = x[i];
        for (yo, &wo) in y.iter_mut().zip(&w[i * n..i * n + n]) {
            *yo += xi * wo;
        }
    }
}

/// Dot product with four partial sums combined in a fixed order (vectorizes, deterministic).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + tail
}
