//! A DL2 policy network's weights JSON (`orrery dl2 train`'s output, the page's download).
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::nn::Mlp;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Mlp::from_json(text);
});
