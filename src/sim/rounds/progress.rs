//! Progress: the round's slices (steps, finish times, restarts), its preemptions, a round
//! in which nothing runs, and the completion of the slices' work.

use super::*;

impl Simulator {
    /// The slices of the round: each placed job's (or pair's) steps, finish time and restart
    /// delay, starting at `start`, its restarts reported.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn slices(
        &mut self,
        placements: Vec<(JobId, Option<JobId>, Placement, bool)>,
        start: f64,
        report: &mut RoundReport,
    ) -> Vec<Slice> {
        let compat = self.cfg.gavel_compat;
        let mut slices: Vec<Slice> = Vec::with_capacity(placements.len() + 1);
        // Steps, finish time, restart overhead, whether it restarted, and the restart delay
        // left after the round, of job `j` running at `rate` on `p`. Outside Gavel-compatible
        // mode a job pays its restart delay whenever it starts on GPUs other than its last
        // ones (its first start included), and a delay longer than a round carries on.
        let work = |sim: &Self, j: JobId, p: &Placement, rate: f64| -> (f64, f64, f64, bool, f64) {
            let remaining = (sim.specs[j].total_steps - sim.states[j].steps_done).max(0.0);
            let st = &sim.states[j];
            let changed = st.last_placement.as_ref() != Some(p);
            let moved = st.rounds_run > 0 && changed;
            let due = if compat {
                0.0
            } else if changed {
                sim.cfg.restart.delay_of(sim.specs[j].restart_s)
            } else {
                st.restart_left
            };
            let overhead = due.min(sim.cfg.round_len);
            let (steps, dur) = if compat {
                let n = ((rate * sim.cfg.round_len).trunc()).min(remaining);
                (n, n / rate)
            } else {
                let n = (rate * (sim.cfg.round_len - overhead)).min(remaining);
                (n, overhead + n / rate)
            };
            (steps, start + dur, overhead, moved, due - overhead)
        };
        for (j, partner, p, runs) in placements {
            if !runs {
                continue;
            }
            if let Some(b) = partner {
                // A pair: both jobs on the same GPUs at their colocated rates.
                let (ra, rb) = self
                    .mech
                    .pairs
                    .get(&(j, b))
                    .map_or((0.0, 0.0), |m| m.rates[p.gpu_type]);
                if ra <= 0.0 || rb <= 0.0 {
                    continue;
                }
                let wa = work(self, j, &p, ra);
                let wb = work(self, b, &p, rb);
                let held = wa.1.max(wb.1);
                for (k, other, (steps, fin, overhead, moved, left)) in [(j, b, wa), (b, j, wb)] {
                    if moved {
                        self.states[k].restarts += 1;
                        self.emit(
                            report,
                            SimEvent::Restarted {
                                job: k,
                                time: start,
                            },
                        );
                    }
                    slices.push(Slice {
                        job: k,
                        partner: Some(other),
                        placement: p.clone(),
                        steps,
                        fin: if compat { held } else { fin },
                        overhead,
                        restart_left: left,
                        held_until: held,
                    });
                }
                continue;
            }
            let gpus = p.gpus.len() as u32;
            let rate = if gpus == self.specs[j].scale_factor {
                self.thr[j][p.gpu_type]
            } else {
                self.profile
                    .throughput(
                        &self.specs[j].job_type,
                        gpus,
                        &self.cluster.types[p.gpu_type].name,
                    )
                    .unwrap_or(0.0)
            };
            if rate <= 0.0 {
                continue;
            }
            let (steps, fin, overhead, moved, left) = work(self, j, &p, rate);
            if moved {
                self.states[j].restarts += 1;
                self.emit(
                    report,
                    SimEvent::Restarted {
                        job: j,
                        time: start,
                    },
                );
            }
            slices.push(Slice {
                job: j,
                partner: None,
                placement: p,
                steps,
                fin,
                overhead,
                restart_left: left,
                held_until: fin,
            });
        }
        // Placements come sorted by job id (a pair by its lower id): sort the pairs' higher
        // ids in. Ids are unique.
        if self.traits.packing {
            slices.sort_unstable_by_key(|s| s.job);
        }
        slices
    }

    /// The preemptions of the round (jobs that ran last round, unfinished, not running now),
    /// reported; whether each active job (by position) runs.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn preemptions(
        &mut self,
        slices: &[Slice],
        start: f64,
        report: &mut RoundReport,
    ) -> Vec<bool> {
        // Preemptions: ran last round, unfinished, not running now. Placements come sorted
        // by job id, so the slices are.
        debug_assert!(slices.windows(2).all(|w| w[0].job < w[1].job));
        // Whether each active job (by position) runs: one walk over both sorted lists.
        let mut next = slices.iter().map(|s| s.job).peekable();
        let mut runs = std::mem::take(&mut self.scratch.runs);
        runs.clear();
        runs.extend(self.active.iter().map(|&j| {
            while next.next_if(|&r| r < j).is_some() {}
            next.next_if(|&r| r == j).is_some()
        }));
        for (i, &running_now) in runs.iter().enumerate() {
            let j = self.active[i];
            if self.states[j].ran_last_round && !running_now {
                self.states[j].preemptions += 1;
                self.emit(
                    report,
                    SimEvent::Preempted {
                        job: j,
                        time: start,
                    },
                );
            }
        }
        runs
    }

    /// A round in which nothing runs: the clock moves to the next arrival, or, when nothing
    /// will arrive, a new decision is forced and after three such rounds the active jobs are
    /// dropped.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn idle_round(
        &mut self,
        runs: Vec<bool>,
        start: f64,
        mut report: RoundReport,
    ) -> RoundReport {
        self.scratch.runs = runs;
        for &j in &self.active {
            self.states[j].ran_last_round = false;
        }
        self.last_owners = self
            .cluster
            .types
            .iter()
            .map(|t| vec![None; t.count as usize])
            .collect();
        self.last_sharers.clone_from(&self.last_owners);
        if self.next_arrival < self.arrival_order.len() {
            self.now = self.specs[self.arrival_order[self.next_arrival]]
                .arrival
                .max(self.now);
            self.idle_rounds = 0;
        } else {
            // Nothing can run and nothing will arrive: force a new decision; give up
            // after a few attempts.
            self.mech.last_reset = 0.0;
            self.mech.need_update = true;
            self.idle_rounds += 1;
            if self.idle_rounds >= 3 {
                let now = self.now;
                for j in self.active.clone() {
                    self.emit(
                        &mut report,
                        SimEvent::Dropped {
                            job: j,
                            time: now,
                            reason: "cannot be scheduled".into(),
                        },
                    );
                }
                self.active.clear();
                self.mech.pairs.clear();
                self.done = true;
            }
        }
        report.end = self.now;
        let active = self.active.len();
        let n = self.cluster.num_types();
        self.emit(
            &mut report,
            SimEvent::RoundEnded {
                round: self.round,
                start,
                end: self.now,
                active,
                running: 0,
                busy_gpus: vec![0; n],
            },
        );
        self.round += 1;
        report
    }

    /// The slices' work done: progress, time received, completions and drops, and the end
    /// of the round at `end`.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn complete(
        &mut self,
        slices: Vec<Slice>,
        runs: Vec<bool>,
        running: usize,
        start: f64,
        end: f64,
        mut report: RoundReport,
    ) -> RoundReport {
        let compat = self.cfg.gavel_compat;
        self.idle_rounds = 0;

        // Completion of the slices.
        let busy_base = if compat {
            self.mech.prev_busy_round_end
        } else {
            start
        };
        let mut busy_gpus = vec![0u32; self.cluster.num_types()];
        let mut finished = Vec::new();
        // Whether each slice did its work: in Gavel-compatible mode a slice fails when it has
        // fewer steps than GPUs or no time; a pair fails when either job's slice does.
        let mut ok: Vec<bool> = slices
            .iter()
            .map(|s| {
                !compat
                    || (s.steps / s.placement.gpus.len() as f64).floor() > 0.0
                        && s.held_until - busy_base > 0.0
            })
            .collect();
        if compat && self.traits.packing {
            for i in 0..slices.len() {
                if let Some(b) = slices[i].partner {
                    if let Ok(k) = slices.binary_search_by_key(&b, |s| s.job) {
                        ok[i] = ok[i] && ok[k];
                        ok[k] = ok[i];
                    }
                }
            }
        }
        for (slice, ok) in slices.into_iter().zip(ok) {
            let Slice {
                job: j,
                partner,
                placement: p,
                steps,
                fin,
                overhead,
                restart_left,
                held_until,
            } = slice;
            let gpus = p.gpus.len() as u32;
            let t = p.gpu_type;
            // A pair's GPUs count once, on its lower id.
            let lower = partner.is_none_or(|b| j < b);
            if lower {
                busy_gpus[t] += gpus;
            }
            let exec = held_until - busy_base;
            if let (Some(b), true) = (partner, lower) {
                if let Some(m) = self.mech.pairs.get_mut(&(j, b)) {
                    m.last_placement = Some(p.clone());
                    if ok {
                        // A pair's time received is the pair's, not either job's.
                        m.job_time[t] += exec;
                        self.mech.worker_time[t] += exec;
                    }
                }
            }
            if !ok {
                if partner.is_none() {
                    self.mech.failures[j] += 1;
                    self.mech.need_update = true;
                    if self.mech.failures[j] >= 5 {
                        finished.push((j, fin, false));
                    }
                }
                self.states[j].last_placement = Some(p);
                self.states[j].ran_last_round = true;
                continue;
            }
            // Each job of a pair is credited half the GPUs' time.
            let share = if partner.is_some() { 0.5 } else { 1.0 };
            let st = &mut self.states[j];
            if partner.is_none() {
                self.mech.failures[j] = 0;
            }
            st.steps_done += steps;
            st.first_start.get_or_insert(start);
            st.attained_service += (fin - start) * f64::from(gpus) * share;
            st.time_on_type[t] += fin - start;
            st.rounds_run += 1;
            st.ran_last_round = true;
            st.last_placement = Some(p);
            st.restart_left = restart_left;
            if partner.is_none() {
                let at = self.mech.at(j, t);
                self.mech.job_time[at] += exec;
                self.mech.worker_time[t] += exec;
            }
            let remaining = self.specs[j].total_steps - self.states[j].steps_done;
            let done = if compat {
                remaining <= 0.0
            } else {
                remaining <= 1e-9 * self.specs[j].total_steps
            };
            self.emit(
                &mut report,
                SimEvent::Ran {
                    job: j,
                    gpu_type: t,
                    gpus,
                    start,
                    end: held_until,
                    busy_s: exec,
                    steps,
                    overhead_s: overhead,
                    shared_with: partner,
                },
            );
            if done {
                finished.push((j, fin, true));
            }
        }
        for (&j, &running_now) in self.active.iter().zip(&runs) {
            if !running_now {
                self.states[j].ran_last_round = false;
            }
        }
        self.scratch.runs = runs;
        if self.traits.packing && !finished.is_empty() {
            let states = &self.states;
            let ended = |j: JobId| states[j].is_done() || finished.iter().any(|f| f.0 == j);
            self.mech.pairs.retain(|&(a, b), _| !ended(a) && !ended(b));
        }
        for (j, fin, ok) in finished {
            self.states[j].finish_time = Some(fin);
            self.states[j].ran_last_round = false;
            if let Ok(pos) = self.active.binary_search(&j) {
                self.active.remove(pos);
            }
            self.mech.need_update = true;
            if ok {
                self.emit(&mut report, SimEvent::Finished { job: j, time: fin });
            } else {
                self.emit(&mut report, SimEvent::Dropped { job: j, time: fin, reason: "fewer steps left than GPUs (Gavel drops such jobs after 5 failed rounds)".into() });
            }
        }
        if compat {
            self.mech.prev_busy_round_end = end;
        }
        self.now = end;
        report.end = end;
        let active = self.active.len()
            + report
                .events
                .iter()
                .filter(|e| matches!(e, SimEvent::Finished { .. } | SimEvent::Dropped { .. }))
                .count();
        self.emit(
            &mut report,
            SimEvent::RoundEnded {
                round: self.round,
                start,
                end,
                active,
                running,
                busy_gpus,
            },
        );
        self.round += 1;
        if self.active.is_empty() && self.next_arrival >= self.arrival_order.len() {
            self.done = true;
        }
        if self.round >= self.cfg.max_rounds {
            self.done = true;
        }
        report
    }
}
