//! Colocated-pair throughputs resolved for one trace on one cluster: what two jobs of the
//! trace train at when they share the same GPUs (space sharing).
//!
//! Jobs fall into classes (a job type at a scale factor); the profile's colocated entries
//! are looked up once per pair of classes and GPU type, so a lookup for two jobs is a
//! search in a small ordered map. Pairs exist only between jobs of the same scale factor
//! (as in Gavel, whose throughputs file has no cross-scale entries); any other pair trains
//! at 0.

use super::Profile;
use crate::model::cluster::{ClusterSpec, TypeIdx};
use crate::model::job::{JobId, JobSpec};
use std::collections::BTreeMap;

/// Colocated throughputs of every pair of jobs of a trace, per GPU type of a cluster.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Colocation {
    num_types: usize,
    /// Class of each job, by id.
    class_of: Vec<u32>,
    /// Per class pair (lower class first): steps/s of each class's job per GPU type,
    /// `(first class's, second class's)`. Only pairs with a positive rate somewhere.
    rates: BTreeMap<(u32, u32), Vec<(f64, f64)>>,
}

impl Colocation {
    /// The table for `specs` on `cluster` from the profile's colocated entries.
    pub fn new(profile: &Profile, cluster: &ClusterSpec, specs: &[JobSpec]) -> Self {
        let num_types = cluster.num_types();
        let mut classes: BTreeMap<(&str, u32), u32> = BTreeMap::new();
        let mut class_of = Vec::with_capacity(specs.len());
        for s in specs {
            let next = classes.len() as u32;
            let c = *classes
                .entry((s.job_type.as_str(), s.scale_factor))
                .or_insert(next);
            class_of.push(c);
        }
        let mut rates: BTreeMap<(u32, u32), Vec<(f64, f64)>> = BTreeMap::new();
        // Classes in order of their ids, so that the entry of the lower class wins when a
        // profile gives both directions of a pair.
        let mut by_id: Vec<(&(&str, u32), &u32)> = classes.iter().collect();
        crate::order::sort_by_key(&mut by_id, |(_, &c)| c);
        for ((job_type, scale), &ci) in by_id {
            let Some(p) = profile.job_types.get(*job_type) else {
                continue;
            };
            for e in &p.colocated {
                if e.scale != *scale || e.with_scale != *scale {
                    continue;
                }
                let (Some(&cj), Some(t)) = (
                    classes.get(&(e.with.as_str(), e.with_scale)),
                    cluster.type_index(&e.gpu),
                ) else {
                    continue;
                };
                if !(e.this > 0.0 || e.other > 0.0) {
                    continue;
                }
                let (key, pair) = if ci <= cj {
                    ((ci, cj), (e.this, e.other))
                } else {
                    ((cj, ci), (e.other, e.this))
                };
                let row = rates
                    .entry(key)
                    .or_insert_with(|| vec![(0.0, 0.0); num_types]);
                // The first entry for a (pair, type) wins.
                if row[t] == (0.0, 0.0) {
                    row[t] = pair;
                }
            }
        }
        Colocation {
            num_types,
            class_of,
            rates,
        }
    }

    /// A table given directly for jobs `0..num_jobs` on `num_types` GPU types: for each pair
    /// `(a, b)`, the steps/s of `a` and of `b` per type when they share GPUs. Every job is its
    /// own class; pairs not given train at 0, as do rows of the wrong length.
    pub fn from_rates(
        num_types: usize,
        num_jobs: usize,
        pairs: impl IntoIterator<Item = ((JobId, JobId), Vec<(f64, f64)>)>,
    ) -> Self {
        let mut rates = BTreeMap::new();
        for ((a, b), row) in pairs {
            if a == b || a >= num_jobs || b >= num_jobs || row.len() != num_types {
                continue;
            }
            let clean = |x: f64| if x.is_finite() && x > 0.0 { x } else { 0.0 };
            let row: Vec<(f64, f64)> = if a < b {
                row.iter().map(|&(x, y)| (clean(x), clean(y))).collect()
            } else {
                row.iter().map(|&(x, y)| (clean(y), clean(x))).collect()
            };
            if row.iter().any(|&(x, y)| x > 0.0 || y > 0.0) {
                rates.insert((a.min(b) as u32, a.max(b) as u32), row);
            }
        }
        Colocation {
            num_types,
            class_of: (0..num_jobs as u32).collect(),
            rates,
        }
    }

    /// A table given by classes: `class_of[job]` for jobs `0..class_of.len()`, and for each
    /// pair of classes `(a, b)` the steps/s of a job of `a` and of a job of `b` per type
    /// when they share GPUs (within one class the lower id gets the first value). Pairs not
    /// given train at 0, as do rows of the wrong length.
    pub fn from_classes(
        num_types: usize,
        class_of: Vec<u32>,
        pairs: impl IntoIterator<Item = ((u32, u32), Vec<(f64, f64)>)>,
    ) -> Self {
        let rates = pairs
            .into_iter()
            .filter(|(_, row)| row.len() == num_types)
            .map(|((a, b), row)| {
                let clean = |x: f64| if x.is_finite() && x > 0.0 { x } else { 0.0 };
                let row: Vec<(f64, f64)> = if a <= b {
                    row.iter().map(|&(x, y)| (clean(x), clean(y))).collect()
                } else {
                    row.iter().map(|&(x, y)| (clean(y), clean(x))).collect()
                };
                ((a.min(b), a.max(b)), row)
            })
            .filter(|(_, row)| row.iter().any(|&(x, y)| x > 0.0 || y > 0.0))
            .collect();
        Colocation {
            num_types,
            class_of,
            rates,
        }
    }

    /// The class of `job` (jobs of one class have the same type and scale factor, so the
    /// same colocated throughputs with any other job), if the table knows the job.
    pub fn class(&self, job: JobId) -> Option<u32> {
        self.class_of.get(job).copied()
    }

    /// Whether no pair of jobs can share GPUs.
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// Steps/s of `a` and of `b` when they share GPUs of type `t`: `(a's, b's)`; `(0, 0)`
    /// where the profile has no entry (or for unknown jobs or types).
    pub fn rates(&self, a: JobId, b: JobId, t: TypeIdx) -> (f64, f64) {
        if t >= self.num_types {
            return (0.0, 0.0);
        }
        let (Some(&ca), Some(&cb)) = (self.class_of.get(a), self.class_of.get(b)) else {
            return (0.0, 0.0);
        };
        let key = (ca.min(cb), ca.max(cb));
        let Some(row) = self.rates.get(&key) else {
            return (0.0, 0.0);
        };
        let (first, second) = row[t];
        // Same class: the lower id is the profile's "this" (Gavel's order of a pair).
        if ca < cb || (ca == cb && a < b) {
            (first, second)
        } else {
            (second, first)
        }
    }

    /// Steps/s of `a` and `b` sharing GPUs, per GPU type (`rates` on every type).
    pub fn rates_row(&self, a: JobId, b: JobId) -> Vec<(f64, f64)> {
        (0..self.num_types).map(|t| self.rates(a, b, t)).collect()
    }

    /// Whether `a` and `b` can share GPUs of some type with both making progress.
    pub fn runnable(&self, a: JobId, b: JobId) -> bool {
        (0..self.num_types).any(|t| {
            let (x, y) = self.rates(a, b, t);
            x > 0.0 && y > 0.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_follow_ids_and_classes() {
        let text = r#"{"v100": {"('A', 1)": {"null": 2.0, "('A', 1)": [1.5, 1.0], "('B', 1)": [1.0, 0.5]},
                                "('B', 1)": {"null": 1.0, "('A', 1)": [0.5, 1.0]},
                                "('A', 2)": {"null": 3.0, "('B', 1)": [1.0, 1.0]}},
                       "k80": {"('A', 1)": {"null": 0.5}, "('B', 1)": {"null": 0.5}}}"#;
        let p = Profile::parse(text, "t.json").unwrap();
        let cluster = ClusterSpec::parse("v100:1,k80:1").unwrap();
        let specs = vec![
            JobSpec::new("B", 0.0, 10.0),
            JobSpec::new("A", 0.0, 10.0),
            JobSpec::new("A", 0.0, 10.0),
            JobSpec::new("A", 0.0, 10.0).with_scale(2),
        ];
        let c = Colocation::new(&p, &cluster, &specs);
        // Job 0 is B, job 1 is A: B trains at 0.5 and A at 1.0 on v100, in either order.
        assert_eq!(c.rates(0, 1, 0), (0.5, 1.0));
        assert_eq!(c.rates(1, 0, 0), (1.0, 0.5));
        // Two jobs of type A: the lower id gets the first value.
        assert_eq!(c.rates(1, 2, 0), (1.5, 1.0));
        assert_eq!(c.rates(2, 1, 0), (1.0, 1.5));
        // No k80 entry; no cross-scale pairs; unknown jobs and types.
        assert_eq!(c.rates(0, 1, 1), (0.0, 0.0));
        assert_eq!(c.rates(3, 0, 0), (0.0, 0.0));
        assert_eq!(c.rates(9, 0, 0), (0.0, 0.0));
        assert_eq!(c.rates(0, 1, 5), (0.0, 0.0));
        assert!(c.runnable(0, 1) && !c.runnable(0, 3));
        assert_eq!(
            (c.class(1), c.class(2), c.class(9)),
            (Some(1), Some(1), None)
        );
        assert_eq!(c.rates_row(0, 1), vec![(0.5, 1.0), (0.0, 0.0)]);
        assert!(Colocation::new(&Profile::default(), &cluster, &specs).is_empty());
        let d = Colocation::from_rates(2, 3, [((2, 0), vec![(0.5, 0.25), (0.0, 0.0)])]);
        assert_eq!(d.rates(0, 2, 0), (0.25, 0.5));
        assert_eq!(d.rates(2, 0, 0), (0.5, 0.25));
        assert_eq!(d.rates(0, 1, 0), (0.0, 0.0));
    }
}
