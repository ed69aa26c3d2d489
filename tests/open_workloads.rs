//! Every workload open to every family: each policy of the catalog runs on each bundled
//! scenario, but for `aryl`, which needs an inference pool, and `dl2`, whose network reads
//! parameter-server jobs; their refusals name what is missing. Each pair is stepped until
//! its first job finishes (whole runs of every pair would take minutes: `orrery compare
//! --preset P --policy NAME` runs one).

use orrery::experiment::scenarios;
use orrery::experiment::stepping::StepRun;
use orrery::policy::catalog;

/// Steps each pair may take to finish its first job.
const MAX_STEPS: u64 = 5_000;

#[test]
fn every_policy_runs_on_every_scenario_but_where_its_needs_are_missing() {
    let mut refused = Vec::new();
    let mut too_large_for = Vec::new();
    let mut ran = 0;
    for sc in scenarios::SCENARIOS {
        let base = sc.experiment();
        let pool = base.inference.is_some();
        let ps = base.is_ps();
        let stopped = base.until_s.is_some();
        for e in catalog::catalog() {
            let mut exp = base.clone();
            exp.policies = vec![e.name.to_string()];
            exp.fairness = false;
            let resolved = exp.resolve();
            let run = resolved.and_then(|r| StepRun::new(r, e.name, exp.round_s));
            let mut run = match run {
                Ok(run) => run,
                Err(err) => {
                    let msg = err.to_string();
                    let allowed = (e.name == "aryl" && !pool && msg.contains("inference pool"))
                        || (e.name == "dl2" && !ps && msg.contains("parameter-server jobs"));
                    // Pollux's and Sia's searches are bounded to 1,024 servers (llama3 has
                    // 2,048).
                    let too_large = msg.contains("elastic clusters have at most");
                    if too_large {
                        too_large_for.push(format!("{} on {}", e.name, sc.name));
                        continue;
                    }
                    // Failures, repair times and spot capacity run in every mechanism: a
                    // policy is refused only for what its system needs.
                    assert!(allowed, "{} on {}: {msg}", e.name, sc.name);
                    refused.push(format!("{} on {}", e.name, sc.name));
                    continue;
                }
            };
            // A scenario stopped before its jobs end (llama3's 54 days) is done once a job
            // has run for 100 steps.
            let done = |run: &StepRun| {
                run.recorder().jobs.iter().any(|j| j.finish.is_some())
                    || (stopped
                        && run.steps() >= 100
                        && run.recorder().jobs[0].first_start.is_some())
            };
            while !done(&run) && run.steps() < MAX_STEPS && run.step() {}
            assert!(
                done(&run),
                "{} on {}: no job finished in {} steps",
                e.name,
                sc.name,
                run.steps()
            );
            ran += 1;
        }
    }
    println!(
        "open workloads: {ran} (policy, scenario) pairs ran to their first completion, {} refused: {refused:?}; cluster too large for the elastic mechanism: {too_large_for:?}",
        refused.len()
    );
    assert_eq!(
        refused.len(),
        2 * scenarios::SCENARIOS.len() - 2,
        "{refused:?}"
    );
    assert!(
        too_large_for.iter().all(|p| p.ends_with("on llama3")),
        "{too_large_for:?}"
    );
}
