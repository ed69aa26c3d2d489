//! The charts of failures and spot capacity: interruptions over time (cumulative, a line
//! per policy), the GPU-hours failures and checkpoints cost by cause (a bar per policy), a
//! spot GPU type's capacity over time against the GPUs each policy kept busy on it, and ETTR
//! against a sweep's checkpoint interval (Young's and Daly's intervals marked, `auto` as
//! rings) or failure rate. They read results and the experiment's spot trace only.

use super::{block, lines, top, Series};
use crate::plot::{line, look, Axis, Dash, Fig, Key, Swatch, GREY};
use crate::trace_charts::grouped_bars;
use orrery::model::spot::CapacityTrace;
use plotters::prelude::*;

/// What the GPU-hours went to, in the bars' order (short: a phone's axis shows all three):
/// work a failure rolled back, GPUs held while jobs started again, checkpoint writes.
pub const CAUSES: [&str; 3] = ["rollback", "restarts", "writes"];

/// A cumulative count over time as step corners: 0 at time 0, one more at each of `times`
/// (in order), held to `end`.
pub fn cumulative(times: &[f64], end: f64) -> Vec<(f64, f64)> {
    let mut pts = Vec::with_capacity(times.len() * 2 + 2);
    pts.push((0.0, 0.0));
    for (k, &t) in times.iter().enumerate() {
        pts.push((t, k as f64));
        pts.push((t, (k + 1) as f64));
    }
    let last = times.last().copied().unwrap_or(0.0);
    pts.push((end.max(last), times.len() as f64));
    pts
}

/// Interruptions up to each time, one cumulative line per policy.
pub fn interruptions(f: &mut Fig, series: &[Series]) -> Result<(), String> {
    let title = "Interruptions over time (cumulative)";
    if series.iter().all(|s| s.1.iter().all(|p| p.1 == 0.0)) {
        return f.message(
            title,
            "No job was interrupted: no server failed under a running job.",
        );
    }
    lines(f, title, "interruptions", series, None)
}

/// GPU-hours lost by cause ([`CAUSES`]), a bar per policy: `series` holds each policy's
/// name and its three values.
pub fn lost(f: &mut Fig, series: &[(String, Vec<f64>)]) -> Result<(), String> {
    let labels: Vec<String> = CAUSES.iter().map(|c| c.to_string()).collect();
    grouped_bars(
        f,
        "GPU-hours lost to failures and checkpoints",
        "work rolled back, restarts, checkpoint writes",
        "GPU-hours",
        &labels,
        series,
    )
}

/// The GPUs a spot type holds over time, as step corners up to `end` seconds:
/// `per_instance` GPUs per instance the trace holds, at most `count`.
pub fn capacity_steps(
    trace: &CapacityTrace,
    per_instance: u32,
    count: u32,
    end: f64,
) -> Vec<(f64, f64)> {
    let gpus = |n: u32| f64::from(n.saturating_mul(per_instance).min(count));
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for &(t, n) in trace.steps.iter().take_while(|s| s.0 <= end) {
        if let Some(&(_, prev)) = pts.last() {
            pts.push((t, prev));
        }
        pts.push((t, gpus(n)));
    }
    let last = pts.last().map_or(gpus(trace.at(0.0)), |p| p.1);
    pts.push((end, last));
    pts
}

/// A spot type's capacity (grey, filled) over `[0, end]` seconds, in GPUs, and the GPUs of
/// the type each policy kept busy (`busy`, a line per policy).
pub fn capacity(
    f: &mut Fig,
    title: &str,
    capacity: &[(f64, f64)],
    busy: &[Series],
    end: f64,
) -> Result<(), String> {
    let t_max = (end / 3600.0).max(1e-3);
    let y_max = top(
        capacity
            .iter()
            .chain(busy.iter().flat_map(|s| s.1.iter()))
            .map(|p| p.1),
        1.0,
    ) * 1.08;
    let grey = RGBColor(150, 150, 150);
    let mut keys = vec![Key::new("GPUs the trace holds", block(grey, 0.35))];
    keys.extend(
        busy.iter()
            .enumerate()
            .map(|(i, (n, _))| Key::series(i, &format!("busy: {n}"))),
    );
    let area = f.frame(title, &keys)?;
    let mut plot = f.plot(
        &area,
        (Axis::linear(0.0, t_max, f.x_ticks()), "time (h)"),
        (Axis::linear(0.0, y_max, f.y_ticks(1.0)), "GPUs"),
        0,
    )?;
    let mut shape: Vec<(f64, f64)> = capacity.iter().map(|(t, v)| (t / 3600.0, *v)).collect();
    if let (Some(first), Some(last)) = (shape.first().copied(), shape.last().copied()) {
        shape.push((last.0, 0.0));
        shape.push((first.0, 0.0));
    }
    plot.draw_series(std::iter::once(Polygon::new(
        shape,
        grey.mix(0.35).filled(),
    )))
    .map_err(|e| format!("{e:?}"))?;
    for (i, (_, pts)) in busy.iter().enumerate() {
        line(
            &mut plot,
            pts.iter().map(|(t, v)| (t / 3600.0, *v)),
            look(i),
            2,
        )?;
    }
    Ok(())
}

/// What an ETTR sweep's chart plots ETTR against, and what it marks besides its lines.
pub struct EttrAxis<'a> {
    /// The chart's title.
    pub title: &'a str,
    /// The x axis's description.
    pub x_desc: &'a str,
    /// Values marked as vertical grey lines: (name, x), as Young's and Daly's intervals.
    pub marks: &'a [(String, f64)],
    /// Points drawn apart, as rings in their series' colour, not joined to its line: each
    /// series' point, if it has one (empty: none).
    pub apart: &'a [Option<(f64, f64)>],
    /// The legend entry of the points apart.
    pub apart_name: &'a str,
}

/// ETTR against the values of a sweep (the checkpoint interval in minutes, or the failure
/// rate), a line with dots per policy, the values of `axis.marks` as vertical grey lines
/// and the points of `axis.apart` as rings.
pub fn ettr_sweep(f: &mut Fig, series: &[Series], axis: &EttrAxis) -> Result<(), String> {
    let title = axis.title;
    let marks = axis.marks;
    let apart: Vec<(usize, (f64, f64))> = axis
        .apart
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, (*p)?)))
        .collect();
    let points = || {
        series
            .iter()
            .flat_map(|s| s.1.iter().copied())
            .chain(apart.iter().map(|a| a.1))
    };
    let Some((lo, hi)) = super::bounds(points().map(|p| p.0).chain(marks.iter().map(|m| m.1)))
    else {
        return f.message(title, "No ETTR yet: it appears as the sweep's runs end.");
    };
    let (y_lo, y_hi) = super::bounds(points().map(|p| p.1)).unwrap_or((0.0, 1.0));
    let pad = 0.1 * (y_hi - y_lo).max(0.01);
    let (y_lo, y_hi) = ((y_lo - pad).max(0.0), (y_hi + pad).min(1.0));
    let x_pad = if hi > lo {
        0.04 * (hi - lo)
    } else {
        0.5 * hi.abs().max(1e-3)
    };
    let mut keys: Vec<Key> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key::series(i, &s.0))
        .collect();
    let dashes = [Dash::Dotted, Dash::Dashed];
    keys.extend(
        marks
            .iter()
            .enumerate()
            .map(|(i, (name, _))| Key::new(name.clone(), Swatch::Line(GREY, dashes[i % 2], 2))),
    );
    if !apart.is_empty() {
        keys.push(Key::new(axis.apart_name, Swatch::Ring(GREY)));
    }
    let area = f.frame(title, &keys)?;
    let mut plot = f.plot(
        &area,
        (
            Axis::linear((lo - x_pad).max(0.0), hi + x_pad, f.x_ticks()),
            axis.x_desc,
        ),
        (
            Axis::linear(y_lo, y_hi.max(y_lo + 1e-3), f.y_ticks(1.0)),
            "ETTR",
        ),
        0,
    )?;
    for (i, (_, m)) in marks.iter().enumerate() {
        line(
            &mut plot,
            [(*m, y_lo), (*m, y_hi)],
            (GREY, dashes[i % 2]),
            2,
        )?;
    }
    for (i, (_, pts)) in series.iter().enumerate() {
        let (c, d) = look(i);
        line(&mut plot, pts.iter().copied(), (c, d), 2)?;
        plot.draw_series(pts.iter().map(|&q| Circle::new(q, 3, c.filled())))
            .map_err(|e| format!("{e:?}"))?;
    }
    plot.draw_series(
        apart
            .iter()
            .map(|&(i, q)| Circle::new(q, 6, look(i).0.stroke_width(2))),
    )
    .map_err(|e| format!("{e:?}"))?;
    Ok(())
}
