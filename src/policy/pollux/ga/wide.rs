//! Wide states: one `u32` per entry, for nodes larger than the packed form holds.

use super::draws::cap_picks;
use super::engine::{Common, Engine, RowStat};
use super::table::{finish_hash, mix};
use super::{GaParams, Problem, Speedup};
use crate::rng::Rng;

/// States as J x N row-major u32.
pub(super) struct Wide<'s> {
    pub(super) c: Common<'s>,
    pub(super) base: Vec<u32>,
    // Scratch per node.
    used: Vec<u64>,
    seen: Vec<u8>,
}

impl<'s> Wide<'s> {
    /// Requires at least one job, node and GPU per node.
    pub(super) fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
        let c = Common::new(problem, speedup, params);
        let cells = c.jobs * c.nodes;
        let base = (0..cells)
            .map(|i| problem.base.get(i).copied().unwrap_or(0))
            .collect();
        Wide {
            base,
            used: vec![0; c.nodes],
            seen: vec![0; c.nodes],
            c,
        }
    }
}

impl Engine for Wide<'_> {
    type Unit = u32;

    fn units(&self) -> usize {
        self.c.jobs * self.c.nodes
    }

    fn row_units(&self) -> usize {
        self.c.nodes
    }

    fn load(&self, s: &[u32], out: &mut [u32]) {
        for (o, v) in out.iter_mut().zip(s.iter().chain(std::iter::repeat(&0))) {
            *o = *v;
        }
    }

    fn unload(&self, x: &[u32]) -> Vec<u32> {
        x.to_vec()
    }

    fn base(&self) -> &[u32] {
        &self.base
    }

    fn score(&mut self) -> [f64; 2] {
        self.c.score()
    }

    fn mutate(&mut self, x: &mut [u32], rng: &mut Rng) {
        let nn = self.c.nodes;
        // 1. Reset rows to the current allocation; 2. zero entries of marked rows.
        self.c.plan_mutation(rng);
        for &j in &self.c.resets {
            x[j * nn..(j + 1) * nn].copy_from_slice(&self.base[j * nn..(j + 1) * nn]);
        }
        for &(j, n) in &self.c.zeros {
            x[j * nn + n] = 0;
        }
        // 3. Grow entries on nodes with a free GPU (see `Packed::mutate`).
        self.used.fill(0);
        for row in x.chunks_exact(nn) {
            for (u, &v) in self.used.iter_mut().zip(row) {
                *u += u64::from(v);
            }
        }
        self.c.free.clear();
        for (n, &u) in self.used.iter().enumerate() {
            if u < self.c.gpus {
                self.c.free.push(n);
                self.c.holders[n] = 0;
            }
        }
        if self.c.free.is_empty() {
            return;
        }
        for row in x.chunks_exact(nn) {
            for &n in &self.c.free {
                self.c.holders[n] += u32::from(row[n] != 0);
            }
        }
        for row in x.chunks_exact_mut(nn) {
            for &n in &self.c.free {
                if row[n] != 0 && self.c.held_coin(n).flip(rng) {
                    row[n] = self.c.grow(u64::from(row[n]), rng) as u32;
                }
            }
        }
        let nf = self.c.free.len();
        let total = nf * self.c.jobs;
        let mut pos = self.c.gap.draw(rng);
        while pos < total {
            let (j, f) = (pos / nf, pos % nf);
            let i = j * nn + self.c.free[f];
            if x[i] == 0 {
                x[i] = self.c.grow(0, rng) as u32;
            }
            pos = pos.saturating_add(1).saturating_add(self.c.gap.draw(rng));
        }
    }

    fn repair(&mut self, x: &mut [u32], rng: &mut Rng) {
        let nn = self.c.nodes;
        // 1. One distributed job per node, with the quirk (see `Packed::repair`); `seen`
        //    counts distributed jobs per node so far, saturating at 2.
        self.seen.fill(0);
        for (row, sum) in x.chunks_exact_mut(nn).zip(self.c.sums.iter_mut()) {
            let distributed = row.iter().filter(|&&v| v != 0).count() > 1;
            let mut s = 0;
            for (v, c) in row.iter_mut().zip(self.seen.iter_mut()) {
                if distributed && *v != 0 {
                    *c = (*c + 1).min(2);
                }
                if *c >= 2 {
                    *v = 0;
                }
                s += u64::from(*v);
            }
            *sum = s;
        }
        // 2. Max replicas over a random node order.
        for (j, row) in x.chunks_exact_mut(nn).enumerate() {
            let cap = self.c.max_replicas[j];
            if self.c.sums[j] <= cap {
                continue;
            }
            self.c.picks.clear();
            self.c.picks.extend(
                row.iter()
                    .enumerate()
                    .filter(|(_, &v)| v != 0)
                    .map(|(n, &v)| (n, u64::from(v))),
            );
            cap_picks(&mut self.c.picks, cap, rng);
            for &(n, v) in &self.c.picks {
                row[n] = v as u32;
            }
        }
        // 3. Node capacity by job priority.
        self.used.fill(0);
        for (j, (row, brow)) in x
            .chunks_exact_mut(nn)
            .zip(self.base.chunks_exact(nn))
            .enumerate()
        {
            let (mut gpus, mut nodes, mut changed) = (0, 0, false);
            for ((v, u), &b) in row.iter_mut().zip(self.used.iter_mut()).zip(brow) {
                let t = u64::from(*v).min(self.c.gpus - *u);
                *u += t;
                *v = t as u32;
                gpus += t;
                nodes += u64::from(t > 0);
                changed |= *v != b;
            }
            self.c.stats[j] = RowStat {
                gpus,
                nodes,
                changed,
            };
        }
        self.c.stat_used_nodes = self.used.iter().filter(|&&u| u > 0).count();
    }

    fn hash(x: &[u32]) -> u64 {
        let mut h = [1u64, 2, 3, 4];
        let mut chunks = x.chunks_exact(8);
        for c in &mut chunks {
            for (lane, w) in h.iter_mut().zip(c.chunks_exact(2)) {
                *lane = mix(*lane, u64::from(w[0]) | (u64::from(w[1]) << 32));
            }
        }
        for (k, &v) in chunks.remainder().iter().enumerate() {
            h[k & 3] = mix(h[k & 3], u64::from(v) | (1 << 32));
        }
        finish_hash(h, x.len())
    }
}
