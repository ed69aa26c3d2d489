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
//! count after the trace's end).

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
        Ok(CapacityTrace {
            steps,
            end_s: f.data.len() as f64 * gap,
            prices: f.prices,
        })
    }

    /// A Parcae node trace.
    pub fn parcae(text: &str) -> Result<Self, SpotError> {
        let mut live: i64 = 0;
        let mut steps: Vec<(f64, u32)> = Vec::new();
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
            match ev {
                "add" => live += 1,
                "remove" => live -= 1,
                other => return Err(bad(format!("event '{other}' is neither add nor remove"))),
            }
            if live < 0 {
                return Err(bad("more nodes removed than added".into()));
            }
            let n = u32::try_from(live).map_err(|_| bad("too many nodes".into()))?;
            match steps.last_mut() {
                Some(s) if s.0 == t => s.1 = n,
                _ => steps.push((t, n)),
            }
            last = t;
        }
        let Some(&(end_s, _)) = steps.last() else {
            return Err(SpotError::Format("the trace has no events".into()));
        };
        if steps[0].0 > 0.0 {
            steps.insert(0, (0.0, 0));
        }
        Ok(CapacityTrace {
            steps,
            end_s,
            prices: None,
        })
    }

    /// Instances available at time `t` (the first count before the trace starts, the last
    /// after it ends).
    pub fn at(&self, t: f64) -> u32 {
        let i = self.steps.partition_point(|s| s.0 <= t);
        self.steps[i.saturating_sub(1)].1
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
