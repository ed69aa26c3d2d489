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
    crate::order::sort_floats(&mut v);
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

/// A chart that has nothing to show: its title and a line saying why.
pub fn draw_message(canvas: HtmlCanvasElement, title: &str, message: &str) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let area = root.titled(title, ("sans-serif", 16)).map_err(err)?;
    let (w, h) = area.dim_in_pixel();
    let style = TextStyle::from(("sans-serif", 13).into_font())
        .color(&RGBColor(103, 112, 133))
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ));
    // Wrap at about 70 characters so long messages stay on the canvas.
    let mut lines: Vec<String> = Vec::new();
    for word in message.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.len() + word.len() < 70 => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let n = lines.len() as i32;
    for (i, l) in lines.iter().enumerate() {
        let y = h as i32 / 2 + (i as i32 - n / 2) * 18;
        area.draw_text(l, &style, (w as i32 / 2, y)).map_err(err)?;
    }
    root.present().map_err(err)
}

/// A named step series: (time s, value) corners, already step-shaped.
pub type Steps = (String, Vec<(f64, f64)>);

/// An elastic job's configuration over time, one line per policy: GPUs on top, total batch
/// size below, over `[t0, t1]` seconds shown in hours.
pub fn draw_job_history(
    canvas: HtmlCanvasElement,
    title: &str,
    gpus: &[Steps],
    batch: &[Steps],
    (t0, t1): (f64, f64),
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let area = root.titled(title, ("sans-serif", 16)).map_err(err)?;
    let panels = area.split_evenly((2, 1));
    let (x0, x1) = (t0 / 3600.0, (t1 / 3600.0).max(t0 / 3600.0 + 1e-3));
    for (k, (panel, series)) in panels.iter().zip([gpus, batch]).enumerate() {
        let y_max = series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.1))
            .fold(1.0, f64::max);
        let mut ctx = ChartBuilder::on(panel)
            .margin(8)
            .margin_right(24)
            .x_label_area_size(if k == 1 { 36 } else { 22 })
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, 0.0..y_max * 1.08)
            .map_err(err)?;
        let mut mesh = ctx.configure_mesh();
        let x_fmt = |v: &f64| {
            if x1 - x0 >= 5.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        };
        mesh.y_desc(if k == 0 { "GPUs" } else { "total batch size" })
            .y_label_formatter(&|v| format!("{v:.0}"))
            .x_label_formatter(&x_fmt);
        if k == 1 {
            mesh.x_desc("time (h)");
        }
        mesh.draw().map_err(err)?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let width = 2 + u32::from(i == 0);
            ctx.draw_series(LineSeries::new(
                pts.iter().map(|(t, v)| (t / 3600.0, *v)),
                color.stroke_width(width),
            ))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        }
        if k == 0 && !series.is_empty() {
            ctx.configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(err)?;
        }
    }
    root.present().map_err(err)
}

/// An application's best configuration at each GPU count: goodput and throughput on top
/// (examples/s), statistical efficiency and the goodput-maximising total batch size below.
/// `mark` draws a vertical line at a GPU count (the user's choice).
pub fn draw_goodput(
    canvas: HtmlCanvasElement,
    title: &str,
    curve: &[crate::workload::elastic::CurvePoint],
    mark: Option<(u32, &str)>,
) -> Result<(), String> {
    if curve.is_empty() {
        return draw_message(
            canvas,
            title,
            "The application has no configuration that fits this cluster.",
        );
    }
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let area = root.titled(title, ("sans-serif", 16)).map_err(err)?;
    let panels = area.split_evenly((2, 1));
    let g_max = curve.iter().map(|p| p.gpus).max().unwrap_or(1).max(2);
    let x = 0.5..f64::from(g_max) + 0.5;
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let y_max = curve
        .iter()
        .map(|p| finite(p.throughput).max(finite(p.goodput)))
        .fold(1e-9, f64::max);
    let (blue, grey, green, orange, red) = (
        PALETTE[0],
        RGBColor(120, 120, 120),
        PALETTE[2],
        PALETTE[1],
        PALETTE[3],
    );
    let legend = |c: RGBColor| {
        move |(x, y): (i32, i32)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
    };
    // Top: goodput and throughput.
    // The right margin stands for the bottom panel's right axis, so the x axes line up.
    let mut top = ChartBuilder::on(&panels[0])
        .margin(8)
        .margin_right(8 + 56)
        .x_label_area_size(22)
        .y_label_area_size(60)
        .build_cartesian_2d(x.clone(), 0.0..y_max * 1.08)
        .map_err(err)?;
    top.configure_mesh()
        .y_desc("examples/s")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    top.draw_series(LineSeries::new(
        curve.iter().map(|p| (f64::from(p.gpus), finite(p.goodput))),
        blue.stroke_width(3),
    ))
    .map_err(err)?
    .label("goodput")
    .legend(legend(blue));
    top.draw_series(DashedLineSeries::new(
        curve
            .iter()
            .map(|p| (f64::from(p.gpus), finite(p.throughput))),
        6,
        4,
        grey.stroke_width(2),
    ))
    .map_err(err)?
    .label("throughput")
    .legend(legend(grey));
    if let Some((g, label)) = mark {
        let g = f64::from(g);
        top.draw_series(DashedLineSeries::new(
            [(g, 0.0), (g, y_max * 1.08)],
            3,
            3,
            red.stroke_width(2),
        ))
        .map_err(err)?
        .label(label)
        .legend(legend(red));
    }
    top.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err)?;
    // Bottom: efficiency (left axis) and the chosen batch (right axis).
    let b_max = curve
        .iter()
        .map(|p| f64::from(p.batch_size))
        .fold(1.0, f64::max);
    let mut bottom = ChartBuilder::on(&panels[1])
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .right_y_label_area_size(56)
        .build_cartesian_2d(x.clone(), 0.0..1.05)
        .map_err(err)?
        .set_secondary_coord(x, 0.0..b_max * 1.08);
    bottom
        .configure_mesh()
        .x_desc("GPUs")
        .y_desc("efficiency")
        .draw()
        .map_err(err)?;
    bottom
        .configure_secondary_axes()
        .y_desc("total batch")
        .label_style(("sans-serif", 12).into_font().color(&orange))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    bottom
        .draw_series(LineSeries::new(
            curve
                .iter()
                .map(|p| (f64::from(p.gpus), finite(p.efficiency))),
            green.stroke_width(2),
        ))
        .map_err(err)?
        .label("efficiency")
        .legend(legend(green));
    bottom
        .draw_secondary_series(DashedLineSeries::new(
            curve
                .iter()
                .map(|p| (f64::from(p.gpus), f64::from(p.batch_size))),
            6,
            4,
            orange.stroke_width(2),
        ))
        .map_err(err)?
        .label("batch size (right axis)")
        .legend(legend(orange));
    bottom
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// The inference pool over time (hours): the servers the inference load needs (grey, filled)
/// and, per policy, the servers loaned to training, with loans (▲) and
/// reclaims (▼) of each policy marked on a strip along the bottom.
pub fn draw_pool(
    canvas: HtmlCanvasElement,
    title: &str,
    demand: &[(f64, f64)],
    servers: f64,
    loaned: &[(String, Vec<(f64, f64)>)],
    changes: &[Vec<(f64, i64)>],
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let t_max = demand
        .iter()
        .chain(loaned.iter().flat_map(|s| s.1.iter()))
        .map(|p| p.0)
        .fold(0.0, f64::max)
        / 3600.0;
    let y_max = servers.max(1.0);
    // A strip below zero holds one row of event marks per policy.
    let strip = y_max * 0.06 * (loaned.len().max(1) as f64);
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..t_max.max(1e-6), -strip..y_max * 1.45)
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc("time (h)")
        .y_desc("inference servers")
        .y_label_formatter(&|v| {
            if *v < 0.0 {
                String::new()
            } else {
                format!("{v:.0}")
            }
        })
        .draw()
        .map_err(err)?;
    let grey = RGBColor(150, 150, 150);
    let mut area: Vec<(f64, f64)> = demand.iter().map(|(t, v)| (t / 3600.0, *v)).collect();
    if let (Some(first), Some(last)) = (area.first().copied(), area.last().copied()) {
        area.push((last.0, 0.0));
        area.push((first.0, 0.0));
    }
    ctx.draw_series(std::iter::once(Polygon::new(area, grey.mix(0.35).filled())))
        .map_err(err)?
        .label("needed by inference")
        .legend(move |(x, y)| {
            Rectangle::new([(x, y - 5), (x + 16, y + 5)], grey.mix(0.35).filled())
        });
    for (i, (name, pts)) in loaned.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        ctx.draw_series(LineSeries::new(
            pts.iter().map(|(t, v)| (t / 3600.0, *v)),
            color.stroke_width(2),
        ))
        .map_err(err)?
        .label(format!("loaned: {name}"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    let row = y_max * 0.06;
    for (i, marks) in changes.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let y = -row * (i as f64 + 0.5);
        ctx.draw_series(marks.iter().map(|&(t, d)| {
            let up = d > 0;
            EmptyElement::at((t / 3600.0, y))
                + Polygon::new(
                    if up {
                        vec![(-3, 3), (3, 3), (0, -3)]
                    } else {
                        vec![(-3, -3), (3, -3), (0, 3)]
                    },
                    if up {
                        color.filled()
                    } else {
                        color.mix(0.5).filled()
                    },
                )
        }))
        .map_err(err)?;
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// One suspension on the preemption timeline: its decision time and the seconds it lost,
/// by part, with the overhead model's seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuspensionBar {
    /// Decision time (s).
    pub time_s: f64,
    /// Seconds to the end of the job's epoch.
    pub drain_s: f64,
    /// Seconds writing the checkpoint.
    pub save_s: f64,
    /// Seconds reloading when the job resumed.
    pub reload_s: f64,
    /// The overhead model's seconds lost.
    pub model_s: f64,
}

impl SuspensionBar {
    /// (bottom, top) seconds of the drain, the checkpoint and the reload, stacked.
    fn spans(&self) -> [(f64, f64); 3] {
        let d = self.drain_s.max(0.0);
        let c = d + self.save_s.max(0.0);
        [(0.0, d), (d, c), (c, c + self.reload_s.max(0.0))]
    }
}

/// Suspensions over time (hours): at each decision time a bar of the seconds lost, stacked
/// as the rest of the epoch, the checkpoint and the reload, with the overhead model's value
/// as a dash. `t_max_s` is the end of the time axis (the makespan).
pub fn draw_suspensions(
    canvas: HtmlCanvasElement,
    title: &str,
    bars: &[SuspensionBar],
    t_max_s: f64,
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let t_max = bars
        .iter()
        .map(|b| b.time_s)
        .fold(finite(t_max_s), f64::max)
        / 3600.0;
    let t_max = t_max.max(1e-3);
    let y_max = bars
        .iter()
        .map(|b| (finite(b.drain_s) + finite(b.save_s) + finite(b.reload_s)).max(finite(b.model_s)))
        .fold(1.0, f64::max);
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(20)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..t_max * 1.01, 0.0..y_max * 1.3)
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc("time of the suspension decision (h)")
        .y_desc("time lost (s)")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(err)?;
    // Bars a little wider than a pixel stay visible; dense stretches read as a band.
    let half = t_max * 0.0015;
    let parts = [
        ("rest of the epoch (drain)", PALETTE[0]),
        ("checkpoint", PALETTE[1]),
        ("reload", PALETTE[2]),
    ];
    for (k, (label, color)) in parts.into_iter().enumerate() {
        ctx.draw_series(
            bars.iter()
                .filter(|b| b.time_s.is_finite())
                .map(|b| (b.time_s / 3600.0, b.spans()[k]))
                .filter(|(_, (lo, hi))| hi > lo && hi.is_finite())
                .map(|(x, (lo, hi))| {
                    Rectangle::new([(x - half, lo), (x + half, hi)], color.filled())
                }),
        )
        .map_err(err)?
        .label(label)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled()));
    }
    let ink = RGBColor(30, 30, 30);
    ctx.draw_series(
        bars.iter()
            .filter(|b| b.time_s.is_finite() && b.model_s.is_finite())
            .map(|b| {
                let x = b.time_s / 3600.0;
                PathElement::new(
                    vec![(x - 2.5 * half, b.model_s), (x + 2.5 * half, b.model_s)],
                    ink.stroke_width(1),
                )
            }),
    )
    .map_err(err)?
    .label("overhead model's estimate")
    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], ink.stroke_width(2)));
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Each job's predicted training time against its actual one (hours, log scales), with
/// the line of exact predictions.
pub fn draw_predictions(
    canvas: HtmlCanvasElement,
    title: &str,
    points: &[(f64, f64)],
) -> Result<(), String> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .map(|(a, p)| (a / 3600.0, p / 3600.0))
        .filter(|(a, p)| a.is_finite() && p.is_finite() && *a > 0.0 && *p > 0.0)
        .collect();
    if pts.is_empty() {
        return draw_message(canvas, title, "No job with a prediction finished.");
    }
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let lo = pts
        .iter()
        .map(|(a, p)| a.min(*p))
        .fold(f64::INFINITY, f64::min)
        * 0.8;
    let hi = pts.iter().map(|(a, p)| a.max(*p)).fold(0.0, f64::max) * 1.25;
    let hi = hi.max(lo * 2.0);
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(20)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc("actual training time (h, log scale)")
        .y_desc("predicted (h, log scale)")
        .draw()
        .map_err(err)?;
    let grey = RGBColor(120, 120, 120);
    ctx.draw_series(DashedLineSeries::new(
        [(lo, lo), (hi, hi)],
        6,
        4,
        grey.stroke_width(2),
    ))
    .map_err(err)?
    .label("exact (y = x)")
    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], grey.stroke_width(2)));
    let blue = PALETTE[0];
    ctx.draw_series(
        pts.iter()
            .map(|&(a, p)| Circle::new((a, p), 3, blue.mix(0.6).filled())),
    )
    .map_err(err)?
    .label(format!("jobs ({})", pts.len()))
    .legend(move |(x, y)| Circle::new((x + 8, y), 3, blue.filled()));
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Lines over a numeric x axis (epochs, iterations): one per named series of (x, y) points,
/// each point marked.
pub fn draw_xy(
    canvas: HtmlCanvasElement,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2D canvas")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let xs = series.iter().flat_map(|s| s.1.iter().map(|p| p.0));
    let x_lo = xs.clone().fold(f64::INFINITY, f64::min);
    let x_hi = xs.fold(f64::NEG_INFINITY, f64::max);
    let y_hi = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1e-9);
    let (x_lo, x_hi) = if x_lo.is_finite() && x_hi.is_finite() {
        (x_lo, x_hi.max(x_lo + 1.0))
    } else {
        (0.0, 1.0)
    };
    let mut ctx = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(x_lo..x_hi, 0.0..y_hi * 1.05)
        .map_err(err)?;
    ctx.configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()
        .map_err(err)?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        ctx.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        ctx.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
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
