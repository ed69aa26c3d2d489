//! The edits of the Workload, Cluster, Policies and Run settings panels.

use super::{App, ClusterMsg, PolicyMsg, SettingsMsg, WorkloadMsg};
use crate::events::PROFILE_FREE;
use orrery::experiment::edit::{self, ClusterEdit, Edit};
use orrery::experiment::switch;
use orrery::experiment::{ProfileSource, WorkloadSource};
use orrery::policy::catalog;
use orrery::workload::{dl2_files, Apps, Trace};

impl App {
    /// An edit of the Workload panel.
    pub(super) fn workload_update(&mut self, msg: WorkloadMsg) -> bool {
        match msg {
            WorkloadMsg::TracePreset(name) => {
                let change = Edit::Workload(WorkloadSource::Preset { name });
                self.errors.workload = self.apply_resolved(&change);
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
                let change =
                    Edit::Workload(WorkloadSource::Generated(self.forms.generator.clone()));
                self.errors.workload = self.apply_resolved(&change);
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
                self.errors.profile = match switch::uploaded_profile(name, text) {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(source) => self.apply_profile(source),
                };
            }
            WorkloadMsg::ProfileFolder(name, files, _) if dl2_files::is_profile_folder(&files) => {
                let files = dl2_files::profile_files(files);
                self.errors.profile = match dl2_files::read_profile(&name, &files) {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(models) => {
                        let read = format!(
                            "Read DL2's {} job types and their speed table from folder '{name}'; the Run settings' DL2-compatible mechanism replays DL2's simulator",
                            models.models.len()
                        );
                        self.apply_folder(name, files, read)
                    }
                };
            }
            WorkloadMsg::ProfileFolder(name, files, skipped) => {
                self.errors.profile = match Apps::from_pollux_files(&name, &files) {
                    Err(e) => Some(format!("{e} — the previous profile is kept")),
                    Ok(apps) => {
                        let extra = if skipped > 0 {
                            format!(" ({skipped} other files not needed were left out)")
                        } else {
                            String::new()
                        };
                        let read = format!(
                            "Read {} applications from folder '{name}'{extra}",
                            apps.apps.len()
                        );
                        self.apply_folder(name, files, read)
                    }
                };
            }
            WorkloadMsg::ProfileFileError(e) => self.errors.profile = Some(e),
        }
        true
    }

    /// Take a profile folder that was read (`read` says what it holds): the notice says so,
    /// before whatever the switch of profile noted; why not, if the experiment does not
    /// resolve with it.
    fn apply_folder(
        &mut self,
        name: String,
        files: Vec<orrery::workload::InlineFile>,
        read: String,
    ) -> Option<String> {
        let error = self.apply_profile(ProfileSource::Files { name, files });
        if error.is_none() {
            let before = self.notice.take().map(|n| n.1);
            self.notice = Some((
                true,
                format!(
                    "{read}.{}",
                    before.map(|b| format!(" {b}")).unwrap_or_default()
                ),
            ));
        }
        error
    }

    /// Apply `change` ([`edit::apply`]) and keep the edited experiment if it resolves; why
    /// not, if it does not.
    fn apply_resolved(&mut self, change: &Edit) -> Option<String> {
        edit::apply(&self.exp, change)
            .and_then(|edited| self.try_apply(edited.exp))
            .err()
    }

    /// Set the cluster spec text; the experiment takes it when it is valid.
    fn set_cluster_text(&mut self, text: String) {
        self.forms.cluster_text = text.clone();
        self.errors.cluster = match edit::apply(&self.exp, &Edit::Cluster(text)) {
            Ok(edited) => self.try_apply(edited.exp).err(),
            Err(e) => Some(e),
        };
    }

    /// An edit of the Cluster panel.
    pub(super) fn cluster_update(&mut self, msg: ClusterMsg) -> bool {
        let table = match msg {
            ClusterMsg::Text(t) | ClusterMsg::Preset(t) => {
                self.set_cluster_text(t);
                return true;
            }
            ClusterMsg::Cell(row, col, value) => ClusterEdit::Cell(row, col.to_string(), value),
            ClusterMsg::AddType => ClusterEdit::AddType,
            ClusterMsg::RemoveType(row) => ClusterEdit::RemoveType(row),
        };
        match edit::cluster_after(&self.exp.cluster, &table) {
            Ok(text) => self.set_cluster_text(text),
            Err(e) => self.errors.cluster = Some(e),
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

    /// An edit of the Run settings panel: the experiment edited ([`edit::apply`]), resolved
    /// first when the edit changes what resolution reads, and the field's outcome shown
    /// beside it.
    pub(super) fn settings_update(&mut self, msg: SettingsMsg) -> bool {
        let (field, typed, change) = match msg {
            SettingsMsg::Seed(v) => (Some("seed"), v.clone(), Edit::Seed(v)),
            SettingsMsg::Round(v) => (Some("round"), v.clone(), Edit::Round(v)),
            SettingsMsg::GavelCompat(on) => (None, String::new(), Edit::GavelCompat(on)),
            SettingsMsg::Dl2Compat(on) => (None, String::new(), Edit::Dl2Compat(on)),
            SettingsMsg::RestartCost(v) => (Some("restart-cost"), v.clone(), Edit::RestartCost(v)),
            SettingsMsg::RestartTypes(v) => {
                (Some("restart-types"), v.clone(), Edit::RestartTypes(v))
            }
            SettingsMsg::Slowdowns(v) => (Some("slowdowns"), v.clone(), Edit::Slowdowns(v)),
            SettingsMsg::Window(v) => (Some("window"), v.trim().to_string(), Edit::Window(v)),
            SettingsMsg::Fairness(on) => (None, String::new(), Edit::Fairness(on)),
            SettingsMsg::Cluster(text) => {
                self.set_cluster_text(text);
                return true;
            }
            SettingsMsg::Filter(field, v) => {
                self.set_filter_field(&field, &v);
                return true;
            }
            SettingsMsg::Workload(w) => {
                self.errors.workload = self.apply_resolved(&Edit::Workload(w));
                return true;
            }
            SettingsMsg::Policies(rows) => {
                self.forms.policy_params = rows;
                self.sync_policies();
                return true;
            }
        };
        let refused = match edit::apply(&self.exp, &change) {
            Err(why) => Some(why),
            Ok(edited) if edited.resolve => self.try_apply(edited.exp).err(),
            Ok(edited) => {
                let restarts = edited.restarts_stepping;
                self.edit(|e| *e = edited.exp);
                if restarts {
                    self.step.run = None;
                }
                None
            }
        };
        if let Some(field) = field {
            super::inputs::set_field_error(&mut self.errors.fields, field, &typed, refused);
        }
        true
    }
}
