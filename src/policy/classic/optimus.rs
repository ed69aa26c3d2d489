//! Optimus (Peng et al., EuroSys'18) in rounds: GPUs handed out one unit at a time to the
//! largest marginal gain in remaining time, with the batch size and GPU count of each job
//! fixed (the trace gives no speed at other counts), so the unit is a job's gang of
//! `scale` GPUs of one type.
//!
//! Every round, as in the Optimus of Pollux's evaluation, each job first gets its GPUs, in
//! submission order (arrival, then id) while some type has room: the type it ran on last
//! round when it has room (no move), else the type with the most free GPUs (ties to the
//! cluster's order); a job that fits nowhere is passed over. Then GPUs left free go, one
//! gang at a time, to the move of a placed job onto a faster type with room that cuts its
//! predicted remaining time most per GPU: `(R / T[t] - R / T[t']) / scale` for `R` steps
//! left at `T` steps/s; freed GPUs go to jobs still waiting (in submission order) before
//! the next move. It stops when no move shortens a remaining time.

use crate::policy::PolicyView;

/// The round-based Optimus policy.
#[derive(Debug, Clone, Copy)]
pub struct Optimus;

impl Optimus {
    /// The GPU type of each job (by view position), or `None` when it waits.
    pub fn place(view: &PolicyView) -> Vec<Option<usize>> {
        let types = view.cluster.num_types();
        let mut left = view.cluster.counts();
        let mut order: Vec<usize> = (0..view.jobs.len()).collect();
        crate::order::sort_by(&mut order, |&a, &b| {
            let (ja, jb) = (&view.jobs[a], &view.jobs[b]);
            ja.spec
                .arrival
                .total_cmp(&jb.spec.arrival)
                .then(ja.id.cmp(&jb.id))
        });
        let mut at: Vec<Option<usize>> = vec![None; view.jobs.len()];
        let fill = |at: &mut Vec<Option<usize>>, left: &mut Vec<u32>| {
            for &j in &order {
                let job = &view.jobs[j];
                if at[j].is_some() {
                    continue;
                }
                let fits = |t: usize| left[t] >= job.scale() && job.throughput[t] > 0.0;
                let pick = match job.running_on.filter(|&t| t < types && fits(t)) {
                    Some(t) => Some(t),
                    None => (0..types)
                        .filter(|&t| fits(t))
                        .fold(None, |best: Option<usize>, t| match best {
                            Some(b) if left[b] >= left[t] => Some(b),
                            _ => Some(t),
                        }),
                };
                if let Some(t) = pick {
                    left[t] -= job.scale();
                    at[j] = Some(t);
                }
            }
        };
        fill(&mut at, &mut left);
        loop {
            // The move with the largest cut in remaining time per GPU.
            let mut best: Option<(f64, usize, usize)> = None;
            for &j in &order {
                let Some(t) = at[j] else { continue };
                let job = &view.jobs[j];
                let now = job.steps_remaining / job.throughput[t];
                for (t2, &room) in left.iter().enumerate() {
                    if t2 == t || room < job.scale() || job.throughput[t2] <= job.throughput[t] {
                        continue;
                    }
                    let gain =
                        (now - job.steps_remaining / job.throughput[t2]) / f64::from(job.scale());
                    if gain > 0.0 && best.is_none_or(|(g, _, _)| gain > g) {
                        best = Some((gain, j, t2));
                    }
                }
            }
            let Some((_, j, t2)) = best else { break };
            let (t, s) = (at[j].unwrap_or(t2), view.jobs[j].scale());
            left[t] += s;
            left[t2] -= s;
            at[j] = Some(t2);
            fill(&mut at, &mut left);
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::gavel::testing::World;

    #[test]
    fn submission_order_then_moves_by_marginal_gain() {
        // Types fast (2 GPUs) and slow (1 GPU). In submission order each job gets the type
        // with the most free GPUs, ties to the first: 0 and 1 on fast, 2 on slow; 3 waits.
        let mut w = World::new(
            "fast:2,slow:1",
            &[
                (1, &[2.0, 1.0]),
                (1, &[4.0, 1.0]),
                (1, &[3.0, 1.0]),
                (1, &[1.0, 1.0]),
            ],
        );
        for (i, s) in w.specs.iter_mut().enumerate() {
            s.arrival = i as f64;
        }
        assert_eq!(
            Optimus::place(&w.view()),
            vec![Some(0), Some(0), Some(1), None]
        );
        // Six GPUs of slow and two of fast, three jobs: all start on slow (more room);
        // then the two free fast GPUs go to the largest cuts: job 1 (1000 - 250 = 750 s)
        // and job 2 (1000 - 333 = 667 s) rather than job 0 (500 s).
        let mut w = World::new(
            "fast:2,slow:6",
            &[(1, &[2.0, 1.0]), (1, &[4.0, 1.0]), (1, &[3.0, 1.0])],
        );
        for (i, s) in w.specs.iter_mut().enumerate() {
            s.arrival = i as f64;
        }
        assert_eq!(Optimus::place(&w.view()), vec![Some(1), Some(0), Some(0)]);
        // A job on a type with room stays there; a multi-GPU job that fits nowhere waits
        // while a later single-GPU job runs.
        let w = World::new("a:3", &[(2, &[1.0]), (4, &[1.0]), (1, &[1.0])]);
        assert_eq!(Optimus::place(&w.view()), vec![Some(0), None, Some(0)]);
    }
}
