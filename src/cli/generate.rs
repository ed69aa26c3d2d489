//! `orrery generate` and `import-pai`.

use super::*;

pub(crate) fn load_profile(path: Option<&Path>) -> CliResult<(Profile, String)> {
    match path {
        Some(p) => {
            let text = read_file(p, "profile")?;
            let name = p.display().to_string();
            let prof = Profile::parse(&text, &name).map_err(|e| CliError::Input(e.to_string()))?;
            Ok((prof, name))
        }
        None => {
            let name = presets::PROFILES
                .first()
                .map(|b| b.name)
                .unwrap_or("gavel-types");
            let prof = presets::profile(name).map_err(|e| CliError::Failure(e.to_string()))?;
            Ok((prof, format!("bundled profile '{name}'")))
        }
    }
}

pub(crate) fn cmd_import_pai(a: ImportPaiArgs) -> CliResult<()> {
    let jobs = read_file(&a.jobs, "PAI job table")?;
    let tasks = read_file(&a.tasks, "PAI task table")?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let sampling = orrery::workload::pai::PaiSampling {
        max_jobs: a.max_jobs,
        seed: a.seed,
        only_terminated: !a.all_statuses,
        elastic_fraction: a.elastic_fraction,
    };
    let trace = orrery::workload::pai::read_pai(
        (&jobs, &a.jobs.display().to_string()),
        (&tasks, &a.tasks.display().to_string()),
        &sampling,
    )
    .map_err(|e| CliError::Input(e.to_string()))?;
    let text = match a.format {
        TraceFormat::Csv => trace.to_csv(),
        TraceFormat::Json => format!("{}\n", trace.to_json()),
    };
    match out {
        Some(out) => write_file(out, &text),
        None => print_stdout(&text),
    }
}

/// Elastic applications from a bundled name, a JSON file or a Pollux folder.
pub(crate) fn load_apps(source: &Path) -> CliResult<orrery::workload::Apps> {
    let name = source.display().to_string();
    let apps = if let Some(bundled) = presets::elastic_apps(&name) {
        bundled
    } else if source.is_dir() {
        orrery::workload::Apps::from_pollux_files(&name, &read_folder(source)?)
    } else {
        orrery::workload::Apps::from_json(&read_file(source, "applications")?, &name)
    };
    apps.map_err(|e| CliError::Input(e.to_string()))
}

pub(crate) fn cmd_generate(a: GenerateArgs) -> CliResult<()> {
    let elastic = a.apps.is_some();
    let cfg = GeneratorConfig {
        num_jobs: a.num_jobs.unwrap_or(if elastic { 160 } else { 100 }),
        jobs_per_hour: a.jobs_per_hour.unwrap_or(if elastic { 20.0 } else { 0.0 }),
        multi_gpu: a.multi_gpu,
        priority_weights: a.priority_weights,
        elastic_fraction: 0.0,
        duration_scale: 1.0,
        seed: a.seed,
        dl2: None,
    };
    if let Some(source) = &a.apps {
        let apps = load_apps(source)?;
        let out = a.out.as_deref().map(create_output).transpose()?;
        let trace = orrery::workload::generator::generate_elastic(&apps, &cfg)
            .map_err(|e| CliError::Input(e.to_string()))?;
        let text = match a.format {
            TraceFormat::Csv => trace.to_pollux_csv(),
            TraceFormat::Json => format!("{}\n", trace.to_json()),
        };
        return match out {
            Some(out) => write_file(out, &text),
            None => print_stdout(&text),
        };
    }
    let (profile, _) = load_profile(a.profile.as_deref())?;
    let cluster = ClusterSpec::parse(&a.cluster).map_err(|e| CliError::Input(e.to_string()))?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let trace = generate(&profile, &cluster, &cfg).map_err(|e| CliError::Input(e.to_string()))?;
    let text = match a.format {
        TraceFormat::Csv => trace.to_csv(),
        TraceFormat::Json => {
            let mut s = trace.to_json();
            s.push('\n');
            s
        }
    };
    match out {
        Some(out) => write_file(out, &text),
        None => print_stdout(&text),
    }
}
