//! A sweep's grid: the base experiment, its axes, the cells in their fixed order, each
//! cell's experiment, the shards and the fingerprint that tells sweeps apart.
//!
//! Cells are numbered policy-major: policy, then cluster, cluster scale, arrival rate,
//! load, failure rate, checkpoint interval, seed (the last varies fastest). Cell `i` belongs to shard `i % N + 1` of `N`. The
//! cells of one policy across the other axes form its *groups*: a group is one workload on
//! one cluster (one experiment), whose policies share the isolated baseline of rho.

use super::*;
use orrery::experiment::SweepPoint;
use orrery::model::failure::checkpoint::Interval;
use sha2::{Digest, Sha256};

/// Version of the sweep output format (the first line of a CSV, `format` in JSON).
pub(crate) const FORMAT_VERSION: u32 = 1;

/// A sweep: the base experiment and the values of each axis, in output order.
#[derive(serde::Serialize, Debug, Clone)]
pub(crate) struct Grid {
    /// The experiment every cell starts from (its policies are the grid's).
    pub(crate) base: Experiment,
    /// Policy specs.
    pub(crate) policies: Vec<String>,
    /// Cluster specs, canonical (`name:count/per@price`).
    pub(crate) clusters: Vec<String>,
    /// Factors on every GPU type's servers.
    pub(crate) cluster_scales: Vec<f64>,
    /// Arrival rates of a generated workload (None: the experiment's own workload).
    pub(crate) rates: Vec<Option<f64>>,
    /// Load factors (arrivals compressed in time).
    pub(crate) loads: Vec<f64>,
    /// Failures per server-day (None: the experiment's).
    #[serde(skip_serializing_if = "is_unset")]
    pub(crate) failure_rates: Vec<Option<f64>>,
    /// Checkpoint intervals (None: the experiment's).
    #[serde(skip_serializing_if = "is_unset")]
    pub(crate) checkpoints: Vec<Option<Interval>>,
    /// Seeds (None: the experiment's seeds).
    pub(crate) seeds: Vec<Option<u64>>,
}

/// An axis left at the experiment's value (kept out of the fingerprint, so that sweeps
/// without failure axes keep theirs).
fn is_unset<T>(axis: &[Option<T>]) -> bool {
    matches!(axis, [None])
}

/// A checkpoint interval as a sweep writes it: seconds or `auto`.
pub(crate) fn interval_text(i: Interval) -> String {
    match i {
        Interval::Every(s) => orrery::metrics::csv_num(s),
        Interval::Auto => "auto".into(),
    }
}

/// The axis values of one group (one experiment).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GroupAxes {
    /// The cluster spec the group runs on (after scaling).
    pub(crate) cluster: String,
    pub(crate) cluster_scale: f64,
    /// The generator's rate, for a generated workload.
    pub(crate) jobs_per_hour: Option<f64>,
    pub(crate) load: f64,
    /// The experiment seed.
    pub(crate) seed: u64,
    /// Failures per server-day and the checkpoint interval, in a sweep with failures.
    pub(crate) faults: Option<(f64, String)>,
}

impl Grid {
    /// Number of groups: the cells of one policy.
    pub(crate) fn groups(&self) -> usize {
        self.clusters.len()
            * self.cluster_scales.len()
            * self.rates.len()
            * self.loads.len()
            * self.failure_rates.len()
            * self.checkpoints.len()
            * self.seeds.len()
    }

    /// Whether the sweep runs with failures (its experiment's, or an axis of them).
    pub(crate) fn has_faults(&self) -> bool {
        self.base.faults.is_some() || !is_unset(&self.failure_rates) || !is_unset(&self.checkpoints)
    }

    /// Number of cells.
    pub(crate) fn cells(&self) -> usize {
        self.policies.len() * self.groups()
    }

    /// The policy and group of cell `i`.
    pub(crate) fn cell(&self, i: usize) -> (usize, usize) {
        let g = self.groups().max(1);
        (i / g, i % g)
    }

    /// The index of the cell of policy `p` in group `g`.
    pub(crate) fn index(&self, p: usize, g: usize) -> usize {
        p * self.groups() + g
    }

    /// The axis positions of group `g`: (cluster, scale, rate, load, failure rate,
    /// checkpoint interval, seed).
    fn position(&self, g: usize) -> [usize; 7] {
        let sizes = [
            self.clusters.len(),
            self.cluster_scales.len(),
            self.rates.len(),
            self.loads.len(),
            self.failure_rates.len(),
            self.checkpoints.len(),
            self.seeds.len(),
        ];
        let mut pos = [0; 7];
        let mut rest = g;
        for (p, &n) in pos.iter_mut().zip(&sizes).rev() {
            *p = rest % n;
            rest /= n;
        }
        pos
    }

    /// The experiment of group `g`, running `policies`.
    pub(crate) fn experiment(&self, g: usize, policies: Vec<String>) -> CliResult<Experiment> {
        let [c, s, r, l, f, k, e] = self.position(g);
        let point = SweepPoint {
            failures: self.failure_rates[f],
            checkpoint: self.checkpoints[k],
            cluster: Some(scaled_cluster_text(
                &self.clusters[c],
                self.cluster_scales[s],
            )?),
            load: Some(self.loads[l]),
            seed: self.seeds[e],
            jobs_per_hour: self.rates[r],
        };
        Ok(self.base.at_point(&point, policies))
    }

    /// The axis values of group `g` as its experiment has them.
    pub(crate) fn axes(&self, g: usize) -> CliResult<GroupAxes> {
        let [_, s, _, l, _, _, _] = self.position(g);
        let exp = self.experiment(g, Vec::new())?;
        Ok(GroupAxes {
            cluster: exp.cluster,
            cluster_scale: self.cluster_scales[s],
            jobs_per_hour: match &exp.workload {
                WorkloadSource::Generated(gen) => Some(gen.jobs_per_hour),
                _ => None,
            },
            load: self.loads[l],
            seed: exp.seed,
            faults: exp.faults.as_ref().map(|f| {
                (
                    f.failures.per_server_day,
                    interval_text(f.checkpoint.interval),
                )
            }),
        })
    }

    /// Group `g`'s axis values in words, for messages: the axes that vary.
    pub(crate) fn label(&self, g: usize) -> String {
        let Ok(a) = self.axes(g) else {
            return format!("group {g}");
        };
        let mut parts = vec![format!("cluster {}", a.cluster)];
        if let Some(r) = a.jobs_per_hour.filter(|_| self.rates.len() > 1) {
            parts.push(format!("{r} jobs/h"));
        }
        if self.loads.len() > 1 {
            parts.push(format!("load {}", a.load));
        }
        if let Some((rate, interval)) = &a.faults {
            if self.failure_rates.len() > 1 {
                parts.push(format!("{rate} failures per server-day"));
            }
            if self.checkpoints.len() > 1 {
                parts.push(format!("checkpoints every {interval}"));
            }
        }
        if self.seeds.len() > 1 {
            parts.push(format!("seed {}", a.seed));
        }
        parts.join(", ")
    }

    /// The cells of shard `shard` (every cell without one), in order.
    pub(crate) fn shard_cells(&self, shard: Option<Shard>) -> Vec<usize> {
        (0..self.cells())
            .filter(|&i| shard.is_none_or(|s| in_shard(i, s)))
            .collect()
    }

    /// The axes in one line for people: `2 policies x 1 cluster x ...`.
    pub(crate) fn describe(&self) -> String {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        let mut axes = vec![
            n(self.policies.len(), "policy", "policies"),
            n(self.clusters.len(), "cluster", "clusters"),
            n(self.cluster_scales.len(), "cluster scale", "cluster scales"),
            n(self.rates.len(), "rate", "rates"),
            n(self.loads.len(), "load", "loads"),
        ];
        if !is_unset(&self.failure_rates) {
            axes.push(n(self.failure_rates.len(), "failure rate", "failure rates"));
        }
        if !is_unset(&self.checkpoints) {
            axes.push(n(
                self.checkpoints.len(),
                "checkpoint interval",
                "checkpoint intervals",
            ));
        }
        axes.push(n(self.seeds.len(), "seed", "seeds"));
        axes.join(" x ")
    }

    /// What tells this sweep from any other: the first 16 hex digits of the SHA-256 of the
    /// output format's version, Orrery's version and the grid as JSON (the base experiment
    /// with its inputs' contents, and every axis).
    pub(crate) fn fingerprint(&self) -> CliResult<String> {
        let json = serde_json::to_string(self)
            .map_err(|e| CliError::Failure(format!("cannot serialise the sweep: {e}")))?;
        let mut h = Sha256::new();
        h.update(
            format!(
                "orrery-sweep {FORMAT_VERSION} {}\n",
                env!("CARGO_PKG_VERSION")
            )
            .as_bytes(),
        );
        h.update(json.as_bytes());
        Ok(h.finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect())
    }
}

/// Whether cell `i` belongs to `shard`.
pub(crate) fn in_shard(i: usize, shard: Shard) -> bool {
    i % shard.n == shard.k - 1
}

/// `spec` with every type's servers times `scale`, as canonical text.
pub(crate) fn scaled_cluster_text(spec: &str, scale: f64) -> CliResult<String> {
    let c = ClusterSpec::parse(spec).map_err(|e| CliError::Input(e.to_string()))?;
    let c = if scale == 1.0 {
        c
    } else {
        c.scaled(scale)
            .map_err(|e| CliError::Input(format!("--cluster-scales {scale}: {e}")))?
    };
    Ok(c.to_string())
}

/// Sorted, without repeats.
pub(crate) fn sorted_floats(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    orrery::order::sort_floats(&mut v);
    v.dedup();
    v
}

/// The grid of `orrery sweep`'s flags: the base experiment from the experiment flags, each
/// axis from its flag or, when not given, the base's one value.
pub(crate) fn build_grid(a: &mut SweepArgs) -> CliResult<Grid> {
    let clusters_given = std::mem::take(&mut a.exp.cluster);
    let mut base = build_experiment(&a.exp)?;
    if let Some(n) = a.num_jobs {
        match &mut base.workload {
            WorkloadSource::Generated(g) => g.num_jobs = n,
            _ => {
                base.workload = WorkloadSource::Generated(GeneratorConfig {
                    num_jobs: n,
                    seed: base.seed,
                    ..GeneratorConfig::default()
                })
            }
        }
    }
    let generated = matches!(base.workload, WorkloadSource::Generated(_));
    let trace_only = |flag: &str| {
        CliError::Input(format!(
            "{flag} is for a generated workload; this experiment runs a trace (give --num-jobs N to generate one instead, or --loads to speed the trace's arrivals up or down)"
        ))
    };
    if let WorkloadSource::Generated(g) = &mut base.workload {
        g.multi_gpu |= a.multi_gpu;
        g.priority_weights |= a.priority_weights;
    } else if a.multi_gpu || a.priority_weights {
        return Err(trace_only(if a.multi_gpu {
            "--multi-gpu"
        } else {
            "--priority-weights"
        }));
    }
    if !a.rates.is_empty() && !generated {
        return Err(trace_only("--rates"));
    }

    let policies = if a.policy.is_empty() {
        base.policies.clone()
    } else {
        let mut p: Vec<String> = Vec::new();
        for spec in &a.policy {
            if !p.contains(spec) {
                p.push(spec.clone());
            }
        }
        p
    };
    if policies.is_empty() {
        return Err(CliError::Input(
            "the experiment lists no policies; give --policy".into(),
        ));
    }
    if let Some(bad) = policies.iter().find(|p| p.contains(['\n', '\r'])) {
        return Err(CliError::Input(format!(
            "policy spec {bad:?} spans several lines"
        )));
    }
    base.policies = policies.clone();

    let mut clusters: Vec<String> = Vec::new();
    let given = if clusters_given.is_empty() {
        vec![base.cluster.clone()]
    } else {
        clusters_given
    };
    for c in &given {
        let text = scaled_cluster_text(c, 1.0)?;
        if !clusters.contains(&text) {
            clusters.push(text);
        }
    }
    let cluster_scales = if a.cluster_scales.is_empty() {
        vec![1.0]
    } else {
        sorted_floats(&a.cluster_scales)
    };
    // A preset with a figure against the load sweeps its rates unless others are given.
    let preset_rates = a
        .exp
        .preset
        .as_deref()
        .and_then(orrery::experiment::scenarios::scenario)
        .and_then(|s| s.load)
        .filter(|_| generated && a.loads.is_empty())
        .map(|l| l.rates);
    let rates = if let (true, Some(r)) = (a.rates.is_empty(), preset_rates) {
        r.iter().copied().map(Some).collect()
    } else if a.rates.is_empty() {
        vec![None]
    } else {
        sorted_floats(&a.rates).into_iter().map(Some).collect()
    };
    let loads = if a.loads.is_empty() {
        vec![base.load_factor]
    } else {
        sorted_floats(&a.loads)
    };
    let seeds = if a.seeds.is_empty() {
        vec![None]
    } else {
        let mut seeds: Vec<u64> = Vec::new();
        for SeedRange(s, e) in &a.seeds {
            seeds.extend(*s..=*e);
            if seeds.len() as u64 > MAX_SEEDS {
                return Err(CliError::Input(format!(
                    "--seeds: more than {MAX_SEEDS} seeds"
                )));
            }
        }
        seeds.sort_unstable();
        seeds.dedup();
        seeds.into_iter().map(Some).collect()
    };
    let failure_rates = if a.failure_rates.is_empty() {
        vec![None]
    } else {
        sorted_floats(&a.failure_rates)
            .into_iter()
            .map(Some)
            .collect()
    };
    let mut checkpoints: Vec<Option<Interval>> = Vec::new();
    let mut every: Vec<f64> = a
        .checkpoint_intervals
        .iter()
        .filter_map(|i| match i {
            Interval::Every(s) => Some(*s),
            Interval::Auto => None,
        })
        .collect();
    every = sorted_floats(&every);
    checkpoints.extend(every.into_iter().map(|s| Some(Interval::Every(s))));
    if a.checkpoint_intervals.contains(&Interval::Auto) {
        checkpoints.push(Some(Interval::Auto));
    }
    if checkpoints.is_empty() {
        checkpoints.push(None);
    }
    let grid = Grid {
        base,
        policies,
        clusters,
        cluster_scales,
        rates,
        loads,
        failure_rates,
        checkpoints,
        seeds,
    };
    // Every cluster at every scale, checked before anything runs.
    for c in &grid.clusters {
        for &s in &grid.cluster_scales {
            scaled_cluster_text(c, s)?;
        }
    }
    Ok(grid)
}
