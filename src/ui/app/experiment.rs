//! Changing the experiment: every edit makes a candidate experiment, which is kept only if
//! it resolves (the resolution gives the mechanism the panels follow). A new profile or
//! trace of another family (round-based, elastic applications, parameter-server models)
//! brings that family's settings.

use crate::experiment::scenarios;

use super::App;
use crate::experiment::edit::{self, Edit};
use crate::experiment::{Experiment, ProfileSource, Resolved, WorkloadSource};
use crate::model::cluster::ClusterSpec;
use crate::policy::catalog;
use crate::sim::{JobModel, Mechanism};
use crate::ui::shared::Shared;
use crate::workload::presets;
use std::rc::Rc;

/// The selected policies' rows with their parameters, from the experiment's specs.
pub fn parse_policy_list(policies: &[String]) -> Vec<(String, String)> {
    policies.iter().map(|p| catalog::row_of(p)).collect()
}

/// The experiment's workload, for people.
pub fn workload_label_of(exp: &Experiment) -> String {
    match &exp.workload {
        WorkloadSource::Preset { name } => format!("bundled trace '{name}'"),
        WorkloadSource::Generated(g) => format!(
            "generated{}: {} jobs, {} jobs/h,{} seed {}",
            if exp.is_elastic() { " (elastic)" } else { "" },
            g.num_jobs,
            g.jobs_per_hour,
            if g.duration_scale == 1.0 {
                String::new()
            } else {
                format!(" durations × {},", g.duration_scale)
            },
            g.seed
        ),
        WorkloadSource::Inline { name, .. } => format!("uploaded '{name}'"),
    }
}

/// The kind of simulation an experiment's profile implies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Throughputs per GPU type: the round-based simulator (or the pooled and preemptive
    /// ones).
    Rounds,
    /// Elastic applications: the elastic simulator (Pollux).
    Elastic,
    /// Parameter-server models: the slot simulator (DL2).
    Ps,
}

impl Family {
    /// The family of an experiment's profile.
    pub(super) fn of(c: &Experiment) -> Self {
        if c.is_ps() {
            Family::Ps
        } else if c.is_elastic() {
            Family::Elastic
        } else {
            Family::Rounds
        }
    }

    /// The family of experiments running in mechanism `m`.
    pub fn of_mechanism(m: Mechanism) -> Self {
        match m.jobs() {
            JobModel::ParameterServer => Family::Ps,
            JobModel::Elastic => Family::Elastic,
            JobModel::Rigid => Family::Rounds,
        }
    }

    /// The bundled scenario of the family, whose settings a switch adopts.
    fn scenario(self) -> Experiment {
        match self {
            Family::Rounds => scenarios::default_experiment(),
            Family::Elastic => scenarios::pollux_experiment(),
            Family::Ps => scenarios::dl2_experiment(),
        }
    }

    /// Name for people.
    fn label(self) -> &'static str {
        match self {
            Family::Rounds => "Round-based",
            Family::Elastic => "Elastic-applications",
            Family::Ps => "Parameter-server (DL2)",
        }
    }
}

/// Give `c` the settings of its profile's family (Pollux's for elastic applications, DL2's
/// for parameter-server models, the default scenario's otherwise): policies, round length,
/// restart cost, fairness, DL2's server settings, and for elastic and parameter-server
/// experiments a one-type cluster. Returns what changed, for people.
pub(super) fn adopt_family(c: &mut Experiment, family: Family) -> Vec<String> {
    let d = family.scenario();
    let mut changed = vec![
        format!("policies {}", d.policies.join(", ")),
        format!(
            "{} {} s",
            if family == Family::Ps {
                "slot"
            } else {
                "round"
            },
            d.round_s
        ),
        format!("restart cost {} s", d.restart_cost_s),
    ];
    c.policies = d.policies;
    c.round_s = d.round_s;
    c.restart_cost_s = d.restart_cost_s;
    c.fairness = d.fairness;
    c.gavel_compat = false;
    c.window = None;
    if family != Family::Rounds && c.preemption.take().is_some() {
        changed.push("no preemption model (it goes with round-based profiles)".into());
    }
    if family == Family::Ps {
        if c.inference.take().is_some() {
            changed.push("no inference pool (it goes with round-based profiles)".into());
        }
        c.ps = d.ps;
        if let Some(p) = d.ps {
            changed.push(format!("{} CPUs per server", p.cpus_per_server));
        }
    } else {
        c.ps = None;
        if c.network.take().is_some() {
            changed.push("the dl2 policy's network dropped".into());
        }
    }
    let types = ClusterSpec::parse(&c.cluster).map_or(0, |k| k.types.len());
    if family != Family::Rounds && types != 1 {
        changed.push(format!("cluster {}", d.cluster));
        c.cluster = d.cluster;
    }
    changed
}

impl App {
    /// The workload, then the cluster, of scenario `d` in `c` while `c` does not resolve
    /// without them; what changed is added to `changed`.
    pub(super) fn fit_to_scenario(
        &mut self,
        c: &mut Experiment,
        d: Experiment,
        changed: &mut Vec<String>,
    ) {
        if self.resolve_cached(c).is_err() && c.workload != d.workload {
            c.workload = d.workload;
            changed.push(format!("workload: {}", workload_label_of(c)));
        }
        if self.resolve_cached(c).is_err() && c.cluster != d.cluster {
            changed.push(format!("cluster {}", d.cluster));
            c.cluster = d.cluster;
        }
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
        self.forms.workload_label = workload_label_of(&candidate);
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

    /// The family of the current experiment.
    fn family(&self) -> Family {
        Family::of_mechanism(self.mech)
    }

    /// Try a new profile. When it changes the family (round-based, elastic applications or
    /// parameter-server models), the experiment takes that family's settings, and the
    /// family's default workload if its own does not fit. Returns a note saying what
    /// changed.
    fn try_profile(&mut self, profile: ProfileSource) -> Result<Option<String>, String> {
        let mut c = self.with(|e| e.profile = profile);
        let family = Family::of(&c);
        if family == self.family() {
            return self.try_apply(c).map(|()| None);
        }
        let mut changed = adopt_family(&mut c, family);
        self.fit_to_scenario(&mut c, family.scenario(), &mut changed);
        self.try_apply(c)?;
        self.sync_cluster_text();
        Ok(Some(format!(
            "{} profile: switched to {}.",
            family.label(),
            changed.join("; ")
        )))
    }

    /// Try an uploaded trace. If its jobs do not fit the current profile but do fit a
    /// bundled profile of the other family (a Pollux workload on a throughput profile, say),
    /// switch to that profile and its family's settings.
    pub(super) fn try_trace(
        &mut self,
        name: String,
        text: String,
    ) -> Result<Option<String>, String> {
        let c = self.with(|e| e.workload = WorkloadSource::Inline { name, text });
        let first_error = match self.try_apply(c.clone()) {
            Ok(()) => return Ok(None),
            Err(e) => e,
        };
        let named = |list: &[presets::Bundled], f: Family| {
            list.iter().map(|p| (p.name, f)).collect::<Vec<_>>()
        };
        let others: Vec<(&str, Family)> = match self.family() {
            Family::Rounds => [
                named(presets::ELASTIC_PROFILES, Family::Elastic),
                named(presets::PS_PROFILES, Family::Ps),
            ]
            .concat(),
            Family::Elastic | Family::Ps => named(presets::PROFILES, Family::Rounds),
        };
        for (other, family) in others {
            let mut alt = Experiment {
                profile: ProfileSource::Preset { name: other.into() },
                ..c.clone()
            };
            let changed = adopt_family(&mut alt, family);
            if self.try_apply(alt).is_ok() {
                self.sync_cluster_text();
                return Ok(Some(format!(
                    "The trace's jobs fit the bundled profile '{other}': switched to it, with {}.",
                    changed.join("; ")
                )));
            }
        }
        Err(first_error)
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
