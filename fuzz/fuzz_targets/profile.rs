//! Throughput profiles of every family: Gavel's and Orrery's profile JSON, Orrery's elastic
//! applications JSON (Pollux, Sia) and the parameter-server models JSON (DL2).
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::{Apps, Profile, PsModels};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Profile::parse(text, "fuzz.json");
    let _ = Apps::is_apps_json(text);
    let _ = Apps::from_json(text, "fuzz.json");
    let _ = PsModels::is_ps_json(text);
    let _ = PsModels::from_json(text, "fuzz.json");
});
