//! DL2's workload CSV (its simulator's traces, one row per job): `model` the job's type,
//! `arrival_s` its arrival, `real_num_epochs` (else `num_epochs`) its work in epochs, as the
//! types of a DL2 profile folder ([`super::dl2_files`]) count it.

use super::csv::Records;
use super::{parse_nonneg, Trace, WorkloadError};
use crate::model::job::JobSpec;
use std::collections::BTreeMap;

/// The header of one of DL2's tables: each column's index, by name.
pub(super) struct Header {
    file: String,
    pub(super) index: BTreeMap<String, usize>,
}

impl Header {
    pub(super) fn new(file: &str, fields: &csv::StringRecord) -> Self {
        Header {
            file: file.to_string(),
            index: fields
                .iter()
                .enumerate()
                .map(|(i, c)| (c.trim().to_ascii_lowercase(), i))
                .collect(),
        }
    }

    pub(super) fn column(&self, name: &str) -> Result<usize, WorkloadError> {
        self.index
            .get(name)
            .copied()
            .ok_or_else(|| WorkloadError::field(&self.file, 1, name, "missing from the header row"))
    }
}

/// The cells of one record, by column name.
pub(super) fn cell<'r>(
    h: &Header,
    line: usize,
    rec: &'r csv::StringRecord,
    name: &str,
) -> Result<&'r str, WorkloadError> {
    let i = h.column(name)?;
    rec.get(i)
        .map(str::trim)
        .ok_or_else(|| WorkloadError::field(&h.file, line, name, "missing"))
}

/// The columns that mark a DL2 workload CSV.
const TRACE_MARKS: [&str; 3] = ["arrival_slot", "num_epochs", "epoch_size"];

/// Whether a CSV header (lower case, trimmed) is a DL2 workload's.
pub fn is_trace_header(header: &[String]) -> bool {
    TRACE_MARKS.iter().all(|m| header.iter().any(|c| c == m))
}

/// A DL2 workload CSV: one job a row, `model` its type, `arrival_s` its arrival (`arrival_slot`
/// alone counts for nothing without the slot length, so `arrival_s` is required),
/// `real_num_epochs` (else `num_epochs`) its work in epochs. A file holds one trace: a
/// `trace` column, if present, has a single value.
pub fn read_trace(text: &str, file: &str) -> Result<Trace, WorkloadError> {
    let mut records = Records::new(text, ',');
    let (_, first) = records
        .next_record()
        .ok_or_else(|| WorkloadError::file(file, "the trace is empty"))?;
    let h = Header::new(file, first);
    let trace_col = h.index.get("trace").copied();
    let work_col = if h.index.contains_key("real_num_epochs") {
        "real_num_epochs"
    } else {
        "num_epochs"
    };
    let mut which: Option<String> = None;
    let (mut jobs, mut lines) = (Vec::new(), Vec::new());
    while let Some((line, rec)) = records.next_record() {
        let get = |name: &str| cell(&h, line, rec, name);
        if let Some(t) = trace_col.and_then(|i| rec.get(i)).map(str::trim) {
            match &which {
                None => which = Some(t.to_string()),
                Some(w) if w != t => {
                    return Err(WorkloadError::field(
                        file,
                        line,
                        "trace",
                        format!("trace '{t}' after trace '{w}': a file holds one of DL2's traces (split the file by its trace column)"),
                    ))
                }
                Some(_) => {}
            }
        }
        let model = get("model")?;
        if model.is_empty() {
            return Err(WorkloadError::field(file, line, "model", "is empty"));
        }
        let arrival = parse_nonneg(file, line, "arrival_s", get("arrival_s")?)?;
        let work = parse_nonneg(file, line, work_col, get(work_col)?)?;
        if work <= 0.0 {
            return Err(WorkloadError::field(
                file,
                line,
                work_col,
                "must be positive",
            ));
        }
        jobs.push(JobSpec::new(model, arrival, work));
        lines.push(line);
    }
    if jobs.is_empty() {
        return Err(WorkloadError::file(file, "no jobs"));
    }
    let mut trace = Trace::from_jobs(file, jobs);
    trace.lines = lines;
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "\
trace,job_id,arrival_slot,arrival_s,type,model,num_epochs,real_num_epochs,epoch_size,worker_cpu_slots,worker_gpu_slots,ps_cpu_slots,ps_gpu_slots
3,1,0,0.0,1,a,300,300.0,100,2,4,2,0
3,2,2,600.0,2,b,500,500.0,50,2,0,2,0
";

    #[test]
    fn a_workload_is_one_trace_of_epochs() {
        let header: Vec<String> = TRACE
            .lines()
            .next()
            .unwrap()
            .split(',')
            .map(String::from)
            .collect();
        assert!(is_trace_header(&header));
        let t = Trace::parse(TRACE, "w.csv").unwrap();
        assert_eq!(t.jobs.len(), 2);
        assert_eq!(t.jobs[1].job_type, "b");
        assert_eq!((t.jobs[1].arrival, t.jobs[1].total_steps), (600.0, 500.0));
        assert_eq!(t.lines, vec![2, 3]);
        let two = format!("{TRACE}4,1,0,0.0,1,a,300,300.0,100,2,4,2,0\n");
        let e = Trace::parse(&two, "w.csv").unwrap_err().to_string();
        assert!(
            e.contains("w.csv:4") && e.contains("holds one of DL2's traces"),
            "{e}"
        );
    }
}
