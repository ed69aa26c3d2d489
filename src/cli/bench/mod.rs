//! `orrery bench`: timings against their targets.

use orrery::experiment::scenarios;

mod catalog;
mod dl2;
mod philly;
mod sia;

pub(crate) use catalog::*;
pub(crate) use dl2::*;
pub(crate) use philly::*;
pub(crate) use sia::*;

use super::*;

#[derive(serde::Serialize, Debug)]
pub(crate) struct BenchRow {
    pub(crate) name: String,
    pub(crate) input: String,
    pub(crate) reps: usize,
    /// How `time_s` summarises the repetitions: "median" or "mean".
    pub(crate) stat: &'static str,
    pub(crate) time_s: f64,
    pub(crate) min_s: f64,
    pub(crate) target_s: Option<f64>,
    pub(crate) ratio: Option<f64>,
}

impl BenchRow {
    /// A row reporting the median of `times`.
    pub(crate) fn new(name: String, input: String, times: Vec<f64>, target_s: Option<f64>) -> Self {
        Self::with_stat(name, input, times, target_s, "median")
    }

    pub(crate) fn with_stat(
        name: String,
        input: String,
        mut times: Vec<f64>,
        target_s: Option<f64>,
        stat: &'static str,
    ) -> Self {
        orrery::order::sort_floats(&mut times);
        let time_s = if stat == "mean" {
            orrery::metrics::mean(&times)
        } else {
            orrery::metrics::percentile(&times, 50.0)
        };
        BenchRow {
            name,
            input,
            reps: times.len(),
            stat,
            time_s,
            min_s: times.first().copied().unwrap_or(0.0),
            target_s,
            ratio: target_s.map(|t| time_s / t),
        }
    }
}

pub(crate) fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// GPUs per type so that `n` single-GPU jobs contend (about half run at once).
pub(crate) fn scaled_cluster(n: usize) -> CliResult<ClusterSpec> {
    let per = n.div_ceil(6).max(1);
    ClusterSpec::parse(&format!("{per}:{per}:{per}")).map_err(|e| CliError::Failure(e.to_string()))
}

pub(crate) fn gen_jobs(
    profile: &Profile,
    cluster: &ClusterSpec,
    n: usize,
    jobs_per_hour: f64,
) -> CliResult<Trace> {
    let cfg = GeneratorConfig {
        num_jobs: n,
        jobs_per_hour,
        multi_gpu: false,
        priority_weights: false,
        elastic_fraction: 0.0,
        duration_scale: 1.0,
        seed: 0,
        dl2: None,
    };
    generate(profile, cluster, &cfg).map_err(|e| CliError::Failure(e.to_string()))
}

/// The owned data behind a hand-built [`PolicyView`] (every job active at t = 0).
pub(crate) struct BenchWorld {
    pub(crate) cluster: ClusterSpec,
    pub(crate) specs: Vec<JobSpec>,
    pub(crate) thr: Vec<Vec<f64>>,
    pub(crate) time: Vec<f64>,
}

impl BenchWorld {
    fn new(cluster: ClusterSpec, specs: Vec<JobSpec>, profile: &Profile) -> Self {
        let thr = specs
            .iter()
            .map(|s| profile.throughputs_on(&s.job_type, s.scale_factor, &cluster))
            .collect();
        let time = vec![0.0; cluster.num_types()];
        BenchWorld {
            cluster,
            specs,
            thr,
            time,
        }
    }

    fn view(&self) -> PolicyView<'_> {
        PolicyView {
            now: 0.0,
            round_len: 360.0,
            cluster: &self.cluster,
            jobs: self
                .specs
                .iter()
                .enumerate()
                .map(|(i, s)| JobView {
                    id: i,
                    spec: s,
                    throughput: &self.thr[i],
                    steps_remaining: s.total_steps,
                    attained_service: 0.0,
                    time_since_arrival: 0.0,
                    time_on_type: &self.time,
                    running_on: None,
                    rounds_run: 0,
                })
                .collect(),
            colocation: None,
            gavel_compat: false,
        }
    }
}

pub(crate) fn time_it<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t0 = Instant::now();
    let v = f();
    (t0.elapsed().as_secs_f64(), v)
}

pub(crate) fn reference_dir(given: Option<&Path>) -> CliResult<Option<PathBuf>> {
    let has_files = |d: &Path| {
        d.join("static100_seed0.trace").is_file() && d.join("simulation_throughputs.json").is_file()
    };
    if let Some(d) = given {
        if has_files(d) {
            return Ok(Some(d.to_path_buf()));
        }
        return Err(CliError::Input(format!(
            "--reference '{}' lacks static100_seed0.trace or simulation_throughputs.json",
            d.display()
        )));
    }
    let candidates = [
        PathBuf::from("../shared/reference/gavel"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/gavel"),
    ];
    Ok(candidates.into_iter().find(|d| has_files(d)))
}

/// A whole run of `max_min_fairness_perf` in Gavel-compatible mode, repeated.
pub(crate) fn bench_whole_run(exp: &Experiment, reps: usize) -> CliResult<(Vec<f64>, usize)> {
    let r = exp.resolve()?;
    let mut times = Vec::with_capacity(reps);
    let mut finished = 0;
    for _ in 0..reps {
        let policy = exp
            .policies
            .first()
            .map_or("max_min_fairness_perf", String::as_str);
        let (t, res) = time_it(|| r.run_policy(policy, None, None, |_| {}));
        let res = res?;
        finished = res.summary.num_jobs;
        times.push(t);
    }
    Ok((times, finished))
}

/// The throughputs with colocated pairs for the packed benchmarks: Gavel's when the
/// reference folder is there, else `profile` with seeded synthetic pair throughputs.
pub(crate) fn bench_pair_profile(
    reference: Option<&Path>,
    profile: &Profile,
    profile_name: &str,
) -> CliResult<(Profile, String)> {
    use orrery::workload::profile::ColocatedEntry;
    Ok(match reference_dir(reference)? {
        Some(d) => {
            let f = d.join("simulation_throughputs.json");
            let text = read_file(&f, "profile")?;
            let p = Profile::parse(&text, &f.display().to_string())
                .map_err(|e| CliError::Input(e.to_string()))?;
            (p, format!("Gavel's {}", f.display()))
        }
        None => {
            // Each pair of types shares at 0.3-1x its isolated rates, the same factor
            // for both of two jobs of one type.
            let mut p = profile.clone();
            let mut rng = orrery::rng::Rng::new(0);
            let names = p.job_type_names();
            for (i, x) in names.iter().enumerate() {
                for y in &names[i..] {
                    for g in p.gpu_types() {
                        let (Some(tx), Some(ty)) = (p.throughput(x, 1, &g), p.throughput(y, 1, &g))
                        else {
                            continue;
                        };
                        let fx = rng.range(0.3, 1.0);
                        let fy = if x == y { fx } else { rng.range(0.3, 1.0) };
                        for (a, b, ta, tb) in [(x, y, tx * fx, ty * fy), (y, x, ty * fy, tx * fx)] {
                            if let Some(jt) = p.job_types.get_mut(a) {
                                jt.colocated.push(ColocatedEntry {
                                    scale: 1,
                                    with: b.clone(),
                                    with_scale: 1,
                                    gpu: g.clone(),
                                    this: ta,
                                    other: tb,
                                });
                            }
                            if x == y {
                                break;
                            }
                        }
                    }
                }
            }
            (
                p,
                format!("{profile_name} with seeded synthetic pair throughputs (0.3-1x isolated)"),
            )
        }
    })
}

pub(crate) fn cmd_bench(a: BenchArgs) -> CliResult<()> {
    if cfg!(debug_assertions) {
        note("warning: this is a debug build; use `cargo run --release -- bench` for meaningful timings");
    }
    let (profile, profile_name) = load_profile(None)?;
    let mut rows: Vec<BenchRow> = Vec::new();
    let on = |group: &str| a.only.as_deref().is_none_or(|w| group.contains(w));
    let progress = |what: &str| {
        if std::io::stderr().is_terminal() {
            note(&format!("bench: {what}..."));
        }
    };

    // Every catalog policy on every bundled scenario (minutes): only when asked by name.
    if catalog_asked(a.only.as_deref()) {
        bench_catalog(&mut rows, &progress)?;
        return print_bench(&rows, a.format);
    }

    // (a) One max_min_fairness_perf LP solve.
    for &n in &[32usize, 128, 512, 2048] {
        if !on("lp") {
            break;
        }
        progress(&format!("LP at {n} jobs"));
        let cluster = scaled_cluster(n)?;
        let label = format!(
            "{n} single-GPU jobs ({profile_name}, seed 0) on {}",
            cluster_label(&cluster)
        );
        let trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        let world = BenchWorld::new(cluster, trace.jobs, &profile);
        let view = world.view();
        let reps = match (a.quick, n >= 2048) {
            (true, _) => 2,
            (false, true) => 3,
            (false, false) => 7,
        };
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let (t, res) = time_it(|| MaxMinFairness::solve(&view, true));
            res.map_err(|e| CliError::Failure(format!("LP at {n} jobs failed: {e}")))?;
            times.push(t);
        }
        let target = match n {
            512 => Some(0.002),
            2048 => Some(0.010),
            _ => None,
        };
        // The policy's solve works per class of identical jobs (Gavel's job types); the
        // same method over every job, for comparison, gives the same bits.
        let scale: Vec<f64> = view.jobs.iter().map(|j| f64::from(j.scale())).collect();
        let coef = MaxMinFairness::coefficients(&view, true);
        let classes = orrery::policy::gavel::solve::job_classes::JobClasses::new(&scale, &coef);
        rows.push(BenchRow::new(
            format!("LP max_min_fairness_perf, {n} jobs"),
            format!("{label}; {} classes of identical jobs", classes.first.len()),
            times,
            target,
        ));
        let counts = view.counts();
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let lp = orrery::policy::gavel::solve::ipm::BlockLp::max_min(&scale, &counts, &coef);
            let (t, res) = time_it(|| lp.solve_lp());
            res.ok_or_else(|| CliError::Failure(format!("LP at {n} jobs stalled")))?;
            times.push(t);
        }
        rows.push(BenchRow::new(
            format!("LP max_min_fairness_perf, {n} jobs, job by job"),
            format!("{label}; the structured method over every job"),
            times,
            None,
        ));
    }

    // (a') One max_min_fairness_packed LP solve (space sharing): every pair of single-GPU
    // jobs that can share GPUs is a row (Gavel's simulator takes 49 s at 512 jobs). Gavel's
    // throughputs with their colocated pairs when the reference folder is there, else the
    // bundled profile with seeded synthetic pair throughputs.
    if on("lp packed") {
        use orrery::workload::Colocation;
        let (pair_profile, pair_source) =
            bench_pair_profile(a.reference.as_deref(), &profile, &profile_name)?;
        // The policy as registered (solved over classes of interchangeable jobs), then one
        // row per job and pair as Gavel's LP has it.
        for (n, spec, target) in [
            (128usize, "max_min_fairness_packed", None),
            (512, "max_min_fairness_packed", Some(1.0)),
            (128, "max_min_fairness_packed[by_class=false]", None),
            (512, "max_min_fairness_packed[by_class=false]", None),
        ] {
            progress(&format!("packed LP at {n} jobs, {spec}"));
            let cluster = scaled_cluster(n)?;
            let trace = gen_jobs(&pair_profile, &cluster, n, 0.0)?;
            let world = BenchWorld::new(cluster.clone(), trace.jobs, &pair_profile);
            let col = Colocation::new(&pair_profile, &cluster, &world.specs);
            let mut view = world.view();
            view.colocation = Some(&col);
            let per_job = spec.contains("by_class=false");
            let reps = match (a.quick, n >= 512, per_job) {
                (true, _, _) | (false, true, true) => 1,
                (false, true, false) => 5,
                (false, false, _) => 7,
            };
            let mut times = Vec::with_capacity(reps);
            let mut pairs = 0;
            for _ in 0..reps {
                let mut pol = policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
                let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
                match res {
                    Ok(orrery::policy::Decision::Allocation(alloc)) => pairs = alloc.pairs.len(),
                    Ok(_) => return Err(CliError::Failure(format!("{spec} gave no allocation"))),
                    Err(e) => {
                        return Err(CliError::Failure(format!(
                            "packed LP at {n} jobs failed: {e}"
                        )))
                    }
                }
                times.push(t);
            }
            rows.push(BenchRow::new(
                format!(
                    "LP max_min_fairness_packed, {n} jobs{}",
                    if per_job {
                        ", one row per job and pair"
                    } else {
                        ""
                    }
                ),
                format!(
                    "{n} single-GPU jobs ({pair_source}, seed 0) on {}; {pairs} pairs; {}",
                    cluster_label(&cluster),
                    if per_job {
                        "by_class=false"
                    } else {
                        "solved over classes of jobs"
                    }
                ),
                times,
                target,
            ));
        }
    }

    // (a'') One AlloX matching (min-cost assignment of the waiting jobs to the free GPUs
    // and their queue positions; Gavel's simulator takes 104 s at 512 jobs).
    for (n, target) in [(128usize, None), (512, Some(1.0))] {
        use orrery::policy::Policy as _;
        if !on("lp allox") {
            break;
        }
        progress(&format!("AlloX matching at {n} jobs"));
        let cluster = scaled_cluster(n)?;
        let label = format!(
            "{n} single-GPU jobs ({profile_name}, seed 0) on {}, none placed yet",
            cluster_label(&cluster)
        );
        let trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        let world = BenchWorld::new(cluster, trace.jobs, &profile);
        let view = world.view();
        let reps = if a.quick { 1 } else { 3 };
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let mut pol = orrery::policy::gavel::allox::Allox::new("allox", 1.0);
            let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
            res.map_err(|e| CliError::Failure(format!("AlloX at {n} jobs failed: {e}")))?;
            times.push(t);
        }
        rows.push(BenchRow::new(
            format!("AlloX matching, {n} jobs"),
            label,
            times,
            target,
        ));
    }

    // (a'') One solve of every LP policy at 128 and 512 single-GPU jobs on the 3-type
    // cluster (Gavel's throughputs and pairs when the reference is there): priced at AWS's
    // on-demand rates (for the cost policies), every fourth job with a deadline at three
    // times its duration on its fastest type (for the SLO policies), jobs spread over four
    // entities (for hierarchical). Packed policies get the colocated pairs.
    // The per-pair bisections at 512 jobs (finish_time_fairness_packed and
    // min_total_duration_packed: a row per pair of jobs, 128,418 at 512) take minutes: they
    // form the group "lp bisections", run by `--only lp` but not `--only "lp all"`.
    if on("lp all") || on("lp bisections") {
        use orrery::workload::Colocation;
        let (pair_profile, pair_source) =
            bench_pair_profile(a.reference.as_deref(), &profile, &profile_name)?;
        const LP_POLICIES: [&str; 17] = [
            "max_min_fairness",
            "max_min_fairness_perf",
            "max_min_fairness_packed",
            "finish_time_fairness",
            "finish_time_fairness_perf",
            "finish_time_fairness_packed",
            "min_total_duration",
            "min_total_duration_perf",
            "min_total_duration_packed",
            "max_sum_throughput_perf",
            "max_min_fairness_water_filling",
            "max_min_fairness_water_filling_perf",
            "max_min_fairness_water_filling_packed",
            "hierarchical[weights=e0:2;e1:1;e2:1;e3:0.5]",
            "max_sum_throughput_normalized_by_cost_perf",
            "max_sum_throughput_normalized_by_cost_perf_slos",
            "max_sum_throughput_normalized_by_cost_packed_slos",
        ];
        for n in [128usize, 512] {
            let mut cluster = scaled_cluster(n)?;
            for t in &mut cluster.types {
                t.price_per_hour = match t.name.as_str() {
                    "v100" => Some(3.06),
                    "p100" => Some(1.35),
                    "k80" => Some(0.9),
                    _ => None,
                };
            }
            let mut trace = gen_jobs(&pair_profile, &cluster, n, 0.0)?;
            for (i, j) in trace.jobs.iter_mut().enumerate() {
                j.entity = Some(format!("e{}", i % 4));
                if i % 4 == 0 {
                    let best = pair_profile
                        .throughputs_on(&j.job_type, j.scale_factor, &cluster)
                        .into_iter()
                        .fold(0.0, f64::max);
                    if best > 0.0 {
                        j.slo = Some(3.0 * j.total_steps / best);
                    }
                }
            }
            let world = BenchWorld::new(cluster.clone(), trace.jobs, &pair_profile);
            let col = Colocation::new(&pair_profile, &cluster, &world.specs);
            for spec in LP_POLICIES {
                let name = spec.split('[').next().unwrap_or(spec);
                let slow = n >= 512
                    && matches!(
                        name,
                        "finish_time_fairness_packed" | "min_total_duration_packed"
                    );
                if !on(if slow { "lp bisections" } else { "lp all" }) {
                    continue;
                }
                progress(&format!("{name} at {n} jobs"));
                let mut view = world.view();
                let packed = policy::build(spec)
                    .map_err(|e| CliError::Failure(e.to_string()))?
                    .traits()
                    .packing;
                if packed {
                    view.colocation = Some(&col);
                }
                // The per-pair bisections at 512 jobs: one repetition.
                let reps = match (a.quick, n >= 512, slow) {
                    (true, _, _) | (false, _, true) => 1,
                    (false, true, false) => 3,
                    (false, false, false) => 5,
                };
                let mut times = Vec::with_capacity(reps);
                for _ in 0..reps {
                    let mut pol =
                        policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
                    let (t, res) = time_it(|| pol.decide(&view, &mut orrery::rng::Rng::new(0)));
                    res.map_err(|e| CliError::Failure(format!("{spec} at {n} jobs failed: {e}")))?;
                    times.push(t);
                }
                let target = match (name, n) {
                    ("finish_time_fairness_perf", 512) => Some(0.050),
                    ("max_min_fairness_packed", 512) => Some(1.0),
                    ("finish_time_fairness_packed" | "min_total_duration_packed", 512) => Some(5.0),
                    _ => None,
                };
                rows.push(BenchRow::new(
                    format!("LP solve {name}, {n} jobs"),
                    format!(
                        "{n} single-GPU jobs ({pair_source}, seed 0) on {}{}",
                        cluster_label(&cluster),
                        if packed { ", with pairs" } else { "" }
                    ),
                    times,
                    target,
                ));
            }
        }
    }

    // (b) The mechanism per round at 2048 active jobs. Jobs are made long enough that none
    // finishes, so after the first round (the LP solve) the allocation is not recomputed and
    // a round is the mechanism alone; rounds where the policy decided are left out.
    if on("mechanism") {
        let n = 2048;
        let cluster = scaled_cluster(n)?;
        let mut trace = gen_jobs(&profile, &cluster, n, 0.0)?;
        for j in &mut trace.jobs {
            j.total_steps *= 1e6;
        }
        let rounds = if a.quick { 10 } else { 50 };
        for (spec, target, what) in [
            (
                "max_min_fairness_perf",
                Some(0.001),
                "allocation mechanism, LP excluded",
            ),
            ("las", None, "order mechanism, decide (a sort) included"),
        ] {
            progress(&format!("rounds at {n} jobs with {spec}"));
            let pol = policy::build(spec).map_err(|e| CliError::Failure(e.to_string()))?;
            let mut sim = Simulator::new(
                SimConfig::default(),
                cluster.clone(),
                trace.jobs.clone(),
                profile.clone(),
                pol,
            )
            .map_err(|e| CliError::Failure(e.to_string()))?;
            // Warm-up round: admission and the first decision.
            sim.step_round();
            let mut times = Vec::with_capacity(rounds);
            let mut skipped = 0;
            for _ in 0..rounds {
                let (t, rep) = time_it(|| sim.step_round());
                let Some(rep) = rep else { break };
                let decided = rep
                    .events
                    .iter()
                    .any(|e| matches!(e, SimEvent::Decided { .. }));
                if decided && spec != "las" {
                    skipped += 1;
                } else {
                    times.push(t);
                }
            }
            if times.is_empty() {
                return Err(CliError::Failure(format!(
                    "no round of {spec} could be measured"
                )));
            }
            rows.push(BenchRow::with_stat(
                format!("round at {n} active jobs, {spec}"),
                format!(
                    "{what}; mean of {} rounds{}; {} on {}",
                    times.len(),
                    if skipped > 0 {
                        format!(" ({skipped} with a decision skipped)")
                    } else {
                        String::new()
                    },
                    profile_name,
                    cluster_label(&cluster)
                ),
                times,
                target,
                "mean",
            ));
        }
    }

    // (c) A whole static run: 100 jobs at t = 0 on 36:36:36.
    if on("static") {
        progress("static run of 100 jobs");
        let reference = reference_dir(a.reference.as_deref())?;
        let (workload, prof, input) = match &reference {
            Some(d) => {
                let trace = d.join("static100_seed0.trace");
                let thr = d.join("simulation_throughputs.json");
                (
                    WorkloadSource::Inline {
                        name: trace.display().to_string(),
                        text: read_file(&trace, "trace")?,
                    },
                    ProfileSource::Inline {
                        name: thr.display().to_string(),
                        text: read_file(&thr, "profile")?,
                    },
                    format!("Gavel reference {}", trace.display()),
                )
            }
            None => (
                WorkloadSource::Generated(GeneratorConfig {
                    num_jobs: 100,
                    jobs_per_hour: 0.0,
                    multi_gpu: false,
                    priority_weights: false,
                    elastic_fraction: 0.0,
                    duration_scale: 1.0,
                    seed: 0,
                    dl2: None,
                }),
                ProfileSource::Preset {
                    name: "gavel-types".into(),
                },
                "generated 100 jobs at t = 0 (seed 0), bundled gavel-types profile".to_string(),
            ),
        };
        let exp = bench_experiment(workload, prof);
        let (times, finished) = bench_whole_run(&exp, if a.quick { 2 } else { 5 })?;
        rows.push(BenchRow::new(
            "static run, 100 jobs, max_min_fairness_perf".into(),
            format!("{input}; 36:36:36, Gavel-compatible, {finished} jobs finished"),
            times,
            Some(0.050),
        ));
    }

    // (d) A continuous run: 1,500 jobs at 5 jobs/hour.
    if on("continuous") {
        progress("continuous run of 1500 jobs");
        let exp = bench_experiment(
            WorkloadSource::Generated(GeneratorConfig {
                num_jobs: 1500,
                jobs_per_hour: 5.0,
                multi_gpu: false,
                priority_weights: false,
                elastic_fraction: 0.0,
                duration_scale: 1.0,
                seed: 0,
                dl2: None,
            }),
            ProfileSource::Preset {
                name: "gavel-types".into(),
            },
        );
        let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 3 })?;
        rows.push(BenchRow::new(
            "continuous run, 1500 jobs, max_min_fairness_perf".into(),
            format!("generated at 5 jobs/h (seed 0), bundled gavel-types profile; 36:36:36, Gavel-compatible, {finished} jobs finished"),
            times,
            Some(0.100),
        ));
    }

    // (e) Pollux's setting: 160 elastic jobs over 8 hours on 16 servers x 4 GPUs, each
    // elastic policy in turn (Pollux's own Python simulator needs up to about 30 minutes).
    for (policy, target) in [
        ("pollux", Some(10.0)),
        ("tiresias", None),
        ("optimus", None),
    ] {
        if !on("elastic pollux") {
            break;
        }
        progress(&format!("160-job elastic run with {policy}"));
        let exp = Experiment {
            policies: vec![policy.into()],
            ..scenarios::pollux_experiment()
        };
        let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 3 })?;
        rows.push(BenchRow::new(
            format!("elastic run, 160 jobs, {policy}"),
            format!("bundled pollux scenario (generated, seed 1, pollux-apps profile); 16 servers x 4 GPUs, 60 s ticks; {finished} jobs finished"),
            times,
            target,
        ));
    }

    // (e') Sia: one decision at its 64-GPU setting and at 32 times its size.
    if on("elastic sia") {
        bench_sia(&mut rows, a.quick, &progress)?;
    }

    // (f) Aryl at scale: 50,000 jobs over about 15 days on 2,048 training GPUs with 2,048
    // inference GPUs under a daily load.
    if on("pooled aryl") {
        progress("50,000-job pooled run with aryl");
        let mut exp = scenarios::aryl_experiment();
        exp.cluster = "v100:2048/8,inference:2048/8".into();
        exp.policies = vec!["aryl".into()];
        exp.workload = WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 50_000,
            jobs_per_hour: 139.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.5,
            duration_scale: 1.0,
            seed: 1,
            dl2: None,
        });
        let (times, finished) = bench_whole_run(&exp, 1)?;
        rows.push(BenchRow::new(
            "pooled run, 50,000 jobs, aryl".into(),
            format!("generated at 139 jobs/h (15 days of arrivals, half elastic, seed 1), gavel-types profile; v100:2048/8 + inference:2048/8, diurnal load, 60 s ticks; {finished} jobs finished"),
            times,
            Some(30.0),
        ));
    }

    // (f') Production scale: the Philly trace (about 82,000 jobs) replayed on 2,496 GPUs
    // by four policies, when Sia's copy of it is there.
    if on("philly") {
        bench_philly(&mut rows, &progress)?;
    }

    // (g') DL2: the bundled network's inference per decision, the slot simulator running
    // it on the dl2 scenario, and training throughput.
    if on("dl2") {
        bench_dl2(&mut rows, a.quick, &progress)?;
    }

    // (g) PickyMan: one choice of victims among 1,000 running jobs, then whole preemptive
    // runs.
    if on("preemptive pickyman") {
        use orrery::policy::pickyman::victims::{greedy, Candidate};
        progress("victim choice among 1,000 running jobs");
        let mut rng = orrery::rng::Rng::new(0);
        let cands: Vec<Candidate> = (0..1000)
            .map(|job| Candidate {
                job,
                gpus: [1, 1, 2, 4, 8][rng.below(5) as usize],
                release_s: rng.range(0.0, 3600.0),
                loss_s: rng.range(5.0, 120.0),
            })
            .collect();
        for need in [1u32, 8, 64] {
            let reps = if a.quick { 5 } else { 51 };
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let (t, c) = time_it(|| greedy(&cands, need));
                c.ok_or_else(|| CliError::Failure("no victims found".into()))?;
                times.push(t);
            }
            rows.push(BenchRow::new(
                format!(
                    "victim choice, 1,000 running jobs, {need} GPU{} needed",
                    if need == 1 { "" } else { "s" }
                ),
                "1,000 candidates of 1-8 GPUs, releases 0-3,600 s, losses 5-120 s (seed 0); greedy sweep".into(),
                times,
                (need == 8).then_some(0.001),
            ));
        }
        for policy in ["pickyman", "srtf"] {
            progress(&format!("pickyman scenario with {policy}"));
            let exp = Experiment {
                policies: vec![policy.into()],
                ..scenarios::pickyman_experiment()
            };
            let (times, finished) = bench_whole_run(&exp, if a.quick { 1 } else { 5 })?;
            rows.push(BenchRow::new(
                format!("preemptive run, 400 jobs, {policy}"),
                format!("bundled pickyman scenario (generated at 20 jobs/h, durations / 10, seed 1); v100:32; {finished} jobs finished"),
                times,
                None,
            ));
        }
        progress("20,000-job preemptive run with pickyman");
        let mut exp = scenarios::pickyman_experiment();
        exp.cluster = "v100:2048".into();
        exp.policies = vec!["pickyman".into()];
        exp.workload = WorkloadSource::Generated(GeneratorConfig {
            num_jobs: 20_000,
            jobs_per_hour: 600.0,
            multi_gpu: true,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 0.1,
            seed: 1,
            dl2: None,
        });
        let (times, finished) = bench_whole_run(&exp, 1)?;
        rows.push(BenchRow::new(
            "preemptive run, 20,000 jobs, pickyman".into(),
            format!("generated at 600 jobs/h (durations / 10, seed 1), gavel-types profile; v100:2048; {finished} jobs finished"),
            times,
            None,
        ));
    }

    print_bench(&rows, a.format)
}

/// Print the rows as a table with their inputs, or as JSON.
fn print_bench(rows: &[BenchRow], format: ListFormat) -> CliResult<()> {
    let text = match format {
        ListFormat::Json => to_json(&rows)?,
        ListFormat::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.name.clone(),
                        format!("{} ({})", fmt_time(r.time_s), r.stat),
                        r.reps.to_string(),
                        r.target_s.map(fmt_time).unwrap_or_else(|| "-".into()),
                        r.ratio
                            .map(|x| format!("{x:.2}x"))
                            .unwrap_or_else(|| "-".into()),
                    ]
                })
                .collect();
            let mut s = render_table(&["benchmark", "time", "reps", "target", "ratio"], &table);
            s.push_str("\nInputs:\n");
            for r in rows {
                s.push_str(&format!("  {}: {}\n", r.name, r.input));
            }
            s
        }
    };
    print_stdout(&text)
}

pub(crate) fn cluster_label(c: &ClusterSpec) -> String {
    c.types
        .iter()
        .map(|t| format!("{}:{}", t.name, t.count))
        .collect::<Vec<_>>()
        .join(",")
}

pub(crate) fn bench_experiment(workload: WorkloadSource, profile: ProfileSource) -> Experiment {
    Experiment {
        cluster: "36:36:36".into(),
        workload,
        profile,
        policies: vec!["max_min_fairness_perf".into()],
        seed: 0,
        round_s: 360.0,
        gavel_compat: true,
        restart_cost_s: 0.0,
        window: None,
        fairness: false,
        ..scenarios::default_experiment()
    }
}
