//! DL2's profile folder (Peng et al., TPDS 2021; its simulator's repository): `models.csv`
//! (the job types and their tasks' demands) and `speed_function.csv` (the measured speed
//! of every count of parameter servers and workers). Read as a parameter-server profile
//! ([`PsModels`] whose types carry a [`SpeedTable`]), with DL2's workload CSV
//! ([`super::dl2_trace`]) it replays DL2's experiments in the slot mechanism's
//! DL2-compatible mode.
//!
//! Units: DL2 counts a node as 8 CPU slots and 8 GPU slots, and a GPU as 4 GPU slots (a
//! comment of its trace generator). A worker of `worker_gpu_slots` 4 takes one GPU, of 0
//! none (a CPU-only worker); a CPU slot is one CPU. A job's work is its number of epochs,
//! and the table's speeds (samples per second) over the type's `epoch_size` are epochs per
//! second, as DL2's simulator computes progress.

use super::csv::Records;
use super::dl2_trace::{cell, Header};
use super::ps::{Hardware, PsModel, PsModels, SpeedTable};
use super::{parse_count, parse_nonneg, InlineFile, WorkloadError};
use std::collections::BTreeMap;

/// GPU slots per GPU in DL2's units.
pub const GPU_SLOTS_PER_GPU: u32 = 4;

/// The files of a DL2 profile folder.
pub const PROFILE_FILES: [&str; 2] = ["models.csv", "speed_function.csv"];

/// Which of [`PROFILE_FILES`] a folder's file is: at the folder's top, or in the one folder
/// a page's folder upload names (`dl2/models.csv`).
fn profile_file(path: &str) -> Option<&'static str> {
    let top = match path.split_once('/') {
        Some((_, rest)) if !rest.contains('/') => rest,
        Some(_) => return None,
        None => path,
    };
    PROFILE_FILES.into_iter().find(|f| *f == top)
}

/// Whether a folder's files are a DL2 profile (both [`PROFILE_FILES`] at its top).
pub fn is_profile_folder(files: &[InlineFile]) -> bool {
    PROFILE_FILES
        .iter()
        .all(|f| files.iter().any(|x| profile_file(&x.path) == Some(f)))
}

/// The files of a DL2 profile folder that its profile needs, by their names (the others
/// are left out, so a link carries only these).
pub fn profile_files(files: Vec<InlineFile>) -> Vec<InlineFile> {
    files
        .into_iter()
        .filter_map(|f| {
            profile_file(&f.path).map(|p| InlineFile {
                path: p.to_string(),
                text: f.text,
            })
        })
        .collect()
}

/// A job type's row of `models.csv`.
struct TypeRow {
    name: String,
    epoch_size: f64,
    epochs: f64,
    worker_cpus: u32,
    worker_gpus: u32,
    ps_cpus: u32,
    model_mb: f64,
}

fn whole(file: &str, line: usize, field: &str, text: &str) -> Result<u32, WorkloadError> {
    let v = parse_nonneg(file, line, field, text)?;
    if v.fract() != 0.0 || v > 1024.0 {
        return Err(WorkloadError::field(
            file,
            line,
            field,
            format!("{v} is not a whole number from 0 to 1,024"),
        ));
    }
    Ok(v as u32)
}

fn read_types(folder: &str, text: &str) -> Result<Vec<TypeRow>, WorkloadError> {
    let file = format!("{folder}/models.csv");
    let mut records = Records::new(text, ',');
    let (_, first) = records
        .next_record()
        .ok_or_else(|| WorkloadError::file(&file, "the file is empty"))?;
    let h = Header::new(&file, first);
    let mut out: Vec<TypeRow> = Vec::new();
    while let Some((line, rec)) = records.next_record() {
        let get = |name: &str| cell(&h, line, rec, name);
        let name = get("model")?.to_string();
        if name.is_empty() || out.iter().any(|t| t.name == name) {
            return Err(WorkloadError::field(
                &file,
                line,
                "model",
                format!("'{name}' is empty or listed twice"),
            ));
        }
        let epoch_size = parse_nonneg(&file, line, "epoch_size", get("epoch_size")?)?;
        if epoch_size <= 0.0 {
            return Err(WorkloadError::field(
                &file,
                line,
                "epoch_size",
                "must be positive",
            ));
        }
        let worker_gpu_slots = whole(&file, line, "worker_gpu_slots", get("worker_gpu_slots")?)?;
        if worker_gpu_slots % GPU_SLOTS_PER_GPU != 0 {
            return Err(WorkloadError::field(
                &file,
                line,
                "worker_gpu_slots",
                format!("{worker_gpu_slots} is not whole GPUs of {GPU_SLOTS_PER_GPU} slots"),
            ));
        }
        if whole(&file, line, "ps_gpu_slots", get("ps_gpu_slots")?)? != 0 {
            return Err(WorkloadError::field(
                &file,
                line,
                "ps_gpu_slots",
                "parameter servers on GPUs are not modelled (DL2's take none)",
            ));
        }
        let worker_cpus = whole(&file, line, "worker_cpu_slots", get("worker_cpu_slots")?)?;
        let ps_cpus = whole(&file, line, "ps_cpu_slots", get("ps_cpu_slots")?)?;
        if ps_cpus == 0 || (worker_cpus == 0 && worker_gpu_slots == 0) {
            return Err(WorkloadError::field(
                &file,
                line,
                "ps_cpu_slots",
                "a parameter server and a worker must each take some slots",
            ));
        }
        let epochs = match h
            .index
            .get("num_epochs_large_base")
            .and_then(|&i| rec.get(i))
        {
            Some(t) => parse_nonneg(&file, line, "num_epochs_large_base", t)?,
            None => 1.0,
        };
        let model_mb = match h.index.get("model_size_mb").and_then(|&i| rec.get(i)) {
            Some(t) => parse_nonneg(&file, line, "model_size_mb", t)?,
            None => 0.0,
        };
        out.push(TypeRow {
            name,
            epoch_size,
            epochs: epochs.max(1.0),
            worker_cpus,
            worker_gpus: worker_gpu_slots / GPU_SLOTS_PER_GPU,
            ps_cpus,
            model_mb,
        });
    }
    if out.is_empty() {
        return Err(WorkloadError::file(&file, "no job types"));
    }
    Ok(out)
}

/// Each type's largest count and its speeds by (parameter servers, workers).
type Speeds = BTreeMap<String, (u32, BTreeMap<(u32, u32), f64>)>;

/// Each type's speeds by (parameter servers, workers), and the largest count.
fn read_speeds(folder: &str, text: &str) -> Result<Speeds, WorkloadError> {
    let file = format!("{folder}/speed_function.csv");
    let mut records = Records::new(text, ',');
    let (_, first) = records
        .next_record()
        .ok_or_else(|| WorkloadError::file(&file, "the file is empty"))?;
    let h = Header::new(&file, first);
    let mut out = Speeds::new();
    while let Some((line, rec)) = records.next_record() {
        let get = |name: &str| cell(&h, line, rec, name);
        let model = get("model")?.to_string();
        let p = parse_count(&file, line, "num_ps", get("num_ps")?)?;
        let w = parse_count(&file, line, "num_workers", get("num_workers")?)?;
        if p > 1024 || w > 1024 {
            return Err(WorkloadError::field(
                &file,
                line,
                "num_ps",
                "counts above 1,024",
            ));
        }
        let t = get("speed")?;
        let v: f64 = t
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                WorkloadError::field(&file, line, "speed", format!("'{t}' is not a number"))
            })?;
        let e = out.entry(model).or_default();
        e.0 = e.0.max(p).max(w);
        if e.1.insert((p, w), v).is_some() {
            return Err(WorkloadError::field(
                &file,
                line,
                "num_workers",
                format!("({p}, {w}) is listed twice"),
            ));
        }
    }
    Ok(out)
}

/// A DL2 profile folder's job types, each with its speed table.
pub fn read_profile(folder: &str, files: &[InlineFile]) -> Result<PsModels, WorkloadError> {
    let text = |name: &str| {
        files
            .iter()
            .find(|f| profile_file(&f.path) == Some(name))
            .map(|f| f.text.as_str())
            .ok_or_else(|| WorkloadError::file(folder, format!("a DL2 profile needs {name}")))
    };
    let types = read_types(folder, text("models.csv")?)?;
    let mut speeds = read_speeds(folder, text("speed_function.csv")?)?;
    let file = format!("{folder}/speed_function.csv");
    let mut models = Vec::with_capacity(types.len());
    for t in types {
        let Some((max, grid)) = speeds.remove(&t.name) else {
            return Err(WorkloadError::file(
                &file,
                format!("no speeds of '{}'", t.name),
            ));
        };
        let mut values = Vec::with_capacity((max * max) as usize);
        for p in 1..=max {
            for w in 1..=max {
                let v = grid.get(&(p, w)).copied().ok_or_else(|| {
                    WorkloadError::file(
                        &file,
                        format!("'{}' has no speed at {p} parameter servers and {w} workers (every count from 1 to {max} is needed)", t.name),
                    )
                })?;
                values.push(v);
            }
        }
        models.push(PsModel {
            name: t.name,
            params_m: t.model_mb / 4.0,
            gflops_per_sample: 0.0,
            batch: 1,
            dataset: 1.0,
            epochs: [t.epochs, t.epochs],
            worker_gpus: t.worker_gpus,
            worker_cpus: t.worker_cpus,
            ps_cpus: t.ps_cpus,
            source: "DL2's simulator: speed measured in its repository (config_speed.txt), its interpolation tabulated".into(),
            compute_s: 0.0,
            model_gb: t.model_mb / 1000.0,
            worker_gbs: 0.0,
            ps_gbs: 0.0,
            step_overhead_s: 0.0,
            sync_s_per_worker: 0.0,
            table: Some(SpeedTable {
                max,
                epoch_size: t.epoch_size,
                values,
            }),
        });
    }
    if let Some(extra) = speeds.keys().next() {
        return Err(WorkloadError::file(
            &file,
            format!("'{extra}' is not a job type of models.csv"),
        ));
    }
    Ok(PsModels {
        name: folder.to_string(),
        hardware: Hardware {
            gpu_tflops: 1.0,
            gpu_efficiency: 1.0,
            worker_gbps: 0.0,
            ps_gbps: 0.0,
            step_overhead_s: 0.0,
            sync_s_per_worker: 0.0,
            source: "DL2's measured speeds: the GPU type does not change them".into(),
            gpu_types: BTreeMap::new(),
        },
        models,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODELS: &str = "\
type,model,epoch_size,epochs_fraction,num_epochs_large_base,num_epochs_testbed,worker_cpu_slots,worker_gpu_slots,ps_cpu_slots,ps_gpu_slots,local_comp_time_s,model_size_mb,inter_bw_mbps,intra_bw_mbps
1,a,100,0.3,9000,300,2,4,2,0,0.4,100,90,300
2,b,50,0.5,15000,500,2,0,2,0,0.5,20,60,150
";

    fn speeds(extra: &str) -> String {
        let mut s = String::from("model,num_ps,num_workers,speed,measured\n");
        for m in ["a", "b"] {
            for p in 1..=2 {
                for w in 1..=2 {
                    s.push_str(&format!("{m},{p},{w},{},1\n", 10 * p + w));
                }
            }
        }
        s.push_str(extra);
        s
    }

    fn files(speed: String) -> Vec<InlineFile> {
        vec![
            InlineFile {
                path: "models.csv".into(),
                text: MODELS.into(),
            },
            InlineFile {
                path: "speed_function.csv".into(),
                text: speed,
            },
            InlineFile {
                path: "results/x.csv".into(),
                text: "not needed".into(),
            },
        ]
    }

    #[test]
    fn the_profile_folder_gives_types_with_their_demands_and_tables() {
        let f = files(speeds(""));
        assert!(is_profile_folder(&f));
        assert_eq!(profile_files(f.clone()).len(), 2);
        // As a page's folder upload names them.
        let named: Vec<InlineFile> = f
            .iter()
            .map(|x| InlineFile {
                path: format!("dl2/{}", x.path),
                text: x.text.clone(),
            })
            .collect();
        assert!(is_profile_folder(&named));
        assert_eq!(profile_files(named.clone())[1].path, "speed_function.csv");
        assert_eq!(read_profile("dl2", &named).unwrap().models.len(), 2);
        let m = read_profile("dl2", &f).unwrap();
        assert_eq!(m.names(), vec!["a", "b"]);
        let (a, b) = (&m.models[0], &m.models[1]);
        assert_eq!((a.worker_gpus, a.worker_cpus, a.ps_cpus), (1, 2, 2));
        assert_eq!((b.worker_gpus, b.worker_cpus, b.ps_cpus), (0, 2, 2));
        assert_eq!(a.steps_per_epoch(), 1.0);
        // 2 parameter servers and 1 worker: 21 samples/s over 100 samples per epoch.
        assert_eq!(a.speed(1, 2), 21.0 / 100.0);
        assert_eq!(b.speed(2, 1), 12.0 / 50.0);
        // Beyond the table: its edge; none of either role: no progress.
        assert_eq!(a.speed(9, 9), 22.0 / 100.0);
        assert_eq!(a.speed(0, 2), 0.0);
    }

    #[test]
    fn a_gap_or_an_unknown_type_in_the_speeds_is_named() {
        let gap = speeds("").replace("a,2,2,22,1\n", "");
        let e = read_profile("dl2", &files(gap)).unwrap_err().to_string();
        assert!(
            e.contains("'a' has no speed at 2 parameter servers and 2 workers"),
            "{e}"
        );
        let e = read_profile("dl2", &files(speeds("c,1,1,3,1\n")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("'c' is not a job type"), "{e}");
        let no_speeds = vec![files(speeds("")).remove(0)];
        assert!(!is_profile_folder(&no_speeds));
    }
}
