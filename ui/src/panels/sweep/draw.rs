//! The sweep's chart: JCT against the load (average or p99); ETTR against the checkpoint
//! interval, with Young's and Daly's intervals marked and `auto` as rings at Daly's; or ETTR
//! against the failure rate.

use super::grid::{Cell, Grid};
use super::values::{Axis, Value};
use super::SweepPanel;
use crate::charts::faults::{ettr_sweep, EttrAxis};
use crate::charts::{stacked, Panel, Series};
use crate::plot;
use web_sys::HtmlCanvasElement;

/// The chart's name (its canvas is `chart-<name>`) for a sweep along `axis`.
pub(super) fn chart_name(axis: Axis) -> &'static str {
    match axis {
        Axis::Checkpoint => "ettr-sweep",
        Axis::Failures => "ettr-failures",
        Axis::Rates | Axis::Loads => "sweep",
    }
}

/// Each policy's points at the grid's numeric values: (the value times `x_scale`, `y` of
/// its cell), for the cells run that have a `y`.
fn series(g: &Grid, x_scale: f64, y: impl Fn(Cell) -> Option<f64>) -> Vec<Series> {
    let n = g.values.len();
    g.base
        .policies
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let pts = (0..n)
                .filter_map(|v| {
                    let x = g.values.get(v)?.num()?;
                    Some((x * x_scale, y(g.cells.get(p * n + v).copied().flatten()?)?))
                })
                .collect();
            (name.clone(), pts)
        })
        .collect()
}

impl SweepPanel {
    /// Draw the chart of the sweep so far.
    pub(super) fn draw(&self) {
        let Some(c) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let Some(g) = self.grid.clone() else {
            let _ = plot::show(&c, 360, |f| {
                f.message(
                    "JCT against load",
                    "Run a sweep: each ticked policy runs at each value, and its JCT shows here.",
                )
            });
            return;
        };
        let p99 = self.p99;
        let _ = c.set_attribute("data-metric", if p99 { "p99" } else { "avg" });
        let _ = c.set_attribute("data-cells", &g.cells.iter().flatten().count().to_string());
        match g.axis {
            Axis::Checkpoint => draw_intervals(&c, g),
            Axis::Failures => {
                let _ = plot::show(&c, 360, move |f| {
                    let series = series(&g, 1.0, |c| c.ettr);
                    let axis = EttrAxis {
                        title: "ETTR against the failure rate",
                        x_desc: "failures per server-day",
                        marks: &[],
                        apart: &[],
                        apart_name: "",
                    };
                    ettr_sweep(f, &series, &axis)
                });
            }
            Axis::Rates | Axis::Loads => draw_load(&c, g, p99),
        }
    }
}

/// ETTR against the checkpoint interval (minutes), Young's and Daly's intervals marked
/// (`data-marks`, seconds); `auto`, each job at Daly's interval for its own mean time to
/// failure, drawn apart at Daly's mark of the largest job (`data-auto`, seconds; empty when
/// there is no mark: then the table alone shows it).
fn draw_intervals(c: &HtmlCanvasElement, g: Grid) {
    let marks = g.optimum.map(|o| o.marks()).unwrap_or_default();
    let text = marks.iter().map(|m| m.1.to_string()).collect::<Vec<_>>();
    let _ = c.set_attribute("data-marks", &text.join(" "));
    let auto_at = g
        .optimum
        .map(|o| o.daly)
        .filter(|_| g.values.contains(&Value::Auto));
    let _ = c.set_attribute(
        "data-auto",
        &auto_at.map(|s| s.to_string()).unwrap_or_default(),
    );
    let _ = plot::show(c, 360, move |f| {
        let series = series(&g, 1.0 / 60.0, |c| c.ettr);
        let n = g.values.len();
        let auto: Vec<Option<(f64, f64)>> = (0..g.base.policies.len())
            .map(|p| {
                let v = g.values.iter().position(|x| *x == Value::Auto)?;
                Some((
                    auto_at? / 60.0,
                    g.cells.get(p * n + v).copied().flatten()?.ettr?,
                ))
            })
            .collect();
        let marks: Vec<(String, f64)> = marks.iter().map(|(k, s)| (k.clone(), s / 60.0)).collect();
        let axis = EttrAxis {
            title: "ETTR against the checkpoint interval",
            x_desc: "checkpoint interval (min)",
            marks: &marks,
            apart: &auto,
            apart_name: "auto: Daly's interval per job (ringed at the largest job's)",
        };
        ettr_sweep(f, &series, &axis)
    });
}

/// Average (or p99) JCT against the load: jobs per hour, or the load factor.
fn draw_load(c: &HtmlCanvasElement, g: Grid, p99: bool) {
    let _ = plot::show(c, 360, move |f| {
        let series = series(&g, 1.0, |c| Some(if p99 { c.p99 } else { c.avg } / 3600.0));
        let panel = Panel {
            y_desc: format!("{} JCT (h)", if p99 { "p99" } else { "average" }),
            series,
            first: 0,
        };
        let xs: Vec<f64> = g.values.iter().filter_map(|v| v.num()).collect();
        let lo = xs.first().copied().unwrap_or(0.0);
        let hi = xs.last().copied().unwrap_or(1.0);
        let pad = if hi > lo {
            0.03 * (hi - lo)
        } else {
            0.5 * hi.max(1e-3)
        };
        let rates = g.axis == Axis::Rates;
        stacked(
            f,
            &format!(
                "{} JCT against {}",
                if p99 { "p99" } else { "Average" },
                if rates { "load" } else { "load factor" }
            ),
            if rates {
                "jobs per hour"
            } else {
                "load factor"
            },
            Some((lo - pad, hi + pad)),
            &[panel],
            true,
        )
    });
}
