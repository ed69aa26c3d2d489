//! `orrery bench --only catalog`: every catalog policy on every bundled scenario, each pair
//! run once as `orrery run --preset S --policy P --no-fairness` runs it (the experiment's
//! resolution included), slowest first, against the 5 s a person may wait. Pairs the
//! catalog refuses (a policy with no implementation for the scenario's mechanism, or an
//! experiment it cannot run) are listed after the timed ones with the reason, not timed.

use orrery::experiment::scenarios::SCENARIOS;
use orrery::policy::catalog::catalog;

use crate::cli::*;

/// Each pair's target: a person waits at most this long.
const TARGET_S: f64 = 5.0;

/// Whether `only` asks for this group by its name: it runs for minutes, so only then.
pub(crate) fn catalog_asked(only: Option<&str>) -> bool {
    only == Some("catalog")
}

/// One row per pair of a bundled scenario and a catalog policy: timed ones slowest first,
/// then the refused ones.
pub(crate) fn bench_catalog(rows: &mut Vec<BenchRow>, progress: &dyn Fn(&str)) -> CliResult<()> {
    let mut timed = Vec::new();
    let mut refused = Vec::new();
    for scenario in SCENARIOS {
        for entry in catalog() {
            let policy = entry.name;
            progress(&format!("{} with {policy}", scenario.name));
            let exp = Experiment {
                policies: vec![policy.into()],
                fairness: false,
                ..scenario.experiment()
            };
            let (t, res) = time_it(|| -> Result<Summary, String> {
                let r = exp.resolve().map_err(|e| e.to_string())?;
                r.run_policy(policy, None, None, |_| {})
                    .map(|o| o.summary)
                    .map_err(|e| e.to_string())
            });
            let name = format!("{} / {policy}", scenario.name);
            // Every pair on standard error as it ends: a long run can be watched.
            match &res {
                Ok(_) => note(&format!("bench catalog: {name}: {}", fmt_time(t))),
                Err(e) => note(&format!("bench catalog: {name}: refused: {e}")),
            }
            match res {
                Ok(s) => timed.push(BenchRow::new(
                    name,
                    format!(
                        "orrery run --preset {} --policy {policy} --no-fairness: {} jobs, avg JCT {:.0} s, {} unfinished",
                        scenario.name, s.num_jobs, s.avg_jct_s, s.unfinished
                    ),
                    vec![t],
                    Some(TARGET_S),
                )),
                Err(reason) => refused.push(BenchRow {
                    name,
                    input: format!("refused: {reason}"),
                    reps: 0,
                    stat: "refused",
                    time_s: 0.0,
                    min_s: 0.0,
                    target_s: None,
                    ratio: None,
                }),
            }
        }
    }
    orrery::order::sort_by(&mut timed, |a: &BenchRow, b: &BenchRow| {
        b.time_s.total_cmp(&a.time_s)
    });
    rows.extend(timed);
    rows.extend(refused);
    Ok(())
}
