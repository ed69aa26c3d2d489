//! DL2's network trained in a Web Worker of its own: the settings, the live learning curve,
//! the trained network put into the experiment, and its downloads.

use super::{App, Msg, TrainMsg};
use crate::files::download;
use crate::panels::training::TRAIN_FIELDS;
use crate::shared::Shared;
use crate::worker::{FromWorker, ToWorker, WorkerHandle};
use orrery::experiment::{Experiment, NetworkSource, WorkloadSource};
use orrery::sim::JobModel;
use yew::prelude::*;

impl App {
    /// A message of the training panel or its worker; returns whether to render.
    pub(super) fn train_update(&mut self, ctx: &Context<Self>, msg: TrainMsg) -> bool {
        match msg {
            TrainMsg::Field(field, v) => self.set_train_field(field, &v),
            TrainMsg::Start => self.start_training(ctx),
            TrainMsg::Cancel => {
                self.train.worker = None;
                self.train.progress = None;
                self.train.error = Some("training cancelled".into());
            }
            TrainMsg::Worker(m) => return self.training_message(m),
            TrainMsg::UseTrained => {
                let Some(trained) = self.train.trained.clone() else {
                    return false;
                };
                let (t, cfg) = &*trained;
                let name = format!("trained in the page (seed {})", cfg.seed);
                let text = t.weights.clone();
                match self.set_network(Some(NetworkSource::Inline { name, text })) {
                    Ok(()) => {
                        self.train.error = None;
                        self.notice = Some((
                            true,
                            "The dl2 policy now runs the network trained here; Run comparison compares it with DRF, FIFO, SRTF and Optimus, and Copy link carries it.".into(),
                        ));
                    }
                    Err(e) => {
                        self.train.error = Some(format!("{e} — the experiment's network is kept"))
                    }
                }
            }
            TrainMsg::DownloadWeights => return self.download_trained(true),
            TrainMsg::DownloadCurve => return self.download_trained(false),
            TrainMsg::ChartError(e) => self.train.error = Some(format!("chart: {e}")),
        }
        true
    }

    /// Download the trained network's weights JSON (true) or its learning curve CSV;
    /// returns whether to render (to show an error).
    fn download_trained(&mut self, weights: bool) -> bool {
        let Some(trained) = &self.train.trained else {
            return false;
        };
        let t = &trained.0;
        let done = if weights {
            download("dl2-weights.json", "application/json", &t.weights)
        } else {
            download("dl2-curve.csv", "text/csv", &t.curve_csv)
        };
        if let Err(e) = done {
            self.notice = Some((false, format!("download failed: {e}")));
            return true;
        }
        false
    }

    /// Edit a training setting; a bad value keeps the previous one.
    fn set_train_field(&mut self, field: &str, v: &str) {
        if field == "gain" {
            match v {
                "work" | "left" => {
                    self.train.cfg.gain_of_left = v == "left";
                    self.train.error = None;
                }
                _ => self.train.error = Some(format!("gain: '{v}' is neither work nor left")),
            }
            return;
        }
        let Some(&(_, label, max, _)) = TRAIN_FIELDS.iter().find(|f| f.0 == field) else {
            return;
        };
        let parsed = v.trim().parse::<u64>().ok().filter(|&x| x <= max as u64);
        let Some(x) = parsed else {
            self.train.error = Some(format!(
                "{label} ({field}): '{v}' must be a whole number from 0 to {max} — the previous value is kept"
            ));
            return;
        };
        let mut c = self.train.cfg.clone();
        match field {
            "seed" => c.seed = x,
            "episode_jobs" => c.episode_jobs = x as usize,
            "warmup_episodes" => c.warmup_episodes = x as usize,
            "warmup_epochs" => c.warmup_epochs = x as usize,
            "window" => c.window = x as usize,
            _ => c.iterations = x as usize,
        }
        match c.check() {
            Ok(()) => {
                self.train.cfg = c;
                self.train.error = None;
            }
            Err(e) => self.train.error = Some(format!("{e} — the previous value is kept")),
        }
    }

    /// Train DL2's network on the experiment in a new worker (a parameter-server experiment
    /// with a generated workload only).
    fn start_training(&mut self, ctx: &Context<Self>) {
        self.train.worker = None;
        self.train.error = None;
        if self.mech.jobs() != JobModel::ParameterServer {
            self.train.error = Some(
                "training needs a parameter-server (DL2) experiment: load the dl2 scenario or a parameter-server profile".into(),
            );
            return;
        }
        if !matches!(self.exp.workload, WorkloadSource::Generated(_)) {
            self.train.error = Some(
                "training draws its episodes from the generator: generate a workload (Workload panel) first".into(),
            );
            return;
        }
        if let Err(e) = self.train.cfg.check() {
            self.train.error = Some(e);
            return;
        }
        let link = ctx.link().clone();
        let request = ToWorker::Train(
            Box::new(Experiment::clone(&self.exp)),
            Box::new(self.train.cfg.clone()),
        );
        match WorkerHandle::spawn(&request, move |m| {
            link.send_message(Msg::Train(TrainMsg::Worker(m)))
        }) {
            Ok(w) => {
                self.train.worker = Some(w);
                self.train.sent = Some((Experiment::clone(&self.exp), self.train.cfg.clone()));
                self.train.curve = Shared::new(Vec::new());
                self.train.trained = None;
                self.train.progress = None;
                self.train.draws += 1;
            }
            Err(e) => self.train.error = Some(e),
        }
    }

    /// A message from the training worker; returns whether to render.
    fn training_message(&mut self, m: FromWorker) -> bool {
        let train = &mut self.train;
        match m {
            FromWorker::TrainProgress(p) => train.progress = Some(p),
            FromWorker::TrainCurve(points) => {
                let mut curve = train.curve.to_vec();
                curve.extend(points);
                train.curve = Shared::new(curve);
                train.draws += 1;
            }
            FromWorker::Trained(t) => {
                let cfg = train
                    .sent
                    .as_ref()
                    .map_or_else(|| train.cfg.clone(), |s| s.1.clone());
                train.trained = Some(Shared::new((*t, cfg)));
                train.worker = None;
                train.progress = None;
                train.draws += 1;
            }
            FromWorker::Failed(e) => {
                train.error = Some(format!("training failed: {e}"));
                train.worker = None;
                train.progress = None;
            }
            _ => return false,
        }
        true
    }
}
