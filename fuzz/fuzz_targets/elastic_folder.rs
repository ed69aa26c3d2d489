//! The Pollux and Sia simulators' application folders. The input is the folder's files
//! separated by NUL bytes, each a path (`cifar10/placements.csv`), a newline and its text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orrery::workload::{Apps, InlineFile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let files: Vec<InlineFile> = text
        .split('\0')
        .map(|part| {
            let (path, text) = part.split_once('\n').unwrap_or((part, ""));
            InlineFile {
                path: path.to_string(),
                text: text.to_string(),
            }
        })
        .collect();
    let _ = Apps::from_pollux_files("fuzz", &files);
});
