//! A spot capacity trace: SkyPilot's JSON or Parcae's `time_ms,event,node` CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::model::spot::CapacityTrace;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = CapacityTrace::parse(text) {
        assert_eq!(t.removed.len(), t.steps.len());
        let _ = (t.at(0.0), t.at(t.end_s), t.decreases(), t.instance_hours());
        let _ = (t.removals(), t.kept_at(0.0), t.kept_at(t.end_s));
    }
});
