//! Chart axes with readable ticks: linear axes on round steps, logarithmic axes on powers
//! of ten (or round durations), categories; each tick has its label, so no two labels
//! repeat and each shows as many decimals as its step needs. Pure arithmetic: the page's
//! charts draw with it (`ui::plot` makes it a plotters coordinate), and it is tested here.

use crate::view::format::{compact, span_label};

/// An axis: its range, whether it is logarithmic, and its ticks with their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<(f64, String)>,
}

/// Most ticks on an axis `px` pixels long with labels about `spacing` pixels apart.
pub fn tick_count(px: i32, spacing: i32) -> usize {
    (px / spacing.max(1)).clamp(2, 10) as usize
}

/// A round step near `span / n`: 1, 2, 2.5 or 5 times a power of ten.
fn nice_step(span: f64, n: usize) -> f64 {
    let raw = (span / n.max(1) as f64).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

impl Axis {
    /// A linear axis over `[lo, hi]` with at most `n` ticks on round steps.
    pub fn linear(lo: f64, hi: f64, n: usize) -> Axis {
        let (lo, hi) = ordered(lo, hi);
        Axis::stepped(lo, hi, nice_step(hi - lo, n))
    }

    /// A linear axis over `[lo, hi]` with at most about `n` ticks on whole numbers (steps of
    /// 1, 2 or 5 times a power of ten).
    pub fn integers(lo: f64, hi: f64, n: usize) -> Axis {
        let (lo, hi) = ordered(lo, hi);
        let step = nice_step(hi - lo, n).max(1.0);
        let mag = 10f64.powf(step.log10().floor());
        let step = if (step / mag - 2.5).abs() < 1e-9 {
            5.0 * mag
        } else {
            step
        };
        Axis::stepped(lo, hi, step.round().max(1.0))
    }

    fn stepped(lo: f64, hi: f64, step: f64) -> Axis {
        let mantissa = step / 10f64.powf(step.log10().floor());
        // 2.5 times a power of ten needs one more decimal than the power (0.25, 2.5).
        let extra = if (mantissa - 2.5).abs() < 1e-9 {
            1.0
        } else {
            0.0
        };
        let decimals = (-step.log10().floor() + extra).max(0.0) as usize;
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        let ticks = (first..=last)
            .take(64)
            .map(|k| {
                let v = k as f64 * step;
                let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
                let label = if step >= 1e4 {
                    compact(v)
                } else {
                    format!("{v:.decimals$}")
                };
                (v, label)
            })
            .collect();
        Axis {
            lo,
            hi,
            log: false,
            ticks,
        }
    }

    /// A logarithmic axis over `[lo, hi]` (both positive) with at most `n` ticks: powers of
    /// ten, with 2 and 5 times them when fewer than two powers fall inside.
    pub fn log(lo: f64, hi: f64, n: usize) -> Axis {
        let (lo, hi) = ordered(lo.max(1e-12), hi.max(1e-12));
        let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
        let (e0, e1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let decades: Vec<f64> = (e0..=e1).map(|e| 10f64.powi(e)).filter(inside).collect();
        let mut values = if decades.len() >= 2 {
            let every = decades.len().div_ceil(n.max(2));
            decades.into_iter().step_by(every.max(1)).collect()
        } else {
            let mut v: Vec<f64> = (e0..=e1)
                .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
                .filter(inside)
                .collect();
            if v.len() > n {
                v.retain(|x| (x / 10f64.powf(x.log10().floor()) - 5.0).abs() > 1e-6);
            }
            v
        };
        if values.len() < 2 {
            values = vec![lo, (lo * hi).sqrt(), hi];
        }
        let ticks = values.into_iter().map(|v| (v, compact(v))).collect();
        Axis {
            lo,
            hi,
            log: true,
            ticks,
        }
    }

    /// A logarithmic axis of durations (seconds) over `[lo, hi]`, ticked at round durations
    /// (1 s, 10 s, 1 min, 10 min, 1 h, 1 d, 10 d...) and labelled as such.
    pub fn durations(lo: f64, hi: f64, n: usize) -> Axis {
        const DURATIONS: [f64; 9] = [
            1.0,
            10.0,
            60.0,
            600.0,
            3600.0,
            86_400.0,
            864_000.0,
            8_640_000.0,
            86_400_000.0,
        ];
        let mut axis = Axis::log(lo, hi, n);
        let inside: Vec<f64> = DURATIONS
            .iter()
            .copied()
            .filter(|v| *v >= axis.lo && *v <= axis.hi)
            .collect();
        let values = if inside.len() >= 2 {
            let every = inside.len().div_ceil(n.max(2));
            inside.into_iter().step_by(every.max(1)).collect()
        } else {
            axis.ticks.iter().map(|t| t.0).collect::<Vec<_>>()
        };
        axis.ticks = values.into_iter().map(|v| (v, span_label(v))).collect();
        axis
    }

    /// A logarithmic axis when `[lo, hi]` spans at least two decades of positive values,
    /// else a linear one.
    pub fn auto(lo: f64, hi: f64, n: usize) -> Axis {
        if lo > 0.0 && hi / lo >= 100.0 {
            Axis::log(lo, hi, n)
        } else {
            Axis::linear(lo, hi, n)
        }
    }

    /// An axis of `labels.len()` categories at 0, 1, ..., each labelled (every k-th when
    /// more than `n` would crowd).
    pub fn categories(labels: &[String], n: usize) -> Axis {
        let every = labels.len().div_ceil(n.max(1)).max(1);
        Axis {
            lo: -0.5,
            hi: labels.len().max(1) as f64 - 0.5,
            log: false,
            ticks: labels
                .iter()
                .enumerate()
                .step_by(every)
                .map(|(i, l)| (i as f64, l.clone()))
                .collect(),
        }
    }

    /// The same (linear) axis reaching down to `lo`, without ticks below its range.
    pub fn extended(mut a: Axis, lo: f64) -> Axis {
        if !a.log && lo < a.lo {
            a.lo = lo;
        }
        a
    }

    /// The same axis with its ticks labelled by `f`.
    pub fn labelled(mut self, f: impl Fn(f64) -> String) -> Axis {
        for t in &mut self.ticks {
            t.1 = f(t.0);
        }
        self
    }

    /// Whether the axis is logarithmic.
    pub fn is_log(&self) -> bool {
        self.log
    }

    /// The widest tick label, in characters.
    pub fn label_chars(&self) -> usize {
        self.ticks
            .iter()
            .map(|t| t.1.chars().count())
            .max()
            .unwrap_or(1)
    }

    /// The range's low end.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// The range's high end.
    pub fn hi(&self) -> f64 {
        self.hi
    }

    /// The ticks: value and label.
    pub fn ticks(&self) -> &[(f64, String)] {
        &self.ticks
    }

    /// Where `v` falls on the axis, 0 at `lo` and 1 at `hi` (clamped to +-100).
    pub fn fraction(&self, v: f64) -> f64 {
        let t = if self.log {
            let v = if v > 0.0 { v } else { self.lo };
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        if t.is_finite() {
            t.clamp(-100.0, 100.0)
        } else {
            0.0
        }
    }
}

/// `(lo, hi)` finite, in order and apart.
fn ordered(lo: f64, hi: f64) -> (f64, f64) {
    let lo = if lo.is_finite() { lo } else { 0.0 };
    let hi = if hi.is_finite() { hi } else { lo + 1.0 };
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if hi - lo > 1e-12 * hi.abs().max(1.0) {
        (lo, hi)
    } else {
        (lo, lo + lo.abs().max(1.0) * 1e-3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(a: &Axis) -> Vec<&str> {
        a.ticks().iter().map(|t| t.1.as_str()).collect()
    }

    fn distinct(a: &Axis) -> bool {
        let mut l = labels(a);
        let n = l.len();
        l.sort_unstable();
        l.dedup();
        l.len() == n
    }

    #[test]
    fn linear_ticks_fall_on_round_steps_with_the_decimals_they_need() {
        assert_eq!(
            labels(&Axis::linear(0.0, 1.0, 5)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(&Axis::linear(0.0, 100.0, 4)),
            ["0", "25", "50", "75", "100"]
        );
        assert_eq!(
            labels(&Axis::linear(0.0, 1.0, 4)),
            ["0.00", "0.25", "0.50", "0.75", "1.00"]
        );
        assert_eq!(
            labels(&Axis::linear(0.0, 50_000.0, 5)),
            ["0", "10k", "20k", "30k", "40k", "50k"]
        );
        // Reversed, empty and infinite ranges still give an axis with distinct ticks.
        for (lo, hi) in [
            (5.0, 1.0),
            (3.0, 3.0),
            (0.0, f64::INFINITY),
            (f64::NAN, 2.0),
            (1e-9, 2e-9),
        ] {
            let a = Axis::linear(lo, hi, 6);
            assert!(
                a.lo() < a.hi() && distinct(&a),
                "{lo} {hi}: {:?}",
                labels(&a)
            );
        }
        // Every tick of every span inside the range, labels distinct, at most n + 1.
        for k in 1..200 {
            let hi = f64::from(k) * 0.37;
            for n in 2..10 {
                let a = Axis::linear(0.0, hi, n);
                assert!(
                    a.ticks()
                        .iter()
                        .all(|t| t.0 >= -1e-9 && t.0 <= hi * (1.0 + 1e-9)),
                    "{hi}"
                );
                assert!(
                    distinct(&a) && a.ticks().len() <= n + 2,
                    "{hi} {n}: {:?}",
                    labels(&a)
                );
            }
        }
    }

    #[test]
    fn integer_axes_tick_whole_numbers() {
        assert_eq!(
            labels(&Axis::integers(0.0, 8.0, 4)),
            ["0", "2", "4", "6", "8"]
        );
        // A step of 2.5 (8.4 / 4 rounds up to it) becomes 5: no half GPUs.
        assert_eq!(labels(&Axis::integers(0.0, 8.4, 4)), ["0", "5"]);
        assert!(Axis::integers(0.0, 3.0, 10)
            .ticks()
            .iter()
            .all(|t| t.0.fract() == 0.0));
        assert_eq!(labels(&Axis::integers(0.0, 100.0, 4)), ["0", "50", "100"]);
    }

    #[test]
    fn log_axes_tick_powers_of_ten_or_their_halves_and_fifths() {
        let a = Axis::log(0.5, 2000.0, 6);
        assert!(a.is_log());
        assert_eq!(labels(&a), ["1", "10", "100", "1000"]);
        assert_eq!(labels(&Axis::log(1.5, 40.0, 6)), ["2", "5", "10", "20"]);
        let d = Axis::durations(30.0, 2.0 * 86_400.0, 6);
        assert_eq!(labels(&d), ["1 min", "10 min", "1 h", "1 d"]);
        assert!(Axis::auto(1.0, 1000.0, 5).is_log() && !Axis::auto(1.0, 50.0, 5).is_log());
        assert!(!Axis::auto(0.0, 1000.0, 5).is_log());
        for k in 1..60 {
            let hi = 1.7f64.powi(k);
            let a = Axis::log(1.0, hi, 5);
            assert!(
                distinct(&a) && a.ticks().len() >= 2,
                "{hi}: {:?}",
                labels(&a)
            );
        }
    }

    #[test]
    fn categories_fractions_and_relabelling() {
        let names: Vec<String> = (0..30).map(|i| format!("c{i}")).collect();
        let c = Axis::categories(&names, 10);
        assert_eq!(c.ticks().len(), 10);
        assert_eq!(c.label_chars(), 3);
        let a = Axis::linear(0.0, 10.0, 5);
        assert_eq!(a.fraction(5.0), 0.5);
        assert_eq!(a.fraction(f64::NAN), 0.0);
        assert!((Axis::log(1.0, 100.0, 3).fraction(10.0) - 0.5).abs() < 1e-12);
        let e = Axis::extended(a.clone(), -2.0);
        assert_eq!((e.lo(), e.ticks().len()), (-2.0, a.ticks().len()));
        assert_eq!(
            labels(&a.labelled(|v| format!("{v}%"))).first(),
            Some(&"0%")
        );
        assert_eq!(tick_count(500, 80), 6);
        assert_eq!(tick_count(10, 80), 2);
    }
}
