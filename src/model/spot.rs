//! Spot capacity: how many instances of a GPU type can be held over time, read from the
//! published traces ([`CapacityTrace::parse`]).
//!
//! - SkyPilot's spot traces (github.com/skypilot-org/spot-traces, Wu et al., NSDI'24): JSON
//!   `{"metadata": {"gap_seconds": g}, "data": [n0, n1, ...], "prices": [...]}`, where
//!   `data[i]` is the number of instances held (or obtainable) from `i g` seconds for `g`
//!   seconds, and `prices`, when present, the spot price per instance-hour at each tick.
//! - Parcae's node trace (github.com/JF-D/Parcae, Duan et al., NSDI'24): CSV rows
//!   `time_ms,event,node` with `event` `add` or `remove`, no header; the count after the
//!   last event at a time holds until the next time.
//!
//! The trace is a step function: [`CapacityTrace::at`] gives the count at a time (the last
//! count after the trace's end). Each step also says how many instances it takes back
//! ([`CapacityTrace::removed`]): at a step's time its removals take back the highest
//! instances held, then its additions come up above those left, so a removal at the same
//! time as an addition is a machine taken back even when the count does not fall.

use thiserror::Error;

/// Why a capacity trace cannot be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SpotError {
    /// The text is not a trace of a known format.
    #[error("{0}")]
    Format(String),
    /// A line of a Parcae trace is wrong.
    #[error("line {line}: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Instances available over time.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityTrace {
    /// (time from the trace's start in seconds, instances from then on), times increasing.
    pub steps: Vec<(f64, u32)>,
    /// When the trace ends (the last tick's end, or the last event's time).
    pub end_s: f64,
    /// Spot price per instance-hour at each step's time, when the trace has one.
    pub prices: Option<Vec<f64>>,
    /// Instances each step takes back (one per step, as `steps`): the highest of those held
    /// before it go, then its additions come up above the rest, so the count after is the
    /// count before, less these, plus the additions. A SkyPilot trace's are the count's
    /// falls; a Parcae trace's its removals at that time.
    pub removed: Vec<u32>,
}

impl CapacityTrace {
    /// Reads a SkyPilot JSON trace (text starting with `{`) or a Parcae CSV trace.
    pub fn parse(text: &str) -> Result<Self, SpotError> {
        if text.trim_start().starts_with('{') {
            Self::skypilot(text)
        } else {
            Self::parcae(text)
        }
    }

    /// A SkyPilot trace.
    pub fn skypilot(text: &str) -> Result<Self, SpotError> {
        #[derive(serde::Deserialize)]
        struct Meta {
            gap_seconds: f64,
        }
        #[derive(serde::Deserialize)]
        struct File {
            metadata: Meta,
            data: Vec<u32>,
            #[serde(default)]
            prices: Option<Vec<f64>>,
        }
        let f: File = serde_json::from_str(text)
            .map_err(|e| SpotError::Format(format!("not a SkyPilot spot trace: {e}")))?;
        let gap = f.metadata.gap_seconds;
        if !(gap.is_finite() && gap > 0.0) {
            return Err(SpotError::Format(format!(
                "gap_seconds must be a positive number of seconds (got {gap})"
            )));
        }
        if f.data.is_empty() {
            return Err(SpotError::Format("the trace has no data".into()));
        }
        if let Some(p) = &f.prices {
            if p.len() != f.data.len() || p.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(SpotError::Format(
                    "prices must be one non-negative number per data point".into(),
                ));
            }
        }
        let steps = f
            .data
            .iter()
            .enumerate()
            .map(|(i, &n)| (i as f64 * gap, n))
            .collect();
        let removed = std::iter::once(0)
            .chain(f.data.windows(2).map(|w| w[0].saturating_sub(w[1])))
            .collect();
        Ok(CapacityTrace {
            steps,
            end_s: f.data.len() as f64 * gap,
            prices: f.prices,
            removed,
        })
    }

    /// A Parcae node trace. A step's removals are the nodes removed at its time that were
    /// live before it (a node added and removed at the same time is neither).
    pub fn parcae(text: &str) -> Result<Self, SpotError> {
        let mut live: i64 = 0;
        let mut steps: Vec<(f64, u32)> = Vec::new();
        let mut removed: Vec<u32> = Vec::new();
        // The count before the current time and the nodes added at it.
        let mut before: u32 = 0;
        let mut added: Vec<&str> = Vec::new();
        let mut last = f64::NEG_INFINITY;
        for (k, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let bad = |reason: String| SpotError::Line {
                line: k + 1,
                reason,
            };
            let mut cols = line.split(',').map(str::trim);
            let (Some(t), Some(ev)) = (cols.next(), cols.next()) else {
                return Err(bad(format!("'{line}' is not time_ms,event,node")));
            };
            let t: f64 = t
                .parse()
                .map_err(|_| bad(format!("time '{t}' is not a number of milliseconds")))?;
            if !(t.is_finite() && t >= 0.0) {
                return Err(bad(format!("time {t} must be at least 0")));
            }
            let t = t / 1000.0;
            if t < last {
                return Err(bad(format!("time {t} s comes before {last} s")));
            }
            let node = cols.next().unwrap_or("");
            if t != last {
                before = steps.last().map_or(0, |s| s.1);
                added.clear();
                steps.push((t, before));
                removed.push(0);
            }
            let r = removed.last_mut().ok_or_else(|| bad("no step".into()))?;
            match ev {
                "add" => {
                    live += 1;
                    added.push(node);
                }
                "remove" => {
                    live -= 1;
                    // A node added at this time and removed at once takes nothing back;
                    // nor does a removal beyond the nodes live before this time.
                    match added.iter().position(|&a| !a.is_empty() && a == node) {
                        Some(k) => {
                            added.swap_remove(k);
                        }
                        None if *r < before => *r += 1,
                        None => {}
                    }
                }
                other => return Err(bad(format!("event '{other}' is neither add nor remove"))),
            }
            if live < 0 {
                return Err(bad("more nodes removed than added".into()));
            }
            let n = u32::try_from(live).map_err(|_| bad("too many nodes".into()))?;
            if let Some(s) = steps.last_mut() {
                s.1 = n;
            }
            last = t;
        }
        let Some(&(end_s, _)) = steps.last() else {
            return Err(SpotError::Format("the trace has no events".into()));
        };
        if steps[0].0 > 0.0 {
            steps.insert(0, (0.0, 0));
            removed.insert(0, 0);
        }
        Ok(CapacityTrace {
            steps,
            end_s,
            prices: None,
            removed,
        })
    }

    /// Instances available at time `t` (the first count before the trace starts, the last
    /// after it ends).
    pub fn at(&self, t: f64) -> u32 {
        let i = self.steps.partition_point(|s| s.0 <= t);
        self.steps[i.saturating_sub(1)].1
    }

    /// Instances step `i` takes back: its removals, and at least the count's fall there.
    pub fn taken_back(&self, i: usize) -> u32 {
        let fall = match (
            i.checked_sub(1).and_then(|k| self.steps.get(k)),
            self.steps.get(i),
        ) {
            (Some(a), Some(b)) => a.1.saturating_sub(b.1),
            _ => 0,
        };
        self.removed.get(i).copied().unwrap_or(0).max(fall)
    }

    /// Instances held both just before `t` and at `t` (the same machines): the count at
    /// `t`, or fewer when a step at `t` takes back instances (the lowest taken back, whose
    /// place may be filled by additions at that time).
    pub fn kept_at(&self, t: f64) -> u32 {
        let now = self.at(t);
        let i = self.steps.partition_point(|s| s.0 < t);
        match (i.checked_sub(1), self.steps.get(i)) {
            (Some(k), Some(s)) if s.0 == t && self.taken_back(i) > 0 => {
                now.min(self.steps[k].1.saturating_sub(self.taken_back(i)))
            }
            _ => now,
        }
    }

    /// When the count next rises after `t`, if it does.
    pub fn next_rise(&self, t: f64) -> Option<f64> {
        let i = self.steps.partition_point(|s| s.0 <= t);
        let mut now = self.steps[i.saturating_sub(1)].1;
        for &(time, n) in &self.steps[i..] {
            if n > now {
                return Some(time);
            }
            now = n;
        }
        None
    }

    /// How many steps take instances back, and the instances taken back in all (removals
    /// at the time of additions included, which [`CapacityTrace::decreases`] misses).
    pub fn removals(&self) -> (u32, u64) {
        let mut times = 0;
        let mut units = 0;
        for i in 0..self.steps.len() {
            let r = self.taken_back(i);
            if r > 0 {
                times += 1;
                units += u64::from(r);
            }
        }
        (times, units)
    }

    /// How many times the count falls, and the instances lost in all.
    pub fn decreases(&self) -> (u32, u64) {
        let mut times = 0;
        let mut units = 0;
        for w in self.steps.windows(2) {
            if w[1].1 < w[0].1 {
                times += 1;
                units += u64::from(w[0].1 - w[1].1);
            }
        }
        (times, units)
    }

    /// Dollars per instance from `a` to `b` (s) at the trace's prices (the last price after
    /// its end), if it has prices.
    pub fn cost_between(&self, a: f64, b: f64) -> Option<f64> {
        let prices = self.prices.as_ref()?;
        let mut total = 0.0;
        let mut i = self.steps.partition_point(|s| s.0 <= a).saturating_sub(1);
        let mut t = a;
        while t < b && i < self.steps.len() {
            let next = self.steps.get(i + 1).map_or(f64::INFINITY, |s| s.0).min(b);
            total += prices.get(i).copied().unwrap_or(0.0) * (next - t).max(0.0);
            t = next;
            i += 1;
        }
        Some(total / 3600.0)
    }

    /// Instance-hours available from the start to the trace's end.
    pub fn instance_hours(&self) -> f64 {
        let mut total = 0.0;
        for (k, &(t, n)) in self.steps.iter().enumerate() {
            let next = self.steps.get(k + 1).map_or(self.end_s, |s| s.0);
            total += f64::from(n) * (next - t).max(0.0);
        }
        total / 3600.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_costs_the_prices_in_force() {
        let t = CapacityTrace::skypilot(
            r#"{"metadata": {"gap_seconds": 100}, "data": [1, 1, 0], "prices": [1.0, 2.0, 4.0]}"#,
        )
        .unwrap();
        // 50 s at $1 and 50 s at $2 an hour; after the end, the last price.
        assert!((t.cost_between(50.0, 150.0).unwrap() - 150.0 / 3600.0).abs() < 1e-12);
        assert!((t.cost_between(250.0, 400.0).unwrap() - 600.0 / 3600.0).abs() < 1e-12);
        assert_eq!(t.cost_between(10.0, 10.0), Some(0.0));
        let no_prices = CapacityTrace::parcae("0,add,n1\n").unwrap();
        assert_eq!(no_prices.cost_between(0.0, 10.0), None);
    }

    #[test]
    fn a_skypilot_trace_is_a_step_function() {
        let t = CapacityTrace::parse(
            r#"{"metadata": {"gap_seconds": 30}, "data": [0, 2, 2, 1, 0, 3], "prices": [1, 1, 1, 1, 1, 0.5]}"#,
        )
        .unwrap();
        assert_eq!(
            (t.at(0.0), t.at(29.9), t.at(30.0), t.at(95.0), t.at(1e9)),
            (0, 0, 2, 1, 3)
        );
        assert_eq!(t.end_s, 180.0);
        assert_eq!(t.decreases(), (2, 2));
        // What a step takes back is the count's fall; the instances kept are those held.
        assert_eq!(t.removed, vec![0, 0, 0, 1, 1, 0]);
        assert_eq!(t.removals(), t.decreases());
        assert_eq!(
            (
                t.kept_at(30.0),
                t.kept_at(90.0),
                t.kept_at(100.0),
                t.kept_at(150.0)
            ),
            (2, 1, 1, 3)
        );
        assert!((t.instance_hours() - 8.0 * 30.0 / 3600.0).abs() < 1e-12);
        assert_eq!(t.prices.as_ref().map(Vec::len), Some(6));
        assert_eq!(
            (t.next_rise(0.0), t.next_rise(30.0), t.next_rise(150.0)),
            (Some(30.0), Some(150.0), None)
        );
    }

    #[test]
    fn a_parcae_trace_counts_nodes_after_each_time() {
        let text = "0,add,node1\n0,add,node2\n60000,remove,node1\n60000,add,node3\n60000,add,node4\n120000,remove,node2\n";
        let t = CapacityTrace::parse(text).unwrap();
        assert_eq!(t.steps, vec![(0.0, 2), (60.0, 3), (120.0, 2)]);
        assert_eq!(t.decreases(), (1, 1));
        assert_eq!(t.end_s, 120.0);
        // node1 goes at 60 s though the count rises: two removals at two times.
        assert_eq!(t.removed, vec![0, 1, 1]);
        assert_eq!(t.removals(), (2, 2));
        assert_eq!(
            (t.kept_at(60.0), t.kept_at(90.0), t.kept_at(120.0)),
            (1, 3, 2)
        );
    }

    #[test]
    fn a_parcae_removal_at_the_time_of_an_addition_takes_an_instance_back() {
        // At 60 s node b goes and node c comes: the count stays 2 but one instance is taken
        // back (the higher: only instance 0 is kept). At 120 s node d comes and goes at
        // once, which takes nothing back; at 180 s two go and one comes.
        let text = "0,add,a\n0,add,b\n60000,remove,b\n60000,add,c\n120000,add,d\n\
                    120000,remove,d\n180000,add,e\n180000,remove,a\n180000,remove,c\n";
        let t = CapacityTrace::parse(text).unwrap();
        assert_eq!(t.steps, vec![(0.0, 2), (60.0, 2), (120.0, 2), (180.0, 1)]);
        assert_eq!(t.removed, vec![0, 1, 0, 2]);
        assert_eq!(t.decreases(), (1, 1));
        assert_eq!(t.removals(), (2, 3));
        assert_eq!(
            (
                t.kept_at(0.0),
                t.kept_at(60.0),
                t.kept_at(120.0),
                t.kept_at(180.0)
            ),
            (2, 1, 2, 0)
        );
        // Removals of nodes not live take back at most the instances live before their time.
        let odd =
            CapacityTrace::parse("0,add,a\n60000,add,b\n60000,remove,x\n60000,remove,y\n").unwrap();
        assert_eq!(
            (odd.steps.clone(), odd.removed.clone()),
            (vec![(0.0, 1), (60.0, 0)], vec![0, 1])
        );
    }

    #[test]
    fn bad_traces_are_named() {
        for (text, want) in [
            (
                "{\"metadata\": {\"gap_seconds\": 0}, \"data\": [1]}",
                "gap_seconds",
            ),
            (
                "{\"metadata\": {\"gap_seconds\": 5}, \"data\": []}",
                "no data",
            ),
            ("{\"data\": [1]}", "SkyPilot"),
            (
                "{\"metadata\": {\"gap_seconds\": 5}, \"data\": [1, 2], \"prices\": [1]}",
                "prices",
            ),
            ("0,remove,node1\n", "line 1: more nodes removed"),
            ("0,add,a\nx,add,b\n", "line 2: time 'x'"),
            ("0,add,a\n5,boom,b\n", "line 2: event 'boom'"),
            ("1000,add,a\n0,add,b\n", "line 2: time 0 s comes before"),
            ("", "no events"),
        ] {
            let err = CapacityTrace::parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }
}
