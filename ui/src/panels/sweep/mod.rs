//! The "Sweep" panel: average (or p99) JCT of the experiment's policies against the load,
//! the generator's jobs per hour (or, for a trace, the load factor), as a chart and a table.
//! Its runs are those of `orrery sweep` ([`orrery::experiment::SweepPoint`]), shared among
//! one worker per core the way a comparison's are: each cell (one policy at one load) is a
//! task of that point's experiment, run by the next free worker, so the page and
//! `orrery sweep --rates ...` give the same numbers. Cancel stops the workers.
//!
//! Any experiment may sweep the failure rate instead (failures per server-day; one without
//! failure settings gets the model's defaults, as `orrery sweep --failure-rates ...`
//! does): ETTR (and JCT) of each policy at each rate. An experiment with failures may sweep
//! the checkpoint interval: ETTR (and JCT) of each policy at each interval, `auto` (Daly's
//! for each job) among them, with Young's and Daly's intervals of its largest job marked,
//! as `orrery sweep --checkpoint-intervals ...` runs it.
//!
//! A sweep link is the experiment's share link with the sweep's values before the fragment
//! (`?sweep=10,20,40&metric=p99#x1...`, `&axis=checkpoint` for intervals, `&axis=failures`
//! for failure rates); the panel starts with those values and that axis. Values refused say
//! why next to their field.
//!
//! - `values`: what a sweep varies and the values typed;
//! - `grid`: a sweep's cells, each cell's experiment and the intervals marked;
//! - `address`: the sweep's link, and the values a page opened with one starts with;
//! - `run`: the workers that run the cells;
//! - `table`: the table of the cells and the paper's figure beside it;
//! - `draw`: the chart.

mod address;
mod draw;
mod grid;
mod run;
mod table;
mod values;

use super::chart;
use crate::shared::Shared;
use crate::worker::FromWorker;
use crate::{input_checked, input_value, select_value};
use address::from_address;
use grid::Grid;
use orrery::experiment::Experiment;
use run::Running;
use values::{parse_values, suggested, Axis, Choice};
use yew::prelude::*;

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
    /// The values field left: check them.
    CheckValues,
    /// Chart p99 JCT rather than the average.
    P99(bool),
    /// What to sweep: the name of a [`Choice`] (`load`, `checkpoint`, `failures`).
    Axis(String),
    /// Start the sweep.
    Start,
    /// Stop it.
    Cancel,
    /// Put the sweep's link in the address bar and the clipboard.
    Link,
    /// A message from worker `k`.
    Worker(usize, FromWorker),
}

/// The panel.
pub struct SweepPanel {
    values: String,
    /// Why the values typed are refused, shown next to them.
    refused: Option<String>,
    p99: bool,
    /// What to sweep: the load, the checkpoint interval (an experiment with failures) or
    /// the failure rate.
    choice: Choice,
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

impl Component for SweepPanel {
    type Message = SweepMsg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let exp = &ctx.props().exp;
        let (values, p99, choice) = from_address()
            .filter(|a| a.2.fits(exp))
            .unwrap_or_else(|| (suggested(exp, Choice::Load), false, Choice::Load));
        let mut panel = SweepPanel {
            values,
            refused: None,
            p99,
            choice,
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
        if !self.choice.fits(&ctx.props().exp) {
            // The experiment lost its failures: back to the load.
            self.pick(ctx, Choice::Load);
        }
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
            SweepMsg::CheckValues => {
                let axis = Axis::of(self.choice, &ctx.props().exp);
                self.refused = parse_values(&self.values, axis).err();
            }
            SweepMsg::P99(on) => {
                self.p99 = on;
                self.link = None;
            }
            SweepMsg::Axis(name) => self.pick(ctx, Choice::from_name(&name)),
            SweepMsg::Start => self.start(ctx),
            SweepMsg::Cancel => {
                self.running = None;
                crate::worker::prepare_spare();
            }
            SweepMsg::Link => self.copy_link(ctx),
            SweepMsg::Worker(k, m) => return self.worker_message(k, m),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let exp = &ctx.props().exp;
        let faults = exp.faults.is_some();
        let axis = Axis::of(self.choice, exp);
        let running = self.running.is_some();
        let done = self
            .grid
            .as_ref()
            .map_or(0, |g| g.cells.iter().flatten().count());
        let total = self.grid.as_ref().map_or(0, |g| g.cells.len());
        let (title, hint, label) = words(axis);
        let option = |c: Choice, text: &'static str| {
            html! { <option value={c.name()} selected={self.choice == c}>{ text }</option> }
        };
        html! {
            <section class="panel wide" id="sweep-panel">
                <h2>{ title }</h2>
                { super::intro("sweep", "The same experiment run again and again, each time with more jobs arriving per hour (or a trace's arrivals squeezed closer together). At low load every policy looks alike: jobs rarely wait. As the load grows, queues build up, and the curves show which policy keeps jobs moving and where each one breaks down. This is how the papers compare schedulers: JCT against load.") }
                <label>{ "against " }
                    <select id="sweep-axis" onchange={link.callback(|e: Event| SweepMsg::Axis(select_value(&e)))}>
                        { option(Choice::Load, "the load") }
                        if faults { { option(Choice::Checkpoint, "the checkpoint interval") } }
                        { option(Choice::Failures, "the failure rate") }
                    </select>
                </label>
                <p class="hint">{ hint }</p>
                <div class="controls">
                    <label>{ label }
                        <input id="sweep-values" value={self.values.clone()} size="24"
                            aria-invalid={if self.refused.is_some() { "true" } else { "false" }}
                            oninput={link.callback(|e: InputEvent| SweepMsg::Values(input_value(&e)))}
                            onchange={link.callback(|_: Event| SweepMsg::CheckValues)} />
                        if let Some(why) = &self.refused {
                            <span class="field-error" id="sweep-values-error" role="alert">{ why }</span>
                        }
                    </label>
                    if !axis.ettr() {
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
                <div class="charts">{ chart(draw::chart_name(self.grid.as_ref().map_or(Axis::Rates, |g| g.axis)), &self.canvas, true) }</div>
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
    /// Sweep along `choice` from now on, with the values suggested for it.
    fn pick(&mut self, ctx: &Context<Self>, choice: Choice) {
        if choice != self.choice {
            self.choice = choice;
            self.values = suggested(&ctx.props().exp, choice);
            self.refused = None;
            self.link = None;
        }
    }
}

/// The panel's title, its hint and the values' label for a sweep along `axis`.
fn words(axis: Axis) -> (&'static str, &'static str, &'static str) {
    match axis {
        Axis::Checkpoint => (
            "Sweep: ETTR against the checkpoint interval",
            "Runs every ticked policy with each checkpoint interval (seconds of computation between a job's checkpoints, or auto: Daly's interval for each job's own mean time to failure) and charts ETTR, the share of the jobs' time spent on work they kept: short intervals lose time writing, long ones lose work to each failure. Young's and Daly's intervals for the experiment's largest job are marked, and auto is ringed at Daly's. The same runs as orrery sweep --checkpoint-intervals.",
            "checkpoint every (s, or auto) ",
        ),
        Axis::Failures => (
            "Sweep: ETTR against the failure rate",
            "Runs every ticked policy at each failure rate (failures per server-day: each server fails at random at that rate) and charts ETTR, the share of the jobs' time spent on work they kept; the table gives the average JCT too. An experiment without failure settings gets the model's: a spare at once, Llama 3's causes, hourly checkpoints written without blocking. The same runs as orrery sweep --failure-rates.",
            "failures per server-day ",
        ),
        Axis::Rates => (
            "Sweep: JCT against load",
            "Runs every ticked policy at each arrival rate of the generator (jobs per hour) and charts their JCT: where each policy's queue starts to grow. The same runs as orrery sweep --rates.",
            "jobs per hour ",
        ),
        Axis::Loads => (
            "Sweep: JCT against load",
            "Runs every ticked policy at each load factor (the trace's arrivals compressed in time) and charts their JCT. The same runs as orrery sweep --loads.",
            "load factors ",
        ),
    }
}
