//! Heterogeneous clusters outside Gavel's rounds: elastic jobs on several GPU types in
//! servers of their own sizes (Sia's per-type profiles and the bundled applications' type
//! speeds), how an allocation spanning types is kept to one, and comparisons across
//! families on such a cluster.

use orrery::experiment::scenarios;

use crate::common;
use orrery::experiment::{self, Experiment, RunResult};

use common::folder_files;
use orrery::workload::Apps;
use std::path::{Path, PathBuf};

fn sia_dir() -> Option<PathBuf> {
    common::reference("sia", "Sia's heterogeneous profiles")
}

fn saturn(dir: &Path, cluster: &str, policies: &[&str]) -> Experiment {
    common::folder_experiment(
        &dir.join("workloads/saturn/workload-2.csv"),
        &dir.join("traces"),
        cluster,
        policies,
    )
}

/// `base` on `cluster`, without the isolated baseline.
fn on_cluster(base: &Experiment, cluster: &str) -> Vec<RunResult> {
    experiment::run(&Experiment {
        cluster: cluster.into(),
        fairness: false,
        ..base.clone()
    })
    .unwrap()
}

/// Each summary as JSON.
fn json(rs: &[RunResult]) -> Vec<String> {
    rs.iter()
        .map(|r| serde_json::to_string(&r.summary).unwrap())
        .collect()
}

/// `r` kept some GPUs of each of `types` busy (and none over their count).
fn assert_uses(r: &RunResult, types: &[&str]) {
    for ty in types {
        let u = r
            .summary
            .utilization_by_type
            .get(*ty)
            .copied()
            .unwrap_or(0.0);
        assert!(
            u > 0.0 && u <= 1.0,
            "{} uses {ty}: {:?}",
            r.summary.policy,
            r.summary.utilization_by_type
        );
    }
}

fn summaries(exp: &Experiment) -> Vec<String> {
    json(&experiment::run(exp).unwrap())
}

#[test]
fn sia_folders_give_speeds_per_gpu_type() {
    let Some(dir) = sia_dir() else { return };
    let apps = Apps::from_pollux_files("traces", &folder_files(&dir.join("traces"))).unwrap();
    assert_eq!(
        apps.names(),
        [
            "bert",
            "cifar10",
            "deepspeech2",
            "imagenet",
            "ncf",
            "yolov3"
        ]
    );
    // The pipeline-parallel GPT has no known length: left out, with the reason kept.
    assert_eq!(apps.unread.len(), 1);
    assert_eq!(apps.unread[0].0, "gpt_pmp");
    let cifar = &apps.apps[apps.index("cifar10").unwrap()];
    assert_eq!(
        cifar.gpu_types(),
        ["aws", "azure", "dgx", "dgx-ext", "quad", "rtx"]
    );
    // placements-aws.csv's first row: one GPU, local batch 32.
    assert_eq!(
        cifar.step_time_on(Some("aws"), &[1], 32),
        Some((0.0427886962890625, 0.0004995360016822816))
    );
    // Half-way between the rows at 32 and 45 (interpolated in the local batch).
    let (mid, _) = cifar.step_time_on(Some("aws"), &[1], 38).unwrap();
    let expect = 0.0427886962890625 + (0.05048525333404541 - 0.0427886962890625) * 6.0 / 13.0;
    assert!((mid - expect).abs() < 1e-12, "{mid} vs {expect}");
    // Each type keeps its own per-GPU batch range (Sia's README: 32-1024 on aws and rtx,
    // 32-4096 on dgx-ext), and a type no file names has no speeds.
    assert_eq!(cifar.local_range(Some("aws")), (32, 1024));
    assert_eq!(cifar.local_range(Some("dgx-ext")), (32, 4096));
    assert_eq!(cifar.step_time_on(Some("h100"), &[1], 32), None);
    // An A100 steps faster than a T4 at the same shape and batch.
    let a100 = cifar.step_time_on(Some("dgx-ext"), &[1], 128).unwrap().0;
    let t4 = cifar.step_time_on(Some("aws"), &[1], 128).unwrap().0;
    assert!(a100 < t4, "dgx-ext {a100} s vs aws {t4} s");
}

/// The issue's example: Sia's saturn workload-2 on Sia's cluster with policies of every
/// family whose needs the workload meets, in one comparison.
#[test]
fn saturn_on_sias_cluster_compares_every_family() {
    let Some(dir) = sia_dir() else { return };
    let cluster = "aws:24/4,dgx-ext:16/8,rtx:24/8";
    // Pollux's search at 20 generations: this is about the families sharing one workload.
    let policies = [
        "pollux[generations=20]",
        "tiresias",
        "optimus",
        "max_min_fairness_perf",
        "finish_time_fairness_perf",
        "fifo",
        "las",
        "pickyman",
    ];
    let exp = saturn(&dir, cluster, &policies);
    let results = experiment::run(&exp).unwrap();
    assert_eq!(results.len(), policies.len());
    for (r, p) in results.iter().zip(policies) {
        assert_eq!(r.summary.policy, p);
        assert_eq!(r.summary.num_jobs, 160, "{p}");
        assert_eq!(r.summary.unfinished, 0, "{p}: every job finishes");
        assert_uses(r, &["aws", "dgx-ext", "rtx"]);
    }
    // Each policy's numbers equal its run alone.
    let mixed = json(&results);
    for (k, p) in ["pollux[generations=20]", "tiresias", "las", "pickyman"]
        .iter()
        .enumerate()
    {
        let i = policies.iter().position(|x| x == p).unwrap();
        let alone = summaries(&saturn(&dir, cluster, &[p]));
        assert_eq!(alone[0], mixed[i], "{p} alone vs in the mix ({k})");
    }
    // The order the spec lists the types in does not matter.
    let permuted = summaries(&saturn(
        &dir,
        "rtx:24/8,aws:24/4,dgx-ext:16/8",
        &["tiresias", "las"],
    ));
    let ti = policies.iter().position(|x| *x == "tiresias").unwrap();
    let li = policies.iter().position(|x| *x == "las").unwrap();
    assert_eq!(permuted, [mixed[ti].clone(), mixed[li].clone()]);
}

#[test]
fn bundled_applications_run_on_several_types() {
    let base = Experiment {
        // Pollux's search at 20 generations: the types' speeds, not the search, set the order.
        policies: vec!["pollux[generations=20]".into(), "tiresias".into()],
        ..scenarios::scenario("pollux").unwrap().experiment()
    };
    let run = |cluster: &str| on_cluster(&base, cluster);
    let mixed = run("a100:32/8,t4:32/4");
    for r in &mixed {
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
        assert_uses(r, &["a100", "t4"]);
    }
    // Faster GPUs finish sooner: all-A100 beats all-T4 at the same size.
    let a100 = run("a100:64/8");
    let t4 = run("t4:64/4");
    for k in 0..2 {
        assert!(
            a100[k].summary.avg_jct_s < mixed[k].summary.avg_jct_s
                && mixed[k].summary.avg_jct_s < t4[k].summary.avg_jct_s,
            "{}: a100 {} < mixed {} < t4 {}",
            a100[k].summary.policy,
            a100[k].summary.avg_jct_s,
            mixed[k].summary.avg_jct_s,
            t4[k].summary.avg_jct_s
        );
    }
}

#[test]
fn clusters_the_applications_cannot_run_on_are_refused() {
    let base = scenarios::scenario("pollux").unwrap().experiment();
    let err = |cluster: &str| {
        Experiment {
            cluster: cluster.into(),
            policies: vec!["pollux".into()],
            ..base.clone()
        }
        .resolve()
        .and_then(|r| r.run_policy("pollux", None, None, |_| {}).map(|_| ()))
        .unwrap_err()
        .to_string()
    };
    let e = err("a100:32/8,mystery:32/4");
    assert!(
        e.contains("mystery")
            && e.contains("bert")
            && e.contains("a100, h100, k80, p100, t4, v100"),
        "{e}"
    );
    let e = err("a100:32/8,t4:30/6");
    assert!(e.contains("smallest servers"), "{e}");
}

/// A policy that asks for the same servers every tick.
struct Fixed(Vec<u32>);

impl orrery::policy::pollux::ElasticPolicy for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn adapts_batch(&self) -> bool {
        false
    }
    fn decide(
        &mut self,
        view: &orrery::policy::pollux::ElasticView,
        _rng: &mut orrery::rng::Rng,
    ) -> Result<Vec<Vec<u32>>, orrery::policy::PolicyError> {
        Ok(vec![self.0.clone(); view.jobs.len()])
    }
}

/// Hand-solved: servers of 4 GPUs on type `a` and of 8 on type `b` are shown to policies as
/// virtual servers of 4 (0-1 are a's servers 0-1; 2-3 and 4-5 halves of b's servers 2 and
/// 3). An allocation spanning both keeps the type holding most of it, the first in the
/// allocation on a tie.
#[test]
fn an_allocation_spanning_types_keeps_the_larger_part() {
    use orrery::model::cluster::ClusterSpec;
    use orrery::model::job::JobSpec;
    use orrery::sim::elastic::{ElasticConfig, ElasticSimulator};
    use std::sync::Arc;
    let apps = Apps::from_json(
        r#"{"format": "orrery-elastic-apps", "version": 1,
            "gpu_types": {"a": {"compute": 1.0}, "b": {"compute": 2.0}},
            "apps": {"m": {"init_batch_size": 32, "max_batch_size": 1024, "min_local_bsz": 8,
              "max_local_bsz": 128, "max_epochs": 2, "dataset_size": 100000,
              "noise_scale": [100, 1000],
              "perf": {"alpha_c": 0.01, "beta_c": 0.001, "alpha_n": 0.01, "beta_n": 0.001,
                       "alpha_r": 0.005, "beta_r": 0.0005, "gamma": 1.5}}}}"#,
        "apps.json",
    )
    .unwrap();
    let apps = Arc::new(apps);
    let run = |alloc: Vec<u32>| {
        let mut job = JobSpec::new("m", 0.0, 1.0);
        job.scale_factor = 1;
        let mut sim = ElasticSimulator::new(
            ElasticConfig::default(),
            ClusterSpec::parse("a:8/4,b:16/8").unwrap(),
            vec![job],
            apps.clone(),
            Box::new(Fixed(alloc)),
        )
        .unwrap();
        assert_eq!(sim.shape(), (6, 4));
        assert_eq!(sim.servers(), [2, 2]);
        sim.step_round();
        let st = &sim.states()[0];
        (st.gpu_type, st.placement.clone(), st.allocation.clone())
    };
    // a: 2 GPUs, b: 3 GPUs -> b's three, on real server 2 (two) and 3 (one).
    assert_eq!(
        run(vec![0, 0, 2, 3, 4]),
        (Some(1), vec![2, 1], vec![2, 3, 4])
    );
    // A tie (2 and 2) goes to the type first in the allocation.
    assert_eq!(run(vec![4, 5, 1, 1]), (Some(1), vec![2], vec![4, 5]));
    assert_eq!(run(vec![1, 1, 4, 5]), (Some(0), vec![2], vec![1, 1]));
    // The faster type trains faster: the same GPU count on b covers more ground.
    let progress = |alloc: Vec<u32>| {
        let mut job = JobSpec::new("m", 0.0, 1.0);
        job.scale_factor = 2;
        let mut sim = ElasticSimulator::new(
            ElasticConfig::default(),
            ClusterSpec::parse("a:8/4,b:16/8").unwrap(),
            vec![job],
            apps.clone(),
            Box::new(Fixed(alloc)),
        )
        .unwrap();
        sim.step_round();
        sim.step_round();
        sim.states()[0].progress
    };
    assert!(progress(vec![2, 2]) > progress(vec![0, 0]));
}

/// Hand-solved: two 1-GPU pools, `f` twice as fast as `s`, three 1-GPU jobs of 100 steps
/// at t = 0 under FIFO. Job 0 starts on f (the fastest type with room), job 1 on s, job 2
/// waits; job 0 ends at 50 s, job 2 takes its f GPU and ends at 100 s; job 1 ends at 100 s
/// on s.
#[test]
fn preemptive_pools_start_jobs_on_their_fastest_free_type() {
    use orrery::model::cluster::ClusterSpec;
    use orrery::model::job::JobSpec;
    use orrery::model::restart::{PreemptionConfig, RestartModel};
    use orrery::sim::preemptive::PreemptiveSimulator;
    use orrery::sim::SimEvent;
    use orrery::workload::Profile;
    let profile = Profile::parse(
        r#"{"format": "orrery-profile", "version": 1,
            "job_types": {"x": {"throughputs": {"1": {"f": 2.0, "s": 1.0}}}}}"#,
        "p.json",
    )
    .unwrap();
    let jobs: Vec<JobSpec> = (0..3).map(|_| JobSpec::new("x", 0.0, 100.0)).collect();
    let mut sim = PreemptiveSimulator::new(
        &ClusterSpec::parse("f:1,s:1").unwrap(),
        jobs,
        profile,
        RestartModel::with_checkpoint(PreemptionConfig::default()),
        0,
        orrery::policy::pickyman::build("fifo").unwrap(),
    )
    .unwrap();
    let mut ran = Vec::new();
    while let Some(r) = sim.step_round() {
        for e in r.events {
            if let SimEvent::Ran {
                job,
                gpu_type,
                start,
                end,
                ..
            } = e
            {
                ran.push((job, gpu_type, start, end));
            }
        }
    }
    orrery::order::sort_by_key(&mut ran, |r| r.0);
    assert_eq!(
        ran,
        [(0, 0, 0.0, 50.0), (1, 1, 0.0, 100.0), (2, 0, 50.0, 100.0)]
    );
    let finish: Vec<Option<f64>> = sim.jobs().iter().map(|j| j.finish).collect();
    assert_eq!(finish, [Some(50.0), Some(100.0), Some(100.0)]);
}

#[test]
fn pickyman_and_its_baselines_run_on_two_types() {
    let base = scenarios::pickyman_experiment();
    let run = |cluster: &str| on_cluster(&base, cluster);
    let mixed = run("v100:16,k80:16");
    assert_eq!(mixed.len(), base.policies.len());
    for r in &mixed {
        assert_eq!(r.summary.num_jobs, 400, "{}", r.summary.policy);
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
        assert_uses(r, &["v100", "k80"]);
    }
    let permuted = run("k80:16,v100:16");
    assert_eq!(json(&mixed), json(&permuted));
    // Half the V100s swapped for K80s: slower than the all-V100 cluster.
    let v100 = run("v100:32");
    assert!(mixed[0].summary.avg_jct_s > v100[0].summary.avg_jct_s);
}

#[test]
fn dl2s_world_runs_on_servers_of_two_types() {
    let base = scenarios::dl2_experiment();
    let run = |cluster: &str| on_cluster(&base, cluster);
    let mixed = run("a100:32/8,v100:32/8");
    for r in &mixed {
        assert_eq!(r.summary.unfinished, 0, "{}", r.summary.policy);
        assert_uses(r, &["a100", "v100"]);
    }
    // Slower GPUs make every heuristic slower: K80s in place of the A100s.
    let k80 = run("k80:32/8,v100:32/8");
    for (m, k) in mixed.iter().zip(&k80) {
        assert!(
            k.summary.avg_jct_s > m.summary.avg_jct_s,
            "{}: {} vs {}",
            m.summary.policy,
            k.summary.avg_jct_s,
            m.summary.avg_jct_s
        );
    }
}

/// Aryl's inference pool as a GPU type of its own: loaned T4s help training less than
/// loaned servers of the training type (V100s), loaned H100s more; without loaning the
/// pool's model does not matter.
#[test]
fn loaned_inference_servers_train_at_their_own_speed() {
    let base = Experiment {
        policies: vec!["aryl".into(), "aryl[loaning=false]".into()],
        ..scenarios::aryl_experiment()
    };
    let run = |cluster: &str| on_cluster(&base, cluster);
    let same = run("v100:128/8,inference:128/8");
    let t4 = run("v100:128/8,inference-t4:128/8");
    let h100 = run("v100:128/8,inference-h100:128/8");
    let jct = |r: &[RunResult], k: usize| r[k].summary.avg_jct_s;
    assert!(jct(&h100, 0) < jct(&same, 0) && jct(&same, 0) < jct(&t4, 0));
    assert_eq!(jct(&same, 1), jct(&t4, 1));
    assert_eq!(jct(&same, 1), jct(&h100, 1));
    let err = Experiment {
        cluster: "v100:128/8,inference-x9:128/8".into(),
        ..base.clone()
    }
    .resolve()
    .and_then(|r| r.run_policy("aryl", None, None, |_| {}).map(|_| ()))
    .unwrap_err()
    .to_string();
    assert!(err.contains("'x9'"), "{err}");
}

/// Pollux's heterogeneity-aware form: on one type it is Pollux to the last digit; on Sia's
/// cluster every job finishes and every type is used.
#[test]
fn pollux_per_type_is_pollux_on_one_type_and_runs_on_three() {
    let base = scenarios::scenario("pollux").unwrap().experiment();
    let one = summaries(&Experiment {
        policies: vec![
            "pollux[generations=20]".into(),
            "pollux[generations=20,per_type=true]".into(),
        ],
        fairness: false,
        ..base
    });
    assert_eq!(
        one[1],
        one[0].replacen(
            "\"policy\":\"pollux[generations=20]\"",
            "\"policy\":\"pollux[generations=20,per_type=true]\"",
            1
        )
    );
    let Some(dir) = sia_dir() else { return };
    let p = "pollux[generations=20,per_type=true]";
    let r = experiment::run(&saturn(&dir, "aws:24/4,dgx-ext:16/8,rtx:24/8", &[p])).unwrap();
    assert_eq!(r[0].summary.unfinished, 0);
    assert_eq!(r[0].summary.num_jobs, 160);
    assert_uses(&r[0], &["aws", "dgx-ext", "rtx"]);
}
