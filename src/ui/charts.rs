//! Charts drawn with plotters on canvases: CDFs, utilization and queue length over time.
//! They read results only.

use super::worker::PolicyResult;
use crate::metrics::binned;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

/// Colours of policies, in order.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// CSS colour of the i-th series.
pub fn css_color(i: usize) -> String {
    let c = PALETTE[i % PALETTE.len()];
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// An empirical CDF of each series (values need not be sorted).
pub fn draw_cdf(
    canvas: HtmlCanvasElement,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<f64>)],
    log_x: bool,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let all: Vec<f64> = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    if all.is_empty() {
        root.titled(title, ("sans-serif", 16)).map_err(err)?;
        return root.present().map_err(err);
    }
    let lo = all.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = all.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut chart = ChartBuilder::on(&root);
    chart
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50);
    if log_x && lo > 0.0 {
        let ctx = chart
            .build_cartesian_2d((lo * 0.9..hi * 1.1).log_scale(), 0.0..1.0)
            .map_err(err)?;
        draw_cdf_lines(ctx, x_label, series)?;
    } else {
        let span = (hi - lo).max(1e-9);
        let ctx = chart
            .build_cartesian_2d((lo - 0.02 * span)..(hi + 0.02 * span), 0.0..1.0)
            .map_err(err)?;
        draw_cdf_lines(ctx, x_label, series)?;
    }
    root.present().map_err(err)
}

/// Axes, one line per series and the legend, on a linear or a logarithmic x axis.
fn draw_cdf_lines<'a, X>(
    mut ctx: ChartContext<'a, CanvasBackend, Cartesian2d<X, RangedCoordf64>>,
    x_label: &str,
    series: &[(String, Vec<f64>)],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    ctx.configure_mesh()
        .x_desc(x_label)
        .y_desc("fraction of jobs")
        .draw()
        .map_err(err)?;
    for (i, (name, vals)) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        ctx.draw_series(LineSeries::new(cdf_points(vals), color.stroke_width(2)))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(err)
}

fn cdf_points(vals: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = vals.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut pts = Vec::with_capacity(v.len() * 2);
    for (i, x) in v.iter().enumerate() {
        pts.push((*x, i as f64 / n));
        pts.push((*x, (i + 1) as f64 / n));
    }
    pts
}

/// Lines over time (hours): one per named series of (time s, value) points.
pub fn draw_lines(
    canvas: HtmlCanvasElement,
    title: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    y_max: Option<f64>,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let t_max = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(0.0, f64::max)
        / 3600.0;
    let v_max = y_max
        .unwrap_or_else(|| {
            series
                .iter()
                .flat_map(|s| s.1.iter().map(|p| p.1))
                .fold(0.0, f64::max)
        })
        .max(1e-9);
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..t_max.max(1e-6), 0.0..v_max * 1.05)
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc("time (h)")
        .y_desc(y_label)
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        ctx.draw_series(LineSeries::new(
            pts.iter().map(|(t, v)| (t / 3600.0, *v)),
            color.stroke_width(2),
        ))
        .map_err(err)?
        .label(name.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    if !series.is_empty() {
        ctx.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)
}

/// Utilization per GPU type over time for one policy: busy GPUs / GPUs, time-averaged.
pub fn utilization_series(
    result: &PolicyResult,
    types: &[(String, u32)],
) -> Vec<(String, Vec<(f64, f64)>)> {
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
