//! The sweep's chart: JCT against the load (average or p99), or ETTR against the
//! checkpoint interval with Young's and Daly's intervals marked.

use super::grid::Axis;
use super::SweepPanel;
use crate::ui::charts::{faults::ettr_sweep, stacked, Panel};
use crate::ui::plot;
use web_sys::HtmlCanvasElement;

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
        if g.axis == Axis::Checkpoint {
            let marks = g.marks.iter().map(|m| m.1.to_string()).collect::<Vec<_>>();
            let _ = c.set_attribute("data-marks", &marks.join(" "));
            let _ = plot::show(&c, 360, move |f| {
                let n = g.values.len();
                let series: Vec<(String, Vec<(f64, f64)>)> = g
                    .base
                    .policies
                    .iter()
                    .enumerate()
                    .map(|(p, name)| {
                        let pts = (0..n)
                            .filter_map(|v| Some((g.values[v] / 60.0, g.cells[p * n + v]?.ettr?)))
                            .collect();
                        (name.clone(), pts)
                    })
                    .collect();
                let marks: Vec<(String, f64)> =
                    g.marks.iter().map(|(k, s)| (k.clone(), s / 60.0)).collect();
                ettr_sweep(f, &series, &marks)
            });
            return;
        }
        let _ = plot::show(&c, 360, move |f| {
            let n = g.values.len();
            let series = g
                .base
                .policies
                .iter()
                .enumerate()
                .map(|(p, name)| {
                    let pts = (0..n)
                        .filter_map(|v| {
                            let c = g.cells[p * n + v]?;
                            Some((g.values[v], if p99 { c.p99 } else { c.avg } / 3600.0))
                        })
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            let panel = Panel {
                y_desc: format!("{} JCT (h)", if p99 { "p99" } else { "average" }),
                series,
                first: 0,
            };
            let lo = g.values.first().copied().unwrap_or(0.0);
            let hi = g.values.last().copied().unwrap_or(1.0);
            let pad = if hi > lo {
                0.03 * (hi - lo)
            } else {
                0.5 * hi.max(1e-3)
            };
            stacked(
                f,
                &format!(
                    "{} JCT against {}",
                    if p99 { "p99" } else { "Average" },
                    if g.axis == Axis::Rates {
                        "load"
                    } else {
                        "load factor"
                    }
                ),
                if g.axis == Axis::Rates {
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
}
