//! Fixed workloads for the command line's benchmarks, and a fingerprint of a network's
//! arithmetic that native and WebAssembly builds must share.

use super::losses::{cross_entropy, masked_softmax, mse, policy_loss, sample_action};
use super::optim::{Adam, Optimizer, Sgd};
use super::{Activation, Mlp};
use crate::rng::Rng;

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
