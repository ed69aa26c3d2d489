//! Acme's Seren or Kalos job table: one byte of sampling settings, then the table. Its
//! failure summary and the trace of its GPU jobs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::acme::{read_acme, AcmeSampling};

fuzz_target!(|data: &[u8]| {
    let Some((&settings, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let sampling = AcmeSampling {
        max_jobs: (settings & 1 == 1).then_some(usize::from(settings >> 1)),
        seed: u64::from(settings),
    };
    if let Ok(t) = read_acme(text, "trace_kalos.csv") {
        let _ = t.summary();
        if let Ok(trace) = t.trace(&sampling) {
            assert!(!trace.jobs.is_empty());
        }
    }
});
