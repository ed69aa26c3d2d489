//! Random draws for the search: biased coins, uniform integers, geometric gaps between
//! successes of a run of coin flips, and shuffles.

use crate::rng::Rng;

/// A biased coin drawn with one 64-bit word.
#[derive(Debug, Clone, Copy)]
pub(super) struct Coin {
    always: bool,
    threshold: u64,
}

impl Coin {
    pub(super) fn new(p: f64) -> Self {
        if p >= 1.0 {
            Coin {
                always: true,
                threshold: 0,
            }
        } else if p > 0.0 {
            Coin {
                always: false,
                threshold: (p * 18_446_744_073_709_551_616.0) as u64,
            }
        } else {
            Coin {
                always: false,
                threshold: 0,
            }
        }
    }

    #[inline]
    pub(super) fn flip(self, rng: &mut Rng) -> bool {
        self.always || rng.next_u64() < self.threshold
    }
}

/// Uniform integer in [0, n) (Lemire's method; the modulo is computed only when needed).
#[inline]
pub(super) fn below(rng: &mut Rng, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        let t = n.wrapping_neg() % n;
        while (m as u64) < t {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

/// Number of failures before the first success of a coin with probability `p`: the gap to
/// the next success in a run of independent draws, so sparse successes cost one draw each.
#[derive(Debug, Clone)]
pub(super) enum Geometric {
    /// p <= 0: no success ever.
    Never,
    /// p >= 1: every draw succeeds.
    Always,
    /// Inversion of one 64-bit word by table (exact to 2^-64).
    Table(Box<GeometricTable>),
    /// Small p, where 64 failures are likely: inversion by logarithm, with 1 / ln(1 - p).
    Log(f64),
}

/// `cdf[k]` is P(gap <= k) scaled to 2^64 for gaps below 64; a word at or above the last
/// entry means "64 more failures, draw again" (the gap is memoryless). `bucket[b]` is the
/// range of entries that can fall among the words whose top byte is b, so most draws need
/// one lookup.
#[derive(Debug, Clone)]
pub(super) struct GeometricTable {
    cdf: [u64; 64],
    bucket: [(u8, u8); 256],
}

impl Geometric {
    pub(super) fn new(p: f64) -> Self {
        if p >= 1.0 {
            return Geometric::Always;
        }
        if p.is_nan() || p <= 0.0 {
            return Geometric::Never;
        }
        let log_q = crate::math::ln_1p(-p);
        if crate::math::exp(64.0 * log_q) > 0.5 {
            return Geometric::Log(1.0 / log_q);
        }
        let mut cdf = [0u64; 64];
        for (k, v) in cdf.iter_mut().enumerate() {
            // 1 - q^(k + 1), computed without cancellation.
            let c = -crate::math::exp_m1((k as f64 + 1.0) * log_q);
            *v = (c * 18_446_744_073_709_551_616.0) as u64;
        }
        let mut bucket = [(0u8, 0u8); 256];
        for (b, e) in bucket.iter_mut().enumerate() {
            let lo = (b as u64) << 56;
            let hi = lo | ((1 << 56) - 1);
            *e = (
                cdf.partition_point(|&c| c <= lo) as u8,
                cdf.partition_point(|&c| c <= hi) as u8,
            );
        }
        Geometric::Table(Box::new(GeometricTable { cdf, bucket }))
    }

    #[inline]
    pub(super) fn draw(&self, rng: &mut Rng) -> usize {
        match self {
            Geometric::Never => usize::MAX,
            Geometric::Always => 0,
            Geometric::Table(t) => {
                let mut gap = 0usize;
                loop {
                    let r = rng.next_u64();
                    // The number of entries <= r: all below the bucket's range are, none
                    // above it is.
                    let (lo, hi) = t.bucket[(r >> 56) as usize];
                    let mut k = usize::from(lo);
                    while k < usize::from(hi) && t.cdf[k & 63] <= r {
                        k += 1;
                    }
                    if k < 64 {
                        return gap + k;
                    }
                    gap += 64;
                }
            }
            Geometric::Log(inv) => {
                // u in (0, 1]: ln(u) <= 0 and inv < 0, so the quotient is >= 0 and the
                // conversion truncates it like floor (saturating for huge values).
                let u = 1.0 - rng.uniform();
                (crate::math::ln(u) * inv) as usize
            }
        }
    }
}

/// Repair step 2 for one row over its nonzero entries `picks` (node, GPUs) in node order:
/// visit them in a uniformly random order, keeping GPUs until `cap` is reached. Only the
/// order until the cap is reached matters, so the permutation is drawn one node at a time
/// (forward Fisher-Yates) and stops there. Rewrites the GPU counts.
pub(super) fn cap_picks(picks: &mut [(usize, u64)], cap: u64, rng: &mut Rng) {
    let k = picks.len();
    let mut left = cap;
    for i in 0..k {
        if left == 0 {
            for p in &mut picks[i..] {
                p.1 = 0;
            }
            break;
        }
        let r = i + below(rng, (k - i) as u64) as usize;
        picks.swap(i, r);
        let t = picks[i].1.min(left);
        picks[i].1 = t;
        left -= t;
    }
}

/// Fisher-Yates shuffle with [`below`].
pub(super) fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
}
