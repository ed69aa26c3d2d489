//! Stable sorting through one compiled sort.
//!
//! The standard library's `sort_by` is generic over its comparator, so every call site with
//! its own closure compiles its own copy of the whole sort (about 7 KB of WebAssembly each):
//! the page's module carried 52 of them, 0.39 MB of its 2.7 MB. These functions sort an
//! index permutation with one non-generic instance of the standard sort, calling the
//! caller's comparator through a `dyn` reference, and then move the elements into place.
//! The result is exactly the standard library's: a stable sort's output is determined by
//! the comparator alone, whatever algorithm produces it.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`; the same result as `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        order_by(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, order);
}

/// Sorts `v` stably by the key `key`; the same result as `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in ascending order; the same result as `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts floats stably by [`f64::total_cmp`].
pub fn sort_floats(v: &mut [f64]) {
    sort_by(v, f64::total_cmp);
}

/// The positions `0..n` in the order `cmp` sorts them, ties in position order.
#[allow(clippy::disallowed_methods)]
fn order_by(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges `v` so that its element `i` is the one that was at `order[i]`, by swaps along
/// the permutation's cycles.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start || from == at {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unnecessary_sort_by, clippy::disallowed_methods)]
    fn same_as_the_standard_sort() {
        let mut rng = crate::rng::Rng::new(7);
        for n in 0..200 {
            let v: Vec<(u32, usize)> = (0..n).map(|i| (rng.below(6) as u32, i)).collect();
            let mut ours = v.clone();
            let mut std = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            std.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(ours, std, "n = {n}");
            let mut ours = v.clone();
            let mut std = v;
            sort_by_key(&mut ours, |a| std::cmp::Reverse(a.0));
            std.sort_by_key(|a| std::cmp::Reverse(a.0));
            assert_eq!(ours, std, "n = {n}");
        }
    }

    #[test]
    fn hand_sorted() {
        let mut v = vec![3.0, -1.0, 2.5, -0.0, 0.0, 2.5];
        sort_floats(&mut v);
        assert_eq!(v, [-1.0, -0.0, 0.0, 2.5, 2.5, 3.0]);
        let mut w = vec!["c", "a", "b"];
        sort(&mut w);
        assert_eq!(w, ["a", "b", "c"]);
    }
}
