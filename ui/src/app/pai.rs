//! The Import panel's import of the Alibaba PAI GPU trace, as `orrery import-pai` does:
//! the job and task tables are read in the page, and the sample the core makes of them
//! ([`switch::pai_sample`]) becomes the experiment's inline workload.

use super::{App, PaiMsg, PaiTable};
use crate::events::{PaiFile, PaiForm};
use crate::shared::Shared;
use orrery::experiment::switch::{self, PAI_SAMPLE_NAME as SAMPLE_NAME};
use orrery::workload::pai::PaiSampling;

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
        PaiSampling::from_fields(&self.max_jobs, &self.seed, &self.elastic)
    }
}

impl App {
    /// A message of the PAI import block.
    pub(super) fn pai_update(&mut self, msg: PaiMsg) -> bool {
        let pai = &mut self.forms.pai;
        match msg {
            PaiMsg::File(table, name, text) => {
                let file = Shared::new(PaiFile {
                    lines: text.lines().count(),
                    name,
                    text,
                });
                match table {
                    PaiTable::Jobs => pai.jobs = Some(file),
                    PaiTable::Tasks => pai.tasks = Some(file),
                }
                pai.error = None;
            }
            PaiMsg::FileError(e) => pai.error = Some(e),
            PaiMsg::Field(field, v) => {
                match field {
                    "max_jobs" => pai.max_jobs = v,
                    "seed" => pai.seed = v,
                    _ => pai.elastic = v,
                }
                pai.error = pai.sampling().err();
            }
            PaiMsg::Import => match self.pai_import() {
                Ok(notice) => {
                    self.forms.pai.error = None;
                    self.errors.workload = None;
                    self.notice = Some((true, notice));
                }
                Err(e) => {
                    self.forms.pai.error = Some(format!("{e} — the previous workload is kept"));
                }
            },
        }
        true
    }

    /// Sample the tables into the experiment's workload; the notice to show, or why not.
    fn pai_import(&mut self) -> Result<String, String> {
        let (Some(jobs), Some(tasks)) = (&self.forms.pai.jobs, &self.forms.pai.tasks) else {
            return Err("choose both pai_job_table.csv and pai_task_table.csv first".into());
        };
        let sampling = self.forms.pai.sampling()?;
        let (source, n) = switch::pai_sample(
            (&jobs.text, &jobs.name),
            (&tasks.text, &tasks.name),
            &sampling,
        )?;
        let files = format!("{} and {}", jobs.name, tasks.name);
        let candidate = self.with(|e| e.workload = source);
        let no_pool = "PAI job types (worker, tensorflow, ...) are not in the round-based profiles: they run only in experiments with an inference pool (Aryl), at one step per second on their traced GPUs; load the aryl scenario first";
        if let Err(e) = self.try_apply(candidate) {
            return Err(if self.mech.inference_pool() {
                e
            } else {
                format!("{e}. {no_pool}")
            });
        }
        let jobs = if n == 1 { "job" } else { "jobs" };
        let mut notice = format!("{n} {jobs} imported from {files} as {SAMPLE_NAME}.");
        if !self.mech.inference_pool() {
            notice.push_str(&format!(
                " This experiment has no inference pool: {no_pool}."
            ));
        }
        Ok(notice)
    }
}
