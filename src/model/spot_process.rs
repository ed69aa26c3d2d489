//! Spot capacity drawn from a process of Orrery's own, for scenarios that need a trace no
//! provider published: each of `instances` instances is held for an exponential time of
//! mean `mean_held_s`, then taken back for an exponential time of mean `mean_away_s`, and
//! so on over `length_s`; every instance starts held. Instance `k` draws from the seed's
//! stream `spot-process-k` alone, so more instances leave the others' histories as they
//! were. The trace is written in Parcae's add/remove CSV ([`SpotProcess::csv`]), which
//! [`super::spot::CapacityTrace::parse`] reads like any published one. An instance taken
//! back in the second another comes back is a removal the count does not show; the reader
//! keeps it ([`super::spot::CapacityTrace::removed`]).

use crate::rng::Rng;

/// The process's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpotProcess {
    /// Instances.
    pub instances: u32,
    /// Mean seconds an instance is held before it is taken back.
    pub mean_held_s: f64,
    /// Mean seconds it stays away.
    pub mean_away_s: f64,
    /// Seconds of trace.
    pub length_s: f64,
}

impl SpotProcess {
    /// The events of the process for `seed`: (whole seconds, added (else removed),
    /// instance), in time order (at one time, removals first, then by instance).
    pub fn events(&self, seed: u64) -> Vec<(u64, bool, u32)> {
        let mut out = Vec::new();
        for k in 0..self.instances {
            out.push((0, true, k));
            let mut rng = Rng::for_purpose(seed, &format!("spot-process-{k}"));
            let mut t = 0.0;
            let mut held = true;
            loop {
                let mean = if held {
                    self.mean_held_s
                } else {
                    self.mean_away_s
                };
                t += rng.exponential(1.0 / mean.max(1.0)).round().max(1.0);
                if t >= self.length_s {
                    break;
                }
                held = !held;
                out.push((t as u64, held, k));
            }
        }
        crate::order::sort_by_key(&mut out, |&(t, add, k)| (t, add, k));
        out
    }

    /// The trace as Parcae's CSV: `time_ms,add|remove,nodeK` lines.
    pub fn csv(&self, seed: u64) -> String {
        let mut s = String::new();
        for (t, add, k) in self.events(seed) {
            let ev = if add { "add" } else { "remove" };
            s.push_str(&format!("{},{ev},node{k}\n", t * 1000));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::spot::CapacityTrace;

    #[test]
    fn the_process_holds_its_share_of_the_time() {
        // Held 6 h, away 2 h on average: three quarters of the instance-hours over a long
        // trace, every instance held at the start.
        let p = SpotProcess {
            instances: 20,
            mean_held_s: 6.0 * 3600.0,
            mean_away_s: 2.0 * 3600.0,
            length_s: 200.0 * 86_400.0,
        };
        let trace = CapacityTrace::parse(&p.csv(7)).expect("a Parcae trace");
        assert_eq!(trace.at(0.0), 20);
        let share = trace.instance_hours() / (20.0 * trace.end_s / 3600.0);
        assert!((share - 0.75).abs() < 0.02, "{share}");
        // Preemptions: about one per 8 h per instance.
        let (drops, lost) = trace.decreases();
        let per = lost as f64 / (20.0 * trace.end_s / 28_800.0);
        assert!(
            (per - 1.0).abs() < 0.05,
            "{drops} drops, {lost} lost: {per}"
        );
        // What it takes back is the count's falls, and 9 instances that go in the second
        // another comes back (the count does not fall for them).
        assert_eq!(trace.decreases(), (11_897, 11_901));
        assert_eq!(trace.removals(), (11_906, 11_910));
        // The same seed gives the same trace; another seed another.
        assert_eq!(p.csv(7), p.csv(7));
        assert_ne!(p.csv(7), p.csv(8));
        // More instances leave the first ones' histories as they were.
        let more = SpotProcess { instances: 21, ..p };
        let first = |e: Vec<(u64, bool, u32)>| -> Vec<(u64, bool, u32)> {
            e.into_iter().filter(|x| x.2 < 20).collect()
        };
        assert_eq!(first(more.events(7)), first(p.events(7)));
    }
}
