//! The edits of the panels that give an experiment its mechanism's settings: the Inference
//! pool (Aryl), Preemption (PickyMan) and DL2 panels.

use orrery::experiment::scenarios;

use super::{App, Dl2Msg, PoolMsg, PreemptMsg};
use crate::panels::pool::inference_servers;
use crate::panels::preemption::FIELDS as PREEMPTION_FIELDS;
use orrery::experiment::{Experiment, InferenceSource, NetworkSource};
use orrery::workload::inference::LoadCurve;
use orrery::workload::PsConfig;

impl App {
    /// An edit of the Inference pool panel.
    pub(super) fn pool_update(&mut self, msg: PoolMsg) -> bool {
        match msg {
            PoolMsg::Field(field, v) => self.set_inference_field(field, &v),
            PoolMsg::File(name, text) => {
                if let Err(e) = LoadCurve::parse_csv(&text, &name) {
                    self.errors.pool = Some(format!("{e} — the previous load is kept"));
                } else {
                    self.try_inference(InferenceSource::Inline { name, text });
                }
            }
            PoolMsg::FileError(e) => self.errors.pool = Some(e),
            PoolMsg::Enable(on) => self.set_inference_pool(on),
        }
        true
    }

    /// Try an experiment with another inference source; keep the previous one on error.
    fn try_inference(&mut self, src: InferenceSource) {
        let candidate = self.with(|e| e.inference = Some(src));
        self.errors.pool = self
            .try_apply(candidate)
            .err()
            .map(|e| format!("{e} — the previous load is kept"));
    }

    /// Edit a field of the diurnal load (starting from the defaults when the load is a
    /// CSV).
    fn set_inference_field(&mut self, field: &str, v: &str) {
        let mut d = match &self.exp.inference {
            Some(InferenceSource::Diurnal(d)) => d.clone(),
            _ => Default::default(),
        };
        let v = v.trim();
        let ok = match field {
            "peak" => v.parse().map(|x| d.peak = x).is_ok(),
            "trough" => v.parse().map(|x| d.trough = x).is_ok(),
            "noise" => v.parse().map(|x| d.noise = x).is_ok(),
            "step_s" => v.parse().map(|x| d.step_s = x).is_ok(),
            "days" => v.parse().map(|x| d.days = x).is_ok(),
            "seed" => v.parse().map(|x| d.seed = x).is_ok(),
            _ => true,
        };
        if !ok {
            self.errors.pool = Some(format!(
                "diurnal load: '{v}' is not a valid {field} — the previous load is kept"
            ));
            return;
        }
        self.try_inference(InferenceSource::Diurnal(d));
    }

    /// Add an inference pool to the experiment (an `inference` GPU type when the cluster
    /// has none, the default diurnal load, Aryl and its ablations, the aryl scenario's
    /// round and restart cost), or take it away (back to the default scenario's policies
    /// and settings).
    fn set_inference_pool(&mut self, on: bool) {
        let mut c = Experiment::clone(&self.exp);
        if on {
            let d = scenarios::aryl_experiment();
            if inference_servers(&c.cluster).is_none() {
                c.cluster = format!("{},inference:128/8", c.cluster);
            }
            c.inference = d.inference;
            // An experiment has an inference pool or a preemption model, not both.
            c.preemption = None;
            c.policies = d.policies;
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = false;
            c.gavel_compat = false;
        } else {
            let d = scenarios::default_experiment();
            c.inference = None;
            c.policies = d.policies;
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = d.fairness;
        }
        match self.try_apply(c) {
            Ok(()) => {
                self.errors.pool = None;
                self.sync_cluster_text();
            }
            Err(e) => self.errors.pool = Some(e),
        }
    }

    /// An edit of the Preemption panel.
    pub(super) fn preempt_update(&mut self, msg: PreemptMsg) -> bool {
        match msg {
            PreemptMsg::Field(field, v) => self.set_preemption_field(field, &v),
            PreemptMsg::Preemptive(on) => self.set_preemptive(on),
        }
        true
    }

    /// Edit a field of the overhead model; a bad value keeps the previous settings.
    fn set_preemption_field(&mut self, field: &str, v: &str) {
        let Some(mut c) = self.exp.preemption else {
            return;
        };
        let label = PREEMPTION_FIELDS
            .iter()
            .find(|f| f.0 == field)
            .map_or("value", |f| f.1);
        let Ok(x) = v.trim().parse::<f64>() else {
            self.errors.preempt = Some(format!(
                "{label} (preemption.{field}): '{v}' is not a number — the previous settings are kept"
            ));
            return;
        };
        match field {
            "read_gbps" => c.read_gbps = x,
            "write_gbps" => c.write_gbps = x,
            "noise" => c.noise = x,
            "default_epoch_s" => c.default_epoch_s = x,
            _ => return,
        }
        let checked = c.check().map_err(|e| e.to_string()).and_then(|()| {
            let candidate = self.with(|e| e.preemption = Some(c));
            self.try_apply(candidate)
        });
        self.errors.preempt = checked
            .err()
            .map(|e| format!("{label}: '{v}': {e} — the previous settings are kept"));
    }

    /// Make the experiment preemptive (PickyMan's overhead model, the pickyman scenario's
    /// policies; no inference pool) or round-based again (the default
    /// scenario's policies and settings). Announces what changed.
    fn set_preemptive(&mut self, on: bool) {
        let mut c = Experiment::clone(&self.exp);
        let mut changed = Vec::new();
        if on {
            let d = scenarios::pickyman_experiment();
            if c.inference.take().is_some() {
                changed.push("the inference pool removed".to_string());
            }
            c.preemption = Some(d.preemption.unwrap_or_default());
            c.policies = d.policies.clone();
            c.fairness = false;
            c.gavel_compat = false;
            changed.push(format!("policies {}", d.policies.join(", ")));
            self.fit_to_scenario(&mut c, d, &mut changed);
        } else {
            let d = scenarios::default_experiment();
            c.preemption = None;
            c.policies = d.policies.clone();
            c.round_s = d.round_s;
            c.restart_cost_s = d.restart_cost_s;
            c.fairness = d.fairness;
            changed.push(format!("policies {}", d.policies.join(", ")));
        }
        match self.try_apply(c) {
            Ok(()) => {
                self.errors.preempt = None;
                self.sync_cluster_text();
                self.notice = Some((
                    true,
                    format!(
                        "{}: {}.",
                        if on {
                            "Preemptive experiment (PickyMan)"
                        } else {
                            "Round-based experiment"
                        },
                        changed.join("; ")
                    ),
                ));
            }
            Err(e) => self.errors.preempt = Some(format!("{e} — the previous experiment is kept")),
        }
    }

    /// An edit of the DL2 panel.
    pub(super) fn dl2_update(&mut self, msg: Dl2Msg) -> bool {
        match msg {
            Dl2Msg::Field(field, v) => self.set_ps_field(field, &v),
            Dl2Msg::NetworkFile(name, text) => {
                let checked = orrery::nn::Mlp::from_json(&text)
                    .map_err(|e| format!("{name}: {e}"))
                    .and_then(|_| {
                        self.set_network(Some(NetworkSource::Inline {
                            name: name.clone(),
                            text,
                        }))
                    });
                self.errors.dl2 = checked
                    .err()
                    .map(|e| format!("{e} — the previous network is kept"));
                if self.errors.dl2.is_none() {
                    self.notice = Some((
                        true,
                        format!("The dl2 policy now runs the network of '{name}'."),
                    ));
                }
            }
            Dl2Msg::NetworkFileError(e) => self.errors.dl2 = Some(e),
            Dl2Msg::Bundled => {
                self.errors.dl2 = self
                    .set_network(None)
                    .err()
                    .map(|e| format!("{e} — the previous network is kept"));
            }
        }
        true
    }

    /// Try the experiment with another network (None: the bundled one); on error the
    /// experiment stays.
    pub(super) fn set_network(&mut self, network: Option<NetworkSource>) -> Result<(), String> {
        let candidate = self.with(|e| e.network = network);
        self.try_apply(candidate)
    }

    /// Edit a field of the parameter-server settings; a bad value keeps the previous ones.
    fn set_ps_field(&mut self, field: &str, v: &str) {
        let mut c: PsConfig = self.exp.ps.unwrap_or_default();
        let label = match field {
            "cpus_per_server" => "CPUs per server",
            "max_workers" => "most workers per job",
            _ => "most parameter servers per job",
        };
        let Ok(x) = v.trim().parse::<u32>() else {
            self.errors.dl2 = Some(format!(
                "{label} (ps.{field}): '{v}' is not a whole number — the previous settings are kept"
            ));
            return;
        };
        match field {
            "cpus_per_server" => c.cpus_per_server = x,
            "max_workers" => c.max_workers = x,
            "max_ps" => c.max_ps = x,
            _ => return,
        }
        let candidate = self.with(|e| e.ps = Some(c));
        self.errors.dl2 = self
            .try_apply(candidate)
            .err()
            .map(|e| format!("{label}: '{v}': {e} — the previous settings are kept"));
    }
}
