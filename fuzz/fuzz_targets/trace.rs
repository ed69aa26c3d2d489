//! Every trace format `--trace` and the page's upload read, through the content-detecting
//! entry point: Orrery CSV and JSON, Gavel's `.trace`, the Pollux workload CSV, Philly's job
//! log JSON, Helios and Acme job tables, Sia's Philly CSV. A trace that reads is also
//! summarised and written back out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::{Trace, TraceStats};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Trace::is_timed_text(text);
    if let Ok(trace) = Trace::parse(text, "fuzz.trace") {
        let _ = TraceStats::of(&trace);
        let _ = trace.to_csv();
        let _ = trace.to_json();
    }
});
