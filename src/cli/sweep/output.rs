//! What a sweep writes: a first line naming the sweep (format version, fingerprint, number
//! of cells, grid, and the shard when it is one), then one line per cell in cell order.
//!
//! CSV:
//!
//! ```text
//! # orrery sweep 1; fingerprint=3f2a...; cells=12; grid=2 policies x ...; shard=2/3
//! cell,policy,cluster,cluster_scale,jobs_per_hour,load,seed,num_jobs,...
//! 1,las,v100:12,1,,1,0,120,...
//! ```
//!
//! A sweep with failures (its experiment's, or a failure-rate or checkpoint axis) has two
//! more axis columns after `seed` (`failures_per_server_day`, `checkpoint_s`: seconds or
//! `auto`) and the failure figures at the end (`server_failures`, `interruptions`, `ettr`,
//! and GPU-hours rolled back, restarting and writing checkpoints); in JSON the two axes
//! are fields of the row and the figures are in its summary.
//!
//! JSON (one object; each cell's object on a line of its own, with the whole summary):
//!
//! ```text
//! {"sweep":{"format":1,"fingerprint":"3f2a...","cells":12,"grid":"...","shard":"2/3"},
//! "rows":[
//! {"cell":1,"policy":"las",...,"summary":{...}},
//! {"cell":4,...}
//! ]}
//! ```
//!
//! A line per cell is what lets `orrery sweep merge` join shards byte for byte: it moves
//! lines, never re-formats a number.

use super::*;
use orrery::metrics::{csv_num, csv_opt};

/// The first words of a CSV sweep's first line.
pub(crate) const CSV_MAGIC: &str = "# orrery sweep";

/// The CSV header's axis columns.
const CSV_AXES: &str = "cell,policy,cluster,cluster_scale,jobs_per_hour,load,seed";
/// The CSV header's metric columns.
const CSV_METRICS: &str = "num_jobs,unfinished,avg_jct_s,median_jct_s,p95_jct_s,p99_jct_s,makespan_s,avg_wait_s,p99_wait_s,utilization,max_rho,mean_rho,jain_index,restarts,preemptions,gpu_hours,time_lost_s,policy_failures";
/// The axis columns of a sweep with failures (after `seed`).
const CSV_FAULT_AXES: &str = "failures_per_server_day,checkpoint_s";
/// The failure figures of a sweep with failures (at the end).
const CSV_FAULT_METRICS: &str = "server_failures,interruptions,ettr,rolled_back_gpu_hours,restart_gpu_hours,checkpoint_gpu_hours";

/// The CSV header: with the failure columns for a sweep with failures.
pub(crate) fn csv_header(faults: bool) -> String {
    if faults {
        format!("{CSV_AXES},{CSV_FAULT_AXES},{CSV_METRICS},{CSV_FAULT_METRICS}")
    } else {
        format!("{CSV_AXES},{CSV_METRICS}")
    }
}

/// The start of a JSON sweep's first line.
pub(crate) const JSON_START: &str = "{\"sweep\":";
/// The line before a JSON sweep's cells.
pub(crate) const JSON_ROWS: &str = "\"rows\":[";
/// A JSON sweep's last line.
pub(crate) const JSON_END: &str = "]}";

/// What the first line says.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct Meta {
    /// Version of the output format.
    pub(crate) format: u32,
    /// The sweep's fingerprint ([`Grid::fingerprint`]).
    pub(crate) fingerprint: String,
    /// Cells in the whole sweep.
    pub(crate) cells: usize,
    /// The grid in words.
    pub(crate) grid: String,
    /// `K/N` for a shard's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shard: Option<String>,
}

impl Meta {
    /// The shard this output is, if it is one.
    pub(crate) fn shard(&self) -> Option<Shard> {
        self.shard.as_deref().and_then(|s| parse_shard(s).ok())
    }

    fn csv_line(&self) -> String {
        let mut s = format!(
            "{CSV_MAGIC} {}; fingerprint={}; cells={}; grid={}",
            self.format, self.fingerprint, self.cells, self.grid
        );
        if let Some(k) = &self.shard {
            s.push_str(&format!("; shard={k}"));
        }
        s
    }

    /// Read a CSV sweep's first line.
    pub(crate) fn from_csv_line(line: &str) -> Result<Meta, String> {
        let mut parts = line.split("; ");
        let head = parts.next().unwrap_or_default();
        let format = head
            .strip_prefix(CSV_MAGIC)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| format!("the first line is not `{CSV_MAGIC} <version>; ...`"))?;
        let mut meta = Meta {
            format,
            fingerprint: String::new(),
            cells: 0,
            grid: String::new(),
            shard: None,
        };
        let mut cells = None;
        for p in parts {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("'{p}' in the first line is not key=value"))?;
            match k {
                "fingerprint" => meta.fingerprint = v.to_string(),
                "cells" => cells = v.parse().ok(),
                "grid" => meta.grid = v.to_string(),
                "shard" => meta.shard = Some(v.to_string()),
                _ => return Err(format!("unknown key '{k}' in the first line")),
            }
        }
        meta.cells = cells.ok_or("the first line gives no number of cells")?;
        if meta.fingerprint.is_empty() {
            return Err("the first line gives no fingerprint".into());
        }
        Ok(meta)
    }

    fn json_line(&self) -> CliResult<String> {
        Ok(format!("{JSON_START}{},", json_compact(self)?))
    }

    /// Read a JSON sweep's first line.
    pub(crate) fn from_json_line(line: &str) -> Result<Meta, String> {
        let inner = line
            .strip_prefix(JSON_START)
            .and_then(|l| l.strip_suffix(','))
            .ok_or_else(|| format!("the first line is not `{JSON_START}{{...}},`"))?;
        serde_json::from_str(inner).map_err(|e| format!("the first line: {e}"))
    }
}

fn json_compact<T: serde::Serialize + ?Sized>(v: &T) -> CliResult<String> {
    serde_json::to_string(v).map_err(|e| CliError::Failure(format!("cannot serialise JSON: {e}")))
}

/// One cell's line (without its line end, or a JSON comma).
pub(crate) fn row_line(
    format: SweepFormat,
    cell: usize,
    policy: &str,
    axes: &GroupAxes,
    s: &Summary,
) -> CliResult<String> {
    Ok(match format {
        SweepFormat::Csv => {
            let mut fields = vec![
                cell.to_string(),
                quote(policy),
                quote(&axes.cluster),
                csv_num(axes.cluster_scale),
                csv_opt(axes.jobs_per_hour),
                csv_num(axes.load),
                axes.seed.to_string(),
            ];
            if let Some((rate, interval)) = &axes.faults {
                fields.push(csv_num(*rate));
                fields.push(interval.clone());
            }
            fields.extend([
                s.num_jobs.to_string(),
                s.unfinished.to_string(),
                csv_num(s.avg_jct_s),
                csv_num(s.median_jct_s),
                csv_num(s.p95_jct_s),
                csv_num(s.p99_jct_s),
                csv_num(s.makespan_s),
                csv_num(s.avg_wait_s),
                csv_num(s.p99_wait_s),
                csv_num(s.utilization),
                csv_opt(s.max_rho),
                csv_opt(s.mean_rho),
                csv_opt(s.jain_index),
                s.restarts.to_string(),
                s.preemptions.to_string(),
                csv_num(s.gpu_hours),
                csv_num(s.time_lost_s),
                s.policy_failures.to_string(),
            ]);
            if axes.faults.is_some() {
                let f = s.faults.clone().unwrap_or_default();
                fields.extend([
                    f.server_failures.to_string(),
                    f.interruptions.to_string(),
                    csv_opt(f.ettr),
                    csv_num(f.lost_gpu_hours.rolled_back),
                    csv_num(f.lost_gpu_hours.restarts),
                    csv_num(f.lost_gpu_hours.checkpoints),
                ]);
            }
            fields.join(",")
        }
        SweepFormat::Json => {
            #[derive(serde::Serialize)]
            struct JsonRow<'a> {
                cell: usize,
                policy: &'a str,
                cluster: &'a str,
                cluster_scale: f64,
                jobs_per_hour: Option<f64>,
                load: f64,
                seed: u64,
                #[serde(skip_serializing_if = "Option::is_none")]
                failures_per_server_day: Option<f64>,
                #[serde(skip_serializing_if = "Option::is_none")]
                checkpoint_s: Option<&'a str>,
                summary: &'a Summary,
            }
            json_compact(&JsonRow {
                cell,
                policy,
                cluster: &axes.cluster,
                cluster_scale: axes.cluster_scale,
                jobs_per_hour: axes.jobs_per_hour,
                load: axes.load,
                seed: axes.seed,
                failures_per_server_day: axes.faults.as_ref().map(|f| f.0),
                checkpoint_s: axes.faults.as_ref().map(|f| f.1.as_str()),
                summary: s,
            })?
        }
    })
}

/// The cell of a row line.
pub(crate) fn row_cell(format: SweepFormat, line: &str) -> Option<usize> {
    match format {
        SweepFormat::Csv => {
            let mut r = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(line.as_bytes());
            let rec = r.records().next()?.ok()?;
            let fields = |faults| csv_header(faults).split(',').count();
            (rec.len() == fields(false) || rec.len() == fields(true))
                .then(|| rec.get(0)?.parse().ok())?
        }
        SweepFormat::Json => {
            #[derive(serde::Deserialize)]
            struct Cell {
                cell: usize,
            }
            serde_json::from_str::<Cell>(line).ok().map(|c| c.cell)
        }
    }
}

/// The whole output: the first line, then the rows (in cell order), with the failure
/// columns when `faults`.
pub(crate) fn render(
    format: SweepFormat,
    meta: &Meta,
    rows: &[String],
    faults: bool,
) -> CliResult<String> {
    let mut out = String::new();
    match format {
        SweepFormat::Csv => {
            out.push_str(&meta.csv_line());
            out.push('\n');
            out.push_str(&csv_header(faults));
            out.push('\n');
            for r in rows {
                out.push_str(r);
                out.push('\n');
            }
        }
        SweepFormat::Json => {
            out.push_str(&meta.json_line()?);
            out.push('\n');
            out.push_str(JSON_ROWS);
            out.push('\n');
            if !rows.is_empty() {
                out.push_str(&rows.join(",\n"));
                out.push('\n');
            }
            out.push_str(JSON_END);
            out.push('\n');
        }
    }
    Ok(out)
}
