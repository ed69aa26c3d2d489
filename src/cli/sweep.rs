//! `orrery sweep`: policies x arrival rates x seeds.

use super::*;

pub(crate) fn cmd_sweep(a: SweepArgs) -> CliResult<()> {
    let base = presets::default_experiment();
    let policies = if a.policy.is_empty() {
        base.policies.clone()
    } else {
        a.policy.clone()
    };
    for p in &policies {
        policy::build(p).map_err(|e| CliError::Input(e.to_string()))?;
    }
    let mut rates = a.rates.clone();
    orrery::order::sort_floats(&mut rates);
    rates.dedup();
    let mut seeds: Vec<u64> = Vec::new();
    for SeedRange(s, e) in &a.seeds {
        seeds.extend(*s..=*e);
        if seeds.len() as u64 > MAX_SEEDS {
            return Err(CliError::Input(format!(
                "--seeds: more than {MAX_SEEDS} seeds"
            )));
        }
    }
    seeds.sort_unstable();
    seeds.dedup();
    if rates.is_empty() || seeds.is_empty() {
        return Err(CliError::Input(
            "--rates and --seeds must not be empty".into(),
        ));
    }
    let profile = match &a.profile {
        Some(path) => ProfileSource::Inline {
            name: path.display().to_string(),
            text: read_file(path, "profile")?,
        },
        None => base.profile.clone(),
    };
    if let ProfileSource::Inline { text, .. } = &profile {
        if orrery::workload::Apps::is_apps_json(text) {
            return Err(CliError::Input(
                "sweep covers round-based experiments; for elastic (Pollux) workloads run `orrery compare` per seed".into(),
            ));
        }
    }
    let cluster = a.cluster.clone().unwrap_or(base.cluster.clone());
    let out = a.out.as_deref().map(create_output).transpose()?;

    // One workload per (rate, seed), in output order.
    let mut workloads: Vec<(f64, u64, Experiment)> = Vec::new();
    for &rate in &rates {
        for &seed in &seeds {
            let exp = Experiment {
                version: orrery::experiment::SCHEMA_VERSION,
                cluster: cluster.clone(),
                workload: WorkloadSource::Generated(GeneratorConfig {
                    num_jobs: a.num_jobs,
                    jobs_per_hour: rate,
                    multi_gpu: a.multi_gpu,
                    priority_weights: a.priority_weights,
                    elastic_fraction: 0.0,
                    duration_scale: 1.0,
                    seed,
                }),
                profile: profile.clone(),
                policies: policies.clone(),
                seed,
                round_s: a.round,
                gavel_compat: a.gavel_compat,
                restart_cost_s: a.restart_cost,
                restart_by_type: Default::default(),
                slowdown: Default::default(),
                trace_filter: None,
                window: a.window.map(|Window(s, e)| (s, e)),
                fairness: !a.no_fairness,
                inference: None,
                preemption: None,
                ps: None,
                network: None,
            };
            workloads.push((rate, seed, exp));
        }
    }
    let resolved: Vec<Resolved> = workloads
        .par_iter()
        .map(|(_, _, e)| e.resolve())
        .collect::<Result<Vec<_>, _>>()?;

    // Every workload's plan (its policies, then the isolated baseline when rho is asked
    // for), all tasks of all plans in parallel.
    let plans: Vec<Plan> = workloads
        .iter()
        .zip(&resolved)
        .map(|((_, _, e), r)| r.plan(e))
        .collect();
    let tasks: Vec<(usize, &Task)> = plans
        .iter()
        .enumerate()
        .flat_map(|(w, plan)| plan.tasks.iter().map(move |t| (w, t)))
        .collect();
    let pb = progress_bar(tasks.len() as u64, "sweep");
    let results: Vec<Result<RunResult, ExperimentError>> = tasks
        .par_iter()
        .map(|&(w, t)| {
            let res = resolved[w].run_task(&plans[w], t, |_| {});
            pb.inc(1);
            res
        })
        .collect();
    pb.finish_and_clear();
    let mut results = results.into_iter();
    let mut outcomes = Vec::with_capacity(plans.len());
    for (plan, r) in plans.iter().zip(&resolved) {
        let runs = results
            .by_ref()
            .take(plan.tasks.len())
            .collect::<Result<Vec<_>, _>>()?;
        outcomes.push(r.finish(plan, runs));
    }

    let mut csv = String::from(
        "policy,jobs_per_hour,seed,num_jobs,avg_jct_s,p99_jct_s,makespan_s,avg_wait_s,utilization,max_rho\n",
    );
    let mut rows: Vec<(usize, usize, String)> = Vec::new();
    for (w, outcome) in outcomes.iter().enumerate() {
        for (p, res) in outcome.results.iter().enumerate() {
            let s = &res.summary;
            let (rate, seed, _) = &workloads[w];
            let line = format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
                quote(&s.policy),
                rate,
                seed,
                s.num_jobs,
                csv_num(s.avg_jct_s),
                csv_num(s.p99_jct_s),
                csv_num(s.makespan_s),
                csv_num(s.avg_wait_s),
                csv_num(s.utilization),
                csv_opt(s.max_rho)
            );
            rows.push((p, w, line));
        }
    }
    // Policy order first, then rate, then seed (workloads are already in rate, seed order).
    orrery::order::sort_by_key(&mut rows, |(p, w, _)| (*p, *w));
    for (_, _, line) in rows {
        csv.push_str(&line);
    }
    match out {
        Some(out) => {
            let path = out.0.clone();
            write_file(out, &csv)?;
            note(&format!(
                "wrote {} rows to {}",
                csv.lines().count() - 1,
                path.display()
            ));
            Ok(())
        }
        None => print_stdout(&csv),
    }
}
