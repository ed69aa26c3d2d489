//! Tables and key-value listings for people.

use super::*;

/// Columns aligned: the first left-aligned, the others right-aligned.
pub(crate) fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let ncol = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate().take(ncol) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate().take(ncol) {
            if i == 0 {
                s.push_str(&format!("{c:<w$}", w = width[i]));
            } else {
                s.push_str(&format!("  {c:>w$}", w = width[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    out.push_str(&line(
        &width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    ));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// Key/value lines with the keys padded to one width.
pub(crate) fn render_kv(rows: &[(String, String)]) -> String {
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}\n"))
        .collect()
}

pub(crate) fn hours(s: f64) -> String {
    format!("{:.2}", s / 3600.0)
}

pub(crate) fn dur(s: f64) -> String {
    format!("{:.2} h ({:.0} s)", s / 3600.0, s)
}

pub(crate) fn opt3(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())
}

pub(crate) fn summary_kv(
    s: &Summary,
    exp: &Experiment,
    r: &Resolved,
    fairness: bool,
) -> Vec<(String, String)> {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let mut rows = vec![
        kv("policy", s.policy.clone()),
        kv("workload", workload_label(exp, r)),
        kv(
            "cluster",
            format!("{} ({} GPUs)", exp.cluster.trim(), r.cluster.total_gpus()),
        ),
        kv(
            "seed / round",
            format!(
                "{} / {} s{}",
                exp.seed,
                exp.round_s,
                if exp.gavel_compat {
                    ", Gavel-compatible"
                } else if exp.dl2_compat {
                    ", DL2-compatible"
                } else {
                    ""
                }
            ),
        ),
    ];
    for n in &r.notes {
        rows.push(kv("note", n.clone()));
    }
    if let Some((a, b)) = exp.window {
        rows.push(kv("window", format!("job ids [{a}, {b})")));
    }
    if let Some(f) = exp.faults_description() {
        rows.push(kv("failures", f));
    }
    if let Some(u) = exp.until_s {
        rows.push(kv("until", dur(u)));
    }
    rows.extend([
        kv("jobs finished", s.num_jobs.to_string()),
        kv("jobs unfinished", s.unfinished.to_string()),
        kv("avg JCT", dur(s.avg_jct_s)),
        kv("median JCT", dur(s.median_jct_s)),
        kv("p95 JCT", dur(s.p95_jct_s)),
        kv("p99 JCT", dur(s.p99_jct_s)),
        kv("makespan", dur(s.makespan_s)),
        kv("avg wait", dur(s.avg_wait_s)),
        kv("p99 wait", dur(s.p99_wait_s)),
        kv("time lost", dur(s.time_lost_s)),
        kv("utilization", format!("{:.1} %", s.utilization * 100.0)),
    ]);
    for t in &r.cluster.types {
        if let Some(u) = s.utilization_by_type.get(&t.name) {
            rows.push(kv(
                &format!("  utilization {}", t.name),
                format!("{:.1} %", u * 100.0),
            ));
        }
    }
    let no_rho = if fairness {
        "-".to_string()
    } else {
        "- (--no-fairness)".to_string()
    };
    let rho = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or(no_rho.clone());
    rows.extend([
        kv("max rho", rho(s.max_rho)),
        kv("mean rho", rho(s.mean_rho)),
        kv("Jain index (rho)", rho(s.jain_index)),
        kv("restarts", s.restarts.to_string()),
        kv("preemptions", s.preemptions.to_string()),
        kv("GPU-hours", format!("{:.1} GPU-h", s.gpu_hours)),
        kv(
            "cost",
            s.cost
                .map(|c| format!("${c:.2}"))
                .unwrap_or_else(|| "- (no prices)".into()),
        ),
        kv("rounds", s.rounds.to_string()),
        kv("policy failures", s.policy_failures.to_string()),
    ]);
    if let (Some(c), Some(spot)) = (s.cost, s.spot_cost) {
        rows.push(kv(
            "cost on-demand / spot",
            format!("${:.2} / ${spot:.2}", c - spot),
        ));
    }
    if let Some(f) = &s.faults {
        let causes: Vec<String> = f
            .failures_by_category
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        let lost = &f.lost_gpu_hours;
        rows.extend([
            kv(
                "server failures",
                format!("{} ({})", f.server_failures, causes.join(", ")),
            ),
            kv("interruptions", f.interruptions.to_string()),
            kv(
                "ETTR",
                f.ettr
                    .map(|e| format!("{e:.4}"))
                    .unwrap_or_else(|| "- (no job started)".into()),
            ),
            kv(
                "GPU-hours lost",
                format!(
                    "{:.1} rolled back, {:.1} restarting, {:.1} writing checkpoints",
                    lost.rolled_back, lost.restarts, lost.checkpoints
                ),
            ),
        ]);
        if f.spot_preemptions > 0 || lost.preempted > 0.0 {
            rows.push(kv(
                "spot preemptions",
                format!(
                    "{} ({:.1} GPU-hours rolled back)",
                    f.spot_preemptions, lost.preempted
                ),
            ));
        }
    }
    if let Some(e) = s.elastic {
        rows.extend([
            kv("resizes", e.resizes.to_string()),
            kv(
                "avg GPUs per running job",
                format!("{:.2} (max {})", e.avg_gpus, e.max_gpus),
            ),
            kv("avg batch size", format!("{:.0}", e.avg_batch_size)),
        ]);
    }
    if let Some(p) = s.preemption {
        let pct = |v: Option<f64>| {
            v.map(|x| format!("{:.1} %", x * 100.0))
                .unwrap_or_else(|| "- (no predictions)".into())
        };
        rows.extend([
            kv(
                "suspensions",
                format!("{} ({} finished first)", p.suspensions, p.finished_instead),
            ),
            kv("time suspending", dur(p.suspend_s)),
            kv("time reloading", dur(p.resume_s)),
            kv("avg wait to first start", dur(p.avg_first_wait_s)),
            kv("prediction error (duration)", pct(p.duration_error)),
            kv("prediction error (time lost)", pct(p.overhead_error)),
            kv("overhead model error", pct(p.model_error)),
        ]);
    }
    rows
}
