//! The Alibaba PAI importer. The input is one byte of sampling settings, then the job
//! table, a NUL byte and the task table.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::pai::{read_pai, PaiSampling};

fuzz_target!(|data: &[u8]| {
    let Some((&settings, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (jobs, tasks) = text.split_once('\0').unwrap_or((text, ""));
    let sampling = PaiSampling {
        max_jobs: 1 + usize::from(settings >> 3) * 8,
        seed: u64::from(settings),
        only_terminated: settings & 1 == 1,
        elastic_fraction: f64::from((settings >> 1) & 3) / 3.0,
    };
    let _ = read_pai(
        (jobs, "pai_job_table.csv"),
        (tasks, "pai_task_table.csv"),
        &sampling,
    );
});
