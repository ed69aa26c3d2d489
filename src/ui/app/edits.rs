//! The edits of the Workload, Cluster, Policies and Run settings panels.

use super::{App, ClusterMsg, PolicyMsg, SettingsMsg, WorkloadMsg};
use crate::experiment::{ProfileSource, WorkloadSource};
use crate::model::cluster::ClusterSpec;
use crate::policy::catalog;
use crate::ui::events::PROFILE_FREE;
use crate::workload::{Apps, Profile, PsModels, Trace};
use std::collections::BTreeMap;

/// A map from `name=number, ...` (empty: none); `what` names the field, `form` its entries
/// and `unit` the number in messages.
fn parse_named_numbers(
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

/// A measurement window `A:B`, if the text is one.
fn parse_window(v: &str) -> Option<(usize, usize)> {
    v.split_once(':').and_then(|(a, b)| {
        Some((
            a.trim().parse::<usize>().ok()?,
            b.trim().parse::<usize>().ok()?,
        ))
    })
}

impl App {
    /// An edit of the Workload panel.
    pub(super) fn workload_update(&mut self, msg: WorkloadMsg) -> bool {
        match msg {
            WorkloadMsg::TracePreset(name) => {
                let candidate = self.with(|e| e.workload = WorkloadSource::Preset { name });
                self.errors.workload = self.try_apply(candidate).err();
            }
            WorkloadMsg::Generator(field, v) => {
                let refused = self.forms.generator.set_field(field, &v).err();
                super::inputs::set_field_error(
                    &mut self.errors.fields,
                    super::inputs::generator_field_id(field),
                    &v,
                    refused,
                );
            }
            WorkloadMsg::Generate => {
                let g = self.forms.generator.clone();
                let candidate = self.with(|e| e.workload = WorkloadSource::Generated(g));
                self.errors.workload = self.try_apply(candidate).err();
            }
            WorkloadMsg::TraceFile(name, text) => {
                self.errors.workload = match Trace::parse(&text, &name) {
                    Err(e) => Some(format!("{e} — the previous workload is kept")),
                    Ok(t) if t.is_timed() => {
                        let largest = t.jobs.iter().map(|j| j.scale_factor).max().unwrap_or(0);
                        match self.try_timed_trace(name, text, largest) {
                            Ok(note) => {
                                self.note(Some(note));
                                None
                            }
                            Err(e) => Some(format!("{e} — the previous workload is kept")),
                        }
                    }
                    Ok(_) => match self.try_trace(name, text) {
                        Ok(note) => {
                            self.note(note);
                            None
                        }
                        Err(e) => Some(format!("{e} — the previous workload is kept")),
                    },
                };
            }
            WorkloadMsg::FileError(e) => self.errors.workload = Some(e),
            WorkloadMsg::Filter(field, v) => self.set_filter_field(field, &v),
            WorkloadMsg::ProfilePreset(name) if name == PROFILE_FREE => {
                self.errors.profile = self.apply_profile(ProfileSource::ProfileFree);
            }
            WorkloadMsg::ProfilePreset(name) => {
                self.errors.profile = self.apply_profile(ProfileSource::Preset { name });
            }
            WorkloadMsg::ProfileFile(name, text) => {
                let parsed = if Apps::is_apps_json(&text) {
                    Apps::from_json(&text, &name).map(drop)
                } else if PsModels::is_ps_json(&text) {
                    PsModels::from_json(&text, &name).map(drop)
                } else {
                    Profile::parse(&text, &name).map(drop)
                };
                self.errors.profile = match parsed {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(()) => self.apply_profile(ProfileSource::Inline { name, text }),
                };
            }
            WorkloadMsg::ProfileFolder(name, files, skipped) => {
                self.errors.profile = match Apps::from_pollux_files(&name, &files) {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(apps) => {
                        let n = apps.apps.len();
                        let error = self.apply_profile(ProfileSource::Files {
                            name: name.clone(),
                            files,
                        });
                        if error.is_none() {
                            let extra = if skipped > 0 {
                                format!(" ({skipped} other files not needed were left out)")
                            } else {
                                String::new()
                            };
                            let before = self.notice.take().map(|n| n.1);
                            self.notice = Some((
                                true,
                                format!(
                                    "Read {n} applications from folder '{name}'{extra}.{}",
                                    before.map(|b| format!(" {b}")).unwrap_or_default()
                                ),
                            ));
                        }
                        error
                    }
                };
            }
            WorkloadMsg::ProfileFileError(e) => self.errors.profile = Some(e),
        }
        true
    }

    /// Set the cluster spec text; the experiment takes it when it is valid.
    fn set_cluster_text(&mut self, text: String) {
        self.forms.cluster_text = text.clone();
        match ClusterSpec::parse(&text) {
            Ok(c) => {
                let candidate = self.with(|e| e.cluster = c.to_string());
                self.errors.cluster = self.try_apply(candidate).err();
            }
            Err(e) => self.errors.cluster = Some(e.to_string()),
        }
    }

    /// An edit of the Cluster panel.
    pub(super) fn cluster_update(&mut self, msg: ClusterMsg) -> bool {
        match msg {
            ClusterMsg::Text(t) | ClusterMsg::Preset(t) => self.set_cluster_text(t),
            ClusterMsg::Cell(row, col, value) => {
                let Ok(mut c) = ClusterSpec::parse(&self.exp.cluster) else {
                    return true;
                };
                if let Some(t) = c.types.get_mut(row) {
                    let v = value.trim();
                    let ok = match col {
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
                        let what = match col {
                            "count" => "the number of GPUs must be a whole number, 0 or more",
                            "per_server" => "GPUs per server must be a whole number, 1 or more",
                            _ => "the price per GPU-hour must be a number (or empty for none)",
                        };
                        self.errors.cluster = Some(format!(
                            "'{value}' is refused: {what}; the cluster is kept as it was."
                        ));
                        return true;
                    }
                }
                self.set_cluster_text(c.to_string());
            }
            ClusterMsg::AddType => {
                let text = format!(
                    "{},gpu{}:1",
                    self.exp.cluster,
                    self.exp.cluster.matches(',').count() + 2
                );
                self.set_cluster_text(text);
            }
            ClusterMsg::RemoveType(row) => {
                if let Ok(mut c) = ClusterSpec::parse(&self.exp.cluster) {
                    if c.types.len() > 1 && row < c.types.len() {
                        c.types.remove(row);
                        self.set_cluster_text(c.to_string());
                    }
                }
            }
        }
        true
    }

    /// An edit of the Policies panel.
    pub(super) fn policies_update(&mut self, msg: PolicyMsg) -> bool {
        match msg {
            PolicyMsg::Toggle(name) => {
                let params = &mut self.forms.policy_params;
                if let Some(i) = params.iter().position(|(n, _)| *n == name) {
                    params.remove(i);
                } else {
                    params.push((name, String::new()));
                }
                self.sync_policies();
                self.step.run = None;
            }
            PolicyMsg::Params(name, text) => {
                if let Some(p) = self
                    .forms
                    .policy_params
                    .iter_mut()
                    .find(|(n, _)| *n == name)
                {
                    p.1 = text;
                }
                self.sync_policies();
                self.step.run = None;
                let mechanism = self.mech;
                self.errors.run = self
                    .exp
                    .policies
                    .iter()
                    .find_map(|p| catalog::check(p, mechanism).err())
                    .map(|e| e.to_string());
            }
        }
        true
    }

    /// Refuse the value `typed` in a Run settings field, saying why next to it.
    fn refuse(&mut self, field: &'static str, typed: &str, why: String) {
        super::inputs::set_field_error(&mut self.errors.fields, field, typed, Some(why));
    }

    /// A Run settings field's outcome for `typed`: why it was refused (None: accepted).
    fn field_result(&mut self, field: &'static str, typed: &str, refused: Option<String>) {
        super::inputs::set_field_error(&mut self.errors.fields, field, typed, refused);
    }

    /// An edit of the Run settings panel.
    pub(super) fn settings_update(&mut self, msg: SettingsMsg) -> bool {
        match msg {
            SettingsMsg::Seed(v) => match v.trim().parse() {
                Ok(seed) => {
                    self.edit(|e| e.seed = seed);
                    self.step.run = None;
                    self.field_result("seed", &v, None);
                }
                Err(_) => self.refuse(
                    "seed",
                    &v,
                    format!("'{v}' is refused: the seed is a whole number, 0 or more."),
                ),
            },
            SettingsMsg::Round(v) => match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r > 0.0 => {
                    self.edit(|e| e.round_s = r);
                    self.step.run = None;
                    self.field_result("round", &v, None);
                }
                _ => self.refuse(
                    "round",
                    &v,
                    format!(
                        "'{v}' is refused: the round length must be a positive number of seconds."
                    ),
                ),
            },
            SettingsMsg::GavelCompat(on) => {
                self.edit(|e| e.gavel_compat = on);
                self.step.run = None;
            }
            SettingsMsg::RestartCost(v) => match v.trim().parse::<f64>() {
                Ok(r) if r.is_finite() && r >= 0.0 => {
                    self.edit(|e| e.restart_cost_s = r);
                    self.step.run = None;
                    self.field_result("restart-cost", &v, None);
                }
                _ => self.refuse(
                    "restart-cost",
                    &v,
                    format!("'{v}' is refused: the restart cost must be 0 or more seconds."),
                ),
            },
            SettingsMsg::RestartTypes(v) => {
                match parse_named_numbers(
                    &v,
                    "per-type delays",
                    "type=seconds",
                    "number of seconds",
                ) {
                    Ok(map) => {
                        let candidate = self.with(|e| e.restart_by_type = map);
                        let refused = self.try_apply(candidate).err();
                        self.field_result("restart-types", &v, refused);
                    }
                    Err(e) => self.refuse("restart-types", &v, e),
                }
            }
            SettingsMsg::Slowdowns(v) => {
                match parse_named_numbers(&v, "slowdowns", "application=factor", "number") {
                    Ok(map) => {
                        let candidate = self.with(|e| e.slowdown = map);
                        let refused = self.try_apply(candidate).err();
                        self.field_result("slowdowns", &v, refused);
                    }
                    Err(e) => self.refuse("slowdowns", &v, e),
                }
            }
            SettingsMsg::Window(v) => {
                let v = v.trim();
                if v.is_empty() {
                    self.edit(|e| e.window = None);
                    self.field_result("window", v, None);
                } else if let Some(w) = parse_window(v) {
                    let candidate = self.with(|e| e.window = Some(w));
                    let refused = self.try_apply(candidate).err();
                    self.field_result("window", v, refused);
                } else {
                    self.refuse(
                    "window",
                    v,
                        format!("'{v}' is refused: the window is A:B, the jobs with ids from A up to (not including) B."),
                    )
                }
            }
            SettingsMsg::Fairness(on) => self.edit(|e| e.fairness = on),
        }
        true
    }
}
