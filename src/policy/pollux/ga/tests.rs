//! The genetic search's tests: hand-solved states, invariants of its operators, and the
//! packed and wide forms against each other.

use super::draws::Geometric;
use super::select::relation;
use super::*;
use std::collections::HashMap;

/// speedup = replicas.
struct Linear;
impl Speedup for Linear {
    fn speedup(&mut self, _job: usize, _nodes: u32, replicas: u32) -> f64 {
        f64::from(replicas)
    }
}

/// speedup = replicas - 0.5 * (nodes - 1): spreading over nodes costs.
struct Spread;
impl Speedup for Spread {
    fn speedup(&mut self, _job: usize, nodes: u32, replicas: u32) -> f64 {
        f64::from(replicas) - 0.5 * (f64::from(nodes) - 1.0)
    }
}

/// A concave, placement-sensitive speedup normalised to the fair share, memoised by the
/// caller as Pollux's policy does.
struct Concave {
    fair: f64,
    calls: usize,
    memo: HashMap<(usize, u32, u32), f64>,
}
impl Speedup for Concave {
    fn speedup(&mut self, job: usize, nodes: u32, replicas: u32) -> f64 {
        let fair = self.fair;
        self.calls += 1;
        *self.memo.entry((job, nodes, replicas)).or_insert_with(|| {
            let r = f64::from(replicas);
            let eff = 1.0 / (1.0 + 0.03 * (job % 5) as f64 * (r - 1.0));
            let net = if nodes > 1 { 0.85 } else { 1.0 };
            r * eff * net / fair
        })
    }
}

fn jobs(max: &[u32]) -> Vec<GaJob> {
    max.iter()
        .map(|&m| GaJob {
            max_replicas: m,
            age_s: 1000.0,
            num_restarts: 0,
        })
        .collect()
}

fn node_totals(x: &[u32], nn: usize) -> Vec<u32> {
    let mut t = vec![0; nn];
    for row in x.chunks_exact(nn) {
        for (a, &v) in t.iter_mut().zip(row) {
            *a += v;
        }
    }
    t
}

/// The three repair guarantees.
fn check_valid(x: &[u32], jobs: &[GaJob], nn: usize, g: u32) {
    assert_eq!(x.len(), jobs.len() * nn);
    for t in node_totals(x, nn) {
        assert!(t <= g, "node over-allocated: {x:?}");
    }
    let mut distributed_on = vec![0; nn];
    for (row, job) in x.chunks_exact(nn).zip(jobs) {
        assert!(
            row.iter().sum::<u32>() <= job.max_replicas,
            "max replicas: {x:?}"
        );
        if row.iter().filter(|&&v| v > 0).count() > 1 {
            for (d, &v) in distributed_on.iter_mut().zip(row) {
                *d += u32::from(v > 0);
            }
        }
    }
    assert!(
        distributed_on.iter().all(|&d| d <= 1),
        "two distributed jobs share a node: {x:?}"
    );
}

/// Repair `state` with both representations from the same random stream; they must
/// agree, including the objectives. Returns the repaired state.
fn repair_both(problem: &Problem, state: &[u32], seed: u64) -> Vec<u32> {
    let a = match problem.num_nodes.div_ceil(8) {
        1 => repair_both_with::<1>(problem, state, seed),
        2 => repair_both_with::<2>(problem, state, seed),
        3 | 4 => repair_both_with::<4>(problem, state, seed),
        _ => repair_both_with::<8>(problem, state, seed),
    };
    // Wider rows (more zero padding) give the same result.
    assert_eq!(a, repair_both_with::<8>(problem, state, seed));
    a
}

fn repair_both_with<const W: usize>(problem: &Problem, state: &[u32], seed: u64) -> Vec<u32> {
    let params = GaParams::default();
    let (mut s1, mut s2) = (Linear, Linear);
    let mut packed = Packed::<W>::new(problem, &mut s1, &params);
    let mut wide = Wide::new(problem, &mut s2, &params);
    let mut xp = vec![0u64; packed.units()];
    let mut xw = vec![0u32; wide.units()];
    packed.load(state, &mut xp);
    wide.load(state, &mut xw);
    let (mut r1, mut r2) = (Rng::new(seed), Rng::new(seed));
    packed.repair(&mut xp, &mut r1);
    wide.repair(&mut xw, &mut r2);
    let out = packed.unload(&xp);
    assert_eq!(out, wide.unload(&xw));
    assert_eq!(r1, r2);
    let f = packed.score();
    assert_eq!(f, wide.score());
    assert_eq!(f, objectives(problem, &mut Linear, &out, &params));
    out
}

#[test]
fn repair_enforces_capacity_max_replicas_and_one_distributed_job_per_node() {
    let mut rng = Rng::new(7);
    for _ in 0..800 {
        let nj = 1 + rng.below(8) as usize;
        let nn = 1 + rng.below(19) as usize;
        let g = 1 + rng.below(8) as u32;
        let js: Vec<GaJob> = (0..nj)
            .map(|_| GaJob {
                max_replicas: rng.below(12) as u32,
                age_s: 100.0,
                num_restarts: rng.below(2) as u32,
            })
            .collect();
        let base: Vec<u32> = (0..nj * nn).map(|_| rng.below(2) as u32).collect();
        let problem = Problem {
            jobs: &js,
            num_nodes: nn,
            gpus_per_node: g,
            base: &base,
        };
        let x: Vec<u32> = (0..nj * nn)
            .map(|_| rng.below(u64::from(g) + 3) as u32)
            .collect();
        let seed = rng.next_u64();
        let fixed = repair_both(&problem, &x, seed);
        check_valid(&fixed, &js, nn, g);
        // Repair leaves a valid state alone.
        assert_eq!(repair_both(&problem, &fixed, seed + 1), fixed);
    }
}

#[test]
fn mutation_then_repair_agree_across_representations() {
    mutation_then_repair_agree::<1>(1..9);
    mutation_then_repair_agree::<2>(9..17);
    mutation_then_repair_agree::<4>(1..33);
    mutation_then_repair_agree::<8>(30..65);
}

fn mutation_then_repair_agree<const W: usize>(nodes: std::ops::Range<u64>) {
    let mut rng = Rng::new(8);
    for _ in 0..400 {
        let nj = 1 + rng.below(8) as usize;
        let nn = (nodes.start + rng.below(nodes.end - nodes.start)) as usize;
        let g = 1 + rng.below(8) as u32;
        let js: Vec<GaJob> = (0..nj)
            .map(|_| GaJob {
                max_replicas: rng.below(12) as u32,
                age_s: 100.0,
                num_restarts: 0,
            })
            .collect();
        let base: Vec<u32> = (0..nj * nn).map(|_| rng.below(2) as u32).collect();
        let problem = Problem {
            jobs: &js,
            num_nodes: nn,
            gpus_per_node: g,
            base: &base,
        };
        let params = GaParams {
            reset_prob: 0.3,
            mark_prob: 0.3,
            zero_prob: 0.3,
            ..GaParams::default()
        };
        let (mut s1, mut s2) = (Linear, Linear);
        let mut packed = Packed::<W>::new(&problem, &mut s1, &params);
        let mut wide = Wide::new(&problem, &mut s2, &params);
        let x: Vec<u32> = (0..nj * nn)
            .map(|_| rng.below(u64::from(g) + 1) as u32)
            .collect();
        let mut xp = vec![0u64; packed.units()];
        let mut xw = vec![0u32; wide.units()];
        packed.load(&x, &mut xp);
        wide.load(&x, &mut xw);
        let seed = rng.next_u64();
        let (mut r1, mut r2) = (Rng::new(seed), Rng::new(seed));
        for _ in 0..3 {
            packed.mutate(&mut xp, &mut r1);
            wide.mutate(&mut xw, &mut r2);
            assert_eq!(packed.unload(&xp), wide.unload(&xw));
            packed.repair(&mut xp, &mut r1);
            wide.repair(&mut xw, &mut r2);
            let out = packed.unload(&xp);
            assert_eq!(out, wide.unload(&xw));
            check_valid(&out, &js, nn, g);
        }
    }
}

#[test]
fn mutation_only_grows_entries_on_nodes_with_free_gpus() {
    // Node 0 is full (job 0 holds its 4 GPUs), node 1 is empty. With reset and zeroing
    // off, only node 1 can change, and entries never shrink.
    let js = jobs(&[8, 8]);
    let base = vec![4, 0, 0, 0];
    let problem = Problem {
        jobs: &js,
        num_nodes: 2,
        gpus_per_node: 4,
        base: &base,
    };
    let params = GaParams {
        reset_prob: 0.0,
        mark_prob: 0.0,
        ..GaParams::default()
    };
    let mut sp = Linear;
    let mut packed = Packed::<1>::new(&problem, &mut sp, &params);
    let mut rng = Rng::new(3);
    let mut grown = 0;
    for _ in 0..500 {
        let mut x = vec![0u64; packed.units()];
        packed.load(&base, &mut x);
        packed.mutate(&mut x, &mut rng);
        let out = packed.unload(&x);
        assert_eq!(out[0], 4);
        assert_eq!(out[2], 0);
        grown += usize::from(out[1] > 0) + usize::from(out[3] > 0);
    }
    // Each empty entry on node 1 grows with probability 1/J = 1/2 and then is nonzero
    // with probability 4/5: about 0.4 * 1000 = 400.
    assert!((320..480).contains(&grown), "{grown}");
}

#[test]
fn repair_zeroes_everything_after_the_second_distributed_job_on_a_node() {
    // Node 0 holds job 0 (distributed over nodes 0, 1), job 1 (distributed over 0, 2)
    // and job 2 (only on node 0). From job 1 on, node 0 is cleared, job 2 included.
    let js = jobs(&[10, 10, 10]);
    let base = vec![0u32; 9];
    let problem = Problem {
        jobs: &js,
        num_nodes: 3,
        gpus_per_node: 8,
        base: &base,
    };
    let out = repair_both(&problem, &[1, 1, 0, 1, 0, 1, 2, 0, 0], 1);
    assert_eq!(out, vec![1, 1, 0, 0, 0, 1, 0, 0, 0]);
}

#[test]
fn repair_caps_replicas_and_gives_capacity_by_priority() {
    let js = jobs(&[3, 8]);
    let base = vec![0u32; 4];
    let problem = Problem {
        jobs: &js,
        num_nodes: 2,
        gpus_per_node: 4,
        base: &base,
    };
    // Job 0 asks for 4 on node 0 only: capped to 3. Job 1 then gets the 1 GPU left.
    assert_eq!(repair_both(&problem, &[4, 0, 4, 0], 1), vec![3, 0, 1, 0]);
    // Job 0 asks for 2 + 2 with a cap of 3: one node keeps 2, the other 1, either way.
    let out = repair_both(&problem, &[2, 2, 0, 0], 5);
    assert_eq!(out[0] + out[1], 3);
    assert!(out[0] >= 1 && out[1] >= 1);
}

#[test]
fn representations_give_identical_searches() {
    let (js, base) = random_problem(9, 4);
    let problem = Problem {
        jobs: &js,
        num_nodes: 16,
        gpus_per_node: 4,
        base: &base,
    };
    let params = GaParams {
        generations: 30,
        ..GaParams::default()
    };
    let (mut s1, mut s2) = (Linear, Linear);
    let a = run(
        Packed::<2>::new(&problem, &mut s1, &params),
        &problem,
        &[],
        &params,
        &mut Rng::new(3),
    );
    let b = run(
        Wide::new(&problem, &mut s2, &params),
        &problem,
        &[],
        &params,
        &mut Rng::new(3),
    );
    assert_eq!(a.best, b.best);
    assert_eq!(a.front, b.front);
}

#[test]
fn objectives_by_hand() {
    // 2 jobs, 2 nodes x 4 GPUs: scale = num_nodes / total GPUs = 2 / 8 = 0.25.
    // speedup(n, r) = r - 0.5 (n - 1).
    // Job 0: age 100 s, 1 restart, base [1, 0], state [2, 0] -> changed;
    //   s0 = 2, restart factor = max(100 - 30, 0) / (100 + 30) = 70/130 = 0.538461...,
    //   scaled0 = 2 * 0.25 * 70/130 = 0.269230769...
    // Job 1: age 50 s, 0 restarts, base [0, 0], state [1, 1] -> changed;
    //   s1 = 2 - 0.5 = 1.5, factor = 50/80 = 0.625, scaled1 = 1.5 * 0.25 * 0.625 = 0.234375.
    // F0 = -[ (1/(0.269230769 + 0.001) + 1/(0.234375 + 0.001)) / 2 ]^-1
    //    = -[ (3.700541  + 4.248540) / 2 ]^-1 = -0.251601
    // Both nodes are used: F1 = -(2 + 1.5) / (4 * 2) = -0.4375.
    let js = vec![
        GaJob {
            max_replicas: 8,
            age_s: 100.0,
            num_restarts: 1,
        },
        GaJob {
            max_replicas: 8,
            age_s: 50.0,
            num_restarts: 0,
        },
    ];
    let base = vec![1, 0, 0, 0];
    let problem = Problem {
        jobs: &js,
        num_nodes: 2,
        gpus_per_node: 4,
        base: &base,
    };
    let params = GaParams::default();
    let f = objectives(&problem, &mut Spread, &[2, 0, 1, 1], &params);
    let s0 = 2.0 * 0.25 * 70.0 / 130.0;
    let s1 = 1.5 * 0.25 * 0.625;
    let f0 = -1.0 / ((1.0 / (s0 + 1e-3) + 1.0 / (s1 + 1e-3)) / 2.0);
    assert!((f[0] - f0).abs() < 1e-12, "{f:?} vs {f0}");
    assert!((f[0] - -0.251601).abs() < 1e-6, "{f:?}");
    assert!((f[1] - -0.4375).abs() < 1e-12, "{f:?}");

    // The state equal to the base pays no restart factor:
    // scaled0 = 1 * 0.25 = 0.25, job 1 has no GPUs (scaled 0), one node used.
    // F0 = -[(1/0.251 + 1/0.001) / 2]^-1 = -0.001992063, F1 = -1 / 4.
    let f = objectives(&problem, &mut Spread, &base, &params);
    let f0 = -1.0 / ((1.0 / 0.251 + 1.0 / 0.001) / 2.0);
    assert!((f[0] - f0).abs() < 1e-12, "{f:?} vs {f0}");
    assert!((f[1] - -0.25).abs() < 1e-12, "{f:?}");

    // The engines' evaluation after a (no-op) repair agrees with objectives().
    let mut sp = Spread;
    let mut eng = Packed::<1>::new(&problem, &mut sp, &params);
    let mut x = vec![0u64; eng.units()];
    eng.load(&[2, 0, 1, 1], &mut x);
    eng.repair(&mut x, &mut Rng::new(1));
    assert_eq!(eng.unload(&x), vec![2, 0, 1, 1]);
    let g = eng.score();
    let h = objectives(&problem, &mut Spread, &[2, 0, 1, 1], &params);
    assert_eq!(g, h);
}

#[test]
fn linear_speedup_splits_the_cluster_evenly() {
    let js = jobs(&[8, 8]);
    let base = vec![0u32; 8];
    let problem = Problem {
        jobs: &js,
        num_nodes: 4,
        gpus_per_node: 4,
        base: &base,
    };
    for seed in 0..3 {
        let r = optimize(
            &problem,
            &mut Linear,
            &[],
            &GaParams::default(),
            &mut Rng::new(seed),
        );
        check_valid(&r.best, &js, 4, 4);
        let sums: Vec<u32> = r.best.chunks_exact(4).map(|row| row.iter().sum()).collect();
        assert_eq!(sums, vec![8, 8], "seed {seed}: {:?}", r.best);
        assert!(r.front.contains(&r.best));
    }
}

fn random_problem(nj: usize, seed: u64) -> (Vec<GaJob>, Vec<u32>) {
    let mut rng = Rng::new(seed);
    let js: Vec<GaJob> = (0..nj)
        .map(|_| GaJob {
            max_replicas: 1 + rng.below(16) as u32,
            age_s: rng.range(0.0, 5000.0),
            num_restarts: rng.below(4) as u32,
        })
        .collect();
    // A valid base: each job holds up to 2 GPUs on one node while room lasts.
    let mut base = vec![0u32; nj * 16];
    let mut used = [0u32; 16];
    for j in 0..nj {
        let n = rng.below(16) as usize;
        let want = rng.below(3) as u32;
        let t = want.min(4 - used[n]).min(js[j].max_replicas);
        base[j * 16 + n] = t;
        used[n] += t;
    }
    (js, base)
}

#[test]
fn same_seed_same_result_and_results_are_valid() {
    let (js, base) = random_problem(12, 3);
    let problem = Problem {
        jobs: &js,
        num_nodes: 16,
        gpus_per_node: 4,
        base: &base,
    };
    let params = GaParams::default();
    let mut sp = Concave {
        fair: 6.0,
        calls: 0,
        memo: HashMap::new(),
    };
    let a = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(11));
    let b = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(11));
    assert_eq!(a.best, b.best);
    assert_eq!(a.front, b.front);
    check_valid(&a.best, &js, 16, 4);
    for s in &a.front {
        check_valid(s, &js, 16, 4);
    }
    // Warm start from the front: still deterministic and valid.
    let c = optimize(&problem, &mut sp, &a.front, &params, &mut Rng::new(12));
    let d = optimize(&problem, &mut sp, &a.front, &params, &mut Rng::new(12));
    assert_eq!(c.best, d.best);
    assert_eq!(c.front, d.front);
    check_valid(&c.best, &js, 16, 4);
    // Different seeds explore differently.
    let fronts: Vec<Vec<Vec<u32>>> = (20..24)
        .map(|s| optimize(&problem, &mut sp, &[], &params, &mut Rng::new(s)).front)
        .collect();
    assert!(fronts.iter().any(|f| *f != fronts[0]));
}

#[test]
fn best_is_on_the_front_with_the_best_fairness() {
    let (js, base) = random_problem(20, 5);
    let problem = Problem {
        jobs: &js,
        num_nodes: 16,
        gpus_per_node: 4,
        base: &base,
    };
    let params = GaParams::default();
    let mut sp = Concave {
        fair: 4.0,
        calls: 0,
        memo: HashMap::new(),
    };
    let r = optimize(&problem, &mut sp, &[], &params, &mut Rng::new(1));
    check_valid(&r.best, &js, 16, 4);
    let fb = objectives(&problem, &mut sp, &r.best, &params);
    let fs: Vec<[f64; 2]> = r
        .front
        .iter()
        .map(|s| objectives(&problem, &mut sp, s, &params))
        .collect();
    for f in &fs {
        assert!(fb[0] <= f[0]);
        // Front members do not dominate each other.
        for g in &fs {
            assert_ne!(relation(*f, *g), 1);
        }
    }
    // Better than (or as good as) doing nothing, on fairness.
    let f_base = objectives(&problem, &mut sp, &base, &params);
    assert!(fb[0] <= f_base[0]);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let params = GaParams::default();
    let mut rng = Rng::new(1);
    // No jobs.
    let p = Problem {
        jobs: &[],
        num_nodes: 16,
        gpus_per_node: 4,
        base: &[],
    };
    let r = optimize(&p, &mut Linear, &[], &params, &mut rng);
    assert!(r.best.is_empty() && r.front.is_empty());
    assert_eq!(objectives(&p, &mut Linear, &[], &params), [0.0, 0.0]);
    // No nodes, no GPUs.
    let js = jobs(&[4, 4]);
    for (nn, g) in [(0usize, 4u32), (3, 0)] {
        let base = vec![0u32; 2 * nn];
        let p = Problem {
            jobs: &js,
            num_nodes: nn,
            gpus_per_node: g,
            base: &base,
        };
        let r = optimize(&p, &mut Linear, &[vec![1; 2 * nn]], &params, &mut rng);
        assert_eq!(r.best, vec![0; 2 * nn]);
        let f = objectives(&p, &mut Linear, &r.best, &params);
        assert!(f.iter().all(|v| !v.is_nan()));
    }
    // Short base, wrong-length and oversized warm starts, zero max replicas, huge nodes.
    let js = jobs(&[0, 3, 1000]);
    let p = Problem {
        jobs: &js,
        num_nodes: 2,
        gpus_per_node: 300,
        base: &[5],
    };
    let r = optimize(
        &p,
        &mut Linear,
        &[vec![1, 2], vec![999; 6]],
        &params,
        &mut rng,
    );
    check_valid(&r.best, &js, 2, 300);
    // Tiny searches, population 0 and 1, one generation.
    for (pop, gens) in [(0, 5), (1, 5), (2, 1), (3, 0)] {
        let params = GaParams {
            population: pop,
            generations: gens,
            ..GaParams::default()
        };
        let js = jobs(&[1]);
        let p = Problem {
            jobs: &js,
            num_nodes: 1,
            gpus_per_node: 1,
            base: &[0],
        };
        let r = optimize(&p, &mut Linear, &[], &params, &mut rng);
        check_valid(&r.best, &js, 1, 1);
    }
    // Odd parameters and a NaN speedup.
    struct Nan;
    impl Speedup for Nan {
        fn speedup(&mut self, _: usize, _: u32, _: u32) -> f64 {
            f64::NAN
        }
    }
    let params = GaParams {
        population: 10,
        generations: 10,
        crossover_prob: f64::NAN,
        reset_prob: 2.0,
        mark_prob: -1.0,
        zero_prob: 1.0,
        restart_penalty_s: 1e12,
        power: 0.0,
    };
    let js = jobs(&[4, 4, 4]);
    let base = vec![0u32; 12];
    let p = Problem {
        jobs: &js,
        num_nodes: 4,
        gpus_per_node: 4,
        base: &base,
    };
    let r = optimize(&p, &mut Nan, &[], &params, &mut rng);
    check_valid(&r.best, &js, 4, 4);
}

#[test]
fn geometric_gaps_have_the_geometric_distribution() {
    // Table inversion (0.3, 0.1, 1/20), the logarithm for small p (0.004), the
    // "64 more failures" path (0.02), and the trivial cases.
    let mut rng = Rng::new(17);
    for p in [0.3, 0.1, 0.05, 0.02, 0.004] {
        let g = Geometric::new(p);
        let n = 200_000;
        let (mut sum, mut zeros) = (0.0, 0);
        for _ in 0..n {
            let d = g.draw(&mut rng);
            sum += d as f64;
            zeros += usize::from(d == 0);
        }
        let mean = (1.0 - p) / p;
        let sd = ((1.0 - p) / (p * p) / n as f64).sqrt();
        assert!(
            (sum / n as f64 - mean).abs() < 5.0 * sd,
            "p {p}: {}",
            sum / n as f64
        );
        let p0 = zeros as f64 / n as f64;
        assert!(
            (p0 - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt(),
            "p {p}: {p0}"
        );
    }
    assert_eq!(Geometric::new(1.0).draw(&mut rng), 0);
    assert_eq!(Geometric::new(0.0).draw(&mut rng), usize::MAX);
    assert_eq!(Geometric::new(f64::NAN).draw(&mut rng), usize::MAX);
}

#[test]
fn large_nodes_and_large_clusters_use_the_wide_form() {
    let params = GaParams {
        generations: 20,
        ..GaParams::default()
    };
    // 200 GPUs per node, and 70 nodes: both beyond the packed form.
    for (nn, g) in [(3usize, 200u32), (70, 4)] {
        let (js, _) = random_problem(6, 9);
        let base = vec![0u32; 6 * nn];
        let problem = Problem {
            jobs: &js,
            num_nodes: nn,
            gpus_per_node: g,
            base: &base,
        };
        let r = optimize(&problem, &mut Linear, &[], &params, &mut Rng::new(2));
        check_valid(&r.best, &js, nn, g);
        assert!(!r.front.is_empty());
        let total: u32 = r.best.iter().sum();
        assert!(total > 0);
    }
}

#[test]
fn warm_start_with_more_states_than_the_population() {
    let (js, base) = random_problem(8, 2);
    let problem = Problem {
        jobs: &js,
        num_nodes: 16,
        gpus_per_node: 4,
        base: &base,
    };
    let mut rng = Rng::new(4);
    let initial: Vec<Vec<u32>> = (0..150)
        .map(|_| (0..8 * 16).map(|_| rng.below(3) as u32).collect())
        .collect();
    let params = GaParams {
        population: 20,
        generations: 10,
        ..GaParams::default()
    };
    let r = optimize(&problem, &mut Linear, &initial, &params, &mut rng);
    check_valid(&r.best, &js, 16, 4);
    assert!(!r.front.is_empty() && r.front.len() <= 20);
    for s in &r.front {
        check_valid(s, &js, 16, 4);
    }
}

#[test]
fn survival_and_crowding_follow_pymoo() {
    // Front 0: (0,3), (1,1), (3,0) and a duplicate of (1,1); front 1: (2,2); front 2: (3,3).
    let f = [
        [1.0, 1.0],
        [0.0, 3.0],
        [2.0, 2.0],
        [3.0, 0.0],
        [1.0, 1.0],
        [3.0, 3.0],
    ];
    let mut rank = Vec::new();
    let mut crowd = Vec::new();
    let s = survive(&f, 6, &mut Rng::new(1), &mut rank, &mut crowd);
    assert_eq!(rank, vec![0, 0, 1, 0, 0, 2]);
    assert_eq!(s.len(), 6);
    assert_eq!(&s[4..], &[2, 5]);
    // Extremes infinite; (1,1): ((1-0)/3 + (3-1)/3 + (3-1)/3 + (1-0)/3) / 2 = 1; the
    // duplicate 0; fronts of one point infinite.
    assert_eq!(crowd[1], f64::INFINITY);
    assert_eq!(crowd[3], f64::INFINITY);
    assert!((crowd[0] - 1.0).abs() < 1e-12);
    assert_eq!(crowd[4], 0.0);
    assert_eq!(crowd[2], f64::INFINITY);
    // Cutting front 0 to 3 keeps the two extremes and the interior point.
    let s = survive(&f, 3, &mut Rng::new(2), &mut rank, &mut crowd);
    let mut s3 = s.clone();
    s3.sort_unstable();
    assert_eq!(s3, vec![0, 1, 3]);
    // Three copies of one point: all crowding 0 (pymoo's 0/0 rule).
    let f = [[1.0, 1.0]; 3];
    survive(&f, 3, &mut Rng::new(3), &mut rank, &mut crowd);
    assert_eq!(crowd, vec![0.0; 3]);
}

#[test]
fn sweep_fronts_match_a_quadratic_sort() {
    let mut rng = Rng::new(9);
    for _ in 0..200 {
        let m = 1 + rng.below(60) as usize;
        let f: Vec<[f64; 2]> = (0..m)
            .map(|_| [rng.below(6) as f64, rng.below(6) as f64])
            .collect();
        let mut rank = Vec::new();
        let mut crowd = Vec::new();
        survive(&f, m, &mut rng, &mut rank, &mut crowd);
        // Reference: peel off non-dominated sets.
        let mut left: Vec<usize> = (0..m).collect();
        let mut k = 0;
        while !left.is_empty() {
            let nd: Vec<usize> = left
                .iter()
                .copied()
                .filter(|&i| left.iter().all(|&j| relation(f[j], f[i]) != 1))
                .collect();
            for &i in &nd {
                assert_eq!(rank[i], k);
            }
            left.retain(|i| !nd.contains(i));
            k += 1;
        }
    }
}

/// CPU time of this thread (Linux), to measure on a busy machine.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Prints milliseconds per optimize() call at J = 10, 20, 40 on 16 nodes x 4 GPUs with
/// the default parameters. A chain of 40 calls, each warm-started from the previous
/// front and allocation as Pollux does, is recorded and then replayed five times; the
/// fastest replay counts (the machine may be shared).
/// Run with `cargo test --release -- --ignored --nocapture bench`.
#[test]
#[ignore]
fn bench_ms_per_call() {
    for nj in [10usize, 20, 40] {
        let (js, mut base) = random_problem(nj, 42);
        let fair = (64.0 / nj as f64).ceil();
        let mut sp = Concave {
            fair,
            calls: 0,
            memo: HashMap::new(),
        };
        let params = GaParams::default();
        let mut rng = Rng::new(5);
        let mut front: Vec<Vec<u32>> = Vec::new();
        let mut inputs = Vec::new();
        for _ in 0..40 {
            inputs.push((base.clone(), front.clone(), rng.clone()));
            let problem = Problem {
                jobs: &js,
                num_nodes: 16,
                gpus_per_node: 4,
                base: &base,
            };
            let r = optimize(&problem, &mut sp, &front, &params, &mut rng);
            base = r.best;
            front = r.front;
        }
        let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let c0 = thread_cpu_ns();
            for (b, f, r) in &inputs {
                let problem = Problem {
                    jobs: &js,
                    num_nodes: 16,
                    gpus_per_node: 4,
                    base: b,
                };
                let mut sp = Concave {
                    fair,
                    calls: 0,
                    memo: HashMap::new(),
                };
                optimize(&problem, &mut sp, f, &params, &mut r.clone());
            }
            wall = wall.min(t.elapsed().as_secs_f64() * 1e3 / inputs.len() as f64);
            if let (Some(a), Some(b)) = (c0, thread_cpu_ns()) {
                cpu = cpu.min((b - a) as f64 * 1e-6 / inputs.len() as f64);
            }
        }
        println!(
            "J = {nj}: {wall:.2} ms per call ({cpu:.2} ms CPU; final front {} states)",
            front.len()
        );
    }
}
