//! The App: the experiment as the one state (with the mechanism it runs in, from its
//! resolution), the comparison's worker and results, the stepping run and DL2's training.
//! It lays the panels out, hands each what it shows, and handles the messages they send
//! (one file per concern: `experiment.rs` applies edits, `edits.rs` handles the panels'
//! edits, `modes.rs` the inference pool, preemption and DL2 settings, `faults.rs` the
//! failures, checkpoints and spot capacity, `pai.rs` the PAI import, `import.rs` the other
//! imports (Alibaba's spot GPU trace, Acme's job tables), `filter.rs` the trace
//! filter and traces of durations, `shape.rs` the trace's shape, `run.rs` the comparison,
//! `step.rs` stepping, `train.rs` DL2's training).

mod edits;
mod estimate;
mod experiment;
mod faults;
mod filter;
mod handlers;
mod import;
mod inputs;
mod modes;
pub mod msg;
mod network;
mod pai;
mod pool;
mod run;
mod shape;
mod step;
mod train;

use crate::events::{PaiForm, Refused, TraceShape};
use crate::panels::import::{form::ImportForm, ImportPanel};
pub use msg::*;

use orrery::experiment::scenarios;

use super::panels::{
    cluster::ClusterPanel, dl2::Dl2Settings, elastic::ElasticResults, fault_results::FaultResults,
    faults::FaultsSettings, policies::PoliciesPanel, pool::PoolSettings, pool_results::PoolResults,
    preemption::PreemptionSettings, preemption_results::PreemptionResults, results::ResultsPanel,
    settings::SettingsPanel, stepper::StepPanel, sweep::SweepPanel, trace_shape::TraceShapePanel,
    training::TrainingPanel, workload::WorkloadPanel,
};
use super::shared::{Results, Shared};
use super::stepper::StepSession;
use super::worker::{PolicyResult, WorkerHandle};
use super::{now_ms, select_value};
use experiment::parse_policy_list;
use orrery::experiment::switch::workload_label;
use orrery::experiment::train::session::{page_train_config, TrainProgress, Trained};
use orrery::experiment::train::{CurvePoint, TrainConfig};
use orrery::experiment::{Experiment, Progress, Resolved, WorkloadSource};
use orrery::sim::Mechanism;
use orrery::workload::GeneratorConfig;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// The playground.
pub struct App {
    /// The experiment: the one state the panels follow. A change is a new experiment.
    exp: Shared<Experiment>,
    /// The mechanism the experiment runs in, from its resolution (the panels' `mech`).
    mech: Mechanism,
    /// Resolved experiments, most recent first (at most two: the current one and the
    /// results').
    resolved: Vec<(Experiment, Rc<Resolved>)>,
    /// What the panels' fields hold where it is not the experiment itself.
    forms: Forms,
    /// The panels' last errors.
    errors: Errors,
    /// The notice under the header: (good news, text).
    notice: Option<(bool, String)>,
    /// The comparison.
    run: Run,
    /// What the result panels show of the results.
    view: Selections,
    /// The stepping run.
    step: Stepping,
    /// DL2's training.
    train: Training,
    /// The shape of the experiment's trace (None for a generated workload), with what it
    /// depends on.
    shape: Option<(shape::ShapeKey, Shared<TraceShape>)>,
    /// Whether the trace's shape waits for the page's first comparison to end: charting it
    /// would compete with that comparison's workers for the processor and delay the first
    /// results.
    shape_deferred: bool,
    /// What waits for DL2's bundled network (the web build fetches it when first needed).
    after_network: Vec<AfterNetwork>,
    /// Preset sweeps asked for (a preset with a figure against the load, picked or opened
    /// by its link, sweeps it in the Sweep panel).
    sweep_auto: u64,
    /// Whether the settings panels show on a narrow screen (they fold away under a toggle).
    controls_open: bool,
    /// The panels' message handlers, the same in every render.
    on: handlers::Handlers,
    _keys: Option<Closure<dyn FnMut(KeyboardEvent)>>,
}

/// What the panels' fields hold where it is not the experiment itself.
struct Forms {
    /// The cluster spec as typed.
    cluster_text: String,
    /// The workload, for people.
    workload_label: String,
    /// The generator's settings as edited (used by Generate).
    generator: GeneratorConfig,
    /// The selected policies' rows with their parameters as typed.
    policy_params: Vec<(String, String)>,
    /// The Alibaba PAI import block of the Import panel.
    pai: PaiForm,
    /// The Import panel's format and its other blocks.
    import: ImportForm,
}

/// The panels' last errors.
#[derive(Default)]
struct Errors {
    cluster: Option<String>,
    workload: Option<String>,
    profile: Option<String>,
    pool: Option<String>,
    preempt: Option<String>,
    dl2: Option<String>,
    /// The Failures & spot panel's.
    faults: Option<String>,
    /// A spot trace's: its GPU type and why.
    spot: Option<(String, String)>,
    /// The comparison's.
    run: Option<String>,
    /// Refused values, each shown next to its field.
    fields: Vec<Refused>,
}

/// The comparison in the worker, and its results.
struct Run {
    worker: Option<WorkerHandle>,
    /// The workers of a run shared among several.
    pool: Option<pool::Pool>,
    progress: Option<Progress>,
    /// The progress bar and its label, updated in place.
    progress_refs: [NodeRef; 2],
    /// When the progress bar last moved (ms).
    progress_shown_ms: f64,
    /// The experiment sent to the worker.
    sent_exp: Option<Experiment>,
    /// Results of the run in progress, as the worker reports them.
    partial: Vec<PolicyResult>,
    /// Whether results held back (see [`App::hold_partial`]) are due to be shown.
    partial_due: bool,
    /// The number of the run in progress (or the last one): each new run takes the next.
    number: u64,
    /// The results shown.
    results: Option<Shared<Results>>,
    /// Whether every policy of the results has run.
    complete: bool,
    started_ms: f64,
    last_run_ms: Option<f64>,
    worker_ms: Option<f64>,
    /// Bytes received from the worker in the last run.
    transfer_bytes: Option<usize>,
    /// A long run's estimate, waiting for the person to confirm it.
    pending: Option<estimate::Estimate>,
    /// The estimate of the run in progress.
    estimate: Option<estimate::Estimate>,
    /// Measured cost of the last runs: milliseconds per job and run, per mechanism.
    calibration: estimate::Calibration,
}

/// What the result panels show of the results.
#[derive(Default)]
struct Selections {
    /// The policy of the utilization chart.
    focus_policy: usize,
    /// The job of the elastic panel the user picked (None: the most resized one).
    elastic_job: Option<usize>,
    /// Epoch of the goodput chart.
    elastic_epoch: u32,
    /// Index of the result the preemption panel shows.
    preempt_policy: usize,
    /// Order of the suspensions' table.
    preempt_sort: msg::SortBy,
    /// The spot GPU type of the capacity chart (None: the first).
    spot_type: Option<String>,
}

/// Stepping through one policy's run, in its worker.
struct Stepping {
    /// The run, once a step was asked for.
    run: Option<StepSession>,
    /// Sessions started so far (answers of older ones are dropped).
    session: u64,
    /// Every row of the jobs' table is shown.
    all: bool,
    /// The policy (row name) stepped through.
    policy: String,
    error: Option<String>,
    playing: bool,
    /// Generation of the play timer (a pause or reset drops older ticks).
    play_gen: u64,
    /// Milliseconds between steps while playing (0: as fast as possible).
    speed_ms: u32,
}

/// DL2's training in its worker.
struct Training {
    /// Training settings.
    cfg: TrainConfig,
    /// The training panel's last error.
    error: Option<String>,
    /// The training worker while it trains.
    worker: Option<WorkerHandle>,
    /// The experiment and settings sent to it.
    sent: Option<(Experiment, TrainConfig)>,
    /// How far training is.
    progress: Option<TrainProgress>,
    /// The learning curve so far.
    curve: Shared<Vec<CurvePoint>>,
    /// The finished training run, with the settings it used.
    trained: Option<Shared<(Trained, TrainConfig)>>,
    /// Times the learning curves were asked to be drawn (0: never).
    draws: u64,
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
            .map(|(_, r)| r.mechanism())
            .unwrap_or_default();
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
                dl2: None,
            },
        };
        let mut app = App {
            forms: Forms {
                cluster_text: exp.cluster.clone(),
                workload_label: workload_label(&exp),
                generator,
                policy_params,
                pai: PaiForm::default(),
                import: ImportForm::default(),
            },
            step: Stepping {
                run: None,
                session: 0,
                all: false,
                policy: String::new(),
                error: None,
                playing: false,
                play_gen: 0,
                speed_ms: 200,
            },
            exp: Shared::new(exp),
            mech,
            resolved,
            errors: Errors::default(),
            notice,
            run: Run {
                worker: None,
                pool: None,
                progress: None,
                progress_refs: Default::default(),
                progress_shown_ms: 0.0,
                sent_exp: None,
                partial: Vec::new(),
                partial_due: false,
                number: 0,
                results: None,
                complete: false,
                started_ms: now_ms(),
                last_run_ms: None,
                worker_ms: None,
                transfer_bytes: None,
                pending: None,
                estimate: None,
                calibration: estimate::Calibration::default(),
            },
            view: Selections::default(),
            train: Training {
                cfg: page_train_config(),
                error: None,
                worker: None,
                sent: None,
                progress: None,
                curve: Shared::new(Vec::new()),
                trained: None,
                draws: 0,
            },
            shape: None,
            shape_deferred: true,
            after_network: Vec::new(),
            sweep_auto: u64::from(
                orrery::experiment::linked_scenario(&hash).is_some_and(|s| s.load.is_some()),
            ),
            controls_open: false,
            on: handlers::Handlers::new(ctx.link()),
            _keys: Some(keys),
        };
        app.step.policy = app.first_policy();
        app.compare_or_confirm(ctx);
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Self::Message) -> bool {
        match msg {
            Msg::Scenario(name) => self.load_scenario(ctx, &name),
            Msg::CopyLink => self.copy_link(),
            Msg::Key(e) => self.key(ctx, e),
            Msg::ToggleControls => {
                self.controls_open = !self.controls_open;
                true
            }
            Msg::Workload(m) => {
                let upload = matches!(m, WorkloadMsg::TraceFile(..));
                let render = self.workload_update(m);
                if upload && self.errors.workload.is_none() {
                    self.compare_or_confirm(ctx);
                }
                render
            }
            Msg::Pai(m) => {
                let import = matches!(m, PaiMsg::Import);
                let before = Shared::clone(&self.exp);
                let render = self.pai_update(m);
                if import && self.exp != before {
                    self.compare_or_confirm(ctx);
                }
                render
            }
            Msg::Import(m) => {
                let import = matches!(m, ImportMsg::Import(_));
                let before = Shared::clone(&self.exp);
                let render = self.import_update(m);
                if import && self.exp != before {
                    self.compare_or_confirm(ctx);
                }
                render
            }
            Msg::Cluster(m) => self.cluster_update(m),
            Msg::Policies(m) => self.policies_update(m),
            Msg::Settings(m) => self.settings_update(m),
            Msg::Pool(m) => self.pool_update(m),
            Msg::Preempt(m) => self.preempt_update(m),
            Msg::Dl2(m) => self.dl2_update(m),
            Msg::Faults(m) => self.faults_update(m),
            Msg::Train(m) => self.train_update(ctx, m),
            Msg::Run(m) => self.run_update(ctx, m),
            Msg::View(m) => self.view_update(m),
            Msg::Step(m) => self.step_update(ctx, m),
            Msg::Shape => {
                self.shape_deferred = false;
                self.refresh_shape();
                self.shape.is_some()
            }
            Msg::Network(outcome) => self.network_arrived(ctx, outcome),
        }
    }

    /// Marks the end of the first render on the page's performance timeline; once the
    /// first comparison has ended, computes the trace's shape.
    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if first {
            crate::mark("orrery:rendered");
        }
        if self.shape_deferred && self.run.worker.is_none() && self.run.pool.is_none() {
            ctx.link().send_message(Msg::Shape);
        }
        // A parameter-server experiment on screen: its bundled network is fetched ahead of
        // the first run or step.
        if super::network::missing(&self.exp, self.mech) && !super::network::loading() {
            let link = ctx.link().clone();
            super::network::fetch(move |outcome| link.send_message(Msg::Network(outcome)));
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let exp = self.exp.clone();
        let mech = self.mech;
        let resolved = self.current_resolved();
        let results = self.run.results.clone();
        let stale = self.results_stale();
        let running = self.run.worker.is_some() || self.run.pool.is_some();
        let has_results = results.as_ref().is_some_and(|r| !r.runs.is_empty());
        crate::plot::set_file_tag(&self.forms.workload_label);
        html! {
            <div class="app">
                <header>
                    <h1>{ "Orrery" }</h1>
                    <span class="tagline">{ "a deep-learning cluster scheduling playground" }</span>
                    <label class="scenario">{ "Scenario " }
                        <select id="scenario" onchange={link.callback(|e: Event| Msg::Scenario(select_value(&e)))}>
                            <option value="" selected=true disabled=true>{ "load a bundled scenario…" }</option>
                            { for scenarios::SCENARIOS.iter().map(|sc| html! { <option value={sc.name} title={sc.description}>{ format!("{} — {}", sc.name, sc.description) }</option> }) }
                        </select>
                    </label>
                    <button id="copy-link" onclick={link.callback(|_| Msg::CopyLink)}>{ "Copy link" }</button>
                </header>
                if let Some((ok, text)) = &self.notice {
                    <div id="notice" class={classes!("notice", if *ok { "ok" } else { "error" })}>{ text }</div>
                }
                <div class={classes!("columns", has_results.then_some("has-results"), self.controls_open.then_some("settings-open"))}>
                    <button id="controls-toggle" class="controls-toggle" aria-expanded={self.controls_open.to_string()} aria-controls="settings-column"
                        onclick={link.callback(|_| Msg::ToggleControls)}>
                        { if self.controls_open { "Hide settings ▴" } else { "Settings: workload, cluster, policies… ▾" } }
                    </button>
                    <aside id="settings-column" class={classes!("panels", (!self.controls_open).then_some("folded"))}>
                        <WorkloadPanel exp={exp.clone()} {mech} label={self.forms.workload_label.clone()} generator={self.forms.generator.clone()} fields={self.errors.fields.clone()}
                            workload_error={self.errors.workload.clone()} profile_error={self.errors.profile.clone()}
                            profile_types={resolved.map(|r| r.profile_types())} job_types={resolved.map(|r| r.job_types())}
                            notes={resolved.map(|r| r.notes.clone()).unwrap_or_default()}
                            on_edit={self.on.workload.clone()} />
                        <ImportPanel form={self.forms.import.clone()} pai={self.forms.pai.clone()}
                            on_edit={self.on.import.clone()} on_pai={self.on.pai.clone()} />
                        <ClusterPanel exp={exp.clone()} text={self.forms.cluster_text.clone()} error={self.errors.cluster.clone()}
                            warnings={resolved.map(|r| r.warnings.clone()).unwrap_or_default()} on_edit={self.on.cluster.clone()} />
                        <PoliciesPanel {mech} selected={self.forms.policy_params.clone()} on_edit={self.on.policies.clone()} />
                        <SettingsPanel exp={exp.clone()} {mech} fields={self.errors.fields.clone()} on_edit={self.on.settings.clone()} />
                        <PoolSettings exp={exp.clone()} {mech} error={self.errors.pool.clone()} on_edit={self.on.pool.clone()} />
                        <PreemptionSettings exp={exp.clone()} {mech} error={self.errors.preempt.clone()} on_edit={self.on.preempt.clone()} />
                        <Dl2Settings exp={exp.clone()} {mech} error={self.errors.dl2.clone()} on_edit={self.on.dl2.clone()} />
                        <FaultsSettings exp={exp.clone()} fields={self.errors.fields.clone()} error={self.errors.faults.clone()}
                            spot_error={self.errors.spot.clone()} on_edit={self.on.faults.clone()} />
                    </aside>
                    <main id="results" data-stale={stale.to_string()}>
                        <ResultsPanel results={results.clone()} {stale} complete={self.run.complete} {running}
                            pending={self.pending_estimate().map(estimate::Estimate::describe)}
                            expected={self.run.estimate.as_ref().filter(|_| running).map(|e| estimate::duration(e.ms()))}
                            progress={self.run.progress.clone()} progress_refs={self.run.progress_refs.clone()} error={self.errors.run.clone()}
                            timing={self.run.last_run_ms.map(|ms| (ms, self.run.worker_ms.unwrap_or(0.0), self.run.transfer_bytes.unwrap_or(0)))}
                            focus={self.view.focus_policy} on_run={self.on.run.clone()} on_view={self.on.view.clone()} />
                        <FaultResults results={results.clone()} spot_type={self.view.spot_type.clone()} on_run={self.on.run.clone()} on_view={self.on.view.clone()} />
                        <PoolResults results={results.clone()} on_run={self.on.run.clone()} />
                        <PreemptionResults results={results.clone()} policy={self.view.preempt_policy} sort={self.view.preempt_sort}
                            on_run={self.on.run.clone()} on_view={self.on.view.clone()} />
                        <ElasticResults results={results} job={self.view.elastic_job} epoch={self.view.elastic_epoch}
                            on_run={self.on.run.clone()} on_view={self.on.view.clone()} />
                        <TrainingPanel {mech} cfg={self.train.cfg.clone()} running={self.train.worker.is_some()} progress={self.train.progress.clone()}
                            curve={self.train.curve.clone()} draws={self.train.draws} trained={self.train.trained.clone()} error={self.train.error.clone()}
                            on_train={self.on.train.clone()} />
                        <SweepPanel exp={exp.clone()} auto={self.sweep_auto} />
                        <TraceShapePanel shape={self.shape.as_ref().map(|s| s.1.clone())} />
                        <StepPanel {mech} board={self.step.run.as_ref().and_then(|s| s.board.clone())} marks={self.step.run.as_ref().and_then(|s| s.marks.clone())} setting_up={self.step.run.as_ref().is_some_and(|s| s.board.is_none())}
                            all={self.step.all} policies={self.forms.policy_params.iter().map(|p| p.0.clone()).collect::<Vec<_>>()}
                            policy={self.step.policy.clone()} playing={self.step.playing} speed_ms={self.step.speed_ms} error={self.step.error.clone()}
                            on_step={self.on.step.clone()} />
                    </main>
                </div>
                <footer>{ "Orrery — the same experiment and seed give the same numbers here and in the orrery CLI (orrery run --link '<link>')." }</footer>
            </div>
        }
    }
}

impl App {
    /// Load a bundled scenario (the whole experiment) and run it.
    fn load_scenario(&mut self, ctx: &Context<Self>, name: &str) -> bool {
        if let Some(sc) = scenarios::scenario(name) {
            let exp = sc.experiment();
            if sc.load.is_some() {
                self.sweep_auto += 1;
            }
            self.forms.policy_params = parse_policy_list(&exp.policies);
            self.step.policy = self.first_policy();
            self.forms.cluster_text = exp.cluster.clone();
            self.errors.cluster = None;
            self.errors.workload = None;
            self.errors.profile = None;
            self.errors.pool = None;
            self.errors.preempt = None;
            self.errors.faults = None;
            self.errors.spot = None;
            self.errors.run = None;
            self.errors.fields.clear();
            match self.try_apply(exp) {
                Ok(()) => self.compare_or_confirm(ctx),
                Err(e) => self.errors.run = Some(e),
            }
        }
        true
    }

    /// A key pressed while no control has the focus: space plays or pauses, the right
    /// arrow steps. In a field, a list, a button or a link the key is the control's own;
    /// Escape leaves the control.
    fn key(&mut self, ctx: &Context<Self>, e: KeyboardEvent) -> bool {
        if e.ctrl_key() || e.alt_key() || e.meta_key() {
            return false;
        }
        if inputs::focus_in_control(&e) {
            // Escape hands the keys back to the page.
            if e.key() == "Escape" {
                inputs::blur_focus();
            }
            return false;
        }
        match e.key().as_str() {
            " " => {
                e.prevent_default();
                self.step_update(ctx, StepMsg::TogglePlay)
            }
            "ArrowRight" => {
                e.prevent_default();
                self.step_update(ctx, StepMsg::Step)
            }
            _ => false,
        }
    }

    /// What the result panels show.
    fn view_update(&mut self, msg: ViewMsg) -> bool {
        match msg {
            ViewMsg::FocusPolicy(i) => self.view.focus_policy = i,
            ViewMsg::ElasticJob(j) => self.view.elastic_job = Some(j),
            ViewMsg::ElasticEpoch(e) => self.view.elastic_epoch = e,
            ViewMsg::PreemptPolicy(i) => self.view.preempt_policy = i,
            ViewMsg::PreemptSort(s) => self.view.preempt_sort = s,
            ViewMsg::SpotType(t) => self.view.spot_type = Some(t),
        }
        true
    }

    /// Whether the results shown are of an experiment edited since and not being run: a
    /// run of the current experiment replaces them as it goes.
    fn results_stale(&self) -> bool {
        let running = self.run.worker.is_some() || self.run.pool.is_some();
        let running_current = running && self.run.sent_exp.as_ref() == Some(&*self.exp);
        !running_current
            && self
                .run
                .results
                .as_ref()
                .is_some_and(|r| r.exp != *self.exp)
    }

    /// The current experiment resolved, when it is in the cache.
    fn current_resolved(&self) -> Option<&Rc<Resolved>> {
        self.resolved
            .iter()
            .find(|(e, _)| *e == *self.exp)
            .map(|(_, r)| r)
    }
}
