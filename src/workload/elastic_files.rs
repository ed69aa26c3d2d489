//! Reading elastic applications: the Pollux and Sia simulators' application folders
//! (`placements[-<type>].csv`, `scalability[-<type>].csv`, `validation-<batch>.csv`, an
//! optional `app.json`) and Orrery's own JSON of modelled applications.

use super::csv::records;
use super::elastic::{
    AppModel, Apps, BatchRows, ElasticApp, MeasuredApp, ModelledApp, ShapeRows, StepTable,
    ValidationRow,
};
use super::{parse_nonneg, WorkloadError};
use crate::model::interp::LinearNd;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Settings the Pollux simulator gives each of its applications in code rather than in
/// its data folders: epochs to train, and the few special cases.
type AppDefault = (&'static str, u32, Option<u32>, Option<u32>, Option<u32>);

const POLLUX_APP_DEFAULTS: &[AppDefault] = &[
    // (name, epochs, max local batch override, fixed batch size, max replicas)
    ("bert", 2, None, None, None),
    ("cifar10", 100, None, None, None),
    ("deepspeech2", 80, None, None, None),
    ("imagenet", 90, None, None, None),
    ("ncf", 10, None, Some(32768), Some(1)),
    ("yolov3", 50, Some(8), None, None),
];

/// What Sia's simulator gives each of its applications in code: how many times longer each
/// step takes than measured (its SLOWDOWN) and the restart delay it simulates (s). They
/// apply to applications read from Sia's folders (per-type `placements-<type>.csv`);
/// an `app.json` or the experiment's settings override them.
const SIA_APP_DEFAULTS: &[(&str, f64, f64)] = &[
    // (name, slowdown, restart delay)
    ("bert", 1.2, 120.0),
    ("cifar10", 1.8, 50.0),
    ("deepspeech2", 1.2, 25.0),
    ("imagenet", 1.2, 250.0),
    ("ncf", 1.5, 15.0),
    ("yolov3", 1.2, 80.0),
];

/// Per-application settings of a folder's optional `app.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AppSettings {
    max_epochs: Option<u32>,
    max_local_bsz: Option<u32>,
    fixed_batch_size: Option<u32>,
    max_replicas: Option<u32>,
    slowdown: Option<f64>,
    restart_s: Option<f64>,
}

/// A file of a profile folder: its path (for messages and to find the application it
/// belongs to) and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlineFile {
    /// Path relative to the folder the user chose, e.g. `cifar10/placements.csv`.
    pub path: String,
    /// Contents.
    pub text: String,
}

fn header_index(
    file: &str,
    line: usize,
    header: &[String],
    name: &str,
) -> Result<usize, WorkloadError> {
    header
        .iter()
        .position(|h| h.trim() == name)
        .ok_or_else(|| WorkloadError::field(file, line, name, "missing column"))
}

fn num(
    file: &str,
    line: usize,
    field: &str,
    fields: &[String],
    i: usize,
) -> Result<f64, WorkloadError> {
    let text = fields
        .get(i)
        .ok_or_else(|| WorkloadError::field(file, line, field, "missing value"))?;
    parse_nonneg(file, line, field, text)
}

fn parse_validation(file: &str, text: &str) -> Result<Vec<ValidationRow>, WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty validation file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cp, ci, cs, cv) = (
        col("progress")?,
        col("iteration")?,
        col("grad_sqr")?,
        col("grad_var")?,
    );
    let mut rows = Vec::new();
    for r in &recs[1..] {
        rows.push(ValidationRow {
            progress: num(file, r.line, "progress", &r.fields, cp)?,
            iteration: num(file, r.line, "iteration", &r.fields, ci)?,
            grad_sqr: num(file, r.line, "grad_sqr", &r.fields, cs)?,
            grad_var: num(file, r.line, "grad_var", &r.fields, cv)?,
        });
    }
    if rows.is_empty() {
        return Err(WorkloadError::file(file, "no epochs"));
    }
    Ok(rows)
}

type Measurement = ([i64; 3], [f64; 2]);

fn parse_placements(
    file: &str,
    text: &str,
) -> Result<(ShapeRows, Vec<Measurement>), WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty placements file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cp, cb, cs, cy) = (
        col("placement")?,
        col("local_bsz")?,
        col("step_time")?,
        col("sync_time")?,
    );
    let mut by_shape: BTreeMap<Vec<u32>, Vec<[f64; 3]>> = BTreeMap::new();
    // Mean over placements sharing (nodes, replicas, local batch), as a grouped mean.
    let mut groups: BTreeMap<[i64; 3], (f64, f64, f64)> = BTreeMap::new();
    for r in &recs[1..] {
        let p = r.fields.get(cp).map(|s| s.trim()).unwrap_or("");
        let digits: Option<Vec<u32>> = p.chars().map(|c| c.to_digit(10)).collect();
        let digits = match digits {
            Some(d) if !d.is_empty() && d.iter().all(|&g| g > 0) => d,
            _ => {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    "placement",
                    format!("'{p}' is not a placement (digits 1-9, GPUs per node)"),
                ))
            }
        };
        let b = num(file, r.line, "local_bsz", &r.fields, cb)?;
        let step = num(file, r.line, "step_time", &r.fields, cs)?;
        let sync = num(file, r.line, "sync_time", &r.fields, cy)?;
        let key = [
            digits.len() as i64,
            digits.iter().map(|&d| i64::from(d)).sum(),
            b as i64,
        ];
        let g = groups.entry(key).or_insert((0.0, 0.0, 0.0));
        g.0 += step;
        g.1 += sync;
        g.2 += 1.0;
        // Keyed as written: lookups use the smallest rotation, so rows of a shape written
        // in another rotation are not found by them (as in Pollux's simulator).
        by_shape.entry(digits).or_default().push([b, step, sync]);
    }
    for rows in by_shape.values_mut() {
        crate::order::sort_by(rows, |a, b| a[0].total_cmp(&b[0]));
    }
    let points = groups
        .into_iter()
        .map(|(k, (s, y, n))| (k, [s / n, y / n]))
        .collect();
    Ok((by_shape, points))
}

fn parse_scalability(file: &str, text: &str) -> Result<Vec<Measurement>, WorkloadError> {
    let recs = records(text, ',');
    let header = recs
        .first()
        .ok_or_else(|| WorkloadError::file(file, "empty scalability file"))?;
    let col = |n: &str| header_index(file, header.line, &header.fields, n);
    let (cn, cr, cb, cs, cy) = (
        col("num_nodes")?,
        col("num_replicas")?,
        col("local_bsz")?,
        col("step_time")?,
        col("sync_time")?,
    );
    let mut out = Vec::new();
    for r in &recs[1..] {
        let n = num(file, r.line, "num_nodes", &r.fields, cn)?;
        let k = num(file, r.line, "num_replicas", &r.fields, cr)?;
        let b = num(file, r.line, "local_bsz", &r.fields, cb)?;
        let step = num(file, r.line, "step_time", &r.fields, cs)?;
        let sync = num(file, r.line, "sync_time", &r.fields, cy)?;
        out.push(([n as i64, k as i64, b as i64], [step, sync]));
    }
    Ok(out)
}

/// The file name part of a path.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The folder (application) a file belongs to.
fn parent_name(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']);
    parts.next();
    parts.next().filter(|p| !p.is_empty())
}

impl Apps {
    /// Read applications from the Pollux or Sia simulator's folders: one folder per
    /// application with `placements.csv`, `scalability.csv` (optional) and
    /// `validation-<batch>.csv` files, per GPU type `placements-<type>.csv` and
    /// `scalability-<type>.csv` (Sia's), and optionally an `app.json` with `max_epochs`,
    /// `max_local_bsz`, `fixed_batch_size` and `max_replicas`. `name` is the folder the
    /// user chose.
    pub fn from_pollux_files(name: &str, files: &[InlineFile]) -> Result<Self, WorkloadError> {
        let mut grouped: BTreeMap<&str, Vec<&InlineFile>> = BTreeMap::new();
        for f in files {
            if let Some(app) = parent_name(&f.path) {
                grouped.entry(app).or_default().push(f);
            }
        }
        let mut apps = Vec::new();
        let mut unread = Vec::new();
        for (app, files) in grouped {
            if !files
                .iter()
                .any(|f| step_file(base_name(&f.path), "placements").is_some())
            {
                continue;
            }
            match read_measured_app(app, &files)? {
                Ok(a) => apps.push(a),
                Err(reason) => unread.push((app.to_string(), reason)),
            }
        }
        if apps.is_empty() {
            return Err(WorkloadError::file(
                name,
                "no application folders (a folder per application with placements[-<type>].csv and validation-<batch>.csv)",
            ));
        }
        Ok(Apps { apps, unread })
    }

    /// Read Orrery's own JSON of modelled applications (`"format": "orrery-elastic-apps"`).
    pub fn from_json(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let f: AppsFile = serde_json::from_str(text)
            .map_err(|e| WorkloadError::field(file, e.line(), "json", e.to_string()))?;
        if f.format != "orrery-elastic-apps" {
            return Err(WorkloadError::file(
                file,
                format!("format '{}' is not orrery-elastic-apps", f.format),
            ));
        }
        for (t, v) in &f.gpu_types {
            if t.is_empty() || !(v.compute.is_finite() && v.compute > 0.0 && v.compute <= 1000.0) {
                return Err(WorkloadError::file(
                    file,
                    format!("gpu_types '{t}': compute must be a positive number (at most 1000) and the name non-empty"),
                ));
            }
        }
        let mut apps = Vec::new();
        for (name, mut a) in f.apps {
            let bad = |field: &str, reason: &str| {
                Err(WorkloadError::file(
                    file,
                    format!("app '{name}': {field}: {reason}"),
                ))
            };
            if a.init_batch_size == 0 || a.max_batch_size < a.init_batch_size {
                return bad("max_batch_size", "must be at least init_batch_size (> 0)");
            }
            if a.min_local_bsz == 0 || a.max_local_bsz < a.min_local_bsz {
                return bad("max_local_bsz", "must be at least min_local_bsz (> 0)");
            }
            if a.max_epochs == 0 {
                return bad("max_epochs", "must be at least 1");
            }
            if !(a.model.dataset_size.is_finite() && a.model.dataset_size > 0.0) {
                return bad("dataset_size", "must be a positive number");
            }
            if a.max_epochs > 100_000 {
                return bad("max_epochs", "at most 100,000");
            }
            if a.max_replicas == Some(0) {
                return bad("max_replicas", "must be at least 1");
            }
            if a.fixed_batch_size
                .is_some_and(|b| b < a.init_batch_size || b > a.max_batch_size)
            {
                return bad("fixed_batch_size", "must be within the batch range");
            }
            for &[g, b] in &a.user_configs {
                if g == 0 || b < a.init_batch_size || b > a.max_batch_size {
                    return bad(
                        "user_configs",
                        "each is [GPUs >= 1, batch within the batch range]",
                    );
                }
            }
            if !a
                .model
                .noise_scale
                .iter()
                .all(|v| v.is_finite() && *v > 0.0)
            {
                return bad("noise_scale", "must be two positive numbers");
            }
            let p = a.model.perf;
            let ps = [
                p.alpha_c, p.beta_c, p.alpha_n, p.beta_n, p.alpha_r, p.beta_r,
            ];
            if !(ps.iter().all(|v| v.is_finite() && *v > 0.0) && p.gamma >= 1.0 && p.gamma <= 10.0)
            {
                return bad(
                    "perf",
                    "alphas and betas must be positive, gamma in [1, 10]",
                );
            }
            a.model.types = f
                .gpu_types
                .iter()
                .map(|(t, v)| {
                    let mut perf = a.model.perf;
                    perf.alpha_c /= v.compute;
                    perf.beta_c /= v.compute;
                    (t.clone(), perf)
                })
                .collect();
            apps.push(ElasticApp {
                name,
                init_batch_size: a.init_batch_size,
                max_batch_size: a.max_batch_size,
                min_local_bsz: a.min_local_bsz,
                max_local_bsz: a.max_local_bsz,
                max_epochs: a.max_epochs,
                fixed_batch_size: a.fixed_batch_size,
                max_replicas: a.max_replicas,
                model: AppModel::Modelled(a.model),
                source: a.source,
                user_configs: a.user_configs,
                slowdown: 1.0,
                restart_s: None,
            });
        }
        if apps.is_empty() {
            return Err(WorkloadError::file(file, "no applications"));
        }
        Ok(Apps {
            apps,
            unread: Vec::new(),
        })
    }

    /// Whether `text` looks like Orrery's elastic-applications JSON.
    pub fn is_apps_json(text: &str) -> bool {
        let t = text.trim_start();
        t.starts_with('{') && t.contains("\"orrery-elastic-apps\"")
    }
}

#[derive(Debug, Deserialize)]
struct AppsFile {
    format: String,
    #[allow(dead_code)]
    #[serde(default)]
    version: u32,
    apps: BTreeMap<String, AppEntry>,
    /// Speeds of named GPU types relative to the one the applications' `perf` describes.
    #[serde(default)]
    gpu_types: BTreeMap<String, TypeSpeed>,
}

/// A GPU type's speed relative to the type the applications' `perf` parameters describe.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TypeSpeed {
    /// Compute speed: per-step compute time (`alpha_c`, `beta_c`) is divided by it.
    compute: f64,
    /// Where the estimate comes from, for people.
    #[serde(default)]
    #[allow(dead_code)]
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AppEntry {
    init_batch_size: u32,
    max_batch_size: u32,
    min_local_bsz: u32,
    max_local_bsz: u32,
    max_epochs: u32,
    #[serde(default)]
    fixed_batch_size: Option<u32>,
    #[serde(default)]
    max_replicas: Option<u32>,
    #[serde(flatten)]
    model: ModelledApp,
    #[serde(default)]
    source: String,
    #[serde(default)]
    user_configs: Vec<[u32; 2]>,
}

/// The GPU type a step-time file is of: `Some("")` for `<kind>.csv`, `Some(t)` for
/// `<kind>-<t>.csv`, None for other files.
fn step_file<'a>(base: &'a str, kind: &str) -> Option<&'a str> {
    let rest = base.strip_prefix(kind)?.strip_suffix(".csv")?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('-').filter(|t| !t.is_empty())
    }
}

/// Smallest and largest per-GPU batch of a table's rows.
fn local_span(rows: &ShapeRows) -> (f64, f64) {
    rows.values()
        .flatten()
        .map(|r| r[0])
        .fold((f64::INFINITY, 0.0), |(lo, hi), b| (lo.min(b), hi.max(b)))
}

/// An application folder read: the application, or why it is left out (a reason that only
/// matters if a job runs it).
type ReadApp = Result<Result<ElasticApp, String>, WorkloadError>;

fn read_measured_app(app: &str, files: &[&InlineFile]) -> ReadApp {
    let mut validation: Vec<BatchRows> = Vec::new();
    let mut placements: BTreeMap<String, (ShapeRows, Vec<Measurement>)> = BTreeMap::new();
    let mut scal: BTreeMap<String, Vec<Measurement>> = BTreeMap::new();
    let mut settings = AppSettings::default();
    for f in files {
        let base = base_name(&f.path);
        if let Some(t) = step_file(base, "placements") {
            placements.insert(t.to_string(), parse_placements(&f.path, &f.text)?);
        } else if let Some(t) = step_file(base, "scalability") {
            scal.insert(t.to_string(), parse_scalability(&f.path, &f.text)?);
        } else if base == "app.json" {
            settings = serde_json::from_str(&f.text)
                .map_err(|e| WorkloadError::field(&f.path, e.line(), "json", e.to_string()))?;
        } else if let Some(b) = base
            .strip_prefix("validation-")
            .and_then(|s| s.strip_suffix(".csv"))
        {
            let batch: u32 = b.parse().ok().filter(|&v| v > 0).ok_or_else(|| {
                WorkloadError::file(
                    &f.path,
                    "the batch size in the name is not a positive whole number",
                )
            })?;
            validation.push((batch, parse_validation(&f.path, &f.text)?));
        }
    }
    let folder = format!("{app}/");
    if placements.is_empty() {
        return Err(WorkloadError::file(&folder, "placements.csv is missing"));
    }
    if let Some(t) = scal.keys().find(|t| !placements.contains_key(*t)) {
        let name = if t.is_empty() {
            "scalability.csv".to_string()
        } else {
            format!("scalability-{t}.csv")
        };
        return Err(WorkloadError::file(
            &format!("{folder}{name}"),
            "has no placements file of its GPU type beside it",
        ));
    }
    if validation.is_empty() {
        return Err(WorkloadError::file(
            &folder,
            "no validation-<batch>.csv files",
        ));
    }
    crate::order::sort_by_key(&mut validation, |v| v.0);
    let mut tables = BTreeMap::new();
    for (t, (by_shape, mut points)) in placements {
        let file = if t.is_empty() {
            format!("{folder}placements.csv")
        } else {
            format!("{folder}placements-{t}.csv")
        };
        let (lo, hi) = local_span(&by_shape);
        if !lo.is_finite() {
            return Err(WorkloadError::file(&file, "no measurements"));
        }
        if lo < 1.0 {
            return Err(WorkloadError::file(&file, "local_bsz must be at least 1"));
        }
        points.extend(scal.remove(&t).unwrap_or_default());
        let max_nodes = points
            .iter()
            .map(|(k, _)| k[0].clamp(0, i64::from(u32::MAX)) as u32)
            .max()
            .unwrap_or(1);
        let mut max_local_at: BTreeMap<u32, u32> = BTreeMap::new();
        for (k, _) in &points {
            let clamp = |v: i64| v.clamp(0, i64::from(u32::MAX)) as u32;
            let e = max_local_at.entry(clamp(k[1])).or_insert(0);
            *e = (*e).max(clamp(k[2]));
        }
        let (pts, vals): (Vec<[i64; 3]>, Vec<[f64; 2]>) = points.into_iter().unzip();
        let nd = LinearNd::new(&pts, &vals).ok();
        tables.insert(
            t,
            StepTable {
                placements: by_shape,
                nd,
                local: (lo as u32, hi as u32),
                max_nodes,
                max_local_at,
            },
        );
    }
    // The application's own range: that of placements.csv, else of its first named type.
    let Some(first) = tables.get("").or_else(|| tables.values().next()) else {
        return Err(WorkloadError::file(&folder, "placements.csv is missing"));
    };
    let (min_local, max_local) = (f64::from(first.local.0), f64::from(first.local.1));
    let epochs = validation.iter().map(|v| v.1.len()).min().unwrap_or(0);
    let milestones: Vec<f64> = (0..epochs)
        .map(|e| {
            validation
                .iter()
                .map(|v| v.1[e].progress)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let defaults = POLLUX_APP_DEFAULTS.iter().find(|d| d.0 == app);
    let Some(max_epochs) = settings.max_epochs.or(defaults.map(|d| d.1)) else {
        return Ok(Err(
            "an application of unknown length: give its epochs in app.json ({\"max_epochs\": N})"
                .into(),
        ));
    };
    if max_epochs == 0 || max_epochs as usize > epochs {
        return Err(WorkloadError::file(
            &folder,
            format!("max_epochs {max_epochs} must be between 1 and the {epochs} epochs of the validation files"),
        ));
    }
    let init = validation.first().map(|v| v.0).unwrap_or(1);
    let max = validation.last().map(|v| v.0).unwrap_or(init);
    let bad = |field: &str, reason: &str| {
        Err(WorkloadError::file(
            &format!("{folder}app.json"),
            format!("{field}: {reason}"),
        ))
    };
    if settings.max_replicas == Some(0) {
        return bad("max_replicas", "must be at least 1");
    }
    if settings
        .slowdown
        .is_some_and(|f| !(f.is_finite() && (0.01..=100.0).contains(&f)))
    {
        return bad("slowdown", "must be a factor between 0.01 and 100");
    }
    if settings
        .restart_s
        .is_some_and(|s| !(s.is_finite() && (0.0..=86_400.0).contains(&s)))
    {
        return bad("restart_s", "must be between 0 and 86,400 s");
    }
    // Sia's folders name their GPU types; its simulator's constants go with them.
    let sia = tables
        .keys()
        .any(|t| !t.is_empty())
        .then(|| SIA_APP_DEFAULTS.iter().find(|d| d.0 == app))
        .flatten();
    if settings
        .max_local_bsz
        .is_some_and(|m| m == 0 || f64::from(m) < min_local)
    {
        return bad(
            "max_local_bsz",
            "must be at least the smallest measured per-GPU batch",
        );
    }
    if settings
        .fixed_batch_size
        .is_some_and(|b| b < init || b > max)
    {
        return bad(
            "fixed_batch_size",
            "must be within the validation files' batch sizes",
        );
    }
    Ok(Ok(ElasticApp {
        name: app.to_string(),
        init_batch_size: init,
        max_batch_size: max,
        min_local_bsz: min_local as u32,
        max_local_bsz: settings
            .max_local_bsz
            .or(defaults.and_then(|d| d.2))
            .unwrap_or(max_local as u32),
        max_epochs,
        fixed_batch_size: settings.fixed_batch_size.or(defaults.and_then(|d| d.3)),
        max_replicas: settings.max_replicas.or(defaults.and_then(|d| d.4)),
        model: AppModel::Measured(Box::new(MeasuredApp {
            validation,
            tables,
            milestones,
        })),
        source: format!("measurements in {folder}"),
        user_configs: Vec::new(),
        slowdown: settings.slowdown.or(sia.map(|d| d.1)).unwrap_or(1.0),
        restart_s: settings.restart_s.or(sia.map(|d| d.2)),
    }))
}
