//! Admission: a round opens, and the jobs arrived by its start become active (with the
//! pairs they may form under a packing policy).

use super::*;

impl Simulator {
    /// Open a round: its report, the jobs arrived by now admitted (the clock moved to the
    /// next arrival when none is active). `None` once the simulation is over.
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub(super) fn open_round(&mut self) -> Option<RoundReport> {
        if self.cfg.until.is_some_and(|u| self.now >= u) {
            self.done = true;
        }
        if self.done {
            return None;
        }
        let mut report = RoundReport {
            round: self.round,
            start: self.now,
            end: self.now,
            events: Vec::new(),
        };
        if !self.started {
            self.started = true;
            match self.arrival_order.first() {
                Some(&j) => self.now = self.specs[j].arrival,
                None => {
                    self.done = true;
                    return None;
                }
            }
            report.start = self.now;
        }
        self.admit(&mut report);
        if self.active.is_empty() {
            if self.next_arrival < self.arrival_order.len() {
                self.now = self.specs[self.arrival_order[self.next_arrival]].arrival;
                report.start = self.now;
                self.admit(&mut report);
            } else {
                self.done = true;
                return None;
            }
        }
        Some(report)
    }

    #[cfg_attr(target_arch = "wasm32", inline(never))]
    /// Admit the jobs arrived by now.
    pub(super) fn admit(&mut self, report: &mut RoundReport) {
        let half = self.cfg.round_len / 2.0;
        while self.next_arrival < self.arrival_order.len() {
            let j = self.arrival_order[self.next_arrival];
            if self.specs[j].arrival > self.now {
                break;
            }
            self.next_arrival += 1;
            self.states[j].admitted = true;
            for t in 0..self.cluster.num_types() {
                let at = self.mech.at(j, t);
                self.mech.job_time[at] = half;
                self.mech.deficits[at] = 0.0;
            }
            self.mech.failures[j] = 0;
            self.mech.admit_seq[j] = self.mech.next_seq;
            self.mech.next_seq += 1;
            if self.traits.packing {
                self.add_pairs(j);
            }
            let pos = self.active.binary_search(&j).unwrap_or_else(|p| p);
            self.active.insert(pos, j);
            self.mech.need_update = true;
            let now = self.now;
            self.emit(report, SimEvent::Admitted { job: j, time: now });
        }
    }

    /// Pair entries of a newly admitted job `j` with every active job of its scale factor
    /// that can share GPUs with it.
    pub(super) fn add_pairs(&mut self, j: JobId) {
        let n = self.cluster.num_types();
        let start = if self.cfg.gavel_compat {
            0.0
        } else {
            self.cfg.round_len / 2.0
        };
        for &o in &self.active {
            if self.specs[o].scale_factor != self.specs[j].scale_factor {
                continue;
            }
            let (a, b) = (o.min(j), o.max(j));
            let rates = self.colocation.rates_row(a, b);
            if rates.iter().any(|&(x, y)| x > 0.0 && y > 0.0) {
                self.mech.pairs.insert(
                    (a, b),
                    PairMech {
                        rates,
                        job_time: vec![start; n],
                        deficits: vec![0.0; n],
                        alloc: None,
                        last_placement: None,
                    },
                );
            }
        }
    }
}
