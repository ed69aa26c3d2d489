//! The "Sweep" panel: average (or p99) JCT of the experiment's policies against the load,
//! the generator's jobs per hour (or, for a trace, the load factor), as a chart and a table.
//! Its runs are those of `orrery sweep` ([`crate::experiment::SweepPoint`]), shared among
//! one worker per core the way a comparison's are: each cell (one policy at one load) is a
//! task of that point's experiment, run by the next free worker, so the page and
//! `orrery sweep --rates ...` give the same numbers. Cancel stops the workers.
//!
//! An experiment with failures may sweep the checkpoint interval instead: ETTR (and JCT)
//! of each policy at each interval, with Young's and Daly's intervals of its largest job
//! marked, as `orrery sweep --checkpoint-intervals ...` runs it.
//!
//! A sweep link is the experiment's share link with the sweep's values before the fragment
//! (`?sweep=10,20,40&metric=p99#x1...`, `&axis=checkpoint` for intervals); the panel starts
//! with those values.

use super::chart;
use crate::experiment::scenarios::claims::load_claim_for;
use crate::experiment::{Experiment, Progress, SweepPoint};
use crate::model::failure::checkpoint::{daly_interval, Interval};
use crate::ui::charts::{faults::ettr_sweep, stacked, Panel};
use crate::ui::plot;
use crate::ui::shared::Shared;
use crate::ui::worker::{FromWorker, ToWorker, WorkerHandle};
use crate::ui::{input_checked, input_value, select_value};
use std::collections::VecDeque;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Most values a sweep takes.
const MAX_VALUES: usize = 12;
/// Most workers a sweep uses.
const MAX_WORKERS: usize = 4;

/// What the panel shows.
#[derive(Properties, PartialEq)]
pub struct Props {
    /// The current experiment: its policies are the sweep's.
    pub exp: Shared<Experiment>,
    /// Preset sweeps asked for so far: when it changes and the experiment is a preset's
    /// with a figure against the load, the panel sweeps that figure's rates by itself.
    #[prop_or_default]
    pub auto: u64,
}

/// The panel's messages.
pub enum SweepMsg {
    /// The values typed.
    Values(String),
    /// Chart p99 JCT rather than the average.
    P99(bool),
    /// Sweep the checkpoint interval (true) or the load.
    Checkpoint(bool),
    /// Start the sweep.
    Start,
    /// Stop it.
    Cancel,
    /// Put the sweep's link in the address bar and the clipboard.
    Link,
    /// A message from worker `k`.
    Worker(usize, FromWorker),
}

/// One finished cell: average and p99 JCT (s), unfinished jobs, ETTR.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    avg: f64,
    p99: f64,
    unfinished: usize,
    ettr: Option<f64>,
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Axis {
    /// The generator's jobs per hour.
    Rates,
    /// The load factor.
    Loads,
    /// The checkpoint interval (s).
    Checkpoint,
}

/// A sweep's grid and what has run of it.
#[derive(Clone, PartialEq)]
struct Grid {
    base: Experiment,
    axis: Axis,
    values: Vec<f64>,
    /// Cells, policy-major: `p * values.len() + v`.
    cells: Vec<Option<Cell>>,
    /// Intervals marked on an ETTR chart: (name, seconds).
    marks: Vec<(String, f64)>,
}

impl Grid {
    fn point(&self, v: usize) -> SweepPoint {
        let x = self.values[v];
        match self.axis {
            Axis::Rates => SweepPoint {
                jobs_per_hour: Some(x),
                ..SweepPoint::default()
            },
            Axis::Loads => SweepPoint {
                load: Some(x),
                ..SweepPoint::default()
            },
            Axis::Checkpoint => SweepPoint {
                checkpoint: Some(Interval::Every(x)),
                ..SweepPoint::default()
            },
        }
    }

    /// The request that runs cell `i`.
    fn request(&self, i: usize) -> ToWorker {
        let n = self.values.len().max(1);
        let (p, v) = (i / n, i % n);
        let exp = self
            .base
            .at_point(&self.point(v), self.base.policies.clone());
        ToWorker::RunTasks(Some(Box::new(exp)), vec![p])
    }
}

/// The workers of a running sweep.
struct Running {
    workers: Vec<WorkerHandle>,
    /// The cell each worker runs.
    busy: Vec<Option<usize>>,
    queue: VecDeque<usize>,
    progress: Vec<Option<Progress>>,
    started_ms: f64,
}

/// The panel.
pub struct SweepPanel {
    values: String,
    p99: bool,
    /// Sweep the checkpoint interval (an experiment with failures) rather than the load.
    checkpoint: bool,
    grid: Option<Grid>,
    running: Option<Running>,
    error: Option<String>,
    link: Option<String>,
    last_ms: Option<f64>,
    canvas: NodeRef,
    /// Sweeps started; with the cells done and the metric, what the chart last showed.
    sweeps: u64,
    drawn: Option<(u64, usize, bool)>,
}

/// The checkpoint intervals suggested (s).
const INTERVALS: &str = "300, 600, 900, 1200, 1800, 2400, 3600";

/// The sweep's values from the page's address (`?sweep=...&metric=p99&axis=checkpoint`),
/// if any: the values, p99, the checkpoint axis.
fn from_address() -> Option<(String, bool, bool)> {
    let search = web_sys::window()?.location().search().ok()?;
    let mut values = None;
    let mut p99 = false;
    let mut checkpoint = false;
    for pair in search.trim_start_matches('?').split('&') {
        match pair.split_once('=') {
            Some(("sweep", v)) => values = Some(v.replace("%2C", ",").replace(',', ", ")),
            Some(("metric", m)) => p99 = m == "p99",
            Some(("axis", a)) => checkpoint = a == "checkpoint",
            _ => {}
        }
    }
    Some((values?, p99, checkpoint))
}

/// Young's (`sqrt(2 w M)`) and Daly's intervals for the experiment's largest job (its GPUs
/// on the first GPU type that holds them, in servers of that type), named, when the
/// experiment has failures and blocking checkpoint writes.
fn optimum_marks(exp: &Experiment) -> Vec<(String, f64)> {
    let Some(f) = exp.faults.as_ref() else {
        return Vec::new();
    };
    let w = f.checkpoint.write_s;
    if w <= 0.0 || f.failures.per_server_day <= 0.0 {
        return Vec::new();
    }
    let Ok(r) = exp.resolve() else {
        return Vec::new();
    };
    let gpus = r
        .trace
        .jobs
        .iter()
        .map(|j| j.scale_factor)
        .max()
        .unwrap_or(1);
    let per = r
        .cluster
        .types
        .iter()
        .find(|t| t.count >= gpus)
        .or(r.cluster.types.first())
        .map_or(1, |t| t.per_server.max(1));
    let servers = gpus.div_ceil(per);
    let m = f.failures.mttf_s(servers);
    let minutes = |s: f64| s / 60.0;
    let (young, daly) = ((2.0 * w * m).sqrt(), daly_interval(w, m));
    vec![
        (
            format!(
                "Young: {:.1} min (a job on {servers} servers)",
                minutes(young)
            ),
            young,
        ),
        (format!("Daly: {:.1} min", minutes(daly)), daly),
    ]
}

/// Values suggested for an experiment: around its rate (or load factor).
fn suggested(exp: &Experiment) -> String {
    let x = exp.jobs_per_hour().unwrap_or(exp.load_factor);
    [0.5, 1.0, 1.5, 2.0]
        .iter()
        .map(|m| plot::axis::short(m * x))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parse the values typed: positive numbers, sorted, without repeats.
fn parse_values(text: &str) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        match part.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 => v.push(x),
            _ => return Err(format!("{part:?} is not a positive number")),
        }
    }
    crate::order::sort_floats(&mut v);
    v.dedup();
    if v.is_empty() {
        return Err("give at least one value".into());
    }
    if v.len() > MAX_VALUES {
        return Err(format!("at most {MAX_VALUES} values"));
    }
    Ok(v)
}

/// Workers for `cells` runs: one per core the browser reports, at most [`MAX_WORKERS`].
fn workers_for(cells: usize) -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .filter(|c| c.is_finite() && *c >= 1.0)
        .map_or(1, |c| c as usize);
    cores.clamp(1, MAX_WORKERS).min(cells.max(1))
}

impl Component for SweepPanel {
    type Message = SweepMsg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let exp = &ctx.props().exp;
        let (values, p99, checkpoint) = from_address()
            .filter(|a| !a.2 || exp.faults.is_some())
            .unwrap_or_else(|| (suggested(exp), false, false));
        let mut panel = SweepPanel {
            values,
            p99,
            checkpoint,
            grid: None,
            running: None,
            error: None,
            link: None,
            last_ms: None,
            canvas: NodeRef::default(),
            sweeps: 0,
            drawn: None,
        };
        if ctx.props().auto > 0 {
            panel.sweep_preset(ctx);
        }
        panel
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        if ctx.props().auto != old.auto {
            self.sweep_preset(ctx);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: SweepMsg) -> bool {
        match msg {
            SweepMsg::Values(v) => {
                self.values = v;
                self.link = None;
            }
            SweepMsg::P99(on) => {
                self.p99 = on;
                self.link = None;
            }
            SweepMsg::Checkpoint(on) => {
                if on != self.checkpoint {
                    self.checkpoint = on;
                    self.values = if on {
                        INTERVALS.to_string()
                    } else {
                        suggested(&ctx.props().exp)
                    };
                    self.link = None;
                }
            }
            SweepMsg::Start => self.start(ctx),
            SweepMsg::Cancel => {
                self.running = None;
                crate::ui::worker::prepare_spare();
            }
            SweepMsg::Link => self.copy_link(ctx),
            SweepMsg::Worker(k, m) => return self.worker_message(k, m),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let exp = &ctx.props().exp;
        let rates = exp.jobs_per_hour().is_some();
        let faults = exp.faults.is_some();
        let checkpoint = self.checkpoint && faults;
        let running = self.running.is_some();
        let done = self
            .grid
            .as_ref()
            .map_or(0, |g| g.cells.iter().flatten().count());
        let total = self.grid.as_ref().map_or(0, |g| g.cells.len());
        html! {
            <section class="panel wide" id="sweep-panel">
                <h2>{ if checkpoint { "Sweep: ETTR against the checkpoint interval" } else { "Sweep: JCT against load" } }</h2>
                { super::intro("sweep", "The same experiment run again and again, each time with more jobs arriving per hour (or a trace's arrivals squeezed closer together). At low load every policy looks alike: jobs rarely wait. As the load grows, queues build up, and the curves show which policy keeps jobs moving and where each one breaks down. This is how the papers compare schedulers: JCT against load.") }
                if faults {
                    <label>{ "against " }
                        <select id="sweep-axis" onchange={link.callback(|e: Event| SweepMsg::Checkpoint(select_value(&e) == "checkpoint"))}>
                            <option value="load" selected={!checkpoint}>{ "the load" }</option>
                            <option value="checkpoint" selected={checkpoint}>{ "the checkpoint interval" }</option>
                        </select>
                    </label>
                }
                <p class="hint">{ if checkpoint {
                    "Runs every ticked policy with each checkpoint interval (seconds of computation between a job's checkpoints) and charts ETTR, the share of the jobs' time spent on work they kept: short intervals lose time writing, long ones lose work to each failure. Young's and Daly's intervals for the experiment's largest job are marked. The same runs as orrery sweep --checkpoint-intervals."
                } else if rates {
                    "Runs every ticked policy at each arrival rate of the generator (jobs per hour) and charts their JCT: where each policy's queue starts to grow. The same runs as orrery sweep --rates."
                } else {
                    "Runs every ticked policy at each load factor (the trace's arrivals compressed in time) and charts their JCT. The same runs as orrery sweep --loads."
                } }</p>
                <div class="controls">
                    <label>{ if checkpoint { "checkpoint every (s) " } else if rates { "jobs per hour " } else { "load factors " } }
                        <input id="sweep-values" value={self.values.clone()} size="24"
                            oninput={link.callback(|e: InputEvent| SweepMsg::Values(input_value(&e)))} />
                    </label>
                    if !checkpoint {
                        <label><input type="checkbox" id="sweep-p99" checked={self.p99}
                            onchange={link.callback(|e: Event| SweepMsg::P99(input_checked(&e)))} />{ " p99 JCT" }</label>
                    }
                    if running {
                        <button id="sweep-cancel" onclick={link.callback(|_| SweepMsg::Cancel)}>{ "Cancel" }</button>
                    } else {
                        <button id="sweep-run" class="primary" onclick={link.callback(|_| SweepMsg::Start)}>{ "Run sweep" }</button>
                    }
                    <button id="sweep-link-copy" onclick={link.callback(|_| SweepMsg::Link)}>{ "Copy sweep link" }</button>
                    if running {
                        <progress id="sweep-progress" max={total.to_string()} value={done.to_string()} />
                        <span class="timing">{ format!("{done}/{total} runs{}", self.progress_text()) }</span>
                    } else if let Some(ms) = self.last_ms {
                        <span class="timing" id="sweep-ms" data-ms={format!("{ms:.0}")}>{ format!("{total} runs in {:.2} s", ms / 1000.0) }</span>
                    }
                </div>
                if let Some(l) = &self.link { <input id="sweep-link" readonly=true value={l.clone()} /> }
                if let Some(e) = &self.error { <p class="error" id="sweep-error">{ e }</p> }
                if let Some(g) = &self.grid { { self.table(g) } { self.claim(g) } }
                <div class="charts">{ chart(if self.grid.as_ref().is_some_and(|g| g.axis == Axis::Checkpoint) { "ettr-sweep" } else { "sweep" }, &self.canvas, true) }</div>
            </section>
        }
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        let key = (
            self.sweeps,
            self.grid
                .as_ref()
                .map_or(0, |g| g.cells.iter().flatten().count()),
            self.p99,
        );
        if self.drawn != Some(key) {
            self.drawn = Some(key);
            self.draw();
        }
    }
}

impl SweepPanel {
    /// Sweep the rates of the figure against the load of the preset the experiment is, if
    /// it is one.
    fn sweep_preset(&mut self, ctx: &Context<Self>) {
        if let Some(c) = load_claim_for(&ctx.props().exp) {
            self.values = c
                .rates
                .iter()
                .map(|r| plot::axis::short(*r))
                .collect::<Vec<_>>()
                .join(", ");
            self.p99 = false;
            self.link = None;
            self.start(ctx);
        }
    }

    /// The paper's figure against the load beside the sweep's, when the grid is a preset's.
    fn claim(&self, g: &Grid) -> Html {
        let Some(c) = load_claim_for(&g.base).filter(|_| g.axis == Axis::Rates) else {
            return html! {};
        };
        let n = g.values.len();
        let ratios = c.ratios(|policy, rate| {
            let p = g.base.policies.iter().position(|x| x == policy)?;
            let v = g.values.iter().position(|&x| x == rate)?;
            g.cells.get(p * n + v).copied().flatten().map(|c| c.avg)
        });
        html! {
            <div class="claim" id="sweep-claim" data-points={ratios.len().to_string()}>
                <p>{ c.line(&ratios) }</p>
                <p class="hint">{ c.source }</p>
            </div>
        }
    }

    fn start(&mut self, ctx: &Context<Self>) {
        self.error = None;
        self.running = None;
        let exp = (*ctx.props().exp).clone();
        if exp.policies.is_empty() {
            self.error = Some("Tick at least one policy.".into());
            return;
        }
        let values = match parse_values(&self.values) {
            Ok(v) => v,
            Err(e) => {
                self.error = Some(format!("Values: {e}."));
                return;
            }
        };
        let axis = if self.checkpoint && exp.faults.is_some() {
            Axis::Checkpoint
        } else if exp.jobs_per_hour().is_some() {
            Axis::Rates
        } else {
            Axis::Loads
        };
        let n = values.len();
        let cells = exp.policies.len() * n;
        let marks = if axis == Axis::Checkpoint {
            optimum_marks(&exp)
        } else {
            Vec::new()
        };
        let grid = Grid {
            base: exp,
            axis,
            values,
            cells: vec![None; cells],
            marks,
        };
        // Value by value, every policy at each: the chart fills from the left.
        let mut queue: VecDeque<usize> = (0..n)
            .flat_map(|v| (0..grid.base.policies.len()).map(move |p| p * n + v))
            .collect();
        let k = workers_for(cells);
        let mut workers = Vec::with_capacity(k);
        let mut busy = Vec::with_capacity(k);
        for w in 0..k {
            let Some(cell) = queue.pop_front() else { break };
            let cb = ctx.link().callback(move |m| SweepMsg::Worker(w, m));
            match WorkerHandle::spawn(&grid.request(cell), move |m| cb.emit(m)) {
                Ok(h) => {
                    workers.push(h);
                    busy.push(Some(cell));
                }
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
        let n = workers.len();
        self.grid = Some(grid);
        self.running = Some(Running {
            workers,
            busy,
            queue,
            progress: vec![None; n],
            started_ms: crate::ui::now_ms(),
        });
        self.last_ms = None;
        self.sweeps += 1;
    }

    fn worker_message(&mut self, k: usize, m: FromWorker) -> bool {
        let (Some(run), Some(grid)) = (self.running.as_mut(), self.grid.as_mut()) else {
            return false;
        };
        match m {
            FromWorker::Progress(p) => {
                if let Some(s) = run.progress.get_mut(k) {
                    *s = Some(p);
                }
                true
            }
            FromWorker::Partial(_, r) => {
                if let Some(Some(cell)) = run.busy.get(k) {
                    if let Some(slot) = grid.cells.get_mut(*cell) {
                        *slot = Some(Cell {
                            avg: r.summary.avg_jct_s,
                            p99: r.summary.p99_jct_s,
                            unfinished: r.summary.unfinished,
                            ettr: r.summary.faults.as_ref().and_then(|f| f.ettr),
                        });
                    }
                }
                true
            }
            FromWorker::Idle(_) => {
                if let Some(p) = run.progress.get_mut(k) {
                    *p = None;
                }
                let next = run.queue.pop_front();
                if let Some(b) = run.busy.get_mut(k) {
                    *b = next;
                }
                if let Some(cell) = next {
                    if let Err(e) = run.workers[k].post(&grid.request(cell)) {
                        self.error = Some(e);
                        self.running = None;
                    }
                } else if run.busy.iter().all(Option::is_none) {
                    self.last_ms = Some(crate::ui::now_ms() - run.started_ms);
                    self.running = None;
                    crate::ui::worker::prepare_spare();
                }
                true
            }
            FromWorker::Failed(e) => {
                self.error = Some(e);
                self.running = None;
                true
            }
            _ => false,
        }
    }

    fn progress_text(&self) -> String {
        let Some(run) = &self.running else {
            return String::new();
        };
        let running: Vec<String> = run
            .progress
            .iter()
            .flatten()
            .map(|p| format!("{} {}/{}", p.policy, p.jobs_done, p.jobs))
            .collect();
        if running.is_empty() {
            String::new()
        } else {
            format!(": {}", running.join(", "))
        }
    }

    /// The sweep link: the experiment's share link with the values in its query.
    fn copy_link(&mut self, ctx: &Context<Self>) {
        let Some(w) = web_sys::window() else { return };
        let loc = w.location();
        let values: Vec<String> = match parse_values(&self.values) {
            Ok(v) => v.iter().map(|x| x.to_string()).collect(),
            Err(e) => {
                self.error = Some(format!("Values: {e}."));
                return;
            }
        };
        let checkpoint = self.checkpoint && ctx.props().exp.faults.is_some();
        let base = format!(
            "{}{}?sweep={}{}{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            values.join(","),
            if self.p99 && !checkpoint {
                "&metric=p99"
            } else {
                ""
            },
            if checkpoint { "&axis=checkpoint" } else { "" }
        );
        let link = ctx.props().exp.to_link(&base);
        if link.len() > crate::ui::MAX_LINK_LEN {
            self.error = Some(
                "The experiment is too large for a link; share its Experiment JSON instead.".into(),
            );
            return;
        }
        let _ = w.navigator().clipboard().write_text(&link);
        self.link = Some(link);
    }

    fn table(&self, g: &Grid) -> Html {
        let hours = |s: f64| format!("{:.2}", s / 3600.0);
        let n = g.values.len();
        html! {
            <table id="sweep-table" class="summary" data-complete={g.cells.iter().all(Option::is_some).to_string()}>
                <thead><tr>
                    <th>{ match g.axis { Axis::Rates => "jobs/h", Axis::Loads => "load", Axis::Checkpoint => "checkpoint (s)" } }</th>
                    { for g.base.policies.iter().map(|p| html! { <th>{ if g.axis == Axis::Checkpoint { format!("{p} ETTR · avg JCT (h)") } else { format!("{p} avg / p99 JCT (h)") } }</th> }) }
                </tr></thead>
                <tbody>
                { for g.values.iter().enumerate().map(|(v, x)| html! {
                    <tr>
                        <th>{ plot::axis::short(*x) }</th>
                        { for g.base.policies.iter().enumerate().map(|(p, name)| match g.cells[p * n + v] {
                            Some(c) => html! {
                                <td data-policy={name.clone()} data-value={x.to_string()} data-avg-jct-s={c.avg.to_string()} data-p99-jct-s={c.p99.to_string()}
                                    data-ettr={c.ettr.map(|e| e.to_string()).unwrap_or_default()}
                                    title={if c.unfinished > 0 { format!("{} jobs did not finish: JCTs are of the finished ones", c.unfinished) } else { String::new() }}>
                                    { if g.axis == Axis::Checkpoint {
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

    /// Draw the chart of the sweep so far.
    fn draw(&self) {
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
