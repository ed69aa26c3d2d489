//! Packed states: one byte per node, eight nodes per `u64`, with mutation and repair on
//! whole words.

use super::draws::cap_picks;
use super::engine::{Common, Engine, RowStat};
use super::table::hash_words;
use super::{GaParams, Problem, Speedup};
use crate::rng::Rng;

/// Entries fit in 7 bits, so byte-wise arithmetic on a u64 never carries across bytes.
pub(super) const PACKED_MAX: u32 = 127;
/// Most nodes of the packed form (8 words per row).
pub(super) const PACKED_NODES: usize = 64;
const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const EVEN: u64 = 0x00FF_00FF_00FF_00FF;
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH16: u64 = 0x8000_8000_8000_8000;

/// High bit set in each nonzero byte.
#[inline(always)]
fn nonzero_bytes(w: u64) -> u64 {
    w.wrapping_add(LOW7) & HIGH
}

/// 0xFF in each byte whose high bit is set in `m`.
#[inline(always)]
pub(super) fn spread(m: u64) -> u64 {
    (m >> 7).wrapping_mul(0xFF)
}

/// Byte-wise minimum.
#[inline(always)]
fn min_bytes(x: u64, y: u64) -> u64 {
    // Each byte of (x | 0x80) - y is 128 + x - y > 0, so no borrows; its high bit says x >= y.
    let ge = spread((x | HIGH).wrapping_sub(y) & HIGH);
    (y & ge) | (x & !ge)
}

/// The bytes of `w` added pairwise into four 16-bit lanes; lanes of a row's words (at most
/// 8 * 2 * 127 each) can be added before [`reduce_lanes`].
#[inline(always)]
pub(super) fn lanes(w: u64) -> u64 {
    (w & EVEN) + ((w >> 8) & EVEN)
}

/// Sum of the four 16-bit lanes of `s`.
#[inline(always)]
fn reduce_lanes(s: u64) -> u64 {
    s.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// Sum of the bytes of `s` (marks counted over a row's words, so at most 64).
#[inline(always)]
fn reduce_bytes(s: u64) -> u64 {
    s.wrapping_mul(ONES) >> 56
}

/// Node of the lowest marked byte of word `k`.
#[inline(always)]
fn node_of(k: usize, bits: u64) -> usize {
    k * 8 + bits.trailing_zeros() as usize / 8
}

/// States as `W` u64 per job row, node n in byte n % 8 of word n / 8; bytes past the last
/// node are always 0. `W` is a compile-time constant so the per-row loops unroll and the
/// per-node running totals stay in registers.
pub(super) struct Packed<'s, const W: usize> {
    pub(super) c: Common<'s>,
    pub(super) base: Vec<u64>,
    /// Every node's byte set to gpus_per_node.
    full: [u64; W],
}

impl<'s, const W: usize> Packed<'s, W> {
    /// Requires at least one job, node and GPU per node, every value <= [`PACKED_MAX`],
    /// and at most 8 W nodes.
    pub(super) fn new(problem: &Problem, speedup: &'s mut dyn Speedup, params: &GaParams) -> Self {
        let c = Common::new(problem, speedup, params);
        let mut full = [0u64; W];
        for n in 0..c.nodes {
            Self::set(&mut full, n, c.gpus);
        }
        let mut p = Packed {
            base: Vec::new(),
            full,
            c,
        };
        let cells = p.c.jobs * p.c.nodes;
        let b: Vec<u32> = (0..cells)
            .map(|i| problem.base.get(i).copied().unwrap_or(0))
            .collect();
        let mut base = vec![0; p.units()];
        p.load(&b, &mut base);
        p.base = base;
        p
    }

    #[inline(always)]
    pub(super) fn get(row: &[u64], n: usize) -> u64 {
        row.get(n / 8).map_or(0, |w| (w >> (8 * (n % 8))) & 0xFF)
    }

    #[inline(always)]
    pub(super) fn set(row: &mut [u64], n: usize, v: u64) {
        if let Some(w) = row.get_mut(n / 8) {
            let sh = 8 * (n % 8);
            *w = (*w & !(0xFF << sh)) | ((v & 0xFF) << sh);
        }
    }
}

impl<const W: usize> Engine for Packed<'_, W> {
    type Unit = u64;

    fn units(&self) -> usize {
        W * self.c.jobs
    }

    fn row_units(&self) -> usize {
        W
    }

    fn load(&self, s: &[u32], out: &mut [u64]) {
        out.fill(0);
        let nn = self.c.nodes;
        for (j, row) in out.chunks_exact_mut(W).enumerate() {
            for n in 0..nn {
                let v = s.get(j * nn + n).copied().unwrap_or(0).min(PACKED_MAX);
                Self::set(row, n, u64::from(v));
            }
        }
    }

    fn unload(&self, x: &[u64]) -> Vec<u32> {
        let nn = self.c.nodes;
        let mut out = Vec::with_capacity(self.c.jobs * nn);
        for row in x.chunks_exact(W) {
            out.extend((0..nn).map(|n| Self::get(row, n) as u32));
        }
        out
    }

    fn base(&self) -> &[u64] {
        &self.base
    }

    fn score(&mut self) -> [f64; 2] {
        self.c.score()
    }

    fn mutate(&mut self, x: &mut [u64], rng: &mut Rng) {
        let nj = self.c.jobs;
        let (rows, _) = x.as_chunks_mut::<W>();
        let (base, _) = self.base.as_chunks::<W>();
        // 1. With probability reset_prob per job, go back to the current allocation.
        // 2. With probability mark_prob per job, mark the row; zero each entry of a marked
        //    row with probability zero_prob.
        self.c.plan_mutation(rng);
        for &j in &self.c.resets {
            if let (Some(row), Some(b)) = (rows.get_mut(j), base.get(j)) {
                *row = *b;
            }
        }
        for &(j, n) in &self.c.zeros {
            if let Some(row) = rows.get_mut(j) {
                Self::set(row, n, 0);
            }
        }
        // 3. On nodes with a free GPU, replace entries by U{current..gpus_per_node} with
        //    probability 1/J, or 1/J + 1/k - 1/(J k) if the job is one of the k jobs on the
        //    node. Probabilities are fixed before any entry changes.
        let mut free = [0u64; W];
        let mut count = [0u64; W];
        if nj <= 255 {
            // GPUs per node in 16-bit lanes (even and odd bytes; at most 255 * 127 < 2^15)
            // and jobs per node byte-wise; a node is free where its total is below g.
            let mut even = [0u64; W];
            let mut odd = [0u64; W];
            for row in rows.iter() {
                for k in 0..W {
                    even[k] += row[k] & EVEN;
                    odd[k] += (row[k] >> 8) & EVEN;
                    count[k] += nonzero_bytes(row[k]) >> 7;
                }
            }
            for k in 0..W {
                let f = self.full[k];
                let full_even = (even[k] | HIGH16).wrapping_sub(f & EVEN) & HIGH16;
                let full_odd = (odd[k] | HIGH16).wrapping_sub((f >> 8) & EVEN) & HIGH16;
                free[k] = !((full_even >> 8) | full_odd) & nonzero_bytes(f);
            }
        } else {
            // Free GPUs per node, floored at 0.
            let mut room = self.full;
            for row in rows.iter() {
                for k in 0..W {
                    room[k] -= min_bytes(room[k], row[k]);
                }
            }
            for k in 0..W {
                free[k] = nonzero_bytes(room[k]);
            }
        }
        self.c.free.clear();
        for (k, &m) in free.iter().enumerate() {
            let mut bits = m;
            while bits != 0 {
                self.c.free.push(node_of(k, bits));
                bits &= bits - 1;
            }
        }
        if self.c.free.is_empty() {
            return;
        }
        if nj <= 255 {
            for &n in &self.c.free {
                self.c.holders[n] = Self::get(&count, n) as u32;
            }
        } else {
            for &n in &self.c.free {
                self.c.holders[n] = 0;
            }
            for row in rows.iter() {
                for k in 0..W {
                    let mut bits = nonzero_bytes(row[k]) & free[k];
                    while bits != 0 {
                        self.c.holders[node_of(k, bits)] += 1;
                        bits &= bits - 1;
                    }
                }
            }
        }
        // Entries already held: one draw each with their combined probability.
        for row in rows.iter_mut() {
            for k in 0..W {
                let mut bits = nonzero_bytes(row[k]) & free[k];
                while bits != 0 {
                    let n = node_of(k, bits);
                    bits &= bits - 1;
                    if self.c.held_coin(n).flip(rng) {
                        let nv = self.c.grow(Self::get(row, n), rng);
                        Self::set(row, n, nv);
                    }
                }
            }
        }
        // Empty entries: probability 1/J each. Enumerate the entries of the free nodes row by
        // row and jump between successes with geometric gaps; successes on held entries are
        // ignored (decided above). Held entries stay nonzero and each empty one is visited
        // at most once, so "nonzero" still means "held" here.
        let nf = self.c.free.len();
        let total = nf * nj;
        let mut pos = self.c.gap.draw(rng);
        while pos < total {
            let n = self.c.free[pos % nf];
            if let Some(row) = rows.get_mut(pos / nf) {
                if Self::get(row, n) == 0 {
                    let nv = self.c.grow(0, rng);
                    Self::set(row, n, nv);
                }
            }
            pos = pos.saturating_add(1).saturating_add(self.c.gap.draw(rng));
        }
    }

    fn repair(&mut self, x: &mut [u64], rng: &mut Rng) {
        let (rows, _) = x.as_chunks_mut::<W>();
        let (base, _) = self.base.as_chunks::<W>();
        // The three steps run row by row in a single pass. Steps 1 and 3 look only at
        // earlier rows and step 2 only at the row itself; step 1 looks at rows as they were
        // before any step, which each row still is when it is reached.
        //
        // `seen` marks nodes with a distributed job so far; `keep` is 0xFF on nodes with
        // fewer than two, 0 elsewhere; `room` is the GPUs still free on each node.
        let mut seen = [0u64; W];
        let mut keep = [u64::MAX; W];
        let mut room = self.full;
        for (((row, brow), &cap), st) in rows
            .iter_mut()
            .zip(base.iter())
            .zip(self.c.max_replicas.iter())
            .zip(self.c.stats.iter_mut())
        {
            // 1. A job is distributed if it is on more than one node. On each node, from
            //    the second distributed job on it onwards, every job's entry is zeroed,
            //    distributed or not (pymoo's cumsum-over-jobs mask).
            let mut on = 0;
            for v in row.iter() {
                on += nonzero_bytes(*v) >> 7;
            }
            if reduce_bytes(on) > 1 {
                for k in 0..W {
                    let inc = nonzero_bytes(row[k]);
                    keep[k] &= !spread(seen[k] & inc);
                    seen[k] |= inc;
                }
            }
            let mut acc = 0;
            for k in 0..W {
                row[k] &= keep[k];
                acc += lanes(row[k]);
            }
            let mut sum = reduce_lanes(acc);
            // 2. Keep at most max_replicas GPUs, filling the job's nodes in a random order.
            if sum > cap {
                self.c.picks.clear();
                for (k, &v) in row.iter().enumerate() {
                    let mut bits = nonzero_bytes(v);
                    while bits != 0 {
                        let n = node_of(k, bits);
                        bits &= bits - 1;
                        self.c.picks.push((n, Self::get(row, n)));
                    }
                }
                cap_picks(&mut self.c.picks, cap, rng);
                for &(n, v) in &self.c.picks {
                    Self::set(row, n, v);
                }
                sum = cap;
            }
            // 3. Node capacity: walking jobs in priority order, each gets what is still
            //    free. Also the statistics the objectives need.
            let (mut cut, mut on, mut diff) = (0, 0, 0);
            for k in 0..W {
                let t = min_bytes(row[k], room[k]);
                cut |= t ^ row[k];
                room[k] -= t;
                row[k] = t;
                on += nonzero_bytes(t) >> 7;
                diff |= t ^ brow[k];
            }
            *st = RowStat {
                gpus: if cut == 0 {
                    sum
                } else {
                    reduce_lanes(row.iter().map(|&v| lanes(v)).sum())
                },
                nodes: reduce_bytes(on),
                changed: diff != 0,
            };
        }
        let used = room
            .iter()
            .zip(&self.full)
            .map(|(&r, &f)| nonzero_bytes(f - r) >> 7)
            .sum();
        self.c.stat_used_nodes = reduce_bytes(used) as usize;
    }

    fn hash(x: &[u64]) -> u64 {
        hash_words(x)
    }
}
