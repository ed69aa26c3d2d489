//! Changing the experiment: every edit makes a candidate experiment, which is kept only if
//! it resolves (the resolution gives the mechanism the panels follow). A new profile or
//! trace of another family (round-based, elastic applications, parameter-server models)
//! brings that family's settings.

use super::App;
use crate::shared::Shared;
use orrery::experiment::edit::{self, Edit};
use orrery::experiment::switch;
use orrery::experiment::{Experiment, ProfileSource, Resolved, WorkloadSource};
use orrery::model::cluster::ClusterSpec;
use orrery::policy::catalog;
use std::rc::Rc;

/// The selected policies' rows with their parameters, from the experiment's specs.
pub fn parse_policy_list(policies: &[String]) -> Vec<(String, String)> {
    policies.iter().map(|p| catalog::row_of(p)).collect()
}

impl App {
    /// The workload, then the cluster, of scenario `d` in `c` while `c` does not resolve
    /// without them ([`switch::fit_to_scenario`]); what changed is added to `changed`.
    pub(super) fn fit_to_scenario(
        &mut self,
        c: &mut Experiment,
        d: Experiment,
        changed: &mut Vec<String>,
    ) {
        switch::fit_to_scenario(c, d, changed, &mut |e| self.resolve_cached(e).map(drop));
    }

    /// The experiment resolved, from the cache when it was resolved before.
    pub(super) fn resolve_cached(&mut self, exp: &Experiment) -> Result<Rc<Resolved>, String> {
        if let Some(i) = self.resolved.iter().position(|(e, _)| e == exp) {
            let hit = self.resolved.remove(i);
            let r = Rc::clone(&hit.1);
            self.resolved.insert(0, hit);
            return Ok(r);
        }
        let r = Rc::new(exp.resolve().map_err(|e| e.to_string())?);
        self.resolved.insert(0, (exp.clone(), Rc::clone(&r)));
        self.resolved.truncate(2);
        Ok(r)
    }

    /// Try a changed experiment: keep it only if it resolves.
    pub(super) fn try_apply(&mut self, candidate: Experiment) -> Result<(), String> {
        let r = self.resolve_cached(&candidate)?;
        self.mech = r.mechanism();
        let policies_changed = candidate.policies != self.exp.policies;
        self.forms.workload_label = switch::workload_label(&candidate);
        if let WorkloadSource::Generated(g) = &candidate.workload {
            self.forms.generator = g.clone();
        }
        self.exp = Shared::new(candidate);
        if policies_changed {
            self.forms.policy_params = parse_policy_list(&self.exp.policies);
            self.sync_policies();
        }
        self.step.run = None;
        self.step.playing = false;
        self.refresh_shape();
        Ok(())
    }

    /// Change the experiment in a way that needs no new resolution (the seed, the round
    /// length, the policies...).
    pub(super) fn edit(&mut self, change: impl FnOnce(&mut Experiment)) {
        let mut exp = Experiment::clone(&self.exp);
        change(&mut exp);
        self.exp = Shared::new(exp);
        self.refresh_shape();
    }

    /// The experiment a change of the current one makes (a candidate for
    /// [`App::try_apply`]).
    pub(super) fn with(&self, change: impl FnOnce(&mut Experiment)) -> Experiment {
        let mut exp = Experiment::clone(&self.exp);
        change(&mut exp);
        exp
    }

    /// The experiment's policies from the rows as edited; the stepped policy stays if it is
    /// still selected, else the first one is stepped.
    pub(super) fn sync_policies(&mut self) {
        let rows = Edit::Policies(self.forms.policy_params.clone());
        if let Ok(edited) = edit::apply(&self.exp, &rows) {
            self.edit(|e| *e = edited.exp);
        }
        if !self
            .forms
            .policy_params
            .iter()
            .any(|(n, _)| *n == self.step.policy)
        {
            self.step.policy = self.first_policy();
        }
    }

    /// The first selected policy's row name (empty without any).
    pub(super) fn first_policy(&self) -> String {
        self.forms
            .policy_params
            .first()
            .map(|p| p.0.clone())
            .unwrap_or_default()
    }

    /// The spec of the policy stepped through.
    pub(super) fn step_spec(&self) -> String {
        self.forms
            .policy_params
            .iter()
            .find(|(n, _)| *n == self.step.policy)
            .map(|(n, p)| catalog::spec_of_row(n, p))
            .unwrap_or_else(|| self.step.policy.clone())
    }

    /// Show the experiment's cluster in the spec field when a family switch changed it
    /// (the text the user typed stays otherwise).
    pub(super) fn sync_cluster_text(&mut self) {
        if ClusterSpec::parse(&self.forms.cluster_text).ok()
            != ClusterSpec::parse(&self.exp.cluster).ok()
        {
            self.forms.cluster_text = self.exp.cluster.clone();
            self.errors.cluster = None;
        }
    }

    /// Try a new profile ([`switch::with_profile`]): a profile of another family brings that
    /// family's settings. Returns a note saying what changed.
    fn try_profile(&mut self, profile: ProfileSource) -> Result<Option<String>, String> {
        let exp = Experiment::clone(&self.exp);
        let current = self.mech.jobs();
        let (c, note) = switch::with_profile(&exp, current, profile, &mut |e| {
            self.resolve_cached(e).map(drop)
        });
        self.try_apply(c)?;
        if note.is_some() {
            self.sync_cluster_text();
        }
        Ok(note)
    }

    /// Try an uploaded trace ([`switch::with_trace`]): one whose jobs fit a bundled profile
    /// of another family switches to it. Returns a note saying so.
    pub(super) fn try_trace(
        &mut self,
        name: String,
        text: String,
    ) -> Result<Option<String>, String> {
        let exp = Experiment::clone(&self.exp);
        let current = self.mech.jobs();
        let (c, note) = switch::with_trace(&exp, current, name, text, &mut |e| {
            self.resolve_cached(e).map(drop)
        })?;
        self.try_apply(c)?;
        if note.is_some() {
            self.sync_cluster_text();
        }
        Ok(note)
    }

    /// Try a profile, keeping the previous one on error (the error is returned for the
    /// profile's message line); a family switch is announced in the notice.
    pub(super) fn apply_profile(&mut self, profile: ProfileSource) -> Option<String> {
        match self.try_profile(profile) {
            Ok(note) => {
                self.note(note);
                None
            }
            Err(e) => Some(format!("{e} — the previous profile is kept")),
        }
    }

    /// Show a note, if any, as good news.
    pub(super) fn note(&mut self, note: Option<String>) {
        if let Some(n) = note {
            self.notice = Some((true, n));
        }
    }
}
