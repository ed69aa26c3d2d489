//! FIFO as an allocation (Gavel's FIFO policies): jobs in arrival order each get one whole
//! GPU type while there is room; strict FIFO, so the first job that does not fit stops the
//! queue. `_perf` picks the fastest type with room (ties to the alphabetically first type,
//! as Gavel). Plain picks uniformly at random among the types with room where the job can
//! run, and keeps a job's type once given (Gavel intends the same, but its code puts every
//! job on the alphabetically last type; Orrery does not copy that).

use crate::model::job::JobId;
use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView, Rows};
use crate::rng::Rng;

/// The FIFO allocation policy.
#[derive(Debug, Clone)]
pub struct GavelFifo {
    name: String,
    perf: bool,
    /// The type given to each job (by id) in the last decision (plain FIFO keeps it).
    assigned: Vec<Option<usize>>,
    /// The jobs given a type in the last decision, ascending.
    assigned_ids: Vec<JobId>,
}

impl GavelFifo {
    /// A new policy.
    pub fn new(name: &str, perf: bool) -> Self {
        GavelFifo {
            name: name.into(),
            perf,
            assigned: Vec::new(),
            assigned_ids: Vec::new(),
        }
    }

    /// The type job `j` was given in the last decision.
    fn assigned_to(&self, j: JobId) -> Option<usize> {
        self.assigned.get(j).copied().flatten()
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
        // The type chosen for each job, by position in the view.
        let mut chosen: Vec<Option<usize>> = vec![None; view.jobs.len()];
        if !self.perf {
            for (j, c) in view.jobs.iter().zip(&mut chosen) {
                if let Some(t) = self.assigned_to(j.id) {
                    if avail[t] >= j.scale() {
                        avail[t] -= j.scale();
                        *c = Some(t);
                    }
                }
            }
        }
        let mut order: Vec<(&crate::policy::JobView, &mut Option<usize>)> = view
            .jobs
            .iter()
            .zip(&mut chosen)
            .filter(|(_, c)| c.is_none())
            .collect();
        let cmp = |a: &crate::policy::JobView, b: &crate::policy::JobView| {
            a.spec
                .arrival
                .total_cmp(&b.spec.arrival)
                .then(a.id.cmp(&b.id))
        };
        // The queue is usually in arrival order already (a stable sort leaves it so).
        if !order.is_sorted_by(|a, b| cmp(a.0, b.0).is_le()) {
            crate::order::sort_by(&mut order, |a, b| cmp(a.0, b.0));
        }
        for (j, c) in order {
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
                *c = Some(t);
            }
        }
        let mut fractions = Rows::zeros(view.jobs.len(), n);
        for &j in &self.assigned_ids {
            self.assigned[j] = None;
        }
        self.assigned_ids.clear();
        for (i, (j, c)) in view.jobs.iter().zip(&chosen).enumerate() {
            if let Some(t) = *c {
                fractions[i][t] = 1.0;
                if self.assigned.len() <= j.id {
                    self.assigned.resize(j.id + 1, None);
                }
                self.assigned[j.id] = Some(t);
                self.assigned_ids.push(j.id);
            }
        }
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
