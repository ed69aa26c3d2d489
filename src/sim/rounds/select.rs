//! Which jobs run this round: the mechanism's selections from an allocation (Gavel's
//! priorities, with or without pairs), from a policy's order or assignment, and the jobs
//! kept on their GPUs while they restart.

use super::*;

impl Simulator {
    /// The policy's decision (a new one when due) turned into this round's placements.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn select(
        &mut self,
        report: &mut RoundReport,
    ) -> Vec<(JobId, Option<JobId>, Placement, bool)> {
        self.decide(report);
        // About one `Ran` and at most one other event per active job.
        report.events.reserve(2 * self.active.len() + 4);

        // Which jobs run where.
        let decision = self.mech.last_decision.take();
        let picks = match &decision {
            Some(Decision::Order(order)) => self.select_from_order(order),
            Some(Decision::Assignment(a)) => self.select_from_assignment(a),
            _ if self.traits.packing => self.select_packed(),
            _ => self.select_from_allocation(),
        };
        self.mech.last_decision = decision;
        let picks = self.spot_jobs_yield(picks);
        let picks = self.keep_restarting(picks);
        self.place(picks)
    }

    /// The passes of a round's selection over the types in `order`, each with whether it
    /// takes only entries of positive priority. Gavel-compatible mode (and a policy that
    /// does not fill with zero priority) makes one pass in which every type takes its
    /// entries in turn, as Gavel does. Otherwise every type first takes the jobs its
    /// allocation gives time on, and only then do GPUs left over take jobs of zero
    /// priority: a type visited early cannot take a job the allocation placed on a type
    /// visited later, so the order the types are listed in does not decide who runs where.
    fn passes(&self, order: &[TypeIdx]) -> Vec<(bool, TypeIdx)> {
        let two = !self.cfg.gavel_compat && self.traits.fill_with_zero_priority;
        let first = order.iter().map(|&t| (two, t));
        if two {
            first.chain(order.iter().map(|&t| (false, t))).collect()
        } else {
            first.collect()
        }
    }

    /// Job `j`'s ranking key on type `t` (`w`: the type's time received since the reset):
    /// descending priority, deficit and allocation there. `None` when it cannot run there,
    /// has no allocation outside Gavel-compatible mode, or its priority is not positive
    /// where only `positive` ones are taken.
    fn job_key(&self, j: JobId, t: TypeIdx, w: f64, positive: bool) -> Option<[i64; 3]> {
        if self.thr[j][t] <= 0.0 {
            return None;
        }
        let a = self.mech.alloc_of(j, t);
        if a.is_none() && !self.cfg.gavel_compat {
            return None;
        }
        let frac = if w == 0.0 {
            0.0
        } else {
            self.mech.job_time[self.mech.at(j, t)] / w
        };
        let prio = priority(a, frac);
        if positive && prio <= 0.0 {
            return None;
        }
        Some([
            descending_key(prio),
            descending_key(self.mech.deficits[self.mech.at(j, t)]),
            descending_key(a.unwrap_or(0.0)),
        ])
    }

    /// Gavel's per-round selection from the allocation: (job, type) pairs.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn select_from_allocation(&mut self) -> Vec<Pick> {
        let n = self.cluster.num_types();
        let traits = self.traits;
        let mut order: Vec<TypeIdx> = (0..n)
            .filter(|&t| self.cluster.types[t].count > 0)
            .collect();
        if self.cfg.gavel_compat && traits.shuffle_types {
            self.type_shuffler.shuffle(&mut order);
        }
        let mut left: Vec<u32> = self.cluster.counts();
        // Whether each job (by id) is placed this round.
        let mut scheduled = std::mem::take(&mut self.scratch.placed);
        scheduled.clear();
        scheduled.resize(self.specs.len(), false);
        let mut out = Vec::with_capacity(left.iter().sum::<u32>() as usize);
        // Per type, jobs in descending (priority, deficit, allocation), then ascending id;
        // a greedy pass takes each job unless the type is full, the job is already placed,
        // cannot run there or does not fit. Jobs skipped whatever their rank are left out
        // before sorting. Keys are unique (ids), so only the prefix the pass reaches needs
        // sorting, and any sort gives the same order.
        let mut entries = std::mem::take(&mut self.scratch.entries);
        for (positive_only, t) in self.passes(&order) {
            if left[t] == 0 {
                // A full type takes nothing (and ranking its entries would change nothing).
                continue;
            }
            entries.clear();
            let w = self.mech.worker_time[t];
            let positive = positive_only || !traits.fill_with_zero_priority;
            // Only jobs with time in the allocation have a positive priority; those that
            // finished since it are no longer active. (The entries are ranked by their
            // unique keys, so the order they are gathered in does not matter.)
            let candidates = if positive {
                &self.mech.support
            } else {
                &self.active
            };
            for &j in candidates {
                if scheduled[j] || positive && self.states[j].is_done() {
                    continue;
                }
                if let Some(key) = self.job_key(j, t, w, positive) {
                    entries.push((key, j));
                }
            }
            take_in_order(&mut entries, &mut left[t], |(_, j), room| {
                let s = self.specs[j].scale_factor;
                if s > room {
                    return 0;
                }
                scheduled[j] = true;
                out.push((j, None, t, s, self.mech.allocated[j]));
                s
            });
        }
        self.scratch.placed = scheduled;
        self.scratch.entries = entries;
        out
    }

    /// Gavel's per-round selection with pairs (packing policies): per type, single jobs and
    /// pairs in one list by descending (priority, deficit, allocation), ties in the order
    /// Gavel inserted them (a job after the jobs admitted before it, then its pairs with
    /// them); a greedy pass takes each entry unless the type is full, a job of it is already
    /// placed, it cannot run there (for a pair, either colocated throughput is 0) or it
    /// does not fit. A pair takes its scale factor of GPUs once.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn select_packed(&mut self) -> Vec<Pick> {
        let n = self.cluster.num_types();
        let traits = self.traits;
        let compat = self.cfg.gavel_compat;
        let mut order: Vec<TypeIdx> = (0..n)
            .filter(|&t| self.cluster.types[t].count > 0)
            .collect();
        if compat && traits.shuffle_types {
            self.type_shuffler.shuffle(&mut order);
        }
        let mut left: Vec<u32> = self.cluster.counts();
        let mut scheduled = vec![false; self.specs.len()];
        let mut out: Vec<Pick> = Vec::new();
        type Entry = ([i64; 3], (u64, u8, u64), JobId, Option<JobId>);
        let mut entries: Vec<Entry> = Vec::new();
        let passes = self.passes(&order);
        let seq = &self.mech.admit_seq;
        for (positive_only, t) in passes {
            if left[t] == 0 {
                // A full type takes nothing (and ranking its entries would change nothing).
                continue;
            }
            entries.clear();
            let w = self.mech.worker_time[t];
            let positive = positive_only || !traits.fill_with_zero_priority;
            for &j in &self.active {
                if scheduled[j] {
                    continue;
                }
                if let Some(key) = self.job_key(j, t, w, positive) {
                    entries.push((key, (seq[j], 0, 0), j, None));
                }
            }
            for (&(a, b), p) in &self.mech.pairs {
                let (ra, rb) = p.rates[t];
                if scheduled[a] || scheduled[b] || ra <= 0.0 || rb <= 0.0 {
                    continue;
                }
                let x = p.alloc.as_ref().map(|r| r[t]);
                if x.is_none() && !compat {
                    continue;
                }
                let frac = if w == 0.0 { 0.0 } else { p.job_time[t] / w };
                let prio = priority(x, frac);
                if (positive_only || !traits.fill_with_zero_priority) && prio <= 0.0 {
                    continue;
                }
                let key = [
                    descending_key(prio),
                    descending_key(p.deficits[t]),
                    descending_key(x.unwrap_or(0.0)),
                ];
                let (sa, sb) = (seq[a], seq[b]);
                entries.push((key, (sa.max(sb), 1, sa.min(sb)), a, Some(b)));
            }
            take_in_order(&mut entries, &mut left[t], |(_, _, j, partner), room| {
                if scheduled[j] || partner.is_some_and(|b| scheduled[b]) {
                    return 0;
                }
                let s = self.specs[j].scale_factor;
                if s > room {
                    return 0;
                }
                scheduled[j] = true;
                let runs = match partner {
                    None => self.mech.allocated[j],
                    Some(b) => {
                        scheduled[b] = true;
                        self.mech
                            .pairs
                            .get(&(j, b))
                            .is_some_and(|p| p.alloc.is_some())
                    }
                };
                out.push((j, partner, t, s, runs));
                s
            });
        }
        out
    }

    /// Greedy fill in priority order.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn select_from_order(&self, order: &[JobId]) -> Vec<Pick> {
        let mut left: Vec<u32> = self.cluster.counts();
        let mut seen = vec![false; self.specs.len()];
        let mut out = Vec::new();
        for &j in order {
            if j >= self.specs.len()
                || seen[j]
                || !self.states[j].admitted
                || self.states[j].is_done()
            {
                continue;
            }
            seen[j] = true;
            let s = self.specs[j].scale_factor;
            let prev = self.states[j].last_placement.as_ref().map(|p| p.gpu_type);
            let pick = prev
                .filter(|&t| left[t] >= s && self.thr[j][t] > 0.0)
                .or_else(|| {
                    (0..left.len())
                        .filter(|&t| left[t] >= s && self.thr[j][t] > 0.0)
                        .max_by(|&a, &b| left[a].cmp(&left[b]).then(b.cmp(&a)))
                });
            if let Some(t) = pick {
                left[t] -= s;
                out.push((j, None, t, s, true));
            }
        }
        out
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn select_from_assignment(
        &self,
        assignments: &[super::contract::Assignment],
    ) -> Vec<Pick> {
        let mut left: Vec<u32> = self.cluster.counts();
        let mut seen = vec![false; self.specs.len()];
        let mut out = Vec::new();
        for a in assignments {
            let ok = a.job < self.specs.len()
                && !seen[a.job]
                && self.states[a.job].admitted
                && !self.states[a.job].is_done()
                && a.gpu_type < left.len()
                && a.gpus > 0
                && a.gpus <= left[a.gpu_type];
            if ok {
                seen[a.job] = true;
                left[a.gpu_type] -= a.gpus;
                out.push((a.job, None, a.gpu_type, a.gpus, true));
            }
        }
        out
    }

    /// `picks` with every job still paying its restart delay kept on its GPUs: such jobs
    /// come first, on their last placement's type, and the others follow while their type
    /// has room. A scheduler does not take GPUs from a job that is still starting on them
    /// (Sia's holds such a job to its configuration too); otherwise a job moved every round
    /// with a delay longer than a round would never train.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn keep_restarting(&self, picks: Vec<Pick>) -> Vec<Pick> {
        // Only jobs that ran in the last round can be restarting on their GPUs.
        let restarting: Vec<Pick> = self
            .ran_last
            .iter()
            .filter_map(|&j| {
                let st = &self.states[j];
                if st.restart_left <= 0.0 || st.is_done() || !st.ran_last_round {
                    return None;
                }
                let p = st.last_placement.as_ref()?;
                Some((j, None, p.gpu_type, p.gpus.len() as u32, true))
            })
            .collect();
        if restarting.is_empty() {
            return picks;
        }
        let mut left: Vec<u32> = self.cluster.types.iter().map(|t| t.count).collect();
        for r in &restarting {
            left[r.2] = left[r.2].saturating_sub(r.3);
        }
        let held = |j: JobId| restarting.iter().any(|r| r.0 == j);
        let mut out = restarting.clone();
        for p in picks {
            if held(p.0) || p.1.is_some_and(held) {
                continue;
            }
            if left[p.2] >= p.3 {
                left[p.2] -= p.3;
                out.push(p);
            }
        }
        out
    }
}

/// Gavel's priority of an entry on a type: its allocation there over the fraction of the
/// type's time it has received (the allocation times 1e9 before it has received any), 0
/// without an allocation there.
fn priority(alloc: Option<f64>, frac: f64) -> f64 {
    match alloc {
        Some(x) if x != 0.0 => {
            if frac > 0.0 {
                x / frac
            } else {
                x * 1e9
            }
        }
        _ => 0.0,
    }
}

/// Takes `entries` in ascending order while GPUs are `left`: `take(entry, left)` returns
/// the GPUs the entry takes (0 when it takes none). Each take uses at least one GPU, so only
/// the next `left` entries are sorted at a time; keys are unique, so any sort gives the
/// same order.
fn take_in_order<E: Ord + Copy>(
    entries: &mut [E],
    left: &mut u32,
    mut take: impl FnMut(E, u32) -> u32,
) {
    let mut rest = entries;
    while *left > 0 && !rest.is_empty() {
        let k = (*left as usize).min(rest.len());
        if k < rest.len() {
            rest.select_nth_unstable(k - 1);
        }
        let (chunk, tail) = rest.split_at_mut(k);
        chunk.sort_unstable();
        for &e in chunk.iter() {
            if *left == 0 {
                break;
            }
            *left -= take(e, *left);
        }
        rest = tail;
    }
}
