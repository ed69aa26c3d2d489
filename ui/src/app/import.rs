//! The Import panel's messages, and its imports of Alibaba's spot GPU trace and of Acme's
//! job tables, as `orrery import-alibaba-spot` and `orrery import-acme` read them: the
//! tables are read in the page, the summary the CLI prints is kept for the panel
//! ([`orrery::view::import`]), and what the CLI writes (the trace, and for the spot trace its
//! cluster and profile) becomes the experiment, so that a run gives what `orrery run` gives
//! on those files. The PAI tables' import is `pai.rs`.

use super::App;
use crate::panels::import::form::{read_file, ImportFile, ImportFormat, ImportMsg};
use crate::shared::Shared;
use orrery::experiment::{switch, Experiment, ProfileSource, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::sim::JobModel;
use orrery::view::import as summary;
use orrery::workload::acme::{read_acme, AcmeSampling, AcmeSchema};
use orrery::workload::alibaba_spot::{self, JobSampling};

/// Name of the inline workload an import of the spot trace's job table makes.
pub const SPOT_TRACE_NAME: &str = "alibaba-spot.csv";

/// Name of its inline profile.
pub const SPOT_PROFILE_NAME: &str = "alibaba-spot-profile.json";

/// What an import keeps of an experiment whose cluster it replaces: settings that name the
/// old cluster's GPU types go (an inference pool, spot traces of types the new cluster
/// lacks); each dropped one is said in `dropped`.
fn fit_settings_to_cluster(c: &mut Experiment, cluster: &ClusterSpec, dropped: &mut Vec<String>) {
    let has = |name: &str| cluster.types.iter().any(|t| t.name == name);
    if c.inference.is_some()
        && !cluster
            .types
            .iter()
            .any(|t| t.name.starts_with("inference"))
    {
        c.inference = None;
        dropped.push("the inference pool (the cluster has no inference GPU type)".into());
    }
    let gone: Vec<String> = c.spot.keys().filter(|t| !has(t)).cloned().collect();
    for t in gone {
        c.spot.remove(&t);
        dropped.push(format!("the spot trace of GPU type {t}"));
    }
}

/// `dropped` as the end of a notice: ` Dropped with the old cluster: a; b.`
fn dropped_note(dropped: &[String]) -> String {
    if dropped.is_empty() {
        String::new()
    } else {
        format!(" Dropped: {}.", dropped.join("; "))
    }
}

impl App {
    /// A message of the Import panel.
    pub(super) fn import_update(&mut self, msg: ImportMsg) -> bool {
        let form = &mut self.forms.import;
        match msg {
            ImportMsg::Format(id) => {
                if let Some(f) = ImportFormat::from_id(&id) {
                    form.format = f;
                }
            }
            ImportMsg::File(which, name, text) => {
                let file = Some(read_file(name, text));
                match which {
                    ImportFile::SpotNodes => form.spot.nodes = file,
                    ImportFile::SpotJobs => form.spot.jobs = file,
                    ImportFile::Acme => form.acme.file = file,
                }
                match which {
                    ImportFile::Acme => form.acme.error = None,
                    _ => form.spot.error = None,
                }
            }
            ImportMsg::FileError(which, e) => match which {
                ImportFile::Acme => form.acme.error = Some(e),
                _ => form.spot.error = Some(e),
            },
            ImportMsg::ClearJobs => form.spot.jobs = None,
            ImportMsg::Field(format, field, v) => match format {
                ImportFormat::Acme => {
                    form.acme.sampling.set(field, v);
                    form.acme.error = form.acme.sampling.parse().err();
                }
                _ => {
                    form.spot.sampling.set(field, v);
                    form.spot.error = form.spot.sampling.parse().err();
                }
            },
            ImportMsg::Import(ImportFormat::Acme) => {
                let outcome = self.acme_import();
                self.forms.import.acme.error = self.imported(outcome);
            }
            ImportMsg::Import(ImportFormat::AlibabaSpot) => {
                let outcome = self.spot_import();
                self.forms.import.spot.error = self.imported(outcome);
            }
            // The PAI block imports through its own messages.
            ImportMsg::Import(ImportFormat::Pai) => return false,
        }
        true
    }

    /// The notice of an import that went through, or the block's error.
    fn imported(&mut self, outcome: Result<String, String>) -> Option<String> {
        match outcome {
            Ok(notice) => {
                self.errors.workload = None;
                self.notice = Some((true, notice));
                None
            }
            Err(e) => Some(format!("{e} — the experiment is kept as it was")),
        }
    }

    /// Read the spot trace's tables into the experiment: the node table's cluster, and with
    /// a job table its (sampled) trace and the profile that runs each job on its model only.
    /// The notice to show, or why not.
    fn spot_import(&mut self) -> Result<String, String> {
        let form = &mut self.forms.import.spot;
        form.report = None;
        let Some(nodes) = form.nodes.clone() else {
            return Err("choose node_info_df.csv first".into());
        };
        let (max_jobs, seed) = form.sampling.parse()?;
        let table =
            alibaba_spot::read_nodes(&nodes.text, &nodes.name).map_err(|e| e.to_string())?;
        let cluster = table.cluster().map_err(|e| e.to_string())?;
        let mut report = summary::node_blocks(&table, &cluster);
        let jobs = match &form.jobs {
            Some(f) => {
                let sampling = JobSampling { max_jobs, seed };
                let t = alibaba_spot::read_jobs(&f.text, &f.name, Some(&cluster), &sampling)
                    .map_err(|e| e.to_string())?;
                report.extend(summary::job_blocks(&t));
                Some((f.name.clone(), t))
            }
            None => None,
        };
        form.report = Some(Shared::new(report));

        let mut c = Experiment::clone(&self.exp);
        let mut dropped = Vec::new();
        let mut switched = Vec::new();
        if let Some((_, t)) = &jobs {
            if self.mech.jobs() != JobModel::Rigid {
                switched = switch::adopt_family(&mut c, JobModel::Rigid);
            }
            c.workload = WorkloadSource::Inline {
                name: SPOT_TRACE_NAME.into(),
                text: t.trace.to_csv(),
            };
            c.profile = ProfileSource::Inline {
                name: SPOT_PROFILE_NAME.into(),
                text: alibaba_spot::profile(&t.trace).to_json(),
            };
            if c.trace_filter.take().is_some() {
                dropped.push("the trace filter (it was the previous trace's)".to_string());
            }
        }
        c.cluster = cluster.to_string();
        fit_settings_to_cluster(&mut c, &cluster, &mut dropped);
        self.try_apply(c)?;
        self.sync_cluster_text();
        let gpus = table.gpus();
        let mut notice = format!(
            "Alibaba spot GPU trace: the cluster of {} ({} nodes, {gpus} GPUs in {} GPU types: {cluster})",
            nodes.name,
            table.nodes(),
            cluster.types.len()
        );
        match &jobs {
            Some((name, t)) => {
                let spot = t.trace.jobs.iter().filter(|j| j.spot).count();
                let n = t.trace.jobs.len();
                notice.push_str(&format!(
                    ", and {n} job{} of {name} ({} HP, {spot} Spot) as {SPOT_TRACE_NAME}, each on the GPU model it requested ({SPOT_PROFILE_NAME}).",
                    if n == 1 { "" } else { "s" },
                    n - spot
                ));
            }
            None => notice.push_str(", with the experiment's workload."),
        }
        if !switched.is_empty() {
            notice.push_str(&format!(
                " Round-based jobs: switched to {}.",
                switched.join("; ")
            ));
        }
        notice.push_str(&dropped_note(&dropped));
        Ok(notice)
    }

    /// Read an Acme job table into the experiment's workload (profile-free, on the
    /// experiment's cluster); the notice to show, or why not.
    fn acme_import(&mut self) -> Result<String, String> {
        let form = &mut self.forms.import.acme;
        form.report = None;
        let Some(file) = form.file.clone() else {
            return Err("choose trace_seren.csv or trace_kalos.csv first".into());
        };
        let (max_jobs, seed) = form.sampling.parse()?;
        let table = read_acme(&file.text, &file.name).map_err(|e| e.to_string())?;
        let trace = table
            .trace(&AcmeSampling { max_jobs, seed })
            .map_err(|e| e.to_string())?;
        form.report = Some(Shared::new(summary::acme_blocks(
            &table,
            &table.summary(),
            &trace,
        )));
        let (schema, name) = match table.schema {
            AcmeSchema::Seren => ("Seren", "acme-seren.csv"),
            AcmeSchema::Kalos => ("Kalos", "acme-kalos.csv"),
        };
        let largest = trace.jobs.iter().map(|j| j.scale_factor).max().unwrap_or(0);
        let n = trace.jobs.len();
        let mut exp = Experiment::clone(&self.exp);
        let filtered = exp.trace_filter.take().is_some();
        let current = self.mech.jobs();
        let (c, note) = switch::with_timed_trace(
            &exp,
            current,
            name.into(),
            trace.to_csv(),
            largest,
            &mut |e| self.resolve_cached(e).map(drop),
        )?;
        self.try_apply(c)?;
        self.sync_cluster_text();
        let mut notice = format!(
            "Acme ({schema}): {n} GPU job{} of {} imported as {name}. {note}",
            if n == 1 { "" } else { "s" },
            file.name
        );
        if filtered {
            notice.push_str(&dropped_note(&[
                "the trace filter (it was the previous trace's)".into(),
            ]));
        }
        Ok(notice)
    }
}
