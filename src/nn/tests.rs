//! The networks' tests: every gradient against central finite differences, small learning
//! problems, the weights file read back bit for bit and its errors, the optimizers' steps,
//! and the pinned determinism fingerprint.

use super::losses::allowed;
use super::*;
use serde_json::Value;

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
        if activation == Activation::Relu && (pattern(&np, &x) != base || pattern(&nm, &x) != base)
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
