//! Helpers shared by the integration tests.

use orrery::workload::InlineFile;
use std::path::{Path, PathBuf};

/// Every file of each application sub-folder of `dir`, as a profile folder upload gives
/// them (paths relative to `dir`, sorted).
pub fn folder_files(dir: &Path) -> Vec<InlineFile> {
    let mut files = Vec::new();
    let mut apps: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    apps.sort();
    for app in apps.into_iter().filter(|p| p.is_dir()) {
        let mut fs: Vec<PathBuf> = std::fs::read_dir(&app)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        fs.sort();
        for f in fs {
            files.push(InlineFile {
                path: f.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                text: std::fs::read_to_string(&f).unwrap(),
            });
        }
    }
    files
}
