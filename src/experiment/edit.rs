//! Editing an experiment as a person does in the page: a pure reducer from an experiment and
//! an edit (values as typed) to the edited experiment, or why the edit is refused. The page
//! applies what it returns (resolving the experiment first when [`Edited::resolve`] says the
//! edit changes what resolution reads); the reducer itself is tested natively.

use super::{Experiment, WorkloadSource};
use crate::model::cluster::ClusterSpec;
use crate::policy::catalog;
use crate::workload::TimePoint;
use std::collections::BTreeMap;

/// An edit of the Run settings or the Cluster panel, with the values as typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// The experiment seed.
    Seed(String),
    /// The round length (s).
    Round(String),
    /// Gavel-compatible mode.
    GavelCompat(bool),
    /// DL2-compatible mode (parameter-server experiments).
    Dl2Compat(bool),
    /// The restart cost (s).
    RestartCost(String),
    /// Per-type restart delays, `type=seconds, ...`.
    RestartTypes(String),
    /// Per-application slowdowns, `application=factor, ...`.
    Slowdowns(String),
    /// The measurement window `A:B` (empty: none).
    Window(String),
    /// Finish-time fairness (the isolated baseline) on or off.
    Fairness(bool),
    /// The cluster as text (`type:count[/per_server][@price],...`).
    Cluster(String),
    /// The workload: a bundled trace, a generated one or an uploaded one.
    Workload(WorkloadSource),
    /// A field of the trace filter (`from`, `to`, `vcs`, `statuses` or `max_jobs`) as typed;
    /// an empty field filters nothing.
    Filter(String, String),
    /// The policies to compare, as the Policies panel's rows: each row's spec and the
    /// parameters typed beside it ([`crate::policy::catalog::spec_of_row`]).
    Policies(Vec<(String, String)>),
}

/// An edit of the cluster's table.
#[derive(Debug, Clone, PartialEq)]
pub enum ClusterEdit {
    /// One cell: a row (GPU type), a column (`name`, `count`, `per_server` or `price`) and
    /// the value typed.
    Cell(usize, String, String),
    /// Another GPU type at the end of the cluster (one GPU of type `gpuN`).
    AddType,
    /// Remove the GPU type of a row (the last one stays).
    RemoveType(usize),
}

/// An edit's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    /// The edited experiment.
    pub exp: Experiment,
    /// Whether the edit changes what resolution reads, so the experiment must be resolved
    /// before it is taken (a refusal then comes from the resolution).
    pub resolve: bool,
    /// Whether the edit changes what a stepping run simulates (its run starts again).
    pub restarts_stepping: bool,
}

/// `exp` with `edit` applied, or why the edit is refused (one sentence for the field).
pub fn apply(exp: &Experiment, edit: &Edit) -> Result<Edited, String> {
    let mut e = exp.clone();
    let (resolve, restarts_stepping) = match edit {
        Edit::Seed(v) => {
            e.seed = v
                .trim()
                .parse()
                .map_err(|_| format!("'{v}' is refused: the seed is a whole number, 0 or more."))?;
            (false, true)
        }
        Edit::Round(v) => {
            e.round_s = match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r > 0.0 => r,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: the round length must be a positive number of seconds."
                    ))
                }
            };
            (false, true)
        }
        Edit::GavelCompat(on) => {
            e.gavel_compat = *on;
            (false, true)
        }
        Edit::Dl2Compat(on) => {
            e.set_dl2_compat(*on);
            (false, true)
        }
        Edit::RestartCost(v) => {
            e.restart_cost_s = match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r >= 0.0 => r,
                _ => {
                    return Err(format!(
                        "'{v}' is refused: the restart cost must be 0 or more seconds."
                    ))
                }
            };
            (false, true)
        }
        Edit::RestartTypes(v) => {
            e.restart_by_type =
                named_numbers(v, "per-type delays", "type=seconds", "number of seconds")?;
            (true, true)
        }
        Edit::Slowdowns(v) => {
            e.slowdown = named_numbers(v, "slowdowns", "application=factor", "number")?;
            (true, true)
        }
        Edit::Window(v) => {
            let v = v.trim();
            if v.is_empty() {
                e.window = None;
                (false, false)
            } else {
                e.window = Some(window(v).ok_or_else(|| {
                    format!("'{v}' is refused: the window is A:B, the jobs with ids from A up to (not including) B.")
                })?);
                (true, true)
            }
        }
        Edit::Fairness(on) => {
            e.fairness = *on;
            (false, false)
        }
        Edit::Cluster(text) => {
            e.cluster = ClusterSpec::parse(text)
                .map_err(|err| err.to_string())?
                .to_string();
            (true, true)
        }
        Edit::Workload(w) => {
            e.workload = w.clone();
            (true, true)
        }
        Edit::Filter(field, v) => {
            let mut f = exp.trace_filter.clone().unwrap_or_default();
            let t = v.trim();
            let point = |what: &str| -> Result<Option<TimePoint>, String> {
                if t.is_empty() {
                    return Ok(None);
                }
                TimePoint::parse(t).map(Some).ok_or_else(|| {
                    format!("trace filter {what}: '{t}' is neither seconds nor a date-time (YYYY-MM-DD[ HH:MM:SS])")
                })
            };
            match field.as_str() {
                "from" => f.from = point("from")?,
                "to" => f.to = point("to")?,
                "vcs" => f.vcs = list(t),
                "statuses" => f.statuses = list(t),
                _ if t.is_empty() => f.max_jobs = None,
                _ => match t.parse::<usize>() {
                    Ok(n) if n >= 1 => f.max_jobs = Some(n),
                    _ => {
                        return Err(format!(
                            "trace filter max jobs: '{t}' is not a whole number of at least 1"
                        ))
                    }
                },
            }
            e.trace_filter = (!f.is_empty()).then_some(f);
            (true, true)
        }
        Edit::Policies(rows) => {
            e.policies = rows
                .iter()
                .map(|(row, params)| catalog::spec_of_row(row, params))
                .collect();
            (false, true)
        }
    };
    Ok(Edited {
        exp: e,
        resolve,
        restarts_stepping,
    })
}

/// The cluster's text after `edit` of its table (the new text, which [`Edit::Cluster`]
/// then checks), or why a cell's value is refused.
pub fn cluster_after(cluster: &str, edit: &ClusterEdit) -> Result<String, String> {
    let mut c = ClusterSpec::parse(cluster).map_err(|err| err.to_string())?;
    match edit {
        ClusterEdit::Cell(row, col, value) => {
            if let Some(t) = c.types.get_mut(*row) {
                let v = value.trim();
                let ok = match col.as_str() {
                    "name" => {
                        t.name = v.to_ascii_lowercase();
                        true
                    }
                    "count" => v.parse().map(|x| t.count = x).is_ok(),
                    "per_server" => v.parse().map(|x| t.per_server = x).is_ok(),
                    _ if v.is_empty() => {
                        t.price_per_hour = None;
                        true
                    }
                    _ => v.parse().map(|x| t.price_per_hour = Some(x)).is_ok(),
                };
                if !ok {
                    let what = match col.as_str() {
                        "count" => "the number of GPUs must be a whole number, 0 or more",
                        "per_server" => "GPUs per server must be a whole number, 1 or more",
                        _ => "the price per GPU-hour must be a number (or empty for none)",
                    };
                    return Err(format!(
                        "'{value}' is refused: {what}; the cluster is kept as it was."
                    ));
                }
            }
        }
        ClusterEdit::AddType => {
            return Ok(format!(
                "{cluster},gpu{}:1",
                cluster.matches(',').count() + 2
            ))
        }
        ClusterEdit::RemoveType(row) => {
            if c.types.len() > 1 && *row < c.types.len() {
                c.types.remove(*row);
            }
        }
    }
    Ok(c.to_string())
}

/// A map from `name=number, ...` (empty: none); `what` names the field, `form` its entries
/// and `unit` the number in messages.
fn named_numbers(
    text: &str,
    what: &str,
    form: &str,
    unit: &str,
) -> Result<BTreeMap<String, f64>, String> {
    let mut map = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (t, v) = part
            .rsplit_once('=')
            .ok_or_else(|| format!("{what}: '{part}' is not {form}"))?;
        let s: f64 = v
            .trim()
            .parse()
            .map_err(|_| format!("{what}: '{}' is not a {unit}", v.trim()))?;
        map.insert(t.trim().to_string(), s);
    }
    Ok(map)
}

/// A comma-separated list, trimmed, without empty entries.
fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A measurement window `A:B`, if the text is one.
fn window(v: &str) -> Option<(usize, usize)> {
    v.split_once(':').and_then(|(a, b)| {
        Some((
            a.trim().parse::<usize>().ok()?,
            b.trim().parse::<usize>().ok()?,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::scenarios;

    fn base() -> Experiment {
        scenarios::default_experiment()
    }

    #[test]
    fn settings_take_good_values_and_refuse_bad_ones_with_the_reason() {
        let e = base();
        let got = apply(&e, &Edit::Seed(" 42 ".into())).unwrap();
        assert_eq!(got.exp.seed, 42);
        assert!(!got.resolve && got.restarts_stepping);
        assert_eq!(
            apply(&e, &Edit::Seed("-1".into())).unwrap_err(),
            "'-1' is refused: the seed is a whole number, 0 or more."
        );
        assert_eq!(
            apply(&e, &Edit::Round("60".into())).unwrap().exp.round_s,
            60.0
        );
        for bad in ["0", "-5", "inf", "x"] {
            let err = apply(&e, &Edit::Round(bad.into())).unwrap_err();
            assert!(err.contains("positive number of seconds"), "{bad}: {err}");
        }
        assert_eq!(
            apply(&e, &Edit::RestartCost("0".into()))
                .unwrap()
                .exp
                .restart_cost_s,
            0.0
        );
        assert!(apply(&e, &Edit::RestartCost("-1".into())).is_err());
        let got = apply(&e, &Edit::RestartTypes("a=30, b = 2.5".into())).unwrap();
        assert!(got.resolve);
        assert_eq!(got.exp.restart_by_type["a"], 30.0);
        assert_eq!(got.exp.restart_by_type["b"], 2.5);
        assert_eq!(
            apply(&e, &Edit::RestartTypes("a".into())).unwrap_err(),
            "per-type delays: 'a' is not type=seconds"
        );
        assert_eq!(
            apply(&e, &Edit::Slowdowns("bert=x".into())).unwrap_err(),
            "slowdowns: 'x' is not a number"
        );
        let got = apply(&e, &Edit::Window(" 10:20 ".into())).unwrap();
        assert_eq!((got.exp.window, got.resolve), (Some((10, 20)), true));
        let got = apply(&got.exp, &Edit::Window("".into())).unwrap();
        assert_eq!((got.exp.window, got.resolve), (None, false));
        assert!(apply(&e, &Edit::Window("10-20".into())).is_err());
        let got = apply(&e, &Edit::Fairness(false)).unwrap();
        assert!(!got.exp.fairness && !got.restarts_stepping);
        assert!(
            apply(&e, &Edit::GavelCompat(true))
                .unwrap()
                .exp
                .gavel_compat
        );
        let dl2 = apply(&e, &Edit::Dl2Compat(true)).unwrap().exp;
        assert!(dl2.dl2_compat);
        assert_eq!(dl2.ps, Some(crate::workload::PsConfig::dl2()));
        // Nothing else changes.
        let got = apply(&e, &Edit::Seed("7".into())).unwrap().exp;
        assert_eq!(
            Experiment {
                seed: e.seed,
                ..got
            },
            e
        );
    }

    #[test]
    fn filter_fields_build_the_trace_filter_or_say_why_not() {
        let e = base();
        let f = |field: &str, v: &str| Edit::Filter(field.into(), v.into());
        let got = apply(&e, &f("vcs", " a, ,b ")).unwrap();
        assert!(got.resolve);
        let filter = got.exp.trace_filter.clone().unwrap();
        assert_eq!(filter.vcs, ["a", "b"]);
        let got = apply(&got.exp, &f("max_jobs", "100")).unwrap();
        assert_eq!(got.exp.trace_filter.as_ref().unwrap().max_jobs, Some(100));
        let got = apply(&got.exp, &f("from", "3600")).unwrap();
        assert!(got.exp.trace_filter.as_ref().unwrap().from.is_some());
        // Emptying every field leaves no filter.
        let mut cleared = got.exp;
        for field in ["vcs", "max_jobs", "from"] {
            cleared = apply(&cleared, &f(field, "")).unwrap().exp;
        }
        assert_eq!(cleared.trace_filter, None);
        assert_eq!(
            apply(&e, &f("max_jobs", "0")).unwrap_err(),
            "trace filter max jobs: '0' is not a whole number of at least 1"
        );
        assert!(apply(&e, &f("to", "yesterday"))
            .unwrap_err()
            .starts_with("trace filter to: 'yesterday' is neither seconds nor a date-time"));
    }

    #[test]
    fn a_new_workload_is_resolved_before_it_is_taken() {
        let w = WorkloadSource::Preset {
            name: "default".into(),
        };
        let got = apply(&scenarios::pollux_experiment(), &Edit::Workload(w.clone())).unwrap();
        assert_eq!((got.exp.workload, got.resolve), (w, true));
    }

    #[test]
    fn policy_rows_become_the_experiment_s_specs() {
        let rows = vec![
            ("las".to_string(), String::new()),
            ("tiresias".to_string(), " threshold_gpu_h=8 ".to_string()),
            (
                "pickyman[overhead_aware=false]".to_string(),
                "max_preemptions=1".to_string(),
            ),
        ];
        let got = apply(&base(), &Edit::Policies(rows)).unwrap();
        assert_eq!(
            got.exp.policies,
            [
                "las",
                "tiresias[threshold_gpu_h=8]",
                "pickyman[overhead_aware=false,max_preemptions=1]"
            ]
        );
        assert!(!got.resolve && got.restarts_stepping);
    }

    #[test]
    fn cluster_edits_give_the_new_text_or_say_why_not() {
        let c = "v100:12,p100:12";
        let cell = |row, col: &str, v: &str| ClusterEdit::Cell(row, col.into(), v.into());
        assert_eq!(
            cluster_after(c, &cell(1, "count", "4")).unwrap(),
            "v100:12,p100:4"
        );
        assert_eq!(
            cluster_after(c, &cell(0, "name", "A100")).unwrap(),
            "a100:12,p100:12"
        );
        assert_eq!(
            cluster_after(c, &cell(0, "count", "x")).unwrap_err(),
            "'x' is refused: the number of GPUs must be a whole number, 0 or more; the cluster is kept as it was."
        );
        let added = cluster_after(c, &ClusterEdit::AddType).unwrap();
        assert_eq!(added, "v100:12,p100:12,gpu3:1");
        assert_eq!(
            cluster_after(&added, &ClusterEdit::RemoveType(2)).unwrap(),
            c
        );
        assert_eq!(
            cluster_after("v100:12", &ClusterEdit::RemoveType(0)).unwrap(),
            "v100:12"
        );
        let e = base();
        let got = apply(&e, &Edit::Cluster("v100:4 , k80:2".into())).unwrap();
        assert!(got.resolve);
        assert_eq!(
            got.exp.cluster,
            ClusterSpec::parse("v100:4,k80:2").unwrap().to_string()
        );
        assert!(apply(&e, &Edit::Cluster("v100:x".into())).is_err());
    }
}
