//! An experiment JSON (`--config`, the page's import) read and resolved: its cluster spec,
//! workload, profile, policy specs, trace filter and every inline file parsed and checked.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::experiment::Experiment;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = Experiment::from_json(text) {
        let _ = e.resolve();
    }
});
