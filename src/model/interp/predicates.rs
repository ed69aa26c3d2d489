//! Exact geometric predicates on integer points: orientation and in-sphere tests, evaluated in `i64` or `i128` as the point set's spans allow.

use super::*;

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
pub(super) trait Exact:
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

pub(super) fn diff_t<T: Exact>(a: &Pt, b: &Pt) -> [T; 3] {
    [
        T::of(a[0]) - T::of(b[0]),
        T::of(a[1]) - T::of(b[1]),
        T::of(a[2]) - T::of(b[2]),
    ]
}

pub(super) fn cross_t<T: Exact>(u: &[T; 3], v: &[T; 3]) -> [T; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// `det[b - a; c - a; d - a]`: six times the signed volume of `abcd`; positive
/// when `d` lies on the side of the plane `abc` towards `(b - a) x (c - a)`.
pub(super) fn orient_t<T: Exact>(a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> T {
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
pub(super) fn in_sphere_t<T: Exact, W: Exact + From<T>>(
    a: &Pt,
    b: &Pt,
    c: &Pt,
    d: &Pt,
    e: &Pt,
) -> W {
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
pub(super) enum Width {
    Narrow,
    Mid,
    Wide,
}

impl Width {
    pub(super) fn for_points(pts: &[Pt]) -> Width {
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

    pub(super) fn orient(self, a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> i128 {
        match self {
            Width::Narrow | Width::Mid => orient_t::<i64>(a, b, c, d).into(),
            Width::Wide => orient_t::<i128>(a, b, c, d),
        }
    }

    pub(super) fn in_sphere(self, a: &Pt, b: &Pt, c: &Pt, d: &Pt, e: &Pt) -> i128 {
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
    pub(super) fn in_circle_coplanar(self, a: &Pt, b: &Pt, c: &Pt, p: &Pt) -> bool {
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

pub(super) fn diff(a: &Pt, b: &Pt) -> [i128; 3] {
    diff_t(a, b)
}

pub(super) fn cross(u: &[i128; 3], v: &[i128; 3]) -> [i128; 3] {
    cross_t(u, v)
}

pub(super) fn orient(a: &Pt, b: &Pt, c: &Pt, d: &Pt) -> i128 {
    orient_t(a, b, c, d)
}

#[cfg(test)]
pub(super) fn in_sphere(a: &Pt, b: &Pt, c: &Pt, d: &Pt, e: &Pt) -> i128 {
    in_sphere_t::<i128, i128>(a, b, c, d, e)
}

// ---------------------------------------------------------------------------
// Incremental construction.
// ---------------------------------------------------------------------------
