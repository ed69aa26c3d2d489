//! Choosing which running jobs to suspend so that a waiting job gets the GPUs it needs
//! while losing the least time.
//!
//! A waiting job needs `need` more GPUs. Each candidate victim frees `gpus` GPUs once its
//! suspension is done (`release_s`: the rest of its epoch, then its checkpoint) and costs
//! itself `loss_s` (its checkpoint and the reload when it resumes). A set of victims costs
//! the waiting job the longest release among them and the victims their losses:
//!
//! `cost(S) = max_{v in S} release_v + sum_{v in S} loss_v`, subject to
//! `sum_{v in S} gpus_v >= need`.
//!
//! [`greedy`] sweeps the candidates in order of release: with the candidates released by
//! then, it covers the need by taking, each time, the candidate with the least loss per
//! GPU that still counts (GPUs beyond the need left count for nothing), then drops victims
//! that turn out redundant; the best set over the sweep wins. The sweep stops once a release alone costs
//! more than the best set found, which no later set can beat. [`exhaustive`] tries every
//! subset, for tests on small cases.

use crate::model::job::JobId;

/// A running job that could be suspended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// The job.
    pub job: JobId,
    /// GPUs it frees.
    pub gpus: u32,
    /// Seconds until its GPUs are free if suspended now.
    pub release_s: f64,
    /// Seconds it loses itself (checkpoint and reload).
    pub loss_s: f64,
}

/// A set of victims and what it costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// Indices into the candidates, ascending.
    pub victims: Vec<usize>,
    /// Seconds the waiting job waits: the longest release.
    pub wait_s: f64,
    /// Seconds the victims lose, summed.
    pub loss_s: f64,
}

impl Choice {
    /// The objective: wait plus losses.
    pub fn cost(&self) -> f64 {
        self.wait_s + self.loss_s
    }
}

/// The choice made of `victims` (indices into `cands`).
pub fn evaluate(cands: &[Candidate], mut victims: Vec<usize>) -> Choice {
    victims.sort_unstable();
    victims.dedup();
    let wait_s = victims
        .iter()
        .map(|&i| cands[i].release_s)
        .fold(0.0, f64::max);
    let loss_s = victims.iter().map(|&i| cands[i].loss_s).sum();
    Choice {
        victims,
        wait_s,
        loss_s,
    }
}

/// The greedy choice (see the module documentation); None if all candidates together free
/// fewer than `need` GPUs.
pub fn greedy(cands: &[Candidate], need: u32) -> Option<Choice> {
    if need == 0 {
        return Some(evaluate(cands, Vec::new()));
    }
    let total: u64 = cands.iter().map(|c| u64::from(c.gpus)).sum();
    if total < u64::from(need) {
        return None;
    }
    let mut by_release: Vec<usize> = (0..cands.len()).filter(|&i| cands[i].gpus > 0).collect();
    crate::order::sort_by(&mut by_release, |&a, &b| {
        cands[a]
            .release_s
            .total_cmp(&cands[b].release_s)
            .then(cands[a].loss_s.total_cmp(&cands[b].loss_s))
            .then(a.cmp(&b))
    });
    // Candidates released so far.
    let mut pool: Vec<usize> = Vec::with_capacity(by_release.len());
    let mut pool_gpus = 0u64;
    let mut best: Option<Choice> = None;
    let mut taken: Vec<usize> = Vec::new();
    let mut used = vec![false; cands.len()];
    for &k in &by_release {
        if best
            .as_ref()
            .is_some_and(|b| cands[k].release_s >= b.cost())
        {
            break;
        }
        pool.push(k);
        pool_gpus += u64::from(cands[k].gpus);
        if pool_gpus < u64::from(need) {
            continue;
        }
        // Cover the need: each time the candidate with the least loss per GPU that still
        // counts (GPUs beyond the need left are worth nothing).
        taken.clear();
        let mut covered = 0u32;
        while covered < need {
            let left = need - covered;
            let per = |i: usize| cands[i].loss_s / f64::from(cands[i].gpus.min(left));
            let Some(&i) = pool
                .iter()
                .filter(|&&i| !used[i])
                .min_by(|&&a, &&b| per(a).total_cmp(&per(b)).then(a.cmp(&b)))
            else {
                break;
            };
            used[i] = true;
            taken.push(i);
            covered += cands[i].gpus;
        }
        for &i in &taken {
            used[i] = false;
        }
        // Drop victims not needed, latest taken first.
        let mut j = taken.len();
        while j > 0 {
            j -= 1;
            let i = taken[j];
            if covered - cands[i].gpus >= need {
                covered -= cands[i].gpus;
                taken.remove(j);
            }
        }
        let c = evaluate(cands, taken.clone());
        if best.as_ref().is_none_or(|b| c.cost() < b.cost()) {
            best = Some(c);
        }
    }
    best
}

/// The best choice by trying every subset (for at most 24 candidates); None if no subset
/// frees `need` GPUs or there are too many candidates.
pub fn exhaustive(cands: &[Candidate], need: u32) -> Option<Choice> {
    if cands.len() > 24 {
        return None;
    }
    let mut best: Option<Choice> = None;
    for mask in 0u32..(1u32 << cands.len()) {
        let set: Vec<usize> = (0..cands.len()).filter(|&i| mask >> i & 1 == 1).collect();
        let gpus: u32 = set.iter().map(|&i| cands[i].gpus).sum();
        if gpus < need {
            continue;
        }
        let c = evaluate(cands, set);
        if best.as_ref().is_none_or(|b| c.cost() < b.cost()) {
            best = Some(c);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn c(job: JobId, gpus: u32, release_s: f64, loss_s: f64) -> Candidate {
        Candidate {
            job,
            gpus,
            release_s,
            loss_s,
        }
    }

    #[test]
    fn hand_solved_cases() {
        // One GPU needed: the job whose epoch ends soonest wins despite a larger loss.
        let cands = [
            c(0, 1, 600.0, 20.0),
            c(1, 1, 30.0, 40.0),
            c(2, 1, 300.0, 5.0),
        ];
        let g = greedy(&cands, 1).unwrap();
        assert_eq!(g.victims, vec![1]);
        assert!((g.cost() - 70.0).abs() < 1e-12);
        // Four GPUs: one 4-GPU job at 100 s (cost 110) beats two 2-GPU jobs at 50 s and
        // 90 s (cost 90 + 60 = 150).
        let cands = [
            c(0, 2, 50.0, 30.0),
            c(1, 2, 90.0, 30.0),
            c(2, 4, 100.0, 10.0),
        ];
        let g = greedy(&cands, 4).unwrap();
        assert_eq!(g.victims, vec![2]);
        assert_eq!(g, exhaustive(&cands, 4).unwrap());
        // Not enough GPUs.
        assert!(greedy(&cands, 9).is_none());
        assert!(exhaustive(&cands, 9).is_none());
        // Nothing needed: nobody is suspended.
        assert!(greedy(&cands, 0).unwrap().victims.is_empty());
    }

    #[test]
    fn redundant_victims_are_dropped() {
        // Cheapest per GPU first takes the 1-GPU job, then the 4-GPU one covers the need
        // alone: the 1-GPU job is dropped.
        let cands = [c(0, 1, 10.0, 1.0), c(1, 4, 10.0, 8.0)];
        let g = greedy(&cands, 4).unwrap();
        assert_eq!(g.victims, vec![1]);
    }

    /// How often the greedy choice is optimal on small random cases, and how far off it is
    /// when it is not.
    pub(crate) fn optimality(cases: usize, seed: u64) -> (usize, usize, f64) {
        let mut rng = Rng::new(seed);
        let (mut optimal, mut total, mut worst) = (0, 0, 0.0f64);
        for _ in 0..cases {
            let n = 2 + rng.below(9) as usize;
            let cands: Vec<Candidate> = (0..n)
                .map(|i| {
                    c(
                        i,
                        [1, 1, 2, 4, 8][rng.below(5) as usize],
                        rng.range(0.0, 1800.0),
                        rng.range(5.0, 120.0),
                    )
                })
                .collect();
            let need = 1 + rng.below(8) as u32;
            let (g, e) = (greedy(&cands, need), exhaustive(&cands, need));
            assert_eq!(g.is_some(), e.is_some());
            let (Some(g), Some(e)) = (g, e) else { continue };
            assert!(g.victims.iter().map(|&i| cands[i].gpus).sum::<u32>() >= need);
            assert!(g.cost() >= e.cost() - 1e-9);
            total += 1;
            if g.cost() <= e.cost() + 1e-9 {
                optimal += 1;
            }
            worst = worst.max(g.cost() / e.cost() - 1.0);
        }
        (optimal, total, worst)
    }

    #[test]
    fn greedy_against_exhaustive_search() {
        let (optimal, total, worst) = optimality(2000, 11);
        let share = optimal as f64 / total as f64;
        println!(
            "greedy victim choice optimal in {optimal} of {total} cases ({:.1}%), worst {:.1}% above",
            100.0 * share,
            100.0 * worst
        );
        assert!(total > 1500);
        assert!(share > 0.98, "{share}");
        assert!(worst < 0.2, "{worst}");
    }
}
