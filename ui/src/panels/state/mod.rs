//! The stepping panel's view of a run after a step: the worker's [`Board`] drawn as the
//! cluster with the jobs holding it, a table of the jobs, and ([`choices`]) why a policy
//! that weighs every configuration gave each job what it got.

pub mod choices;
mod faults;

use crate::job_colour as colour;
use crate::worker::step_marks::FaultMarks;
use choices::Choices;
use indexmap::IndexMap;
use orrery::experiment::stepping::{
    Area, Board, Cell, Gpu, GpuKind, Row, Server, ServerKind, JOB_ROWS,
};
use yew::prelude::*;
use yew::virtual_dom::VTag;

/// An element `tag` with `class`, `id` and `title` (when given) and `data-*` attributes
/// (named without the prefix), around `children`. The board's attribute names come at run
/// time, which the `html!` macro's static names cannot take.
fn element(
    tag: &str,
    class: &str,
    id: Option<&str>,
    title: Option<&str>,
    data: &[(String, String)],
    children: Html,
) -> Html {
    let mut attrs: IndexMap<AttrValue, AttrValue> = IndexMap::new();
    let mut set = |k: &str, v: &str| {
        attrs.insert(
            AttrValue::from(k.to_string()),
            AttrValue::from(v.to_string()),
        );
    };
    if !class.is_empty() {
        set("class", class);
    }
    if let Some(id) = id {
        set("id", id);
    }
    if let Some(t) = title {
        set("title", t);
    }
    for (k, v) in data {
        set(&format!("data-{k}"), v);
    }
    let mut node = VTag::new(tag.to_string());
    node.set_attributes(attrs);
    node.add_child(children);
    node.into()
}

/// One GPU, with its failure or spot mark when it has one (class and tooltip).
fn gpu(g: &Gpu, mark: Option<(&'static str, String)>) -> Html {
    let class = match g.kind {
        GpuKind::Idle => "gpu",
        GpuKind::Busy => "gpu busy",
        GpuKind::Shared(_) => "gpu busy shared",
        GpuKind::Loading => "gpu busy loading",
        GpuKind::Draining => "gpu busy draining",
        GpuKind::Saving => "gpu busy saving",
        GpuKind::Kept => "gpu kept",
        GpuKind::Serving => "gpu serving",
    };
    let style = match (g.kind, g.job) {
        (GpuKind::Shared(b), Some(a)) => format!(
            "background:linear-gradient(135deg, {} 50%, {} 50%)",
            colour(a),
            colour(b)
        ),
        (_, Some(j)) => format!("background-color:{}", colour(j)),
        (_, None) => String::new(),
    };
    match mark {
        Some((m, why)) => html! {
            <span class={classes!(class, m)} title={format!("{}; {why}", g.title)} style={style}></span>
        },
        None => html! { <span class={class} title={g.title.clone()} style={style}></span> },
    }
}

/// One server with its GPUs (and its CPUs in use, when they count), with its failure's
/// mark when it has one (class and tooltip).
fn server(s: &Server, mark: Option<(&'static str, String)>) -> Html {
    let class = match s.kind {
        ServerKind::Plain => "server",
        ServerKind::Serving => "server serving",
        ServerKind::Loaned => "server loaned",
    };
    let inner = html! {
        <>
        { for s.gpus.iter().map(|g| gpu(g, None)) }
        if let Some((used, all)) = s.cpus {
            <span class="cpu-bar" title={format!("{used} of {all} CPUs in use")}>
                <span style={format!("height:{:.0}%", 100.0 * f64::from(used) / f64::from(all.max(1)))}></span>
            </span>
        }
        </>
    };
    match mark {
        Some((m, why)) => element(
            "div",
            &format!("{class} {m}"),
            None,
            Some(&format!("{}; {why}", s.title)),
            &s.data,
            inner,
        ),
        None => element("div", class, None, Some(&s.title), &s.data, inner),
    }
}

/// The servers of an area, each with its mark: a server's type is its `type` attribute and
/// its index the count of that type's servers before it.
fn servers(list: &[Server], marks: Option<&FaultMarks>) -> Html {
    let mut seen: Vec<(&str, u32)> = Vec::new();
    let mut out = Vec::with_capacity(list.len());
    for s in list {
        let ty = s
            .data
            .iter()
            .find(|(k, _)| k == "type")
            .map_or("", |(_, v)| v.as_str());
        let index = match seen.iter_mut().find(|(t, _)| *t == ty) {
            Some(e) => {
                e.1 += 1;
                e.1
            }
            None => {
                seen.push((ty, 0));
                0
            }
        };
        out.push(server(s, marks.and_then(|m| m.server(ty, index))));
    }
    html! { <>{ for out }</> }
}

/// One part of the cluster's picture; `marks` mark the GPUs of failed servers and those a
/// spot trace does not hold.
fn area(a: &Area, marks: Option<&FaultMarks>) -> Html {
    let mark = |t: usize, g: usize| marks.and_then(|m| m.gpu(t, u32::try_from(g).ok()?));
    match a {
        Area::Types(types) => html! {
            <div class="gpu-grid">
            { for types.iter().enumerate().map(|(t, (heading, gpus))| html! {
                <div class="gpu-type">
                    <h3>{ heading }</h3>
                    <div class="gpus">{ for gpus.iter().enumerate().map(|(g, x)| gpu(x, mark(t, g))) }</div>
                </div>
            }) }
            </div>
        },
        Area::Servers {
            title,
            id,
            servers: list,
        } => html! {
            <>
            <h3 class="servers-title">{ title }</h3>
            <div class="servers" id={id.clone()}>{ servers(list, marks) }</div>
            </>
        },
        Area::Row { title, id, gpus } => html! {
            <>
            <h3 class="servers-title">{ title }</h3>
            <div class="gpus wide" id={id.clone()}>{ for gpus.iter().map(|g| gpu(g, None)) }</div>
            </>
        },
        Area::Note(text) => html! { <p class="hint">{ text }</p> },
    }
}

/// One cell of a job's row.
fn cell(c: &Cell) -> Html {
    match c {
        Cell::Job(j) => {
            html! { <td><span class="swatch" style={format!("background:{}", colour(*j))}></span>{ j }</td> }
        }
        Cell::Text(t) => html! { <td>{ t }</td> },
        Cell::Progress(f) => {
            html! { <td><progress max="1" value={f.to_string()} />{ format!(" {:.0}%", f * 100.0) }</td> }
        }
        Cell::Pair(p) => html! {
            <td class="pair">{ p.as_ref().map(|(o, row)| html! {
                <><span class="swatch" style={format!("background:{}", colour(*o))}></span>{ format!("{o} {row}") }</>
            }).unwrap_or_default() }</td>
        },
    }
}

/// A job's row, marked when a failure rolled it back since the last board.
fn row(r: &Row, marks: Option<&FaultMarks>) -> Html {
    let back = match r.cells.first() {
        Some(Cell::Job(j)) => marks.and_then(|m| m.rollback(*j)),
        _ => None,
    };
    let cells = html! { <>{ for r.cells.iter().map(cell) }</> };
    match back {
        Some(x) => {
            let mut data = r.data.clone();
            data.push(("rolled-back-s".into(), x.lost_s.to_string()));
            let title = format!(
                "interrupted {}: rolled back {:.0} s of computation to its last checkpoint",
                if x.times > 1 {
                    format!("{} times", x.times)
                } else {
                    "once".into()
                },
                x.lost_s
            );
            element("tr", "rolled-back", None, Some(&title), &data, cells)
        }
        None => element("tr", "", None, None, &r.data, cells),
    }
}

/// The view of the board `b`; `all` says whether every row of its table was asked for and
/// `on_all` asks for every row (or the first ones); `marks` are what failures and spot
/// capacity did since the last board.
pub fn view(b: &Board, all: bool, on_all: &Callback<Event>, marks: Option<&FaultMarks>) -> Html {
    let t = &b.table;
    let table = html! {
        <table class="jobs" id={t.id.clone()}>
            <thead><tr>
            { for t.heads.iter().map(|(h, title)| html! { <th title={title.clone()}>{ h }</th> }) }
            </tr></thead>
            <tbody>
            { for t.rows.iter().map(|r| row(r, marks)) }
            </tbody>
        </table>
    };
    let toggle = if t.total > JOB_ROWS {
        html! {
            <label class="hint"><input type="checkbox" checked={all} onchange={on_all.clone()} />{ format!(" show all {} {} ({} more)", t.total, t.what, t.total.saturating_sub(JOB_ROWS)) }</label>
        }
    } else {
        html! {}
    };
    let inner = html! {
        <>
        { for b.areas.iter().map(|a| area(a, marks)) }
        if let Some(m) = marks { { faults::view(m, &b.areas) } }
        { table }
        { toggle }
        if let Some(c) = &b.choices {
            <Choices explanation={c.explanation.clone()} types={c.types.clone()} apps={c.apps.clone()} />
        }
        <p class="hint">{ &b.footer }</p>
        </>
    };
    element("div", "state", b.id.as_deref(), None, &b.data, inner)
}
