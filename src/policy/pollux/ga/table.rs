//! States' hashes and the open-addressing set that finds duplicate offspring.

/// Final mixing of a state hash (SplitMix64's finaliser).
pub(super) fn finish_hash(lanes: [u64; 4], len: usize) -> u64 {
    let mut h = lanes[0]
        ^ lanes[1].rotate_left(17)
        ^ lanes[2].rotate_left(31)
        ^ lanes[3].rotate_left(47)
        ^ len as u64;
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

#[inline]
pub(super) fn mix(lane: u64, w: u64) -> u64 {
    (lane ^ w)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
}

/// Hash of a state stored as 64-bit words, in four independent streams so that the
/// multiplications overlap.
pub(super) fn hash_words(x: &[u64]) -> u64 {
    let mut h = [1u64, 2, 3, 4];
    let (chunks, rest) = x.as_chunks::<4>();
    for c in chunks {
        for k in 0..4 {
            h[k] = mix(h[k], c[k]);
        }
    }
    for (k, &v) in rest.iter().enumerate() {
        h[k] = mix(h[k], v);
    }
    finish_hash(h, x.len())
}

/// Open-addressing set of states stored elsewhere (by slot index), for duplicate elimination.
pub(super) struct Table {
    slots: Vec<u32>,
    mask: usize,
}

const EMPTY: u32 = u32::MAX;

impl Table {
    pub(super) fn new() -> Self {
        Table {
            slots: Vec::new(),
            mask: 0,
        }
    }

    /// Empty the set, sized for up to `n` members.
    pub(super) fn reset(&mut self, n: usize) {
        let size = n
            .saturating_mul(2)
            .saturating_add(2)
            .checked_next_power_of_two()
            .unwrap_or(usize::MAX / 2 + 1)
            .max(16);
        self.slots.clear();
        self.slots.resize(size, EMPTY);
        self.mask = size - 1;
    }

    /// Insert `x` (hash `h`) as member `idx` unless an equal state is already a member;
    /// true if inserted. Member i's state is `pool[i * units..]` and its hash `hashes[i]`.
    pub(super) fn insert<U: Eq>(
        &mut self,
        h: u64,
        x: &[U],
        pool: &[U],
        hashes: &[u64],
        units: usize,
        idx: usize,
    ) -> bool {
        let mut i = (h as usize) & self.mask;
        for _ in 0..self.slots.len() {
            let s = self.slots[i];
            if s == EMPTY {
                self.slots[i] = idx as u32;
                return true;
            }
            let s = s as usize;
            if hashes.get(s) == Some(&h)
                && pool
                    .get(s * units..(s + 1) * units)
                    .is_some_and(|m| same(m, x))
            {
                return false;
            }
            i = (i + 1) & self.mask;
        }
        // Full table (never happens at the sizes reset() chooses): treat as new.
        true
    }
}

/// Slice equality element by element: for the states' words this is a word compare where
/// `==` on slices calls `memcmp`, which the WebAssembly module has only byte by byte.
fn same<U: Eq>(a: &[U], b: &[U]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}
