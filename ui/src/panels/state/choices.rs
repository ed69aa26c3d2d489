//! Why a job got what it got: for policies that weigh every configuration of every job
//! (Sia), one job's goodput in each GPU type and count at the last decision, as a chart (a
//! line per GPU type, the chosen configuration ringed) and as a table.

use crate::plot::{self, line, look, Axis, Fig, Key, Swatch};
use crate::select_value;
use orrery::model::job::JobId;
use orrery::policy::pollux::{Explanation, Weighed};
use plotters::prelude::*;
use std::collections::BTreeMap;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// What the view shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The last decision.
    pub explanation: Explanation,
    /// GPU type names, in cluster order.
    pub types: Vec<String>,
    /// The application of each job decided for.
    pub apps: BTreeMap<JobId, String>,
}

/// One configuration as people read it: "8 × a100".
fn config_name(types: &[String], (t, g): (usize, u32)) -> String {
    format!("{g} × {}", types.get(t).map_or("?", String::as_str))
}

/// The chosen configuration's name, or "no GPUs".
fn chosen_name(e: &Explanation, types: &[String], w: &Weighed) -> String {
    w.chosen
        .and_then(|k| e.configs.get(k))
        .map_or_else(|| "no GPUs".to_string(), |&c| config_name(types, c))
}

/// The decision's view: a job picker, the chart and the table of the job picked.
#[function_component]
pub fn Choices(props: &Props) -> Html {
    let picked = use_state(|| None::<JobId>);
    let canvas = use_node_ref();
    let e = &props.explanation;
    // The job shown: the one picked while it is still decided for, else the first.
    let row = (*picked)
        .and_then(|j| e.job(j))
        .or_else(|| e.jobs.first())
        .cloned();
    {
        let canvas = canvas.clone();
        let data = (e.clone(), props.types.clone(), row.clone());
        use_effect_with(data, move |(e, types, row)| {
            if let (Some(c), Some(w)) = (canvas.cast::<HtmlCanvasElement>(), row) {
                let (e, types, w) = (e.clone(), types.clone(), w.clone());
                let _ = plot::show(&c, 320, move |f| draw(f, &e, &types, &w));
            }
        });
    }
    let Some(w) = row else {
        return html! { <p class="hint" id="choices">{ "No job was decided for at the last decision (each job still restarting keeps its GPUs)." }</p> };
    };
    let types = &props.types;
    let app = |j: JobId| props.apps.get(&j).map_or("", String::as_str);
    let on_pick = {
        let picked = picked.clone();
        Callback::from(move |ev: Event| picked.set(select_value(&ev).parse().ok()))
    };
    // The table: a row per GPU type, a column per GPU count.
    let mut counts: Vec<u32> = e.configs.iter().map(|c| c.1).collect();
    counts.sort_unstable();
    counts.dedup();
    let cell = |t: usize, g: u32| -> Html {
        let Some(k) = e.configs.iter().position(|&c| c == (t, g)) else {
            return html! { <td class="na">{ "—" }</td> };
        };
        let gp = w.goodputs.get(k).copied().unwrap_or(0.0);
        let cost = w.costs.get(k).copied().unwrap_or(0.0);
        let chosen = w.chosen == Some(k);
        html! {
            <td class={classes!(chosen.then_some("chosen"))} data-config={config_name(types, (t, g))}
                title={format!("{}: goodput {gp:.1} examples/s, cost {cost:.2}", config_name(types, (t, g)))}>
                { if gp > 0.0 { format!("{gp:.0}") } else { "·".to_string() } }
            </td>
        }
    };
    html! {
        <div class="choices" id="choices" data-job={w.job.to_string()} data-chosen={chosen_name(e, types, &w)}>
            <h3>{ "Why each job got what it got" }</h3>
            <label>{ "job " }
                <select id="choices-job" onchange={on_pick}>
                    { for e.jobs.iter().map(|x| html! {
                        <option value={x.job.to_string()} selected={x.job == w.job}>
                            { format!("{} ({}): {}", x.job, app(x.job), chosen_name(e, types, x)) }
                        </option>
                    }) }
                </select>
            </label>
            { super::super::chart("choices", &canvas, false) }
            <table class="jobs" id="choices-table">
                <thead><tr><th>{ "GPUs →" }</th>{ for counts.iter().map(|g| html! { <th>{ g }</th> }) }</tr></thead>
                <tbody>
                { for types.iter().enumerate().filter(|(t, _)| e.configs.iter().any(|c| c.0 == *t)).map(|(t, name)| html! {
                    <tr><th>{ name }</th>{ for counts.iter().map(|&g| cell(t, g)) }</tr>
                }) }
                </tbody>
            </table>
            <p class="hint">{ format!(
                "Job {} ({}) got {}. Each cell is its goodput (examples per second at its best batch size, discounted by statistical efficiency) on that many GPUs of that type; the policy gave every job at most one configuration within each type's GPUs, minimising the sum of its costs (normalised goodput to the power p, a configuration other than the job's own discounted by its restart factor, a penalty for no GPUs). Hover a cell for its cost.",
                w.job, app(w.job), chosen_name(e, types, &w)) }</p>
        </div>
    }
}

/// One GPU type's line: its index, name and (GPUs, goodput) points.
type Line<'a> = (usize, &'a String, Vec<(f64, f64)>);

/// Goodput over GPU count, a line per GPU type, the chosen configuration ringed.
fn draw(f: &mut Fig, e: &Explanation, types: &[String], w: &Weighed) -> Result<(), String> {
    let err = |x: &dyn std::fmt::Debug| format!("{x:?}");
    let points = |t: usize| -> Vec<(f64, f64)> {
        e.configs
            .iter()
            .zip(&w.goodputs)
            .filter(|((ty, _), &g)| *ty == t && g > 0.0)
            .map(|(&(_, n), &g)| (f64::from(n), g))
            .collect()
    };
    // Up to the largest configuration offered to this job.
    let x_hi = e
        .configs
        .iter()
        .zip(&w.goodputs)
        .filter(|(_, &g)| g > 0.0)
        .map(|(c, _)| f64::from(c.1))
        .fold(1.0, f64::max);
    let y_hi = w.goodputs.iter().copied().fold(1e-9, f64::max);
    let shown: Vec<Line> = types
        .iter()
        .enumerate()
        .map(|(t, name)| (t, name, points(t)))
        .filter(|x| !x.2.is_empty())
        .collect();
    let mut keys: Vec<Key> = shown.iter().map(|(t, n, _)| Key::series(*t, n)).collect();
    let chosen = w
        .chosen
        .and_then(|k| Some((*e.configs.get(k)?, *w.goodputs.get(k)?)));
    if let Some(((t, n), _)) = chosen {
        keys.push(Key::new(
            format!("chosen: {}", config_name(types, (t, n))),
            Swatch::Dot(look(t).0),
        ));
    }
    let area = f.frame(
        &format!("job {}: goodput by GPU type and count", w.job),
        &keys,
    )?;
    let mut ctx = f.plot(
        &area,
        (Axis::integers(0.0, x_hi * 1.05, f.x_ticks()), "GPUs"),
        (
            Axis::linear(0.0, y_hi * 1.1, f.y_ticks(1.0)),
            "goodput (examples/s)",
        ),
        0,
    )?;
    for (t, _, pts) in &shown {
        let (color, dash) = look(*t);
        line(&mut ctx, pts.iter().copied(), (color, dash), 2)?;
        ctx.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|x| err(&x))?;
    }
    if let Some(((t, n), g)) = chosen {
        ctx.draw_series(std::iter::once(Circle::new(
            (f64::from(n), g),
            9,
            look(t).0.stroke_width(3),
        )))
        .map_err(|x| err(&x))?;
    }
    Ok(())
}
