//! Charts of a trace's shape (the Trace shape panel), drawn with plotters on canvases: bars
//! by category, and a CDF drawn from quantiles on a logarithmic axis. They read a trace's
//! statistics only.

use super::charts::{draw_message, PALETTE};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Bars in groups: one group per category (labelled by `labels`), one bar per series in
/// each, side by side; values in `y_label`'s unit.
pub fn draw_grouped_bars(
    canvas: HtmlCanvasElement,
    title: &str,
    x_label: &str,
    y_label: &str,
    labels: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<(), String> {
    if labels.is_empty() || series.is_empty() {
        return draw_message(canvas, title, "Nothing to chart.");
    }
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let y_max = series
        .iter()
        .flat_map(|s| s.1.iter().copied().map(finite))
        .fold(1e-9, f64::max);
    let n = labels.len();
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(20)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..y_max * 1.12)
        .map_err(err)?;
    let label_of = |v: &f64| index(*v, n).map_or_else(String::new, |i| labels[i].clone());
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(16))
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&label_of)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    let k = series.len() as f64;
    let width = 0.8 / k;
    for (s, (name, values)) in series.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        ctx.draw_series(values.iter().take(n).enumerate().map(|(i, &v)| {
            let x0 = i as f64 - 0.4 + s as f64 * width;
            Rectangle::new([(x0, 0.0), (x0 + width, finite(v))], color.filled())
        }))
        .map_err(err)?
        .label(name.as_str())
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// A histogram of counts over consecutive bins (arrivals per hour or per day), the bins
/// labelled by `label_of` (about eight labels).
pub fn draw_bins(
    canvas: HtmlCanvasElement,
    title: &str,
    x_label: &str,
    y_label: &str,
    counts: &[f64],
    label_of: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    if counts.is_empty() {
        return draw_message(canvas, title, "Nothing to chart.");
    }
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let y_max = counts.iter().copied().map(finite).fold(1.0, f64::max);
    let n = counts.len();
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..y_max * 1.08)
        .map_err(err)?;
    let x_fmt = |v: &f64| index(*v, n).map_or_else(String::new, label_of);
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(6))
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    let color = PALETTE[0];
    // Bars touch: a dense histogram reads as an area.
    ctx.draw_series(counts.iter().enumerate().map(|(i, &c)| {
        let x = i as f64;
        Rectangle::new([(x - 0.45, 0.0), (x + 0.45, finite(c))], color.filled())
    }))
    .map_err(err)?;
    root.present().map_err(err)
}

/// The CDF given by `quantiles` (the values at fractions 0, 1/n, ..., 1, ascending) on a
/// logarithmic x axis; `seconds` labels the axis with durations (1 min, 1 h, 1 d...).
pub fn draw_quantile_cdf(
    canvas: HtmlCanvasElement,
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
        return draw_message(canvas, title, "No positive values to chart.");
    };
    let (lo, hi) = (lo * 0.8, (hi * 1.25).max(lo * 2.0));
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let ticks = log_ticks(lo, hi, seconds);
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((lo..hi).log_scale().with_key_points(ticks), 0.0..1.0)
        .map_err(err)?;
    let x_fmt = |v: &f64| {
        if seconds {
            span_label(*v)
        } else {
            number_label(*v)
        }
    };
    ctx.configure_mesh()
        .x_desc(x_label)
        .y_desc("fraction of jobs")
        .x_label_formatter(&x_fmt)
        .draw()
        .map_err(err)?;
    // Steps: a quantile holds until the next one.
    let mut steps = Vec::with_capacity(pts.len() * 2);
    for (i, &(q, f)) in pts.iter().enumerate() {
        if i > 0 {
            steps.push((q, pts[i - 1].1));
        }
        steps.push((q, f));
    }
    ctx.draw_series(LineSeries::new(steps, PALETTE[0].stroke_width(2)))
        .map_err(err)?;
    root.present().map_err(err)
}

/// The index of the bar at `v` on an axis of `n` bars, when `v` is a whole number (the
/// axis's own ticks fall between bars on short axes: those get no label).
fn index(v: f64, n: usize) -> Option<usize> {
    let i = v.round();
    ((v - i).abs() < 1e-6 && i >= 0.0 && i < n as f64).then_some(i as usize)
}

/// Ticks of a logarithmic axis over `[lo, hi]`: round durations (seconds), else powers of
/// ten; the two ends when fewer than two fall inside.
fn log_ticks(lo: f64, hi: f64, seconds: bool) -> Vec<f64> {
    // 10 h is left out: on a log axis it sits next to 1 d.
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 3600.0;
    const DAY: f64 = 86_400.0;
    const DURATIONS: [f64; 9] = [
        1.0,
        10.0,
        MINUTE,
        10.0 * MINUTE,
        HOUR,
        DAY,
        10.0 * DAY,
        100.0 * DAY,
        1000.0 * DAY,
    ];
    let inside = |v: &f64| *v >= lo && *v <= hi;
    let ticks: Vec<f64> = if seconds {
        DURATIONS.iter().copied().filter(inside).collect()
    } else {
        (-3..=12).map(|e| 10f64.powi(e)).filter(inside).collect()
    };
    if ticks.len() >= 2 {
        ticks
    } else {
        let mid = (lo * hi).sqrt();
        vec![lo * 1.1, mid, hi / 1.1]
    }
}

/// A number with at most three significant digits, trailing zeros dropped.
fn short(v: f64) -> String {
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
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

/// A count of steps: `500`, `20k`, `3M`.
fn number_label(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", short(v / 1e3))
    } else {
        short(v)
    }
}
