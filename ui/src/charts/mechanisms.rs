//! The charts of one mechanism each: an elastic job's configuration and its application's
//! goodput, the inference pool over time, suspensions over time, and predicted against
//! actual training times.

use super::{block, bounds, stacked, top, Panel, Series};
use crate::plot::{line, look, Axis, Dash, Fig, Key, Swatch, GREY, PALETTE};
use plotters::prelude::*;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// A named step series: (time s, value) corners, already step-shaped.
pub type Steps = (String, Vec<(f64, f64)>);

/// An elastic job's configuration over time, one line per policy: GPUs on top, total batch
/// size below, over `[t0, t1]` seconds shown in hours.
pub fn job_history(
    f: &mut Fig,
    title: &str,
    gpus: &[Steps],
    batch: &[Steps],
    (t0, t1): (f64, f64),
) -> Result<(), String> {
    let hours = |s: &[Steps]| -> Vec<Series> {
        s.iter()
            .map(|(n, p)| (n.clone(), p.iter().map(|(t, v)| (t / 3600.0, *v)).collect()))
            .collect()
    };
    let panels = [
        Panel {
            y_desc: "GPUs".into(),
            series: hours(gpus),
            first: 0,
        },
        Panel {
            y_desc: "total batch size".into(),
            series: hours(batch),
            first: 0,
        },
    ];
    let (x0, x1) = (t0 / 3600.0, (t1 / 3600.0).max(t0 / 3600.0 + 1e-3));
    stacked(f, title, "time (h)", Some((x0, x1)), &panels, false)
}

/// An application's best configuration at each GPU count: goodput and throughput on top
/// (examples/s), statistical efficiency (left axis) and the goodput-maximising total batch
/// size (right axis) below. `mark` draws a vertical line at a GPU count (the user's choice).
pub fn goodput(
    f: &mut Fig,
    title: &str,
    curve: &[orrery::workload::elastic::CurvePoint],
    mark: Option<(u32, &str)>,
) -> Result<(), String> {
    if curve.is_empty() {
        return f.message(
            title,
            "The application has no configuration that fits this cluster.",
        );
    }
    let g_max = curve.iter().map(|p| p.gpus).max().unwrap_or(1).max(2);
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let y_max = top(
        curve
            .iter()
            .map(|p| finite(p.throughput).max(finite(p.goodput))),
        1e-9,
    ) * 1.08;
    let (blue, green, orange, red) = (PALETTE[0], PALETTE[2], PALETTE[1], PALETTE[3]);
    let mut keys = vec![
        Key::new("goodput", Swatch::Line(blue, Dash::Solid, 3)),
        Key::new("throughput", Swatch::Line(GREY, Dash::Dashed, 2)),
    ];
    if let Some((_, label)) = mark {
        keys.push(Key::new(label, Swatch::Line(red, Dash::Dotted, 2)));
    }
    keys.push(Key::new("efficiency", Swatch::Line(green, Dash::Solid, 2)));
    keys.push(Key::new(
        "batch size (right axis)",
        Swatch::Line(orange, Dash::Dashed, 2),
    ));
    let area = f.frame(title, &keys)?;
    let parts = area.split_evenly((2, 1));
    let xs = f.x_ticks().min(g_max as usize);
    let gx = || Axis::integers(0.5, f64::from(g_max) + 0.5, xs);
    let right = 64;
    // Top: goodput and throughput; the right margin lines the x axes up with the bottom's.
    let mut plot = f.plot(
        &parts[0],
        (gx(), ""),
        (Axis::linear(0.0, y_max, f.y_ticks(0.5)), "examples/s"),
        right,
    )?;
    line(
        &mut plot,
        curve.iter().map(|p| (f64::from(p.gpus), finite(p.goodput))),
        (blue, Dash::Solid),
        3,
    )?;
    line(
        &mut plot,
        curve
            .iter()
            .map(|p| (f64::from(p.gpus), finite(p.throughput))),
        (GREY, Dash::Dashed),
        2,
    )?;
    if let Some((g, _)) = mark {
        let g = f64::from(g);
        line(&mut plot, [(g, 0.0), (g, y_max)], (red, Dash::Dotted), 2)?;
    }
    // Bottom: efficiency (left axis) and the chosen batch (right axis).
    let b_max = top(curve.iter().map(|p| f64::from(p.batch_size)), 1.0) * 1.08;
    let mut plot = f.dual(
        &parts[1],
        (gx(), "GPUs"),
        (Axis::linear(0.0, 1.05, f.y_ticks(0.5)), "efficiency"),
        (Axis::linear(0.0, b_max, f.y_ticks(0.5)), "total batch"),
        orange,
        right,
    )?;
    line(
        &mut plot,
        curve
            .iter()
            .map(|p| (f64::from(p.gpus), finite(p.efficiency))),
        (green, Dash::Solid),
        2,
    )?;
    plot.draw_secondary_series(DashedLineSeries::new(
        curve
            .iter()
            .map(|p| (f64::from(p.gpus), f64::from(p.batch_size))),
        8,
        5,
        orange.stroke_width(2),
    ))
    .map_err(err)?;
    Ok(())
}

/// The inference pool over time (hours): the servers the inference load needs (grey, filled)
/// and, per policy, the servers loaned to training, with loans (▲) and reclaims (▼) of each
/// policy marked on a strip along the bottom.
pub fn pool(
    f: &mut Fig,
    title: &str,
    demand: &[(f64, f64)],
    servers: f64,
    loaned: &[Series],
    changes: &[Vec<(f64, i64)>],
) -> Result<(), String> {
    let t_max = top(
        demand
            .iter()
            .chain(loaned.iter().flat_map(|s| s.1.iter()))
            .map(|p| p.0),
        1e-3,
    ) / 3600.0;
    let y_max = servers.max(1.0);
    let row = y_max * 0.06;
    let strip = row * (loaned.len().max(1) as f64);
    let grey = RGBColor(150, 150, 150);
    let mut keys = vec![Key::new("needed by inference", block(grey, 0.35))];
    keys.extend(
        loaned
            .iter()
            .enumerate()
            .map(|(i, (n, _))| Key::series(i, &format!("loaned: {n}"))),
    );
    let area = f.frame(title, &keys)?;
    let y = Axis::linear(0.0, y_max * 1.05, f.y_ticks(1.0));
    let y = Axis::extended(y, -strip);
    let mut plot = f.plot(
        &area,
        (Axis::linear(0.0, t_max, f.x_ticks()), "time (h)"),
        (y, "inference servers"),
        0,
    )?;
    let mut shape: Vec<(f64, f64)> = demand.iter().map(|(t, v)| (t / 3600.0, *v)).collect();
    if let (Some(first), Some(last)) = (shape.first().copied(), shape.last().copied()) {
        shape.push((last.0, 0.0));
        shape.push((first.0, 0.0));
    }
    plot.draw_series(std::iter::once(Polygon::new(
        shape,
        grey.mix(0.35).filled(),
    )))
    .map_err(err)?;
    for (i, (_, pts)) in loaned.iter().enumerate() {
        line(
            &mut plot,
            pts.iter().map(|(t, v)| (t / 3600.0, *v)),
            look(i),
            2,
        )?;
    }
    for (i, marks) in changes.iter().enumerate() {
        let color = look(i).0;
        let y = -row * (i as f64 + 0.5);
        plot.draw_series(marks.iter().map(|&(t, d)| {
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
    Ok(())
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
pub fn suspensions(
    f: &mut Fig,
    title: &str,
    bars: &[SuspensionBar],
    t_max_s: f64,
) -> Result<(), String> {
    let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let t_max = top(bars.iter().map(|b| b.time_s), finite(t_max_s)) / 3600.0;
    let t_max = t_max.max(1e-3);
    let y_max = top(
        bars.iter().map(|b| {
            (finite(b.drain_s) + finite(b.save_s) + finite(b.reload_s)).max(finite(b.model_s))
        }),
        1.0,
    );
    let parts = [
        ("rest of the epoch (drain)", PALETTE[0]),
        ("checkpoint", PALETTE[1]),
        ("reload", PALETTE[2]),
    ];
    let ink = RGBColor(30, 30, 30);
    let mut keys: Vec<Key> = parts
        .iter()
        .map(|(n, c)| Key::new(*n, Swatch::Block(c.to_rgba())))
        .collect();
    keys.push(Key::new(
        "overhead model's estimate",
        Swatch::Line(ink, Dash::Solid, 2),
    ));
    let area = f.frame(title, &keys)?;
    let mut plot = f.plot(
        &area,
        (
            Axis::linear(0.0, t_max * 1.01, f.x_ticks()),
            "time of the suspension decision (h)",
        ),
        (
            Axis::linear(0.0, y_max * 1.08, f.y_ticks(1.0)),
            "time lost (s)",
        ),
        0,
    )?;
    // Bars a little wider than a pixel stay visible; dense stretches read as a band.
    let half = t_max * 0.0015;
    for (k, (_, color)) in parts.into_iter().enumerate() {
        plot.draw_series(
            bars.iter()
                .filter(|b| b.time_s.is_finite())
                .map(|b| (b.time_s / 3600.0, b.spans()[k]))
                .filter(|(_, (lo, hi))| hi > lo && hi.is_finite())
                .map(|(x, (lo, hi))| {
                    Rectangle::new([(x - half, lo), (x + half, hi)], color.filled())
                }),
        )
        .map_err(err)?;
    }
    plot.draw_series(
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
    .map_err(err)?;
    Ok(())
}

/// Each job's predicted training time against its actual one (hours, log scales), with
/// the line of exact predictions.
pub fn predictions(f: &mut Fig, title: &str, points: &[(f64, f64)]) -> Result<(), String> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .map(|(a, p)| (a / 3600.0, p / 3600.0))
        .filter(|(a, p)| a.is_finite() && p.is_finite() && *a > 0.0 && *p > 0.0)
        .collect();
    let Some((lo, hi)) = bounds(pts.iter().flat_map(|(a, p)| [*a, *p])) else {
        return f.message(title, "No job with a prediction finished.");
    };
    let (lo, hi) = (lo * 0.8, (hi * 1.25).max(lo * 2.0));
    let blue = PALETTE[0];
    let keys = [
        Key::new("exact (y = x)", Swatch::Line(GREY, Dash::Dashed, 2)),
        Key::new(format!("jobs ({})", pts.len()), Swatch::Dot(blue)),
    ];
    let area = f.frame(title, &keys)?;
    let mut plot = f.plot(
        &area,
        (
            Axis::log(lo, hi, f.x_ticks()),
            "actual training time (h, log scale)",
        ),
        (
            Axis::log(lo, hi, f.y_ticks(1.0)),
            "predicted (h, log scale)",
        ),
        0,
    )?;
    line(&mut plot, [(lo, lo), (hi, hi)], (GREY, Dash::Dashed), 2)?;
    plot.draw_series(
        pts.iter()
            .map(|&(a, p)| Circle::new((a, p), 3, blue.mix(0.6).filled())),
    )
    .map_err(err)?;
    Ok(())
}
