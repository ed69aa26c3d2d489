//! Reader of Acme's job traces (`trace_seren.csv` and `trace_kalos.csv` of
//! github.com/InternLM/AcmeTrace; Hu et al., "Characterization of Large Language Model
//! Development in the Datacenter", NSDI'24): each GPU job's nodes, GPUs, times and final
//! state, the Orrery [`Trace`] of those jobs, and a summary of their failures.
//!
//! # Input
//!
//! A CSV table with a header row; columns are found by name (any case, any order), others
//! ignored; blank lines and lines starting with `#` are skipped, quoted fields read as
//! [`super::csv`] reads them, and every row must have as many fields as the header.
//! Errors name the file, the line and the column. The schema ([`AcmeSchema`]) is Kalos'
//! when the header has `fail_time` or `stop_time`, Seren's otherwise:
//!
//! - Seren: `job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,
//!   end_time,duration,queue,gpu_time`;
//! - Kalos: the same with `mem_per_pod_GB`, `shared_mem_per_pod`, `fail_time` and
//!   `stop_time`.
//!
//! Columns read (times are date-times with an offset, `2023-03-01 00:18:22+08:00`, read
//! as seconds since 1970 UTC by [`super::dates`]; numbers may be written `10` or `10.0`;
//! an empty value is "not recorded"):
//!
//! - `gpu_num` (required): GPUs, a whole number. Rows with 0 are CPU jobs: counted
//!   ([`AcmeTable::cpu_jobs`]) and otherwise skipped.
//! - `node_num`: nodes, a whole number.
//! - `state` (required): the final state as written (`COMPLETED`, `CANCELLED`, `FAILED`,
//!   `TIMEOUT`, `NODE_FAIL`; the files also hold `PREEMPTED` and `RUNNING`).
//! - `submit_time`, `start_time`, `end_time` (required columns): the job's times. Its run
//!   time is `end_time - start_time` on both schemas.
//! - `fail_time` and `stop_time` (Kalos): when the job failed or was cancelled.
//! - `duration`, `queue` (seconds) and `gpu_time` (GPU-seconds): kept as written, to check
//!   the file against its own times ([`FailureSummary`]). They are not used for the run
//!   time: on Kalos `duration` is `end_time - submit_time`, the queue included.
//! - `type`: the job's kind (`Pretrain`, `SFT`, `Eval`, `Debug`, `Other`...), its `job_type`
//!   in the trace.
//! - `user`: the job's `entity` in the trace (for hierarchical policies).
//! - `job_id`, `cpu_num`, `mem_per_pod_GB`, `shared_mem_per_pod`: not read.
//!
//! # The trace ([`AcmeTable::trace`])
//!
//! GPU jobs with a submission time and a positive run time become jobs as
//! [`super::timed`] assembles a trace of durations: ordered by submission (ties in file
//! order), arriving relative to the first, `total_steps` = the run time in seconds at one
//! step per second on `gpu_num` GPUs, `job_type` = `type` (`acme` when empty), `entity` =
//! `user`, each job's state in [`super::timed::Origin::statuses`]. The others are counted
//! by reason in [`super::timed::Origin::dropped`]: CPU jobs, jobs without a submission
//! time, jobs without a start or an end (still running), jobs of no positive run time.
//! With `max_jobs`, that many are drawn uniformly without replacement (stream
//! `"acme-sample"` of the seed) and kept in arrival order. Such a trace runs profile-free.
//!
//! # The failure summary ([`AcmeTable::summary`])
//!
//! Over the GPU jobs: jobs and GPU time (`gpu_num x` run time, so without the queue) by
//! final state; the FAILED jobs and the NODE_FAIL jobs with their GPU time; node-days
//! (`node_num x` run time over the jobs with both) and the empirical rates of NODE_FAIL and
//! of FAILED jobs per node-day of GPU-job run time.
//!
//! What the figures mean and what they do not:
//!
//! - FAILED is the scheduler's state for a job that exited with an error. It counts user
//!   and framework errors (a bad script, an out-of-memory error) as well as
//!   infrastructure faults; the paper finds infrastructure behind only about 11% of failed
//!   jobs, though they hold most of the failed jobs' GPU time. FAILED jobs per node-day is
//!   therefore not a hardware failure rate.
//! - NODE_FAIL is the state of a job whose node failed under it. NODE_FAIL jobs per
//!   node-day of run time is a lower bound of node failures that hit running jobs: a node
//!   failure that shows up as a job error is FAILED, one under no job is not seen, and
//!   a job's NODE_FAIL may stand for one failing node of many. The paper counts TIMEOUT
//!   and NODE_FAIL as failed; here they are apart.
//! - The rates are per node-day of GPU jobs' run time, not per node-day of the cluster:
//!   idle nodes and CPU jobs are not in the denominator.
//!
//! The summary also checks the file against itself: how many rows have `duration` =
//! `end_time - start_time` (Seren) and how many `duration` = `queue + end_time -
//! start_time` (Kalos), `gpu_time = duration x gpu_num`, and FAILED jobs' `fail_time` =
//! `end_time`.

use serde::{Deserialize, Serialize};

use super::table::{sample, Table};
use super::timed::{assemble, Drops, TimedFormat, TimedJob};
use super::{Trace, WorkloadError};

/// Seconds in a day.
const DAY_S: f64 = 86_400.0;

/// Two recorded times or durations (whole seconds) agree within this many seconds.
const SAME_S: f64 = 0.5;

/// Which of Acme's two job tables a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AcmeSchema {
    /// `trace_seren.csv` (13 columns).
    Seren,
    /// `trace_kalos.csv` (17 columns, with `fail_time` and `stop_time`).
    Kalos,
}

/// One GPU job as the file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcmeJob {
    /// 1-based line of its row.
    pub line: usize,
    /// `user` ("" if empty).
    pub user: String,
    /// `type` ("" if empty).
    pub kind: String,
    /// `state`.
    pub state: String,
    /// `node_num`.
    pub node_num: Option<u32>,
    /// `gpu_num`, at least 1.
    pub gpu_num: u32,
    /// `submit_time`, seconds since 1970 UTC.
    pub submit_s: Option<f64>,
    /// `start_time`.
    pub start_s: Option<f64>,
    /// `end_time`.
    pub end_s: Option<f64>,
    /// `fail_time` (Kalos).
    pub fail_s: Option<f64>,
    /// `stop_time` (Kalos).
    pub stop_s: Option<f64>,
    /// `duration` as written (s).
    pub duration_s: Option<f64>,
    /// `queue` as written (s).
    pub queue_s: Option<f64>,
    /// `gpu_time` as written (GPU-seconds).
    pub gpu_time: Option<f64>,
}

impl AcmeJob {
    /// Run time, `end_time - start_time` (s).
    pub fn run_s(&self) -> Option<f64> {
        Some(self.end_s? - self.start_s?)
    }
}

/// A job table read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcmeTable {
    /// The file's name.
    pub name: String,
    /// Its schema.
    pub schema: AcmeSchema,
    /// Rows.
    pub rows: usize,
    /// Rows of CPU jobs (`gpu_num` 0).
    pub cpu_jobs: usize,
    /// The GPU jobs in file order.
    pub jobs: Vec<AcmeJob>,
}

/// How to sample the trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AcmeSampling {
    /// Largest number of jobs to keep (at least 1); all when `None`.
    #[serde(default)]
    pub max_jobs: Option<usize>,
    /// Seed of the choice of jobs.
    #[serde(default)]
    pub seed: u64,
}

/// Jobs and their GPU time (`gpu_num x` run time).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Jobs.
    pub jobs: usize,
    /// GPU-seconds of run time (jobs with a start and an end).
    pub gpu_s: f64,
}

impl Tally {
    fn add(&mut self, job: &AcmeJob) {
        self.jobs += 1;
        self.gpu_s += f64::from(job.gpu_num) * job.run_s().unwrap_or(0.0).max(0.0);
    }
}

/// What a job table says of its GPU jobs' end (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureSummary {
    /// The schema.
    pub schema: AcmeSchema,
    /// Rows.
    pub rows: usize,
    /// CPU jobs.
    pub cpu_jobs: usize,
    /// GPU jobs.
    pub gpu_jobs: usize,
    /// GPU jobs by final state, most jobs first (ties by name).
    pub states: Vec<(String, Tally)>,
    /// GPU jobs whose state is FAILED.
    pub failed: Tally,
    /// GPU jobs whose state is NODE_FAIL.
    pub node_fail: Tally,
    /// Node-days of GPU-job run time (`node_num x` run time, over jobs with both).
    pub node_days: f64,
    /// NODE_FAIL jobs per node-day of run time (none without node-days).
    pub node_fail_per_node_day: Option<f64>,
    /// FAILED jobs per node-day of run time.
    pub failed_per_node_day: Option<f64>,
    /// FAILED jobs with a `fail_time`.
    pub failed_with_fail_time: usize,
    /// ... of which `fail_time` equals `end_time`.
    pub failed_at_end: usize,
    /// Jobs of another state with a `fail_time`.
    pub fail_time_elsewhere: usize,
    /// Jobs with `duration`, `submit_time`, `start_time` and `end_time`.
    pub duration_rows: usize,
    /// ... of which `duration = end_time - start_time`.
    pub duration_is_run: usize,
    /// ... of which `duration = end_time - submit_time` (the queue and the run).
    pub duration_is_queue_and_run: usize,
    /// Jobs with `gpu_time` and `duration`.
    pub gpu_time_rows: usize,
    /// ... of which `gpu_time = duration x gpu_num`.
    pub gpu_time_is_duration_x_gpus: usize,
}

/// Where the columns read are.
struct Columns {
    gpus: usize,
    state: usize,
    submit: usize,
    start: usize,
    end: usize,
    nodes: Option<usize>,
    kind: Option<usize>,
    user: Option<usize>,
    fail: Option<usize>,
    stop: Option<usize>,
    duration: Option<usize>,
    queue: Option<usize>,
    gpu_time: Option<usize>,
}

/// Read a Seren or Kalos job table (see the module documentation).
pub fn read_acme(text: &str, file: &str) -> Result<AcmeTable, WorkloadError> {
    let mut table = Table::open(text, file)?;
    let c = Columns {
        gpus: table.need("gpu_num")?,
        state: table.need("state")?,
        submit: table.need("submit_time")?,
        start: table.need("start_time")?,
        end: table.need("end_time")?,
        nodes: table.find("node_num"),
        kind: table.find("type"),
        user: table.find("user"),
        fail: table.find("fail_time"),
        stop: table.find("stop_time"),
        duration: table.find("duration"),
        queue: table.find("queue"),
        gpu_time: table.find("gpu_time"),
    };
    let schema = if c.fail.is_some() || c.stop.is_some() {
        AcmeSchema::Kalos
    } else {
        AcmeSchema::Seren
    };
    let mut out = AcmeTable {
        name: file.to_string(),
        schema,
        rows: 0,
        cpu_jobs: 0,
        jobs: Vec::new(),
    };
    while let Some(row) = table.next_row() {
        let row = row?;
        out.rows += 1;
        let gpu_num = row
            .whole(c.gpus)?
            .ok_or_else(|| row.error(c.gpus, "empty (a number is needed)"))?;
        let text_of = |col: Option<usize>| col.map_or("", |i| row.text(i)).to_string();
        let time_of = |col: Option<usize>| col.map_or(Ok(None), |i| row.time(i));
        let number_of = |col: Option<usize>| col.map_or(Ok(None), |i| row.number(i));
        let job = AcmeJob {
            line: row.line,
            user: text_of(c.user),
            kind: text_of(c.kind),
            state: row.text(c.state).to_string(),
            node_num: c.nodes.map_or(Ok(None), |i| row.whole(i))?,
            gpu_num,
            submit_s: row.time(c.submit)?,
            start_s: row.time(c.start)?,
            end_s: row.time(c.end)?,
            fail_s: time_of(c.fail)?,
            stop_s: time_of(c.stop)?,
            duration_s: number_of(c.duration)?,
            queue_s: number_of(c.queue)?,
            gpu_time: number_of(c.gpu_time)?,
        };
        if gpu_num == 0 {
            out.cpu_jobs += 1;
        } else {
            out.jobs.push(job);
        }
    }
    if out.rows == 0 {
        return Err(WorkloadError::file(file, "the Acme job trace has no rows"));
    }
    Ok(out)
}

impl AcmeTable {
    /// The trace of its GPU jobs (see the module documentation), or why none can run.
    pub fn trace(&self, sampling: &AcmeSampling) -> Result<Trace, WorkloadError> {
        if sampling.max_jobs == Some(0) {
            return Err(WorkloadError::file(
                "Acme sampling",
                "max_jobs must be at least 1",
            ));
        }
        let mut drops = Drops::default();
        for _ in 0..self.cpu_jobs {
            drops.add("CPU jobs");
        }
        let mut found = Vec::new();
        for j in &self.jobs {
            let reason = match (j.submit_s, j.run_s()) {
                (None, _) => Some("without a submission time"),
                (_, None) => Some("without a start or an end"),
                (_, Some(r)) if r <= 0.0 => Some("of no positive run time"),
                _ => None,
            };
            if let Some(r) = reason {
                drops.add(r);
                continue;
            }
            let (Some(submit_s), Some(duration_s)) = (j.submit_s, j.run_s()) else {
                continue;
            };
            found.push(TimedJob {
                line: j.line,
                submit_s,
                duration_s,
                gpus: j.gpu_num,
                vc: Some(j.user.clone()),
                status: j.state.clone(),
                kind: Some(j.kind.clone()),
            });
        }
        crate::order::sort_by(&mut found, |a, b| {
            a.submit_s.total_cmp(&b.submit_s).then(a.line.cmp(&b.line))
        });
        let keep = sample(found.len(), sampling.max_jobs, sampling.seed, "acme-sample");
        let kept = keep.iter().filter_map(|&i| found.get(i).cloned()).collect();
        assemble(&self.name, TimedFormat::Acme, kept, self.rows, drops)
    }

    /// The failure summary of its GPU jobs (see the module documentation).
    pub fn summary(&self) -> FailureSummary {
        let mut s = FailureSummary {
            schema: self.schema,
            rows: self.rows,
            cpu_jobs: self.cpu_jobs,
            gpu_jobs: self.jobs.len(),
            states: Vec::new(),
            failed: Tally::default(),
            node_fail: Tally::default(),
            node_days: 0.0,
            node_fail_per_node_day: None,
            failed_per_node_day: None,
            failed_with_fail_time: 0,
            failed_at_end: 0,
            fail_time_elsewhere: 0,
            duration_rows: 0,
            duration_is_run: 0,
            duration_is_queue_and_run: 0,
            gpu_time_rows: 0,
            gpu_time_is_duration_x_gpus: 0,
        };
        let same = |a: f64, b: f64| (a - b).abs() <= SAME_S;
        for j in &self.jobs {
            match s.states.iter_mut().find(|(state, _)| *state == j.state) {
                Some((_, t)) => t.add(j),
                None => {
                    let mut t = Tally::default();
                    t.add(j);
                    s.states.push((j.state.clone(), t));
                }
            }
            let failed = j.state == "FAILED";
            if failed {
                s.failed.add(j);
                if let Some(f) = j.fail_s {
                    s.failed_with_fail_time += 1;
                    s.failed_at_end += usize::from(j.end_s.is_some_and(|e| same(f, e)));
                }
            } else if j.fail_s.is_some() {
                s.fail_time_elsewhere += 1;
            }
            if j.state == "NODE_FAIL" {
                s.node_fail.add(j);
            }
            if let (Some(n), Some(r)) = (j.node_num, j.run_s()) {
                s.node_days += f64::from(n) * r.max(0.0) / DAY_S;
            }
            if let (Some(d), Some(sub), Some(start), Some(end)) =
                (j.duration_s, j.submit_s, j.start_s, j.end_s)
            {
                s.duration_rows += 1;
                s.duration_is_run += usize::from(same(d, end - start));
                s.duration_is_queue_and_run += usize::from(same(d, end - sub));
            }
            if let (Some(g), Some(d)) = (j.gpu_time, j.duration_s) {
                s.gpu_time_rows += 1;
                s.gpu_time_is_duration_x_gpus += usize::from(same(g, d * f64::from(j.gpu_num)));
            }
        }
        crate::order::sort_by(&mut s.states, |a, b| {
            b.1.jobs.cmp(&a.1.jobs).then_with(|| a.0.cmp(&b.0))
        });
        if s.node_days > 0.0 {
            s.node_fail_per_node_day = Some(s.node_fail.jobs as f64 / s.node_days);
            s.failed_per_node_day = Some(s.failed.jobs as f64 / s.node_days);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEREN: &str = "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n\
        1,u1,1,8,128,Pretrain,FAILED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:30+08:00,2023-03-01 00:10:30+08:00,600,30,4800.0\n\
        2,u2,2,16,128,SFT,NODE_FAIL,2023-03-01 00:01:00+08:00,2023-03-01 00:01:00+08:00,2023-03-02 00:01:00+08:00,86400,0,1382400.0\n\
        3,u1,0,0,4,CPU,COMPLETED,2023-03-01 00:02:00+08:00,2023-03-01 00:02:00+08:00,2023-03-01 00:03:00+08:00,60,0,\n\
        4,u3,1,1,8,Eval,RUNNING,2023-03-01 00:00:10+08:00,2023-03-01 00:00:20+08:00,,,10,\n\
        5,u3,1,2,8,Eval,COMPLETED,2023-02-28 23:59:00+08:00,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,0,60,0.0\n";

    #[test]
    fn seren_jobs_trace_and_summary() {
        let t = read_acme(SEREN, "s.csv").unwrap();
        assert_eq!(t.schema, AcmeSchema::Seren);
        assert_eq!((t.rows, t.cpu_jobs, t.jobs.len()), (5, 1, 4));
        let j = &t.jobs[0];
        assert_eq!(
            (j.node_num, j.gpu_num, j.run_s()),
            (Some(1), 8, Some(600.0))
        );
        assert_eq!(j.submit_s, Some(1_677_600_000.0));

        let trace = t.trace(&AcmeSampling::default()).unwrap();
        let got: Vec<_> = trace
            .jobs
            .iter()
            .map(|j| {
                (
                    j.job_type.as_str(),
                    j.arrival,
                    j.total_steps,
                    j.scale_factor,
                    j.entity(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("Pretrain", 0.0, 600.0, 8, "u1"),
                ("SFT", 60.0, 86400.0, 16, "u2")
            ]
        );
        let o = trace.origin.unwrap();
        assert_eq!(o.statuses, ["FAILED", "NODE_FAIL"]);
        let d: Vec<_> = o
            .dropped
            .iter()
            .map(|d| (d.reason.as_str(), d.rows))
            .collect();
        assert_eq!(
            d,
            [
                ("CPU jobs", 1),
                ("without a start or an end", 1),
                ("of no positive run time", 1)
            ]
        );

        let s = t.summary();
        assert_eq!(s.gpu_jobs, 4);
        let states: Vec<_> = s.states.iter().map(|(n, t)| (n.as_str(), t.jobs)).collect();
        assert_eq!(
            states,
            [
                ("COMPLETED", 1),
                ("FAILED", 1),
                ("NODE_FAIL", 1),
                ("RUNNING", 1)
            ]
        );
        assert_eq!(s.failed.gpu_s, 4800.0);
        assert_eq!(s.node_fail.gpu_s, 16.0 * 86400.0);
        assert_eq!(s.node_days, 600.0 / 86400.0 + 2.0);
        assert_eq!(s.node_fail_per_node_day, Some(1.0 / s.node_days));
        assert_eq!(
            (
                s.duration_rows,
                s.duration_is_run,
                s.duration_is_queue_and_run
            ),
            (3, 3, 1)
        );
        assert_eq!((s.gpu_time_rows, s.gpu_time_is_duration_x_gpus), (3, 3));
    }

    #[test]
    fn kalos_schema_from_its_columns() {
        let text = "state,gpu_num,submit_time,start_time,end_time,fail_time,duration,queue\n\
                    FAILED,8,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,18,10.0\n";
        let t = read_acme(text, "k").unwrap();
        assert_eq!(t.schema, AcmeSchema::Kalos);
        let s = t.summary();
        assert_eq!(
            (
                s.failed_at_end,
                s.duration_is_run,
                s.duration_is_queue_and_run
            ),
            (1, 0, 1)
        );
        assert_eq!(s.node_fail_per_node_day, None);
        let trace = t.trace(&AcmeSampling::default()).unwrap();
        assert_eq!(trace.jobs[0].total_steps, 8.0);
        assert_eq!(trace.jobs[0].job_type, "acme");
        assert_eq!(trace.jobs[0].entity, None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let h = "gpu_num,state,submit_time,start_time,end_time,node_num,queue\n";
        for (row, want) in [
            ("x,FAILED,,,,1,0\n", "a:2: field 'gpu_num': 'x' is not a number"),
            (",FAILED,,,,1,0\n", "a:2: field 'gpu_num': empty (a number is needed)"),
            ("1,FAILED,2023-13-01 00:00:00,,,1,0\n", "a:2: field 'submit_time': '2023-13-01 00:00:00' is not a date-time (YYYY-MM-DD HH:MM:SS, optionally with an offset such as +08:00)"),
            ("1,FAILED,,,,1.5,0\n", "a:2: field 'node_num': 1.5 is not a whole number"),
            ("1,FAILED,,,,1,-2\n", "a:2: field 'queue': -2 is negative"),
            ("1,FAILED,,,\n", "a:2: field 'row': expected 7 fields (as the header), found 5"),
        ] {
            let e = read_acme(&format!("{h}{row}"), "a").unwrap_err();
            assert_eq!(e.to_string(), want, "{row}");
        }
        let e = read_acme("gpu_num,state,submit_time,start_time\n", "a").unwrap_err();
        assert_eq!(e.to_string(), "a:1: field 'end_time': missing column");
        let e = read_acme(h, "a").unwrap_err();
        assert_eq!(e.to_string(), "a: the Acme job trace has no rows");
        let cpu = read_acme(&format!("{h}0,COMPLETED,,,,1,0\n"), "a").unwrap();
        assert_eq!(
            cpu.trace(&AcmeSampling::default()).unwrap_err().to_string(),
            "a: none of its 1 jobs can run: 1 CPU jobs"
        );
    }

    #[test]
    fn sampling_keeps_arrival_order() {
        let mut text = String::from("gpu_num,state,submit_time,start_time,end_time\n");
        for k in 0..100 {
            let m = k % 60;
            text.push_str(&format!(
                "1,COMPLETED,2023-03-01 0{}:{m:02}:00+08:00,2023-03-01 0{}:{m:02}:00+08:00,2023-03-01 0{}:{m:02}:30+08:00\n",
                k / 60, k / 60, k / 60
            ));
        }
        let t = read_acme(&text, "a").unwrap();
        let s = AcmeSampling {
            max_jobs: Some(10),
            seed: 5,
        };
        let a = t.trace(&s).unwrap();
        assert_eq!(a, t.trace(&s).unwrap());
        assert_eq!(a.jobs.len(), 10);
        assert_eq!(a.jobs[0].arrival, 0.0);
        assert!(a.lines.windows(2).all(|w| w[0] < w[1]));
        assert!(a.jobs.iter().all(|j| j.total_steps == 30.0));
        assert_ne!(
            a.lines,
            t.trace(&AcmeSampling { seed: 6, ..s }).unwrap().lines
        );
    }
}
