//! Running an experiment: each policy's simulation in its mechanism, and the one
//! orchestration of a run (its policies, then the isolated baseline).

use super::*;

impl Resolved {
    /// The elastic applications, when the jobs are elastic.
    pub fn apps(&self) -> Option<&Arc<Apps>> {
        self.models.apps()
    }

    /// The parameter-server world, when the jobs are parameter-server ones.
    pub fn ps(&self) -> Option<&PsSetup> {
        self.models.ps()
    }

    /// Why finish-time fairness (rho) cannot be computed for this experiment, if it cannot:
    /// its baseline, Gavel's isolated policy, runs in rounds on the jobs as rigid ones
    /// ([`Setup::rigid_jobs`]), which needs a throughput for every job (an inference pool's
    /// experiment may run job types only its pooled mechanism knows, at one step per
    /// second).
    pub fn fairness_unavailable(&self) -> Option<String> {
        let (cluster, jobs, profile) = self.setup().rigid_jobs(false);
        Trace::from_jobs(&self.trace.name, jobs)
            .check_against(&profile, &cluster)
            .err()
            .map(|e| {
                format!("Not computed: the isolated baseline runs the jobs in rounds, and {e}.")
            })
    }

    /// The world every mechanism is built from, borrowed from the resolved experiment.
    pub fn setup(&self) -> Setup<'_> {
        Setup {
            cluster: &self.cluster,
            jobs: &self.trace.jobs,
            profile: &self.profile,
            sim: &self.sim,
            load: self.load.as_ref(),
            models: &self.models,
        }
    }

    /// What the profile knows, in one line for people: its GPU types (a per-type profile)
    /// or that its models run on any one GPU type, and its job types.
    pub fn profile_types(&self) -> String {
        if let Some(apps) = self.apps() {
            let named = apps.gpu_types();
            let types = if named.is_empty() {
                "any one GPU type".to_string()
            } else {
                format!(
                    "GPU types {} (any one other type at the unnamed speeds)",
                    named.join(", ")
                )
            };
            format!(
                "elastic applications {} on {types}",
                apps.names().join(", ")
            )
        } else if let Some(ps) = self.ps() {
            let named = ps.models.gpu_types();
            format!(
                "parameter-server models {} on {}",
                ps.models.names().join(", "),
                if named.is_empty() {
                    "any one GPU type".to_string()
                } else {
                    format!(
                        "GPU types {} (any one other type at the hardware's rate)",
                        named.join(", ")
                    )
                }
            )
        } else {
            format!(
                "GPU types {}; job types {}",
                self.profile.gpu_types().join(", "),
                self.profile.job_type_names().join(", ")
            )
        }
    }

    /// The mechanism that runs this experiment's policies.
    pub fn mechanism(&self) -> Mechanism {
        self.setup().mechanism()
    }

    /// A simulation of one policy, ready to step, in the mechanism the catalog says runs it
    /// for this experiment ([`policy::catalog::runner`]): the experiment's own when the
    /// policy has an implementation there; otherwise Gavel's rounds, PickyMan's events or
    /// Pollux's ticks, on the experiment's jobs as rigid ones ([`Setup::rigid_jobs`]). The
    /// catalog's implementation builds it from the experiment's [`Setup`].
    pub fn stepper(&self, policy_spec: &str) -> Result<Box<dyn Stepper>, ExperimentError> {
        Ok(self.stepper_of(Spec::parse(policy_spec)?)?.0)
    }

    /// [`Resolved::stepper`] of a parsed spec, with the spec split into the policy's own
    /// and its interval.
    fn stepper_of(&self, spec: Spec) -> Result<(Box<dyn Stepper>, Split), ExperimentError> {
        let imp = policy::catalog::implementation(&spec, self.mechanism())?;
        let split = spec.split()?;
        Ok(((imp.build)(&self.setup(), &split)?, split))
    }

    /// The experiment's jobs as rigid ones ([`Setup::rigid_jobs`]).
    pub fn rigid_jobs(&self, drains: bool) -> (ClusterSpec, Vec<JobSpec>, Profile) {
        self.setup().rigid_jobs(drains)
    }

    /// A round-based simulator for one policy, on the experiment's jobs as rigid ones
    /// ([`Setup::rigid_jobs`]).
    pub fn simulator(&self, policy_spec: &str) -> Result<Simulator, ExperimentError> {
        let split = Split::parse(policy_spec)?;
        let p = policy::catalog::build_spec(&split.spec)?;
        Ok(crate::sim::rounds::build(&self.setup(), p, split.interval)?)
    }

    /// Run one policy to the end (or until the window's jobs are done), calling `progress`
    /// after every round.
    pub fn run_policy(
        &self,
        policy_spec: &str,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
        mut progress: impl FnMut(&RoundReport),
    ) -> Result<RunResult, ExperimentError> {
        let mut rec = Recorder::new(&self.trace.jobs, self.cluster.num_types());
        let (mut sim, split) = self.stepper_of(Spec::parse(policy_spec)?)?;
        rec.preemption.enabled = sim.mechanism().preemption_model();
        rec.faults.on = self.sim.faults.is_some() || !self.sim.spot.is_empty();
        rec.faults.set_spot(&self.sim.spot, &self.cluster);
        while let Some(report) = sim.step() {
            for e in &report.events {
                rec.observe(e);
            }
            progress(&report);
            if window.is_some_and(|(a, b)| (a..b).all(|j| sim.job_done(j))) {
                break;
            }
        }
        let name = split.name_with_interval(sim.policy_name());
        let summary = rec.summary(&name, &self.cluster, window, isolated_jct);
        Ok(RunResult {
            summary,
            recorder: rec,
        })
    }

    /// A slot (DL2) simulator for one policy of the `dl2` family, in the parameter-server
    /// world `ps`.
    pub fn slot_simulator(
        &self,
        policy_spec: &str,
        ps: &PsSetup,
    ) -> Result<SlotSimulator, ExperimentError> {
        let split = Split::parse(policy_spec)?;
        let p = policy::dl2::build_with_spec(
            &split.spec,
            ps.network.as_deref(),
            ps.models.models.len(),
            self.sim.dl2_compat,
        )?;
        let models = JobModels::ParameterServer(ps.clone());
        let setup = Setup {
            models: &models,
            ..self.setup()
        };
        Ok(crate::sim::slots::build(&setup, p, split.interval)?)
    }

    /// A slot (DL2) simulator running `policy` (one built outside the registry, such as a
    /// policy being trained), in the parameter-server world `ps`.
    pub fn slot_simulator_with(
        &self,
        policy: Box<dyn crate::sim::slots::SlotPolicy>,
        ps: &PsSetup,
    ) -> Result<SlotSimulator, ExperimentError> {
        let models = JobModels::ParameterServer(ps.clone());
        let setup = Setup {
            models: &models,
            ..self.setup()
        };
        Ok(crate::sim::slots::build(&setup, policy, None)?)
    }

    /// A preemptive (PickyMan) simulator for one policy, on the experiment's jobs as rigid
    /// ones ([`Setup::rigid_jobs`]), with the experiment's restart model.
    pub fn preemptive_simulator(
        &self,
        policy_spec: &str,
    ) -> Result<PreemptiveSimulator, ExperimentError> {
        let p = policy::pickyman::build(policy_spec)?;
        Ok(crate::sim::preemptive::build(&self.setup(), p)?)
    }

    /// A pooled (Aryl) simulator for one policy, with the inference load `load`.
    pub fn pooled_simulator(
        &self,
        policy_spec: &str,
        load: &LoadCurve,
    ) -> Result<PooledSimulator, ExperimentError> {
        let split = Split::parse(policy_spec)?;
        let p = policy::aryl::build_spec(&split.spec)?;
        let setup = Setup {
            load: Some(load),
            ..self.setup()
        };
        Ok(crate::sim::pooled::build(&setup, p, split.interval)?)
    }

    /// An elastic simulator for one policy, on the elastic applications `apps`.
    pub fn elastic_simulator(
        &self,
        policy_spec: &str,
        apps: &Arc<Apps>,
    ) -> Result<ElasticSimulator, ExperimentError> {
        let split = Split::parse(policy_spec)?;
        let p = policy::catalog::build_elastic_spec(&split.spec)?;
        let models = JobModels::Elastic(Arc::clone(apps));
        let setup = Setup {
            models: &models,
            ..self.setup()
        };
        Ok(crate::sim::elastic::build(&setup, p, split.interval)?)
    }

    /// [`Resolved::run_policy`] as run `run` of `runs`, reporting [`Progress`] after every
    /// round.
    pub fn run_reporting(
        &self,
        policy_spec: &str,
        window: Option<(usize, usize)>,
        isolated_jct: Option<&[Option<f64>]>,
        (run, runs): (usize, usize),
        mut progress: impl FnMut(&Progress),
    ) -> Result<RunResult, ExperimentError> {
        let mut p = Progress {
            run,
            runs,
            policy: policy_spec.to_string(),
            jobs_done: 0,
            jobs: self.trace.jobs.len(),
        };
        self.run_policy(policy_spec, window, isolated_jct, |report| {
            p.jobs_done += report.jobs_ended();
            progress(&p);
        })
    }
}

/// Run every policy of the experiment (and the isolated baseline for rho when asked).
pub fn run(exp: &Experiment) -> Result<Vec<RunResult>, ExperimentError> {
    Ok(run_with_progress(exp, |_| {})?.results)
}

/// The results of every policy, and the isolated baseline's JCTs when fairness was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// One result per policy, in the experiment's order.
    pub results: Vec<RunResult>,
    /// JCT per job under the isolated policy (the denominators of rho).
    pub isolated_jct: Option<Vec<Option<f64>>>,
}

/// Progress of [`run_with_progress`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Which run (the policies in order, then the isolated baseline when fairness is on).
    pub run: usize,
    /// How many runs in all.
    pub runs: usize,
    /// Policy of the current run.
    pub policy: String,
    /// Jobs finished in the current run.
    pub jobs_done: usize,
    /// Jobs in the trace.
    pub jobs: usize,
}

impl Progress {
    /// Overall fraction done, 0..1.
    pub fn fraction(&self) -> f64 {
        if self.runs == 0 || self.jobs == 0 {
            return 0.0;
        }
        (self.run as f64 + self.jobs_done as f64 / self.jobs as f64) / self.runs as f64
    }
}

/// [`run`], reporting progress after every round.
pub fn run_with_progress(
    exp: &Experiment,
    mut progress: impl FnMut(&Progress),
) -> Result<Outcome, ExperimentError> {
    let r = exp.resolve()?;
    let plan = r.plan(exp);
    let results = plan
        .tasks
        .iter()
        .map(|t| r.run_task(&plan, t, &mut progress))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(r.finish(&plan, results))
}

/// One run of a [`Plan`]: one of the experiment's policies, or the isolated baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Position in the plan.
    pub index: usize,
    /// The policy's spec.
    pub policy: String,
    /// The isolated baseline (the denominators of rho), not one of the experiment's
    /// policies: it runs without a window.
    pub baseline: bool,
}

/// What running an experiment takes: every policy in the experiment's order, then the
/// isolated baseline when finish-time fairness (rho) is asked for and the mechanism has
/// it. The CLI runs the tasks in parallel on threads, the page on one worker per core
/// (showing each policy as it finishes), the library in order; [`Resolved::finish`] joins
/// them the same way for all three.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The runs, policies first.
    pub tasks: Vec<Task>,
    /// The window of measured jobs.
    pub window: Option<(usize, usize)>,
}

impl Plan {
    /// Whether the plan ends with the isolated baseline.
    pub fn has_baseline(&self) -> bool {
        self.tasks.last().is_some_and(|t| t.baseline)
    }
}

impl Resolved {
    /// The runs of `exp` (which this was resolved from).
    pub fn plan(&self, exp: &Experiment) -> Plan {
        let mut tasks: Vec<Task> = exp
            .policies
            .iter()
            .enumerate()
            .map(|(index, p)| Task {
                index,
                policy: p.clone(),
                baseline: false,
            })
            .collect();
        // Finish-time fairness: every policy's JCTs over Gavel's isolated policy's, which
        // runs in rounds on the experiment's jobs as rigid ones in every mechanism
        // ([`Setup::rigid_jobs`]).
        if exp.fairness && self.fairness_unavailable().is_none() {
            tasks.push(Task {
                index: tasks.len(),
                policy: policy::BASELINE.to_string(),
                baseline: true,
            });
        }
        Plan {
            tasks,
            window: exp.window,
        }
    }

    /// Run one task of `plan`, reporting [`Progress`] after every step.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn run_task(
        &self,
        plan: &Plan,
        task: &Task,
        progress: impl FnMut(&Progress),
    ) -> Result<RunResult, ExperimentError> {
        let window = if task.baseline { None } else { plan.window };
        self.run_reporting(
            &task.policy,
            window,
            None,
            (task.index, plan.tasks.len()),
            progress,
        )
    }

    /// Join the results of every task of `plan` (in the plan's order): the baseline's JCTs
    /// become the denominators of every policy's rho.
    pub fn finish(&self, plan: &Plan, mut results: Vec<RunResult>) -> Outcome {
        let iso = if plan.has_baseline() && results.len() == plan.tasks.len() {
            results.pop().map(|b| b.recorder.jcts())
        } else {
            None
        };
        if let Some(iso) = &iso {
            for res in &mut results {
                res.summary = res.recorder.summary(
                    &res.summary.policy,
                    &self.cluster,
                    plan.window,
                    Some(iso),
                );
            }
        }
        Outcome {
            results,
            isolated_jct: iso,
        }
    }
}
