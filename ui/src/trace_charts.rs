//! Charts of a trace's shape (the Trace shape panel): bars by category, and a CDF drawn
//! from quantiles on a logarithmic axis. They read a trace's statistics only.

use super::plot::{line, look, Axis, Fig, Key, Swatch};
use plotters::prelude::*;

pub use super::plot::axis::span_label;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Bars in groups: one group per category (labelled by `labels`), one bar per series in
/// each, side by side; values in `y_label`'s unit.
pub fn grouped_bars(
    f: &mut Fig,
    title: &str,
    x_label: &str,
    y_label: &str,
    labels: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<(), String> {
    if labels.is_empty() || series.is_empty() {
        return f.message(title, "Nothing to chart.");
    }
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let y_max = series
        .iter()
        .flat_map(|s| s.1.iter().copied().map(finite))
        .fold(1e-9, f64::max);
    let keys: Vec<Key> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key::new(s.0.clone(), Swatch::Block(look(i).0.to_rgba())))
        .collect();
    let area = f.frame(title, &keys)?;
    let n = labels.len();
    let label_room = 12 + 7 * labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as i32;
    let x = Axis::categories(labels, ((f.w as i32 - 90) / label_room).max(1) as usize);
    let y = Axis::linear(0.0, y_max * 1.08, f.y_ticks(1.0));
    let mut plot = f.plot(&area, (x, x_label), (y, y_label), 0)?;
    let width = 0.8 / series.len() as f64;
    for (s, (_, values)) in series.iter().enumerate() {
        let color = look(s).0;
        plot.draw_series(values.iter().take(n).enumerate().map(|(i, &v)| {
            let x0 = i as f64 - 0.4 + s as f64 * width;
            Rectangle::new([(x0, 0.0), (x0 + width, finite(v))], color.filled())
        }))
        .map_err(err)?;
    }
    Ok(())
}

/// A histogram of counts over consecutive bins (arrivals per hour or per day), the bins
/// labelled by `label_of`.
pub fn bins(
    f: &mut Fig,
    title: &str,
    x_label: &str,
    y_label: &str,
    counts: &[f64],
    label_of: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    if counts.is_empty() {
        return f.message(title, "Nothing to chart.");
    }
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let y_max = counts.iter().copied().map(finite).fold(1.0, f64::max);
    let area = f.frame(title, &[])?;
    let labels: Vec<String> = (0..counts.len()).map(label_of).collect();
    let x = Axis::categories(&labels, f.x_ticks().min(8));
    let y = Axis::linear(0.0, y_max * 1.08, f.y_ticks(1.0));
    let mut plot = f.plot(&area, (x, x_label), (y, y_label), 0)?;
    let color = look(0).0;
    // Bars nearly touch: a dense histogram reads as an area.
    plot.draw_series(counts.iter().enumerate().map(|(i, &c)| {
        let x = i as f64;
        Rectangle::new([(x - 0.45, 0.0), (x + 0.45, finite(c))], color.filled())
    }))
    .map_err(err)?;
    Ok(())
}

/// The CDF given by `quantiles` (the values at fractions 0, 1/n, ..., 1, ascending) on a
/// logarithmic x axis; `seconds` labels the axis with durations (1 min, 1 h, 1 d...).
pub fn quantile_cdf(
    f: &mut Fig,
    title: &str,
    x_label: &str,
    quantiles: &[f64],
    seconds: bool,
) -> Result<(), String> {
    let n = quantiles.len().saturating_sub(1).max(1) as f64;
    let pts: Vec<(f64, f64)> = quantiles
        .iter()
        .enumerate()
        .map(|(k, &q)| (q, k as f64 / n))
        .filter(|(q, _)| q.is_finite() && *q > 0.0)
        .collect();
    let (Some(&(lo, _)), Some(&(hi, _))) = (pts.first(), pts.last()) else {
        return f.message(title, "No positive values to chart.");
    };
    let (lo, hi) = (lo * 0.8, (hi * 1.25).max(lo * 2.0));
    let area = f.frame(title, &[])?;
    let x = if seconds {
        Axis::durations(lo, hi, f.x_ticks())
    } else {
        Axis::log(lo, hi, f.x_ticks())
    };
    let y = Axis::linear(0.0, 1.0, f.y_ticks(1.0).min(6));
    let mut plot = f.plot(&area, (x, x_label), (y, "fraction of jobs"), 0)?;
    // Steps: a quantile holds until the next one.
    let mut steps = Vec::with_capacity(pts.len() * 2);
    for (i, &(q, p)) in pts.iter().enumerate() {
        if i > 0 {
            steps.push((q, pts[i - 1].1));
        }
        steps.push((q, p));
    }
    line(&mut plot, steps, look(0), 2)
}
