//! Four `f64` lanes, the unit of the method's lane kernels. In the page's build (wasm32
//! with `+simd128`) they are two `f64x2` vectors, so the kernels run as SIMD whatever the
//! opt-level (the page's module is size-optimised, and LLVM neither unrolls nor vectorises
//! at opt-level "s"); elsewhere an array that the compiler vectorises at opt-level 3. Every
//! operation is IEEE per lane (`+ - * /`, square root, comparisons and selections, no fused
//! multiply-add), so both give identical bits.
//!
//! Written by hand because the kernels' speed in the page hinges on the SIMD instructions
//! being emitted at opt-level "s", which no portable-SIMD crate on stable Rust guarantees.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32 as w;

/// Four lanes.
#[derive(Clone, Copy)]
pub(super) struct F4(Repr);

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Repr = [w::v128; 2];
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
type Repr = [f64; 4];

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl F4 {
    /// The first four values of `s`.
    #[inline(always)]
    pub fn load(s: &[f64]) -> F4 {
        let s = &s[..4];
        F4([w::f64x2(s[0], s[1]), w::f64x2(s[2], s[3])])
    }
    /// Into the first four values of `s`.
    #[inline(always)]
    pub fn store(self, s: &mut [f64]) {
        let s = &mut s[..4];
        s[0] = w::f64x2_extract_lane::<0>(self.0[0]);
        s[1] = w::f64x2_extract_lane::<1>(self.0[0]);
        s[2] = w::f64x2_extract_lane::<0>(self.0[1]);
        s[3] = w::f64x2_extract_lane::<1>(self.0[1]);
    }
    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(v: f64) -> F4 {
        F4([w::f64x2_splat(v); 2])
    }
    #[inline(always)]
    fn map(self, f: impl Fn(w::v128) -> w::v128) -> F4 {
        F4([f(self.0[0]), f(self.0[1])])
    }
    #[inline(always)]
    fn zip(self, o: F4, f: impl Fn(w::v128, w::v128) -> w::v128) -> F4 {
        F4([f(self.0[0], o.0[0]), f(self.0[1], o.0[1])])
    }
    /// Each lane's square root.
    #[inline(always)]
    pub fn sqrt(self) -> F4 {
        self.map(|a| w::f64x2_sqrt(a))
    }
    /// Each lane's absolute value.
    #[inline(always)]
    pub fn abs(self) -> F4 {
        self.map(|a| w::f64x2_abs(a))
    }
    /// Per lane `if q < self { q } else { self }`.
    #[inline(always)]
    pub fn keep_less(self, q: F4) -> F4 {
        self.zip(q, |a, b| w::f64x2_pmin(a, b))
    }
    /// Per lane `if b > self { b } else { self }`.
    #[inline(always)]
    pub fn keep_greater(self, b: F4) -> F4 {
        self.zip(b, |a, b| w::f64x2_pmax(a, b))
    }
    /// Per lane `if self < 0 { a } else { b }`.
    #[inline(always)]
    pub fn if_negative(self, a: F4, b: F4) -> F4 {
        let zero = w::f64x2_splat(0.0);
        let m = [w::f64x2_lt(self.0[0], zero), w::f64x2_lt(self.0[1], zero)];
        F4([
            w::v128_bitselect(a.0[0], b.0[0], m[0]),
            w::v128_bitselect(a.0[1], b.0[1], m[1]),
        ])
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl F4 {
    /// The first four values of `s`.
    #[inline(always)]
    pub fn load(s: &[f64]) -> F4 {
        F4([s[0], s[1], s[2], s[3]])
    }
    /// Into the first four values of `s`.
    #[inline(always)]
    pub fn store(self, s: &mut [f64]) {
        s[..4].copy_from_slice(&self.0);
    }
    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(v: f64) -> F4 {
        F4([v; 4])
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f64) -> f64) -> F4 {
        F4(self.0.map(f))
    }
    #[inline(always)]
    fn zip(self, o: F4, f: impl Fn(f64, f64) -> f64) -> F4 {
        F4(std::array::from_fn(|l| f(self.0[l], o.0[l])))
    }
    /// Each lane's square root.
    #[inline(always)]
    pub fn sqrt(self) -> F4 {
        self.map(f64::sqrt)
    }
    /// Each lane's absolute value.
    #[inline(always)]
    pub fn abs(self) -> F4 {
        self.map(f64::abs)
    }
    /// Per lane `if q < self { q } else { self }`.
    #[inline(always)]
    pub fn keep_less(self, q: F4) -> F4 {
        self.zip(q, |a, q| if q < a { q } else { a })
    }
    /// Per lane `if b > self { b } else { self }`.
    #[inline(always)]
    pub fn keep_greater(self, b: F4) -> F4 {
        self.zip(b, |a, b| if b > a { b } else { a })
    }
    /// Per lane `if self < 0 { a } else { b }`.
    #[inline(always)]
    pub fn if_negative(self, a: F4, b: F4) -> F4 {
        F4(std::array::from_fn(|l| {
            if self.0[l] < 0.0 {
                a.0[l]
            } else {
                b.0[l]
            }
        }))
    }
}

impl F4 {
    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f64; 4] {
        let mut a = [0.0; 4];
        self.store(&mut a);
        a
    }
}

macro_rules! lane_op {
    ($trait:ident, $method:ident, $simd:ident, $op:tt) => {
        impl std::ops::$trait for F4 {
            type Output = F4;
            #[inline(always)]
            fn $method(self, o: F4) -> F4 {
                #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
                {
                    self.zip(o, |a, b| w::$simd(a, b))
                }
                #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
                {
                    self.zip(o, |a, b| a $op b)
                }
            }
        }
    };
}
lane_op!(Add, add, f64x2_add, +);
lane_op!(Sub, sub, f64x2_sub, -);
lane_op!(Mul, mul, f64x2_mul, *);
lane_op!(Div, div, f64x2_div, /);

impl std::ops::Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            self.map(|a| w::f64x2_neg(a))
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            self.map(|a| -a)
        }
    }
}

/// `eachN(out, a, b, .., f)`: `out[i] = f(out[i], a[i], b[i], ..)` for every `i`, four at a
/// time, the last few in lanes padded with zeros whose results are dropped. Each element's
/// result is `f`'s of its own values, so the same as an element-by-element loop's. One
/// function per number of inputs: plain arguments, which every opt-level keeps in registers.
macro_rules! each_fn {
    ($name:ident($($a:ident),+)) => {
        #[inline(always)]
        pub(super) fn $name(out: &mut [f64], $($a: &[f64],)+ f: impl Fn(F4, $(each_fn!(@lane $a)),+) -> F4) {
            let n = out.len();
            $(let $a = &$a[..n];)+
            let full = n - n % 4;
            let mut i = 0;
            while i < full {
                let v = f(F4::load(&out[i..i + 4]), $(F4::load(&$a[i..i + 4])),+);
                v.store(&mut out[i..i + 4]);
                i += 4;
            }
            if full < n {
                let pad = |a: &[f64]| {
                    let mut v = [0.0; 4];
                    v[..n - full].copy_from_slice(&a[full..]);
                    F4::load(&v)
                };
                let v = f(pad(out), $(pad($a)),+).to_array();
                out[full..].copy_from_slice(&v[..n - full]);
            }
        }
    };
    (@lane $a:ident) => { F4 };
}
each_fn!(each1(a));
each_fn!(each2(a, b));
each_fn!(each3(a, b, c));
each_fn!(each4(a, b, c, d));

#[cfg(test)]
mod tests {
    use super::F4;

    #[test]
    fn lanes_are_ieee_per_lane() {
        let a = F4::load(&[1.5, -2.0, f64::NAN, 0.0]);
        let b = F4::load(&[0.5, 3.0, 1.0, -0.0]);
        assert_eq!((a + b).to_array()[..2], [2.0, 1.0]);
        assert_eq!((a - b).to_array()[1], -5.0);
        assert_eq!((a * b).to_array()[1], -6.0);
        assert_eq!((a / b).to_array()[0], 3.0);
        assert_eq!(F4::splat(4.0).sqrt().to_array(), [2.0; 4]);
        assert_eq!(a.abs().to_array()[1], 2.0);
        assert!((-F4::splat(0.0)).to_array()[0].is_sign_negative());
        // keep_less: the NaN lane keeps the accumulator; a NaN candidate never wins.
        let acc = F4::load(&[1.0, 1.0, 1.0, 1.0]);
        let q = F4::load(&[0.5, 2.0, f64::NAN, 1.0]);
        assert_eq!(acc.keep_less(q).to_array(), [0.5, 1.0, 1.0, 1.0]);
        assert_eq!(acc.keep_greater(q).to_array(), [1.0, 2.0, 1.0, 1.0]);
        let s = F4::load(&[-1.0, 0.0, -0.0, 2.0]);
        let picked = s.if_negative(F4::splat(7.0), F4::splat(9.0)).to_array();
        assert_eq!(picked, [7.0, 9.0, 9.0, 9.0]);
    }

    #[test]
    fn each_matches_an_element_loop() {
        for n in 0..11 {
            let a: Vec<f64> = (0..n).map(|i| i as f64 * 0.37 - 1.0).collect();
            let b: Vec<f64> = (0..n).map(|i| 2.5 - i as f64 * 0.11).collect();
            let mut out: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let want: Vec<f64> = (0..n).map(|i| out[i] + a[i] / b[i] - a[i] * b[i]).collect();
            super::each2(&mut out, &a, &b, |o, a, b| o + a / b - a * b);
            assert_eq!(out, want);
        }
    }
}
