//! A placement's GPU ids ([`GpuIds`]): up to eight inline, so that placing a small job
//! allocates nothing; longer lists shared, so that a job keeping its GPUs from round to
//! round neither copies its list nor compares it id by id (a 16,384-GPU gang's list is
//! 64 KB, and its copy and two comparisons were most of a round).
//!
//! Hand-written rather than a small-vector crate's type because the sharing is the point:
//! a clone of a long list is the same allocation, and equality checks that first.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::Deref;
use std::sync::Arc;

/// Lists this long or shorter are held inline.
const INLINE: usize = 8;

/// GPU ids within one type, in the order given (placements keep them sorted). Derefs to
/// a slice; serialised as a list.
#[derive(Clone)]
pub struct GpuIds(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, ids: [u32; INLINE] },
    Shared(Arc<[u32]>),
}

impl GpuIds {
    /// The empty list.
    pub const fn new() -> Self {
        GpuIds(Repr::Inline {
            len: 0,
            ids: [0; INLINE],
        })
    }

    /// The ids as a slice.
    pub fn as_slice(&self) -> &[u32] {
        match &self.0 {
            Repr::Inline { len, ids } => &ids[..usize::from(*len)],
            Repr::Shared(ids) => ids,
        }
    }
}

impl Default for GpuIds {
    fn default() -> Self {
        GpuIds::new()
    }
}

impl Deref for GpuIds {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a GpuIds {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl From<&[u32]> for GpuIds {
    fn from(ids: &[u32]) -> Self {
        if ids.len() <= INLINE {
            let mut inline = [0; INLINE];
            inline[..ids.len()].copy_from_slice(ids);
            GpuIds(Repr::Inline {
                len: ids.len() as u8,
                ids: inline,
            })
        } else {
            GpuIds(Repr::Shared(Arc::from(ids)))
        }
    }
}

impl From<Vec<u32>> for GpuIds {
    fn from(ids: Vec<u32>) -> Self {
        if ids.len() <= INLINE {
            GpuIds::from(ids.as_slice())
        } else {
            GpuIds(Repr::Shared(Arc::from(ids)))
        }
    }
}

impl FromIterator<u32> for GpuIds {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let mut ids = [0; INLINE];
        let mut len = 0;
        while len < INLINE {
            match iter.next() {
                Some(g) => ids[len] = g,
                None => {
                    return GpuIds(Repr::Inline {
                        len: len as u8,
                        ids,
                    })
                }
            }
            len += 1;
        }
        match iter.next() {
            None => GpuIds(Repr::Inline {
                len: INLINE as u8,
                ids,
            }),
            Some(g) => {
                let mut all = Vec::with_capacity(2 * INLINE + iter.size_hint().0);
                all.extend_from_slice(&ids);
                all.push(g);
                all.extend(iter);
                GpuIds::from(all)
            }
        }
    }
}

impl PartialEq for GpuIds {
    fn eq(&self, other: &Self) -> bool {
        if let (Repr::Shared(a), Repr::Shared(b)) = (&self.0, &other.0) {
            if Arc::ptr_eq(a, b) {
                return true;
            }
        }
        same_gpus(self, other)
    }
}

impl Eq for GpuIds {}

impl std::fmt::Debug for GpuIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for GpuIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for GpuIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<u32>::deserialize(d).map(GpuIds::from)
    }
}

/// Whether two GPU lists are equal. Slice equality calls `memcmp`, which the WebAssembly
/// module has only as a byte-by-byte loop: long lists are compared by [`same_long`].
fn same_gpus(a: &[u32], b: &[u32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() < 64 {
        return a == b;
    }
    same_long(a, b)
}

/// [`same_gpus`] for two long lists of one length: blocks of 16 ids compared without an early
/// exit inside a block, which compiles to vector instructions. Kept out of its callers: with
/// the vector code inlined into the rounds' functions, a link's first results in the page came
/// about 250 ms later (the `gavel` scenario, three alternations).
#[inline(never)]
fn same_long(a: &[u32], b: &[u32]) -> bool {
    let (blocks_a, rest_a) = a.as_chunks::<16>();
    let (blocks_b, rest_b) = b.as_chunks::<16>();
    for (x, y) in blocks_a.iter().zip(blocks_b) {
        let mut differ = 0;
        for k in 0..16 {
            differ |= x[k] ^ y[k];
        }
        if differ != 0 {
            return false;
        }
    }
    rest_a.iter().zip(rest_b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_is_slice_equality() {
        let mut rng = crate::rng::Rng::new(3);
        for len in 0..70u32 {
            let a: Vec<u32> = (0..len).map(|i| i * 3 + 1).collect();
            let ids = GpuIds::from(a.as_slice());
            assert_eq!(ids.as_slice(), a.as_slice());
            assert_eq!(ids, a.iter().copied().collect::<GpuIds>());
            assert_eq!(ids, ids.clone());
            assert!(same_gpus(&a, &a.clone()));
            assert!(!same_gpus(&a, &a[..a.len().saturating_sub(1)]) || a.is_empty());
            for _ in 0..8 {
                if len == 0 {
                    break;
                }
                let mut b = a.clone();
                let at = (rng.next_u64() % u64::from(len)) as usize;
                b[at] ^= 1 << (rng.next_u64() % 32);
                assert!(!same_gpus(&a, &b), "{len} {at}");
                assert_eq!(same_gpus(&a, &b), a == b);
                assert_ne!(ids, GpuIds::from(b));
            }
        }
    }

    #[test]
    fn long_lists_are_shared_and_every_list_serialises_as_a_list() {
        let long: GpuIds = (0..100).collect();
        let copy = long.clone();
        match (&long.0, &copy.0) {
            (Repr::Shared(a), Repr::Shared(b)) => assert!(Arc::ptr_eq(a, b)),
            _ => panic!("a long list is shared"),
        }
        for ids in [GpuIds::new(), (5..9).collect(), (0..9).collect(), long] {
            let text = serde_json::to_string(&ids).unwrap();
            assert_eq!(text, serde_json::to_string(ids.as_slice()).unwrap());
            let back: GpuIds = serde_json::from_str(&text).unwrap();
            assert_eq!(back, ids);
        }
    }
}
