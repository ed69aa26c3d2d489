//! The share-link decoder: a link, its fragment or the fragment's payload (base64url of
//! deflated experiment JSON), then the experiment it carries resolved.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::experiment::Experiment;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = Experiment::from_link(text) {
        let _ = e.resolve();
    }
});
