//! Throughput profiles: training steps per second by job type, scale factor and GPU type,
//! optionally for colocated pairs (space sharing).
//!
//! Accepted files:
//! - Orrery's JSON: `{"format": "orrery-profile", "version": 1, "job_types": {"ResNet-18 (batch
//!   size 64)": {"throughputs": {"1": {"v100": 24.1, "p100": 22.3, "k80": 7.05}}, "colocated":
//!   [{"scale": 1, "with": "LM (batch size 5)", "with_scale": 1, "gpu": "v100", "this": 9.1,
//!   "other": 3.2}]}}}`;
//! - Orrery's CSV: header `job_type,scale_factor,<gpu>,<gpu>,...`, one row per job type and
//!   scale factor, steps/s in each GPU column (empty = cannot run there);
//! - Gavel's throughputs JSON (`{gpu: {"('Model', scale)": {"null": steps/s, "('Other',
//!   scale)": [this, other]}}}`); its `*_unconsolidated` GPU entries are skipped.

use super::csv::records;
use super::{line_of_offset, parse_count, parse_nonneg, WorkloadError};
use crate::model::cluster::ClusterSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Colocated throughputs of a job type when it shares GPUs with another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColocatedEntry {
    /// Scale factor of this job.
    pub scale: u32,
    /// The other job's type.
    pub with: String,
    /// The other job's scale factor.
    pub with_scale: u32,
    /// The GPU type.
    pub gpu: String,
    /// Steps/s of this job while colocated.
    pub this: f64,
    /// Steps/s of the other job while colocated.
    pub other: f64,
}

/// What a profile knows about one job type.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobTypeProfile {
    /// Steps/s by scale factor, then GPU type name.
    pub throughputs: BTreeMap<u32, BTreeMap<String, f64>>,
    /// Throughputs when sharing GPUs with another job.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colocated: Vec<ColocatedEntry>,
    /// What preempting a job of this type costs (preemptive experiments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption: Option<crate::model::restart::PreemptionCosts>,
    /// Seconds each periodic checkpoint write of a job of this type blocks it, in
    /// experiments with failures (the experiment's write time for types without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_write_s: Option<f64>,
}

/// A throughput profile.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Profile {
    /// Entries by job type name.
    pub job_types: BTreeMap<String, JobTypeProfile>,
}

#[derive(Serialize, Deserialize)]
struct ProfileFile {
    format: String,
    version: u32,
    job_types: BTreeMap<String, JobTypeProfile>,
}

/// The suffix of a GPU type of spot instances of a profiled model (`v100-spot`).
pub const SPOT_SUFFIX: &str = "-spot";

impl Profile {
    /// Steps/s of `job_type` at `scale` GPUs of type `gpu`, if profiled. A type named
    /// `<model>-spot` (spot instances of a model, beside its on-demand ones) runs at
    /// `<model>`'s speeds unless the profile names it.
    pub fn throughput(&self, job_type: &str, scale: u32, gpu: &str) -> Option<f64> {
        let on = self.job_types.get(job_type)?.throughputs.get(&scale)?;
        on.get(gpu)
            .or_else(|| gpu.strip_suffix(SPOT_SUFFIX).and_then(|m| on.get(m)))
            .copied()
    }

    /// Steps/s of `job_type` at `scale` GPUs on each GPU type of `cluster`, in the cluster's
    /// order; 0 where it is not profiled.
    pub fn throughputs_on(&self, job_type: &str, scale: u32, cluster: &ClusterSpec) -> Vec<f64> {
        cluster
            .types
            .iter()
            .map(|t| self.throughput(job_type, scale, &t.name).unwrap_or(0.0))
            .collect()
    }

    /// Steps/s of `job_type` (at `scale`) when colocated with `other` (at `other_scale`) on
    /// `gpu`: (this job's, the other job's).
    pub fn colocated(
        &self,
        job_type: &str,
        scale: u32,
        other: &str,
        other_scale: u32,
        gpu: &str,
    ) -> Option<(f64, f64)> {
        self.job_types
            .get(job_type)?
            .colocated
            .iter()
            .find(|c| {
                c.scale == scale && c.with == other && c.with_scale == other_scale && c.gpu == gpu
            })
            .map(|c| (c.this, c.other))
    }

    /// Names of all GPU types that appear in the profile, sorted.
    pub fn gpu_types(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .job_types
            .values()
            .flat_map(|p| p.throughputs.values().flat_map(|m| m.keys().cloned()))
            .collect();
        crate::order::sort(&mut v);
        v.dedup();
        v
    }

    /// Job type names, sorted.
    pub fn job_type_names(&self) -> Vec<String> {
        self.job_types.keys().cloned().collect()
    }

    /// Set one isolated throughput.
    pub fn set(&mut self, job_type: &str, scale: u32, gpu: &str, steps_per_s: f64) {
        self.job_types
            .entry(job_type.to_string())
            .or_default()
            .throughputs
            .entry(scale)
            .or_default()
            .insert(gpu.to_string(), steps_per_s);
    }

    /// Read a profile in any accepted format, detected from its content.
    pub fn parse(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let t = text.trim_start();
        if t.is_empty() {
            return Err(WorkloadError::file(file, "the profile is empty"));
        }
        if t.starts_with('{') {
            let value: serde_json::Value = serde_json::from_str(text)
                .map_err(|e| WorkloadError::field(file, e.line(), "json", e.to_string()))?;
            if value.get("job_types").is_some() {
                Self::parse_native_json(text, file)
            } else {
                Self::parse_gavel_json(&value, text, file)
            }
        } else {
            Self::parse_csv(text, file)
        }
    }

    /// Serialise to Orrery's JSON profile format.
    pub fn to_json(&self) -> String {
        let f = ProfileFile {
            format: "orrery-profile".into(),
            version: 1,
            job_types: self.job_types.clone(),
        };
        serde_json::to_string_pretty(&f).unwrap_or_default()
    }

    fn parse_native_json(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let f: ProfileFile = serde_json::from_str(text)
            .map_err(|e| WorkloadError::field(file, e.line(), "job_types", e.to_string()))?;
        if f.format != "orrery-profile" {
            return Err(WorkloadError::field(
                file,
                1,
                "format",
                format!("expected 'orrery-profile', found '{}'", f.format),
            ));
        }
        if f.version != 1 {
            return Err(WorkloadError::field(
                file,
                1,
                "version",
                format!("version {} is not supported (1 is)", f.version),
            ));
        }
        let p = Profile {
            job_types: f.job_types,
        };
        p.check(text, file)?;
        Ok(p)
    }

    /// Every throughput finite and non-negative; names the line of the job type.
    fn check(&self, text: &str, file: &str) -> Result<(), WorkloadError> {
        let line_of = |name: &str| {
            text.find(&format!("\"{name}\""))
                .map(|o| line_of_offset(text, o))
                .unwrap_or(1)
        };
        for (name, p) in &self.job_types {
            for (scale, m) in &p.throughputs {
                if *scale == 0 {
                    return Err(WorkloadError::field(
                        file,
                        line_of(name),
                        "scale_factor",
                        "scale factor 0",
                    ));
                }
                for (gpu, v) in m {
                    if !v.is_finite() || *v < 0.0 {
                        return Err(WorkloadError::field(
                            file,
                            line_of(name),
                            format!("{name}/{scale}/{gpu}"),
                            format!("throughput {v} must be a finite non-negative number"),
                        ));
                    }
                }
            }
            if let Some(c) = &p.preemption {
                c.check(name)
                    .map_err(|e| WorkloadError::field(file, line_of(name), e.field, e.reason))?;
            }
            for c in &p.colocated {
                if !(c.this.is_finite() && c.other.is_finite() && c.this >= 0.0 && c.other >= 0.0) {
                    return Err(WorkloadError::field(
                        file,
                        line_of(name),
                        format!("{name}/colocated/{}", c.with),
                        "throughputs must be finite non-negative numbers",
                    ));
                }
            }
        }
        Ok(())
    }

    fn parse_csv(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let recs = records(text, ',');
        let header = recs
            .first()
            .ok_or_else(|| WorkloadError::file(file, "the profile has no header"))?;
        let cols: Vec<String> = header
            .fields
            .iter()
            .map(|f| f.trim().to_ascii_lowercase())
            .collect();
        let name_col = cols
            .iter()
            .position(|c| c == "job_type" || c == "model")
            .ok_or_else(|| {
                WorkloadError::field(
                    file,
                    header.line,
                    "job_type",
                    "missing column (header must start job_type,scale_factor,<gpu>,...)",
                )
            })?;
        let scale_col = cols.iter().position(|c| c == "scale_factor");
        let gpu_cols: Vec<(usize, String)> = cols
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != name_col && Some(*i) != scale_col)
            .map(|(i, c)| (i, c.clone()))
            .collect();
        if gpu_cols.is_empty() {
            return Err(WorkloadError::field(
                file,
                header.line,
                "header",
                "no GPU type columns",
            ));
        }
        let mut p = Profile::default();
        for r in &recs[1..] {
            if r.fields.len() != cols.len() {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    "row",
                    format!("expected {} fields, found {}", cols.len(), r.fields.len()),
                ));
            }
            let name = r.fields[name_col].trim();
            if name.is_empty() {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    &cols[name_col],
                    "empty job type",
                ));
            }
            let scale = match scale_col {
                Some(c) => parse_count(file, r.line, "scale_factor", &r.fields[c])?,
                None => 1,
            };
            for (c, gpu) in &gpu_cols {
                let cell = r.fields[*c].trim();
                if cell.is_empty() {
                    continue;
                }
                let v = parse_nonneg(file, r.line, gpu, cell)?;
                p.set(name, scale, gpu, v);
            }
        }
        if p.job_types.is_empty() {
            return Err(WorkloadError::file(file, "the profile has no rows"));
        }
        Ok(p)
    }

    fn parse_gavel_json(
        value: &serde_json::Value,
        text: &str,
        file: &str,
    ) -> Result<Self, WorkloadError> {
        let top = value
            .as_object()
            .ok_or_else(|| WorkloadError::file(file, "expected a JSON object"))?;
        let line_of = |key: &str| text.find(key).map(|o| line_of_offset(text, o)).unwrap_or(1);
        let mut p = Profile::default();
        for (gpu, entries) in top {
            if gpu.contains("_unconsolidated") {
                continue;
            }
            let gpu_l = gpu.to_ascii_lowercase();
            let entries = entries.as_object().ok_or_else(|| {
                WorkloadError::field(
                    file,
                    line_of(gpu),
                    gpu.as_str(),
                    "expected an object of job types",
                )
            })?;
            for (key, m) in entries {
                let (name, scale) = parse_gavel_key(key).ok_or_else(|| {
                    WorkloadError::field(
                        file,
                        line_of(key),
                        key.as_str(),
                        "expected a key like \"('ResNet-50 (batch size 64)', 1)\"",
                    )
                })?;
                let m = m.as_object().ok_or_else(|| {
                    WorkloadError::field(
                        file,
                        line_of(key),
                        key.as_str(),
                        "expected an object with a \"null\" entry",
                    )
                })?;
                for (other, v) in m {
                    if other == "null" {
                        let x = v
                            .as_f64()
                            .filter(|x| x.is_finite() && *x >= 0.0)
                            .ok_or_else(|| {
                                WorkloadError::field(
                                    file,
                                    line_of(key),
                                    format!("{gpu}/{key}/null"),
                                    "expected a non-negative number",
                                )
                            })?;
                        p.set(&name, scale, &gpu_l, x);
                    } else {
                        let (oname, oscale) = parse_gavel_key(other).ok_or_else(|| {
                            WorkloadError::field(
                                file,
                                line_of(other),
                                other.as_str(),
                                "expected a job type key",
                            )
                        })?;
                        let pair = v
                            .as_array()
                            .filter(|a| a.len() == 2)
                            .and_then(|a| Some((a[0].as_f64()?, a[1].as_f64()?)));
                        let (this, oth) = pair
                            .filter(|(a, b)| {
                                a.is_finite() && b.is_finite() && *a >= 0.0 && *b >= 0.0
                            })
                            .ok_or_else(|| {
                                WorkloadError::field(
                                    file,
                                    line_of(other),
                                    format!("{gpu}/{key}/{other}"),
                                    "expected [this, other] non-negative numbers",
                                )
                            })?;
                        p.job_types.entry(name.clone()).or_default().colocated.push(
                            ColocatedEntry {
                                scale,
                                with: oname,
                                with_scale: oscale,
                                gpu: gpu_l.clone(),
                                this,
                                other: oth,
                            },
                        );
                    }
                }
            }
        }
        if p.job_types.is_empty() {
            return Err(WorkloadError::file(file, "no job types found"));
        }
        Ok(p)
    }
}

/// Parse Gavel's `"('Model name', 2)"` keys.
fn parse_gavel_key(key: &str) -> Option<(String, u32)> {
    let inner = key.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (name, scale) = inner.rsplit_once(',')?;
    let name = name.trim();
    let name = name
        .strip_prefix('\'')
        .and_then(|n| n.strip_suffix('\''))
        .or_else(|| name.strip_prefix('"').and_then(|n| n.strip_suffix('"')))?;
    let scale: u32 = scale.trim().parse().ok()?;
    if scale == 0 {
        return None;
    }
    Some((name.to_string(), scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gavel_keys() {
        assert_eq!(
            parse_gavel_key("('ResNet-18 (batch size 16)', 2)"),
            Some(("ResNet-18 (batch size 16)".into(), 2))
        );
        assert_eq!(parse_gavel_key("('A3C', 1)"), Some(("A3C".into(), 1)));
        assert_eq!(parse_gavel_key("null"), None);
    }

    #[test]
    fn gavel_json_and_round_trip() {
        let text = r#"{"v100": {"('A', 1)": {"null": 2.0, "('B', 1)": [1.0, 0.5]}, "('B', 1)": {"null": 1.0}},
                       "k80": {"('A', 1)": {"null": 0.5}}, "k80_unconsolidated": {"('A', 1)": {"null": 0.1}}}"#;
        let p = Profile::parse(text, "t.json").unwrap();
        assert_eq!(p.throughput("A", 1, "v100"), Some(2.0));
        assert_eq!(p.throughput("A", 1, "k80"), Some(0.5));
        assert_eq!(p.colocated("A", 1, "B", 1, "v100"), Some((1.0, 0.5)));
        assert_eq!(p.gpu_types(), ["k80", "v100"]);
        let again = Profile::parse(&p.to_json(), "p.json").unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn csv_profile_and_errors() {
        let p = Profile::parse(
            "job_type,scale_factor,v100,k80\n\"A, big\",1,2.0,\nA,2,3.5,1\n",
            "p.csv",
        )
        .unwrap();
        assert_eq!(p.throughput("A, big", 1, "v100"), Some(2.0));
        assert_eq!(p.throughput("A, big", 1, "k80"), None);
        assert_eq!(p.throughput("A", 2, "k80"), Some(1.0));
        let e = Profile::parse("job_type,scale_factor,v100\nA,1,fast\n", "p.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:2: field 'v100': 'fast' is not a number"
        );
        let e = Profile::parse("job_type,scale_factor,v100\nA,1,-3\n", "p.csv").unwrap_err();
        assert!(e.to_string().contains("negative"));
        let e = Profile::parse("job_type,scale_factor,v100\nA,1,NaN\n", "p.csv").unwrap_err();
        assert!(e.to_string().starts_with("p.csv:2: field 'v100'"), "{e}");
        let e = Profile::parse("job_type,scale_factor,v100\nA,1\n", "p.csv").unwrap_err();
        assert!(e.to_string().starts_with("p.csv:2: field 'row'"), "{e}");
        let e = Profile::parse(r#"{"format":"orrery-profile","version":1,"job_types":{"A":{"throughputs":{"1":{"v100":-1}}}}}"#, "p.json").unwrap_err();
        assert!(e.to_string().contains("A/1/v100"), "{e}");
    }
}
