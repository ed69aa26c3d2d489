//! The page's views of parameter-server experiments (DL2): the DL2 settings (CPUs per
//! server, the most workers and parameter servers per job, and the `dl2` policy's network:
//! the bundled one, an uploaded weights file or one trained here), the training panel
//! (DL2's network trained in the Web Worker with a live learning curve, its weights and curve
//! to download, and a button that puts it into the experiment), and the stepping view of the
//! slot simulator (every server's GPUs and CPUs with the jobs holding them, every job's
//! workers and parameter servers).

use super::charts;
use super::worker::{FromWorker, ToWorker, WorkerHandle};
use super::{download, input_value, App, Msg, Stepper, JOB_ROWS};
use crate::experiment::{Experiment, NetworkSource, Resolved, WorkloadSource};
use crate::job::JobId;
use crate::policy::dl2::session::{page_train_config, TrainProgress, Trained};
use crate::policy::dl2::train::{CurvePoint, TrainConfig};
use crate::sim::slots::SlotSimulator;
use crate::sim::Mechanism;
use crate::workload::PsConfig;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// Index of the warm-up's learning curve among the page's canvases.
pub const WARMUP_CHART: usize = 9;
/// Index of reinforcement learning's curve among the page's canvases.
pub const RL_CHART: usize = 10;

/// Largest weights file the page reads (bytes).
const MAX_NETWORK_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

/// Messages of the DL2 views.
pub enum Dl2Msg {
    /// Edit a field of the parameter-server settings (`cpus_per_server`, `max_workers`,
    /// `max_ps`).
    Field(&'static str, String),
    /// A weights file's text arrived: file name, text.
    NetworkFile(String, String),
    /// A weights file could not be read.
    NetworkFileError(String),
    /// Back to the bundled network.
    Bundled,
    /// Edit a training setting.
    TrainField(&'static str, String),
    /// Start training.
    Train,
    /// Stop training.
    Cancel,
    /// A message from the training worker.
    Worker(FromWorker),
    /// Put the trained network into the experiment.
    UseTrained,
    /// Download the trained network's weights JSON.
    DownloadWeights,
    /// Download the learning curve CSV.
    DownloadCurve,
}

/// The training settings the page offers, with their labels and limits: the ones
/// `orrery dl2 train` takes as flags, so a network trained here can be trained again
/// natively with the same flags.
const TRAIN_FIELDS: [(&str, &str, usize, &str); 5] = [
    ("seed", "seed", u32::MAX as usize, "Seed of every random choice of the training (--seed)"),
    (
        "episode_jobs",
        "jobs per episode",
        500,
        "Jobs in each training and evaluation episode, drawn by the experiment's generator (--episode-jobs)",
    ),
    (
        "warmup_episodes",
        "warm-up episodes",
        200,
        "Episodes of DRF's decisions the network imitates first (--warmup-episodes)",
    ),
    (
        "warmup_epochs",
        "warm-up epochs",
        200,
        "Passes over DRF's decisions (--warmup-epochs)",
    ),
    (
        "iterations",
        "RL iterations",
        1000,
        "Reinforcement-learning iterations, one episode each; the held-out episodes are evaluated every 10 (--iterations)",
    ),
];

/// The DL2 views' state.
pub struct Dl2Form {
    /// The DL2 settings' last error.
    pub(super) error: Option<String>,
    /// Training settings.
    cfg: TrainConfig,
    /// The training panel's last error.
    pub(super) train_error: Option<String>,
    /// The training worker while it trains.
    worker: Option<WorkerHandle>,
    /// The experiment and settings sent to it.
    sent: Option<(Experiment, TrainConfig)>,
    /// How far training is.
    progress: Option<TrainProgress>,
    /// The learning curve so far.
    curve: Vec<CurvePoint>,
    /// The finished training run, with the settings it used.
    trained: Option<(Trained, TrainConfig)>,
    /// The learning curves need drawing.
    pub(super) dirty: bool,
}

impl Default for Dl2Form {
    fn default() -> Self {
        Dl2Form {
            error: None,
            cfg: page_train_config(),
            train_error: None,
            worker: None,
            sent: None,
            progress: None,
            curve: Vec::new(),
            trained: None,
            dirty: false,
        }
    }
}

fn colour(j: JobId) -> String {
    format!("hsl({}, 65%, 55%)", (j * 137) % 360)
}

fn read_network_file(file: web_sys::File, link: yew::html::Scope<App>) {
    let name = file.name();
    if file.size() > MAX_NETWORK_BYTES {
        link.send_message(Msg::Dl2(Dl2Msg::NetworkFileError(format!(
            "{name}: larger than {} MB; a DL2 weights file is far smaller",
            MAX_NETWORK_BYTES / (1024.0 * 1024.0)
        ))));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(v) => link.send_message(Msg::Dl2(Dl2Msg::NetworkFile(
                name,
                v.as_string().unwrap_or_default(),
            ))),
            Err(e) => link.send_message(Msg::Dl2(Dl2Msg::NetworkFileError(format!(
                "{name}: cannot read the file ({e:?})"
            )))),
        }
    });
}

/// A curve's points of one number, by step.
fn points(
    curve: &[CurvePoint],
    phase: &str,
    f: impl Fn(&CurvePoint) -> Option<f64>,
) -> Vec<(f64, f64)> {
    curve
        .iter()
        .filter(|p| p.phase == phase)
        .filter_map(|p| Some((p.step as f64, f(p).filter(|v| v.is_finite())?)))
        .collect()
}

impl App {
    /// Whether the shown results are of a parameter-server experiment.
    pub(super) fn results_ps(&self) -> bool {
        self.results_resolved
            .as_ref()
            .is_some_and(|r| r.ps.is_some())
    }

    /// Try the experiment with another network (None: the bundled one); on error the
    /// experiment stays.
    fn set_network(&mut self, network: Option<NetworkSource>) -> Result<(), String> {
        self.try_apply(Experiment {
            network,
            ..self.exp.clone()
        })
    }

    /// Edit a field of the parameter-server settings; a bad value keeps the previous ones.
    fn set_ps_field(&mut self, field: &str, v: &str) {
        let mut c: PsConfig = self.exp.ps.unwrap_or_default();
        let label = match field {
            "cpus_per_server" => "CPUs per server",
            "max_workers" => "most workers per job",
            _ => "most parameter servers per job",
        };
        let Ok(x) = v.trim().parse::<u32>() else {
            self.dl2.error = Some(format!(
                "{label} (ps.{field}): '{v}' is not a whole number — the previous settings are kept"
            ));
            return;
        };
        match field {
            "cpus_per_server" => c.cpus_per_server = x,
            "max_workers" => c.max_workers = x,
            "max_ps" => c.max_ps = x,
            _ => return,
        }
        let checked = self.try_apply(Experiment {
            ps: Some(c),
            ..self.exp.clone()
        });
        self.dl2.error = checked
            .err()
            .map(|e| format!("{label}: '{v}': {e} — the previous settings are kept"));
    }

    fn set_train_field(&mut self, field: &str, v: &str) {
        let Some(&(_, label, max, _)) = TRAIN_FIELDS.iter().find(|f| f.0 == field) else {
            return;
        };
        let parsed = v.trim().parse::<u64>().ok().filter(|&x| x <= max as u64);
        let Some(x) = parsed else {
            self.dl2.train_error = Some(format!(
                "{label} ({field}): '{v}' must be a whole number from 0 to {max} — the previous value is kept"
            ));
            return;
        };
        let mut c = self.dl2.cfg.clone();
        match field {
            "seed" => c.seed = x,
            "episode_jobs" => c.episode_jobs = x as usize,
            "warmup_episodes" => c.warmup_episodes = x as usize,
            "warmup_epochs" => c.warmup_epochs = x as usize,
            _ => c.iterations = x as usize,
        }
        match c.check() {
            Ok(()) => {
                self.dl2.cfg = c;
                self.dl2.train_error = None;
            }
            Err(e) => {
                self.dl2.train_error = Some(format!("{e} — the previous value is kept"));
            }
        }
    }

    fn start_training(&mut self, ctx: &Context<Self>) {
        self.dl2.worker = None;
        self.dl2.train_error = None;
        if !self.runs_in(Mechanism::Slots) {
            self.dl2.train_error = Some(
                "training needs a parameter-server (DL2) experiment: load the dl2 scenario or a parameter-server profile".into(),
            );
            return;
        }
        if !matches!(self.exp.workload, WorkloadSource::Generated(_)) {
            self.dl2.train_error = Some(
                "training draws its episodes from the generator: generate a workload (Workload panel) first".into(),
            );
            return;
        }
        if let Err(e) = self.dl2.cfg.check() {
            self.dl2.train_error = Some(e);
            return;
        }
        let link = ctx.link().clone();
        match WorkerHandle::spawn(move |m| link.send_message(Msg::Dl2(Dl2Msg::Worker(m)))) {
            Ok(w) => {
                self.dl2.worker = Some(w);
                self.dl2.sent = Some((self.exp.clone(), self.dl2.cfg.clone()));
                self.dl2.curve.clear();
                self.dl2.trained = None;
                self.dl2.progress = None;
                self.dl2.dirty = true;
            }
            Err(e) => self.dl2.train_error = Some(e),
        }
    }

    /// Handle a message of the DL2 views; returns whether to render.
    pub(super) fn dl2_update(&mut self, ctx: &Context<Self>, msg: Dl2Msg) -> bool {
        match msg {
            Dl2Msg::Field(field, v) => self.set_ps_field(field, &v),
            Dl2Msg::NetworkFile(name, text) => {
                let checked = crate::nn::Mlp::from_json(&text)
                    .map_err(|e| format!("{name}: {e}"))
                    .and_then(|_| {
                        self.set_network(Some(NetworkSource::Inline {
                            name: name.clone(),
                            text,
                        }))
                    });
                self.dl2.error = checked
                    .err()
                    .map(|e| format!("{e} — the previous network is kept"));
                if self.dl2.error.is_none() {
                    self.notice = Some((
                        true,
                        format!("The dl2 policy now runs the network of '{name}'."),
                    ));
                }
            }
            Dl2Msg::NetworkFileError(e) => self.dl2.error = Some(e),
            Dl2Msg::Bundled => {
                self.dl2.error = self
                    .set_network(None)
                    .err()
                    .map(|e| format!("{e} — the previous network is kept"));
            }
            Dl2Msg::TrainField(field, v) => self.set_train_field(field, &v),
            Dl2Msg::Train => self.start_training(ctx),
            Dl2Msg::Cancel => {
                self.dl2.worker = None;
                self.dl2.progress = None;
                self.dl2.train_error = Some("training cancelled".into());
            }
            Dl2Msg::Worker(m) => match m {
                FromWorker::Ready => {
                    let sent = match (&self.dl2.worker, &self.dl2.sent) {
                        (Some(w), Some((exp, cfg))) => w.send(&ToWorker::Train(
                            Box::new(exp.clone()),
                            Box::new(cfg.clone()),
                        )),
                        _ => return false,
                    };
                    if let Err(e) = sent {
                        self.dl2.train_error = Some(e);
                        self.dl2.worker = None;
                    } else {
                        return false;
                    }
                }
                FromWorker::TrainProgress(p) => self.dl2.progress = Some(p),
                FromWorker::TrainCurve(points) => {
                    self.dl2.curve.extend(points);
                    self.dl2.dirty = true;
                }
                FromWorker::Trained(t) => {
                    let cfg = self
                        .dl2
                        .sent
                        .as_ref()
                        .map_or_else(|| self.dl2.cfg.clone(), |s| s.1.clone());
                    self.dl2.trained = Some((*t, cfg));
                    self.dl2.worker = None;
                    self.dl2.progress = None;
                    self.dl2.dirty = true;
                }
                FromWorker::Failed(e) => {
                    self.dl2.train_error = Some(format!("training failed: {e}"));
                    self.dl2.worker = None;
                    self.dl2.progress = None;
                }
                _ => return false,
            },
            Dl2Msg::UseTrained => {
                let Some((t, cfg)) = &self.dl2.trained else {
                    return false;
                };
                let name = format!("trained in the page (seed {})", cfg.seed);
                let text = t.weights.clone();
                match self.set_network(Some(NetworkSource::Inline { name, text })) {
                    Ok(()) => {
                        self.dl2.train_error = None;
                        self.notice = Some((
                            true,
                            "The dl2 policy now runs the network trained here; Run comparison compares it with DRF, FIFO, SRTF and Optimus, and Copy link carries it.".into(),
                        ));
                    }
                    Err(e) => {
                        self.dl2.train_error =
                            Some(format!("{e} — the experiment's network is kept"))
                    }
                }
            }
            Dl2Msg::DownloadWeights => {
                if let Some((t, _)) = &self.dl2.trained {
                    if let Err(e) = download("dl2-weights.json", "application/json", &t.weights) {
                        self.notice = Some((false, format!("download failed: {e}")));
                        return true;
                    }
                }
                return false;
            }
            Dl2Msg::DownloadCurve => {
                if let Some((t, _)) = &self.dl2.trained {
                    if let Err(e) = download("dl2-curve.csv", "text/csv", &t.curve_csv) {
                        self.notice = Some((false, format!("download failed: {e}")));
                        return true;
                    }
                }
                return false;
            }
        }
        true
    }

    /// Draw the learning curves.
    pub(super) fn draw_learning_curves(&self) -> Result<(), String> {
        let curve = &self.dl2.curve;
        if let Some(c) = self.charts[WARMUP_CHART].cast::<HtmlCanvasElement>() {
            let series = vec![
                (
                    "agreement with DRF".to_string(),
                    points(curve, "warmup", |p| p.agreement),
                ),
                (
                    "loss".to_string(),
                    points(curve, "warmup", |p| Some(p.loss)),
                ),
            ];
            let _ = c.set_attribute("data-points", &series[0].1.len().to_string());
            let title = "Warm-up: imitating DRF";
            if series[0].1.is_empty() {
                charts::draw_message(
                    c,
                    title,
                    "No warm-up yet: its epochs appear here when it is over.",
                )?;
            } else {
                charts::draw_xy(c, title, "epoch", "agreement, cross-entropy", &series)?;
            }
        }
        if let Some(c) = self.charts[RL_CHART].cast::<HtmlCanvasElement>() {
            let series = vec![
                (
                    "reward per slot".to_string(),
                    points(curve, "rl", |p| p.reward_per_slot),
                ),
                (
                    "held-out avg JCT (h)".to_string(),
                    points(curve, "rl", |p| p.avg_jct_s.map(|s| s / 3600.0)),
                ),
            ];
            let _ = c.set_attribute("data-points", &series[0].1.len().to_string());
            let title = "Reinforcement learning: held-out episodes";
            if series[0].1.is_empty() {
                charts::draw_message(
                    c,
                    title,
                    "No evaluation yet: the greedy policy is evaluated after the warm-up and every 20 iterations.",
                )?;
            } else {
                charts::draw_xy(c, title, "iteration", "reward/slot, JCT (h)", &series)?;
            }
        }
        Ok(())
    }

    /// The DL2 settings (left column), for parameter-server experiments.
    pub(super) fn view_dl2_settings(&self, ctx: &Context<Self>) -> Html {
        if !self.runs_in(Mechanism::Slots) {
            return html! {};
        }
        let link = ctx.link();
        let c = self.exp.ps.unwrap_or_default();
        let on_file = {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(f) = input.files().and_then(|l| l.get(0)) {
                    read_network_file(f, link.clone());
                }
                input.set_value("");
            })
        };
        let field = |key: &'static str, label: &'static str, value: u32, title: &'static str| {
            html! {
                <label title={title}>{ format!("{label} ") }
                    <input id={format!("ps-{key}")} type="number" min="1" value={value.to_string()}
                        onchange={link.callback(move |e: Event| Msg::Dl2(Dl2Msg::Field(key, input_value(&e))))} />
                </label>
            }
        };
        let network = match &self.exp.network {
            None => {
                "bundled network (warm-up on DRF, then reinforcement learning: orrery dl2 train)"
                    .to_string()
            }
            Some(NetworkSource::Inline { name, text }) => {
                format!("network '{name}' ({} kB)", text.len() / 1000)
            }
        };
        html! {
            <section class="panel" id="dl2-panel">
                <h2>{ "DL2" }</h2>
                <p class="hint">{ "Parameter-server jobs in the slot simulator: every slot each active job gets a worker and a parameter server, then the policy adds workers (a GPU and CPUs each) and parameter servers (CPUs) one action at a time." }</p>
                <fieldset>
                    <legend>{ "Servers and jobs" }</legend>
                    { field("cpus_per_server", "CPUs per server", c.cpus_per_server, "CPUs of each server (the cluster spec gives its GPUs)") }
                    { field("max_workers", "most workers per job", c.max_workers, "The most workers one job may hold") }
                    { field("max_ps", "most PS per job", c.max_ps, "The most parameter servers one job may hold") }
                </fieldset>
                <p class="current" id="dl2-network" data-custom={self.exp.network.is_some().to_string()}>{ format!("dl2 policy: {network}") }</p>
                <label title="A weights JSON written by orrery dl2 train --out or downloaded from the training panel">{ "Network weights file " }<input id="network-file" type="file" accept=".json" onchange={on_file} /></label>
                if self.exp.network.is_some() {
                    <button id="network-bundled" onclick={link.callback(|_| Msg::Dl2(Dl2Msg::Bundled))}>{ "Back to the bundled network" }</button>
                }
                if let Some(e) = &self.dl2.error { <p class="error" id="dl2-error">{ e }</p> }
            </section>
        }
    }

    /// The training panel (main column), for parameter-server experiments.
    pub(super) fn view_training(&self, ctx: &Context<Self>) -> Html {
        if !self.runs_in(Mechanism::Slots) {
            return html! {};
        }
        let link = ctx.link();
        let running = self.dl2.worker.is_some();
        let cfg = &self.dl2.cfg;
        let value = |key: &str| match key {
            "seed" => cfg.seed.to_string(),
            "episode_jobs" => cfg.episode_jobs.to_string(),
            "warmup_episodes" => cfg.warmup_episodes.to_string(),
            "warmup_epochs" => cfg.warmup_epochs.to_string(),
            _ => cfg.iterations.to_string(),
        };
        let progress = self.dl2.progress.as_ref();
        let fraction = progress.map_or(0.0, |p| p.done as f64 / p.total.max(1) as f64);
        let live_rate = progress
            .filter(|p| p.slots > 0 && p.ms > 0.0)
            .map(|p| p.slots as f64 / (p.ms / 1000.0));
        let same_cli = format!(
            "orrery dl2 train --seed {} --episode-jobs {} --warmup-episodes {} --warmup-epochs {} --iterations {} --out weights.json --curve curve.csv",
            cfg.seed, cfg.episode_jobs, cfg.warmup_episodes, cfg.warmup_epochs, cfg.iterations
        );
        html! {
            <section class="panel wide" id="train-panel">
                <h2>{ "Train DL2's network" }</h2>
                <p class="hint">{ "Trains a network in a Web Worker on episodes drawn from this experiment's generator: a warm-up imitating DRF's decisions, then reinforcement learning that credits every decision with what each allowed action would add to its slot's reward. The same settings give the same weights as " }<code>{ same_cli }</code>{ " on this experiment." }</p>
                <div class="controls">
                    { for TRAIN_FIELDS.iter().map(|&(key, label, max, title)| html! {
                        <label title={title}>{ format!("{label} ") }
                            <input id={format!("train-{key}")} type="number" min="0" max={max.to_string()} value={value(key)} disabled={running}
                                onchange={link.callback(move |e: Event| Msg::Dl2(Dl2Msg::TrainField(key, input_value(&e))))} />
                        </label>
                    }) }
                </div>
                <div class="controls">
                    <button id="train" disabled={running} onclick={link.callback(|_| Msg::Dl2(Dl2Msg::Train))}>{ "Train" }</button>
                    if running {
                        <progress id="train-progress" max="1" value={fraction.to_string()} />
                        <span class="progress-label" id="train-status">{ progress.map(|p| format!("{} ({}/{}), {:.1} s", p.phase, p.done, p.total, p.ms / 1000.0)).unwrap_or_else(|| "starting".into()) }</span>
                        if let Some(r) = live_rate { <span class="timing">{ format!("{r:.0} slots/s") }</span> }
                        <button id="train-cancel" onclick={link.callback(|_| Msg::Dl2(Dl2Msg::Cancel))}>{ "Cancel" }</button>
                    }
                </div>
                if let Some(e) = &self.dl2.train_error { <p class="error" id="train-error">{ e }</p> }
                if let Some((t, tc)) = &self.dl2.trained {
                    <p class="current" id="trained" data-slots={t.slots.to_string()} data-ms={format!("{:.0}", t.ms)} data-slots-per-s={format!("{:.1}", t.slots_per_s())}
                        data-agreement={t.agreement.to_string()} data-jct-before={t.after_warmup.1.to_string()} data-jct-after={t.after_training.1.to_string()}>
                        { format!("Trained in {:.1} s: {} slots simulated, {:.0} slots/s. Warm-up: {:.1}% of held-out decisions equal DRF's; held-out average JCT {:.2} h after the warm-up, {:.2} h after {} iterations (reward per slot {:.3} → {:.3}).",
                            t.ms / 1000.0, t.slots, t.slots_per_s(), t.agreement * 100.0, t.after_warmup.1 / 3600.0, t.after_training.1 / 3600.0, tc.iterations, t.after_warmup.0, t.after_training.0) }
                    </p>
                    <div class="downloads">
                        <button id="use-trained" onclick={link.callback(|_| Msg::Dl2(Dl2Msg::UseTrained))}>{ "Use this network" }</button>
                        <button id="download-weights" title="For orrery --network FILE" onclick={link.callback(|_| Msg::Dl2(Dl2Msg::DownloadWeights))}>{ "Weights JSON" }</button>
                        <button id="download-curve" onclick={link.callback(|_| Msg::Dl2(Dl2Msg::DownloadCurve))}>{ "Learning curve CSV" }</button>
                    </div>
                }
                <div class="charts">
                    { for [WARMUP_CHART, RL_CHART].into_iter().map(|i| html! {
                        <figure>
                            <canvas id={format!("chart-{}", super::CHART_NAMES[i])} width="520" height="300" ref={self.charts[i].clone()} />
                            <button class="png" onclick={link.callback(move |_| Msg::DownloadChart(i))}>{ "PNG" }</button>
                        </figure>
                    }) }
                </div>
            </section>
        }
    }

    /// The stepping view of the slot simulator: every server's GPUs (with the job whose
    /// worker holds each) and CPUs in use, and the active jobs' workers and parameter
    /// servers in the slot just simulated.
    pub(super) fn view_slot_state(
        &self,
        ctx: &Context<Self>,
        st: &Stepper,
        sim: &SlotSimulator,
        r: &Resolved,
    ) -> Html {
        let jobs = sim.jobs();
        let models = sim.models();
        // Per server: the jobs holding its GPUs (one entry per GPU) and its parameter
        // servers.
        let servers = sim.servers();
        // The jobs of the slot just simulated: the active ones and those that finished in it
        // (a job keeps its last allocation once finished).
        let since = sim.now() - sim.config().slot_s;
        let in_slot: Vec<JobId> = jobs
            .iter()
            .enumerate()
            .filter(|(id, j)| {
                sim.active().contains(id)
                    || (j.finish.is_some_and(|f| f >= since) && !j.worker_servers.is_empty())
            })
            .map(|(id, _)| id)
            .collect();
        let mut held: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
        let mut ps_on: Vec<Vec<JobId>> = vec![Vec::new(); servers.len()];
        for (id, j) in in_slot.iter().filter_map(|&id| Some((id, jobs.get(id)?))) {
            let Some(m) = models.models.get(j.model) else {
                continue;
            };
            for &s in &j.worker_servers {
                if let Some(h) = held.get_mut(s) {
                    h.extend(std::iter::repeat_n(id, m.worker_gpus as usize));
                }
            }
            for &s in &j.ps_servers {
                if let Some(p) = ps_on.get_mut(s) {
                    p.push(id);
                }
            }
        }
        let active = in_slot;
        let shown = if self.show_all_jobs {
            active.len()
        } else {
            active.len().min(JOB_ROWS)
        };
        let (workers, ps): (u32, u32) = active
            .iter()
            .filter_map(|&j| jobs.get(j))
            .fold((0, 0), |(w, p), j| (w + j.workers, p + j.ps));
        let gpu_type = r.cluster.types.first().map_or("gpu", |t| t.name.as_str());
        html! {
            <div class="state" id="slot-state" data-workers={workers.to_string()} data-ps={ps.to_string()} data-active={active.len().to_string()}>
                <h3 class="servers-title">{ format!("{} servers of {} {gpu_type} GPUs and {} CPUs · {workers} workers and {ps} parameter servers in this slot", servers.len(), servers.first().map_or(0, |s| s.gpus), servers.first().map_or(0, |s| s.cpus)) }</h3>
                <div class="servers" id="slot-servers">
                { for servers.iter().enumerate().map(|(k, s)| {
                    let used_cpus = s.cpus.saturating_sub(s.free_cpus);
                    html! {
                        <div class="server" title={format!("server {k}: {} of {} GPUs and {used_cpus} of {} CPUs in use; parameter servers of jobs {:?}", s.gpus - s.free_gpus.min(s.gpus), s.gpus, s.cpus, ps_on[k])}>
                            { for (0..s.gpus as usize).map(|g| match held[k].get(g) {
                                Some(&j) => html! { <span class="gpu busy" title={format!("GPU {g}: a worker of job {j}")} style={format!("background:{}", colour(j))}></span> },
                                None => html! { <span class="gpu" title={format!("GPU {g}: idle")}></span> },
                            }) }
                            <span class="cpu-bar" title={format!("{used_cpus} of {} CPUs in use", s.cpus)}>
                                <span style={format!("height:{:.0}%", 100.0 * f64::from(used_cpus) / f64::from(s.cpus.max(1)))}></span>
                            </span>
                        </div>
                    }
                }) }
                </div>
                <p class="hint">{ "Each server's GPUs with the job whose worker holds each; the bar is the share of its CPUs held by workers and parameter servers." }</p>
                <table class="jobs" id="slot-jobs">
                    <thead><tr>
                        <th>{ "job" }</th><th>{ "type" }</th><th>{ "workers" }</th><th>{ "PS" }</th><th>{ "servers" }</th><th>{ "progress" }</th><th>{ "slots run" }</th><th>{ "state" }</th>
                    </tr></thead>
                    <tbody>
                    { for active.iter().take(shown).filter_map(|&j| jobs.get(j).map(|job| (j, job))).map(|(j, job)| {
                        let ty = models.models.get(job.model).map_or("", |m| m.name.as_str());
                        let frac = if job.total > 0.0 { (job.progress / job.total).clamp(0.0, 1.0) } else { 0.0 };
                        let mut on: Vec<usize> = job.worker_servers.iter().chain(&job.ps_servers).copied().collect();
                        on.sort_unstable();
                        on.dedup();
                        html! {
                            <tr data-job={j.to_string()} data-workers={job.workers.to_string()} data-ps={job.ps.to_string()}>
                                <td><span class="swatch" style={format!("background:{}", colour(j))}></span>{ j }</td>
                                <td>{ ty }</td>
                                <td>{ job.workers }</td>
                                <td>{ job.ps }</td>
                                <td>{ on.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" ") }</td>
                                <td><progress max="1" value={frac.to_string()} />{ format!(" {:.0}%", frac * 100.0) }</td>
                                <td>{ job.slots_run }</td>
                                <td>{ if job.finish.is_some() { "finished in this slot" } else if job.trains() { "training" } else { "waiting" } }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if active.len() > JOB_ROWS {
                    <label class="hint"><input type="checkbox" checked={self.show_all_jobs} onchange={ctx.link().callback(|_| Msg::ToggleAllJobs)} />{ format!(" show all {} jobs of this slot ({} more)", active.len(), active.len().saturating_sub(JOB_ROWS)) }</label>
                }
                <p class="hint">{ format!("{} jobs finished, {} active, {} events in this slot.",
                    st.rec.jobs.iter().filter(|r| r.finish.is_some()).count(), sim.active().len(), st.last_events.len()) }</p>
            </div>
        }
    }
}
