//! Progress: the round's slices (steps, finish times, restarts), its preemptions, a round
//! in which nothing runs, and the completion of the slices' work.

use super::*;
use crate::model::failure::schedule::Failure;
use crate::sim::faults::{first_hit, Held, SPOT_CAUSE};

/// A job's GPUs on a placement as the failures see them, and how many servers they span:
/// kept from one round to the next while the job keeps its placement (sorting a
/// 16,384-GPU gang's GPUs by server again in every round took half of the `llama3`
/// scenario's time).
#[derive(Debug, Clone)]
pub(super) struct HeldAt {
    placement: Placement,
    held: Held,
    servers: u32,
}

/// A slice's work under failures: steps (net of the work failures took back, so possibly
/// negative), finish time, restart overhead paid, checkpoint writes, restart delay left,
/// and whether a failure stopped it.
#[derive(Default)]
struct FaultWork {
    steps: f64,
    fin: f64,
    overhead: f64,
    writing: f64,
    left: f64,
    stopped: bool,
}

impl FaultWork {
    /// The slice's numbers, with whether the job moved.
    fn with_moved(self, moved: bool) -> (f64, f64, f64, bool, f64, bool) {
        (
            self.steps,
            self.fin,
            self.overhead,
            moved,
            self.left,
            self.stopped,
        )
    }
}

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
        // The round's server failures, when the experiment has them.
        let failures = match self.faults.as_mut() {
            Some(f) => {
                let mut events = Vec::new();
                let end = start + self.cfg.round_len;
                // Spot instances taken back inside the round are failures of their servers
                // that stop the jobs on them.
                let failures = f.failures_in(&self.cfg.spot, (start, end), &mut events);
                for e in events {
                    self.emit(report, e);
                }
                failures
            }
            None => Vec::new(),
        };
        self.spot_taken_back(start, report);
        let work = |sim: &mut Self,
                    report: &mut RoundReport,
                    j: JobId,
                    p: &Placement,
                    rate: f64|
         -> (f64, f64, f64, bool, f64, bool) {
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
            if sim.faults.is_some() {
                return sim
                    .work_with_faults(report, j, p, rate, remaining, due, start, &failures)
                    .with_moved(moved);
            }
            let overhead = due.min(sim.cfg.round_len);
            let (steps, dur) = if compat {
                let n = ((rate * sim.cfg.round_len).trunc()).min(remaining);
                (n, n / rate)
            } else {
                let n = (rate * (sim.cfg.round_len - overhead)).min(remaining);
                (n, overhead + n / rate)
            };
            (steps, start + dur, overhead, moved, due - overhead, false)
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
                let wa = work(self, report, j, &p, ra);
                let wb = work(self, report, b, &p, rb);
                let held = wa.1.max(wb.1);
                for (k, other, (steps, fin, overhead, moved, left, stopped)) in
                    [(j, b, wa), (b, j, wb)]
                {
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
                        stopped,
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
            let (steps, fin, overhead, moved, left, stopped) = work(self, report, j, &p, rate);
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
                stopped,
            });
        }
        // Placements come sorted by job id (a pair by its lower id): sort the pairs' higher
        // ids in. Ids are unique.
        if self.traits.packing {
            slices.sort_unstable_by_key(|s| s.job);
        }
        slices
    }

    /// Job `j`'s slice on `p` at `rate` with `remaining` steps to go and a restart delay
    /// `due`, under failures and checkpoints: it runs until the round ends or its work does.
    /// Each failure of one of its servers takes back its work since its last checkpoint
    /// (reported); with no repair time a spare takes the server's place and the job
    /// restarts at once on the same GPUs (paying its restart delay again), else it stops
    /// there and waits for its policy's next decision.
    #[allow(clippy::too_many_arguments)]
    fn work_with_faults(
        &mut self,
        report: &mut RoundReport,
        j: JobId,
        p: &Placement,
        rate: f64,
        remaining: f64,
        mut due: f64,
        start: f64,
        failures: &[Failure],
    ) -> FaultWork {
        let Some(faults) = self.faults.as_ref() else {
            return FaultWork::default();
        };
        let at = match self.held.get_mut(j).and_then(Option::take) {
            Some(at) if at.placement == *p => at,
            _ => {
                let held = Held::new(
                    p.gpus
                        .iter()
                        .map(|&g| faults.locate(p.gpu_type, g))
                        .collect(),
                );
                HeldAt {
                    placement: p.clone(),
                    servers: held.servers(),
                    held,
                }
            }
        };
        let (held, spanned) = (&at.held, at.servers);
        let spare = faults.repair_s() <= 0.0;
        let delay = self.cfg.restart.delay_of(self.specs[j].restart_s);
        let end = start + self.cfg.round_len;
        let gpus = p.gpus.len() as u32;
        let mut out = FaultWork {
            fin: start,
            ..FaultWork::default()
        };
        let mut t = start;
        let mut next = failures.partition_point(|f| f.time < start);
        let mut left_work = remaining;
        loop {
            let hit = first_hit(failures, held, next).filter(|(_, f)| f.time < end);
            let until = hit.map_or(end, |(_, f)| f.time);
            let overhead = due.min(until - t);
            let Some(faults) = self.faults.as_mut() else {
                return out;
            };
            let stretch = faults.run(j, spanned, until - t - overhead, rate, left_work);
            let fin = t + overhead + stretch.used_s;
            out.steps += stretch.work;
            out.overhead += overhead;
            out.writing += stretch.writing_s;
            left_work -= stretch.work;
            let finished = left_work <= remaining * 1e-9;
            match hit {
                Some((i, f)) if !(finished && fin <= f.time) => {
                    // A spot instance taken back stops the job after its warning; a failure
                    // takes back its work since its checkpoint.
                    let spot = f.cause == SPOT_CAUSE;
                    let (lost, lost_s, written) = faults.stop(j, spot, self.cfg.spot_warning_s);
                    out.steps -= lost;
                    out.writing += written;
                    left_work += lost;
                    self.emit(
                        report,
                        SimEvent::Interrupted {
                            job: j,
                            time: f.time,
                            gpus,
                            lost_steps: lost,
                            lost_s,
                            spot,
                        },
                    );
                    out.fin = f.time;
                    if spot || !spare {
                        out.stopped = true;
                        out.left = 0.0;
                        break;
                    }
                    // A spare in its place: the job starts again at once.
                    self.states[j].restarts += 1;
                    self.emit(
                        report,
                        SimEvent::Restarted {
                            job: j,
                            time: f.time,
                        },
                    );
                    t = f.time;
                    due = delay;
                    next = i + 1;
                }
                _ => {
                    out.fin = fin;
                    out.left = due - overhead;
                    break;
                }
            }
        }
        if out.writing > 0.0 {
            self.emit(
                report,
                SimEvent::Checkpointed {
                    job: j,
                    time: out.fin,
                    gpus,
                    write_s: out.writing,
                },
            );
        }
        // Kept for the job's next round, unless its work is done.
        if left_work > remaining * 1e-9 {
            if let Some(slot) = self.held.get_mut(j) {
                *slot = Some(at);
            }
        }
        out
    }

    /// The jobs whose spot instance was taken back when the round starts at `start` (their
    /// GPUs are left out of its placement): each loses what a preemption after the
    /// experiment's warning takes ([`crate::sim::faults::FaultState::preempt`]), reported.
    fn spot_taken_back(&mut self, start: f64, report: &mut RoundReport) {
        let lost_jobs = std::mem::take(&mut self.scratch.spot_lost);
        for &j in &lost_jobs {
            let Some(faults) = self.faults.as_mut() else {
                break;
            };
            let (lost, lost_s, written) = faults.preempt(j, self.cfg.spot_warning_s);
            let gpus = self.specs[j].scale_factor;
            let st = &mut self.states[j];
            st.steps_done = (st.steps_done - lost).max(0.0);
            self.emit(
                report,
                SimEvent::Interrupted {
                    job: j,
                    time: start,
                    gpus,
                    lost_steps: lost,
                    lost_s,
                    spot: true,
                },
            );
            if written > 0.0 {
                self.emit(
                    report,
                    SimEvent::Checkpointed {
                        job: j,
                        time: start,
                        gpus,
                        write_s: written,
                    },
                );
            }
        }
        self.scratch.spot_lost = lost_jobs;
        self.scratch.spot_lost.clear();
    }

    /// The preemptions of the round (jobs that ran last round, unfinished, not running now),
    /// reported.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn preemptions(&mut self, slices: &[Slice], start: f64, report: &mut RoundReport) {
        // Preemptions: ran last round, unfinished, not running now. Placements come sorted
        // by job id, so the slices are: one walk over both sorted lists.
        debug_assert!(slices.windows(2).all(|w| w[0].job < w[1].job));
        let mut next = slices.iter().map(|s| s.job).peekable();
        let ran_last = std::mem::take(&mut self.ran_last);
        for &j in &ran_last {
            while next.next_if(|&r| r < j).is_some() {}
            let running_now = next.next_if(|&r| r == j).is_some();
            if !running_now {
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
        self.ran_last = ran_last;
    }

    /// A round in which nothing runs: the clock moves to the next arrival, or, when nothing
    /// will arrive, a new decision is forced and after three such rounds the active jobs are
    /// dropped.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn idle_round(&mut self, start: f64, mut report: RoundReport) -> RoundReport {
        for &j in &self.ran_last {
            self.states[j].ran_last_round = false;
        }
        self.ran_last.clear();
        self.release_gpus();
        // A server back from repair, or spot capacity coming back, may let a waiting job
        // run before the next arrival.
        let now = self.now;
        let back = self
            .faults
            .as_ref()
            .and_then(|f| f.next_back(now))
            .into_iter()
            .chain(self.cfg.spot.iter().filter_map(|(_, t)| t.next_rise(now)))
            .min_by(f64::total_cmp);
        if self.next_arrival < self.arrival_order.len() {
            let arrival = self.specs[self.arrival_order[self.next_arrival]].arrival;
            self.now = arrival.min(back.unwrap_or(f64::INFINITY)).max(self.now);
            self.idle_rounds = 0;
        } else if let Some(b) = back {
            self.now = b;
            self.mech.need_update = true;
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
        // The jobs that ran last round stop counting as such; those with a slice now count
        // again below, unless they finish.
        for &j in &self.ran_last {
            self.states[j].ran_last_round = false;
        }
        self.ran_last.clear();
        self.ran_last.extend(slices.iter().map(|s| s.job));
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
                stopped,
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
            // Under failures `steps` is net of the work they took back.
            st.steps_done = (st.steps_done + steps).max(0.0);
            st.first_start.get_or_insert(start);
            st.attained_service += (fin - start) * f64::from(gpus) * share;
            st.time_on_type[t] += fin - start;
            st.rounds_run += 1;
            st.ran_last_round = true;
            // Stopped by a failure: restarted wherever it runs next.
            st.last_placement = if stopped { None } else { Some(p) };
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
            if done && !stopped {
                finished.push((j, fin, true));
            }
        }
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
        // Jobs that finished no longer count as having run.
        let states = &self.states;
        self.ran_last.retain(|&j| states[j].ran_last_round);
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
