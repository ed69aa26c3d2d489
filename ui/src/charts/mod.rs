//! The page's charts, each a drawing function on a [`Fig`] (see [`crate::plot`] for
//! what they share): CDFs, lines over time or over steps, and stacked plots sharing an x
//! axis (one unit per axis). The charts of one mechanism are in [`mechanisms`]. They read
//! results only.

pub mod faults;
pub mod mechanisms;

use super::plot::{line, look, Axis, Fig, Key, Swatch};
use super::worker::PolicyResult;
use orrery::metrics::binned;
use plotters::prelude::*;

pub use super::plot::{css_color, PALETTE};
pub use mechanisms::*;

/// Named series of (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// The lowest and highest finite values.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
        })
}

/// The highest finite value, at least `floor`.
fn top(values: impl Iterator<Item = f64>, floor: f64) -> f64 {
    values.filter(|v| v.is_finite()).fold(floor, f64::max)
}

/// An empirical CDF of each series (values need not be sorted); the x axis logarithmic
/// when `log_x` and the values span at least a decade.
pub fn cdf(
    f: &mut Fig,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<f64>)],
    log_x: bool,
) -> Result<(), String> {
    let Some((lo, hi)) = bounds(series.iter().flat_map(|s| s.1.iter().copied())) else {
        return f.message(title, "No finished job to chart.");
    };
    let keys: Vec<Key> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key::series(i, &s.0))
        .collect();
    let area = f.frame(title, &keys)?;
    let (x, desc) = if log_x && lo > 0.0 && hi / lo >= 10.0 {
        (
            Axis::log(lo / 1.1, hi * 1.1, f.x_ticks()),
            format!("{x_label}, log scale"),
        )
    } else {
        let pad = 0.02 * (hi - lo).max(1e-9);
        (
            Axis::linear(lo - pad, hi + pad, f.x_ticks()),
            x_label.to_string(),
        )
    };
    let y = Axis::linear(0.0, 1.0, f.y_ticks(1.0).min(6));
    let mut plot = f.plot(&area, (x, &desc), (y, "fraction of jobs"), 0)?;
    for (i, (_, vals)) in series.iter().enumerate() {
        line(&mut plot, cdf_points(vals), look(i), 2)?;
    }
    Ok(())
}

fn cdf_points(vals: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = vals.iter().copied().filter(|x| x.is_finite()).collect();
    orrery::order::sort_floats(&mut v);
    let n = v.len() as f64;
    let mut pts = Vec::with_capacity(v.len() * 2);
    for (i, x) in v.iter().enumerate() {
        pts.push((*x, i as f64 / n));
        pts.push((*x, (i + 1) as f64 / n));
    }
    pts
}

/// Lines over time (hours): one per named series of (time s, value) points; the y axis up
/// to `y_max` when given.
pub fn lines(
    f: &mut Fig,
    title: &str,
    y_label: &str,
    series: &[Series],
    y_max: Option<f64>,
) -> Result<(), String> {
    let t_max = top(series.iter().flat_map(|s| s.1.iter().map(|p| p.0)), 1e-3) / 3600.0;
    let v_max = y_max
        .unwrap_or_else(|| top(series.iter().flat_map(|s| s.1.iter().map(|p| p.1)), 1e-9) * 1.05);
    let keys: Vec<Key> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key::series(i, &s.0))
        .collect();
    let area = f.frame(title, &keys)?;
    let x = Axis::linear(0.0, t_max, f.x_ticks());
    let y = Axis::linear(0.0, v_max, f.y_ticks(1.0));
    let mut plot = f.plot(&area, (x, "time (h)"), (y, y_label), 0)?;
    for (i, (_, pts)) in series.iter().enumerate() {
        line(
            &mut plot,
            pts.iter().map(|(t, v)| (t / 3600.0, *v)),
            look(i),
            2,
        )?;
    }
    Ok(())
}

/// One plot of a [`stacked`] chart: its y axis's description and its series, coloured
/// from the palette's `first` colour on.
pub struct Panel {
    /// The y axis's description (its one unit).
    pub y_desc: String,
    /// The series.
    pub series: Vec<Series>,
    /// The palette index of the first series.
    pub first: usize,
}

/// Plots stacked over one x axis (`x` given, else the series' range), one unit per plot;
/// `dots` marks each point; the legend names every series once.
pub fn stacked(
    f: &mut Fig,
    title: &str,
    x_desc: &str,
    x: Option<(f64, f64)>,
    panels: &[Panel],
    dots: bool,
) -> Result<(), String> {
    let mut keys: Vec<Key> = Vec::new();
    for p in panels {
        for (i, (name, _)) in p.series.iter().enumerate() {
            let k = Key::series(p.first + i, name);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let area = f.frame(title, &keys)?;
    let (x0, x1) = x
        .or_else(|| {
            bounds(
                panels
                    .iter()
                    .flat_map(|p| p.series.iter().flat_map(|s| s.1.iter().map(|q| q.0))),
            )
        })
        .unwrap_or((0.0, 1.0));
    let x1 = x1.max(x0 + 1e-9);
    let n = panels.len().max(1);
    let parts = area.split_evenly((n, 1));
    for (k, (part, p)) in parts.iter().zip(panels).enumerate() {
        let (lo, hi) =
            bounds(p.series.iter().flat_map(|s| s.1.iter().map(|q| q.1))).unwrap_or((0.0, 1.0));
        let lo = lo.min(0.0);
        let hi = hi.max(lo + 1e-9);
        let y = Axis::linear(lo, hi + 0.06 * (hi - lo), f.y_ticks(1.0 / n as f64));
        let last = k + 1 == n;
        let xa = Axis::linear(x0, x1, f.x_ticks());
        let mut plot = f.plot(
            part,
            (xa, if last { x_desc } else { "" }),
            (y, &p.y_desc),
            0,
        )?;
        for (i, (_, pts)) in p.series.iter().enumerate() {
            let (c, d) = look(p.first + i);
            line(&mut plot, pts.iter().copied(), (c, d), 2)?;
            if dots {
                plot.draw_series(pts.iter().map(|&q| Circle::new(q, 3, c.filled())))
                    .map_err(|e| format!("{e:?}"))?;
            }
        }
    }
    Ok(())
}

/// Utilization per GPU type over time for one policy: busy GPUs / GPUs, time-averaged.
pub fn utilization_series(result: &PolicyResult, types: &[(String, u32)]) -> Vec<Series> {
    types
        .iter()
        .enumerate()
        .map(|(t, (name, count))| {
            let pts = binned(&result.series, 200, |p| {
                f64::from(*p.busy_gpus.get(t).unwrap_or(&0)) / f64::from((*count).max(1))
            });
            (name.clone(), pts)
        })
        .collect()
}

/// Queue length (active jobs not running) over time, time-averaged.
pub fn queue_series(result: &PolicyResult) -> Vec<(f64, f64)> {
    binned(&result.series, 200, |p| {
        p.active.saturating_sub(p.running) as f64
    })
}

/// A swatch of a filled block of `c` at opacity `a`.
pub fn block(c: RGBColor, a: f64) -> Swatch {
    Swatch::Block(c.mix(a))
}
