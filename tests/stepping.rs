//! Stepping one policy's run and the boards the page draws after each step: in every bundled
//! scenario and for every policy, the board's clock, table and GPUs agree with the
//! simulation, and a run stepped to its end is the run the comparison makes.

use orrery::experiment::scenarios;
use orrery::experiment::stepping::{Area, Board, Cell, GpuKind, StepRun, JOB_ROWS};
use orrery::experiment::{self, Experiment, ProfileSource, WorkloadSource};

/// GPUs shown on the board: all of them, and those holding a job.
fn gpus(b: &Board) -> (usize, usize) {
    let mut all = Vec::new();
    for a in &b.areas {
        match a {
            Area::Types(types) => all.extend(types.iter().flat_map(|t| t.1.iter())),
            Area::Servers { servers, .. } => all.extend(servers.iter().flat_map(|s| s.gpus.iter())),
            Area::Row { gpus, .. } => all.extend(gpus.iter()),
            Area::Note(_) => {}
        }
    }
    let busy = all.iter().filter(|g| g.job.is_some()).count();
    for g in &all {
        let holds = !matches!(g.kind, GpuKind::Idle | GpuKind::Kept | GpuKind::Serving);
        assert_eq!(holds, g.job.is_some(), "{g:?}");
    }
    (all.len(), busy)
}

fn check(name: &str, exp: &Experiment, policy: &str, steps: u64) {
    let r = exp.resolve().unwrap();
    let cluster_gpus = r.cluster.total_gpus() as usize;
    let mut run = StepRun::new(r, policy, exp.round_s).unwrap();
    let start = run.board(false);
    assert_eq!((start.steps, start.now), (0, 0.0), "{name} {policy}");
    let mut last = 0.0;
    for i in 1..=steps {
        if !run.step() {
            break;
        }
        let b = run.board(false);
        assert_eq!(b.steps, i, "{name} {policy}: steps");
        assert!(b.now >= last, "{name} {policy}: the clock went back");
        last = b.now;
        let (all, busy) = gpus(&b);
        assert!(busy <= all, "{name} {policy}");
        // The pooled simulator draws the inference pool beside the training cluster.
        if !matches!(b.areas.first(), Some(Area::Servers { id, .. }) if id == "training-servers") {
            assert_eq!(all, cluster_gpus, "{name} {policy}: GPUs drawn");
        }
        let t = &b.table;
        assert_eq!(t.rows.len(), t.total.min(JOB_ROWS), "{name} {policy}: rows");
        assert!(
            t.rows.iter().all(|r| r.cells.len() == t.heads.len()),
            "{name} {policy}: cells"
        );
        let every = run.board(true);
        assert_eq!(
            every.table.rows.len(),
            every.table.total,
            "{name} {policy}: all rows"
        );
        // What the worker sends the page comes back whole.
        let text = serde_json::to_string(&b).unwrap();
        assert_eq!(
            serde_json::from_str::<Board>(&text).unwrap(),
            b,
            "{name} {policy}"
        );
    }
}

#[test]
fn every_scenario_and_policy_steps_into_consistent_boards() {
    for s in scenarios::SCENARIOS {
        let exp = s.experiment();
        for policy in &exp.policies {
            check(s.name, &exp, policy, 4);
        }
    }
}

#[test]
fn a_run_stepped_to_its_end_is_the_comparisons_run() {
    for name in ["default", "pickyman", "dl2", "aryl"] {
        let exp = scenarios::scenario(name).unwrap().experiment();
        let exp = Experiment {
            policies: exp.policies[..1].to_vec(),
            ..exp
        };
        let whole = experiment::run(&exp).unwrap();
        let mut run = StepRun::new(exp.resolve().unwrap(), &exp.policies[0], exp.round_s).unwrap();
        let mut steps = 0u64;
        while run.step() {
            steps += 1;
            assert!(steps < 10_000_000, "{name}: no end");
        }
        let b = run.board(false);
        assert!(b.done, "{name}");
        assert_eq!(
            run.recorder().jct_values(None),
            whole[0].recorder.jct_values(None),
            "{name}: JCTs"
        );
        let jobs = exp.resolve().unwrap().trace.jobs.len();
        assert!(
            b.footer
                .starts_with(&format!("{jobs} jobs finished, 0 active")),
            "{name}: {}",
            b.footer
        );
    }
}

#[test]
fn a_packing_policy_shows_pairs_sharing_gpus() {
    // Twelve one-GPU jobs at once on four V100s, of two types that gain from sharing one.
    let colo = |w: &str| {
        format!(
            r#"[{{"scale":1,"with":"{w}","with_scale":1,"gpu":"v100","this":0.7,"other":0.7}}]"#
        )
    };
    let profile = format!(
        r#"{{"format":"orrery-profile","version":1,"job_types":{{"A":{{"throughputs":{{"1":{{"v100":1.0}}}},"colocated":{}}},"B":{{"throughputs":{{"1":{{"v100":1.0}}}},"colocated":{}}}}}}}"#,
        colo("B"),
        colo("A")
    );
    let mut csv = String::from("job_type,arrival_s,total_steps\n");
    for i in 0..12 {
        csv += &format!(
            "{},0,{}\n",
            if i % 2 == 1 { "B" } else { "A" },
            20000 + 1000 * i
        );
    }
    let exp = Experiment {
        cluster: "v100:4".into(),
        workload: WorkloadSource::Inline {
            name: "pairs.csv".into(),
            text: csv,
        },
        profile: ProfileSource::Inline {
            name: "pairs.json".into(),
            text: profile,
        },
        policies: vec!["max_min_fairness_packed".into()],
        fairness: false,
        ..Experiment::default()
    };
    let mut run = StepRun::new(exp.resolve().unwrap(), &exp.policies[0], exp.round_s).unwrap();
    let mut pairs = Vec::new();
    for _ in 0..12 {
        assert!(run.step());
        let b = run.board(true);
        for a in &b.areas {
            if let Area::Types(types) = a {
                for g in types.iter().flat_map(|t| t.1.iter()) {
                    if let (GpuKind::Shared(second), Some(first)) = (g.kind, g.job) {
                        assert!(
                            g.title
                                .ends_with(&format!(": jobs {first} and {second}, sharing it")),
                            "{}",
                            g.title
                        );
                        pairs.push((first, second));
                    }
                }
            }
        }
        // Each job of a pair names the other in the table.
        for (a, b2) in &pairs {
            let row = b
                .table
                .rows
                .iter()
                .find(|r| r.cells.first() == Some(&Cell::Job(*a)))
                .unwrap();
            assert!(
                row.cells
                    .iter()
                    .any(|c| matches!(c, Cell::Pair(Some((o, _))) if o == b2)),
                "{row:?}"
            );
        }
        if !pairs.is_empty() {
            break;
        }
    }
    assert!(!pairs.is_empty(), "no pair shared a GPU in 12 rounds");
}
