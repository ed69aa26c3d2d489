//! When each server fails: a seeded Poisson process per server, merged into one stream in
//! time order.
//!
//! Server `s` draws its gaps and causes from its own generator, made from the experiment's
//! seed and `s` alone, so its failures do not depend on how many other servers there are,
//! on the policy, or on how far other servers' streams have been read. A server fails
//! again only once it is back: its next gap is drawn from the end of its repair.
//!
//! In a GPU domain ([`super::Domain::Gpu`]) a failure whose cause is in the GPU category
//! also names the GPU of its server that failed, drawn uniformly from a generator of the
//! server's own apart from its gaps and causes, so the failures' times and causes are the
//! same in both domains.

use super::{Domain, FailureModel, GPU_CATEGORY};
use crate::rng::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One failure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Failure {
    /// When it happens (s).
    pub time: f64,
    /// The server that fails.
    pub server: u32,
    /// Index of its cause in the model's causes.
    pub cause: usize,
    /// When the server (or its GPU) is back (`time` plus the repair time).
    pub back_at: f64,
    /// In a GPU domain, the GPU of the server that failed (its index in the server), for a
    /// cause in the GPU category; None when the whole server fails.
    pub gpu: Option<u32>,
}

/// A GPU domain: per cause, whether it takes one GPU; per server, its GPUs and the
/// generator of its failed GPUs.
type GpuDomain = (Vec<bool>, Vec<(u32, Rng)>);

/// The failures of a cluster's servers, read in time order.
#[derive(Debug, Clone)]
pub struct Schedule {
    rate: f64,
    repair_s: f64,
    weights: Vec<f64>,
    rngs: Vec<Rng>,
    /// In a GPU domain: which causes take one GPU, and each server's GPUs.
    gpu_domain: Option<GpuDomain>,
    /// Next failure time (as ordered bits of a non-negative float) and server.
    next: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Schedule {
    /// The failures of `servers` servers under `model`, from the experiment's `seed`.
    pub fn new(model: &FailureModel, servers: u32, seed: u64) -> Self {
        let rate = model.per_server_s();
        let mut s = Schedule {
            rate,
            repair_s: model.repair_s,
            weights: model.causes().iter().map(|c| c.weight).collect(),
            rngs: Vec::new(),
            gpu_domain: None,
            next: BinaryHeap::new(),
        };
        if rate > 0.0 {
            s.rngs = (0..servers)
                .map(|i| Rng::for_purpose(seed, &format!("failures of server {i}")))
                .collect();
            for i in 0..servers {
                s.schedule(i, 0.0);
            }
        }
        s
    }

    /// The failures of servers of `gpus[s]` GPUs each under `model`, from the experiment's
    /// `seed`: in a GPU domain, a failure of a GPU cause names its GPU.
    pub fn with_gpus(model: &FailureModel, gpus: &[u32], seed: u64) -> Self {
        let mut s = Schedule::new(model, gpus.len() as u32, seed);
        if model.domain == Domain::Gpu {
            let takes_gpu = model
                .causes()
                .iter()
                .map(|c| c.category == GPU_CATEGORY)
                .collect();
            let per_server = gpus
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    (
                        n,
                        Rng::for_purpose(seed, &format!("failed GPUs of server {i}")),
                    )
                })
                .collect();
            s.gpu_domain = Some((takes_gpu, per_server));
        }
        s
    }

    /// Draws server `i`'s next failure after `from`.
    fn schedule(&mut self, i: u32, from: f64) {
        let gap = self.rngs[i as usize].exponential(self.rate);
        let t = from + gap;
        if t.is_finite() {
            self.next.push(Reverse((t.to_bits(), i)));
        }
    }

    /// When the next failure happens, if any.
    pub fn peek(&self) -> Option<f64> {
        self.next
            .peek()
            .map(|Reverse((bits, _))| f64::from_bits(*bits))
    }

    /// The next failure at or before `t`, if any (in time order, ties by server).
    pub fn next_until(&mut self, t: f64) -> Option<Failure> {
        let time = self.peek()?;
        if time > t {
            return None;
        }
        let Reverse((_, server)) = self.next.pop()?;
        let rng = &mut self.rngs[server as usize];
        let cause = rng.weighted(&self.weights);
        let back_at = time + self.repair_s;
        self.schedule(server, back_at);
        let gpu = self.gpu_domain.as_mut().and_then(|(takes, servers)| {
            let (n, rng) = servers.get_mut(server as usize)?;
            (takes.get(cause).copied().unwrap_or(false) && *n > 1)
                .then(|| rng.below(u64::from(*n)) as u32)
        });
        Some(Failure {
            time,
            server,
            cause,
            back_at,
            gpu,
        })
    }

    /// Every failure at or before `t` not read yet, in time order.
    pub fn until(&mut self, t: f64) -> Vec<Failure> {
        let mut out = Vec::new();
        while let Some(f) = self.next_until(t) {
            out.push(f);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::failure::{DAY_S, LLAMA3_RATE};

    #[test]
    fn llama3s_cluster_fails_about_419_times_in_54_days() {
        // 2,048 servers at 3.789 per 1,000 server-days for 54 days: Poisson(419). Over 40
        // seeds the mean is within 3 standard errors (3 x sqrt(419 / 40) = 9.7) and each
        // count within [340, 500] (about 4 standard deviations).
        let model = FailureModel::with_rate(LLAMA3_RATE);
        let mut total = 0usize;
        for seed in 0..40 {
            let n = Schedule::new(&model, 2048, seed).until(54.0 * DAY_S).len();
            assert!((340..=500).contains(&n), "seed {seed}: {n}");
            total += n;
        }
        let mean = total as f64 / 40.0;
        assert!((mean - 419.0).abs() < 9.7, "mean {mean}");
    }

    #[test]
    fn failures_come_in_time_order_and_do_not_depend_on_reading() {
        let mut model = FailureModel::with_rate(0.5);
        model.repair_s = 3600.0;
        let all = Schedule::new(&model, 16, 7).until(30.0 * DAY_S);
        assert!(all.windows(2).all(|w| w[0].time <= w[1].time));
        // Read in pieces, the same failures.
        let mut s = Schedule::new(&model, 16, 7);
        let mut pieces = Vec::new();
        for day in 1..=30 {
            pieces.extend(s.until(f64::from(day) * DAY_S));
        }
        assert_eq!(all, pieces);
        // A server fails again only after its repair.
        for srv in 0..16 {
            let times: Vec<&Failure> = all.iter().filter(|f| f.server == srv).collect();
            assert!(times.windows(2).all(|w| w[1].time >= w[0].back_at));
        }
        // More servers leave the first servers' failures as they were.
        let more = Schedule::new(&model, 32, 7).until(30.0 * DAY_S);
        let first: Vec<Failure> = more.into_iter().filter(|f| f.server < 16).collect();
        assert_eq!(first, all);
    }

    #[test]
    fn causes_follow_the_mix() {
        // Faulty GPU is 148 of 419 (35.3%).
        let model = FailureModel::with_rate(1.0);
        let all = Schedule::new(&model, 100, 3).until(100.0 * DAY_S);
        let faulty = all.iter().filter(|f| f.cause == 0).count() as f64;
        let share = faulty / all.len() as f64;
        assert!(all.len() > 9000, "{}", all.len());
        assert!((share - 148.0 / 419.0).abs() < 0.02, "{share}");
    }

    #[test]
    fn a_gpu_domain_names_a_gpu_for_gpu_causes_alone_and_keeps_the_failures() {
        let server = FailureModel::with_rate(1.0);
        let gpu = FailureModel {
            domain: Domain::Gpu,
            ..server.clone()
        };
        let sizes = vec![8u32; 100];
        let by_server = Schedule::with_gpus(&server, &sizes, 3).until(100.0 * DAY_S);
        let by_gpu = Schedule::with_gpus(&gpu, &sizes, 3).until(100.0 * DAY_S);
        // The same times, servers and causes.
        assert_eq!(by_server.len(), by_gpu.len());
        assert!(by_server
            .iter()
            .zip(&by_gpu)
            .all(
                |(a, b)| (a.time, a.server, a.cause) == (b.time, b.server, b.cause)
                    && a.gpu.is_none()
            ));
        // Llama 3's GPU causes (268 of its 419: Faulty GPU, HBM3, SRAM, ...) name a GPU of
        // the server, drawn uniformly; the others none.
        let causes = gpu.causes();
        let mut per_gpu = [0usize; 8];
        for f in &by_gpu {
            let takes = causes[f.cause].category == GPU_CATEGORY;
            assert_eq!(f.gpu.is_some(), takes, "{f:?}");
            if let Some(g) = f.gpu {
                per_gpu[g as usize] += 1;
            }
        }
        let n: usize = per_gpu.iter().sum();
        assert!(n > by_gpu.len() / 2, "{n} of {}", by_gpu.len());
        // Each GPU within 5 standard deviations of n / 8.
        let mean = n as f64 / 8.0;
        let sd = (n as f64 * (1.0 / 8.0) * (7.0 / 8.0)).sqrt();
        assert!(
            per_gpu.iter().all(|&c| (c as f64 - mean).abs() < 5.0 * sd),
            "{per_gpu:?}"
        );
    }

    #[test]
    fn no_rate_no_failures() {
        let mut s = Schedule::new(&FailureModel::with_rate(0.0), 8, 1);
        assert_eq!(s.peek(), None);
        assert!(s.until(1e12).is_empty());
    }
}
