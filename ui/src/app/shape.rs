//! The shape of the experiment's trace, for the Trace shape panel: the statistics of the
//! trace as the experiment reads it (its filter applied and its arrivals scaled, before any
//! profile draws job types), computed once per trace and kept until the workload, the
//! filter, the load factor or (for a filter that samples) the seed change.

use super::App;
use crate::events::TraceShape;
use crate::now_ms;
use crate::shared::Shared;
use orrery::experiment::{Experiment, WorkloadSource};
use orrery::workload::{TraceFilter, TraceStats};

/// What the shape of an experiment's trace depends on.
pub(super) struct ShapeKey {
    workload: WorkloadSource,
    filter: Option<TraceFilter>,
    load_factor: f64,
    /// The seed, when the filter samples with it.
    seed: Option<u64>,
}

impl ShapeKey {
    fn of(exp: &Experiment) -> Self {
        ShapeKey {
            workload: exp.workload.clone(),
            filter: exp.trace_filter.clone(),
            load_factor: exp.load_factor,
            seed: Self::seed(exp),
        }
    }

    /// The seed, when the experiment's filter samples with it.
    fn seed(exp: &Experiment) -> Option<u64> {
        let samples = exp
            .trace_filter
            .as_ref()
            .is_some_and(|f| f.max_jobs.is_some());
        samples.then_some(exp.seed)
    }

    /// Whether `exp`'s trace has this shape (compared in place: an uploaded trace is
    /// not copied to find out).
    fn matches(&self, exp: &Experiment) -> bool {
        self.workload == exp.workload
            && self.filter == exp.trace_filter
            && self.load_factor == exp.load_factor
            && self.seed == Self::seed(exp)
    }
}

impl App {
    /// Bring the trace shape up to date with the experiment: none for a generated workload,
    /// else the statistics of its trace, computed when what they depend on changed (and
    /// not before the page's first comparison ended).
    pub(super) fn refresh_shape(&mut self) {
        if self.shape_deferred {
            return;
        }
        if matches!(self.exp.workload, WorkloadSource::Generated(_)) {
            self.shape = None;
            return;
        }
        if self
            .shape
            .as_ref()
            .is_some_and(|(k, _)| k.matches(&self.exp))
        {
            return;
        }
        let key = ShapeKey::of(&self.exp);
        let t0 = now_ms();
        let exp = self.exp.clone();
        // Profile-free, the trace as run is the trace as read: it is not read again.
        let resolved = exp
            .is_profile_free()
            .then(|| self.resolve_cached(&exp).ok())
            .flatten();
        let stats = match resolved {
            Some(r) => Ok(TraceStats::of(&r.trace)),
            None => match exp.read_trace() {
                Ok(Some(t)) => Ok(TraceStats::of(&t)),
                Ok(None) => Err("the workload is generated, not a trace".to_string()),
                Err(e) => Err(e.to_string()),
            },
        };
        let shape = TraceShape {
            stats,
            ms: now_ms() - t0,
        };
        self.shape = Some((key, Shared::new(shape)));
    }
}
