//! Helpers shared by the integration tests (each test uses some of them).
#![allow(dead_code)]

use orrery::experiment::{Experiment, ProfileSource, WorkloadSource};
use orrery::workload::InlineFile;
use std::path::{Path, PathBuf};

/// `../shared/reference/<name>`, or None after a SKIPPED line saying that `what` is not
/// checked (a bare clone has no reference folder).
pub fn reference(name: &str, what: &str) -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference")
        .join(name);
    if d.is_dir() {
        Some(d)
    } else {
        println!(
            "SKIPPED: {} is absent (a bare clone); {what} not checked",
            d.display()
        );
        None
    }
}

/// Pearson's correlation of two equally long series.
pub fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Every file of each application sub-folder of `dir`, as a profile folder upload gives
/// them (paths relative to `dir`, sorted).
pub fn folder_files(dir: &Path) -> Vec<InlineFile> {
    let mut files = Vec::new();
    let mut apps: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    orrery::order::sort(&mut apps);
    for app in apps.into_iter().filter(|p| p.is_dir()) {
        let mut fs: Vec<PathBuf> = std::fs::read_dir(&app)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        orrery::order::sort(&mut fs);
        for f in fs {
            files.push(InlineFile {
                path: f.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                text: std::fs::read_to_string(&f).unwrap(),
            });
        }
    }
    files
}

/// An elastic experiment of the simulators' reference runs: the workload CSV `workload`,
/// the application folders in `traces`, Pollux's 60 s ticks and 30 s restarts, no rho.
pub fn folder_experiment(
    workload: &Path,
    traces: &Path,
    cluster: &str,
    policies: &[&str],
) -> Experiment {
    Experiment {
        cluster: cluster.into(),
        workload: WorkloadSource::Inline {
            name: workload
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            text: std::fs::read_to_string(workload).unwrap(),
        },
        profile: ProfileSource::Files {
            name: "traces".into(),
            files: folder_files(traces),
        },
        policies: policies.iter().map(|p| p.to_string()).collect(),
        round_s: 60.0,
        restart_cost_s: 30.0,
        fairness: false,
        ..Experiment::default()
    }
}

/// One job of `gpus` GPUs lasting `duration_s`, arriving at 0, on `cluster`, profile-free
/// under FIFO in rounds of `round_s` seconds, without rho.
pub fn one_job(
    cluster: &str,
    duration_s: u64,
    gpus: u32,
    round_s: f64,
) -> orrery::experiment::Experiment {
    orrery::experiment::Experiment {
        cluster: cluster.into(),
        workload: orrery::experiment::WorkloadSource::Inline {
            name: "one.csv".into(),
            text: format!("timestamp,duration,num_gpus\n0,{duration_s},{gpus}\n"),
        },
        profile: orrery::experiment::ProfileSource::ProfileFree,
        policies: vec!["fifo".into()],
        fairness: false,
        round_s,
        ..orrery::experiment::scenarios::default_experiment()
    }
}
