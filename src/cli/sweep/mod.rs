//! `orrery sweep`: one experiment over a grid of policies, clusters, cluster scales,
//! arrival rates, loads, failure rates, checkpoint intervals and seeds, whole or one shard of it; `orrery sweep merge` joins
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
    let (rows, figures) = run_cells(&grid, &cells, a.format)?;
    paper_line(&grid, &figures);
    let meta = Meta {
        format: FORMAT_VERSION,
        fingerprint: grid.fingerprint()?,
        cells: grid.cells(),
        grid: grid.describe(),
        shard: a.shard.map(|s| format!("{}/{}", s.k, s.n)),
    };
    let text = render(a.format, &meta, &rows, grid.has_faults())?;
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

/// A policy's average JCT (s) at an arrival rate, from one cell.
type Figure = (String, Option<f64>, f64);

/// When the sweep is a preset's figure against the load (its experiment, its rates, no
/// other axis), the paper's figure and the sweep's, on standard error.
fn paper_line(grid: &Grid, figures: &[Figure]) {
    let Some(claim) = orrery::experiment::scenarios::claims::load_claim_for(&grid.base) else {
        return;
    };
    let one_axis = grid.cells() == grid.policies.len() * grid.rates.len();
    if !one_axis {
        return;
    }
    let ratios = claim.ratios(|policy, rate| {
        figures
            .iter()
            .find(|(p, r, _)| p == policy && *r == Some(rate))
            .map(|f| f.2)
    });
    note(&format!("paper: {}", claim.line(&ratios)));
}

/// Run `cells` (in order) and return their lines in that order, with each cell's policy,
/// arrival rate and average JCT. Every group with a cell
/// runs as one experiment with its cells' policies (and the isolated baseline when rho is
/// asked for); groups and their runs go in parallel (a failed run stops the sweep), and
/// each result lands in its cell's place, so the lines do not depend on the number of
/// threads.
fn run_cells(
    grid: &Grid,
    cells: &[usize],
    format: SweepFormat,
) -> CliResult<(Vec<String>, Vec<Figure>)> {
    // The policies of each group, in policy order.
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for &i in cells {
        let (p, g) = grid.cell(i);
        groups.entry(g).or_default().push(p);
    }
    let groups: Vec<(usize, Vec<usize>)> = groups.into_iter().collect();
    let in_group = |g: usize| move |e: CliError| e.within(&grid.label(g));
    // Every group's experiment resolved first, with every policy of the grid (so each shard
    // checks them all), and dropped: bad input fails before anything runs, with the first
    // group's error in order, and the warnings print once each, in order.
    let checked: Vec<CliResult<Vec<String>>> = groups
        .par_iter()
        .map(|(g, _)| {
            let exp = grid.experiment(*g, grid.policies.clone())?;
            let r = exp.resolve().map_err(|e| in_group(*g)(e.into()))?;
            Ok(r.warnings)
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for c in checked {
        for w in c? {
            if seen.insert(w.clone()) {
                eprintln!("warning: {w}");
            }
        }
    }
    let pb = progress_bar(0, "sweep");
    let done: CliResult<Vec<Vec<(usize, String, Figure)>>> = groups
        .par_iter()
        .map(|(g, policies)| {
            let exp = grid.experiment(*g, grid.policies.clone())?;
            let r = exp.resolve().map_err(|e| in_group(*g)(e.into()))?;
            let chosen = Experiment {
                policies: policies.iter().map(|&p| grid.policies[p].clone()).collect(),
                ..exp
            };
            let plan = r.plan(&chosen);
            let jobs = r.trace.jobs.len();
            pb.inc_length((plan.tasks.len() * jobs) as u64);
            let results = plan
                .tasks
                .par_iter()
                .map(|t| {
                    let mut shown = 0;
                    let res = r.run_task(&plan, t, |p: &Progress| {
                        pb.inc((p.jobs_done - shown) as u64);
                        shown = p.jobs_done;
                    });
                    pb.inc(jobs.saturating_sub(shown) as u64);
                    res
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| in_group(*g)(e.into()))?;
            let outcome = r.finish(&plan, results);
            let axes = grid.axes(*g)?;
            policies
                .iter()
                .zip(&outcome.results)
                .map(|(&p, res)| {
                    let cell = grid.index(p, *g);
                    let line = row_line(format, cell, &grid.policies[p], &axes, &res.summary)?;
                    let figure = (
                        grid.policies[p].clone(),
                        axes.jobs_per_hour,
                        res.summary.avg_jct_s,
                    );
                    Ok((cell, line, figure))
                })
                .collect()
        })
        .collect();
    pb.finish_and_clear();
    let mut rows: Vec<(usize, String, Figure)> = done?.into_iter().flatten().collect();
    orrery::order::sort_by_key(&mut rows, |(cell, _, _)| *cell);
    Ok(rows.into_iter().map(|(_, line, f)| (line, f)).unzip())
}
