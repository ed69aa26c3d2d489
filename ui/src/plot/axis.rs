//! The page's axes as plotters coordinates: [`Coord`] holds an [`orrery::view::axis::Axis`]
//! (its ticks and labels, tested natively), which maps values to pixels and names its ticks
//! for plotters.

pub use orrery::view::axis::{tick_count, Axis};
pub use orrery::view::format::{compact, short, span_label};
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use std::ops::Range;

/// An [`Axis`] as a plotters coordinate.
#[derive(Debug, Clone)]
pub struct Coord(pub Axis);

impl Ranged for Coord {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = f64::from(limit.1 - limit.0);
        limit.0 + (self.0.fraction(*v) * span).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.0.ticks().iter().map(|t| t.0).collect()
    }

    fn range(&self) -> Range<f64> {
        self.0.lo()..self.0.hi()
    }
}

impl ValueFormatter<f64> for Coord {
    fn format_ext(&self, v: &f64) -> String {
        let tol = 1e-9 * v.abs().max(1e-9);
        self.0
            .ticks()
            .iter()
            .find(|t| (t.0 - v).abs() <= tol)
            .map_or_else(|| short(*v), |t| t.1.clone())
    }
}
