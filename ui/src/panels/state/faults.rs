//! What failures and spot capacity did since the last board, in words under the cluster's
//! picture: the servers that failed and those still away for repair, the jobs rolled back to
//! their last checkpoint with the work each lost, and the GPUs a spot trace does not hold.

use crate::worker::step_marks::{clock, FaultMarks, ServerMark};
use orrery::experiment::stepping::Area;
use yew::prelude::*;

/// Items of one kind listed before "and N more".
const LISTED: usize = 8;

/// GPU type `t`'s name, from the board's headings ("16 × v100").
fn type_name(areas: &[Area], t: usize) -> String {
    areas
        .iter()
        .find_map(|a| match a {
            Area::Types(types) => types.get(t).map(|(h, _)| {
                h.rsplit_once(" × ")
                    .map_or(h.as_str(), |(_, name)| name)
                    .to_string()
            }),
            _ => None,
        })
        .unwrap_or_else(|| format!("type {t}"))
}

/// A server and its GPUs, for people.
fn server(areas: &[Area], m: &ServerMark) -> String {
    let (a, b) = m.gpus;
    let gpus = if b > a + 1 {
        format!("GPUs {a}–{} of {}", b - 1, type_name(areas, m.ty))
    } else {
        format!("GPU {a} of {}", type_name(areas, m.ty))
    };
    format!("Server {} ({gpus})", m.server)
}

/// At most [`LISTED`] items, then how many more.
fn listed(items: Vec<Html>) -> Html {
    let more = items.len().saturating_sub(LISTED);
    html! {
        <>
        { for items.into_iter().take(LISTED) }
        if more > 0 { <li class="hint">{ format!("and {more} more") }</li> }
        </>
    }
}

/// The marks of a board, in words.
pub fn view(m: &FaultMarks, areas: &[Area]) -> Html {
    let failed = m
        .failed
        .iter()
        .map(|s| {
            let after = if s.back_at > s.time {
                format!("it is away for repair until {}", clock(s.back_at))
            } else {
                "a spare took its place at once".into()
            };
            html! {
                <li class="failed" data-server={s.server.to_string()}>
                    { format!("{} failed at {} ({}): {after}.", server(areas, s), clock(s.time), s.category) }
                </li>
            }
        })
        .collect();
    let down = m
        .down
        .iter()
        .map(|s| {
            html! {
                <li class="down" data-server={s.server.to_string()}>
                    { format!("{} is away for repair until {} (it failed at {}, {}).", server(areas, s), clock(s.back_at), clock(s.time), s.category) }
                </li>
            }
        })
        .collect();
    let rolled = m
        .interrupted
        .iter()
        .map(|r| {
            let n = if r.lost_s > 0.0 {
                (r.lost_gpu_h * 3600.0 / r.lost_s).round()
            } else {
                0.0
            };
            let gpus = if n < 1.0 {
                String::new()
            } else if n < 2.0 {
                " on 1 GPU".into()
            } else {
                format!(" on {n:.0} GPUs")
            };
            let times = if r.times > 1 {
                format!(" ({} times)", r.times)
            } else {
                String::new()
            };
            html! {
                <li class="rolled-back" data-job={r.job.to_string()} data-lost-s={r.lost_s.to_string()}>
                    { format!("⟲ Job {} was interrupted at {}{times}: it rolls back to its last checkpoint, losing {:.0} s of computation{gpus} ({:.2} GPU-h), and its policy starts it again.",
                        r.job, clock(r.time), r.lost_s, r.lost_gpu_h) }
                </li>
            }
        })
        .collect();
    let withheld = m.withheld.iter().map(|&(t, first, held)| {
        html! {
            <li class="withheld" data-type={type_name(areas, t)}>
                { format!("{}: the spot trace holds {held} instances, so GPUs {first} and up are not placed.", type_name(areas, t)) }
            </li>
        }
    });
    let quiet = m.failed.is_empty() && m.interrupted.is_empty();
    html! {
        <div class="step-faults" id="step-faults" data-failed={m.failed.len().to_string()} data-down={m.down.len().to_string()}
            data-interrupted={m.interrupted.len().to_string()} data-withheld={m.withheld.len().to_string()}>
            <h3>{ format!("Since {}", clock(m.since)) }</h3>
            <ul>
                if quiet { <li class="hint">{ "No server failed and no job was interrupted." }</li> }
                { listed(failed) }
                { listed(rolled) }
                { listed(down) }
                { for withheld }
            </ul>
        </div>
    }
}
