//! Alibaba's spot GPU trace: one byte of sampling settings, then the node table, a NUL
//! byte and the job table. The node table's cluster, the jobs read against it, and their
//! profile checked against both.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::alibaba_spot::{profile, read_jobs, read_nodes, JobSampling};

fuzz_target!(|data: &[u8]| {
    let Some((&settings, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (nodes, jobs) = text.split_once('\0').unwrap_or((text, ""));
    let sampling = JobSampling {
        max_jobs: (settings & 1 == 1).then_some(usize::from(settings >> 1)),
        seed: u64::from(settings),
    };
    let cluster = read_nodes(nodes, "node_info_df.csv").and_then(|t| t.cluster());
    let cluster = cluster.ok();
    if let Ok(t) = read_jobs(jobs, "job_info_df.csv", cluster.as_ref(), &sampling) {
        assert!(!t.trace.jobs.is_empty());
        let p = profile(&t.trace);
        if let Some(c) = &cluster {
            let _ = t.trace.check_against(&p, c);
        }
    }
});
