//! `orrery bench`'s Sia figures: one decision (goodput matrix, integer program and
//! placement) at Sia's 64-GPU setting and at 32 times its size, timed inside a run, and one
//! interval stepped as the page's stepping worker steps it.

use orrery::experiment::scenarios;

use crate::cli::*;
use orrery::experiment::stepping::StepRun;
use orrery::policy::pollux::{ElasticPolicy, ElasticView, Explanation};
use orrery::policy::PolicyError;
use orrery::sim::elastic::{ElasticConfig, ElasticSimulator};

/// An elastic policy that times every decision of the policy it wraps, with the number of
/// jobs it decided for (shared with the caller).
struct TimedElastic {
    inner: Box<dyn ElasticPolicy>,
    decisions: std::rc::Rc<std::cell::RefCell<Vec<(f64, usize)>>>,
}

impl ElasticPolicy for TimedElastic {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn adapts_batch(&self) -> bool {
        self.inner.adapts_batch()
    }

    fn per_type_models(&self) -> bool {
        self.inner.per_type_models()
    }

    fn explanation(&self) -> Option<&Explanation> {
        self.inner.explanation()
    }

    fn decide(
        &mut self,
        view: &ElasticView,
        rng: &mut orrery::rng::Rng,
    ) -> Result<Vec<Vec<u32>>, PolicyError> {
        let t0 = Instant::now();
        let out = self.inner.decide(view, rng);
        self.decisions
            .borrow_mut()
            .push((t0.elapsed().as_secs_f64(), view.jobs.len()));
        out
    }
}

/// The decisions of `spec` on the experiment `exp` until `until_s` simulated seconds (or
/// the end): each decision's seconds and jobs.
fn timed_decisions(exp: &Experiment, spec: &str, until_s: f64) -> CliResult<Vec<(f64, usize)>> {
    let fail = |e: String| CliError::Failure(format!("sia bench: {e}"));
    let r = exp.resolve().map_err(|e| fail(e.to_string()))?;
    let apps = r
        .apps()
        .cloned()
        .ok_or_else(|| fail("not an elastic experiment".into()))?;
    let decisions = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let policy = TimedElastic {
        inner: orrery::policy::catalog::build_elastic(spec).map_err(|e| fail(e.to_string()))?,
        decisions: std::rc::Rc::clone(&decisions),
    };
    let cfg = ElasticConfig {
        interval: exp.round_s,
        restart: exp.restart_model(),
        seed: exp.seed,
        ..ElasticConfig::default()
    };
    let mut sim = ElasticSimulator::new(
        cfg,
        r.cluster.clone(),
        r.trace.jobs.clone(),
        apps,
        Box::new(policy),
    )
    .map_err(|e| fail(e.to_string()))?;
    while sim.now() < until_s && sim.step_round().is_some() {}
    let out = decisions.borrow().clone();
    Ok(out)
}

/// A row of the decisions `d` (seconds, jobs): `input` gets their count and the most jobs
/// one decided for.
fn decision_row(
    name: &str,
    d: &[(f64, usize)],
    input: impl FnOnce(usize, usize) -> String,
    target_s: Option<f64>,
) -> BenchRow {
    let most = d.iter().map(|x| x.1).max().unwrap_or(0);
    BenchRow::new(
        name.into(),
        input(d.len(), most),
        d.iter().map(|x| x.0).collect(),
        target_s,
    )
}

/// Seconds of each of `timed` intervals (simulation, models fitted to new observations,
/// decision and the board) after `skip` intervals of `policy`'s stepped run.
fn stepped_intervals(
    exp: &Experiment,
    policy: &str,
    skip: usize,
    timed: usize,
) -> CliResult<Vec<f64>> {
    let mut run = StepRun::new(exp.resolve()?, policy, exp.round_s)?;
    let mut interval = || {
        run.step();
        run.board(false);
    };
    for _ in 0..skip {
        interval();
    }
    Ok((0..timed).map(|_| time_it(&mut interval).0).collect())
}

/// The Sia rows: a decision at 64 GPUs and 160 jobs over a whole run, and at 2,048 GPUs and
/// 5,120 jobs over the first three simulated hours; one stepped interval at 64 GPUs.
pub(crate) fn bench_sia(
    rows: &mut Vec<BenchRow>,
    quick: bool,
    progress: &dyn Fn(&str),
) -> CliResult<()> {
    progress("sia decisions at 64 GPUs");
    let exp = Experiment {
        policies: vec!["sia".into()],
        ..scenarios::sia_experiment()
    };
    let d = timed_decisions(&exp, "sia", f64::INFINITY)?;
    rows.push(decision_row(
        "sia decision, 64 GPUs of 3 types, 160 jobs",
        &d,
        |n, most| format!("bundled sia scenario ({}), whole run: {n} decisions, up to {most} jobs each; goodput matrix, integer program and placement", exp.cluster),
        Some(0.013),
    ));
    progress("sia intervals stepped");
    let steps = stepped_intervals(&exp, "sia", 60, 20)?;
    rows.push(BenchRow::new(
        "sia interval stepped, 64 GPUs, 160 jobs".into(),
        format!("the sia link's run ({}) stepped as the page's worker steps it: intervals 61-80, each with its board", exp.cluster),
        steps,
        None,
    ));
    // The setting Sia's 13-16 ms were measured in: saturn workload-2 on Sia's cluster.
    let sia_ref = [
        PathBuf::from("../shared/reference/sia"),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/sia"),
    ]
    .into_iter()
    .find(|d| d.join("workloads/saturn/workload-2.csv").is_file() && d.join("traces").is_dir());
    if let Some(dir) = sia_ref {
        progress("sia decisions on saturn workload-2");
        let trace = dir.join("workloads/saturn/workload-2.csv");
        let saturn = Experiment {
            cluster: "aws:24/4,dgx-ext:16/8,rtx:24/8".into(),
            workload: WorkloadSource::Inline {
                name: trace.display().to_string(),
                text: read_file(&trace, "trace")?,
            },
            profile: ProfileSource::Files {
                name: "traces".into(),
                files: read_folder(&dir.join("traces"))?,
            },
            ..exp.clone()
        };
        let d = timed_decisions(&saturn, "sia", f64::INFINITY)?;
        rows.push(decision_row(
            "sia decision, saturn workload-2, 64 GPUs, 160 jobs",
            &d,
            |n, most| format!("Sia's workload and profiles ({}), its cluster: {n} decisions, up to {most} jobs each (Sia's CBC: 13-16 ms median here)", dir.display()),
            Some(0.013),
        ));
    }
    progress("sia decisions at 2,048 GPUs");
    let mut big = exp.clone();
    big.cluster = "t4:768/4,a100:512/8,v100:768/8".into();
    if let WorkloadSource::Generated(g) = &mut big.workload {
        g.num_jobs = 5120;
        g.jobs_per_hour *= 32.0;
    }
    let hours = if quick { 1.0 } else { 3.0 };
    let d = timed_decisions(&big, "sia", hours * 3600.0)?;
    rows.push(decision_row(
        "sia decision, 2,048 GPUs of 3 types, 5,120 jobs",
        &d,
        |n, most| format!("sia scenario x32 ({}, 640 jobs/h): the first {hours} simulated hours, {n} decisions, up to {most} jobs each", big.cluster),
        None,
    ));
    Ok(())
}
