//! Tetris's packing (Grandl et al., SIGCOMM'14) in rounds, in the form DL2 compares with
//! (its simulator's tetris_env, [`crate::policy::dl2::tetris`]) with the GPU types as the
//! machines filled in turn and a job's GPUs as its demand: every round, on each type in the
//! cluster's order, every unplaced job that can run there (the type has its GPUs) scores `align + weight x resr`,
//! where `align` is the type's free GPUs times the job's GPUs, `resr` the job's GPUs times
//! the fraction of its work left, and `weight` the mean `align` over the mean `resr`. The
//! best-scoring job (ties to the lower id) is placed there; scores are computed again, until
//! the best job does not fit, and then the next type is filled. As in DL2's form, the
//! work-left term raises a job's score: jobs with more work left go first.

use crate::policy::PolicyView;

/// The round-based Tetris policy.
#[derive(Debug, Clone, Copy)]
pub struct Tetris;

impl Tetris {
    /// The GPU type of each job (by view position), or `None` when it waits.
    pub fn place(view: &PolicyView) -> Vec<Option<usize>> {
        let mut left = view.cluster.counts();
        let mut at: Vec<Option<usize>> = vec![None; view.jobs.len()];
        let left_share = |j: usize| {
            let job = &view.jobs[j];
            let total = job.spec.total_steps;
            if total > 0.0 {
                (job.steps_remaining / total).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        for (t, room) in left.iter_mut().enumerate() {
            loop {
                let free = f64::from(*room);
                let scored: Vec<(usize, f64, f64)> = (0..view.jobs.len())
                    .filter(|&j| {
                        at[j].is_none()
                            && view.jobs[j].throughput[t] > 0.0
                            && view.jobs[j].scale() <= view.cluster.types[t].count
                    })
                    .map(|j| {
                        let gpus = f64::from(view.jobs[j].scale());
                        (j, free * gpus, gpus * left_share(j))
                    })
                    .collect();
                if scored.is_empty() {
                    break;
                }
                let n = scored.len() as f64;
                let align = scored.iter().map(|s| s.1).sum::<f64>() / n;
                let resr = scored.iter().map(|s| s.2).sum::<f64>() / n;
                if align == 0.0 {
                    break;
                }
                let weight = if resr > 0.0 { align / resr } else { 0.0 };
                let mut best: Option<(f64, usize)> = None;
                for &(j, a, r) in &scored {
                    let s = a + weight * r;
                    let better = match best {
                        None => true,
                        Some((bs, bj)) => s > bs || (s == bs && view.jobs[j].id < view.jobs[bj].id),
                    };
                    if better {
                        best = Some((s, j));
                    }
                }
                let Some((_, j)) = best else { break };
                if view.jobs[j].scale() > *room {
                    break;
                }
                *room -= view.jobs[j].scale();
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
    fn types_fill_in_turn_with_the_most_work_left_first_until_the_best_does_not_fit() {
        // One type of 4 GPUs. Job 0: 2 GPUs, all its work left; job 1: 1 GPU, half left;
        // job 2: 4 GPUs, all left. Scores with 4 free GPUs: align 8, 4, 16; resr 2, 0.5, 4;
        // weight = (28/3) / (6.5/3) = 4.31: job 2 scores 16 + 17.2 = 33.2, the best, and
        // takes the type. Then nothing is free: the rest wait.
        let mut w = World::new("a:4", &[(2, &[1.0]), (1, &[1.0]), (4, &[1.0])]);
        w.remaining[1] = 500.0;
        assert_eq!(Tetris::place(&w.view()), vec![None, None, Some(0)]);
        // Without job 2: job 0 (8 + 2w) beats job 1 (4 + 0.5w), then job 1 fits the rest.
        let mut w = World::new("a:4", &[(2, &[1.0]), (1, &[1.0])]);
        w.remaining[1] = 500.0;
        assert_eq!(Tetris::place(&w.view()), vec![Some(0), Some(0)]);
    }
}
