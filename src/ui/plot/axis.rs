//! Axes with readable ticks: linear axes on round steps, logarithmic axes on powers of ten
//! (or round durations), categories; each tick has its label, so no two labels repeat and
//! each shows as many decimals as its step needs.

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use std::ops::Range;

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

/// A number with at most three significant digits, trailing zeros dropped.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        format!("{v:.1e}")
    };
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A count: `500`, `20k`, `3M`.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", short(v / 1e3))
    } else {
        short(v)
    }
}

/// Seconds as a short duration: `45 s`, `10 min`, `3 h`, `1.5 d`.
pub fn span_label(s: f64) -> String {
    if s < 60.0 {
        format!("{} s", short(s))
    } else if s < 3600.0 {
        format!("{} min", short(s / 60.0))
    } else if s < 86_400.0 {
        format!("{} h", short(s / 3600.0))
    } else {
        format!("{} d", short(s / 86_400.0))
    }
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

    /// Where `v` falls on the axis, 0 at `lo` and 1 at `hi`.
    fn fraction(&self, v: f64) -> f64 {
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

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = f64::from(limit.1 - limit.0);
        limit.0 + (self.fraction(*v) * span).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.ticks.iter().map(|t| t.0).collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, v: &f64) -> String {
        let tol = 1e-9 * v.abs().max(1e-9);
        self.ticks
            .iter()
            .find(|t| (t.0 - v).abs() <= tol)
            .map_or_else(|| short(*v), |t| t.1.clone())
    }
}
