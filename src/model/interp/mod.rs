//! Piecewise-linear interpolation over a 3-D Delaunay triangulation of integer
//! points: the counterpart of scipy's `LinearNDInterpolator` (Delaunay
//! triangulation of the raw coordinates, barycentric interpolation inside the
//! tetrahedron that contains the query, nothing outside the convex hull).
//!
//! # Triangulation
//!
//! Incremental Bowyer–Watson insertion, one point at a time in input order,
//! with a single symbolic vertex "at infinity" instead of a finite
//! super-tetrahedron. Every face of the convex hull of the points inserted so
//! far carries a *ghost* tetrahedron (the face plus the infinite vertex), so
//! the triangulation always tiles all of space and the finite tetrahedra tile
//! exactly the current convex hull; no cleanup step can leave holes.
//!
//! A new point `p` is in conflict with
//! * a finite tetrahedron when `p` lies strictly inside its circumsphere;
//! * a ghost tetrahedron when `p` lies strictly beyond its hull face, or lies in
//!   the plane of the face and strictly inside the face's circumcircle (the
//!   limit of the circumsphere when the fourth vertex moves to infinity).
//!
//! Points *on* a sphere or circle are not in conflict, so co-spherical ties keep
//! the existing tetrahedra and the result depends only on the input order.
//! With these rules the conflict region is face-connected and star-shaped from
//! `p`, and `p` is never coplanar with a face of its boundary; the region is
//! removed and every boundary face is joined to `p` (a boundary face that
//! contains the infinite vertex yields a new ghost, i.e. a new hull face).
//! Hence every finite tetrahedron ever created has strictly positive volume.
//!
//! A point is located by a visibility walk (cross any face whose plane
//! separates the tetrahedron from `p`, starting the face scan at a
//! pseudo-random index so the walk cannot cycle forever); a step budget with a
//! linear scan behind it bounds the worst case.
//!
//! All geometric decisions use exact integer predicates (in `i64` where the
//! coordinate spans allow, else partly or wholly in `i128`), so the grid-like,
//! co-spherical and coplanar configurations of the real data are decided
//! exactly.
//!
//! # Point location for queries
//!
//! A tetrahedron contains `q` when `q` lies in its (slightly padded) bounding
//! box and all four barycentric coordinates are in `[-eps, 1 + eps]`,
//! `eps = 100 * f64::EPSILON`. A bucket grid (cell boundaries at quantiles of
//! the distinct coordinates of each axis) lists, per cell and in increasing
//! index order, every tetrahedron whose padded box meets the cell; the first
//! listed tetrahedron that contains `q` is the lowest-index one overall, which
//! makes the answer a pure function of `q`.

mod locate;
mod predicates;
#[cfg(test)]
mod tests;
mod triangulate;

use locate::*;
use predicates::*;
use std::collections::HashSet;
use std::fmt;
use triangulate::*;

/// Largest accepted absolute value of an input coordinate (2^22).
pub const MAX_COORD: i64 = 1 << 22;

/// Barycentric tolerance of the containment test.
const EPS: f64 = 100.0 * f64::EPSILON;

/// Index of the symbolic vertex at infinity.
const INF: u32 = u32::MAX;

/// Marks a matched entry of the edge chains (never a vertex index).
const CONSUMED: u32 = u32::MAX - 1;

/// Most input points accepted (indices and marks must fit in `u32`).
const MAX_POINTS: usize = 1 << 30;

/// Why an interpolator could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterpError {
    /// Fewer than four distinct points.
    TooFewPoints,
    /// All points are coplanar (or collinear): there is no 3-D hull.
    Degenerate,
    /// `points` and `values` have different lengths.
    LengthMismatch,
    /// A coordinate is outside `[-MAX_COORD, MAX_COORD]`, or there are more
    /// than 2^30 points.
    OutOfRange,
    /// An internal consistency check failed (indicates a bug, never expected).
    Internal,
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::TooFewPoints => write!(f, "fewer than four distinct interpolation points"),
            InterpError::Degenerate => {
                write!(f, "interpolation points are coplanar: no 3-D convex hull")
            }
            InterpError::LengthMismatch => write!(f, "points and values differ in length"),
            InterpError::OutOfRange => write!(
                f,
                "coordinate magnitude above {MAX_COORD} or too many interpolation points"
            ),
            InterpError::Internal => write!(f, "internal error in the Delaunay triangulation"),
        }
    }
}

impl std::error::Error for InterpError {}

type Pt = [i64; 3];

/// Piecewise-linear interpolation over a 3-D Delaunay triangulation of integer
/// points.
#[derive(Clone)]
pub struct LinearNd {
    /// The distinct input points (kept for the exhaustive checks of the tests).
    #[cfg(test)]
    points: Vec<Pt>,
    values: Vec<[f64; 2]>,
    tets: Vec<Tet>,
    grid: Grid,
    lo: [f64; 3],
    hi: [f64; 3],
}

impl std::fmt::Debug for LinearNd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinearNd")
            .field("tetrahedra", &self.tets.len())
            .finish()
    }
}

impl LinearNd {
    /// Triangulates `points` (Delaunay, exact, insertion in input order) with
    /// one value pair per point. Later duplicates of a point are ignored (the
    /// first occurrence's value is kept).
    pub fn new(points: &[[i64; 3]], values: &[[f64; 2]]) -> Result<Self, InterpError> {
        if points.len() != values.len() {
            return Err(InterpError::LengthMismatch);
        }
        if points.len() > MAX_POINTS
            || points
                .iter()
                .flatten()
                .any(|c| !(-MAX_COORD..=MAX_COORD).contains(c))
        {
            return Err(InterpError::OutOfRange);
        }
        let mut seen = HashSet::with_capacity(points.len());
        let mut pts = Vec::with_capacity(points.len());
        let mut vals = Vec::with_capacity(points.len());
        for (p, v) in points.iter().zip(values) {
            if seen.insert(*p) {
                pts.push(*p);
                vals.push(*v);
            }
        }
        let cells = triangulate(&pts)?;

        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in &pts {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k] as f64);
                hi[k] = hi[k].max(p[k] as f64);
            }
        }
        let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let pad = 1e-9 * (1.0 + extent);
        let tets: Vec<Tet> = cells.into_iter().map(|v| Tet::new(v, &pts, pad)).collect();
        let grid = Grid::build(&pts, &tets);
        Ok(LinearNd {
            #[cfg(test)]
            points: pts,
            values: vals,
            tets,
            grid,
            lo: lo.map(|x| x - pad),
            hi: hi.map(|x| x + pad),
        })
    }

    /// Interpolated values at q, None outside the convex hull.
    ///
    /// Non-finite coordinates give None.
    pub fn eval(&self, q: [f64; 3]) -> Option<[f64; 2]> {
        if !in_box(&q, &self.lo, &self.hi) {
            return None;
        }
        for &t in self.grid.bucket(&q) {
            let Some(tet) = self.tets.get(t as usize) else {
                continue;
            };
            if let Some(c) = tet.bary(&q) {
                let mut out = [0.0; 2];
                for (j, &cj) in c.iter().enumerate() {
                    let v = self.values.get(tet.v[j] as usize)?;
                    out[0] += cj * v[0];
                    out[1] += cj * v[1];
                }
                return Some(out);
            }
        }
        None
    }

    /// Number of tetrahedra in the triangulation.
    pub fn num_tetrahedra(&self) -> usize {
        self.tets.len()
    }
}
