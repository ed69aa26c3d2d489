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

use crate::math;
use crate::rng::Rng;
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

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

    /// Writes the network as a weights file (see the module documentation), numbers at `f32`
    /// precision, with an optional `description`.
    pub fn to_json_with_description(&self, description: Option<&str>) -> String {
        #[derive(Serialize)]
        struct LayerOut {
            inputs: usize,
            outputs: usize,
            weights: Vec<f32>,
            biases: Vec<f32>,
        }
        #[derive(Serialize)]
        struct FileOut<'a> {
            format: &'a str,
            version: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            description: Option<&'a str>,
            activation: &'a str,
            layers: Vec<LayerOut>,
        }
        let layers = (0..self.layers())
            .map(|l| LayerOut {
                inputs: self.sizes[l],
                outputs: self.sizes[l + 1],
                weights: self.weights(l).iter().map(|&v| v as f32).collect(),
                biases: self.biases(l).iter().map(|&v| v as f32).collect(),
            })
            .collect();
        let file = FileOut {
            format: WEIGHTS_FORMAT,
            version: WEIGHTS_VERSION,
            description,
            activation: self.activation.name(),
            layers,
        };
        serde_json::to_string(&file).expect("a weights file always serializes")
    }

    /// Writes the network as a weights file (see the module documentation).
    pub fn to_json(&self) -> String {
        self.to_json_with_description(None)
    }

    /// Reads a weights file written by [`Mlp::to_json`]; every number is taken at `f32`
    /// precision.
    pub fn from_json(text: &str) -> Result<Mlp, WeightsError> {
        let root: Value =
            serde_json::from_str(text).map_err(|e| WeightsError::Json(e.to_string()))?;
        let obj = root
            .as_object()
            .ok_or_else(|| invalid("(top level)", "is not an object"))?;
        for key in obj.keys() {
            if !matches!(
                key.as_str(),
                "format" | "version" | "description" | "activation" | "layers"
            ) {
                return Err(WeightsError::Unknown { field: key.clone() });
            }
        }
        let format = field(obj, "format", "")?
            .as_str()
            .ok_or_else(|| invalid("format", "is not a string"))?;
        if format != WEIGHTS_FORMAT {
            return Err(invalid(
                "format",
                &format!("is `{format}`, not `{WEIGHTS_FORMAT}`"),
            ));
        }
        let version = field(obj, "version", "")?
            .as_u64()
            .ok_or_else(|| invalid("version", "is not a non-negative integer"))?;
        if version != WEIGHTS_VERSION {
            return Err(WeightsError::Version { found: version });
        }
        if let Some(d) = obj.get("description") {
            if !d.is_string() {
                return Err(invalid("description", "is not a string"));
            }
        }
        let act_name = field(obj, "activation", "")?
            .as_str()
            .ok_or_else(|| invalid("activation", "is not a string"))?;
        let activation = Activation::from_name(act_name).ok_or_else(|| {
            invalid(
                "activation",
                &format!("is `{act_name}`, not `relu` or `tanh`"),
            )
        })?;
        let layers = field(obj, "layers", "")?
            .as_array()
            .ok_or_else(|| invalid("layers", "is not an array"))?;
        if layers.is_empty() {
            return Err(invalid("layers", "is empty"));
        }
        let mut sizes = Vec::with_capacity(layers.len() + 1);
        let mut blocks = Vec::with_capacity(layers.len());
        for (l, layer) in layers.iter().enumerate() {
            let path = format!("layers[{l}]");
            let lobj = layer
                .as_object()
                .ok_or_else(|| invalid(&path, "is not an object"))?;
            for key in lobj.keys() {
                if !matches!(key.as_str(), "inputs" | "outputs" | "weights" | "biases") {
                    return Err(WeightsError::Unknown {
                        field: format!("{path}.{key}"),
                    });
                }
            }
            let size = |name: &str| -> Result<usize, WeightsError> {
                let f = format!("{path}.{name}");
                let v = field(lobj, name, &path)?
                    .as_u64()
                    .filter(|&n| n > 0 && n <= 1 << 20)
                    .ok_or_else(|| invalid(&f, "is not a positive integer up to 1048576"))?;
                Ok(v as usize)
            };
            let n_in = size("inputs")?;
            let n_out = size("outputs")?;
            if l == 0 {
                sizes.push(n_in);
            } else if n_in != sizes[l] {
                return Err(invalid(
                    &format!("{path}.inputs"),
                    &format!("is {n_in}, but the previous layer has {} outputs", sizes[l]),
                ));
            }
            sizes.push(n_out);
            let weights = numbers(
                field(lobj, "weights", &path)?,
                &format!("{path}.weights"),
                n_in * n_out,
            )?;
            let biases = numbers(
                field(lobj, "biases", &path)?,
                &format!("{path}.biases"),
                n_out,
            )?;
            blocks.push((weights, biases));
        }
        let mut mlp = Mlp::zeros(&sizes, activation);
        for (l, (w, b)) in blocks.into_iter().enumerate() {
            let start = mlp.offsets[l];
            mlp.params[start..start + w.len()].copy_from_slice(&w);
            mlp.params[start + w.len()..start + w.len() + b.len()].copy_from_slice(&b);
        }
        Ok(mlp)
    }
}

/// A problem with a weights file.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WeightsError {
    /// The text is not JSON.
    #[error("weights file is not valid JSON: {0}")]
    Json(String),
    /// A required field is absent.
    #[error("weights file: field `{field}` is missing")]
    Missing {
        /// The field's path, such as `layers[1].biases`.
        field: String,
    },
    /// A field that the format does not have.
    #[error("weights file: field `{field}` is not part of the format")]
    Unknown {
        /// The field's path.
        field: String,
    },
    /// A field whose value is wrong.
    #[error("weights file: field `{field}` {problem}")]
    Invalid {
        /// The field's path, such as `layers[0].weights[17]`.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A version this build does not read.
    #[error(
        "weights file: field `version` is {found}; this build reads version {WEIGHTS_VERSION}"
    )]
    Version {
        /// The version found.
        found: u64,
    },
}

fn invalid(field: &str, problem: &str) -> WeightsError {
    WeightsError::Invalid {
        field: field.to_string(),
        problem: problem.to_string(),
    }
}

fn field<'v>(
    obj: &'v serde_json::Map<String, Value>,
    name: &str,
    parent: &str,
) -> Result<&'v Value, WeightsError> {
    obj.get(name).ok_or_else(|| WeightsError::Missing {
        field: if parent.is_empty() {
            name.to_string()
        } else {
            format!("{parent}.{name}")
        },
    })
}

fn numbers(value: &Value, path: &str, len: usize) -> Result<Vec<f64>, WeightsError> {
    let arr = value
        .as_array()
        .ok_or_else(|| invalid(path, "is not an array of numbers"))?;
    if arr.len() != len {
        return Err(invalid(
            path,
            &format!("has {} numbers, expected {len}", arr.len()),
        ));
    }
    arr.iter()
        .enumerate()
        .map(|(k, v)| {
            let x = v
                .as_f64()
                .ok_or_else(|| invalid(&format!("{path}[{k}]"), "is not a number"))?;
            let x32 = x as f32;
            if !x32.is_finite() {
                return Err(invalid(&format!("{path}[{k}]"), "is outside the f32 range"));
            }
            Ok(f64::from(x32))
        })
        .collect()
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

// ---------------------------------------------------------------------------------------------
// Softmax policies

fn allowed(mask: Option<&[bool]>, i: usize) -> bool {
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
    m: Vec<f64>,
    v: Vec<f64>,
    steps: u64,
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

// ---------------------------------------------------------------------------------------------
// Benchmark workloads

/// Runs `reps` forward passes of `mlp` on `input` and returns a checksum of the outputs; the
/// command line's benchmark times it.
pub fn bench_forward(mlp: &Mlp, input: &[f64], reps: usize) -> f64 {
    let mut cache = mlp.cache();
    let mut sum = 0.0;
    for _ in 0..reps {
        sum += mlp.forward(input, &mut cache)[0];
    }
    sum
}

/// Runs `reps` forward and backward passes of `mlp` on `input` (with an all-ones output
/// gradient) and returns a checksum; the command line's benchmark times it.
pub fn bench_forward_backward(mlp: &Mlp, input: &[f64], reps: usize) -> f64 {
    let mut cache = mlp.cache();
    let mut grads = mlp.zero_grads();
    let d_out = vec![1.0; mlp.outputs()];
    let mut sum = 0.0;
    for _ in 0..reps {
        sum += mlp.forward(input, &mut cache)[0];
        mlp.backward(&mut cache, &d_out, &mut grads);
    }
    sum + grads.values[0]
}

/// A fingerprint of this module's arithmetic: trains two small networks (ReLU and tanh) for
/// a few steps through every code path (initialization, forward and backward passes,
/// cross-entropy, the policy loss with its entropy bonus, action sampling, the value loss,
/// Adam with clipping, SGD, the weights file) and hashes every bit of the results. It is the
/// same on every target; a test pins its value, so a change to the order of any sum shows.
pub fn determinism_fingerprint() -> u64 {
    fn mix(h: &mut u64, x: u64) {
        for b in x.to_le_bytes() {
            *h ^= u64::from(b);
            *h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, act) in [Activation::Relu, Activation::Tanh].into_iter().enumerate() {
        let mut rng = Rng::new(0x6e6e + k as u64);
        let mut policy = Mlp::new(&[20, 12, 12, 6], act, &mut rng);
        let mut value = Mlp::new(&[20, 12, 1], act, &mut rng);
        let mut adam = Adam::new(0.01).with_max_grad_norm(1.0);
        let mut sgd = Sgd::new(0.05);
        let (mut pc, mut vc) = (policy.cache(), value.cache());
        for step in 0..30 {
            let (mut pg, mut vg) = (policy.zero_grads(), value.zero_grads());
            for _ in 0..8 {
                let x: Vec<f64> = (0..20).map(|_| rng.range(-2.0, 2.0)).collect();
                let mask: Vec<bool> = (0..6).map(|i| i == 0 || rng.uniform() < 0.6).collect();
                let logits = policy.forward(&x, &mut pc).to_vec();
                let v = value.forward(&x, &mut vc)[0];
                let d = if step % 2 == 0 {
                    cross_entropy(&logits, Some(&mask), 0).1
                } else {
                    let p = masked_softmax(&logits, Some(&mask));
                    let a = sample_action(&p, &mut rng).unwrap_or(0);
                    mix(&mut h, a as u64);
                    policy_loss(&logits, Some(&mask), a, rng.normal() - v, 0.01).grad
                };
                policy.backward(&mut pc, &d, &mut pg);
                let (_, dv) = mse(&[v], &[rng.uniform()]);
                value.backward(&mut vc, &dv, &mut vg);
            }
            adam.step(&mut policy, &pg);
            sgd.step(&mut value, &vg);
        }
        for net in [&policy, &value] {
            for p in net.params() {
                mix(&mut h, p.to_bits());
            }
            let text = net.to_json();
            mix(&mut h, text.len() as u64);
            if let Ok(back) = Mlp::from_json(&text) {
                for p in back.params() {
                    mix(&mut h, p.to_bits());
                }
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Step of the central finite differences.
    const H: f64 = 1e-5;
    /// Largest relative error accepted between a gradient and its finite difference.
    const TOL: f64 = 1e-6;

    /// Relative error, with magnitudes below 1e-3 treated as 1e-3 (so that gradients near
    /// zero are compared absolutely).
    fn rel_err(a: f64, b: f64) -> f64 {
        (a - b).abs() / a.abs().max(b.abs()).max(1e-3)
    }

    fn random_vec(rng: &mut Rng, n: usize) -> Vec<f64> {
        (0..n).map(|_| rng.range(-1.0, 1.0)).collect()
    }

    /// Central finite difference of `f` at `x` along coordinate `k`.
    fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64], k: usize) -> f64 {
        let mut xp = x.to_vec();
        xp[k] += H;
        let mut xm = x.to_vec();
        xm[k] -= H;
        (f(&xp) - f(&xm)) / (2.0 * H)
    }

    /// Worst relative error of `grad` against finite differences of `f` at `x`.
    fn worst_error(f: &dyn Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) -> f64 {
        (0..x.len())
            .map(|k| rel_err(fd(f, x, k), grad[k]))
            .fold(0.0, f64::max)
    }

    /// Which hidden units are active (ReLU's pattern) for `x`.
    fn pattern(mlp: &Mlp, x: &[f64]) -> Vec<bool> {
        let mut cache = mlp.cache();
        mlp.forward(x, &mut cache);
        cache.acts[1..mlp.layers()]
            .iter()
            .flatten()
            .map(|&a| a > 0.0)
            .collect()
    }

    fn with_params(mlp: &Mlp, params: &[f64]) -> Mlp {
        let mut m = mlp.clone();
        m.params.copy_from_slice(params);
        m
    }

    /// Checks the gradients of `loss(outputs)` with respect to every parameter and input of a
    /// small random network, given `d_loss` (the gradient of `loss` with respect to the
    /// outputs).
    fn check_through_net(
        activation: Activation,
        sizes: &[usize],
        seed: u64,
        loss: &dyn Fn(&[f64]) -> f64,
        d_loss: &dyn Fn(&[f64]) -> Vec<f64>,
    ) {
        let mut rng = Rng::new(seed);
        let mut mlp = Mlp::new(sizes, activation, &mut rng);
        // Non-zero biases, so that they matter in every layer.
        for l in 0..mlp.layers() {
            let (start, n_in, n_out) = mlp.block(l);
            for b in &mut mlp.params[start + n_in * n_out..start + n_in * n_out + n_out] {
                *b = rng.range(-0.5, 0.5);
            }
        }
        let x = random_vec(&mut rng, sizes[0]);
        let mut cache = mlp.cache();
        let out = mlp.forward(&x, &mut cache).to_vec();
        let mut grads = mlp.zero_grads();
        let d_in = mlp
            .backward_input(&mut cache, &d_loss(&out), &mut grads)
            .to_vec();
        let base = pattern(&mlp, &x);
        let mut worst: f64 = 0.0;
        let mut checked = 0;
        for k in 0..mlp.num_params() {
            let (mut pp, mut pm) = (mlp.params.clone(), mlp.params.clone());
            pp[k] += H;
            pm[k] -= H;
            let (np, nm) = (with_params(&mlp, &pp), with_params(&mlp, &pm));
            if activation == Activation::Relu
                && (pattern(&np, &x) != base || pattern(&nm, &x) != base)
            {
                continue; // the step crosses ReLU's kink: no derivative to compare
            }
            let f = (loss(&np.predict(&x)) - loss(&nm.predict(&x))) / (2.0 * H);
            worst = worst.max(rel_err(f, grads.values[k]));
            checked += 1;
        }
        assert!(
            checked * 10 >= mlp.num_params() * 9,
            "too few parameters checked"
        );
        let f_in = |xi: &[f64]| loss(&mlp.predict(xi));
        worst = worst.max(worst_error(&f_in, &x, &d_in));
        assert!(
            worst < TOL,
            "{activation:?} {sizes:?} seed {seed}: worst relative error {worst}"
        );
    }

    #[test]
    fn mlp_gradients_match_finite_differences() {
        // Loss sum c_k y_k: d loss / d y = c.
        let c = [0.7, -1.3, 0.4, 2.1];
        let loss = |y: &[f64]| y.iter().zip(&c).map(|(y, c)| y * c).sum::<f64>();
        let d_loss = |_: &[f64]| c.to_vec();
        for seed in 1..=4 {
            for act in [Activation::Tanh, Activation::Relu] {
                check_through_net(act, &[5, 7, 6, 4], seed, &loss, &d_loss);
                check_through_net(act, &[3, 4], seed, &loss, &|_| c[..4].to_vec());
            }
        }
    }

    /// Logits of 2 to 7 actions, a mask keeping about 70% of them, and an allowed target.
    fn random_target_case(rng: &mut Rng, trial: usize) -> (Vec<f64>, Vec<bool>, usize) {
        let n = 2 + trial % 6;
        let z: Vec<f64> = (0..n).map(|_| rng.range(-4.0, 4.0)).collect();
        let mut mask: Vec<bool> = (0..n).map(|_| rng.uniform() < 0.7).collect();
        let target = rng.below(n as u64) as usize;
        mask[target] = true;
        (z, mask, target)
    }

    #[test]
    fn cross_entropy_gradient_matches_finite_differences() {
        let mut rng = Rng::new(7);
        for trial in 0..20 {
            let (z, mask, target) = random_target_case(&mut rng, trial);
            let m = (trial % 3 != 0).then_some(&mask[..]);
            let (loss, grad) = cross_entropy(&z, m, target);
            assert!((loss + log_softmax(&z, m)[target]).abs() < 1e-12);
            let f = |zz: &[f64]| cross_entropy(zz, m, target).0;
            assert!(worst_error(&f, &z, &grad) < TOL);
            for (i, g) in grad.iter().enumerate() {
                if !allowed(m, i) {
                    assert_eq!(*g, 0.0);
                }
            }
        }
        // Through a network: imitation of a target action.
        let mask = [true, false, true, true, false, true];
        let loss = |y: &[f64]| cross_entropy(y, Some(&mask), 3).0;
        let d_loss = |y: &[f64]| cross_entropy(y, Some(&mask), 3).1;
        for act in [Activation::Tanh, Activation::Relu] {
            check_through_net(act, &[4, 8, 8, 6], 11, &loss, &d_loss);
        }
    }

    #[test]
    fn smoothed_cross_entropy_gradient_matches_finite_differences() {
        let mut rng = Rng::new(8);
        for trial in 0..20 {
            let (z, mask, target) = random_target_case(&mut rng, trial);
            let m = (trial % 3 != 0).then_some(&mask[..]);
            let eps = 0.05 * (trial % 4) as f64;
            let (loss, grad) = smoothed_cross_entropy(&z, m, target, eps);
            let f = |zz: &[f64]| smoothed_cross_entropy(zz, m, target, eps).0;
            assert!(worst_error(&f, &z, &grad) < TOL);
            // The gradient sums to zero (probabilities and target both sum to one).
            assert!(grad.iter().sum::<f64>().abs() < 1e-12);
            if eps == 0.0 {
                let (l0, g0) = cross_entropy(&z, m, target);
                assert!((loss - l0).abs() < 1e-12);
                assert_eq!(grad, g0);
            }
        }
        // The minimum of the loss is the smoothed target itself: 0.9 on the target and
        // 0.1 spread over the five allowed actions.
        let mask = [true, false, true, true, true, true];
        let q = [0.02, 0.0, 0.02, 0.92, 0.02, 0.02];
        let z: Vec<f64> = q
            .iter()
            .map(|&p: &f64| if p > 0.0 { math::ln(p) } else { 0.0 })
            .collect();
        let (_, grad) = smoothed_cross_entropy(&z, Some(&mask), 3, 0.1);
        assert!(grad.iter().all(|g| g.abs() < 1e-12), "{grad:?}");
    }

    #[test]
    fn entropy_gradient_matches_finite_differences() {
        let mut rng = Rng::new(8);
        for trial in 0..20 {
            let n = 2 + trial % 6;
            let z: Vec<f64> = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
            let mut mask: Vec<bool> = (0..n).map(|_| rng.uniform() < 0.7).collect();
            mask[0] = true;
            let m = if trial % 3 == 0 {
                None
            } else {
                Some(&mask[..])
            };
            let grad = entropy_grad(&masked_softmax(&z, m));
            let f = |zz: &[f64]| entropy(&masked_softmax(zz, m));
            assert!(worst_error(&f, &z, &grad) < TOL);
        }
        // Uniform over k allowed actions: ln k, and a stationary point.
        let p = masked_softmax(&[0.3, 9.0, 0.3, 0.3], Some(&[true, false, true, true]));
        assert!((entropy(&p) - math::ln(3.0)).abs() < 1e-12);
        assert!(entropy_grad(&p).iter().all(|g| g.abs() < 1e-12));
    }

    #[test]
    fn policy_gradient_matches_finite_differences() {
        let mut rng = Rng::new(9);
        for trial in 0..20 {
            let n = 2 + trial % 6;
            let z: Vec<f64> = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
            let mut mask: Vec<bool> = (0..n).map(|_| rng.uniform() < 0.7).collect();
            let action = rng.below(n as u64) as usize;
            mask[action] = true;
            let m = if trial % 3 == 0 {
                None
            } else {
                Some(&mask[..])
            };
            let advantage = rng.range(-2.0, 2.0);
            // -A ln pi(a) alone.
            let grad = policy_gradient_grad(&masked_softmax(&z, m), action, advantage);
            let f = |zz: &[f64]| -advantage * log_softmax(zz, m)[action];
            assert!(worst_error(&f, &z, &grad) < TOL);
            // With the entropy bonus.
            let beta = 0.05;
            let pl = policy_loss(&z, m, action, advantage, beta);
            let f = |zz: &[f64]| policy_loss(zz, m, action, advantage, beta).loss;
            assert!(worst_error(&f, &z, &pl.grad) < TOL);
            let expect = -advantage * pl.log_prob - beta * pl.entropy;
            assert!((pl.loss - expect).abs() < 1e-12);
        }
        // Through a network.
        let mask = [true, true, false, true, true];
        let loss = |y: &[f64]| policy_loss(y, Some(&mask), 1, -0.8, 0.02).loss;
        let d_loss = |y: &[f64]| policy_loss(y, Some(&mask), 1, -0.8, 0.02).grad;
        for act in [Activation::Tanh, Activation::Relu] {
            check_through_net(act, &[6, 9, 5], 12, &loss, &d_loss);
        }
    }

    #[test]
    fn value_mse_gradient_matches_finite_differences() {
        let target = [0.37, -1.2];
        let (loss, grad) = mse(&[1.0, -1.0], &target);
        assert!((loss - 0.5 * (0.63f64.powi(2) + 0.2f64.powi(2))).abs() < 1e-12);
        let f = |p: &[f64]| mse(p, &target).0;
        assert!(worst_error(&f, &[1.0, -1.0], &grad) < TOL);
        let loss = |y: &[f64]| mse(y, &target[..1]).0;
        let d_loss = |y: &[f64]| mse(y, &target[..1]).1;
        for act in [Activation::Tanh, Activation::Relu] {
            for seed in 1..=3 {
                check_through_net(act, &[6, 10, 10, 1], seed, &loss, &d_loss);
            }
        }
    }

    #[test]
    fn forward_follows_the_documented_layout() {
        // 2 inputs -> 2 hidden (ReLU) -> 1 output, weights set by hand.
        let mut mlp = Mlp::zeros(&[2, 2, 1], Activation::Relu);
        // Layer 0: w[i][o] at i * 2 + o, then biases.
        mlp.params[..6].copy_from_slice(&[1.0, -1.0, 2.0, 0.5, 0.1, 0.0]);
        // Layer 1: w[0][0], w[1][0], bias.
        mlp.params[6..].copy_from_slice(&[3.0, -2.0, 0.25]);
        // Hidden: [1*1 + 2*2 + 0.1, -1*1 + 0.5*2 + 0] = [5.1, 0] -> ReLU [5.1, 0].
        assert_eq!(mlp.predict(&[1.0, 2.0]), vec![3.0 * 5.1 + 0.25]);
        assert_eq!(mlp.weights(0), &[1.0, -1.0, 2.0, 0.5]);
        assert_eq!(mlp.biases(1), &[0.25]);
        assert_eq!(mlp.num_params(), 9);
    }

    #[test]
    fn masked_softmax_never_picks_a_masked_action() {
        let mut rng = Rng::new(21);
        for trial in 0..300 {
            let n = 1 + trial % 31;
            let z: Vec<f64> = (0..n).map(|_| rng.range(-50.0, 50.0)).collect();
            let mut mask: Vec<bool> = (0..n).map(|_| rng.uniform() < 0.3).collect();
            let keep = rng.below(n as u64) as usize;
            mask[keep] = true;
            let p = masked_softmax(&z, Some(&mask));
            let sum: f64 = p.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12);
            for (i, &pi) in p.iter().enumerate() {
                if !mask[i] {
                    assert_eq!(pi, 0.0);
                    assert_eq!(log_softmax(&z, Some(&mask))[i], f64::NEG_INFINITY);
                }
            }
            for _ in 0..50 {
                let a = sample_action(&p, &mut rng).unwrap();
                assert!(mask[a], "sampled masked action {a}");
            }
            assert!(mask[greedy_action(&p).unwrap()]);
        }
        // A masked action with an overwhelming logit, and extreme logits, stay excluded.
        let p = masked_softmax(&[1e6, 0.0, -1e6], Some(&[false, true, true]));
        assert_eq!(p, vec![0.0, 1.0, 0.0]);
        let p = masked_softmax(&[1000.0, 999.0], None);
        assert!((p[0] - 1.0 / (1.0 + math::exp(-1.0))).abs() < 1e-12);
        // Nothing allowed: no action.
        let p = masked_softmax(&[1.0, 2.0], Some(&[false, false]));
        assert_eq!(p, vec![0.0, 0.0]);
        assert_eq!(sample_action(&p, &mut rng), None);
        assert_eq!(greedy_action(&p), None);
        // Sampling frequencies follow the probabilities.
        let p = masked_softmax(&[0.0, 1.0, 2.0, 5.0], Some(&[true, true, true, false]));
        let mut counts = [0usize; 4];
        for _ in 0..20_000 {
            counts[sample_action(&p, &mut rng).unwrap()] += 1;
        }
        assert_eq!(counts[3], 0);
        for i in 0..3 {
            assert!((counts[i] as f64 / 20_000.0 - p[i]).abs() < 0.015);
        }
    }

    /// A masked-argmax imitation task: 5 values and a mask of allowed slots in, the slot of the
    /// largest allowed value (larger than the others by at least 0.05) as the label.
    fn argmax_sample(rng: &mut Rng) -> (Vec<f64>, Vec<bool>, usize) {
        let mut values: Vec<f64> = (0..5).map(|_| rng.range(0.0, 0.95)).collect();
        let mut mask: Vec<bool> = (0..5).map(|_| rng.uniform() < 0.7).collect();
        mask[rng.below(5) as usize] = true;
        let target = (0..5)
            .filter(|&i| mask[i])
            .fold(None, |b: Option<usize>, i| match b {
                Some(j) if values[j] >= values[i] => Some(j),
                _ => Some(i),
            })
            .unwrap();
        values[target] += 0.05; // a clear winner
        let mut x = values;
        x.extend(mask.iter().map(|&m| if m { 1.0 } else { 0.0 }));
        (x, mask, target)
    }

    /// Trains a policy to imitate the masked argmax; returns it and its held-out accuracy.
    fn train_imitation(seed: u64, steps: usize) -> (Mlp, f64) {
        let mut rng = Rng::new(seed);
        let mut mlp = Mlp::new(&[10, 32, 32, 5], Activation::Relu, &mut rng);
        let mut adam = Adam::new(0.005).with_max_grad_norm(5.0);
        let mut cache = mlp.cache();
        let mut grads = mlp.zero_grads();
        let batch = 32;
        for step in 0..steps {
            if step * 3 == steps * 2 {
                adam.lr = 0.001;
            }
            grads.zero();
            for _ in 0..batch {
                let (x, mask, target) = argmax_sample(&mut rng);
                let logits = mlp.forward(&x, &mut cache);
                let (_, d) = cross_entropy(logits, Some(&mask), target);
                mlp.backward(&mut cache, &d, &mut grads);
            }
            grads.scale(1.0 / batch as f64);
            adam.step(&mut mlp, &grads);
        }
        let mut test_rng = Rng::new(seed ^ 0xdead_beef);
        let n = 2000;
        let correct = (0..n)
            .filter(|_| {
                let (x, mask, target) = argmax_sample(&mut test_rng);
                let p = masked_softmax(&mlp.predict(&x), Some(&mask));
                greedy_action(&p) == Some(target)
            })
            .count();
        (mlp, correct as f64 / n as f64)
    }

    #[test]
    fn supervised_imitation_learns_masked_argmax() {
        let (_, accuracy) = train_imitation(3, 600);
        assert!(accuracy > 0.95, "accuracy {accuracy}");
    }

    /// A contextual bandit: two contexts, four arms, noisy rewards; the best arm is 1 in
    /// context 0 and 2 in context 1. Trains an actor and a critic; returns both.
    fn train_bandit(seed: u64, steps: usize) -> (Mlp, Mlp) {
        const MEANS: [[f64; 4]; 2] = [[0.1, 0.8, 0.3, 0.5], [0.6, 0.2, 0.9, 0.1]];
        let mut rng = Rng::new(seed);
        let mut actor = Mlp::new(&[2, 16, 4], Activation::Tanh, &mut rng);
        actor.scale_output_layer(0.01);
        let mut critic = Mlp::new(&[2, 16, 1], Activation::Tanh, &mut rng);
        let mut actor_opt = Adam::new(0.01).with_max_grad_norm(1.0);
        let mut critic_opt = Adam::new(0.02);
        let (mut ac, mut cc) = (actor.cache(), critic.cache());
        let (mut ag, mut cg) = (actor.zero_grads(), critic.zero_grads());
        let batch = 16;
        for _ in 0..steps {
            ag.zero();
            cg.zero();
            for _ in 0..batch {
                let ctx = rng.below(2) as usize;
                let x = if ctx == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
                let logits = actor.forward(&x, &mut ac).to_vec();
                let probs = masked_softmax(&logits, None);
                let a = sample_action(&probs, &mut rng).unwrap();
                let reward = MEANS[ctx][a] + 0.1 * rng.normal();
                let v = critic.forward(&x, &mut cc)[0];
                let pl = policy_loss(&logits, None, a, reward - v, 0.01);
                actor.backward(&mut ac, &pl.grad, &mut ag);
                let (_, d) = mse(&[v], &[reward]);
                critic.backward(&mut cc, &d, &mut cg);
            }
            ag.scale(1.0 / batch as f64);
            cg.scale(1.0 / batch as f64);
            actor_opt.step(&mut actor, &ag);
            critic_opt.step(&mut critic, &cg);
        }
        (actor, critic)
    }

    #[test]
    fn actor_critic_learns_the_best_arm() {
        let (actor, critic) = train_bandit(5, 400);
        for (ctx, best, value) in [(0, 1, 0.8), (1, 2, 0.9)] {
            let x = if ctx == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
            let p = masked_softmax(&actor.predict(&x), None);
            assert_eq!(greedy_action(&p), Some(best), "context {ctx}: {p:?}");
            assert!(p[best] > 0.9, "context {ctx}: {p:?}");
            let v = critic.predict(&x)[0];
            assert!((v - value).abs() < 0.1, "context {ctx}: value {v}");
        }
    }

    #[test]
    fn training_is_deterministic() {
        let bits = |m: &Mlp| m.params().iter().map(|p| p.to_bits()).collect::<Vec<_>>();
        let (a, _) = train_imitation(17, 40);
        let (b, _) = train_imitation(17, 40);
        let (c, _) = train_imitation(18, 40);
        assert_eq!(bits(&a), bits(&b));
        assert_ne!(bits(&a), bits(&c));
        let (a, ca) = train_bandit(17, 30);
        let (b, cb) = train_bandit(17, 30);
        assert_eq!(bits(&a), bits(&b));
        assert_eq!(bits(&ca), bits(&cb));
    }

    #[test]
    fn optimizers_step_as_specified() {
        let mut mlp = Mlp::zeros(&[1, 2], Activation::Relu);
        let mut g = mlp.zero_grads();
        g.values_mut().copy_from_slice(&[3.0, -4.0, 0.0, 1e-12]);
        // SGD with clipping: norm 5 clipped to 1.
        let mut sgd = Sgd::new(0.5);
        sgd.max_grad_norm = Some(1.0);
        sgd.step(&mut mlp, &g);
        assert!((mlp.params()[0] + 0.3).abs() < 1e-15 && (mlp.params()[1] - 0.4).abs() < 1e-15);
        // Adam's first step moves each parameter by about lr * sign(g).
        let mut mlp = Mlp::zeros(&[1, 2], Activation::Relu);
        let mut adam = Adam::new(0.1);
        adam.step(&mut mlp, &g);
        assert!((mlp.params()[0] + 0.1).abs() < 1e-6);
        assert!((mlp.params()[1] - 0.1).abs() < 1e-6);
        assert_eq!(mlp.params()[2], 0.0);
        assert_eq!(adam.steps(), 1);
        // Adam minimizes a quadratic through a network: fit a constant output.
        let mut rng = Rng::new(4);
        let mut mlp = Mlp::new(&[3, 8, 2], Activation::Tanh, &mut rng);
        let mut adam = Adam::new(0.05);
        let mut cache = mlp.cache();
        let x = [0.2, -0.4, 0.9];
        let mut loss = 0.0;
        for _ in 0..300 {
            let mut g = mlp.zero_grads();
            let y = mlp.forward(&x, &mut cache).to_vec();
            let (l, d) = mse(&y, &[1.5, -0.5]);
            loss = l;
            mlp.backward(&mut cache, &d, &mut g);
            adam.step(&mut mlp, &g);
        }
        assert!(loss < 1e-6, "loss {loss}");
        // Gradient helpers.
        let mut g = Gradients {
            values: vec![3.0, 4.0],
        };
        assert_eq!(g.clip_norm(1.0), 5.0);
        assert!((g.norm() - 1.0).abs() < 1e-15);
        let h = g.clone();
        g.add(&h);
        assert!((g.values()[0] - 1.2).abs() < 1e-15 && (g.values()[1] - 1.6).abs() < 1e-15);
    }

    #[test]
    fn weights_round_trip_through_json() {
        let mut rng = Rng::new(31);
        for act in [Activation::Relu, Activation::Tanh] {
            let mut mlp = Mlp::new(&[8, 6, 5, 3], act, &mut rng);
            for p in mlp.params_mut() {
                *p += rng.range(-0.1, 0.1);
            }
            let text = mlp.to_json();
            let back = Mlp::from_json(&text).unwrap();
            assert_eq!(back.sizes(), mlp.sizes());
            assert_eq!(back.activation(), act);
            // Numbers are kept at f32 precision...
            for (a, b) in back.params().iter().zip(mlp.params()) {
                assert_eq!(*a, f64::from(*b as f32));
            }
            // ...so a rounded network reads back bit for bit, and writes the same text again.
            mlp.round_to_f32();
            assert_eq!(back, mlp);
            assert_eq!(back.to_json(), text);
            let x = random_vec(&mut rng, 8);
            assert_eq!(back.predict(&x), mlp.predict(&x));
        }
        let mlp = Mlp::new(&[2, 3, 1], Activation::Relu, &mut rng);
        let text = mlp.to_json_with_description(Some("imitates DRF"));
        assert!(text.starts_with(r#"{"format":"orrery-mlp","version":1,"description":"imitates DRF","activation":"relu","layers":[{"inputs":2,"outputs":3,"weights":["#));
        assert_eq!(Mlp::from_json(&text).unwrap().sizes(), &[2, 3, 1]);
        // Many random f32 values survive the decimal text exactly.
        let mut big = Mlp::zeros(&[1, 20_000], Activation::Relu);
        for p in big.params_mut() {
            *p = f64::from(f32::from_bits(
                rng.next_u64() as u32 & 0x3fff_ffff | 0x0080_0000,
            )) * if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
        }
        let back = Mlp::from_json(&big.to_json()).unwrap();
        assert_eq!(back, big);
    }

    #[test]
    fn weights_errors_name_the_field() {
        let mut rng = Rng::new(1);
        let good = Mlp::new(&[2, 3, 1], Activation::Tanh, &mut rng).to_json();
        let v: Value = serde_json::from_str(&good).unwrap();
        let edit = |f: &dyn Fn(&mut Value)| {
            let mut w = v.clone();
            f(&mut w);
            Mlp::from_json(&w.to_string()).unwrap_err()
        };
        let field_of = |e: WeightsError| match e {
            WeightsError::Missing { field }
            | WeightsError::Unknown { field }
            | WeightsError::Invalid { field, .. } => field,
            other => panic!("unexpected {other:?}"),
        };
        assert!(matches!(Mlp::from_json("{"), Err(WeightsError::Json(_))));
        assert_eq!(field_of(Mlp::from_json("[]").unwrap_err()), "(top level)");
        assert_eq!(field_of(edit(&|w| w["format"] = "onnx".into())), "format");
        assert_eq!(
            edit(&|w| w["version"] = 2.into()),
            WeightsError::Version { found: 2 }
        );
        assert_eq!(field_of(edit(&|w| w["version"] = "1".into())), "version");
        assert_eq!(
            field_of(edit(&|w| w["activation"] = "gelu".into())),
            "activation"
        );
        assert_eq!(
            field_of(edit(&|w| {
                w.as_object_mut().unwrap().remove("layers");
            })),
            "layers"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"] = Value::Array(vec![]))),
            "layers"
        );
        assert_eq!(field_of(edit(&|w| w["extra"] = 1.into())), "extra");
        assert_eq!(
            field_of(edit(&|w| {
                w["layers"][1].as_object_mut().unwrap().remove("biases");
            })),
            "layers[1].biases"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"][1]["inputs"] = 4.into())),
            "layers[1].inputs"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"][0]["outputs"] = 0.into())),
            "layers[0].outputs"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"][0]["weights"][4] = "x".into())),
            "layers[0].weights[4]"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"][0]["biases"][1] = 1e300.into())),
            "layers[0].biases[1]"
        );
        let e = edit(&|w| w["layers"][0]["weights"] = Value::Array(vec![1.0.into()]));
        assert_eq!(
            e.to_string(),
            "weights file: field `layers[0].weights` has 1 numbers, expected 6"
        );
        assert_eq!(
            field_of(edit(&|w| w["layers"][1]["bias"] = 1.into())),
            "layers[1].bias"
        );
    }

    #[test]
    fn determinism_fingerprint_is_pinned() {
        // The same value in WebAssembly (wasm32-unknown-unknown); update it only with a change
        // meant to alter the arithmetic.
        assert_eq!(
            format!("{:016x}", determinism_fingerprint()),
            "0022983640474401"
        );
    }

    #[test]
    fn bench_workloads_run() {
        let mut rng = Rng::new(2);
        let mlp = Mlp::new(&[80, 128, 128, 31], Activation::Relu, &mut rng);
        assert_eq!(
            mlp.num_params(),
            80 * 128 + 128 + 128 * 128 + 128 + 128 * 31 + 31
        );
        let x = random_vec(&mut rng, 80);
        let y = mlp.predict(&x)[0];
        assert_eq!(bench_forward(&mlp, &x, 3), 3.0 * y);
        assert!(bench_forward_backward(&mlp, &x, 2).is_finite());
    }
}
