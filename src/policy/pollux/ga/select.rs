//! NSGA-II's selection and survival: Pareto relation, binary tournaments, crowding distance
//! and the next population by rank and crowding.

use super::draws::shuffle;
use crate::rng::Rng;
use std::cmp::Ordering;

/// An integer with the same order as `v` (for NaN-free values without -0, as objectives are).
fn order_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

fn cmp_f(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// Pareto relation: 1 if `a` dominates `b`, -1 if `b` dominates `a`, else 0.
pub(super) fn relation(a: [f64; 2], b: [f64; 2]) -> i32 {
    let mut val = 0;
    for i in 0..2 {
        if a[i] < b[i] {
            if val == -1 {
                return 0;
            }
            val = 1;
        } else if b[i] < a[i] {
            if val == 1 {
                return 0;
            }
            val = -1;
        }
    }
    val
}

/// Binary tournaments (pymoo's `comp_by_dom_and_crowding`): `n` winners into `out`. The 2n
/// contestants are concatenated random permutations of the population.
pub(super) fn tournament(
    f: &[[f64; 2]],
    crowd: &[f64],
    n: usize,
    rng: &mut Rng,
    contestants: &mut Vec<usize>,
    out: &mut Vec<usize>,
) {
    out.clear();
    contestants.clear();
    let p = f.len().min(crowd.len());
    if p == 0 {
        return;
    }
    while contestants.len() < 2 * n {
        let start = contestants.len();
        contestants.extend(0..p);
        shuffle(rng, &mut contestants[start..]);
    }
    contestants.truncate(2 * n);
    for pair in contestants.chunks_exact(2) {
        let (a, b) = (pair[0], pair[1]);
        let w = match relation(f[a], f[b]) {
            1 => a,
            -1 => b,
            _ => {
                if crowd[a] > crowd[b] {
                    a
                } else if crowd[b] > crowd[a] {
                    b
                } else if rng.next_u64() >> 63 == 0 {
                    a
                } else {
                    b
                }
            }
        };
        out.push(w);
    }
}

/// Crowding distance of one front (pymoo's `calc_crowding_distance`). `front` is in
/// lexicographic (f0, f1, index) order, so exact duplicates are adjacent with the first
/// copy first, and after dropping duplicates f0 strictly increases while f1 strictly
/// decreases: each objective's sorted order is the front order or its reverse.
pub(super) fn crowding(f: &[[f64; 2]], front: &[usize], crowd: &mut [f64], uniq: &mut Vec<usize>) {
    if front.len() <= 2 {
        for &i in front {
            crowd[i] = f64::INFINITY;
        }
        return;
    }
    uniq.clear();
    let mut prev: Option<[f64; 2]> = None;
    for &i in front {
        // Duplicates of an earlier point keep 0.
        crowd[i] = 0.0;
        if prev != Some(f[i]) {
            uniq.push(i);
        }
        prev = Some(f[i]);
    }
    let u = uniq.len();
    if u < 2 {
        // One distinct point: both ranges are 0, so every distance is 0/0, which pymoo sets to 0.
        return;
    }
    let (lo, hi) = (f[uniq[0]], f[uniq[u - 1]]);
    let norm = [hi[0] - lo[0], lo[1] - hi[1]];
    let nz = |v: f64| if v.is_nan() { 0.0 } else { v };
    crowd[uniq[0]] = f64::INFINITY;
    crowd[uniq[u - 1]] = f64::INFINITY;
    for t in 1..u - 1 {
        let (p, c, q) = (f[uniq[t - 1]], f[uniq[t]], f[uniq[t + 1]]);
        let d0 = nz((c[0] - p[0]) / norm[0]) + nz((q[0] - c[0]) / norm[0]);
        let d1 = nz((p[1] - c[1]) / norm[1]) + nz((c[1] - q[1]) / norm[1]);
        crowd[uniq[t]] = (d0 + d1) / 2.0;
    }
}

/// Rank-and-crowding survival: the indices (into `f`) of `n_survive` survivors, whole
/// non-dominated fronts first, the last front cut by crowding distance (descending, ties
/// at random). Sets `rank` and `crowd` of every point in the fronts considered.
///
/// Fronts come from a two-objective sweep: points in lexicographic order are placed in the
/// first front whose most recent member (its smallest f1 so far) does not dominate them,
/// found by binary search, which gives the same fronts as pymoo's fast non-dominated sort.
pub(super) fn survive(
    f: &[[f64; 2]],
    n_survive: usize,
    rng: &mut Rng,
    rank: &mut Vec<u32>,
    crowd: &mut Vec<f64>,
) -> Vec<usize> {
    let m = f.len();
    rank.clear();
    rank.resize(m, u32::MAX);
    crowd.clear();
    crowd.resize(m, 0.0);
    let mut keyed: Vec<(u64, u64, usize)> = f
        .iter()
        .enumerate()
        .map(|(i, v)| (order_key(v[0]), order_key(v[1]), i))
        .collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.iter().map(|k| k.2).collect();
    let mut lasts: Vec<[f64; 2]> = Vec::new();
    let mut front_of = vec![0usize; m];
    for &i in &order {
        let p = f[i];
        // Earlier points have f0 <= p's, so front k dominates p iff its latest member has a
        // smaller f1, or an equal f1 and a smaller f0.
        let k = lasts.partition_point(|l| l[1] < p[1] || (l[1] == p[1] && l[0] < p[0]));
        if k == lasts.len() {
            lasts.push(p);
        } else {
            lasts[k] = p;
        }
        front_of[i] = k;
    }
    let nf = lasts.len();
    let mut start = vec![0usize; nf + 1];
    for &k in &front_of {
        start[k + 1] += 1;
    }
    for k in 0..nf {
        start[k + 1] += start[k];
    }
    let mut members = vec![0usize; m];
    let mut fill = start.clone();
    for &i in &order {
        let k = front_of[i];
        members[fill[k]] = i;
        fill[k] += 1;
    }
    let mut out = Vec::with_capacity(n_survive.min(m));
    let mut uniq = Vec::new();
    for k in 0..nf {
        if out.len() >= n_survive {
            break;
        }
        let front = &members[start[k]..start[k + 1]];
        crowding(f, front, crowd, &mut uniq);
        for &i in front {
            rank[i] = k as u32;
        }
        if out.len() + front.len() <= n_survive {
            out.extend_from_slice(front);
        } else {
            let take = n_survive - out.len();
            let mut shuffled = front.to_vec();
            shuffle(rng, &mut shuffled);
            let mut pos: Vec<usize> = (0..shuffled.len()).collect();
            pos.sort_unstable_by(|&a, &b| {
                cmp_f(crowd[shuffled[b]], crowd[shuffled[a]]).then(a.cmp(&b))
            });
            out.extend(pos.iter().take(take).map(|&p| shuffled[p]));
        }
    }
    out
}
