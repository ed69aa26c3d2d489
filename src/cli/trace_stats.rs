//! `orrery trace-stats`: a trace's shape, as text or JSON.

use super::*;
use orrery::workload::stats::{LabelCount, Spread};

pub(crate) fn cmd_trace_stats(a: TraceStatsArgs) -> CliResult<()> {
    let name = a.file.display().to_string();
    let text = read_file(&a.file, "trace")?;
    let trace = Trace::parse(&text, &name).map_err(|e| CliError::Input(e.to_string()))?;
    let filter = a.filter.over(None);
    let trace = match &filter {
        Some(f) => f
            .apply(trace, a.seed)
            .map_err(|e| CliError::Input(e.to_string()))?,
        None => trace,
    };
    let stats = TraceStats::of(&trace);
    let out = match a.format {
        ListFormat::Json => to_json(&stats)?,
        ListFormat::Table => render_stats(&stats, filter.as_ref()),
    };
    print_stdout(&out)
}

/// A duration in the unit that suits it.
fn span(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} d", s / 86_400.0)
    }
}

fn spread(s: &Spread, unit: impl Fn(f64) -> String) -> String {
    format!(
        "mean {}, median {}, p90 {}, p99 {}, min {}, max {}",
        unit(s.mean),
        unit(s.p50),
        unit(s.p90),
        unit(s.p99),
        unit(s.min),
        unit(s.max)
    )
}

fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.1}", 100.0 * part / whole)
    } else {
        "-".into()
    }
}

/// Rows of a label table: the first `top` labels, then the others in one row.
fn label_rows(
    labels: &[LabelCount],
    jobs: usize,
    hours: Option<f64>,
    top: usize,
) -> Vec<Vec<String>> {
    let row = |name: String, n: usize, h: Option<f64>| {
        let mut r = vec![name, n.to_string(), pct(n as f64, jobs as f64)];
        if let (Some(h), Some(total)) = (h, hours) {
            r.push(format!("{h:.1}"));
            r.push(pct(h, total));
        }
        r
    };
    let mut rows: Vec<Vec<String>> = labels
        .iter()
        .take(top)
        .map(|l| row(l.name.clone(), l.jobs, l.gpu_hours))
        .collect();
    if labels.len() > top {
        let rest = &labels[top..];
        rows.push(row(
            format!("({} others)", rest.len()),
            rest.iter().map(|l| l.jobs).sum(),
            hours.map(|_| rest.iter().filter_map(|l| l.gpu_hours).sum()),
        ));
    }
    rows
}

fn render_stats(s: &TraceStats, filter: Option<&TraceFilter>) -> String {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let mut rows = vec![kv("trace", format!("{} ({})", s.name, s.format))];
    if let Some(f) = filter {
        rows.push(kv("filter", f.describe()));
    }
    rows.push(kv(
        "jobs",
        match s.rows {
            Some(r) => format!("{} (of {r} in the file)", s.jobs),
            None => s.jobs.to_string(),
        },
    ));
    for d in &s.dropped {
        rows.push(kv("  left out", format!("{} {}", d.jobs, d.name)));
    }
    if let Some(h) = s.gpu_hours {
        rows.push(kv("GPU-hours", format!("{h:.1}")));
    }
    rows.push(kv(
        "arrivals",
        match (&s.first_arrival, &s.last_arrival) {
            (Some(a), Some(b)) => format!("{a} to {b} ({})", span(s.span_s)),
            _ => format!("over {}", span(s.span_s)),
        },
    ));
    rows.push(kv("GPUs per job", spread(&s.gpus, |v| format!("{v:.1}"))));
    if s.durations {
        rows.push(kv("duration", spread(&s.work, span)));
    } else {
        rows.push(kv("work (steps)", spread(&s.work, |v| format!("{v:.0}"))));
    }
    rows.push(kv(
        "jobs per hour",
        spread(&s.jobs_per_hour, |v| format!("{v:.1}")),
    ));
    let mut out = render_kv(&rows);

    let hours_cols: &[&str] = if s.durations {
        &["GPU-hours", "%"]
    } else {
        &[]
    };
    let gpu_rows: Vec<Vec<String>> = s
        .by_gpus
        .iter()
        .map(|g| {
            let mut r = vec![
                g.gpus.to_string(),
                g.jobs.to_string(),
                pct(g.jobs as f64, s.jobs as f64),
            ];
            if let (Some(h), Some(total)) = (g.gpu_hours, s.gpu_hours) {
                r.push(format!("{h:.1}"));
                r.push(pct(h, total));
            }
            r
        })
        .collect();
    out.push('\n');
    out.push_str(&render_table(
        &[&["GPUs", "jobs", "%"], hours_cols].concat(),
        &gpu_rows,
    ));
    for (title, labels) in [
        ("virtual cluster", &s.by_vc),
        ("status", &s.by_status),
        ("job type", &s.by_type),
    ] {
        if labels.is_empty() || (title == "job type" && labels.len() == 1) {
            continue;
        }
        out.push('\n');
        out.push_str(&render_table(
            &[&[title, "jobs", "%"], hours_cols].concat(),
            &label_rows(labels, s.jobs, s.gpu_hours, 12),
        ));
    }
    out.push_str("\narrivals by hour of day");
    out.push_str(if s.first_arrival.is_some() {
        " (the file's clock):\n"
    } else {
        " (from arrival 0):\n"
    });
    for (h, chunk) in s.by_hour_of_day.chunks(6).enumerate() {
        let cells: Vec<String> = chunk
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:02}h {c:>7}", h * 6 + i))
            .collect();
        out.push_str(&format!("  {}\n", cells.join("   ")));
    }
    // Days, or weeks when the trace spans more than nine weeks.
    let weekly = s.per_day.len() > 63;
    let group = if weekly { 7 } else { 1 };
    let rows: Vec<Vec<String>> = s
        .per_day
        .chunks(group)
        .map(|days| {
            let jobs: usize = days.iter().map(|d| d.jobs).sum();
            let mut r = vec![
                days.first().map(|d| d.day.clone()).unwrap_or_default(),
                jobs.to_string(),
            ];
            if s.durations {
                let h: f64 = days.iter().filter_map(|d| d.gpu_hours).sum();
                r.push(format!("{h:.1}"));
            }
            r
        })
        .collect();
    out.push('\n');
    let first = if weekly { "week from" } else { "day" };
    let header: Vec<&str> = if s.durations {
        vec![first, "jobs", "GPU-hours"]
    } else {
        vec![first, "jobs"]
    };
    out.push_str(&render_table(&header, &rows));
    out
}
