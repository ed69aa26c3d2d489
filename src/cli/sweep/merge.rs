//! `orrery sweep merge`: the outputs of a sweep's shards joined into the output of the whole
//! sweep, byte for byte what the sweep without `--shard` writes.
//!
//! Refused, naming the files: outputs of different sweeps (fingerprints or numbers of
//! cells differ), of different formats, a row outside its shard, a cell in two files, and
//! cells in none (with the shards they belong to).

use super::*;

/// One output read back.
struct Part {
    path: String,
    format: SweepFormat,
    /// Whether its CSV has the failure columns.
    faults: bool,
    meta: Meta,
    /// (cell, line) in file order.
    rows: Vec<(usize, String)>,
}

fn bad(path: &str, reason: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("{path}: {reason}"))
}

/// Read one output of `orrery sweep`.
fn read_part(path: &Path) -> CliResult<Part> {
    let name = path.display().to_string();
    let text = read_file(path, "sweep output")?;
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(bad(&name, "cut short: its last line has no line end"));
    }
    let mut lines = text.lines().enumerate();
    let first = lines
        .next()
        .map(|(_, l)| l)
        .ok_or_else(|| bad(&name, "empty, not an output of orrery sweep"))?;
    let (format, meta) = if first.starts_with(CSV_MAGIC) {
        (SweepFormat::Csv, Meta::from_csv_line(first))
    } else if first.starts_with(JSON_START) {
        (SweepFormat::Json, Meta::from_json_line(first))
    } else {
        return Err(bad(
            &name,
            "not an output of orrery sweep (its first line names no sweep)",
        ));
    };
    let meta = meta.map_err(|e| bad(&name, e))?;
    if meta.format != FORMAT_VERSION {
        return Err(bad(
            &name,
            format!(
                "sweep output format {} (this build reads {FORMAT_VERSION})",
                meta.format
            ),
        ));
    }
    let shard = match &meta.shard {
        Some(s) => Some(parse_shard(s).map_err(|e| bad(&name, format!("shard: {e}")))?),
        None => None,
    };
    let second = lines.next().map(|(_, l)| l);
    let faults = format == SweepFormat::Csv && second == Some(csv_header(true).as_str());
    let header = match format {
        SweepFormat::Csv => csv_header(faults),
        SweepFormat::Json => JSON_ROWS.to_string(),
    };
    if second != Some(header.as_str()) {
        return Err(bad(&name, format!("line 2 is not `{header}`")));
    }
    let mut body: Vec<(usize, &str)> = lines.filter(|(_, l)| !l.is_empty()).collect();
    if format == SweepFormat::Json && body.pop().map(|(_, l)| l) != Some(JSON_END) {
        return Err(bad(
            &name,
            format!("the last line is not `{JSON_END}` (cut short?)"),
        ));
    }
    let last = body.len();
    let mut rows = Vec::with_capacity(body.len());
    for (k, (i, line)) in body.into_iter().enumerate() {
        let line = match format {
            SweepFormat::Csv => line,
            SweepFormat::Json if k + 1 < last => line
                .strip_suffix(',')
                .ok_or_else(|| bad(&name, format!("line {}: no comma after the cell", i + 1)))?,
            SweepFormat::Json => line,
        };
        let cell = row_cell(format, line)
            .ok_or_else(|| bad(&name, format!("line {}: not a cell's row", i + 1)))?;
        if cell >= meta.cells {
            return Err(bad(
                &name,
                format!(
                    "line {}: cell {cell} of a sweep of {} cells",
                    i + 1,
                    meta.cells
                ),
            ));
        }
        if let Some(s) = shard.filter(|&s| !in_shard(cell, s)) {
            return Err(bad(
                &name,
                format!(
                    "line {}: cell {cell} is shard {}/{}'s, not this file's ({}/{})",
                    i + 1,
                    cell % s.n + 1,
                    s.n,
                    s.k,
                    s.n
                ),
            ));
        }
        rows.push((cell, line.to_string()));
    }
    Ok(Part {
        path: name,
        format,
        faults,
        meta,
        rows,
    })
}

/// At most this many cells are listed in a message.
const LISTED: usize = 10;

fn list(cells: &[String]) -> String {
    let mut s = cells
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if cells.len() > LISTED {
        s.push_str(&format!(" and {} more", cells.len() - LISTED));
    }
    s
}

pub(crate) fn cmd_merge(m: MergeArgs) -> CliResult<()> {
    let parts = m
        .files
        .iter()
        .map(|f| read_part(f))
        .collect::<CliResult<Vec<Part>>>()?;
    let out = m.out.as_deref().map(create_output).transpose()?;
    let first = &parts[0];
    for p in &parts[1..] {
        if p.format != first.format {
            let f = |x: SweepFormat| if x == SweepFormat::Csv { "CSV" } else { "JSON" };
            return Err(CliError::Input(format!(
                "{} is {} and {} is {}: merge outputs of one format",
                first.path,
                f(first.format),
                p.path,
                f(p.format)
            )));
        }
        if p.meta.fingerprint != first.meta.fingerprint || p.meta.cells != first.meta.cells {
            return Err(CliError::Input(format!(
                "{} and {} are outputs of different sweeps (fingerprints {} and {}; {} and {} cells): shards merge only with shards of the same sweep (the same experiment, inputs, axes and Orrery version)",
                first.path, p.path, first.meta.fingerprint, p.meta.fingerprint, first.meta.cells, p.meta.cells
            )));
        }
    }
    let cells = first.meta.cells;
    let mut owner: Vec<Option<usize>> = vec![None; cells];
    let mut lines: Vec<Option<&str>> = vec![None; cells];
    let mut duplicates = Vec::new();
    for (k, p) in parts.iter().enumerate() {
        for (cell, line) in &p.rows {
            match owner[*cell] {
                Some(o) => duplicates.push(format!("{cell} (in {} and {})", parts[o].path, p.path)),
                None => {
                    owner[*cell] = Some(k);
                    lines[*cell] = Some(line);
                }
            }
        }
    }
    if !duplicates.is_empty() {
        return Err(CliError::Input(format!(
            "{} duplicate cell{}: {}",
            duplicates.len(),
            if duplicates.len() == 1 { "" } else { "s" },
            list(&duplicates)
        )));
    }
    let missing: Vec<usize> = (0..cells).filter(|&c| owner[c].is_none()).collect();
    if !missing.is_empty() {
        // The shards the missing cells belong to, when every file is a shard of one N.
        let ns: std::collections::BTreeSet<Option<usize>> =
            parts.iter().map(|p| p.meta.shard().map(|s| s.n)).collect();
        let hint = match ns.into_iter().collect::<Vec<_>>().as_slice() {
            [Some(n)] => {
                let ks: std::collections::BTreeSet<usize> =
                    missing.iter().map(|c| c % n + 1).collect();
                let ks: Vec<String> = ks.iter().map(|k| format!("{k}/{n}")).collect();
                format!(
                    " (shard{} {}: absent, or not finished)",
                    if ks.len() == 1 { "" } else { "s" },
                    list(&ks)
                )
            }
            _ => String::new(),
        };
        let listed: Vec<String> = missing.iter().map(|c| c.to_string()).collect();
        return Err(CliError::Input(format!(
            "{} of {cells} cells missing: {}{hint}",
            missing.len(),
            list(&listed)
        )));
    }
    let rows: Vec<String> = lines
        .into_iter()
        .map(|l| l.unwrap_or_default().to_string())
        .collect();
    let meta = Meta {
        shard: None,
        ..first.meta.clone()
    };
    let text = render(first.format, &meta, &rows, first.faults)?;
    match out {
        Some(out) => {
            let path = out.0.clone();
            write_file(out, &text)?;
            note(&format!(
                "merged {} files, {cells} cells, into {}",
                parts.len(),
                path.display()
            ));
            Ok(())
        }
        None => print_stdout(&text),
    }
}
