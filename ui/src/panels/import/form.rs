//! What the Import panel reports and shows: its messages, the format chosen, and for
//! Alibaba's spot GPU trace and Acme's job tables the files read, the sampling's fields as
//! typed, the last error and the summary of the last import (the PAI tables keep their own
//! form, [`crate::events::PaiForm`]).

use crate::events::PaiFile;
use crate::shared::Shared;
use orrery::view::import::Block;

/// The public traces the panel imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImportFormat {
    /// Alibaba's PAI GPU trace (cluster-trace-gpu-v2020).
    #[default]
    Pai,
    /// Alibaba's spot GPU trace (cluster-trace-v2026-spot-gpu).
    AlibabaSpot,
    /// Acme's job tables (Seren, Kalos).
    Acme,
}

impl ImportFormat {
    /// Every format, in the panel's order.
    pub const ALL: [ImportFormat; 3] = [
        ImportFormat::Pai,
        ImportFormat::AlibabaSpot,
        ImportFormat::Acme,
    ];

    /// Its value in the format select.
    pub fn id(self) -> &'static str {
        match self {
            ImportFormat::Pai => "pai",
            ImportFormat::AlibabaSpot => "alibaba-spot",
            ImportFormat::Acme => "acme",
        }
    }

    /// The format of a select value.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.id() == id)
    }

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            ImportFormat::Pai => "Alibaba PAI GPU trace (2020)",
            ImportFormat::AlibabaSpot => "Alibaba spot GPU trace (GFS, 2026)",
            ImportFormat::Acme => "Acme job table (Seren or Kalos, NSDI'24)",
        }
    }
}

/// Which file of an import a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFile {
    /// The spot trace's `node_info_df.csv`.
    SpotNodes,
    /// The spot trace's `job_info_df.csv`.
    SpotJobs,
    /// Acme's `trace_seren.csv` or `trace_kalos.csv`.
    Acme,
}

/// Messages of the Import panel (the PAI tables' are [`crate::events::PaiMsg`]).
pub enum ImportMsg {
    /// Choose the format to import (its select value).
    Format(String),
    /// A file's text arrived: which file, file name, text.
    File(ImportFile, String, String),
    /// A file could not be read: which file, why.
    FileError(ImportFile, String),
    /// Forget the spot trace's job table (import its node table alone).
    ClearJobs,
    /// Edit a sampling field (`max_jobs`, `seed`) of a format.
    Field(ImportFormat, &'static str, String),
    /// Import the files of a format into the experiment.
    Import(ImportFormat),
}

/// The sampling's fields as typed: most jobs (empty: all) and the seed.
#[derive(Clone, PartialEq)]
pub struct SamplingFields {
    /// Most jobs kept, as typed.
    pub max_jobs: String,
    /// Seed of the sampling, as typed.
    pub seed: String,
}

impl Default for SamplingFields {
    /// 1000 jobs (as the PAI import's default), seed 0.
    fn default() -> Self {
        SamplingFields {
            max_jobs: "1000".into(),
            seed: "0".into(),
        }
    }
}

impl SamplingFields {
    /// Most jobs (`None`: all, as the CLI without `--max-jobs`) and the seed, or which
    /// field is wrong.
    pub fn parse(&self) -> Result<(Option<usize>, u64), String> {
        let max = self.max_jobs.trim();
        let max_jobs = if max.is_empty() {
            None
        } else {
            match max.parse::<usize>() {
                Ok(n) if n >= 1 => Some(n),
                _ => {
                    return Err(format!(
                        "max jobs: '{max}' is not a whole number of at least 1 (leave it empty for all)"
                    ))
                }
            }
        };
        let seed = self.seed.trim();
        let seed = seed
            .parse::<u64>()
            .map_err(|_| format!("seed: '{seed}' is not a whole number of 0 or more"))?;
        Ok((max_jobs, seed))
    }

    /// Set field `field` (`max_jobs` or `seed`).
    pub fn set(&mut self, field: &str, v: String) {
        match field {
            "max_jobs" => self.max_jobs = v,
            _ => self.seed = v,
        }
    }
}

/// A file read: its name, text and number of lines.
pub type ReadFile = Option<Shared<PaiFile>>;

/// The spot trace's block: its tables, sampling, error and last summary.
#[derive(Clone, PartialEq, Default)]
pub struct SpotForm {
    /// `node_info_df.csv`, once read.
    pub nodes: ReadFile,
    /// `job_info_df.csv`, once read (optional).
    pub jobs: ReadFile,
    /// The job table's sampling.
    pub sampling: SamplingFields,
    /// The block's last error.
    pub error: Option<String>,
    /// What the last import read.
    pub report: Option<Shared<Vec<Block>>>,
}

/// Acme's block: its table, sampling, error and last summary.
#[derive(Clone, PartialEq, Default)]
pub struct AcmeForm {
    /// The job table, once read.
    pub file: ReadFile,
    /// The sampling.
    pub sampling: SamplingFields,
    /// The block's last error.
    pub error: Option<String>,
    /// What the last import read.
    pub report: Option<Shared<Vec<Block>>>,
}

/// The Import panel's state besides the PAI tables'.
#[derive(Clone, PartialEq, Default)]
pub struct ImportForm {
    /// The format chosen.
    pub format: ImportFormat,
    /// Alibaba's spot GPU trace.
    pub spot: SpotForm,
    /// Acme's job tables.
    pub acme: AcmeForm,
}

/// A file read, as the import blocks keep it.
pub fn read_file(name: String, text: String) -> Shared<PaiFile> {
    Shared::new(PaiFile {
        lines: text.lines().count(),
        name,
        text,
    })
}

/// What a block says of a file: read (with its lines) or not chosen.
pub fn file_status(f: &ReadFile) -> String {
    match f {
        Some(f) => {
            let n = f.lines;
            format!(
                "read '{}' ({n} line{})",
                f.name,
                if n == 1 { "" } else { "s" }
            )
        }
        None => "not chosen".to_string(),
    }
}
