//! Point location for queries: tetrahedra with their barycentric tests and the bucket grid that lists them per cell.

use super::*;

/// Precomputed barycentric data of one tetrahedron `v0 v1 v2 v3`: with
/// `a_k = v_k - v3`, the inverse of the matrix `[a0 a1 a2]` has rows
/// `(a1 x a2) / det`, `(a2 x a0) / det`, `(a0 x a1) / det`, `det = a0 . (a1 x a2)`.
/// The coordinates are `c_k = rows[k] . (q - v3) / det` for `k < 3` and
/// `c_3 = (det - sum of the three numerators) / det`. The rows are integers, so
/// for integer queries of moderate size every numerator is exact and a query
/// on a face gets exactly zero for the opposite vertex.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tet {
    pub(super) v: [u32; 4],
    pub(super) rows: [[f64; 3]; 3],
    pub(super) origin: [f64; 3],
    pub(super) det: f64,
    pub(super) lo: [f64; 3],
    pub(super) hi: [f64; 3],
}

impl Tet {
    pub(super) fn new(v: [u32; 4], pts: &[Pt], pad: f64) -> Tet {
        let p = v.map(|i| pts[i as usize]);
        let a = [diff(&p[0], &p[3]), diff(&p[1], &p[3]), diff(&p[2], &p[3])];
        let r = [
            cross(&a[1], &a[2]),
            cross(&a[2], &a[0]),
            cross(&a[0], &a[1]),
        ];
        let det = a[0][0] * r[0][0] + a[0][1] * r[0][1] + a[0][2] * r[0][2];
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for q in &p {
            for k in 0..3 {
                lo[k] = lo[k].min(q[k] as f64);
                hi[k] = hi[k].max(q[k] as f64);
            }
        }
        Tet {
            v,
            rows: r.map(|row| row.map(|x| x as f64)),
            origin: p[3].map(|x| x as f64),
            det: det as f64,
            lo: lo.map(|x| x - pad),
            hi: hi.map(|x| x + pad),
        }
    }

    /// Barycentric coordinates of `q` if the tetrahedron contains it.
    pub(super) fn bary(&self, q: &[f64; 3]) -> Option<[f64; 4]> {
        if !in_box(q, &self.lo, &self.hi) {
            return None;
        }
        let d = [
            q[0] - self.origin[0],
            q[1] - self.origin[1],
            q[2] - self.origin[2],
        ];
        let [n0, n1, n2] = self.rows.map(|r| r[0] * d[0] + r[1] * d[1] + r[2] * d[2]);
        let num = [n0, n1, n2, self.det - n0 - n1 - n2];
        let mut c = [0.0; 4];
        for k in 0..4 {
            c[k] = num[k] / self.det;
            if !(c[k] >= -EPS && c[k] <= 1.0 + EPS) {
                return None;
            }
        }
        Some(c)
    }
}

/// Whether `lo <= q <= hi` in every coordinate (false for NaN).
pub(super) fn in_box(q: &[f64; 3], lo: &[f64; 3], hi: &[f64; 3]) -> bool {
    (0..3).all(|k| q[k] >= lo[k] && q[k] <= hi[k])
}

/// Bucket grid: per axis, interior cell boundaries; per cell, the indices of
/// the tetrahedra whose padded box meets it (compressed rows).
#[derive(Clone, Debug)]
pub(super) struct Grid {
    pub(super) breaks: [Vec<f64>; 3],
    pub(super) start: Vec<u32>,
    pub(super) items: Vec<u32>,
}

impl Grid {
    pub(super) fn axis_cell(&self, k: usize, x: f64) -> usize {
        self.breaks[k].partition_point(|&b| b <= x)
    }

    pub(super) fn dims(&self) -> [usize; 3] {
        [
            self.breaks[0].len() + 1,
            self.breaks[1].len() + 1,
            self.breaks[2].len() + 1,
        ]
    }

    pub(super) fn index(&self, q: &[f64; 3]) -> usize {
        let d = self.dims();
        let i = [0, 1, 2].map(|k| self.axis_cell(k, q[k]));
        (i[0] * d[1] + i[1]) * d[2] + i[2]
    }

    pub(super) fn bucket(&self, q: &[f64; 3]) -> &[u32] {
        let cell = self.index(q);
        let (Some(&s), Some(&e)) = (self.start.get(cell), self.start.get(cell + 1)) else {
            return &[];
        };
        self.items.get(s as usize..e as usize).unwrap_or(&[])
    }

    /// Up to `per_axis` cells per axis, bounded by the number of distinct
    /// coordinates; halves the resolution while the total number of entries
    /// would exceed the budget.
    pub(super) fn build(pts: &[Pt], tets: &[Tet]) -> Grid {
        let target = ((4 * tets.len()) as f64).cbrt().ceil() as usize;
        let mut per_axis = target.clamp(1, 64);
        let budget = 48 * tets.len() as u64 + (1 << 20);
        let mut distinct: [Vec<i64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for (k, d) in distinct.iter_mut().enumerate() {
            *d = pts.iter().map(|p| p[k]).collect();
            d.sort_unstable();
            d.dedup();
        }
        loop {
            let breaks = [0, 1, 2].map(|k| quantile_breaks(&distinct[k], per_axis));
            let mut g = Grid {
                breaks,
                start: Vec::new(),
                items: Vec::new(),
            };
            let d = g.dims();
            let ranges: Vec<[[usize; 2]; 3]> = tets
                .iter()
                .map(|t| [0, 1, 2].map(|k| [g.axis_cell(k, t.lo[k]), g.axis_cell(k, t.hi[k])]))
                .collect();
            let total: u64 = ranges
                .iter()
                .map(|r| r.iter().map(|[a, b]| (b + 1 - a) as u64).product::<u64>())
                .sum();
            if total > budget && per_axis > 1 {
                per_axis /= 2;
                continue;
            }
            let ncell = d[0] * d[1] * d[2];
            let mut count = vec![0u32; ncell + 1];
            for r in &ranges {
                for i in r[0][0]..=r[0][1] {
                    for j in r[1][0]..=r[1][1] {
                        for l in r[2][0]..=r[2][1] {
                            count[(i * d[1] + j) * d[2] + l + 1] += 1;
                        }
                    }
                }
            }
            for c in 1..=ncell {
                count[c] += count[c - 1];
            }
            let mut fill = count.clone();
            let mut items = vec![0u32; total as usize];
            for (t, r) in ranges.iter().enumerate() {
                for i in r[0][0]..=r[0][1] {
                    for j in r[1][0]..=r[1][1] {
                        for l in r[2][0]..=r[2][1] {
                            let cell = (i * d[1] + j) * d[2] + l;
                            items[fill[cell] as usize] = t as u32;
                            fill[cell] += 1;
                        }
                    }
                }
            }
            g.start = count;
            g.items = items;
            return g;
        }
    }
}

/// Interior cell boundaries for one axis: all distinct values strictly between
/// the extremes if they fit in `cells` cells, else `cells - 1` quantiles.
pub(super) fn quantile_breaks(distinct: &[i64], cells: usize) -> Vec<f64> {
    let m = distinct.len();
    if m <= 2 {
        return Vec::new();
    }
    if m - 1 <= cells {
        return distinct[1..m - 1].iter().map(|&x| x as f64).collect();
    }
    let mut out: Vec<f64> = (1..cells)
        .filter_map(|i| distinct.get(i * (m - 1) / cells).map(|&x| x as f64))
        .collect();
    out.dedup();
    out
}
