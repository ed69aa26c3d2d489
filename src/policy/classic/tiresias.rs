//! Tiresias (Gu et al., NSDI'19): discretised two-dimensional least-attained-service. A job's
//! attained service is GPUs x time (GPU-seconds); crossing a threshold demotes it to the next
//! queue. Queues are served in order, and within a queue jobs run first come, first served;
//! a job that does not fit is skipped and later ones may start (no starvation handling).

use crate::policy::registry::{ParamInfo, Params};
use crate::policy::{Decision, Policy, PolicyError, PolicyView};
use crate::rng::Rng;

/// Parameters of Tiresias.
pub const PARAMS: &[ParamInfo] = &[
    ParamInfo {
        name: "threshold_gpu_h",
        default: "16",
        help: "attained service (GPU-hours) at which a job moves to the next queue",
    },
    ParamInfo {
        name: "queues",
        default: "2",
        help: "number of queues; queue k starts at k x threshold",
    },
];

/// The Tiresias policy.
#[derive(Debug, Clone)]
pub struct Tiresias {
    name: String,
    threshold_s: f64,
    queues: u64,
}

impl Tiresias {
    /// Build from registry parameters.
    pub fn build(p: &Params) -> Result<Box<dyn Policy>, PolicyError> {
        Ok(Box::new(Tiresias {
            name: p.spec().to_string(),
            threshold_s: p.f64("threshold_gpu_h", 16.0, 1e-6, 1e9)? * 3600.0,
            queues: p.u64("queues", 2, 1, 64)?,
        }))
    }

    /// The queue of a job with `attained` GPU-seconds.
    pub fn queue(&self, attained: f64) -> u64 {
        ((attained / self.threshold_s).floor() as u64).min(self.queues - 1)
    }
}

impl Policy for Tiresias {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        let mut keyed: Vec<(u64, f64, usize)> = view
            .jobs
            .iter()
            .map(|j| (self.queue(j.attained_service), j.spec.arrival, j.id))
            .collect();
        crate::order::sort_by(&mut keyed, |a, b| {
            a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
        });
        Ok(Decision::Order(keyed.into_iter().map(|k| k.2).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::gavel::testing::World;

    #[test]
    fn demotes_past_the_threshold_then_fifo() {
        let p = crate::policy::build("tiresias[threshold_gpu_h=1]").unwrap();
        let mut w = World::new("a:1", &[(1, &[1.0]), (1, &[1.0]), (1, &[1.0])]);
        for (i, s) in w.specs.iter_mut().enumerate() {
            s.arrival = i as f64;
        }
        let mut p = p;
        // Job 0 has 2 GPU-hours: demoted behind jobs 1 and 2, which stay in arrival order.
        let view = {
            let mut v = w.view();
            v.jobs[0].attained_service = 7200.0;
            v.jobs[1].attained_service = 3000.0;
            v
        };
        assert_eq!(
            p.decide(&view, &mut Rng::new(0)).unwrap(),
            Decision::Order(vec![1, 2, 0])
        );
        let t = Tiresias {
            name: "t".into(),
            threshold_s: 3600.0,
            queues: 2,
        };
        assert_eq!(
            (t.queue(0.0), t.queue(3599.0), t.queue(3600.0), t.queue(1e9)),
            (0, 0, 1, 1)
        );
    }
}
