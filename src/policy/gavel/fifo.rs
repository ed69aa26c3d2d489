//! FIFO as an allocation (Gavel's FIFO policies): jobs in arrival order each get one whole
//! GPU type while there is room; strict FIFO, so the first job that does not fit stops the
//! queue. `_perf` picks the fastest type with room (ties to the alphabetically first type,
//! as Gavel). Plain picks uniformly at random among the types with room where the job can
//! run, and keeps a job's type once given (Gavel intends the same, but its code puts every
//! job on the alphabetically last type; Orrery does not copy that).

use crate::model::job::JobId;
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;
use std::collections::BTreeMap;

/// The FIFO allocation policy.
#[derive(Debug, Clone)]
pub struct GavelFifo {
    name: String,
    perf: bool,
    assigned: BTreeMap<JobId, usize>,
}

impl GavelFifo {
    /// A new policy.
    pub fn new(name: &str, perf: bool) -> Self {
        GavelFifo {
            name: name.into(),
            perf,
            assigned: BTreeMap::new(),
        }
    }
}

impl Policy for GavelFifo {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, rng: &mut Rng) -> Result<Decision, PolicyError> {
        let n = view.cluster.num_types();
        let mut avail: Vec<u32> = view.cluster.counts();
        // Types in alphabetical order of their names, as Gavel iterates them.
        let mut by_name: Vec<usize> = (0..n).collect();
        crate::order::sort_by(&mut by_name, |a, b| {
            view.cluster.types[*a]
                .name
                .cmp(&view.cluster.types[*b].name)
        });
        let mut chosen: BTreeMap<JobId, usize> = BTreeMap::new();
        if !self.perf {
            for j in &view.jobs {
                if let Some(&t) = self.assigned.get(&j.id) {
                    if avail[t] >= j.scale() {
                        avail[t] -= j.scale();
                        chosen.insert(j.id, t);
                    }
                }
            }
        }
        let mut order: Vec<&crate::policy::JobView> = view
            .jobs
            .iter()
            .filter(|j| !chosen.contains_key(&j.id))
            .collect();
        crate::order::sort_by(&mut order, |a, b| {
            a.spec
                .arrival
                .total_cmp(&b.spec.arrival)
                .then(a.id.cmp(&b.id))
        });
        for j in order {
            let cand: Vec<usize> = by_name
                .iter()
                .copied()
                .filter(|&t| avail[t] >= j.scale())
                .collect();
            if cand.is_empty() {
                break;
            }
            let pick = if self.perf {
                let mut best: Option<usize> = None;
                for &t in &cand {
                    if best.is_none_or(|b| j.throughput[t] > j.throughput[b]) {
                        best = Some(t);
                    }
                }
                best.filter(|&t| j.throughput[t] > 0.0)
            } else {
                let runnable: Vec<usize> = cand
                    .iter()
                    .copied()
                    .filter(|&t| j.throughput[t] > 0.0)
                    .collect();
                if runnable.is_empty() {
                    None
                } else {
                    Some(runnable[rng.below(runnable.len() as u64) as usize])
                }
            };
            if let Some(t) = pick {
                avail[t] -= j.scale();
                chosen.insert(j.id, t);
            }
        }
        let fractions = view
            .jobs
            .iter()
            .map(|j| {
                (0..n)
                    .map(|t| {
                        if chosen.get(&j.id) == Some(&t) {
                            1.0
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        self.assigned = chosen;
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions,
            ..Default::default()
        }))
    }

    fn traits(&self) -> PolicyTraits {
        PolicyTraits {
            fill_with_zero_priority: false,
            ..super::traits(self.perf)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    #[test]
    fn perf_takes_fastest_with_room_in_order() {
        // a:1, b:1. Three jobs all faster on a: job 0 -> a, job 1 -> b, job 2 waits.
        let w = World::new(
            "a:1,b:1",
            &[(1, &[2.0, 1.0]), (1, &[2.0, 1.0]), (1, &[2.0, 1.0])],
        );
        let Decision::Allocation(a) = GavelFifo::new("fifo_perf", true)
            .decide(&w.view(), &mut Rng::new(0))
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(
            a.fractions,
            vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.0, 0.0]]
        );
        // Strict FIFO: a 2-GPU job at the head blocks a 1-GPU job behind it.
        let w = World::new("a:1", &[(2, &[1.0]), (1, &[1.0])]);
        let Decision::Allocation(a) = GavelFifo::new("fifo_perf", true)
            .decide(&w.view(), &mut Rng::new(0))
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(a.fractions, vec![vec![0.0], vec![0.0]]);
    }
}
