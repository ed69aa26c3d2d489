//! One row of Sia's goodput matrix: a job's goodput in every configuration, normalised,
//! discounted for restarts and turned into the integer program's costs.
//!
//! As Sia's artifact computes it:
//! - on a type where the job has a throughput model (fitted to the step times it saw
//!   there), the goodput of `gpus` GPUs over `nodes` servers is the best over batch sizes
//!   up to the job's own batch (its trace's) of Pollux's goodput;
//! - on a type it has not run on, with projection, the goodput of the first type it has a
//!   model for (types in name order) at the same GPU count (on that type's servers), times
//!   the ratio of the two types' single-GPU speeds from the profile; without projection,
//!   one GPU at goodput 1;
//! - a job that has run nowhere is offered one GPU on every type, at goodput 1;
//! - a configuration of more GPUs than the job may have is worth 1e-4: at most twice the
//!   most GPUs it has run on (on that type, or with shared limits on any type), at most
//!   the cluster's GPUs and its largest batch over its smallest per-GPU batch;
//! - the row is divided by its smallest entry above 1e-4 (entries at or below become 1e-4);
//! - a job holding a configuration has every other entry multiplied by its restart factor
//!   `max(age - restarts * delay, 0) / (age + delay)` (1 while younger than its delay);
//! - the cost of a configuration is `min(round(goodput^p, 2), 3000)`.
//!
//! A rigid job ([`crate::workload::as_elastic`]) is offered its own GPU count on every type
//! it has a throughput on, at that throughput.

use super::layout::Layout;
use crate::model::goodput::{BatchSizes, GoodputFunction, PerfParams};
use crate::sim::elastic::contract::{ElasticJobView, ElasticView};

/// Settings of the matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowParams {
    /// The exponent of the costs (negative).
    pub p: f64,
    /// Project goodput onto types a job has not run on.
    pub project: bool,
    /// One GPU limit for all types: the largest of the per-type limits.
    pub share_max_replicas: bool,
}

/// Goodput of an unusable configuration.
pub const FLOOR: f64 = 1e-4;

/// Largest cost.
pub const MAX_COST: f64 = 3000.0;

/// The job's model and step times seen on type `t`.
fn model_on<'a>(
    j: &'a ElasticJobView,
    t: usize,
) -> (Option<PerfParams>, &'a [crate::model::goodput::Observation]) {
    let st = j.state;
    if st.type_models.is_empty() {
        // One GPU type: the one model.
        (st.perf, &st.observations)
    } else {
        match st.type_models.get(t) {
            Some((obs, perf)) => (*perf, obs),
            None => (None, &[]),
        }
    }
}

/// The name the job's application keeps its speeds of type `t` under.
fn key<'a>(j: &ElasticJobView, view: &'a ElasticView, t: usize) -> Option<&'a str> {
    let name = view.gpu_types.get(t)?;
    j.app.knows_type(name).then_some(name.as_str())
}

/// The job's goodput in every configuration of `layout` (before normalisation; 0 where it
/// is not offered).
pub fn goodputs(
    j: &ElasticJobView,
    view: &ElasticView,
    layout: &Layout,
    rp: &RowParams,
) -> Vec<f64> {
    let app = j.app;
    let types = view.gpu_types.len();
    if let Some(r) = app.rigid() {
        return layout
            .configs
            .iter()
            .map(|c| {
                let rate = view.gpu_types.get(c.ty).map_or(0.0, |n| r.rate(n));
                if c.gpus == r.gpus {
                    rate
                } else {
                    0.0
                }
            })
            .collect();
    }
    let total: u32 = layout.capacity.iter().sum();
    let by_batch = app.max_batch_size / app.min_local_bsz.max(1);
    let mut limit: Vec<u32> = (0..types)
        .map(|t| {
            let seen = model_on(j, t)
                .1
                .iter()
                .map(|o| o.replicas)
                .max()
                .unwrap_or(0);
            (2 * seen).max(1).min(total).min(by_batch.max(1))
        })
        .collect();
    if rp.share_max_replicas {
        let m = limit.iter().copied().max().unwrap_or(1);
        limit.iter_mut().for_each(|l| *l = m);
    }
    let init = f64::from(app.init_batch_size);
    let max_b = f64::from(app.max_batch_size);
    let cap = j.spec.batch_size.map_or(max_b, |b| f64::from(b).min(max_b));
    let funcs: Vec<Option<GoodputFunction>> = (0..types)
        .map(|t| {
            model_on(j, t)
                .0
                .map(|perf| GoodputFunction::new(perf, j.state.grad, init))
        })
        .collect();
    // The job's configurations share their candidate batch sizes where their bounds agree.
    let mut sizes = BatchSizes::default();
    let mut best = |t: usize, nodes: u32, gpus: u32| -> f64 {
        let Some(g) = &funcs[t] else { return 0.0 };
        let range = app.local_range(key(j, view, t));
        g.optimize_with(nodes, gpus, cap, range, true, &mut sizes)
            .goodput
    };
    let source = funcs.iter().position(Option::is_some);
    layout
        .configs
        .iter()
        .map(|c| {
            if c.gpus > limit.get(c.ty).copied().unwrap_or(0) {
                return 0.0;
            }
            if funcs[c.ty].is_some() {
                return best(c.ty, c.nodes, c.gpus);
            }
            match source {
                Some(s) if rp.project => {
                    let size = layout.server_size[s].max(1);
                    let g = best(s, c.gpus.div_ceil(size), c.gpus);
                    let to = app.single_gpu_speed(key(j, view, c.ty));
                    let from = app.single_gpu_speed(key(j, view, s));
                    match (to, from) {
                        (Some(a), Some(b)) => g * a / b,
                        _ => 0.0,
                    }
                }
                _ => {
                    if c.gpus == 1 {
                        1.0
                    } else {
                        0.0
                    }
                }
            }
        })
        .collect()
}

/// Python's `round(x, 2)` on the values the matrix holds.
fn round2(x: f64) -> f64 {
    (x * 100.0).round_ties_even() / 100.0
}

/// The job's costs in every configuration (see the module docs): `goodputs` normalised,
/// the restart factor `restart` on every configuration but `current`, then
/// `min(round(g^p, 2), 3000)`.
pub fn costs(goodputs: &[f64], current: Option<usize>, restart: f64, p: f64) -> Vec<f64> {
    let min = goodputs
        .iter()
        .copied()
        .filter(|&g| g > FLOOR)
        .fold(f64::INFINITY, f64::min);
    goodputs
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let mut g = if g > FLOOR && min.is_finite() {
                g / min
            } else {
                FLOOR
            };
            if g <= FLOOR {
                g = FLOOR;
            }
            if current.is_some_and(|c| c != i) {
                g *= restart;
            }
            let a = if g > 0.0 {
                round2(crate::math::powf(g, p))
            } else {
                MAX_COST
            };
            if a.is_finite() {
                a.min(MAX_COST)
            } else {
                MAX_COST
            }
        })
        .collect()
}

/// Sia's estimate of a restart of an application, in seconds, measured on a physical
/// cluster (Sia's `get_restart_penalty`, which matches the application's name by
/// substring, in this order): deepspeech 25, imagenet 250, cifar 30, bert 120, yolov3 45,
/// any other 30.
pub fn measured_penalty(app: &str) -> f64 {
    const TABLE: [(&str, f64); 5] = [
        ("deepspeech", 25.0),
        ("imagenet", 250.0),
        ("cifar", 30.0),
        ("bert", 120.0),
        ("yolov3", 45.0),
    ];
    TABLE
        .iter()
        .find(|(name, _)| app.contains(name))
        .map_or(30.0, |&(_, s)| s)
}

/// Sia's restart factor of a job `age` seconds old restarted `restarts` times, each
/// costing `delay` seconds.
pub fn restart_factor(age: f64, restarts: u32, delay: f64) -> f64 {
    if age < delay {
        1.0
    } else {
        (age - f64::from(restarts) * delay).max(0.0) / (age + delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_penalties_follow_sias_table() {
        assert_eq!(measured_penalty("cifar10"), 30.0);
        assert_eq!(measured_penalty("yolov3"), 45.0);
        assert_eq!(measured_penalty("imagenet"), 250.0);
        assert_eq!(measured_penalty("deepspeech2"), 25.0);
        assert_eq!(measured_penalty("bert"), 120.0);
        assert_eq!(measured_penalty("ncf"), 30.0);
    }

    #[test]
    fn costs_normalise_discount_and_round() {
        // Goodputs 2, 4 and 8 (and an unusable configuration): normalised 1, 2, 4; costs
        // 1, 0.71, 0.5 at p = -0.5; the unusable one costs 1e-4^-0.5 = 100.
        let a = costs(&[2.0, 4.0, 8.0, 0.0], None, 1.0, -0.5);
        assert_eq!(a, [1.0, 0.71, 0.5, 100.0]);
        // Holding the second, a job with restart factor 0.25 sees the others at a quarter:
        // 0.25 -> 2.0, 1.0 -> 1.0 (its own 2 stays 0.71).
        let a = costs(&[2.0, 4.0, 8.0, 0.0], Some(1), 0.25, -0.5);
        assert_eq!(a, [2.0, 0.71, 1.0, 200.0]);
        // Nothing usable: every entry at the floor.
        assert_eq!(costs(&[0.0, 0.0], None, 1.0, -0.5), [100.0, 100.0]);
        assert_eq!(restart_factor(10.0, 0, 30.0), 1.0);
        assert!((restart_factor(90.0, 1, 30.0) - 0.5).abs() < 1e-12);
        assert_eq!(restart_factor(90.0, 5, 30.0), 0.0);
    }
}
