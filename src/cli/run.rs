//! `orrery run`, `compare` and `link`.

use super::*;

/// Print the experiment's warnings to standard error, one line each.
pub(crate) fn print_warnings(r: &Resolved) {
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
}

pub(crate) fn cmd_link(a: LinkArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    if !a.policy.is_empty() {
        exp.policies = a.policy.clone();
    }
    exp.resolve().map_err(|e| CliError::Input(e.to_string()))?;
    print_stdout(&format!("{}\n", exp.to_link(&a.base)))
}

pub(crate) fn cmd_run(a: RunArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    let spec = match a.policy {
        Some(p) => p,
        None => exp.policies.first().cloned().ok_or_else(|| {
            CliError::Input("the experiment lists no policies; give --policy".into())
        })?,
    };
    exp.policies = vec![spec];
    let jobs_out = a.jobs_csv.as_deref().map(create_output).transpose()?;
    let series_out = a.series_csv.as_deref().map(create_output).transpose()?;
    let r = exp.resolve()?;
    print_warnings(&r);
    let runs = r.plan(&exp).tasks.len() as u64;
    let pb = progress_bar(r.trace.jobs.len() as u64 * runs, "run");
    let result = run_plan(&r, &exp, &pb);
    pb.finish_and_clear();
    let Outcome {
        mut results,
        isolated_jct: iso,
    } = result?;
    let res = results.remove(0);
    if let Some(out) = jobs_out {
        write_file(out, &res.recorder.jobs_csv(iso.as_deref()))?;
    }
    if let Some(out) = series_out {
        write_file(out, &res.recorder.series_csv(&r.cluster))?;
    }
    let text = match a.format {
        OutputFormat::Json => to_json(&SummaryJson::new(&res.summary, &exp, &r))?,
        OutputFormat::Csv => summaries_csv(std::slice::from_ref(&res.summary)),
        OutputFormat::Table => render_kv(&summary_kv(&res.summary, &exp, &r, exp.fairness)),
    };
    print_stdout(&text)
}

pub(crate) fn cmd_compare(a: CompareArgs) -> CliResult<()> {
    let mut exp = build_experiment(&a.exp)?;
    if !a.policy.is_empty() {
        exp.policies = a.policy.clone();
    }
    let out = a.out.as_deref().map(create_output).transpose()?;
    let r = exp.resolve()?;
    print_warnings(&r);
    let runs = r.plan(&exp).tasks.len() as u64;
    let pb = progress_bar(r.trace.jobs.len() as u64 * runs, "compare");
    let result = run_plan(&r, &exp, &pb);
    pb.finish_and_clear();
    let results = result?.results;
    let summaries: Vec<Summary> = results.into_iter().map(|r| r.summary).collect();
    if let Some(out) = out {
        write_file(out, &summaries_csv(&summaries))?;
    }
    let text = match a.format {
        OutputFormat::Json => to_json(
            &summaries
                .iter()
                .map(|s| SummaryJson::new(s, &exp, &r))
                .collect::<Vec<_>>(),
        )?,
        OutputFormat::Csv => summaries_csv(&summaries),
        OutputFormat::Table => {
            let preemptive = r.sim.restart.checkpoint.is_some();
            let mut s = format!(
                "workload: {}; cluster: {} ({} GPUs); seed {}; {}{}{}\nrestarts: {}\n\n",
                workload_label(&exp, &r),
                exp.cluster.trim(),
                r.cluster.total_gpus(),
                exp.seed,
                if preemptive {
                    "preemptive (suspensions finish the epoch, checkpoint, reload)".to_string()
                } else {
                    format!("{} s rounds", exp.round_s)
                },
                if exp.gavel_compat {
                    "; Gavel-compatible"
                } else if exp.dl2_compat {
                    "; DL2-compatible"
                } else {
                    ""
                },
                exp.window
                    .map(|(a, b)| format!("; window [{a}, {b})"))
                    .unwrap_or_default(),
                exp.restart_description()
            );
            // Applications' own slowdowns and restart delays (Sia's folders carry Sia's,
            // `--slowdown` and `--restart-type` set them).
            let own: Vec<String> = r
                .apps()
                .into_iter()
                .flat_map(|apps| apps.apps.iter())
                .filter(|a| a.slowdown != 1.0 || a.restart_s.is_some())
                .map(|a| {
                    let mut t = a.name.clone();
                    if a.slowdown != 1.0 {
                        t.push_str(&format!(" steps x{}", a.slowdown));
                    }
                    if let Some(d) = a.restart_s {
                        t.push_str(&format!(" restart {d} s"));
                    }
                    t
                })
                .collect();
            for n in &r.notes {
                s.insert_str(s.len() - 1, &format!("note: {n}\n"));
            }
            if let Some(m) = r.fairness_unavailable().filter(|_| exp.fairness) {
                s.insert_str(s.len() - 1, &format!("rho: {m}\n"));
            }
            if !own.is_empty() {
                s.insert_str(
                    s.len() - 1,
                    &format!("applications' own: {}\n", own.join(", ")),
                );
            }
            let faults = summaries.iter().any(|s| s.faults.is_some());
            let spot = summaries.iter().any(|s| s.spot_cost.is_some());
            let rows: Vec<Vec<String>> = summaries
                .iter()
                .map(|s| {
                    let mut row = vec![
                        s.policy.clone(),
                        s.num_jobs.to_string(),
                        hours(s.avg_jct_s),
                        hours(s.p99_jct_s),
                        hours(s.makespan_s),
                        hours(s.avg_wait_s),
                        format!("{:.1}", s.utilization * 100.0),
                    ];
                    if preemptive {
                        row.push(hours(s.time_lost_s));
                    }
                    row.push(opt3(s.max_rho));
                    row.push(if preemptive {
                        s.preemptions.to_string()
                    } else {
                        s.restarts.to_string()
                    });
                    if faults {
                        row.extend(fault_cells(s));
                    }
                    if spot {
                        row.push(match (s.cost, s.spot_cost) {
                            (Some(c), Some(p)) => format!("{:.2} / {p:.2}", c - p),
                            _ => "-".into(),
                        });
                    }
                    row
                })
                .collect();
            let mut head = vec![
                "policy",
                "jobs",
                "avg JCT (h)",
                "p99 JCT (h)",
                "makespan (h)",
                "avg wait (h)",
                "util (%)",
            ];
            if preemptive {
                head.push("time lost (h)");
            }
            head.extend([
                "max rho",
                if preemptive {
                    "preemptions"
                } else {
                    "restarts"
                },
            ]);
            if faults {
                head.extend(FAULT_HEAD);
            }
            if spot {
                head.push("cost on-demand / spot ($)");
            }
            s.push_str(&render_table(&head, &rows));
            s.push_str(&claim_lines(&exp, &summaries));
            s
        }
    };
    print_stdout(&text)
}

/// The comparison table's columns of runs with failures, checkpoints or spot capacity.
const FAULT_HEAD: [&str; 5] = [
    "failures",
    "interruptions",
    "spot preemptions",
    "ETTR",
    "GPU-h lost",
];

/// A run's cells under [`FAULT_HEAD`] ("-" for a run without the figures).
fn fault_cells(s: &Summary) -> Vec<String> {
    let Some(f) = &s.faults else {
        return vec!["-".into(); FAULT_HEAD.len()];
    };
    let l = &f.lost_gpu_hours;
    vec![
        f.server_failures.to_string(),
        f.interruptions.to_string(),
        f.spot_preemptions.to_string(),
        f.ettr.map_or_else(|| "-".into(), |e| format!("{e:.4}")),
        format!(
            "{:.1}",
            l.rolled_back + l.restarts + l.checkpoints + l.preempted
        ),
    ]
}

/// The paper's numbers beside ours, when the experiment is a paper preset's.
fn claim_lines(exp: &Experiment, summaries: &[Summary]) -> String {
    let Some(claim) = orrery::experiment::scenarios::claims::claim_for(exp) else {
        return String::new();
    };
    let refs: Vec<orrery::experiment::scenarios::claims::Figures> =
        summaries.iter().map(Into::into).collect();
    let mut s = String::from("\n");
    for m in claim.measure(&refs) {
        s.push_str(&format!("paper: {}\n", m.line(claim)));
    }
    s.push_str(&format!(
        "source: {}\n  {}\n",
        claim.source,
        claim.paper.line()
    ));
    s
}
