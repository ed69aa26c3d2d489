//! An inference pool's load curve (`time_s,servers` CSV, Aryl's experiments).
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::inference::LoadCurve;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = LoadCurve::parse_csv(text, "fuzz.csv");
});
