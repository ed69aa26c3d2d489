//! Dominant resource fairness (Ghodsi et al., NSDI'11) in rounds, with each GPU type a
//! resource and shares counted over time: a job's share of type `t` is the GPU-seconds it
//! has received there over the type's GPU count, and its dominant share the largest of
//! these. Every round, progressive filling: jobs in order of dominant share (smallest
//! first; ties to the earlier arrival, then the lower id) each get their GPUs on the type
//! with room that leaves their dominant share smallest after the round (ties: the type they
//! ran on, then the faster, then the cluster's order). A job that fits nowhere is passed
//! over and later ones may start. Heterogeneity-unaware except for breaking ties.

use crate::policy::PolicyView;

/// The round-based DRF policy.
#[derive(Debug, Clone, Copy)]
pub struct Drf;

impl Drf {
    /// The dominant share of view position `j`: the largest over types of the job's
    /// GPU-seconds there over the type's GPU count, in seconds.
    pub fn dominant_share(view: &PolicyView, j: usize) -> f64 {
        let job = &view.jobs[j];
        let s = f64::from(job.scale());
        view.cluster
            .types
            .iter()
            .enumerate()
            .map(|(t, ty)| {
                job.time_on_type.get(t).copied().unwrap_or(0.0) * s / f64::from(ty.count.max(1))
            })
            .fold(0.0, f64::max)
    }

    /// The GPU type of each job (by view position), or `None` when it waits.
    pub fn place(view: &PolicyView) -> Vec<Option<usize>> {
        let mut left = view.cluster.counts();
        let shares: Vec<f64> = (0..view.jobs.len())
            .map(|j| Self::dominant_share(view, j))
            .collect();
        let mut order: Vec<usize> = (0..view.jobs.len()).collect();
        crate::order::sort_by(&mut order, |&a, &b| {
            shares[a]
                .total_cmp(&shares[b])
                .then(
                    view.jobs[a]
                        .spec
                        .arrival
                        .total_cmp(&view.jobs[b].spec.arrival),
                )
                .then(view.jobs[a].id.cmp(&view.jobs[b].id))
        });
        let mut at: Vec<Option<usize>> = vec![None; view.jobs.len()];
        for j in order {
            let job = &view.jobs[j];
            let s = f64::from(job.scale());
            // (dominant share after the round, not the previous type, -throughput, type)
            let mut best: Option<(f64, bool, f64, usize)> = None;
            for (t, &room) in left.iter().enumerate() {
                if room < job.scale() || job.throughput[t] <= 0.0 {
                    continue;
                }
                let count = f64::from(view.cluster.types[t].count.max(1));
                let after_t =
                    (job.time_on_type.get(t).copied().unwrap_or(0.0) + view.round_len) * s / count;
                let key = (
                    shares[j].max(after_t),
                    job.running_on != Some(t),
                    -job.throughput[t],
                    t,
                );
                let better = match best {
                    None => true,
                    Some(b) => key
                        .0
                        .total_cmp(&b.0)
                        .then(key.1.cmp(&b.1))
                        .then(key.2.total_cmp(&b.2))
                        .then(key.3.cmp(&b.3))
                        .is_lt(),
                };
                if better {
                    best = Some(key);
                }
            }
            if let Some((_, _, _, t)) = best {
                left[t] -= job.scale();
                at[j] = Some(t);
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::gavel::testing::World;

    #[test]
    fn smallest_dominant_share_first_on_the_type_that_keeps_it_small() {
        // Types a (4 GPUs) and b (1 GPU), 360 s rounds. Job 0 ran 3600 s on b: dominant
        // share 3600. Job 1 ran 3600 s on a: 900. Job 2 (2 GPUs) ran 720 s on a: 360.
        // Job 3 is new: 0.
        let mut w = World::new(
            "a:4,b:1",
            &[
                (1, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
                (2, &[1.0, 1.0]),
                (1, &[1.0, 2.0]),
            ],
        );
        w.time[0] = vec![0.0, 3600.0];
        w.time[1] = vec![3600.0, 0.0];
        w.time[2] = vec![720.0, 0.0];
        let v = w.view();
        assert_eq!(Drf::dominant_share(&v, 0), 3600.0);
        assert_eq!(Drf::dominant_share(&v, 1), 900.0);
        assert_eq!(Drf::dominant_share(&v, 2), 360.0);
        // Order 3, 2, 1, 0. Job 3: on a its share becomes 90, on b 360: a. Job 2 (2 GPUs):
        // a (b is too small). Job 1: a has one GPU left (share 990), b gives max(900, 360):
        // b. Job 0: only a has room.
        assert_eq!(Drf::place(&v), vec![Some(0), Some(1), Some(0), Some(0)]);
    }

    #[test]
    fn a_job_that_fits_nowhere_is_passed_over() {
        let w = World::new("a:2", &[(4, &[1.0]), (1, &[1.0]), (1, &[1.0]), (1, &[1.0])]);
        assert_eq!(Drf::place(&w.view()), vec![None, Some(0), Some(0), None]);
    }
}
