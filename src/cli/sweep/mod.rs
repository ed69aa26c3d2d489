//! `orrery sweep`: one experiment over a grid of policies, clusters, cluster scales,
//! arrival rates, loads and seeds, whole or one shard of it; `orrery sweep merge` joins
//! shards.
//!
//! - `grid`: the axes, the cells in order, shards and the fingerprint;
//! - `output`: the CSV and JSON written, a line per cell;
//! - `merge`: joining shards' outputs into the whole sweep's.

use super::*;

mod grid;
mod merge;
mod output;

use grid::*;
use merge::*;
use output::*;

pub(crate) fn cmd_sweep(mut a: SweepArgs) -> CliResult<()> {
    if let Some(SweepCommand::Merge(m)) = a.command.take() {
        return cmd_merge(m);
    }
    let grid = build_grid(&mut a)?;
    let out = a.out.as_deref().map(create_output).transpose()?;
    let cells = grid.shard_cells(a.shard);
    let rows = run_cells(&grid, &cells, a.format)?;
    let meta = Meta {
        format: FORMAT_VERSION,
        fingerprint: grid.fingerprint()?,
        cells: grid.cells(),
        grid: grid.describe(),
        shard: a.shard.map(|s| format!("{}/{}", s.k, s.n)),
    };
    let text = render(a.format, &meta, &rows)?;
    match out {
        Some(out) => {
            let path = out.0.clone();
            write_file(out, &text)?;
            note(&format!(
                "wrote {} of {} cells to {}",
                rows.len(),
                grid.cells(),
                path.display()
            ));
            Ok(())
        }
        None => print_stdout(&text),
    }
}

/// Run `cells` (in order) and return their lines in that order. Every group with a cell
/// runs as one experiment with its cells' policies (and the isolated baseline when rho is
/// asked for); groups and their runs go in parallel, and each result lands in its cell's
/// place, so the lines do not depend on the number of threads.
fn run_cells(grid: &Grid, cells: &[usize], format: SweepFormat) -> CliResult<Vec<String>> {
    // The policies of each group, in policy order.
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in cells {
        let (p, g) = grid.cell(i);
        groups.entry(g).or_default().push(p);
    }
    let groups: Vec<(usize, Vec<usize>)> = groups.into_iter().collect();
    let pb = progress_bar(0, "sweep");
    let warned = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let done: Vec<CliResult<Vec<(usize, String)>>> = groups
        .par_iter()
        .map(|(g, policies)| {
            let exp = grid.experiment(*g, grid.policies.clone())?;
            // Resolved with every policy of the grid, so each shard checks them all.
            let in_group = |e: CliError| e.within(&grid.label(*g));
            let r = exp.resolve().map_err(|e| in_group(e.into()))?;
            if let Ok(mut seen) = warned.lock() {
                for w in &r.warnings {
                    if seen.insert(w.clone()) {
                        pb.suspend(|| eprintln!("warning: {w}"));
                    }
                }
            }
            let chosen = Experiment {
                policies: policies.iter().map(|&p| grid.policies[p].clone()).collect(),
                ..exp
            };
            let plan = r.plan(&chosen);
            pb.inc_length((plan.tasks.len() * r.trace.jobs.len()) as u64);
            let results = plan
                .tasks
                .par_iter()
                .map(|t| {
                    let mut shown = 0;
                    let res = r.run_task(&plan, t, |p: &Progress| {
                        pb.inc((p.jobs_done - shown) as u64);
                        shown = p.jobs_done;
                    });
                    pb.inc((r.trace.jobs.len() - shown.min(r.trace.jobs.len())) as u64);
                    res
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| in_group(e.into()))?;
            let outcome = r.finish(&plan, results);
            let axes = grid.axes(*g)?;
            policies
                .iter()
                .zip(&outcome.results)
                .map(|(&p, res)| {
                    let cell = grid.index(p, *g);
                    let line = row_line(format, cell, &grid.policies[p], &axes, &res.summary)?;
                    Ok((cell, line))
                })
                .collect()
        })
        .collect();
    pb.finish_and_clear();
    let mut rows: Vec<(usize, String)> = Vec::with_capacity(cells.len());
    for d in done {
        rows.extend(d?);
    }
    orrery::order::sort_by_key(&mut rows, |(cell, _)| *cell);
    Ok(rows.into_iter().map(|(_, line)| line).collect())
}
