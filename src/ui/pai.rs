//! The Workload panel's import of the Alibaba PAI GPU trace, as `orrery import-pai` does:
//! the job and task tables are read in the page, sampled by
//! [`crate::workload::pai::read_pai`], and the sampled trace becomes the experiment's
//! inline workload (so a share link carries only the sample, not the tables).

use super::{input_value, App, Msg};
use crate::experiment::{Experiment, WorkloadSource};
use crate::sim::Mechanism;
use crate::workload::pai::{read_pai, PaiSampling};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Name of the inline workload an import makes.
const SAMPLE_NAME: &str = "pai-sample.csv";

/// Which PAI table a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaiTable {
    /// `pai_job_table.csv`.
    Jobs,
    /// `pai_task_table.csv`.
    Tasks,
}

/// Messages of the PAI import block.
pub enum PaiMsg {
    /// A table's text arrived: table, file name, text.
    File(PaiTable, String, String),
    /// A table could not be read.
    FileError(String),
    /// Edit a sampling field (`max_jobs`, `seed`, `elastic`).
    Field(&'static str, String),
    /// Sample the tables into the experiment's workload.
    Import,
}

/// The PAI block's state: the tables read (file name, text) and the sampling fields as
/// typed.
pub struct PaiForm {
    jobs: Option<(String, String)>,
    tasks: Option<(String, String)>,
    max_jobs: String,
    seed: String,
    elastic: String,
    error: Option<String>,
}

impl Default for PaiForm {
    fn default() -> Self {
        let d = PaiSampling::default();
        PaiForm {
            jobs: None,
            tasks: None,
            max_jobs: d.max_jobs.to_string(),
            seed: d.seed.to_string(),
            elastic: d.elastic_fraction.to_string(),
            error: None,
        }
    }
}

impl PaiForm {
    /// The sampling the fields say, or which field is wrong.
    fn sampling(&self) -> Result<PaiSampling, String> {
        let max_jobs = match self.max_jobs.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "max jobs: '{}' is not a whole number of at least 1",
                    self.max_jobs
                ))
            }
        };
        let seed = self
            .seed
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("seed: '{}' is not a whole number of 0 or more", self.seed))?;
        let elastic_fraction = match self.elastic.trim().parse::<f64>() {
            Ok(f) if f.is_finite() && (0.0..=1.0).contains(&f) => f,
            _ => {
                return Err(format!(
                    "elastic share: '{}' is not a number from 0 to 1",
                    self.elastic
                ))
            }
        };
        Ok(PaiSampling {
            max_jobs,
            seed,
            only_terminated: true,
            elastic_fraction,
        })
    }
}

impl App {
    pub(super) fn pai_update(&mut self, msg: PaiMsg) {
        match msg {
            PaiMsg::File(table, name, text) => {
                let slot = match table {
                    PaiTable::Jobs => &mut self.pai.jobs,
                    PaiTable::Tasks => &mut self.pai.tasks,
                };
                *slot = Some((name, text));
                self.pai.error = None;
            }
            PaiMsg::FileError(e) => self.pai.error = Some(e),
            PaiMsg::Field(field, v) => {
                match field {
                    "max_jobs" => self.pai.max_jobs = v,
                    "seed" => self.pai.seed = v,
                    _ => self.pai.elastic = v,
                }
                self.pai.error = self.pai.sampling().err();
            }
            PaiMsg::Import => match self.pai_import() {
                Ok(notice) => {
                    self.pai.error = None;
                    self.workload_error = None;
                    self.notice = Some((true, notice));
                }
                Err(e) => {
                    self.pai.error = Some(format!("{e} — the previous workload is kept"));
                }
            },
        }
    }

    /// Sample the tables into the experiment's workload; the notice to show, or why not.
    fn pai_import(&mut self) -> Result<String, String> {
        let (Some((job_name, job_text)), Some((task_name, task_text))) =
            (&self.pai.jobs, &self.pai.tasks)
        else {
            return Err("choose both pai_job_table.csv and pai_task_table.csv first".into());
        };
        let sampling = self.pai.sampling()?;
        let trace = read_pai((job_text, job_name), (task_text, task_name), &sampling)
            .map_err(|e| e.to_string())?;
        let n = trace.jobs.len();
        let files = format!("{job_name} and {task_name}");
        let candidate = Experiment {
            workload: WorkloadSource::Inline {
                name: SAMPLE_NAME.into(),
                text: trace.to_csv(),
            },
            ..self.exp.clone()
        };
        let no_pool = "PAI job types (worker, tensorflow, ...) are not in the round-based profiles: they run only in experiments with an inference pool (Aryl), at one step per second on their traced GPUs; load the aryl scenario first";
        if let Err(e) = self.try_apply(candidate) {
            return Err(if self.runs_in(Mechanism::Pooled) {
                e
            } else {
                format!("{e}. {no_pool}")
            });
        }
        let jobs = if n == 1 { "job" } else { "jobs" };
        let mut notice = format!("{n} {jobs} imported from {files} as {SAMPLE_NAME}.");
        if !self.runs_in(Mechanism::Pooled) {
            notice.push_str(&format!(
                " This experiment has no inference pool: {no_pool}."
            ));
        }
        Ok(notice)
    }

    pub(super) fn view_pai(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let on_file = |table: PaiTable| {
            let link = link.clone();
            Callback::from(move |e: Event| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Some(f) = input.files().and_then(|l| l.get(0)) {
                    read_table(f, table, link.clone());
                }
                input.set_value("");
            })
        };
        let field = |name: &'static str| {
            link.callback(move |e: Event| Msg::Pai(PaiMsg::Field(name, input_value(&e))))
        };
        let read = |t: &Option<(String, String)>| match t {
            Some((name, text)) => {
                let n = text.lines().count();
                format!("read '{name}' ({n} line{})", if n == 1 { "" } else { "s" })
            }
            None => "not chosen".to_string(),
        };
        let ready = self.pai.jobs.is_some() && self.pai.tasks.is_some();
        html! {
            <fieldset id="pai-import">
                <legend>{ "Alibaba PAI tables" }</legend>
                <p class="hint">{ "cluster-trace-gpu-v2020 from github.com/alibaba/clusterdata, sampled like orrery import-pai. Its job types run only with an inference pool (the aryl scenario), at one step per second on their traced GPUs." }</p>
                <label>{ "pai_job_table.csv " }<input id="pai-jobs" type="file" accept=".csv,.txt" onchange={on_file(PaiTable::Jobs)} /></label>
                <span class="hint" id="pai-jobs-status">{ read(&self.pai.jobs) }</span>
                <label>{ "pai_task_table.csv " }<input id="pai-tasks" type="file" accept=".csv,.txt" onchange={on_file(PaiTable::Tasks)} /></label>
                <span class="hint" id="pai-tasks-status">{ read(&self.pai.tasks) }</span>
                <label>{ "max jobs " }<input id="pai-max-jobs" type="number" min="1" value={self.pai.max_jobs.clone()} onchange={field("max_jobs")} /></label>
                <label>{ "seed " }<input id="pai-seed" type="number" min="0" value={self.pai.seed.clone()} onchange={field("seed")} /></label>
                <label title="Share of the sampled jobs with 2 or more GPUs made elastic (up to twice their GPUs)">{ "elastic share " }<input id="pai-elastic" type="number" min="0" max="1" step="0.05" value={self.pai.elastic.clone()} onchange={field("elastic")} /></label>
                <button id="pai-import-button" disabled={!ready} onclick={link.callback(|_| Msg::Pai(PaiMsg::Import))}>{ "Import" }</button>
                if let Some(e) = &self.pai.error { <p class="error" id="pai-error">{ e }</p> }
            </fieldset>
        }
    }
}

/// Read one PAI table and send its text.
fn read_table(file: web_sys::File, table: PaiTable, link: yew::html::Scope<App>) {
    let name = file.name();
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(v) => link.send_message(Msg::Pai(PaiMsg::File(
                table,
                name,
                v.as_string().unwrap_or_default(),
            ))),
            Err(e) => link.send_message(Msg::Pai(PaiMsg::FileError(format!(
                "{name}: cannot read the file ({e:?})"
            )))),
        }
    });
}
