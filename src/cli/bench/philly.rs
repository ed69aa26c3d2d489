//! `orrery bench`'s production-scale replay: Sia's copy of the Philly trace (about 82,000
//! jobs) on a 2,496-GPU cluster and on a loaded 512-GPU one (the trace needs 374 GPUs on
//! average, so queues grow), profile-free, one whole run per policy, as `orrery run --trace
//! philly.csv --cluster gpu:2496/8 --policy P --no-fairness` does it (reading and resolving
//! the trace included).

use orrery::experiment::scenarios;

use crate::cli::*;

/// The policies replayed, each against the same target.
const POLICIES: [&str; 4] = ["las", "fifo", "tiresias", "max_min_fairness"];

/// The clusters of the replay, each with its target: a minute on the large cluster, and on
/// the loaded one the 5 s a person may wait.
const CLUSTERS: [(&str, f64); 2] = [("gpu:2496/8", 60.0), ("gpu:512/8", 5.0)];

/// Sia's copy of the Philly trace, when the reference folder is there.
fn philly_trace() -> Option<PathBuf> {
    [
        PathBuf::from("../shared/reference/sia/philly.csv"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/sia/philly.csv"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// One row per policy of [`POLICIES`]: a whole replay, timed once (it takes seconds); none
/// without the trace (a note says so).
pub(crate) fn bench_philly(rows: &mut Vec<BenchRow>, progress: &dyn Fn(&str)) -> CliResult<()> {
    let Some(path) = philly_trace() else {
        note("bench: ../shared/reference/sia/philly.csv is absent: no Philly replay rows");
        return Ok(());
    };
    let text = read_file(&path, "trace")?;
    for (cluster, target) in CLUSTERS {
        for policy in POLICIES {
            progress(&format!("Philly replay on {cluster} with {policy}"));
            let exp = Experiment {
                cluster: cluster.into(),
                workload: WorkloadSource::Inline {
                    name: path.display().to_string(),
                    text: text.clone(),
                },
                profile: ProfileSource::ProfileFree,
                policies: vec![policy.into()],
                fairness: false,
                ..scenarios::default_experiment()
            };
            let (t, res) = time_it(|| -> CliResult<Summary> {
                let r = exp.resolve()?;
                Ok(r.run_policy(policy, None, None, |_| {})?.summary)
            });
            let s = res?;
            rows.push(BenchRow::new(
            format!("Philly replay, {} jobs on {cluster}, {policy}", s.num_jobs),
            format!(
                "Sia's philly.csv ({}), profile-free, {cluster}, no fairness baseline, read and resolved in the time: avg JCT {:.0} s, {} rounds, {} unfinished",
                path.display(),
                s.avg_jct_s,
                s.rounds,
                s.unfinished
            ),
            vec![t],
            Some(target),
        ));
        }
    }
    Ok(())
}
