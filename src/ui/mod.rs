//! The web playground (Yew): load and edit a workload, a cluster and policies; step through
//! rounds; compare policies in a Web Worker; share the whole experiment as a link.
//! Charts read result series only; no user-supplied text is ever inserted as HTML.

pub mod charts;
pub mod dl2;
pub mod elastic;
pub mod pai;
pub mod pool;
pub mod preempt;
pub mod worker;

use crate::cluster::ClusterSpec;
use crate::experiment::{Experiment, ProfileSource, Progress, Resolved, WorkloadSource};
use crate::job::JobId;
use crate::metrics::Recorder;
use crate::policy::{catalog, Recompute};
use crate::sim::elastic::ElasticSimulator;
use crate::sim::pooled::PooledSimulator;
use crate::sim::preemptive::PreemptiveSimulator;
use crate::sim::slots::SlotSimulator;
use crate::sim::{Mechanism, RoundReport, SimEvent, Simulation, Simulator};
use crate::workload::{presets, Apps, GeneratorConfig, InlineFile, Profile, Trace};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use worker::{FromWorker, PolicyResult, ToWorker, WorkerHandle};
use yew::prelude::*;

/// Rows of the stepping table shown unless every job is asked for.
const JOB_ROWS: usize = 40;

/// Share links longer than this (characters) get a warning: some tools cut long links.
pub const LONG_LINK_LEN: usize = 100_000;

/// Largest share link the page makes (characters): browsers refuse longer addresses.
pub const MAX_LINK_LEN: usize = 2_000_000;

/// Mount the app on the page's body.
pub fn start() {
    console_error_panic_hook::set_once();
    yew::Renderer::<App>::new().render();
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Cluster presets of the cluster panel.
pub const CLUSTER_PRESETS: [(&str, &str); 3] = [
    ("36:36:36 (Gavel)", "v100:36,p100:36,k80:36"),
    ("8:8:8 (Gavel)", "v100:8,p100:8,k80:8"),
    (
        "modern A100/H100 mix",
        "h100:16/8@6.98,a100:32/8@3.67,v100:16/4@2.48",
    ),
];

/// The simulator being stepped: round-based or elastic.
enum StepSim {
    /// Rounds of the round-based simulator.
    Rounds(Box<Simulator>),
    /// Ticks of the elastic simulator.
    Elastic(Box<ElasticSimulator>),
    /// Ticks of the pooled (Aryl) simulator, with the experiment and the ticks done.
    Pooled(Box<PooledSimulator>, Rc<Resolved>, u64),
    /// Events of the preemptive (PickyMan) simulator, with the experiment and the events
    /// done.
    Preemptive(Box<PreemptiveSimulator>, Rc<Resolved>, u64),
    /// Slots of the slot (DL2) simulator, with the experiment and the slots done.
    Slots(Box<SlotSimulator>, Rc<Resolved>, u64),
}

impl StepSim {
    /// The simulation behind the one stepping interface.
    fn sim(&self) -> &dyn crate::sim::Stepper {
        match self {
            StepSim::Rounds(s) => s.as_ref(),
            StepSim::Elastic(s) => s.as_ref(),
            StepSim::Pooled(s, _, _) => s.as_ref(),
            StepSim::Preemptive(s, _, _) => s.as_ref(),
            StepSim::Slots(s, _, _) => s.as_ref(),
        }
    }

    fn step_round(&mut self) -> Option<RoundReport> {
        let (sim, count): (&mut dyn crate::sim::Stepper, Option<&mut u64>) = match self {
            StepSim::Rounds(s) => (s.as_mut(), None),
            StepSim::Elastic(s) => (s.as_mut(), None),
            StepSim::Pooled(s, _, n) => (s.as_mut(), Some(n)),
            StepSim::Preemptive(s, _, n) => (s.as_mut(), Some(n)),
            StepSim::Slots(s, _, n) => (s.as_mut(), Some(n)),
        };
        let r = sim.step();
        if let Some(n) = count {
            *n += u64::from(r.is_some());
        }
        r
    }

    fn now(&self) -> f64 {
        self.sim().now()
    }

    fn round(&self) -> u64 {
        match self {
            StepSim::Rounds(s) => s.round(),
            StepSim::Elastic(s) => s.round(),
            StepSim::Pooled(_, _, ticks) => *ticks,
            StepSim::Preemptive(_, _, steps) => *steps,
            StepSim::Slots(_, _, slots) => *slots,
        }
    }

    fn is_done(&self) -> bool {
        self.sim().is_done()
    }
}

/// A stepping simulation on the page's thread.
struct Stepper {
    sim: StepSim,
    rec: Recorder,
    last_events: Vec<SimEvent>,
}

/// Messages of the app.
pub enum Msg {
    /// Load a bundled scenario (the whole experiment) and run it.
    Scenario(String),
    /// Set the cluster spec text (applied when valid).
    ClusterText(String),
    /// Pick a cluster preset.
    ClusterPreset(String),
    /// Edit one cell of the cluster table: (row, column, value).
    ClusterCell(usize, &'static str, String),
    /// Add a GPU type row.
    ClusterAddType,
    /// Remove a GPU type row.
    ClusterRemoveType(usize),
    /// Pick a bundled trace.
    TracePreset(String),
    /// Edit a generator field.
    Generator(&'static str, String),
    /// Use the generator's settings.
    Generate,
    /// A trace file's text arrived.
    TraceFile(String, String),
    /// A profile file's text arrived.
    ProfileFile(String, String),
    /// A profile folder's files arrived: folder name, files, files skipped.
    ProfileFolder(String, Vec<InlineFile>, usize),
    /// A profile file or folder could not be read.
    ProfileFileError(String),
    /// Pick a bundled profile.
    ProfilePreset(String),
    /// A file could not be read.
    FileError(String),
    /// Toggle a policy.
    TogglePolicy(String),
    /// Set a policy's parameters text.
    PolicyParams(String, String),
    /// Set the seed.
    Seed(String),
    /// Set the round length.
    Round(String),
    /// Toggle Gavel-compatible mode.
    GavelCompat(bool),
    /// Set the restart cost.
    RestartCost(String),
    /// Per-type restart delays, `type=seconds, ...`.
    RestartTypes(String),
    /// Set the measurement window (`A:B` or empty).
    Window(String),
    /// Toggle the isolated baseline (rho).
    Fairness(bool),
    /// Pick the policy to step through.
    StepPolicy(String),
    /// One round.
    Step,
    /// Play or pause.
    TogglePlay,
    /// Timer tick while playing (generation).
    Tick(u64),
    /// Set the play speed (ms per round).
    Speed(String),
    /// Finish the stepping run.
    RunToEnd,
    /// Back to round 0.
    Reset,
    /// Compare every selected policy in the worker.
    Compare,
    /// Stop the comparison.
    Cancel,
    /// A message from the worker.
    Worker(FromWorker),
    /// Copy the share link.
    CopyLink,
    /// Download results: summaries CSV or JSON, per-job or per-round CSV.
    Download(Export),
    /// Download a chart as PNG.
    DownloadChart(usize),
    /// Focus a policy in the utilization chart.
    FocusPolicy(usize),
    /// A key was pressed.
    Key(KeyboardEvent),
    /// Show every active job in the stepping table, or the first rows only.
    ToggleAllJobs,
    /// Pick the job of the elastic panel.
    ElasticJob(usize),
    /// Set the epoch of the goodput chart.
    ElasticEpoch(u32),
    /// Edit a field of the diurnal inference load.
    InferenceField(&'static str, String),
    /// An inference load CSV's text arrived: file name, text.
    InferenceFile(String, String),
    /// An inference load file could not be read.
    InferenceFileError(String),
    /// Give the experiment an inference pool (true) or take it away.
    InferencePool(bool),
    /// The Alibaba PAI import block.
    Pai(pai::PaiMsg),
    /// The preemption settings and results.
    Preempt(preempt::PreemptMsg),
    /// The DL2 settings, training and network.
    Dl2(dl2::Dl2Msg),
}

/// What a download button exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// Summaries as CSV.
    SummaryCsv,
    /// Summaries as JSON.
    SummaryJson,
    /// Per-job rows of every policy.
    JobsCsv,
    /// Per-round rows of every policy.
    RoundsCsv,
    /// Elastic jobs' changes of GPU count and batch size, every policy.
    ResizesCsv,
    /// Suspensions of preemptive runs, every policy.
    SuspensionsCsv,
    /// The results' experiment, for `orrery run --config`.
    ExperimentJson,
}

/// The playground.
pub struct App {
    exp: Experiment,
    cluster_text: String,
    cluster_error: Option<String>,
    workload_error: Option<String>,
    profile_error: Option<String>,
    workload_label: String,
    generator: GeneratorConfig,
    policy_params: Vec<(String, String)>,
    step_policy: String,
    stepper: Option<Stepper>,
    step_error: Option<String>,
    playing: bool,
    play_gen: u64,
    speed_ms: u32,
    worker: Option<WorkerHandle>,
    progress: Option<Progress>,
    /// The progress bar and its label, updated in place.
    progress_refs: [NodeRef; 2],
    results: Option<(Experiment, Vec<PolicyResult>)>,
    results_complete: bool,
    run_error: Option<String>,
    notice: Option<(bool, String)>,
    charts: [NodeRef; CHARTS],
    charts_dirty: bool,
    elastic_dirty: bool,
    /// The mechanism of the current experiment (the one state the panels follow).
    mech: Mechanism,
    /// The inference pool panel's last error.
    pool_error: Option<String>,
    /// The preemption settings' and results' state.
    preempt: preempt::PreemptForm,
    /// The DL2 settings' and training's state.
    dl2: dl2::Dl2Form,
    /// The Alibaba PAI import block of the Workload panel.
    pai: pai::PaiForm,
    /// Resolved experiments, most recent first (at most two: the current one and the
    /// results').
    resolved: Vec<(Experiment, Rc<Resolved>)>,
    /// The experiment sent to the worker.
    sent_exp: Option<Experiment>,
    /// Results of the run in progress, as the worker reports them.
    run_results: Vec<PolicyResult>,
    /// The results' experiment, resolved.
    results_resolved: Option<Rc<Resolved>>,
    /// The job of the elastic panel the user picked (None: the most resized one).
    elastic_job: Option<usize>,
    /// Epoch of the goodput chart.
    elastic_epoch: u32,
    /// Bytes received from the worker in the last run.
    transfer_bytes: Option<usize>,
    focus_policy: usize,
    show_all_jobs: bool,
    run_started_ms: f64,
    last_run_ms: Option<f64>,
    worker_ms: Option<f64>,
    first_chart_ms: Option<f64>,
    _keys: Option<Closure<dyn FnMut(KeyboardEvent)>>,
}

fn parse_policy_list(policies: &[String]) -> Vec<(String, String)> {
    policies.iter().map(|p| catalog::row_of(p)).collect()
}

/// A policy's spec from its row name and parameters text; a row that is itself a spec with
/// parameters (`pickyman[overhead_aware=false]`) takes the others inside its brackets.
fn spec_of(name: &str, params: &str) -> String {
    let params = params.trim();
    if params.is_empty() {
        name.to_string()
    } else if let Some(head) = name.strip_suffix(']') {
        format!("{head},{params}]")
    } else {
        format!("{name}[{params}]")
    }
}

fn hours(s: f64) -> String {
    format!("{:.2}", s / 3600.0)
}

/// The kind of simulation an experiment's profile implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Throughputs per GPU type: the round-based simulator (or the pooled and preemptive
    /// ones).
    Rounds,
    /// Elastic applications: the elastic simulator (Pollux).
    Elastic,
    /// Parameter-server models: the slot simulator (DL2).
    Ps,
}

impl Family {
    /// The family of an experiment's profile.
    pub fn of(c: &Experiment) -> Self {
        if c.is_ps() {
            Family::Ps
        } else if c.is_elastic() {
            Family::Elastic
        } else {
            Family::Rounds
        }
    }

    /// The bundled scenario of the family, whose settings a switch adopts.
    fn scenario(self) -> Experiment {
        match self {
            Family::Rounds => presets::default_experiment(),
            Family::Elastic => presets::pollux_experiment(),
            Family::Ps => presets::dl2_experiment(),
        }
    }

    /// Name for people.
    fn label(self) -> &'static str {
        match self {
            Family::Rounds => "Round-based",
            Family::Elastic => "Elastic-applications",
            Family::Ps => "Parameter-server (DL2)",
        }
    }
}

/// Give `c` the settings of its profile's family (Pollux's for elastic applications, DL2's
/// for parameter-server models, the default scenario's otherwise): policies, round length,
/// restart cost, fairness, DL2's server settings, and for elastic and parameter-server
/// experiments a one-type cluster. Returns what changed, for people.
fn adopt_family(c: &mut Experiment, family: Family) -> Vec<String> {
    let d = family.scenario();
    let mut changed = vec![
        format!("policies {}", d.policies.join(", ")),
        format!(
            "{} {} s",
            if family == Family::Ps {
                "slot"
            } else {
                "round"
            },
            d.round_s
        ),
        format!("restart cost {} s", d.restart_cost_s),
    ];
    c.policies = d.policies;
    c.round_s = d.round_s;
    c.restart_cost_s = d.restart_cost_s;
    c.fairness = d.fairness;
    c.gavel_compat = false;
    c.window = None;
    if family != Family::Rounds && c.preemption.take().is_some() {
        changed.push("no preemption model (it goes with round-based profiles)".into());
    }
    if family == Family::Ps {
        if c.inference.take().is_some() {
            changed.push("no inference pool (it goes with round-based profiles)".into());
        }
        c.ps = d.ps;
        if let Some(p) = d.ps {
            changed.push(format!("{} CPUs per server", p.cpus_per_server));
        }
    } else {
        c.ps = None;
        if c.network.take().is_some() {
            changed.push("the dl2 policy's network dropped".into());
        }
    }
    let types = ClusterSpec::parse(&c.cluster).map_or(0, |k| k.types.len());
    if family != Family::Rounds && types != 1 {
        changed.push(format!("cluster {}", d.cluster));
        c.cluster = d.cluster;
    }
    changed
}

/// Per-type restart delays from `type=seconds, ...` (empty: none).
fn parse_restart_types(text: &str) -> Result<std::collections::BTreeMap<String, f64>, String> {
    let mut map = std::collections::BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (t, v) = part
            .rsplit_once('=')
            .ok_or_else(|| format!("per-type delays: '{part}' is not type=seconds"))?;
        let s: f64 = v
            .trim()
            .parse()
            .map_err(|_| format!("per-type delays: '{}' is not a number of seconds", v.trim()))?;
        map.insert(t.trim().to_string(), s);
    }
    Ok(map)
}

/// Whether an uploaded profile file is one of elastic applications.
fn is_elastic_profile_text(text: &str) -> bool {
    Apps::is_apps_json(text)
}

/// Files of a profile folder the core reads (the rest is not read, nor put in links).
fn wanted_profile_file(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    base == "app.json"
        || (base.ends_with(".csv")
            && ["placements", "scalability", "validation-"]
                .iter()
                .any(|k| base.starts_with(k)))
}

/// A file's path inside the folder the user chose: the chosen folder's own name is dropped
/// (`traces/cifar10/placements.csv` -> `cifar10/placements.csv`) unless the folder is an
/// application folder itself (`cifar10/placements.csv` stays).
fn folder_relative(path: &str) -> String {
    let path = path.replace('\\', "/");
    match path.split_once('/') {
        Some((_, rest)) if rest.contains('/') => rest.to_string(),
        _ => path,
    }
}

/// Largest profile folder read (bytes of wanted files).
const MAX_FOLDER_BYTES: f64 = 32.0 * 1024.0 * 1024.0;

impl App {
    fn workload_label_of(exp: &Experiment) -> String {
        match &exp.workload {
            WorkloadSource::Preset { name } => format!("bundled trace '{name}'"),
            WorkloadSource::Generated(g) => format!(
                "generated{}: {} jobs, {} jobs/h,{} seed {}",
                if exp.is_elastic() { " (elastic)" } else { "" },
                g.num_jobs,
                g.jobs_per_hour,
                if g.duration_scale == 1.0 {
                    String::new()
                } else {
                    format!(" durations × {},", g.duration_scale)
                },
                g.seed
            ),
            WorkloadSource::Inline { name, .. } => format!("uploaded '{name}'"),
        }
    }

    fn sync_policies(&mut self) {
        self.exp.policies = self
            .policy_params
            .iter()
            .map(|(n, p)| spec_of(n, p))
            .collect();
        if !self
            .policy_params
            .iter()
            .any(|(n, _)| *n == self.step_policy)
        {
            self.step_policy = self
                .policy_params
                .first()
                .map(|p| p.0.clone())
                .unwrap_or_default();
        }
    }

    fn step_spec(&self) -> String {
        self.policy_params
            .iter()
            .find(|(n, _)| *n == self.step_policy)
            .map(|(n, p)| spec_of(n, p))
            .unwrap_or_else(|| self.step_policy.clone())
    }

    /// The experiment resolved, from the cache when it was resolved before.
    fn resolve_cached(&mut self, exp: &Experiment) -> Result<Rc<Resolved>, String> {
        if let Some(i) = self.resolved.iter().position(|(e, _)| e == exp) {
            let hit = self.resolved.remove(i);
            let r = Rc::clone(&hit.1);
            self.resolved.insert(0, hit);
            return Ok(r);
        }
        let r = Rc::new(exp.resolve().map_err(|e| e.to_string())?);
        self.resolved.insert(0, (exp.clone(), Rc::clone(&r)));
        self.resolved.truncate(2);
        Ok(r)
    }

    /// Try a changed experiment: keep it only if it resolves.
    fn try_apply(&mut self, candidate: Experiment) -> Result<(), String> {
        let r = self.resolve_cached(&candidate)?;
        self.mech = r.mechanism();
        let policies_changed = candidate.policies != self.exp.policies;
        self.exp = candidate;
        self.workload_label = Self::workload_label_of(&self.exp);
        if policies_changed {
            self.policy_params = parse_policy_list(&self.exp.policies);
            self.sync_policies();
        }
        if let WorkloadSource::Generated(g) = &self.exp.workload {
            self.generator = g.clone();
        }
        self.stepper = None;
        self.playing = false;
        Ok(())
    }

    /// Show the experiment's cluster in the spec field when a family switch changed it
    /// (the text the user typed stays otherwise).
    fn sync_cluster_text(&mut self) {
        if ClusterSpec::parse(&self.cluster_text).ok() != ClusterSpec::parse(&self.exp.cluster).ok()
        {
            self.cluster_text = self.exp.cluster.clone();
            self.cluster_error = None;
        }
    }

    /// The family of the current experiment.
    /// The cluster the shown results ran on, its GPU types in the order the results index
    /// them (name order for round-based experiments outside Gavel-compatible mode).
    fn results_cluster(&self) -> Option<ClusterSpec> {
        self.results_resolved.as_ref().map(|r| r.cluster.clone())
    }

    /// The mechanism the experiment runs in.
    fn mechanism(&self) -> Mechanism {
        self.mech
    }

    /// Whether the experiment runs in mechanism `m`.
    fn runs_in(&self, m: Mechanism) -> bool {
        self.mech == m
    }

    fn family(&self) -> Family {
        match self.mech {
            Mechanism::Slots => Family::Ps,
            Mechanism::Elastic => Family::Elastic,
            _ => Family::Rounds,
        }
    }

    /// Try a new profile. When it changes the family (round-based, elastic applications or
    /// parameter-server models), the experiment takes that family's settings, and the
    /// family's default workload if its own does not fit. Returns a note saying what
    /// changed.
    fn try_profile(&mut self, profile: ProfileSource) -> Result<Option<String>, String> {
        let mut c = Experiment {
            profile,
            ..self.exp.clone()
        };
        let family = Family::of(&c);
        if family == self.family() {
            return self.try_apply(c).map(|()| None);
        }
        let mut changed = adopt_family(&mut c, family);
        let d = family.scenario();
        // The workload, then the cluster, of the family's own scenario when they do not fit.
        if self.resolve_cached(&c).is_err() && c.workload != d.workload {
            c.workload = d.workload;
            changed.push(format!("workload: {}", Self::workload_label_of(&c)));
        }
        if self.resolve_cached(&c).is_err() && c.cluster != d.cluster {
            changed.push(format!("cluster {}", d.cluster));
            c.cluster = d.cluster;
        }
        self.try_apply(c)?;
        self.sync_cluster_text();
        Ok(Some(format!(
            "{} profile: switched to {}.",
            family.label(),
            changed.join("; ")
        )))
    }

    /// Try an uploaded trace. If its jobs do not fit the current profile but do fit a
    /// bundled profile of the other family (a Pollux workload on a throughput profile, say),
    /// switch to that profile and its family's settings.
    fn try_trace(&mut self, name: String, text: String) -> Result<Option<String>, String> {
        let c = Experiment {
            workload: WorkloadSource::Inline { name, text },
            ..self.exp.clone()
        };
        let first_error = match self.try_apply(c.clone()) {
            Ok(()) => return Ok(None),
            Err(e) => e,
        };
        let named = |list: &[presets::Bundled], f: Family| {
            list.iter().map(|p| (p.name, f)).collect::<Vec<_>>()
        };
        let others: Vec<(&str, Family)> = match self.family() {
            Family::Rounds => [
                named(presets::ELASTIC_PROFILES, Family::Elastic),
                named(presets::PS_PROFILES, Family::Ps),
            ]
            .concat(),
            Family::Elastic | Family::Ps => named(presets::PROFILES, Family::Rounds),
        };
        for (other, family) in others {
            let mut alt = Experiment {
                profile: ProfileSource::Preset { name: other.into() },
                ..c.clone()
            };
            let changed = adopt_family(&mut alt, family);
            if self.try_apply(alt).is_ok() {
                self.sync_cluster_text();
                return Ok(Some(format!(
                    "The trace's jobs fit the bundled profile '{other}': switched to it, with {}.",
                    changed.join("; ")
                )));
            }
        }
        Err(first_error)
    }

    fn ensure_stepper(&mut self) -> bool {
        if self.stepper.is_some() {
            return true;
        }
        let spec = self.step_spec();
        if spec.is_empty() {
            self.step_error = Some("select a policy first".into());
            return false;
        }
        let exp = self.exp.clone();
        let made = self.resolve_cached(&exp).and_then(|r| {
            let sim = match r.simulation(&spec).map_err(|e| e.to_string())? {
                Simulation::Rounds(s) => StepSim::Rounds(s),
                Simulation::Elastic(s) => StepSim::Elastic(s),
                Simulation::Pooled(s) => StepSim::Pooled(s, Rc::clone(&r), 0),
                Simulation::Preemptive(s) => StepSim::Preemptive(s, Rc::clone(&r), 0),
                Simulation::Slots(s) => StepSim::Slots(s, Rc::clone(&r), 0),
            };
            Ok((sim, r))
        });
        match made {
            Ok((sim, r)) => {
                let mut rec = Recorder::new(&r.trace.jobs, r.cluster.num_types());
                rec.preemption.enabled = r.preemption.is_some();
                self.stepper = Some(Stepper {
                    sim,
                    rec,
                    last_events: Vec::new(),
                });
                self.step_error = None;
                true
            }
            Err(e) => {
                self.step_error = Some(e);
                false
            }
        }
    }

    fn step_once(&mut self) -> bool {
        if !self.ensure_stepper() {
            return false;
        }
        let Some(st) = self.stepper.as_mut() else {
            return false;
        };
        match st.sim.step_round() {
            Some(report) => {
                for e in &report.events {
                    st.rec.observe(e);
                }
                st.last_events = report.events;
                true
            }
            None => false,
        }
    }

    fn schedule_tick(&self, ctx: &Context<Self>) {
        let link = ctx.link().clone();
        let generation = self.play_gen;
        let delay = self.speed_ms;
        yew::platform::spawn_local(async move {
            yew::platform::time::sleep(std::time::Duration::from_millis(u64::from(delay))).await;
            link.send_message(Msg::Tick(generation));
        });
    }

    fn start_compare(&mut self, ctx: &Context<Self>) {
        self.worker = None;
        self.results_complete = false;
        self.run_error = None;
        if self.exp.policies.is_empty() {
            self.run_error = Some("select at least one policy".into());
            return;
        }
        let exp = self.exp.clone();
        if let Err(e) = self.resolve_cached(&exp) {
            self.run_error = Some(e);
            return;
        }
        if self.results.as_ref().is_some_and(|(e, _)| *e != exp) {
            self.elastic_job = None;
            self.elastic_epoch = 0;
            self.preempt.policy = 0;
        }
        let link = ctx.link().clone();
        match WorkerHandle::spawn(move |m| link.send_message(Msg::Worker(m))) {
            Ok(w) => {
                self.worker = Some(w);
                self.sent_exp = Some(exp);
                self.run_results.clear();
                let runs = self
                    .resolve_cached(&self.exp.clone())
                    .map_or(self.exp.policies.len(), |r| r.plan(&self.exp).tasks.len());
                self.progress = Some(Progress {
                    run: 0,
                    runs,
                    policy: String::new(),
                    jobs_done: 0,
                    jobs: 1,
                });
                self.run_started_ms = now_ms();
            }
            Err(e) => self.run_error = Some(e),
        }
    }

    /// The share link, and a warning when it is long.
    fn share_link(&self) -> Result<(String, Option<String>), String> {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let link = self.exp.to_link(&base);
        if link.len() > MAX_LINK_LEN {
            return Err(format!(
                "The link would be {} KB, more than browsers accept ({} KB), because the uploaded trace or profile travels inside it. Share the files alongside the settings instead.",
                link.len() / 1000,
                MAX_LINK_LEN / 1000
            ));
        }
        let warning = (link.len() > LONG_LINK_LEN).then(|| {
            format!(
                "Link copied, but it is long ({} KB) because the uploaded {} travels inside it: some chat and mail tools cut links this long, and a shell passes at most 128 KB in one argument. It opens fine in a browser; on the command line, use the Experiment JSON download with orrery compare --config experiment.json.",
                link.len() / 1000,
                match (&self.exp.workload, &self.exp.profile) {
                    (_, ProfileSource::Files { .. }) => "profile folder",
                    (_, ProfileSource::Inline { .. }) => "profile",
                    (WorkloadSource::Inline { .. }, _) => "trace",
                    _ if self.exp.network.is_some() => "network",
                    _ => "trace",
                }
            )
        });
        Ok((link, warning))
    }

    /// Try a profile, keeping the previous one on error (the error is returned for the
    /// profile's message line); a family switch is announced in the notice.
    fn apply_profile(&mut self, profile: ProfileSource) -> Option<String> {
        match self.try_profile(profile) {
            Ok(note) => {
                self.note(note);
                None
            }
            Err(e) => Some(format!("{e} — the previous profile is kept")),
        }
    }

    fn note(&mut self, note: Option<String>) {
        if let Some(n) = note {
            self.notice = Some((true, n));
        }
    }

    /// Results from the worker, for the experiment that was sent.
    fn set_results(&mut self, r: Vec<PolicyResult>) {
        let exp = self.sent_exp.clone().unwrap_or_else(|| self.exp.clone());
        self.results_resolved = self.resolve_cached(&exp).ok();
        self.results = Some((exp, r));
        self.charts_dirty = true;
        self.elastic_dirty = true;
        self.preempt.dirty = true;
    }

    /// The most useful job to show first in the elastic panel: the one resized most often
    /// across the policies (the lowest id on ties).
    fn default_elastic_job(&self) -> usize {
        let Some((_, results)) = &self.results else {
            return 0;
        };
        let mut counts: Vec<usize> = Vec::new();
        for e in results.iter().filter_map(|r| r.elastic.as_ref()) {
            counts.resize(counts.len().max(e.resizes.len()), 0);
            for (c, r) in counts.iter_mut().zip(&e.resizes) {
                *c += r.len();
            }
        }
        counts
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .map_or(0, |(i, _)| i)
    }
}

fn download(name: &str, mime: &str, contents: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(contents));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    download_url(name, &url)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

fn download_url(name: &str, url: &str) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(|e| format!("{e:?}"))?
        .unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}

fn read_file(file: web_sys::File, link: yew::html::Scope<App>, is_trace: bool) {
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(v) => {
                let text = v.as_string().unwrap_or_default();
                link.send_message(if is_trace {
                    Msg::TraceFile(name, text)
                } else {
                    Msg::ProfileFile(name, text)
                });
            }
            Err(e) => {
                let text = format!("{name}: cannot read the file ({e:?})");
                link.send_message(if is_trace {
                    Msg::FileError(text)
                } else {
                    Msg::ProfileFileError(text)
                })
            }
        }
    });
}

/// Read the files of a chosen folder (an `<input webkitdirectory>`), keeping those the core
/// reads, with paths relative to the folder; then send them as one message.
fn read_folder(list: web_sys::FileList, link: yew::html::Scope<App>) {
    let mut files: Vec<(String, web_sys::File)> = (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|f| {
            let rel = js_sys::Reflect::get(&f, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            (if rel.is_empty() { f.name() } else { rel }, f)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let folder = files
        .first()
        .and_then(|(p, _)| p.split('/').next())
        .unwrap_or("folder")
        .to_string();
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = Vec::new();
        let mut skipped = 0;
        let mut bytes = 0.0;
        for (path, file) in files {
            let rel = folder_relative(&path);
            if !wanted_profile_file(&rel) {
                skipped += 1;
                continue;
            }
            bytes += file.size();
            if bytes > MAX_FOLDER_BYTES {
                link.send_message(Msg::ProfileFileError(format!(
                    "{folder}: more than {} MB of application files; choose the folder of the applications only",
                    MAX_FOLDER_BYTES / (1024.0 * 1024.0)
                )));
                return;
            }
            match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                Ok(v) => out.push(InlineFile {
                    path: rel,
                    text: v.as_string().unwrap_or_default(),
                }),
                Err(e) => {
                    link.send_message(Msg::ProfileFileError(format!(
                        "{path}: cannot read the file ({})",
                        e.as_string().unwrap_or_else(|| format!("{e:?}"))
                    )));
                    return;
                }
            }
        }
        link.send_message(Msg::ProfileFolder(folder, out, skipped));
    });
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut notice = None;
        let hash = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default();
        let mut resolved = None;
        let exp = if hash.len() > 1 {
            match Experiment::from_link(&hash) {
                Ok(e) => match e.resolve() {
                    Ok(r) => {
                        resolved = Some(r);
                        e
                    }
                    Err(err) => {
                        notice = Some((false, format!("This link's experiment could not be set up ({err}); the default scenario is loaded instead.")));
                        Experiment::default()
                    }
                },
                Err(err) => {
                    notice = Some((false, format!("This link could not be opened: {err}. The default scenario is loaded instead.")));
                    Experiment::default()
                }
            }
        } else {
            Experiment::default()
        };
        let resolved: Vec<(Experiment, Rc<Resolved>)> = resolved
            .or_else(|| exp.resolve().ok())
            .map(|r| vec![(exp.clone(), Rc::new(r))])
            .unwrap_or_default();
        let mech = resolved
            .first()
            .map_or(Mechanism::Rounds, |(_, r)| r.mechanism());
        let link = ctx.link().clone();
        let keys = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            link.send_message(Msg::Key(e))
        });
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            let _ = doc.add_event_listener_with_callback("keydown", keys.as_ref().unchecked_ref());
        }
        let policy_params = parse_policy_list(&exp.policies);
        let generator = match &exp.workload {
            WorkloadSource::Generated(g) => g.clone(),
            _ => GeneratorConfig {
                num_jobs: 100,
                jobs_per_hour: 2.0,
                multi_gpu: true,
                priority_weights: false,
                elastic_fraction: 0.0,
                duration_scale: 1.0,
                seed: exp.seed,
            },
        };
        let mut app = App {
            cluster_text: exp.cluster.clone(),
            workload_label: Self::workload_label_of(&exp),
            step_policy: policy_params
                .first()
                .map(|p| p.0.clone())
                .unwrap_or_default(),
            policy_params,
            generator,
            exp,
            cluster_error: None,
            workload_error: None,
            profile_error: None,
            stepper: None,
            step_error: None,
            playing: false,
            play_gen: 0,
            speed_ms: 200,
            worker: None,
            progress: None,
            progress_refs: Default::default(),
            results: None,
            results_complete: false,
            run_error: None,
            notice,
            charts: Default::default(),
            charts_dirty: false,
            elastic_dirty: false,
            mech,
            pool_error: None,
            preempt: preempt::PreemptForm::default(),
            dl2: dl2::Dl2Form::default(),
            pai: pai::PaiForm::default(),
            resolved,
            sent_exp: None,
            run_results: Vec::new(),
            results_resolved: None,
            elastic_job: None,
            elastic_epoch: 0,
            transfer_bytes: None,
            focus_policy: 0,
            show_all_jobs: false,
            run_started_ms: now_ms(),
            last_run_ms: None,
            worker_ms: None,
            first_chart_ms: None,
            _keys: Some(keys),
        };
        app.start_compare(ctx);
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Self::Message) -> bool {
        match msg {
            Msg::ClusterText(t) => {
                self.cluster_text = t.clone();
                match ClusterSpec::parse(&t) {
                    Ok(c) => {
                        let candidate = Experiment {
                            cluster: c.to_string(),
                            ..self.exp.clone()
                        };
                        match self.try_apply(candidate) {
                            Ok(()) => self.cluster_error = None,
                            Err(e) => self.cluster_error = Some(e),
                        }
                    }
                    Err(e) => self.cluster_error = Some(e.to_string()),
                }
            }
            Msg::Scenario(name) => {
                if let Some(sc) = presets::scenario(&name) {
                    let exp = sc.experiment();
                    self.policy_params = parse_policy_list(&exp.policies);
                    self.step_policy = self
                        .policy_params
                        .first()
                        .map(|p| p.0.clone())
                        .unwrap_or_default();
                    self.cluster_text = exp.cluster.clone();
                    self.cluster_error = None;
                    self.workload_error = None;
                    self.profile_error = None;
                    self.pool_error = None;
                    self.preempt.error = None;
                    self.run_error = None;
                    match self.try_apply(exp) {
                        Ok(()) => self.start_compare(ctx),
                        Err(e) => self.run_error = Some(e),
                    }
                }
            }
            Msg::ClusterPreset(spec) => {
                return Component::update(self, ctx, Msg::ClusterText(spec))
            }
            Msg::ClusterCell(row, col, value) => {
                if let Ok(mut c) = ClusterSpec::parse(&self.exp.cluster) {
                    if let Some(t) = c.types.get_mut(row) {
                        let ok = match col {
                            "name" => {
                                t.name = value.trim().to_ascii_lowercase();
                                true
                            }
                            "count" => value.trim().parse().map(|v| t.count = v).is_ok(),
                            "per_server" => value.trim().parse().map(|v| t.per_server = v).is_ok(),
                            _ => {
                                if value.trim().is_empty() {
                                    t.price_per_hour = None;
                                    true
                                } else {
                                    value
                                        .trim()
                                        .parse()
                                        .map(|v| t.price_per_hour = Some(v))
                                        .is_ok()
                                }
                            }
                        };
                        if !ok {
                            self.cluster_error = Some(format!("'{value}' is not a valid {col}"));
                            return true;
                        }
                    }
                    return Component::update(self, ctx, Msg::ClusterText(c.to_string()));
                }
            }
            Msg::ClusterAddType => {
                let text = format!(
                    "{},gpu{}:1",
                    self.exp.cluster,
                    self.exp.cluster.matches(',').count() + 2
                );
                return Component::update(self, ctx, Msg::ClusterText(text));
            }
            Msg::ClusterRemoveType(row) => {
                if let Ok(mut c) = ClusterSpec::parse(&self.exp.cluster) {
                    if c.types.len() > 1 && row < c.types.len() {
                        c.types.remove(row);
                        return Component::update(self, ctx, Msg::ClusterText(c.to_string()));
                    }
                }
            }
            Msg::TracePreset(name) => {
                let candidate = Experiment {
                    workload: WorkloadSource::Preset { name },
                    ..self.exp.clone()
                };
                self.workload_error = self.try_apply(candidate).err();
            }
            Msg::Generator(field, v) => {
                let g = &mut self.generator;
                let ok = match field {
                    "num_jobs" => v.trim().parse().map(|x| g.num_jobs = x).is_ok(),
                    "jobs_per_hour" => v.trim().parse().map(|x| g.jobs_per_hour = x).is_ok(),
                    "seed" => v.trim().parse().map(|x| g.seed = x).is_ok(),
                    "duration_scale" => v.trim().parse().map(|x| g.duration_scale = x).is_ok(),
                    "multi_gpu" => {
                        g.multi_gpu = v == "true";
                        true
                    }
                    _ => {
                        g.priority_weights = v == "true";
                        true
                    }
                };
                self.workload_error =
                    (!ok).then(|| format!("generator: '{v}' is not a valid {field}"));
            }
            Msg::Generate => {
                let candidate = Experiment {
                    workload: WorkloadSource::Generated(self.generator.clone()),
                    ..self.exp.clone()
                };
                self.workload_error = self.try_apply(candidate).err();
            }
            Msg::TraceFile(name, text) => {
                self.workload_error = match Trace::parse(&text, &name) {
                    Err(e) => Some(format!("{e} — the previous workload is kept")),
                    Ok(_) => match self.try_trace(name, text) {
                        Ok(note) => {
                            self.note(note);
                            None
                        }
                        Err(e) => Some(format!("{e} — the previous workload is kept")),
                    },
                };
            }
            Msg::ProfileFile(name, text) => {
                let parsed = if is_elastic_profile_text(&text) {
                    Apps::from_json(&text, &name).map(drop)
                } else if crate::workload::PsModels::is_ps_json(&text) {
                    crate::workload::PsModels::from_json(&text, &name).map(drop)
                } else {
                    Profile::parse(&text, &name).map(drop)
                };
                self.profile_error = match parsed {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(()) => self.apply_profile(ProfileSource::Inline { name, text }),
                };
            }
            Msg::ProfileFolder(name, files, skipped) => {
                self.profile_error = match Apps::from_pollux_files(&name, &files) {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(apps) => {
                        let n = apps.apps.len();
                        let error = self.apply_profile(ProfileSource::Files {
                            name: name.clone(),
                            files,
                        });
                        if error.is_none() {
                            let extra = if skipped > 0 {
                                format!(" ({skipped} other files not needed were left out)")
                            } else {
                                String::new()
                            };
                            let before = self.notice.take().map(|n| n.1);
                            self.notice = Some((
                                true,
                                format!(
                                    "Read {n} applications from folder '{name}'{extra}.{}",
                                    before.map(|b| format!(" {b}")).unwrap_or_default()
                                ),
                            ));
                        }
                        error
                    }
                };
            }
            Msg::ProfileFileError(e) => self.profile_error = Some(e),
            Msg::ProfilePreset(name) => {
                self.profile_error = self.apply_profile(ProfileSource::Preset { name });
            }
            Msg::FileError(e) => self.workload_error = Some(e),
            Msg::TogglePolicy(name) => {
                if let Some(i) = self.policy_params.iter().position(|(n, _)| *n == name) {
                    self.policy_params.remove(i);
                } else {
                    self.policy_params.push((name, String::new()));
                }
                self.sync_policies();
                self.stepper = None;
            }
            Msg::PolicyParams(name, params) => {
                if let Some(p) = self.policy_params.iter_mut().find(|(n, _)| *n == name) {
                    p.1 = params;
                }
                self.sync_policies();
                self.stepper = None;
                let mechanism = self.mechanism();
                self.run_error = self
                    .exp
                    .policies
                    .iter()
                    .find_map(|p| catalog::check(p, mechanism).err())
                    .map(|e| e.to_string());
            }
            Msg::Seed(v) => match v.trim().parse() {
                Ok(seed) => {
                    self.exp.seed = seed;
                    self.stepper = None;
                }
                Err(_) => self.run_error = Some(format!("seed: '{v}' is not a whole number")),
            },
            Msg::Round(v) => match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r > 0.0 => {
                    self.exp.round_s = r;
                    self.stepper = None;
                }
                _ => {
                    self.run_error = Some(format!(
                        "round length: '{v}' must be a positive number of seconds"
                    ))
                }
            },
            Msg::GavelCompat(on) => {
                self.exp.gavel_compat = on;
                self.stepper = None;
            }
            Msg::RestartCost(v) => match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r >= 0.0 => {
                    self.exp.restart_cost_s = r;
                    self.stepper = None;
                }
                _ => {
                    self.run_error = Some(format!(
                        "restart cost: '{v}' must be a non-negative number of seconds"
                    ))
                }
            },
            Msg::RestartTypes(v) => match parse_restart_types(&v) {
                Ok(map) => {
                    let candidate = Experiment {
                        restart_by_type: map,
                        ..self.exp.clone()
                    };
                    self.run_error = self.try_apply(candidate).err();
                }
                Err(e) => self.run_error = Some(e),
            },
            Msg::Window(v) => {
                let v = v.trim();
                if v.is_empty() {
                    self.exp.window = None;
                    self.run_error = None;
                } else {
                    let parsed = v.split_once(':').and_then(|(a, b)| {
                        Some((
                            a.trim().parse::<usize>().ok()?,
                            b.trim().parse::<usize>().ok()?,
                        ))
                    });
                    match parsed {
                        Some(w) => {
                            let candidate = Experiment {
                                window: Some(w),
                                ..self.exp.clone()
                            };
                            self.run_error = self.try_apply(candidate).err();
                        }
                        None => {
                            self.run_error = Some(format!(
                                "window: '{v}' must be A:B, job ids from A up to (not including) B"
                            ))
                        }
                    }
                }
            }
            Msg::Fairness(on) => self.exp.fairness = on,
            Msg::StepPolicy(p) => {
                self.step_policy = p;
                self.stepper = None;
                self.playing = false;
            }
            Msg::Step => {
                self.playing = false;
                self.step_once();
            }
            Msg::TogglePlay => {
                self.playing = !self.playing;
                self.play_gen += 1;
                if self.playing {
                    self.schedule_tick(ctx);
                }
            }
            Msg::Tick(generation) => {
                if !self.playing || generation != self.play_gen {
                    return false;
                }
                // At full speed, as many rounds as fit in about 40 ms, then a frame.
                let budget_ms = if self.speed_ms == 0 { 40.0 } else { 0.0 };
                let started = now_ms();
                loop {
                    if !self.step_once() {
                        self.playing = false;
                        break;
                    }
                    if now_ms() - started >= budget_ms {
                        break;
                    }
                }
                if self.playing {
                    self.schedule_tick(ctx);
                }
            }
            Msg::Speed(v) => self.speed_ms = v.parse().unwrap_or(200),
            Msg::RunToEnd => {
                self.speed_ms = 0;
                if !self.playing {
                    return Component::update(self, ctx, Msg::TogglePlay);
                }
            }
            Msg::Reset => {
                self.stepper = None;
                self.playing = false;
                self.play_gen += 1;
            }
            Msg::Compare => self.start_compare(ctx),
            Msg::Cancel => {
                self.worker = None;
                self.progress = None;
                self.run_error = Some("cancelled".into());
            }
            Msg::Worker(m) => match m {
                FromWorker::Ready => {
                    // The experiment as it was when the run was asked for.
                    let exp = self.sent_exp.clone().unwrap_or_else(|| self.exp.clone());
                    let sent = self
                        .worker
                        .as_ref()
                        .map(|w| w.send(&ToWorker::Run(Box::new(exp))));
                    match sent {
                        Some(Err(e)) => {
                            self.run_error = Some(e);
                            self.worker = None;
                        }
                        // Nothing to show yet; a render now would only reset fields being typed in.
                        _ => return false,
                    }
                }
                FromWorker::Progress(p) => {
                    // The bar and its label are updated in place: re-rendering the page ten
                    // times a second would also reset any field the user is typing in.
                    let (fraction, label) = (p.fraction(), progress_label(&p));
                    self.progress = Some(p);
                    let bar = self.progress_refs[0].cast::<web_sys::Element>();
                    let text = self.progress_refs[1].cast::<web_sys::Element>();
                    if let (Some(bar), Some(text)) = (bar, text) {
                        let _ = bar.set_attribute("value", &fraction.to_string());
                        text.set_text_content(Some(&label));
                        return false;
                    }
                }
                FromWorker::Partial(i, r) => {
                    if i <= self.run_results.len() {
                        self.run_results.truncate(i);
                        self.run_results.push(*r);
                        self.set_results(self.run_results.clone());
                    }
                    self.results_complete = false;
                }
                FromWorker::Done(r, worker_ms) => {
                    self.worker_ms = Some(worker_ms);
                    self.transfer_bytes = self.worker.as_ref().map(|w| w.received_bytes());
                    let r = r.unwrap_or_else(|| std::mem::take(&mut self.run_results));
                    self.run_results.clear();
                    self.set_results(r);
                    self.results_complete = true;
                    self.worker = None;
                    self.progress = None;
                    self.charts_dirty = true;
                    self.focus_policy = 0;
                    self.last_run_ms = Some(now_ms() - self.run_started_ms);
                }
                FromWorker::Failed(e) => {
                    self.run_error = Some(e);
                    self.worker = None;
                    self.progress = None;
                }
                // Training messages come from the training worker only.
                FromWorker::TrainProgress(_)
                | FromWorker::TrainCurve(_)
                | FromWorker::Trained(_) => return false,
            },
            Msg::CopyLink => match self.share_link() {
                Ok((link, warning)) => {
                    if let Some(w) = web_sys::window() {
                        if let Ok(h) = w.history() {
                            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&link));
                        }
                        let _ = w.navigator().clipboard().write_text(&link);
                    }
                    self.notice = Some(match warning {
                        Some(w) => (false, w),
                        None => (
                            true,
                            "Link copied: it restores every setting and reproduces these numbers."
                                .into(),
                        ),
                    });
                }
                Err(e) => self.notice = Some((false, e)),
            },
            Msg::Download(what) => {
                let Some((exp, results)) = &self.results else {
                    return false;
                };
                let per_policy = |f: &dyn Fn(&PolicyResult) -> String| -> String {
                    results
                        .iter()
                        .map(|r| format!("# policy: {}\n{}", r.summary.policy, f(r)))
                        .collect()
                };
                let (name, mime, contents) = match what {
                    Export::SummaryCsv => {
                        let summaries: Vec<_> = results.iter().map(|r| r.summary.clone()).collect();
                        (
                            "orrery-summary.csv",
                            "text/csv",
                            crate::metrics::summaries_csv(&summaries),
                        )
                    }
                    Export::SummaryJson => (
                        "orrery-summary.json",
                        "application/json",
                        serde_json::to_string_pretty(
                            &results.iter().map(|r| &r.summary).collect::<Vec<_>>(),
                        )
                        .unwrap_or_default(),
                    ),
                    Export::JobsCsv => (
                        "orrery-jobs.csv",
                        "text/csv",
                        per_policy(&|r| r.jobs_csv.clone()),
                    ),
                    Export::RoundsCsv => {
                        let Some(c) = self.results_cluster() else {
                            return false;
                        };
                        (
                            "orrery-rounds.csv",
                            "text/csv",
                            per_policy(&|r| crate::metrics::series_csv(&r.series, &c)),
                        )
                    }
                    Export::ResizesCsv => (
                        "orrery-elastic-jobs.csv",
                        "text/csv",
                        elastic::resizes_csv(results),
                    ),
                    Export::SuspensionsCsv => (
                        "orrery-suspensions.csv",
                        "text/csv",
                        preempt::suspensions_csv(results),
                    ),
                    Export::ExperimentJson => {
                        ("experiment.json", "application/json", exp.to_json())
                    }
                };
                if let Err(e) = download(name, mime, &contents) {
                    self.notice = Some((false, format!("download failed: {e}")));
                    return true;
                }
                return false;
            }
            Msg::DownloadChart(i) => {
                if let (Some(c), Some(name)) = (
                    self.charts
                        .get(i)
                        .and_then(|c| c.cast::<HtmlCanvasElement>()),
                    CHART_NAMES.get(i),
                ) {
                    if let Ok(url) = c.to_data_url() {
                        let _ = download_url(&format!("orrery-chart-{name}.png"), &url);
                    }
                }
                return false;
            }
            Msg::ToggleAllJobs => self.show_all_jobs = !self.show_all_jobs,
            Msg::ElasticJob(j) => {
                self.elastic_job = Some(j);
                self.elastic_dirty = true;
            }
            Msg::ElasticEpoch(e) => {
                self.elastic_epoch = e;
                self.elastic_dirty = true;
            }
            Msg::InferenceField(field, v) => self.set_inference_field(field, &v),
            Msg::InferenceFile(name, text) => self.set_inference_file(name, text),
            Msg::InferenceFileError(e) => self.pool_error = Some(e),
            Msg::InferencePool(on) => self.set_inference_pool(on),
            Msg::Pai(m) => self.pai_update(m),
            Msg::Preempt(m) => self.preempt_update(m),
            Msg::Dl2(m) => return self.dl2_update(ctx, m),
            Msg::FocusPolicy(i) => {
                self.focus_policy = i;
                self.charts_dirty = true;
            }
            Msg::Key(e) => {
                let typing = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .is_some_and(|el| {
                        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    });
                if typing {
                    return false;
                }
                match e.key().as_str() {
                    " " => {
                        e.prevent_default();
                        return Component::update(self, ctx, Msg::TogglePlay);
                    }
                    "ArrowRight" => {
                        e.prevent_default();
                        return Component::update(self, ctx, Msg::Step);
                    }
                    _ => return false,
                }
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if std::mem::take(&mut self.elastic_dirty) {
            if let Err(e) = self.draw_elastic_charts() {
                self.run_error = Some(format!("chart: {e}"));
            }
        }
        if self.charts_dirty {
            if let Err(e) = self.draw_pool_chart() {
                self.run_error = Some(format!("chart: {e}"));
            }
        }
        if std::mem::take(&mut self.preempt.dirty) {
            if let Err(e) = self.draw_preemption_charts() {
                self.run_error = Some(format!("chart: {e}"));
            }
        }
        if std::mem::take(&mut self.dl2.dirty) {
            if let Err(e) = self.draw_learning_curves() {
                self.dl2.train_error = Some(format!("chart: {e}"));
            }
        }
        if !std::mem::take(&mut self.charts_dirty) {
            return;
        }
        let Some((exp, results)) = &self.results else {
            return;
        };
        let elastic = self
            .results_resolved
            .as_ref()
            .is_some_and(|r| r.apps.is_some());
        let pooled = self
            .results_resolved
            .as_ref()
            .is_some_and(|r| r.load.is_some());
        let canvases: Vec<Option<HtmlCanvasElement>> = self
            .charts
            .iter()
            .map(|r| r.cast::<HtmlCanvasElement>())
            .collect();
        let named = |f: &dyn Fn(&PolicyResult) -> Vec<f64>| {
            results
                .iter()
                .map(|r| (r.summary.policy.clone(), f(r)))
                .collect::<Vec<_>>()
        };
        let mut errors = Vec::new();
        if let Some(c) = canvases[0].clone() {
            let s: Vec<(String, Vec<f64>)> =
                named(&|r| r.jcts.iter().map(|x| x / 3600.0).collect());
            errors.extend(
                charts::draw_cdf(
                    c,
                    "Job completion time (CDF)",
                    "JCT (h, log scale)",
                    &s,
                    true,
                )
                .err(),
            );
        }
        if let Some(c) = canvases[1].clone() {
            let s = named(&|r| r.rhos.clone());
            let title = "Finish-time fairness rho (CDF)";
            let preemptive = self
                .results_resolved
                .as_ref()
                .is_some_and(|r| r.preemption.is_some());
            let ps = self.results_ps();
            let drawn = if elastic || pooled || preemptive || ps {
                charts::draw_message(
                    c,
                    title,
                    if ps {
                        "Not computed for parameter-server experiments: rho needs the isolated policy, which exists for round-based experiments only."
                    } else if preemptive {
                        "Not computed for preemptive experiments: rho needs the isolated policy, which exists for round-based experiments only."
                    } else if pooled {
                        "Not computed for experiments with an inference pool: rho needs the isolated policy, which exists for round-based experiments only."
                    } else {
                        "Not computed for elastic experiments: rho needs the isolated policy, which exists for round-based experiments only."
                    },
                )
            } else if s.iter().all(|x| x.1.is_empty()) {
                charts::draw_message(
                    c,
                    title,
                    if exp.fairness {
                        "No rho yet: it appears once the isolated baseline has run."
                    } else {
                        "Fairness is off: tick 'finish-time fairness' in Run settings to run the isolated baseline."
                    },
                )
            } else {
                charts::draw_cdf(c, title, "rho = JCT / isolated JCT", &s, false)
            };
            errors.extend(drawn.err());
        }
        if let Some(c) = canvases[2].clone() {
            let types: Vec<(String, u32)> = self
                .results_cluster()
                .map(|c| c.types.iter().map(|t| (t.name.clone(), t.count)).collect())
                .unwrap_or_default();
            if let Some(r) = results.get(self.focus_policy.min(results.len().saturating_sub(1))) {
                let s = charts::utilization_series(r, &types);
                errors.extend(
                    charts::draw_lines(
                        c,
                        &format!("Utilization per GPU type ({})", r.summary.policy),
                        "busy GPUs / GPUs",
                        &s,
                        Some(1.0),
                    )
                    .err(),
                );
            }
        }
        if let Some(c) = canvases[3].clone() {
            let s: Vec<(String, Vec<(f64, f64)>)> = results
                .iter()
                .map(|r| (r.summary.policy.clone(), charts::queue_series(r)))
                .collect();
            errors.extend(
                charts::draw_lines(c, "Queue length (jobs waiting)", "jobs", &s, None).err(),
            );
        }
        if let Some(e) = errors.first() {
            self.run_error = Some(format!("chart: {e}"));
        }
        if self.first_chart_ms.is_none() {
            self.first_chart_ms = Some(now_ms());
            if let Some(el) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element())
            {
                let _ = el.set_attribute("data-first-chart-ms", &format!("{:.0}", now_ms()));
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        html! {
            <div class="app">
                <header>
                    <h1>{ "Orrery" }</h1>
                    <span class="tagline">{ "a deep-learning cluster scheduling playground" }</span>
                    <label class="scenario">{ "Scenario " }
                        <select id="scenario" onchange={ctx.link().callback(|e: Event| Msg::Scenario(select_value(&e)))}>
                            <option value="" selected=true disabled=true>{ "load a bundled scenario…" }</option>
                            { for presets::SCENARIOS.iter().map(|sc| html! { <option value={sc.name} title={sc.description}>{ format!("{} — {}", sc.name, sc.description) }</option> }) }
                        </select>
                    </label>
                    <button id="copy-link" onclick={ctx.link().callback(|_| Msg::CopyLink)}>{ "Copy link" }</button>
                </header>
                { self.view_notice() }
                <div class="columns">
                    <aside class="panels">
                        { self.view_workload(ctx) }
                        { self.view_cluster(ctx) }
                        { self.view_policies(ctx) }
                        { self.view_settings(ctx) }
                        { self.view_pool_settings(ctx) }
                        { self.view_preemption_settings(ctx) }
                        { self.view_dl2_settings(ctx) }
                    </aside>
                    <main>
                        { self.view_compare(ctx) }
                        { self.view_pool(ctx) }
                        { self.view_preemption(ctx) }
                        { self.view_elastic(ctx) }
                        { self.view_training(ctx) }
                        { self.view_stepper(ctx) }
                    </main>
                </div>
                <footer>{ "Orrery — the same experiment and seed give the same numbers here and in the orrery CLI (orrery run --link '<link>')." }</footer>
            </div>
        }
    }
}

/// Canvases of the page: the four of the comparison, the two of the elastic panel, the
/// inference pool's, the preemption panel's two, then the DL2 training panel's two.
const CHARTS: usize = 11;

const CHART_NAMES: [&str; CHARTS] = [
    "jct-cdf",
    "rho-cdf",
    "utilization",
    "queue",
    "job-history",
    "goodput",
    "inference-pool",
    "preemption-timeline",
    "predictions",
    "learning-warmup",
    "learning-rl",
];

fn input_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

impl App {
    fn view_notice(&self) -> Html {
        match &self.notice {
            Some((ok, text)) => {
                html! { <div id="notice" class={classes!("notice", if *ok { "ok" } else { "error" })}>{ text }</div> }
            }
            None => html! {},
        }
    }

    fn view_workload(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_trace = {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(f) = input.files().and_then(|l| l.get(0)) {
                    read_file(f, link.clone(), true);
                }
                input.set_value("");
            })
        };
        let on_profile = {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(f) = input.files().and_then(|l| l.get(0)) {
                    read_file(f, link.clone(), false);
                }
                input.set_value("");
            })
        };
        let on_folder = {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(list) = input.files().filter(|l| l.length() > 0) {
                    read_folder(list, link.clone());
                }
                input.set_value("");
            })
        };
        let on_drop = {
            let link = link.clone();
            Callback::from(move |e: DragEvent| {
                e.prevent_default();
                if let Some(f) = e
                    .data_transfer()
                    .and_then(|d| d.files())
                    .and_then(|l| l.get(0))
                {
                    let is_profile = f.name().to_ascii_lowercase().contains("profile")
                        || f.name().to_ascii_lowercase().contains("throughput");
                    read_file(f, link.clone(), !is_profile);
                }
            })
        };
        let g = &self.generator;
        let preset_name = match &self.exp.workload {
            WorkloadSource::Preset { name } => name.clone(),
            _ => String::new(),
        };
        let profile_name = match &self.exp.profile {
            ProfileSource::Preset { name } => name.clone(),
            ProfileSource::Inline { name, .. } => format!("uploaded '{name}'"),
            ProfileSource::Files { name, files } => {
                format!("uploaded folder '{name}' ({} files)", files.len())
            }
        };
        html! {
            <section class="panel" id="workload-panel">
                <h2>{ "Workload" }</h2>
                <p class="current" id="workload-label">{ &self.workload_label }</p>
                <label title={if self.runs_in(Mechanism::Elastic) { "The bundled traces name round-based job types; elastic experiments use the generator or an uploaded Pollux workload" } else { "" }}>{ "Bundled trace " }
                    <select id="trace-preset" disabled={self.runs_in(Mechanism::Elastic) || self.runs_in(Mechanism::Slots)} onchange={link.callback(|e: Event| Msg::TracePreset(select_value(&e)))}>
                        <option value="" selected={preset_name.is_empty()} disabled=true>{ "—" }</option>
                        { for presets::TRACES.iter().map(|t| html! { <option value={t.name} selected={preset_name == t.name} title={t.description}>{ t.name }</option> }) }
                    </select>
                </label>
                <fieldset>
                    <legend>{ "Generator" }</legend>
                    <label>{ "jobs " }<input type="number" min="1" value={g.num_jobs.to_string()} onchange={link.callback(|e: Event| Msg::Generator("num_jobs", input_value(&e)))} /></label>
                    <label>{ "jobs/hour (0 = all at t=0) " }<input type="number" min="0" step="0.1" value={g.jobs_per_hour.to_string()} onchange={link.callback(|e: Event| Msg::Generator("jobs_per_hour", input_value(&e)))} /></label>
                    <label>{ "seed " }<input type="number" min="0" value={g.seed.to_string()} onchange={link.callback(|e: Event| Msg::Generator("seed", input_value(&e)))} /></label>
                    <label title="Factor on every job's drawn duration: 1 is Gavel's recipe (10^1.5 to 10^3 minutes for 80% of jobs, 10^3 to 10^4 for the rest); the pickyman scenario uses 0.1">{ "durations × " }<input id="gen-duration-scale" type="number" min="0.001" max="100" step="0.1" value={g.duration_scale.to_string()} onchange={link.callback(|e: Event| Msg::Generator("duration_scale", input_value(&e)))} /></label>
                    if self.runs_in(Mechanism::Elastic) {
                        <p class="hint">{ "Elastic jobs: each draws an application by size class (Pollux's mix) and its user's GPU count and batch size." }</p>
                    } else if self.runs_in(Mechanism::Slots) {
                        <p class="hint">{ "Parameter-server jobs: each draws a model type of the profile and its epochs in the model's range (times the durations factor)." }</p>
                    } else {
                        <label><input type="checkbox" checked={g.multi_gpu} onchange={link.callback(|e: Event| Msg::Generator("multi_gpu", e.target_unchecked_into::<HtmlInputElement>().checked().to_string()))} />{ " multi-GPU jobs" }</label>
                        <label><input type="checkbox" checked={g.priority_weights} onchange={link.callback(|e: Event| Msg::Generator("priority_weights", e.target_unchecked_into::<HtmlInputElement>().checked().to_string()))} />{ " priority weights" }</label>
                    }
                    <button id="generate" onclick={link.callback(|_| Msg::Generate)}>{ "Generate" }</button>
                </fieldset>
                <div class="drop" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
                    <label>{ "Trace file (Orrery CSV/JSON, Gavel .trace, Pollux workload CSV) " }<input id="trace-file" type="file" accept=".csv,.json,.trace,.txt" onchange={on_trace} /></label>
                    <p class="hint">{ "or drop a file here" }</p>
                </div>
                if let Some(e) = &self.workload_error { <p class="error" id="workload-error">{ e }</p> }
                { self.view_pai(ctx) }
                <label>{ "Profile " }
                    <select id="profile-preset" onchange={link.callback(|e: Event| Msg::ProfilePreset(select_value(&e)))}>
                        { for presets::PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ p.name }</option> }) }
                        { for presets::ELASTIC_PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ format!("{} (elastic)", p.name) }</option> }) }
                        { for presets::PS_PROFILES.iter().map(|p| html! { <option value={p.name} selected={profile_name == p.name} title={p.description}>{ format!("{} (parameter-server)", p.name) }</option> }) }
                        if !presets::PROFILES.iter().chain(presets::ELASTIC_PROFILES).chain(presets::PS_PROFILES).any(|p| p.name == profile_name) { <option selected=true disabled=true>{ profile_name.clone() }</option> }
                    </select>
                </label>
                <label>{ "Profile file (Orrery JSON/CSV, Gavel throughputs JSON, Orrery elastic-apps JSON) " }<input id="profile-file" type="file" accept=".csv,.json" onchange={on_profile} /></label>
                <label title="A folder with one sub-folder per application holding placements.csv, scalability.csv and validation-<batch>.csv, like the Pollux simulator's traces/ folder (Sia's adds placements-<type>.csv and scalability-<type>.csv per GPU type)">{ "Pollux or Sia application folders " }<input id="profile-folder" type="file" webkitdirectory=true multiple=true onchange={on_folder} /></label>
                if let Some(r) = self.current_resolved() { <p class="hint" id="profile-types">{ format!("The profile knows {}.", r.profile_types()) }</p> }
                if let Some(e) = &self.profile_error { <p class="error" id="profile-error">{ e }</p> }
            </section>
        }
    }

    /// The current experiment's warnings (a GPU type no job can use, say).
    fn experiment_warnings(&self) -> Vec<String> {
        self.current_resolved()
            .map(|r| r.warnings.clone())
            .unwrap_or_default()
    }

    /// The current experiment resolved, when it is in the cache.
    fn current_resolved(&self) -> Option<&Rc<Resolved>> {
        self.resolved
            .iter()
            .find(|(e, _)| *e == self.exp)
            .map(|(_, r)| r)
    }

    fn view_cluster(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let cluster = ClusterSpec::parse(&self.exp.cluster).ok();
        html! {
            <section class="panel" id="cluster-panel">
                <h2>{ "Cluster" }</h2>
                <label>{ "Spec " }<input id="cluster-spec" type="text" value={self.cluster_text.clone()} onchange={link.callback(|e: Event| Msg::ClusterText(input_value(&e)))} /></label>
                <div class="presets">
                    { for CLUSTER_PRESETS.iter().map(|(label, spec)| {
                        let spec = spec.to_string();
                        html! { <button onclick={link.callback(move |_| Msg::ClusterPreset(spec.clone()))}>{ *label }</button> }
                    }) }
                </div>
                if let Some(c) = cluster {
                    <table class="cluster-table">
                        <thead><tr><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "per server" }</th><th>{ "$/GPU-h" }</th><th></th></tr></thead>
                        <tbody>
                        { for c.types.iter().enumerate().map(|(i, t)| html! {
                            <tr>
                                <td><input type="text" value={t.name.clone()} onchange={link.callback(move |e: Event| Msg::ClusterCell(i, "name", input_value(&e)))} /></td>
                                <td><input type="number" min="0" value={t.count.to_string()} onchange={link.callback(move |e: Event| Msg::ClusterCell(i, "count", input_value(&e)))} /></td>
                                <td><input type="number" min="1" value={t.per_server.to_string()} onchange={link.callback(move |e: Event| Msg::ClusterCell(i, "per_server", input_value(&e)))} /></td>
                                <td><input type="number" min="0" step="0.01" value={t.price_per_hour.map(|p| p.to_string()).unwrap_or_default()} onchange={link.callback(move |e: Event| Msg::ClusterCell(i, "price", input_value(&e)))} /></td>
                                <td><button title="remove" onclick={link.callback(move |_| Msg::ClusterRemoveType(i))}>{ "×" }</button></td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                    <button onclick={link.callback(|_| Msg::ClusterAddType)}>{ "Add GPU type" }</button>
                }
                { for self.experiment_warnings().into_iter().map(|w| html! { <p class="hint experiment-warning">{ w }</p> }) }
                if let Some(e) = &self.cluster_error { <p class="error" id="cluster-error">{ e }</p> }
            </section>
        }
    }

    fn view_policies(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        html! {
            <section class="panel" id="policy-panel">
                <h2>{ "Policies" }</h2>
                if self.runs_in(Mechanism::Elastic) { <p class="hint">{ "Elastic policies: the profile is one of elastic applications (Pollux's model). Pollux and its baselines come first; the round-based policies after them run the elastic jobs rigid, each at its user's GPU count and batch." }</p> }
                if self.runs_in(Mechanism::Pooled) { { pool::view_aryl_help() } }
                if self.runs_in(Mechanism::Preemptive) { <p class="hint" id="preemptive-policies">{ "Preemptive policies: the experiment has PickyMan's overhead model (Preemption panel); each policy decides at every arrival, completion and end of a suspension." }</p> }
                <ul class="policies">
                if self.runs_in(Mechanism::Slots) { <p class="hint" id="ps-policies">{ "Parameter-server policies (family dl2): the profile is one of parameter-server models; each policy adds workers and parameter servers one action at a time in every slot." }</p> }
                { for catalog::rows(self.mechanism()).iter().map(|info| {
                    let name = info.spec.to_string();
                    let selected = self.policy_params.iter().find(|(n, _)| n == info.spec);
                    let toggle = { let name = name.clone(); link.callback(move |_| Msg::TogglePolicy(name.clone())) };
                    let params = { let name = name.clone(); link.callback(move |e: Event| Msg::PolicyParams(name.clone(), input_value(&e))) };
                    html! {
                        <li title={info.description}>
                            <label><input type="checkbox" data-policy={info.spec} checked={selected.is_some()} onchange={toggle} />{ format!(" {} ", info.spec) }<span class="family">{ info.family }</span></label>
                            <div class="desc">{ info.description }</div>
                            if let (Some((_, p)), false) = (selected, info.params.is_empty()) {
                                <input type="text" placeholder={info.params.iter().map(|p| format!("{}={}", p.name, p.default)).collect::<Vec<_>>().join(",")} value={p.clone()} onchange={params} />
                            }
                        </li>
                    }
                }) }
                </ul>
            </section>
        }
    }

    fn view_settings(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        html! {
            <section class="panel" id="settings-panel">
                <h2>{ "Run settings" }</h2>
                <label>{ "seed " }<input id="seed" type="number" min="0" value={self.exp.seed.to_string()} onchange={link.callback(|e: Event| Msg::Seed(input_value(&e)))} /></label>
                <label title={if self.runs_in(Mechanism::Elastic) { "Elastic experiments: seconds between scheduling decisions (Pollux: 60)" } else if self.runs_in(Mechanism::Preemptive) { "Preemptive experiments have no rounds: time goes from event to event" } else { "" }}>{ if self.runs_in(Mechanism::Elastic) { "scheduling interval (s) " } else if self.runs_in(Mechanism::Slots) { "slot (s) " } else { "round (s) " } }<input id="round" type="number" min="1" disabled={self.runs_in(Mechanism::Preemptive)} value={self.exp.round_s.to_string()} onchange={link.callback(|e: Event| Msg::Round(input_value(&e)))} /></label>
                <label title={if self.runs_in(Mechanism::Preemptive) { "Preemptive experiments charge the overhead model's drain, checkpoint and reload instead" } else { "Seconds without progress each time a job starts or its GPUs change" }}>{ "restart cost (s) " }<input id="restart-cost" type="number" min="0" disabled={self.runs_in(Mechanism::Preemptive)} value={self.exp.restart_cost_s.to_string()} onchange={link.callback(|e: Event| Msg::RestartCost(input_value(&e)))} /></label>
                <label title="A job type's or application's own delay, as Sia gives each application its own: type=seconds, separated by commas">{ "per-type delays " }<input id="restart-types" type="text" placeholder="cifar10=50, bert=120" disabled={self.runs_in(Mechanism::Preemptive)} value={self.exp.restart_by_type.iter().map(|(t, s)| format!("{t}={s}")).collect::<Vec<_>>().join(", ")} onchange={link.callback(|e: Event| Msg::RestartTypes(input_value(&e)))} /></label>
                <p class="hint" id="restart-model" data-model={self.exp.restart_model().name()}>{ format!("Restart model: {}.", if self.exp.gavel_compat { "none (Gavel-compatible mode)".to_string() } else { self.exp.restart_model().describe() }) }</p>
                <label>{ "measure jobs A:B " }<input id="window" type="text" placeholder="all" value={self.exp.window.map(|(a, b)| format!("{a}:{b}")).unwrap_or_default()} onchange={link.callback(|e: Event| Msg::Window(input_value(&e)))} /></label>
                if self.runs_in(Mechanism::Slots) {
                    <p class="hint" id="ps-settings">{ "Parameter-server experiments: time goes in slots of the round length (DL2: 20 minutes); every change of a job's workers or parameter servers costs the restart cost. Gavel's mechanism and finish-time fairness (rho) do not apply." }</p>
                } else if self.runs_in(Mechanism::Preemptive) {
                    <p class="hint" id="preemptive-settings">{ "Preemptive experiments: time goes from event to event (arrivals, completions, the ends of suspensions and reloads), so the round length and restart cost do not apply; a suspension costs what the Preemption panel's model says. Gavel's mechanism and finish-time fairness (rho) do not apply." }</p>
                } else if self.runs_in(Mechanism::Pooled) {
                    <p class="hint" id="pool-settings">{ "Experiments with an inference pool: jobs run in the pooled simulator (ticks of the round length, each allocation change costs the restart cost); Gavel's mechanism and finish-time fairness (rho) do not apply." }</p>
                } else if self.runs_in(Mechanism::Elastic) {
                    <p class="hint" id="elastic-settings">{ "Elastic experiments: Gavel's mechanism and finish-time fairness (rho) do not apply; every allocation change costs the restart cost." }</p>
                } else {
                    <label><input type="checkbox" checked={self.exp.gavel_compat} onchange={link.callback(|e: Event| Msg::GavelCompat(e.target_unchecked_into::<HtmlInputElement>().checked()))} />{ " Gavel-compatible mechanism" }</label>
                    <label><input type="checkbox" checked={self.exp.fairness} onchange={link.callback(|e: Event| Msg::Fairness(e.target_unchecked_into::<HtmlInputElement>().checked()))} />{ " finish-time fairness (runs the isolated baseline)" }</label>
                }
            </section>
        }
    }

    fn view_compare(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let running = self.worker.is_some();
        let results: &[PolicyResult] = self.results.as_ref().map_or(&[], |r| r.1.as_slice());
        let elastic = self.results_elastic();
        let pooled = self
            .results_resolved
            .as_ref()
            .is_some_and(|r| r.load.is_some());
        let preemptive = self.results_preemptive();
        let ps = self.results_ps();
        let pct =
            |v: Option<f64>| v.map_or_else(|| "—".to_string(), |x| format!("{:.1}%", x * 100.0));
        // Results of an experiment edited since (and not being re-run) are marked stale.
        let stale = !running && self.results.as_ref().is_some_and(|(e, _)| *e != self.exp);
        html! {
            <section class="panel wide" id="compare-panel">
                <h2>{ "Compare policies" }</h2>
                <div class="controls">
                    <button id="compare" disabled={running} onclick={link.callback(|_| Msg::Compare)}>{ "Run comparison" }</button>
                    if running {
                        <progress id="progress" ref={self.progress_refs[0].clone()} max="1" value={self.progress.as_ref().map_or(0.0, |p| p.fraction()).to_string()} />
                        <span class="progress-label" ref={self.progress_refs[1].clone()}>{ self.progress.as_ref().map(progress_label).unwrap_or_default() }</span>
                        <button id="cancel" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                    }
                    if let Some(ms) = self.last_run_ms {
                        <span class="timing" id="run-ms" data-ms={format!("{ms:.0}")} data-compute-ms={format!("{:.0}", self.worker_ms.unwrap_or(0.0))} data-transfer-bytes={self.transfer_bytes.unwrap_or(0).to_string()}>
                            { format!("last run {:.2} s ({:.2} s computing, {} kB of results)", ms / 1000.0, self.worker_ms.unwrap_or(0.0) / 1000.0, self.transfer_bytes.unwrap_or(0) / 1000) }
                        </span>
                    }
                </div>
                if let Some(e) = &self.run_error { <p class="error" id="run-error">{ e }</p> }
                if stale { <p class="hint stale" id="stale-note">{ "These results are of the experiment as it was before your last edits: Run comparison to see the edited one." }</p> }
                <table id="summary" class="summary" data-complete={self.results_complete.to_string()} data-stale={stale.to_string()}>
                    <thead><tr>
                        <th>{ "policy" }</th><th>{ "jobs" }</th><th>{ "avg JCT (h)" }</th><th>{ "p99 JCT (h)" }</th><th>{ "makespan (h)" }</th>
                        <th title={if preemptive { "Average time waiting for GPUs: after arrival and after each suspension" } else { "Average queueing time: first run minus arrival" }}>{ "avg wait (h)" }</th><th title="Training GPUs busy">{ "utilization" }</th>
                        if ps {
                            <th title="Workers of a training job, time-weighted (largest in the tooltip)">{ "avg workers" }</th>
                            <th title="Parameter servers of a training job, time-weighted (largest in the tooltip)">{ "avg PS" }</th>
                            <th title="Share of the cluster's CPU time held by workers and parameter servers">{ "CPU utilization" }</th>
                            <th title="DL2's reward summed over the slots: the fraction of their work jobs did (per slot in the tooltip)">{ "total reward" }</th>
                            <th title="Changes of a job's workers or parameter servers from one slot to the next">{ "reallocations" }</th>
                        } else if preemptive {
                            <th title="99th percentile of the time waiting for GPUs, after arrival and after suspensions">{ "p99 wait (h)" }</th>
                            <th title="Time jobs lost to suspensions: the rest of the epoch after the decision, checkpoints and reloads">{ "time lost (h)" }</th>
                            <th title="Jobs suspended (whose checkpoint was written and GPUs released)">{ "preemptions" }</th>
                            <th title="Mean relative error of the policy's predicted training time per job (— when it predicts none)">{ "duration error" }</th>
                            <th title="Mean relative error of the policy's predicted time lost per suspension (— when it predicts none)">{ "overhead error" }</th>
                        } else if pooled {
                            <th title="Share of all the cluster's GPU time in use, by training (own or loaned GPUs) or by the inference load">{ "cluster usage" }</th>
                            <th title="Inference GPUs on loan to training, time-averaged">{ "avg GPUs on loan" }</th>
                            <th title="Inference servers loaned to training, summed over loans">{ "loans" }</th>
                            <th title="Loaned servers reclaimed by inference, summed over reclaims">{ "reclaims" }</th>
                            <th title="Jobs stopped (by reclaims or otherwise)">{ "preemptions" }</th>
                            <th title="Allocation changes after a job's first">{ "restarts" }</th>
                        } else if elastic {
                            <th title="GPU-hours held by jobs, restarts included">{ "GPU-h" }</th>
                            <th title="GPUs per running job, time-weighted">{ "avg GPUs/job" }</th>
                            <th title="Total batch size of a running job, time-weighted">{ "avg batch" }</th>
                            <th title="Allocation changes after a job's first (each costs the restart cost)">{ "restarts" }</th>
                            <th title="Jobs stopped with no GPUs left">{ "preemptions" }</th>
                            <th title="Changes of a job's GPU count or total batch size, the first allocation included">{ "resizes" }</th>
                        } else {
                            <th>{ "max rho" }</th><th>{ "restarts" }</th>
                        }
                    </tr></thead>
                    <tbody>
                    { for results.iter().enumerate().map(|(i, r)| {
                        let s = &r.summary;
                        let sized = s.elastic;
                        let pool = s.pool;
                        let pool_num = |f: &dyn Fn(&crate::metrics::PoolFigures) -> String| pool.as_ref().map(f).unwrap_or_default();
                        let pre = s.preemption;
                        let psf = s.ps;
                        let ps_num = |f: &dyn Fn(&crate::metrics::PsFigures) -> String| psf.as_ref().map(f).unwrap_or_default();
                        let pre_num = |f: &dyn Fn(&crate::metrics::PreemptionFigures) -> Option<String>| pre.as_ref().and_then(f).unwrap_or_default();
                        html! {
                            <tr data-policy={s.policy.clone()} data-avg-jct-s={s.avg_jct_s.to_string()} data-makespan-s={s.makespan_s.to_string()} data-p99-jct-s={s.p99_jct_s.to_string()} data-restarts={s.restarts.to_string()} data-gpu-hours={s.gpu_hours.to_string()}
                                data-avg-wait-s={s.avg_wait_s.to_string()} data-preemptions={s.preemptions.to_string()}
                                data-loans={pool_num(&|p| p.loans.to_string())} data-reclaims={pool_num(&|p| p.reclaims.to_string())}
                                data-avg-loaned-gpus={pool_num(&|p| p.avg_loaned_gpus.to_string())} data-cluster-usage={pool_num(&|p| p.cluster_usage.to_string())}
                                data-p99-wait-s={s.p99_wait_s.to_string()} data-time-lost-s={s.time_lost_s.to_string()}
                                data-suspensions={pre_num(&|p| Some(p.suspensions.to_string()))} data-duration-error={pre_num(&|p| p.duration_error.map(|x| x.to_string()))}
                                data-overhead-error={pre_num(&|p| p.overhead_error.map(|x| x.to_string()))}
                                data-avg-workers={ps_num(&|p| p.avg_workers.to_string())} data-avg-ps={ps_num(&|p| p.avg_ps.to_string())}
                                data-cpu-utilization={ps_num(&|p| p.cpu_utilization.to_string())} data-total-reward={ps_num(&|p| p.total_reward.to_string())}
                                data-utilization={s.utilization.to_string()}>
                                <td><span class="swatch" style={format!("background:{}", charts::css_color(i))}></span>{ &s.policy }</td>
                                <td>{ s.num_jobs } if s.unfinished > 0 { <span class="hint">{ format!(" +{} unfinished", s.unfinished) }</span> }</td>
                                <td>{ hours(s.avg_jct_s) }</td>
                                <td>{ hours(s.p99_jct_s) }</td>
                                <td>{ hours(s.makespan_s) }</td>
                                <td>{ hours(s.avg_wait_s) }</td>
                                <td>{ format!("{:.1}%", s.utilization * 100.0) }</td>
                                if ps {
                                    <td title={psf.map(|p| format!("largest: {} workers", p.max_workers)).unwrap_or_default()}>{ psf.map(|p| format!("{:.2}", p.avg_workers)).unwrap_or_else(|| "—".into()) }</td>
                                    <td title={psf.map(|p| format!("largest: {} parameter servers", p.max_ps)).unwrap_or_default()}>{ psf.map(|p| format!("{:.2}", p.avg_ps)).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ pct(psf.map(|p| p.cpu_utilization)) }</td>
                                    <td title={psf.map(|p| format!("{:.4} per slot over {} slots", p.avg_reward, p.slots)).unwrap_or_default()}>{ psf.map(|p| format!("{:.2}", p.total_reward)).unwrap_or_else(|| "—".into()) }</td>
                                    <td title={psf.map(|p| format!("{} policy actions applied, {} refused", p.actions, p.invalid_actions)).unwrap_or_default()}>{ psf.map(|p| p.reallocations.to_string()).unwrap_or_else(|| "—".into()) }</td>
                                } else if preemptive {
                                    <td title={pre.map(|p| format!("first start: avg {} h, p99 {} h after arrival", hours(p.avg_first_wait_s), hours(p.p99_first_wait_s))).unwrap_or_default()}>{ hours(s.p99_wait_s) }</td>
                                    <td title={pre.map(|p| format!("suspending (epoch ends and checkpoints) {} h, reloading {} h", hours(p.suspend_s), hours(p.resume_s))).unwrap_or_default()}>{ hours(s.time_lost_s) }</td>
                                    <td title={pre.map(|p| format!("{} suspensions decided, {} of them finished before their epoch ended", p.suspensions, p.finished_instead)).unwrap_or_default()}>{ s.preemptions }</td>
                                    <td title="Mean relative error of the predicted training times">{ pct(pre.and_then(|p| p.duration_error)) }</td>
                                    <td title={format!("Mean relative error of the predicted time lost per suspension; the overhead model's own error (its noise): {}", pct(pre.and_then(|p| p.model_error)))}>{ pct(pre.and_then(|p| p.overhead_error)) }</td>
                                } else if pooled {
                                    <td>{ pool.map(|p| format!("{:.1}%", p.cluster_usage * 100.0)).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ pool.map(|p| format!("{:.1}", p.avg_loaned_gpus)).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ pool.map(|p| p.loans.to_string()).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ pool.map(|p| p.reclaims.to_string()).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ s.preemptions }</td>
                                    <td>{ s.restarts }</td>
                                } else if elastic {
                                    <td>{ format!("{:.1}", s.gpu_hours) }</td>
                                    <td title={sized.map(|x| format!("largest: {} GPUs", x.max_gpus)).unwrap_or_default()}>{ sized.map(|x| format!("{:.2}", x.avg_gpus)).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ sized.map(|x| format!("{:.0}", x.avg_batch_size)).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ s.restarts }</td>
                                    <td>{ s.preemptions }</td>
                                    <td>{ sized.map(|x| x.resizes.to_string()).unwrap_or_else(|| "—".into()) }</td>
                                } else {
                                    <td>{ s.max_rho.map(|r| format!("{r:.2}")).unwrap_or_else(|| "—".into()) }</td>
                                    <td>{ s.restarts }</td>
                                }
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if !results.is_empty() {
                    <div class="downloads">
                        <button onclick={link.callback(|_| Msg::Download(Export::SummaryCsv))}>{ "Summary CSV" }</button>
                        <button onclick={link.callback(|_| Msg::Download(Export::SummaryJson))}>{ "Summary JSON" }</button>
                        <button onclick={link.callback(|_| Msg::Download(Export::JobsCsv))}>{ "Per-job CSV" }</button>
                        <button onclick={link.callback(|_| Msg::Download(Export::RoundsCsv))}>{ "Per-round CSV" }</button>
                        if elastic { <button id="download-resizes" onclick={link.callback(|_| Msg::Download(Export::ResizesCsv))}>{ "Elastic jobs CSV" }</button> }
                        if preemptive { <button id="download-suspensions" onclick={link.callback(|_| Msg::Download(Export::SuspensionsCsv))}>{ "Suspensions CSV" }</button> }
                        <button id="download-experiment" title="The experiment of these results: orrery compare --config experiment.json reproduces them" onclick={link.callback(|_| Msg::Download(Export::ExperimentJson))}>{ "Experiment JSON" }</button>
                        <label>{ "utilization of " }
                            <select onchange={link.callback(|e: Event| Msg::FocusPolicy(select_value(&e).parse().unwrap_or(0)))}>
                                { for results.iter().enumerate().map(|(i, r)| html! { <option value={i.to_string()} selected={i == self.focus_policy}>{ r.summary.policy.clone() }</option> }) }
                            </select>
                        </label>
                    </div>
                }
                <div class="charts">
                    { for (0..4).map(|i| html! {
                        <figure>
                            <canvas id={format!("chart-{}", CHART_NAMES[i])} width="520" height="320" ref={self.charts[i].clone()} />
                            <button class="png" onclick={link.callback(move |_| Msg::DownloadChart(i))}>{ "PNG" }</button>
                        </figure>
                    }) }
                </div>
            </section>
        }
    }

    fn view_stepper(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let (now, round, done) = self.stepper.as_ref().map_or((0.0, 0, false), |s| {
            (s.sim.now(), s.sim.round(), s.sim.is_done())
        });
        // What one step is: the mechanism of the policy being stepped (PickyMan steps from
        // event to event in a round-based experiment too).
        let unit = match self
            .stepper
            .as_ref()
            .map_or_else(|| self.mechanism(), |s| s.sim.sim().mechanism())
        {
            Mechanism::Rounds => "round",
            Mechanism::Elastic | Mechanism::Pooled => "tick",
            Mechanism::Preemptive => "event",
            Mechanism::Slots => "slot",
        };
        html! {
            <section class="panel wide" id="step-panel">
                <h2>{ if self.runs_in(Mechanism::Preemptive) { "Step through events" } else if self.runs_in(Mechanism::Slots) { "Step through slots" } else { "Step through rounds" } }</h2>
                <div class="controls">
                    <label>{ "policy " }
                        <select id="step-policy" onchange={link.callback(|e: Event| Msg::StepPolicy(select_value(&e)))}>
                            { for self.policy_params.iter().map(|(n, _)| html! { <option value={n.clone()} selected={*n == self.step_policy}>{ n.clone() }</option> }) }
                        </select>
                    </label>
                    <button id="step" title="right arrow" onclick={link.callback(|_| Msg::Step)} disabled={done}>{ "Step ▸" }</button>
                    <button id="play" title="space" onclick={link.callback(|_| Msg::TogglePlay)} disabled={done}>{ if self.playing { "Pause ❚❚" } else { "Play ▶" } }</button>
                    <label>{ "speed " }<input id="speed" type="range" min="0" max="1000" step="50" value={(1000 - self.speed_ms.min(1000)).to_string()} oninput={link.callback(|e: InputEvent| Msg::Speed((1000 - e.target_unchecked_into::<HtmlInputElement>().value().parse::<u32>().unwrap_or(800)).to_string()))} /></label>
                    <button id="run-to-end" onclick={link.callback(|_| Msg::RunToEnd)} disabled={done}>{ "Run to end" }</button>
                    <button id="reset" onclick={link.callback(|_| Msg::Reset)}>{ "Reset" }</button>
                    <span class="clock" id="clock" data-now-s={now.to_string()} data-round={round.to_string()}>{ format!("t = {} · {unit} {}", clock(now), round) }</span>
                    if done { <span class="done">{ "finished" }</span> }
                </div>
                <p class="hint">{ if self.runs_in(Mechanism::Slots) { "Keys: space plays or pauses, → steps one slot. Every server is shown with the jobs whose workers hold its GPUs, and every active job with its workers and parameter servers in the slot just simulated." } else if self.runs_in(Mechanism::Preemptive) { "Keys: space plays or pauses, → steps to the next event (an arrival, a completion, the end of a suspension or a reload). Every GPU is shown with the job holding it." } else if self.runs_in(Mechanism::Pooled) { "Keys: space plays or pauses, → steps one tick. Training and inference servers are shown with the jobs on them; inference servers serving the load are hatched, loaned ones outlined." } else if self.runs_in(Mechanism::Elastic) { "Keys: space plays or pauses, → steps one scheduling interval. Every job is shown on the servers it holds." } else { "Keys: space plays or pauses, → steps one round." } }</p>
                if let Some(e) = &self.step_error { <p class="error">{ e }</p> }
                if let Some(st) = &self.stepper { { self.view_state(ctx, st) } }
            </section>
        }
    }

    fn view_state(&self, ctx: &Context<Self>, st: &Stepper) -> Html {
        let sim = match &st.sim {
            StepSim::Rounds(s) => s,
            StepSim::Elastic(s) => return self.view_elastic_state(ctx, st, s),
            StepSim::Pooled(s, r, _) => return self.view_pooled_state(ctx, st, s, r),
            StepSim::Preemptive(s, r, _) => return self.view_preemptive_state(ctx, st, s, r),
            StepSim::Slots(s, r, _) => return self.view_slot_state(ctx, st, s, r),
        };
        let cluster = sim.cluster();
        let owners = sim.gpu_owners();
        let sharers = sim.gpu_sharers();
        let colour = |j: JobId| format!("hsl({}, 65%, 55%)", (j * 137) % 360);
        let active: Vec<JobId> = sim.active().to_vec();
        let running: std::collections::BTreeSet<JobId> = owners
            .iter()
            .chain(sharers)
            .flatten()
            .flatten()
            .copied()
            .collect();
        // The job each job shared its GPUs with in the last round (space sharing).
        let mut partner: std::collections::BTreeMap<JobId, JobId> = Default::default();
        for (own, shr) in owners.iter().zip(sharers) {
            for (o, s) in own.iter().zip(shr) {
                if let (Some(a), Some(b)) = (o, s) {
                    partner.insert(*a, *b);
                    partner.insert(*b, *a);
                }
            }
        }
        let packing = sim.policy_traits().packing;
        let allocation = sim
            .active()
            .first()
            .is_some_and(|&j| sim.allocation_row(j).is_some());
        let shown = if self.show_all_jobs {
            active.len()
        } else {
            active.len().min(JOB_ROWS)
        };
        html! {
            <div class="state">
                <div class="gpu-grid">
                { for cluster.types.iter().zip(owners).zip(sharers).map(|((t, own), shr)| html! {
                    <div class="gpu-type">
                        <h3>{ format!("{} × {}", t.count, t.name) }</h3>
                        <div class="gpus">
                        { for own.iter().enumerate().map(|(g, o)| match (o, shr.get(g).copied().flatten()) {
                            (Some(a), Some(b)) => html! { <span class="gpu busy shared" title={format!("GPU {g}: jobs {a} and {b}, sharing it")} style={format!("background:linear-gradient(135deg, {} 50%, {} 50%)", colour(*a), colour(b))}></span> },
                            (Some(j), None) => html! { <span class="gpu busy" title={format!("GPU {g}: job {j}")} style={format!("background:{}", colour(*j))}></span> },
                            (None, _) => html! { <span class="gpu" title={format!("GPU {g}: idle")}></span> },
                        }) }
                        </div>
                    </div>
                }) }
                </div>
                <table class="jobs">
                    <thead><tr>
                        <th>{ "job" }</th><th>{ "type" }</th><th>{ "GPUs" }</th><th>{ "state" }</th><th>{ "progress" }</th>
                        if packing { <th title="the job it shared GPUs with in the last round, and the pair's allocation row">{ "shares with" }</th> }
                        if allocation { { for cluster.types.iter().map(|t| html! { <th>{ format!("x[{}]", t.name) }</th> }) } }
                    </tr></thead>
                    <tbody>
                    { for active.iter().take(shown).map(|&j| {
                        let spec = &sim.specs()[j];
                        let s = &sim.states()[j];
                        let frac = (s.steps_done / spec.total_steps).clamp(0.0, 1.0);
                        html! {
                            <tr>
                                <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                                <td>{ &spec.job_type }</td>
                                <td>{ spec.scale_factor }</td>
                                <td>{ if running.contains(&j) { "running" } else { "queued" } }</td>
                                <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                                if packing {
                                    <td class="pair">{ partner.get(&j).map(|&o| {
                                        let row = sim.pair_allocation_row(j, o).map(|r| r.iter().map(|x| format!("{x:.3}")).collect::<Vec<_>>().join(" / ")).unwrap_or_default();
                                        html! { <><span class="swatch" style={format!("background:{}", colour(o))}></span>{ format!("{o} {row}") }</> }
                                    }).unwrap_or_default() }</td>
                                }
                                if allocation {
                                    { for (0..cluster.num_types()).map(|t| html! { <td>{ sim.allocation_row(j).map(|r| format!("{:.3}", r[t])).unwrap_or_default() }</td> }) }
                                }
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if active.len() > JOB_ROWS {
                    <label class="hint"><input type="checkbox" checked={self.show_all_jobs} onchange={ctx.link().callback(|_| Msg::ToggleAllJobs)} />{ format!(" show all {} active jobs ({} more)", active.len(), active.len().saturating_sub(JOB_ROWS)) }</label>
                }
                <p class="hint">{ format!("{} jobs finished, {} active, {} events last round, recompute: {}{}", st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), active.len(), st.last_events.len(),
                    if sim.policy_traits().recompute == Recompute::EveryRound { "every round" } else { "when the job set changes" },
                    if packing { format!(", {} pairs shared GPUs last round", partner.len() / 2) } else { String::new() }) }</p>
            </div>
        }
    }
}

fn progress_label(p: &Progress) -> String {
    format!("{} ({}/{})", p.policy, p.run + 1, p.runs)
}

fn clock(s: f64) -> String {
    let t = s.max(0.0) as u64;
    format!(
        "{}d {:02}:{:02}:{:02}",
        t / 86400,
        (t / 3600) % 24,
        (t / 60) % 60,
        t % 60
    )
}
