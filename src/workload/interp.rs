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

use std::collections::HashSet;
use std::fmt;

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

// ---------------------------------------------------------------------------
// Exact predicates.
//
// Overflow bounds. Input coordinates satisfy |x| <= 2^22, and the only derived
// point (`Width::in_circle_coplanar`) moves one coordinate by 1, so every
// coordinate difference d satisfies |d| <= D, where D depends on the largest
// per-axis span of the point set (the span plus one for the derived point):
// * `Narrow`, span < 2^11, D <= 2^11, everything in i64:
//   orient: 6 D^3 < 2^35.6; in_sphere: 2x2 minors <= 2 D^2 = 2^23, 3x3 minors
//   <= 6 D^3 < 2^35.6, lifts <= 3 D^2 < 2^23.6, each lift * minor < 2^59.2,
//   the sum of the four < 2^61.2 < 2^63.
// * `Mid`, span < 2^16, D <= 2^16: orient in i64 (6 D^3 < 2^50.6); in_sphere
//   minors and lifts in i64 (3x3 minors < 2^50.6, lifts < 2^33.6), the four
//   lift * minor products in i128 (< 2^84.2, sum < 2^86.2).
// * `Wide`, any accepted input, D <= 2^23 + 1 < 2^23.01, everything in i128:
//   orient: 6 D^3 < 2^71.7; in_sphere: 3x3 minors < 2^71.7, lifts < 2^47.7,
//   each lift * minor < 2^119.4, the sum of the four < 2^121.4 < 2^127.
// ---------------------------------------------------------------------------

/// Integer types the predicates are evaluated in.
trait Exact:
    Copy
    + Ord
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
    + Into<i128>
{
    /// Converts an input coordinate.
    fn of(x: i64) -> Self;
}

impl Exact for i64 {
    fn of(x: i64) -> Self {
        x
    }
}

impl Exact for i128 {
    fn of(x: i64) -> Self {
        x as i128
    }
}

fn diff_t<T: Exact>(a: &Pt, b: &Pt) -> [T; 3] {
    [
        T::of(a[0]) - T::of(b[0]),
        T::of(a[1]) - T::of(b[1]),
        T::of(a[2]) - T::of(b[2]),
    ]
}

fn cross_t<T: Exact>(u: &[T; 3], v: &[T; 3]) -> [T; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// `det[b - a; c - a; d - a]`: six times the signed volume of `abcd`; positive
/// when `d` lies on the side of the plane `abc` towards `(b - a) x (c - a)`.
fn orient_t<T: Exact>(a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> T {
    let w = diff_t::<T>(d, a);
    let n = cross_t(&diff_t::<T>(b, a), &diff_t::<T>(c, a));
    n[0] * w[0] + n[1] * w[1] + n[2] * w[2]
}

/// The lifted 4x4 determinant of `a, b, c, d` relative to `e`, expanded along
/// the lift column: minors and lifts are computed in `T`, the final four
/// products and their sum in `W`.
///
/// Positive when `e` lies strictly inside the sphere through `a, b, c, d`,
/// zero when on it, negative outside; valid when `orient(a, b, c, d) > 0`
/// (the sign flips for negatively oriented `abcd`).
fn in_sphere_t<T: Exact, W: Exact + From<T>>(a: &Pt, b: &Pt, c: &Pt, d: &Pt, e: &Pt) -> W {
    let [aex, aey, aez] = diff_t::<T>(a, e);
    let [bex, bey, bez] = diff_t::<T>(b, e);
    let [cex, cey, cez] = diff_t::<T>(c, e);
    let [dex, dey, dez] = diff_t::<T>(d, e);
    let ab = aex * bey - bex * aey;
    let bc = bex * cey - cex * bey;
    let cd = cex * dey - dex * cey;
    let da = dex * aey - aex * dey;
    let ac = aex * cey - cex * aey;
    let bd = bex * dey - dex * bey;
    let abc = W::from(aez * bc - bez * ac + cez * ab);
    let bcd = W::from(bez * cd - cez * bd + dez * bc);
    let cda = W::from(cez * da + dez * ac + aez * cd);
    let dab = W::from(dez * ab + aez * bd + bez * da);
    let alift = W::from(aex * aex + aey * aey + aez * aez);
    let blift = W::from(bex * bex + bey * bey + bez * bez);
    let clift = W::from(cex * cex + cey * cey + cez * cez);
    let dlift = W::from(dex * dex + dey * dey + dez * dez);
    // This determinant is positive for "inside" when det[a-d; b-d; c-d] > 0,
    // which is the opposite orientation of `orient`, hence the negation.
    -((dlift * abc - clift * dab) + (blift * cda - alift * bcd))
}

/// Which integer widths make the predicates exact for a point set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    Narrow,
    Mid,
    Wide,
}

impl Width {
    fn for_points(pts: &[Pt]) -> Width {
        let span = (0..3)
            .map(|k| {
                let lo = pts.iter().map(|p| p[k]).min().unwrap_or(0);
                let hi = pts.iter().map(|p| p[k]).max().unwrap_or(0);
                hi - lo
            })
            .max()
            .unwrap_or(0);
        if span < 1 << 11 {
            Width::Narrow
        } else if span < 1 << 16 {
            Width::Mid
        } else {
            Width::Wide
        }
    }

    fn orient(self, a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> i128 {
        match self {
            Width::Narrow | Width::Mid => orient_t::<i64>(a, b, c, d).into(),
            Width::Wide => orient_t::<i128>(a, b, c, d),
        }
    }

    fn in_sphere(self, a: &Pt, b: &Pt, c: &Pt, d: &Pt, e: &Pt) -> i128 {
        match self {
            Width::Narrow => in_sphere_t::<i64, i64>(a, b, c, d, e).into(),
            Width::Mid => in_sphere_t::<i64, i128>(a, b, c, d, e),
            Width::Wide => in_sphere_t::<i128, i128>(a, b, c, d, e),
        }
    }

    /// For `p` in the plane of the non-degenerate triangle `abc`: whether `p`
    /// lies strictly inside the triangle's circumcircle. Any sphere through
    /// `a, b, c` cuts that plane in the circumcircle, so the sphere through
    /// `a, b, c` and `a` shifted by one unit along an axis not parallel to the
    /// plane decides it.
    fn in_circle_coplanar(self, a: &Pt, b: &Pt, c: &Pt, p: &Pt) -> bool {
        let n = cross_t(&diff_t::<i128>(b, a), &diff_t::<i128>(c, a));
        let mut k = 0;
        for j in 1..3 {
            if n[j].abs() > n[k].abs() {
                k = j;
            }
        }
        if n[k] == 0 {
            return false;
        }
        let mut d = *a;
        d[k] += 1;
        // orient(a, b, c, d) = n[k].
        let s = self.in_sphere(a, b, c, &d, p);
        if n[k] > 0 {
            s > 0
        } else {
            s < 0
        }
    }
}

fn diff(a: &Pt, b: &Pt) -> [i128; 3] {
    diff_t(a, b)
}

fn cross(u: &[i128; 3], v: &[i128; 3]) -> [i128; 3] {
    cross_t(u, v)
}

fn orient(a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> i128 {
    orient_t(a, b, c, d)
}

#[cfg(test)]
fn in_sphere(a: &Pt, b: &Pt, c: &Pt, d: &Pt, e: &Pt) -> i128 {
    in_sphere_t::<i128, i128>(a, b, c, d, e)
}

// ---------------------------------------------------------------------------
// Incremental construction.
// ---------------------------------------------------------------------------

/// A tetrahedron: `v[i]` its vertices (`INF` for the infinite vertex), `n[i]`
/// the neighbour across the face opposite `v[i]`. Finite cells satisfy
/// `orient(v0, v1, v2, v3) > 0`; a ghost cell is oriented as if the infinite
/// vertex were a point strictly beyond its hull face.
#[derive(Clone, Copy)]
struct Cell {
    v: [u32; 4],
    n: [u32; 4],
}

/// The three positions other than `i`, in cyclic order.
fn others(i: usize) -> [usize; 3] {
    [(i + 1) & 3, (i + 2) & 3, (i + 3) & 3]
}

struct Builder<'a> {
    pts: &'a [Pt],
    /// Integer width that keeps the predicates exact for these points.
    width: Width,
    cells: Vec<Cell>,
    alive: Vec<bool>,
    /// Per-cell stamp: `2 * epoch + 1` in conflict, `2 * epoch` tested and not.
    mark: Vec<u32>,
    free: Vec<u32>,
    epoch: u32,
    /// A live finite cell from which the next walk starts.
    last: u32,
    rng: u64,
    stack: Vec<u32>,
    conflict: Vec<u32>,
    boundary: Vec<(u32, usize)>,
    /// Faces of new cells through the new point, chained per smaller edge
    /// vertex: (larger edge vertex, cell, face, next entry in the chain).
    pending: Vec<(u32, u32, usize, u32)>,
    /// Number of matched pairs in `pending`.
    matched: usize,
    /// Per vertex: head of its chain in `pending`, valid when the stamp equals
    /// the current epoch.
    chain_head: Vec<u32>,
    chain_stamp: Vec<u32>,
    created: Vec<u32>,
}

impl<'a> Builder<'a> {
    /// Starts from the tetrahedron `init` (positively oriented) and its four
    /// ghosts.
    fn new(pts: &'a [Pt], init: [u32; 4]) -> Result<Self, InterpError> {
        let mut b = Builder {
            pts,
            width: Width::for_points(pts),
            cells: Vec::with_capacity(8 * pts.len() + 8),
            alive: Vec::new(),
            mark: Vec::new(),
            free: Vec::new(),
            epoch: 0,
            last: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            stack: Vec::new(),
            conflict: Vec::new(),
            boundary: Vec::new(),
            pending: Vec::new(),
            matched: 0,
            chain_head: vec![0; pts.len()],
            chain_stamp: vec![0; pts.len()],
            created: Vec::new(),
        };
        b.alloc(init, [INF; 4]);
        for i in 0..4 {
            // The ghost across face i: swapping two finite vertices flips the
            // orientation so that the infinite vertex sits outside.
            let mut v = init;
            v[i] = INF;
            v.swap((i + 1) & 3, (i + 2) & 3);
            b.alloc(v, [INF; 4]);
        }
        // Pair up the faces of the five cells by their vertex sets.
        let mut faces: Vec<([u32; 3], u32, usize)> = Vec::new();
        for c in 0..5u32 {
            for i in 0..4 {
                let v = b.cells[c as usize].v;
                let mut key = others(i).map(|k| v[k]);
                key.sort_unstable();
                if let Some(pos) = faces.iter().position(|f| f.0 == key) {
                    let (_, oc, oi) = faces.swap_remove(pos);
                    b.cells[c as usize].n[i] = oc;
                    b.cells[oc as usize].n[oi] = c;
                } else {
                    faces.push((key, c, i));
                }
            }
        }
        if !faces.is_empty() {
            return Err(InterpError::Internal);
        }
        Ok(b)
    }

    fn alloc(&mut self, v: [u32; 4], n: [u32; 4]) -> u32 {
        let cell = Cell { v, n };
        if let Some(c) = self.free.pop() {
            self.cells[c as usize] = cell;
            self.alive[c as usize] = true;
            c
        } else {
            self.cells.push(cell);
            self.alive.push(true);
            self.mark.push(0);
            (self.cells.len() - 1) as u32
        }
    }

    fn pt(&self, i: u32) -> &Pt {
        &self.pts[i as usize]
    }

    fn is_ghost(&self, c: u32) -> bool {
        self.cells[c as usize].v.contains(&INF)
    }

    fn next_rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Orientation of finite cell `c` with vertex `i` replaced by point `p`:
    /// negative when `p` is strictly on the far side of face `i`.
    fn orient_sub(&self, c: u32, i: usize, p: u32) -> i128 {
        let mut v = self.cells[c as usize].v;
        v[i] = p;
        let [a, b, cc, d] = v.map(|x| self.pt(x));
        self.width.orient(a, b, cc, d)
    }

    fn in_conflict(&self, c: u32, p: u32) -> bool {
        let v = self.cells[c as usize].v;
        let pp = self.pt(p);
        match v.iter().position(|&x| x == INF) {
            None => {
                let [a, b, cc, d] = v.map(|x| self.pt(x));
                self.width.in_sphere(a, b, cc, d, pp) > 0
            }
            Some(k) => {
                let o = self.orient_sub(c, k, p);
                if o != 0 {
                    return o > 0;
                }
                let [i, j, l] = others(k);
                let (a, b, cc) = (self.pt(v[i]), self.pt(v[j]), self.pt(v[l]));
                self.width.in_circle_coplanar(a, b, cc, pp)
            }
        }
    }

    /// A cell in conflict with `p`: the finite cell containing it, or a ghost
    /// whose hull face `p` lies strictly beyond.
    fn locate(&mut self, p: u32) -> Result<u32, InterpError> {
        let mut c = self.last;
        let budget = 4 * self.cells.len() + 64;
        for _ in 0..budget {
            let r = (self.next_rand() >> 32) as usize;
            let mut next = None;
            for t in 0..4 {
                let i = (r + t) & 3;
                if self.orient_sub(c, i, p) < 0 {
                    next = Some(self.cells[c as usize].n[i]);
                    break;
                }
            }
            match next {
                None => return Ok(c),
                Some(nb) if self.is_ghost(nb) => return Ok(nb),
                Some(nb) => c = nb,
            }
        }
        // The conflict region is connected, so any conflicting cell will do.
        (0..self.cells.len() as u32)
            .find(|&c| self.alive[c as usize] && self.in_conflict(c, p))
            .ok_or(InterpError::Internal)
    }

    fn insert(&mut self, p: u32) -> Result<(), InterpError> {
        let seed = self.locate(p)?;
        self.epoch += 1;
        let yes = 2 * self.epoch + 1;
        let no = 2 * self.epoch;

        // Grow the conflict region from the seed across faces.
        self.stack.clear();
        self.conflict.clear();
        self.boundary.clear();
        self.mark[seed as usize] = yes;
        self.stack.push(seed);
        self.conflict.push(seed);
        while let Some(c) = self.stack.pop() {
            for i in 0..4 {
                let nb = self.cells[c as usize].n[i];
                let m = self.mark[nb as usize];
                if m == yes {
                    continue;
                }
                if m != no && self.in_conflict(nb, p) {
                    self.mark[nb as usize] = yes;
                    self.stack.push(nb);
                    self.conflict.push(nb);
                } else {
                    self.mark[nb as usize] = no;
                    self.boundary.push((c, i));
                }
            }
        }

        // Join every boundary face to p; the new cell replaces the conflict
        // cell's vertex opposite that face, which keeps the orientation.
        self.created.clear();
        self.pending.clear();
        self.matched = 0;
        for k in 0..self.boundary.len() {
            let (c, i) = self.boundary[k];
            let old = self.cells[c as usize];
            let mut v = old.v;
            v[i] = p;
            let outside = old.n[i];
            let mut n = [INF; 4];
            n[i] = outside;
            let nc = self.alloc(v, n);
            self.created.push(nc);
            let slot = self.cells[outside as usize]
                .n
                .iter()
                .position(|&x| x == c)
                .ok_or(InterpError::Internal)?;
            self.cells[outside as usize].n[slot] = nc;
            // Faces through p are shared with other new cells: match them by
            // the edge they contain besides p.
            for j in 0..4 {
                if j == i {
                    continue;
                }
                let mut e = [INF; 2];
                let mut m = 0;
                for (t, &x) in v.iter().enumerate() {
                    if t != i && t != j && m < 2 {
                        e[m] = x;
                        m += 1;
                    }
                }
                self.link_edge(e[0].min(e[1]), e[0].max(e[1]), nc, j)?;
            }
        }
        // The cavity boundary is a closed surface: every edge lies in exactly
        // two boundary faces, so every entry must have found its partner.
        if self.pending.len() != 2 * self.matched {
            return Err(InterpError::Internal);
        }
        for k in 0..self.conflict.len() {
            let c = self.conflict[k];
            self.alive[c as usize] = false;
            self.free.push(c);
        }
        self.last = self
            .created
            .iter()
            .copied()
            .find(|&c| !self.is_ghost(c))
            .ok_or(InterpError::Internal)?;
        Ok(())
    }

    /// Pairs face `j` of new cell `c` with the other new cell sharing the edge
    /// `e0 < e1` (and the new point), or records it until that cell appears.
    fn link_edge(&mut self, e0: u32, e1: u32, c: u32, j: usize) -> Result<(), InterpError> {
        let e = e0 as usize;
        if e >= self.chain_head.len() {
            return Err(InterpError::Internal);
        }
        let mut at = if self.chain_stamp[e] == self.epoch {
            self.chain_head[e]
        } else {
            INF
        };
        while at != INF {
            let (x, oc, oj, next) = self.pending[at as usize];
            if x == e1 {
                // Consume the entry so it cannot be matched twice.
                self.pending[at as usize].0 = CONSUMED;
                self.cells[c as usize].n[j] = oc;
                self.cells[oc as usize].n[oj] = c;
                self.pending.push((CONSUMED, c, j, INF));
                self.matched += 1;
                return Ok(());
            }
            at = next;
        }
        let head = if self.chain_stamp[e] == self.epoch {
            self.chain_head[e]
        } else {
            INF
        };
        self.chain_stamp[e] = self.epoch;
        self.chain_head[e] = self.pending.len() as u32;
        self.pending.push((e1, c, j, head));
        Ok(())
    }

    /// Checks the invariants and returns the finite cells in slot order.
    fn finish(&self) -> Result<Vec<[u32; 4]>, InterpError> {
        let mut tets = Vec::new();
        for (c, cell) in self.cells.iter().enumerate() {
            if !self.alive[c] {
                continue;
            }
            for &nb in &cell.n {
                let ok = self.alive.get(nb as usize).copied().unwrap_or(false)
                    && self.cells[nb as usize].n.contains(&(c as u32));
                if !ok {
                    return Err(InterpError::Internal);
                }
            }
            if cell.v.contains(&INF) {
                continue;
            }
            let [a, b, cc, d] = cell.v.map(|i| self.pt(i));
            if orient(a, b, cc, d) <= 0 {
                return Err(InterpError::Internal);
            }
            tets.push(cell.v);
        }
        Ok(tets)
    }
}

/// Delaunay triangulation of distinct points (each within range).
fn triangulate(pts: &[Pt]) -> Result<Vec<[u32; 4]>, InterpError> {
    if pts.len() < 4 {
        return Err(InterpError::TooFewPoints);
    }
    // First simplex: the first point, the next one, the first point not on
    // their line and the first point not in their plane.
    let (p0, p1) = (&pts[0], &pts[1]);
    let u = diff(p1, p0);
    let i2 = (2..pts.len())
        .find(|&i| cross(&u, &diff(&pts[i], p0)) != [0, 0, 0])
        .ok_or(InterpError::Degenerate)?;
    let i3 = (i2 + 1..pts.len())
        .find(|&i| orient(p0, p1, &pts[i2], &pts[i]) != 0)
        .ok_or(InterpError::Degenerate)?;
    let mut init = [0u32, 1, i2 as u32, i3 as u32];
    if orient(p0, p1, &pts[i2], &pts[i3]) < 0 {
        init.swap(0, 1);
    }
    let mut b = Builder::new(pts, init)?;
    for i in 0..pts.len() as u32 {
        if i != 0 && i != 1 && i as usize != i2 && i as usize != i3 {
            b.insert(i)?;
        }
    }
    b.finish()
}

// ---------------------------------------------------------------------------
// Query structures.
// ---------------------------------------------------------------------------

/// Precomputed barycentric data of one tetrahedron `v0 v1 v2 v3`: with
/// `a_k = v_k - v3`, the inverse of the matrix `[a0 a1 a2]` has rows
/// `(a1 x a2) / det`, `(a2 x a0) / det`, `(a0 x a1) / det`, `det = a0 . (a1 x a2)`.
/// The coordinates are `c_k = rows[k] . (q - v3) / det` for `k < 3` and
/// `c_3 = (det - sum of the three numerators) / det`. The rows are integers, so
/// for integer queries of moderate size every numerator is exact and a query
/// on a face gets exactly zero for the opposite vertex.
#[derive(Clone, Copy, Debug)]
struct Tet {
    v: [u32; 4],
    rows: [[f64; 3]; 3],
    origin: [f64; 3],
    det: f64,
    lo: [f64; 3],
    hi: [f64; 3],
}

impl Tet {
    fn new(v: [u32; 4], pts: &[Pt], pad: f64) -> Tet {
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
    fn bary(&self, q: &[f64; 3]) -> Option<[f64; 4]> {
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
fn in_box(q: &[f64; 3], lo: &[f64; 3], hi: &[f64; 3]) -> bool {
    (0..3).all(|k| q[k] >= lo[k] && q[k] <= hi[k])
}

/// Bucket grid: per axis, interior cell boundaries; per cell, the indices of
/// the tetrahedra whose padded box meets it (compressed rows).
#[derive(Clone, Debug)]
struct Grid {
    breaks: [Vec<f64>; 3],
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn axis_cell(&self, k: usize, x: f64) -> usize {
        self.breaks[k].partition_point(|&b| b <= x)
    }

    fn dims(&self) -> [usize; 3] {
        [
            self.breaks[0].len() + 1,
            self.breaks[1].len() + 1,
            self.breaks[2].len() + 1,
        ]
    }

    fn index(&self, q: &[f64; 3]) -> usize {
        let d = self.dims();
        let i = [0, 1, 2].map(|k| self.axis_cell(k, q[k]));
        (i[0] * d[1] + i[1]) * d[2] + i[2]
    }

    fn bucket(&self, q: &[f64; 3]) -> &[u32] {
        let cell = self.index(q);
        let (Some(&s), Some(&e)) = (self.start.get(cell), self.start.get(cell + 1)) else {
            return &[];
        };
        self.items.get(s as usize..e as usize).unwrap_or(&[])
    }

    /// Up to `per_axis` cells per axis, bounded by the number of distinct
    /// coordinates; halves the resolution while the total number of entries
    /// would exceed the budget.
    fn build(pts: &[Pt], tets: &[Tet]) -> Grid {
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
fn quantile_breaks(distinct: &[i64], cells: usize) -> Vec<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 11
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 42) as f64
        }
    }

    fn affine(p: [f64; 3]) -> [f64; 2] {
        [
            1.5 + 0.25 * p[0] - 0.75 * p[1] + 0.125 * p[2],
            -3.0 + 2.0 * p[0] + 0.5 * p[1] - 0.0625 * p[2],
        ]
    }

    fn affine_values(pts: &[Pt]) -> Vec<[f64; 2]> {
        pts.iter().map(|p| affine(p.map(|x| x as f64))).collect()
    }

    fn close(a: [f64; 2], b: [f64; 2], scale: f64) -> bool {
        (0..2).all(|k| (a[k] - b[k]).abs() <= 1e-9 * (1.0 + scale + b[k].abs()))
    }

    fn point(nd: &LinearNd, i: u32) -> &Pt {
        &nd.points[i as usize]
    }

    /// Proper tiling of the hull: positive volumes, every face shared by at
    /// most two tetrahedra lying on opposite sides, every boundary face a
    /// supporting plane of the point set, every point a vertex, and the empty
    /// circumsphere property. Returns six times the total volume.
    fn check_triangulation(nd: &LinearNd) -> i128 {
        let mut total = 0i128;
        let mut faces: HashMap<[u32; 3], Vec<(usize, usize)>> = HashMap::new();
        let mut used = vec![false; nd.points.len()];
        for (t, tet) in nd.tets.iter().enumerate() {
            let [a, b, c, d] = tet.v.map(|i| point(nd, i));
            let vol = orient(a, b, c, d);
            assert!(vol > 0, "tetrahedron {t} has volume {vol}");
            total += vol;
            for i in 0..4 {
                used[tet.v[i] as usize] = true;
                let mut key = others(i).map(|k| tet.v[k]);
                key.sort_unstable();
                faces.entry(key).or_default().push((t, i));
            }
            for (j, p) in nd.points.iter().enumerate() {
                assert!(
                    in_sphere(a, b, c, d, p) <= 0,
                    "point {j} strictly inside circumsphere of tetrahedron {t}"
                );
            }
        }
        assert!(used.iter().all(|&u| u), "a point is not a vertex");
        for (key, list) in &faces {
            let [x, y, z] = key.map(|i| point(nd, i));
            match list.as_slice() {
                [(t1, i1), (t2, i2)] => {
                    let s1 = orient(x, y, z, point(nd, nd.tets[*t1].v[*i1]));
                    let s2 = orient(x, y, z, point(nd, nd.tets[*t2].v[*i2]));
                    assert!(s1.signum() * s2.signum() < 0, "face {key:?} not separating");
                }
                [(t, i)] => {
                    let apex = point(nd, nd.tets[*t].v[*i]);
                    let inner = orient(x, y, z, apex).signum();
                    for p in &nd.points {
                        assert!(
                            orient(x, y, z, p).signum() * inner >= 0,
                            "hull face {key:?} is not a supporting plane"
                        );
                    }
                }
                _ => panic!("face {key:?} in {} tetrahedra", list.len()),
            }
        }
        total
    }

    /// A query inside the hull: a random convex combination of four points.
    fn inside_query(rng: &mut Lcg, pts: &[Pt]) -> [f64; 3] {
        let mut w = [0.0; 4];
        for x in &mut w {
            *x = rng.unit() + 1e-3;
        }
        let s: f64 = w.iter().sum();
        let mut q = [0.0; 3];
        for x in &w {
            let p = pts[rng.below(pts.len() as u64) as usize];
            for k in 0..3 {
                q[k] += x / s * p[k] as f64;
            }
        }
        q
    }

    fn check_affine(nd: &LinearNd, pts: &[Pt], rng: &mut Lcg, n: usize) {
        let scale = pts
            .iter()
            .flatten()
            .fold(0.0f64, |m, &x| m.max((x as f64).abs()));
        for p in pts {
            let q = p.map(|x| x as f64);
            let got = nd.eval(q).expect("data point inside hull");
            assert!(close(got, affine(q), scale), "{p:?}: {got:?}");
        }
        for _ in 0..n {
            let q = inside_query(rng, pts);
            let got = nd.eval(q).expect("convex combination inside hull");
            assert!(
                close(got, affine(q), scale),
                "{q:?}: {got:?} vs {:?}",
                affine(q)
            );
        }
    }

    fn realistic_points(seed: u64) -> Vec<Pt> {
        let bsz = [
            4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384,
            512, 640, 768, 1024,
        ];
        let mut rng = Lcg(seed);
        let mut pts = Vec::new();
        for n in [1i64, 2, 3, 4, 6, 8, 12, 16] {
            for r in n..=4 * n {
                let before = pts.len();
                for &b in &bsz {
                    if rng.below(100) < 42 {
                        pts.push([n, r, b]);
                    }
                }
                if pts.len() == before {
                    pts.push([n, r, bsz[rng.below(bsz.len() as u64) as usize]]);
                }
            }
        }
        pts
    }

    #[test]
    fn predicate_signs() {
        let a = [0, 0, 0];
        let b = [4, 0, 0];
        let c = [0, 4, 0];
        let d = [0, 0, 4];
        assert!(orient(&a, &b, &c, &d) > 0);
        assert!(in_sphere(&a, &b, &c, &d, &[1, 1, 1]) > 0);
        assert!(in_sphere(&a, &b, &c, &d, &[4, 4, 4]) == 0);
        assert!(in_sphere(&a, &b, &c, &d, &[5, 5, 5]) < 0);
        for w in [Width::Narrow, Width::Mid, Width::Wide] {
            assert!(w.in_circle_coplanar(&a, &b, &c, &[1, 1, 0]));
            assert!(w.in_circle_coplanar(&a, &c, &b, &[1, 1, 0]));
            assert!(!w.in_circle_coplanar(&a, &b, &c, &[4, 4, 0]));
            assert!(!w.in_circle_coplanar(&a, &b, &c, &[5, 4, 0]));
        }
        // Each width agrees with the i128 evaluation up to its span limit (the
        // coplanar test adds one unit to a coordinate, hence the + 1).
        let mut rng = Lcg(99);
        for (w, span) in [(Width::Narrow, 1u64 << 11), (Width::Mid, 1 << 16)] {
            for i in 0..20000 {
                let mut p: Vec<Pt> = (0..5)
                    .map(|_| {
                        [0, 1, 2].map(|_| {
                            let x = if i % 2 == 0 {
                                rng.below(2) * (span - 1)
                            } else {
                                rng.below(span)
                            };
                            x as i64 + 1000
                        })
                    })
                    .collect();
                p[3][i % 3] = if i % 4 == 1 { 1000 } else { 1000 + span as i64 };
                let (a, b, c, d, e) = (&p[0], &p[1], &p[2], &p[3], &p[4]);
                assert_eq!(w.orient(a, b, c, d), orient(a, b, c, d));
                assert_eq!(w.in_sphere(a, b, c, d, e), in_sphere(a, b, c, d, e));
            }
        }
        let span_pts = |s: i64| [[0, 0, 0], [s, 1, 1], [1, 1, 1]];
        assert_eq!(Width::for_points(&span_pts(2047)), Width::Narrow);
        assert_eq!(Width::for_points(&span_pts(2048)), Width::Mid);
        assert_eq!(Width::for_points(&span_pts(65535)), Width::Mid);
        assert_eq!(Width::for_points(&span_pts(65536)), Width::Wide);
        // Extreme coordinates stay exact.
        let m = MAX_COORD;
        let (a, b, c, d) = ([-m, -m, -m], [m, -m, -m], [-m, m, -m], [-m, -m, m]);
        assert!(orient(&a, &b, &c, &d) > 0);
        assert_eq!(in_sphere(&a, &b, &c, &d, &[m, m, m]), 0);
        assert!(in_sphere(&a, &b, &c, &d, &[m - 1, m, m]) > 0);
        assert!(in_sphere(&a, &b, &c, &d, &[m, m, -m - 1]) < 0);
    }

    #[test]
    fn random_points_affine_and_volume() {
        let mut rng = Lcg(7);
        for round in 0..6 {
            let n = 60 + 60 * round;
            let side = [10, 1000, 100_000][round % 3] as i64;
            // The eight box corners make the hull the box itself.
            let mut pts: Vec<Pt> = (0..8)
                .map(|i| [(i & 1) * side, ((i >> 1) & 1) * side, ((i >> 2) & 1) * side])
                .collect();
            for _ in 0..n {
                pts.push([0, 1, 2].map(|_| rng.below(side as u64 + 1) as i64));
            }
            // Mix the corners into the order.
            let len = pts.len() as u64;
            for i in 0..8 {
                pts.swap(i, rng.below(len) as usize);
            }
            let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
            assert_eq!(check_triangulation(&nd), 6 * (side as i128).pow(3));
            check_affine(&nd, &nd.points.clone(), &mut rng, 500);
        }
    }

    #[test]
    fn general_position_hull_is_not_a_box() {
        // Random points without the box corners: the hull volume is checked by
        // the supporting-plane test of every boundary face.
        let mut rng = Lcg(11);
        let pts: Vec<Pt> = (0..400)
            .map(|_| [0, 1, 2].map(|_| rng.below(100_001) as i64))
            .collect();
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        check_triangulation(&nd);
        check_affine(&nd, &pts, &mut rng, 1000);
    }

    #[test]
    fn full_grid() {
        let mut pts = Vec::new();
        for x in 0..4 {
            for y in 0..4 {
                for z in 0..4 {
                    pts.push([x, y, z]);
                }
            }
        }
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        assert_eq!(check_triangulation(&nd), 6 * 27);
        let mut rng = Lcg(3);
        check_affine(&nd, &pts, &mut rng, 2000);
        for _ in 0..500 {
            let q = [0, 1, 2].map(|_| 3.0 * rng.unit());
            let got = nd.eval(q).unwrap();
            assert!(close(got, affine(q), 3.0));
        }
        // Grid nodes, edge midpoints and face centres (on shared faces).
        for x in 0..7 {
            for y in 0..7 {
                for z in 0..7 {
                    let q = [x as f64 / 2.0, y as f64 / 2.0, z as f64 / 2.0];
                    assert!(close(nd.eval(q).unwrap(), affine(q), 3.0));
                }
            }
        }
        assert_eq!(nd.eval([-0.01, 1.0, 1.0]), None);
        assert_eq!(nd.eval([1.0, 3.01, 1.0]), None);
    }

    #[test]
    fn grids_in_various_orders() {
        let mut rng = Lcg(5);
        for (dims, scale) in [
            ([3, 4, 5], [1, 7, 100]),
            ([5, 5, 5], [2, 2, 2]),
            ([2, 2, 9], [3, 5, 1]),
        ] {
            let mut pts = Vec::new();
            for x in 0..dims[0] {
                for y in 0..dims[1] {
                    for z in 0..dims[2] {
                        pts.push([x * scale[0], y * scale[1], z * scale[2]]);
                    }
                }
            }
            let vol: i128 = (0..3).map(|k| ((dims[k] - 1) * scale[k]) as i128).product();
            for round in 0..3 {
                if round == 1 {
                    pts.reverse();
                } else if round == 2 {
                    for i in (1..pts.len()).rev() {
                        pts.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                }
                let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
                assert_eq!(check_triangulation(&nd), 6 * vol);
                check_affine(&nd, &pts, &mut rng, 300);
            }
        }
    }

    #[test]
    fn simplex_lattice_volume() {
        // All lattice points with x + y + z <= 10: hull is the corner simplex.
        let mut pts = Vec::new();
        for x in 0..=10 {
            for y in 0..=10 - x {
                for z in 0..=10 - x - y {
                    pts.push([x, y, z]);
                }
            }
        }
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        assert_eq!(check_triangulation(&nd), 1000);
        check_affine(&nd, &pts, &mut Lcg(9), 500);
        assert_eq!(nd.eval([4.0, 4.0, 2.5]), None);
        assert!(nd.eval([4.0, 4.0, 2.0]).is_some());
    }

    #[test]
    fn realistic_shape() {
        for seed in [1, 2, 3] {
            let pts = realistic_points(seed);
            let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
            check_triangulation(&nd);
            let mut rng = Lcg(seed);
            check_affine(&nd, &pts, &mut rng, 3000);
            // Integer queries at unprofiled placements inside the hull.
            let mut hits = 0;
            for _ in 0..3000 {
                let n = 1 + rng.below(16) as i64;
                let r = n + rng.below(3 * n as u64 + 1) as i64;
                let b = 4 + rng.below(1021) as i64;
                let q = [n as f64, r as f64, b as f64];
                if let Some(got) = nd.eval(q) {
                    hits += 1;
                    assert!(close(got, affine(q), 1024.0));
                }
            }
            assert!(hits > 1000);
            assert_eq!(nd.eval([17.0, 20.0, 64.0]), None);
            assert_eq!(nd.eval([4.0, 40.0, 64.0]), None);
            assert_eq!(nd.eval([4.0, 8.0, 2000.0]), None);
        }
    }

    #[test]
    fn realistic_shuffled_and_with_duplicates() {
        let mut rng = Lcg(77);
        let mut pts = realistic_points(4);
        for i in (1..pts.len()).rev() {
            pts.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let extra: Vec<Pt> = pts.iter().step_by(5).copied().collect();
        pts.extend(extra);
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        check_triangulation(&nd);
        check_affine(&nd, &pts, &mut rng, 1000);
    }

    #[test]
    fn timing_realistic() {
        let mut pts = realistic_points(1);
        let mut rng = Lcg(1);
        while pts.len() < 1700 {
            let n = [1, 2, 3, 4, 6, 8, 12, 16][rng.below(8) as usize];
            pts.push([
                n,
                n + rng.below(3 * n as u64 + 1) as i64,
                4 + rng.below(1021) as i64,
            ]);
        }
        pts.truncate(1700);
        let vals = affine_values(&pts);
        // Best of five builds (the machine may be shared).
        let mut build = std::time::Duration::MAX;
        let mut nd = None;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            nd = Some(LinearNd::new(&pts, &vals).unwrap());
            build = build.min(t.elapsed());
        }
        let nd = nd.unwrap();
        let random: Vec<[f64; 3]> = (0..20000).map(|_| inside_query(&mut rng, &pts)).collect();
        let integer: Vec<[f64; 3]> = (0..20000)
            .map(|_| {
                let n = 1 + rng.below(16);
                let r = n + rng.below(3 * n + 1);
                [n as f64, r as f64, 4.0 + rng.below(1021) as f64]
            })
            .collect();
        let mut acc = 0.0;
        let mut per_query = Vec::new();
        for queries in [&random, &integer] {
            let t = std::time::Instant::now();
            for q in queries.iter() {
                acc += nd.eval(*q).map_or(0.0, |v| v[0]);
            }
            per_query.push(t.elapsed() / queries.len() as u32);
        }
        println!(
            "1700 points: {} tetrahedra, build {build:?}, query {:?} (random inside) / {:?} (integer), grid {} cells / {} entries",
            nd.num_tetrahedra(),
            per_query[0],
            per_query[1],
            nd.grid.start.len() - 1,
            nd.grid.items.len(),
        );
        assert!(acc.is_finite());
    }

    #[test]
    fn data_values_reproduced() {
        let mut rng = Lcg(21);
        let pts: Vec<Pt> = (0..300)
            .map(|_| [0, 1, 2].map(|_| rng.below(50) as i64))
            .collect();
        let vals: Vec<[f64; 2]> = (0..pts.len())
            .map(|_| [rng.unit(), 10.0 * rng.unit()])
            .collect();
        let nd = LinearNd::new(&pts, &vals).unwrap();
        check_triangulation(&nd);
        let mut first: HashMap<Pt, [f64; 2]> = HashMap::new();
        for (p, v) in pts.iter().zip(&vals) {
            first.entry(*p).or_insert(*v);
        }
        for (p, v) in &first {
            let got = nd.eval(p.map(|x| x as f64)).unwrap();
            assert!((got[0] - v[0]).abs() < 1e-12 && (got[1] - v[1]).abs() < 1e-12);
        }
    }

    #[test]
    fn duplicates_keep_first_value() {
        let pts = [
            [0, 0, 0],
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [1, 0, 0],
            [0, 0, 0],
        ];
        let vals = [
            [1.0, 2.0],
            [3.0, 4.0],
            [5.0, 6.0],
            [7.0, 8.0],
            [99.0, 99.0],
            [-1.0, -1.0],
        ];
        let nd = LinearNd::new(&pts, &vals).unwrap();
        assert_eq!(nd.num_tetrahedra(), 1);
        assert_eq!(nd.eval([0.0, 0.0, 0.0]), Some([1.0, 2.0]));
        assert_eq!(nd.eval([1.0, 0.0, 0.0]), Some([3.0, 4.0]));
        let mid = nd.eval([0.5, 0.0, 0.0]).unwrap();
        assert!((mid[0] - 2.0).abs() < 1e-15 && (mid[1] - 3.0).abs() < 1e-15);
        assert_eq!(nd.eval([0.5, 0.5, 0.5]), None);
    }

    #[test]
    fn errors() {
        let v = |n: usize| vec![[0.0; 2]; n];
        let coplanar: Vec<Pt> = (0..50).map(|i| [i % 7, i / 7, 3]).collect();
        assert_eq!(
            LinearNd::new(&coplanar, &v(50)).err(),
            Some(InterpError::Degenerate)
        );
        let tilted: Vec<Pt> = (0..30).map(|i| [i % 5, i / 5, i % 5 + i / 5]).collect();
        assert_eq!(
            LinearNd::new(&tilted, &v(30)).err(),
            Some(InterpError::Degenerate)
        );
        let collinear: Vec<Pt> = (0..10).map(|i| [i, 2 * i, 3 * i]).collect();
        assert_eq!(
            LinearNd::new(&collinear, &v(10)).err(),
            Some(InterpError::Degenerate)
        );
        let same = [[1, 1, 1]; 6];
        assert_eq!(
            LinearNd::new(&same, &v(6)).err(),
            Some(InterpError::TooFewPoints)
        );
        assert_eq!(
            LinearNd::new(&[], &[]).err(),
            Some(InterpError::TooFewPoints)
        );
        let three = [[0, 0, 0], [1, 0, 0], [0, 1, 0]];
        assert_eq!(
            LinearNd::new(&three, &v(3)).err(),
            Some(InterpError::TooFewPoints)
        );
        assert_eq!(
            LinearNd::new(&three, &v(2)).err(),
            Some(InterpError::LengthMismatch)
        );
        let big = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, i64::MIN]];
        assert_eq!(
            LinearNd::new(&big, &v(4)).err(),
            Some(InterpError::OutOfRange)
        );
        assert!(!InterpError::Degenerate.to_string().is_empty());
        // Coplanar prefix followed by one point off the plane.
        let mut pts = coplanar.clone();
        pts.push([2, 2, 4]);
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        check_triangulation(&nd);
        check_affine(&nd, &pts, &mut Lcg(1), 200);
    }

    #[test]
    fn outside_and_non_finite_queries() {
        let pts: Vec<Pt> = (0..8)
            .map(|i| [(i & 1) * 10, ((i >> 1) & 1) * 10, ((i >> 2) & 1) * 10])
            .collect();
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        assert_eq!(nd.eval([f64::NAN, 1.0, 1.0]), None);
        assert_eq!(nd.eval([f64::INFINITY, 1.0, 1.0]), None);
        assert_eq!(nd.eval([11.0, 1.0, 1.0]), None);
        assert_eq!(nd.eval([5.0, 5.0, -1e-6]), None);
        assert!(nd.eval([5.0, 5.0, 0.0]).is_some());
        assert!(nd.eval([10.0, 10.0, 10.0]).is_some());
    }

    #[test]
    fn fuzz_degenerate_small_sets() {
        // Random subsets of small lattices: many coplanar, co-spherical and
        // collinear configurations. Never panics; valid output when built.
        let mut rng = Lcg(1234);
        let mut built = 0;
        for round in 0..400 {
            let side = 2 + (round % 4) as u64;
            let n = 4 + rng.below(40) as usize;
            let pts: Vec<Pt> = (0..n)
                .map(|_| [0, 1, 2].map(|_| rng.below(side) as i64 * (1 + (round % 3) as i64)))
                .collect();
            match LinearNd::new(&pts, &affine_values(&pts)) {
                Ok(nd) => {
                    built += 1;
                    check_triangulation(&nd);
                    let uniq = nd.points.clone();
                    check_affine(&nd, &uniq, &mut rng, 50);
                }
                Err(e) => assert!(matches!(
                    e,
                    InterpError::Degenerate | InterpError::TooFewPoints
                )),
            }
        }
        assert!(built > 300);
    }

    #[test]
    fn deterministic() {
        let pts = realistic_points(5);
        let a = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        let b = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        assert_eq!(
            a.tets.iter().map(|t| t.v).collect::<Vec<_>>(),
            b.tets.iter().map(|t| t.v).collect::<Vec<_>>()
        );
    }

    #[test]
    fn grid_lookup_matches_brute_force() {
        // The bucket grid returns exactly the lowest-index tetrahedron that
        // contains the query (integer queries often lie on shared faces).
        let pts = realistic_points(6);
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        let mut rng = Lcg(6);
        for i in 0..4000 {
            let q = if i % 2 == 0 {
                let n = 1 + rng.below(16);
                let r = n + rng.below(3 * n + 1);
                [n as f64, r as f64, 4.0 + rng.below(1021) as f64]
            } else {
                inside_query(&mut rng, &pts)
            };
            let brute = nd.tets.iter().position(|t| t.bary(&q).is_some());
            let via_grid = nd
                .grid
                .bucket(&q)
                .iter()
                .copied()
                .find(|&t| nd.tets[t as usize].bary(&q).is_some());
            assert_eq!(brute, via_grid.map(|t| t as usize), "{q:?}");
            assert_eq!(brute.is_some(), nd.eval(q).is_some());
        }
    }

    #[test]
    fn wider_coordinates_use_wider_predicates() {
        // Larger spans take the mixed and the i128 predicates; same checks.
        let mut rng = Lcg(19);
        for (scale, width) in [([1, 1, 30], Width::Mid), ([5000, 3000, 90], Width::Wide)] {
            let mut pts: Vec<Pt> = realistic_points(7)
                .iter()
                .map(|p| [0, 1, 2].map(|k| p[k] * scale[k]))
                .collect();
            pts.truncate(600);
            pts.push([0, 0, 0]);
            assert_eq!(Width::for_points(&pts), width);
            let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
            check_triangulation(&nd);
            check_affine(&nd, &pts, &mut rng, 500);
        }
        let m = MAX_COORD;
        let corners: Vec<Pt> = (0..8)
            .map(|i| [0, 1, 2].map(|k| if (i >> k) & 1 == 1 { m } else { -m }))
            .chain((0..40).map(|_| [0, 1, 2].map(|_| rng.below(2 * m as u64 + 1) as i64 - m)))
            .collect();
        let nd = LinearNd::new(&corners, &affine_values(&corners)).unwrap();
        assert_eq!(check_triangulation(&nd), 6 * (2 * m as i128).pow(3));
    }

    #[test]
    fn lowest_index_on_shared_face() {
        // On a face shared by two tetrahedra the lowest-index one is used.
        let pts: Vec<Pt> = (0..8)
            .map(|i| [(i & 1) * 6, ((i >> 1) & 1) * 6, ((i >> 2) & 1) * 6])
            .collect();
        let nd = LinearNd::new(&pts, &affine_values(&pts)).unwrap();
        let mut rng = Lcg(8);
        for _ in 0..2000 {
            let q = [0, 1, 2].map(|_| rng.below(13) as f64 / 2.0);
            let first = nd.tets.iter().position(|t| t.bary(&q).is_some());
            let via_grid = nd
                .grid
                .bucket(&q)
                .iter()
                .copied()
                .find(|&t| nd.tets[t as usize].bary(&q).is_some());
            assert_eq!(first, via_grid.map(|t| t as usize));
        }
    }
}
