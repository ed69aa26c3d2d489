//! The sweep's table (a row per value, a cell per policy: average and p99 JCT, or ETTR and
//! average JCT for a sweep of the checkpoint interval or the failure rate) and, for a
//! preset's figure against the load, the paper's figure beside the sweep's.

use super::grid::Grid;
use super::values::{Axis, Value};
use super::SweepPanel;
use orrery::experiment::scenarios::claims::load_claim_for;
use yew::prelude::*;

impl SweepPanel {
    /// The paper's figure against the load beside the sweep's, when the grid is a preset's.
    pub(super) fn claim(&self, g: &Grid) -> Html {
        let Some(c) = load_claim_for(&g.base).filter(|_| g.axis == Axis::Rates) else {
            return html! {};
        };
        let n = g.values.len();
        let ratios = c.ratios(|policy, rate| {
            let p = g.base.policies.iter().position(|x| x == policy)?;
            let v = g.values.iter().position(|&x| x == Value::Num(rate))?;
            g.cells.get(p * n + v).copied().flatten().map(|c| c.avg)
        });
        html! {
            <div class="claim" id="sweep-claim" data-points={ratios.len().to_string()}>
                <p>{ c.line(&ratios) }</p>
                <p class="hint">{ c.source }</p>
            </div>
        }
    }

    /// The table of the cells run so far (`…` for the others; `data-value` is the value
    /// as a link writes it, `auto` included).
    pub(super) fn table(&self, g: &Grid) -> Html {
        let hours = |s: f64| format!("{:.2}", s / 3600.0);
        let n = g.values.len();
        let ettr = g.axis.ettr();
        let head = match g.axis {
            Axis::Rates => "jobs/h",
            Axis::Loads => "load",
            Axis::Checkpoint => "checkpoint (s)",
            Axis::Failures => "failures per server-day",
        };
        html! {
            <table id="sweep-table" class="summary" data-complete={g.cells.iter().all(Option::is_some).to_string()}>
                <thead><tr>
                    <th>{ head }</th>
                    { for g.base.policies.iter().map(|p| html! { <th>{ if ettr { format!("{p} ETTR · avg JCT (h)") } else { format!("{p} avg / p99 JCT (h)") } }</th> }) }
                </tr></thead>
                <tbody>
                { for g.values.iter().enumerate().map(|(v, x)| html! {
                    <tr>
                        <th title={if *x == Value::Auto { "Daly's interval for each job's own mean time to failure" } else { "" }}>{ x.label() }</th>
                        { for g.base.policies.iter().enumerate().map(|(p, name)| match g.cells.get(p * n + v).copied().flatten() {
                            Some(c) => html! {
                                <td data-policy={name.clone()} data-value={x.text()} data-avg-jct-s={c.avg.to_string()} data-p99-jct-s={c.p99.to_string()}
                                    data-ettr={c.ettr.map(|e| e.to_string()).unwrap_or_default()}
                                    title={if c.unfinished > 0 { format!("{} jobs did not finish: JCTs are of the finished ones", c.unfinished) } else { String::new() }}>
                                    { if ettr {
                                        format!("{} · {}{}", c.ettr.map_or_else(|| "—".to_string(), |e| format!("{e:.4}")), hours(c.avg), if c.unfinished > 0 { " *" } else { "" })
                                    } else {
                                        format!("{} / {}{}", hours(c.avg), hours(c.p99), if c.unfinished > 0 { " *" } else { "" })
                                    } }
                                </td>
                            },
                            None => html! { <td>{ "…" }</td> },
                        }) }
                    </tr>
                }) }
                </tbody>
            </table>
        }
    }
}
