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

/// The CSV header.
pub(crate) const CSV_HEADER: &str = "cell,policy,cluster,cluster_scale,jobs_per_hour,load,seed,num_jobs,unfinished,avg_jct_s,median_jct_s,p95_jct_s,p99_jct_s,makespan_s,avg_wait_s,p99_wait_s,utilization,max_rho,mean_rho,jain_index,restarts,preemptions,gpu_hours,time_lost_s,policy_failures";

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
        SweepFormat::Csv => [
            cell.to_string(),
            quote(policy),
            quote(&axes.cluster),
            csv_num(axes.cluster_scale),
            csv_opt(axes.jobs_per_hour),
            csv_num(axes.load),
            axes.seed.to_string(),
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
        ]
        .join(","),
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
            let fields = CSV_HEADER.split(',').count();
            (rec.len() == fields).then(|| rec.get(0)?.parse().ok())?
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

/// The whole output: the first line, then the rows (in cell order).
pub(crate) fn render(format: SweepFormat, meta: &Meta, rows: &[String]) -> CliResult<String> {
    let mut out = String::new();
    match format {
        SweepFormat::Csv => {
            out.push_str(&meta.csv_line());
            out.push('\n');
            out.push_str(CSV_HEADER);
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
