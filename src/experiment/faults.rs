//! The experiment's failures, checkpoints and stop time: their checks and their
//! description for people.

use super::{Experiment, ExperimentError};
use crate::model::cluster::ClusterSpec;
use crate::model::failure::checkpoint::Interval;
use crate::model::spot::CapacityTrace;
use std::sync::Arc;

impl Experiment {
    /// Why the failure, checkpoint or stop settings are not usable, if they are not.
    pub(super) fn check_faults(&self) -> Result<(), ExperimentError> {
        if let Some(f) = &self.faults {
            f.check().map_err(ExperimentError::Invalid)?;
            if self.gavel_compat || self.dl2_compat {
                return Err(ExperimentError::Invalid(
                    "failures and checkpoints run outside the Gavel- and DL2-compatible modes"
                        .into(),
                ));
            }
        }
        if let Some(w) = self.spot_warning_s {
            if !(w.is_finite() && (0.0..=86_400.0).contains(&w)) {
                return Err(ExperimentError::Invalid(format!(
                    "the spot warning must be between 0 and 86,400 s (got {w})"
                )));
            }
        }
        if let Some(u) = self.until_s {
            if !(u.is_finite() && u > 0.0) {
                return Err(ExperimentError::Invalid(format!(
                    "until must be a positive number of seconds (got {u})"
                )));
            }
        }
        Ok(())
    }

    /// The spot traces read, by the index of their GPU type in `cluster`.
    pub(super) fn spot_traces(
        &self,
        cluster: &ClusterSpec,
    ) -> Result<Vec<(usize, Arc<CapacityTrace>)>, ExperimentError> {
        let mut out = Vec::new();
        for (ty, src) in &self.spot {
            let t = cluster
                .types
                .iter()
                .position(|c| &c.name == ty)
                .ok_or_else(|| {
                    ExperimentError::Invalid(format!(
                        "spot trace {}: the cluster has no GPU type '{ty}'",
                        src.name
                    ))
                })?;
            if self.gavel_compat || self.dl2_compat {
                return Err(ExperimentError::Invalid(
                    "spot capacity runs outside the Gavel- and DL2-compatible modes".into(),
                ));
            }
            let trace = CapacityTrace::parse(&src.text)
                .map_err(|e| ExperimentError::Invalid(format!("spot trace {}: {e}", src.name)))?;
            out.push((t, Arc::new(trace)));
        }
        Ok(out)
    }

    /// The failures and checkpoints in one line for people, if there are any.
    pub fn faults_description(&self) -> Option<String> {
        let f = self.faults.as_ref()?;
        let m = &f.failures;
        let repair = if m.repair_s > 0.0 {
            format!("servers away {} s for repair", m.repair_s)
        } else {
            "a spare replaces a failed server at once".into()
        };
        let mut causes = if m.causes.is_empty() {
            "Llama 3's causes".to_string()
        } else {
            format!("{} causes", m.causes.len())
        };
        if m.domain == crate::model::failure::Domain::Gpu {
            causes.push_str("; a GPU cause takes one GPU of its server");
        }
        let every = match f.checkpoint.interval {
            Interval::Every(s) => format!("every {s} s"),
            Interval::Auto => "at Daly's optimum for each job".into(),
        };
        Some(format!(
            "{:.3} failures per 1,000 server-days ({causes}), {repair}; checkpoints {every}, writes of {} s",
            m.per_server_day * 1000.0,
            f.checkpoint.write_s
        ))
    }
}
