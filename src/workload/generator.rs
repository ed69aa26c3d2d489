//! The synthetic workload generator (Gavel's recipe): Poisson arrivals at a given rate (or
//! all jobs at t = 0), job types drawn uniformly from the profile, durations of
//! `10^U(1.5, 3)` minutes with probability 0.8 and `10^U(3, 4)` minutes otherwise, scale
//! factors 1/2/4/8 with probabilities 0.7/0.1/0.15/0.05 when multi-GPU jobs are on, and
//! optionally priority weights (5 with probability 0.2, else 1). A job's total steps are its
//! duration times its throughput on its fastest GPU type.

use super::{Profile, Trace, WorkloadError};
use crate::model::cluster::ClusterSpec;
use crate::model::job::JobSpec;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Generator parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratorConfig {
    /// Number of jobs.
    pub num_jobs: usize,
    /// Arrival rate; 0 puts every job at t = 0.
    pub jobs_per_hour: f64,
    /// Draw scale factors 1/2/4/8 (otherwise every job uses one GPU).
    #[serde(default)]
    pub multi_gpu: bool,
    /// Give 20% of the jobs priority weight 5.
    #[serde(default)]
    pub priority_weights: bool,
    /// Share of jobs made elastic: they run on their scale factor and can use up to four
    /// times as many GPUs (drawn from their own stream, so other draws do not change).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elastic_fraction: f64,
    /// Factor on every job's drawn duration (1 = Gavel's recipe: 10^1.5 to 10^3 minutes
    /// for 80% of jobs, 10^3 to 10^4 for the rest).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub duration_scale: f64,
    /// Seed of the workload (derived from the experiment seed when not given).
    #[serde(default)]
    pub seed: u64,
    /// DL2's generator instead (parameter-server experiments with DL2's profile folder):
    /// its scale's arrivals and job lengths, `num_jobs` jobs of trace `trace` of numpy seed
    /// `seed`; the arrival rate, duration scale and GPU options play no part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dl2: Option<super::dl2_gen::Dl2Arrivals>,
}

fn one() -> f64 {
    1.0
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}

impl GeneratorConfig {
    /// Set field `field` (`num_jobs`, `jobs_per_hour`, `seed`, `duration_scale`,
    /// `multi_gpu`, `priority_weights`, `dl2` (a DL2 scale, which also sets the scale's job
    /// count, or empty for Orrery's generator), `dl2_trace`) from the text a person typed, or say why the value
    /// is refused, in words and naming the value kept (the settings stay as they were).
    pub fn set_field(&mut self, field: &str, text: &str) -> Result<(), String> {
        let v = text.trim();
        match field {
            "num_jobs" => match v.parse::<usize>() {
                Ok(n) if (1..=1_000_000).contains(&n) => self.num_jobs = n,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: the generator makes 1 to 1,000,000 jobs, a whole number (kept {}).",
                        self.num_jobs
                    ))
                }
            },
            "jobs_per_hour" => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => self.jobs_per_hour = x,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: jobs per hour must be 0 or more (0 puts every job at t = 0) (kept {}).",
                        self.jobs_per_hour
                    ))
                }
            },
            "seed" => match v.parse::<u64>() {
                Ok(x) => self.seed = x,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: the seed is a whole number, 0 or more (kept {}).",
                        self.seed
                    ))
                }
            },
            "duration_scale" => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 && x <= 100.0 => self.duration_scale = x,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: the durations factor must be above 0 and at most 100 (kept {}).",
                        self.duration_scale
                    ))
                }
            },
            "multi_gpu" => self.multi_gpu = v == "true",
            "priority_weights" => self.priority_weights = v == "true",
            "dl2" => match v {
                "" | "off" => self.dl2 = None,
                name => match super::dl2_gen::Dl2Scale::from_name(name) {
                    Some(scale) => {
                        self.dl2 = Some(super::dl2_gen::Dl2Arrivals {
                            scale,
                            trace: self.dl2.map_or(0, |d| d.trace),
                        });
                        self.num_jobs = scale.jobs();
                    }
                    None => {
                        return Err(format!(
                            "'{v}' is refused: DL2's scales are testbed, base and large."
                        ))
                    }
                },
            },
            "dl2_trace" => match (v.parse::<u32>(), &mut self.dl2) {
                (Ok(k), Some(d)) => d.trace = k,
                (Ok(_), None) => {
                    return Err("a trace number goes with DL2's generator (pick a scale first).".into())
                }
                (Err(_), d) => {
                    return Err(format!(
                        "'{v}' is refused: the trace number is a whole number, 0 or more (kept {}).",
                        d.map_or(0, |d| d.trace)
                    ))
                }
            },
            _ => return Err(format!("the generator has no setting '{field}'")),
        }
        Ok(())
    }

    /// Check the job count and the arrival rate, naming the offending field.
    pub(crate) fn check(&self, name: &str) -> Result<(), WorkloadError> {
        if self.num_jobs == 0 || self.num_jobs > 1_000_000 {
            return Err(WorkloadError::field(
                name,
                0,
                "num_jobs",
                "must be between 1 and 1,000,000",
            ));
        }
        if !(self.jobs_per_hour.is_finite() && self.jobs_per_hour >= 0.0) {
            return Err(WorkloadError::field(
                name,
                0,
                "jobs_per_hour",
                "must be a non-negative number",
            ));
        }
        if !(self.duration_scale.is_finite()
            && self.duration_scale > 0.0
            && self.duration_scale <= 100.0)
        {
            return Err(WorkloadError::field(
                name,
                0,
                "duration_scale",
                "must be above 0 and at most 100",
            ));
        }
        Ok(())
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            num_jobs: 100,
            jobs_per_hour: 0.0,
            multi_gpu: false,
            priority_weights: false,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 0,
            dl2: None,
        }
    }
}

/// Generate a trace from `profile` for `cluster`: a job type is drawn at a scale factor only
/// where it has a throughput on a GPU type with at least that many GPUs.
pub fn generate(
    profile: &Profile,
    cluster: &ClusterSpec,
    cfg: &GeneratorConfig,
) -> Result<Trace, WorkloadError> {
    let name = "generated";
    cfg.check(name)?;
    let fastest = |jt: &str, scale: u32| -> f64 {
        cluster
            .types
            .iter()
            .filter(|t| t.count >= scale)
            .filter_map(|t| profile.throughput(jt, scale, &t.name))
            .fold(0.0, f64::max)
    };
    let scales: [(u32, f64); 4] = [(1, 0.7), (2, 0.1), (4, 0.15), (8, 0.05)];
    let types_for = |scale: u32| -> Vec<String> {
        profile
            .job_types
            .keys()
            .filter(|jt| fastest(jt, scale) > 0.0)
            .cloned()
            .collect()
    };
    let by_scale: Vec<Vec<String>> = scales.iter().map(|(s, _)| types_for(*s)).collect();
    if by_scale[0].is_empty() {
        return Err(WorkloadError::file(
            name,
            "the profile has no single-GPU job type that runs on this cluster",
        ));
    }
    let mut rng = Rng::for_purpose(cfg.seed, "workload");
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(cfg.num_jobs);
    for i in 0..cfg.num_jobs {
        if cfg.jobs_per_hour > 0.0 && i > 0 {
            t += rng.exponential(cfg.jobs_per_hour / 3600.0);
        }
        let mut si = 0;
        if cfg.multi_gpu {
            si = rng.weighted(&scales.map(|s| s.1));
            if by_scale[si].is_empty() {
                si = 0;
            }
        }
        let scale = scales[si].0;
        let jt = &by_scale[si][rng.below(by_scale[si].len() as u64) as usize];
        let minutes = if rng.uniform() < 0.8 {
            crate::math::powf(10.0, rng.range(1.5, 3.0))
        } else {
            crate::math::powf(10.0, rng.range(3.0, 4.0))
        };
        let minutes = minutes * cfg.duration_scale;
        let steps = (minutes * 60.0 * fastest(jt, scale)).round().max(1.0);
        let mut job = JobSpec::new(jt.clone(), t, steps).with_scale(scale);
        if cfg.priority_weights && rng.uniform() < 0.2 {
            job.priority_weight = 5.0;
        }
        jobs.push(job);
    }
    if cfg.elastic_fraction > 0.0 {
        let mut er = Rng::for_purpose(cfg.seed, "elastic-jobs");
        for j in &mut jobs {
            if er.uniform() < cfg.elastic_fraction {
                j.min_gpus = Some(j.scale_factor);
                j.max_gpus = Some(j.scale_factor * 4);
            }
        }
    }
    Ok(Trace::from_jobs(name, jobs))
}

/// Probability of each job-size class (GPU-hours on one GPU at the initial batch size:
/// under 1, 1-10, 10-100, over 100), the mix of Pollux's evaluation workloads.
pub const ELASTIC_SIZE_MIX: [f64; 4] = [0.72, 0.20, 0.06, 0.02];

/// GPU-hours an application's job takes on one GPU at its initial batch size (None if the
/// application cannot say).
pub fn elastic_gpu_hours(app: &super::ElasticApp) -> Option<f64> {
    let local = app.init_batch_size.min(app.max_local_bsz);
    let accum = app.init_batch_size.div_ceil(local.max(1)).saturating_sub(1);
    let (step, sync) = app.step_time(&[1], local)?;
    let per_step = step + (step - sync) * f64::from(accum);
    Some(app.target_progress() * per_step / 3600.0)
}

/// Generate an elastic workload like Pollux's: Poisson arrivals at `jobs_per_hour` (Pollux
/// uses 160 jobs over 8 hours, 20 per hour), each job's application drawn by size class
/// ([`ELASTIC_SIZE_MIX`], uniformly within a class; empty classes are skipped), and the
/// GPU count and batch size a user would pick for it (from the application's
/// `user_configs`, or a quarter to a half of its largest batch on enough GPUs).
pub fn generate_elastic(apps: &super::Apps, cfg: &GeneratorConfig) -> Result<Trace, WorkloadError> {
    let name = "generated";
    cfg.check(name)?;
    let mut classes: [Vec<usize>; 4] = Default::default();
    for (i, app) in apps.apps.iter().enumerate() {
        let h = elastic_gpu_hours(app).unwrap_or(0.0);
        let c = if h < 1.0 {
            0
        } else if h < 10.0 {
            1
        } else if h < 100.0 {
            2
        } else {
            3
        };
        classes[c].push(i);
    }
    let weights: Vec<f64> = classes
        .iter()
        .zip(ELASTIC_SIZE_MIX)
        .map(|(c, w)| if c.is_empty() { 0.0 } else { w })
        .collect();
    if weights.iter().all(|&w| w == 0.0) {
        return Err(WorkloadError::file(name, "the profile has no applications"));
    }
    let mut rng = Rng::for_purpose(cfg.seed, "elastic-workload");
    let mut t = 0.0f64;
    let mut jobs = Vec::with_capacity(cfg.num_jobs);
    for _ in 0..cfg.num_jobs {
        if cfg.jobs_per_hour > 0.0 {
            t += rng.exponential(cfg.jobs_per_hour / 3600.0);
        }
        let drawn = rng.weighted(&weights);
        let Some(class) = classes
            .get(drawn)
            .filter(|c| !c.is_empty())
            .or_else(|| classes.iter().find(|c| !c.is_empty()))
        else {
            return Err(WorkloadError::file(name, "the profile has no applications"));
        };
        let app = &apps.apps[class[rng.below(class.len() as u64) as usize]];
        let [gpus, batch] = if let Some(b) = app.fixed_batch_size {
            [app.max_replicas.unwrap_or(1), b]
        } else if !app.user_configs.is_empty() {
            app.user_configs[rng.below(app.user_configs.len() as u64) as usize]
        } else {
            let batch =
                (app.max_batch_size / (2 + 2 * rng.below(2) as u32)).max(app.init_batch_size);
            let least = batch.div_ceil(app.max_local_bsz.max(1)).max(1);
            let most = (batch / app.min_local_bsz.max(1)).max(1);
            [(least * (1 + rng.below(2) as u32)).min(most), batch]
        };
        let mut job = JobSpec::new(app.name.clone(), t.round(), app.target_progress().max(1.0));
        job.scale_factor = gpus.max(1);
        job.batch_size = Some(batch);
        jobs.push(job);
    }
    Ok(Trace::from_jobs(name, jobs))
}

#[cfg(test)]
mod tests {

    #[test]
    fn refused_fields_say_why_in_words_and_keep_the_settings() {
        let mut g = GeneratorConfig::default();
        let before = g.clone();
        for (field, bad) in [
            ("num_jobs", "0"),
            ("num_jobs", "2.5"),
            ("num_jobs", "1000001"),
            ("num_jobs", ""),
            ("jobs_per_hour", "-1"),
            ("jobs_per_hour", "inf"),
            ("seed", "-3"),
            ("duration_scale", "0"),
            ("duration_scale", "101"),
        ] {
            let e = g.set_field(field, bad).unwrap_err();
            assert!(e.contains("refused") && e.contains("kept"), "{field}: {e}");
            // A setting's key (`num_jobs`) never shows; a plain word (`seed`) may.
            assert!(
                !field.contains('_') || !e.contains(field),
                "internal name in '{e}'"
            );
        }
        assert_eq!(g, before);
        g.set_field("num_jobs", " 1000000 ").unwrap();
        g.set_field("jobs_per_hour", "0").unwrap();
        g.set_field("duration_scale", "0.1").unwrap();
        g.set_field("multi_gpu", "true").unwrap();
        assert_eq!(
            (g.num_jobs, g.jobs_per_hour, g.duration_scale, g.multi_gpu),
            (1_000_000, 0.0, 0.1, true)
        );
        assert!(g.set_field("nothing", "1").is_err());
    }
    use super::*;

    fn profile() -> Profile {
        let mut p = Profile::default();
        p.set("A", 1, "v100", 10.0);
        p.set("A", 1, "k80", 2.0);
        p.set("B", 1, "v100", 5.0);
        p.set("A", 4, "v100", 30.0);
        p
    }

    #[test]
    fn deterministic_and_shaped() {
        let types = ClusterSpec::parse("v100:8,k80:8").unwrap();
        let cfg = GeneratorConfig {
            num_jobs: 2000,
            jobs_per_hour: 6.0,
            multi_gpu: true,
            priority_weights: true,
            elastic_fraction: 0.0,
            duration_scale: 1.0,
            seed: 7,
            dl2: None,
        };
        let a = generate(&profile(), &types, &cfg).unwrap();
        let b = generate(&profile(), &types, &cfg).unwrap();
        assert_eq!(a, b);
        let span_h = a.jobs.last().unwrap().arrival / 3600.0;
        let rate = (a.jobs.len() - 1) as f64 / span_h;
        assert!((rate - 6.0).abs() < 0.5, "{rate}");
        // Only A has a 4-GPU profile; scale 2 and 8 fall back to 1.
        assert!(a
            .jobs
            .iter()
            .all(|j| j.scale_factor == 1 || (j.scale_factor == 4 && j.job_type == "A")));
        let four = a.jobs.iter().filter(|j| j.scale_factor == 4).count() as f64 / 2000.0;
        assert!((four - 0.15).abs() < 0.03, "{four}");
        // Durations: steps / fastest throughput in [10^1.5, 10^4] minutes.
        for j in &a.jobs {
            let thr = if j.scale_factor == 4 {
                30.0
            } else if j.job_type == "A" {
                10.0
            } else {
                5.0
            };
            let min = j.total_steps / thr / 60.0;
            assert!(
                (10f64.powf(1.5) * 0.99..=1e4 * 1.01).contains(&min),
                "{min}"
            );
        }
        let weighted = a.jobs.iter().filter(|j| j.priority_weight == 5.0).count() as f64 / 2000.0;
        assert!((weighted - 0.2).abs() < 0.03);
        let c = generate(
            &profile(),
            &types,
            &GeneratorConfig {
                seed: 8,
                ..cfg.clone()
            },
        )
        .unwrap();
        assert_ne!(a, c);
        let s = generate(
            &profile(),
            &types,
            &GeneratorConfig {
                jobs_per_hour: 0.0,
                ..cfg
            },
        )
        .unwrap();
        assert!(s.jobs.iter().all(|j| j.arrival == 0.0));
    }
}
