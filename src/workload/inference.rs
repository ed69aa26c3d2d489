//! Inference load: how many inference servers the serving side needs over time (Aryl). The
//! servers it does not need can be loaned to training.
//!
//! A [`LoadCurve`] is a step function of time: each point holds from its time until the
//! next point's; past the last point the curve repeats with its period. It comes from a CSV
//! (`time_s,servers`) or from [`diurnal`], a day-shaped curve with a peak in the afternoon,
//! a trough at night and seeded noise.

use super::csv::records;
use super::{parse_nonneg, WorkloadError};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Servers needed by inference over time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadCurve {
    /// (time in seconds, servers needed), by increasing time, the first at 0.
    pub points: Vec<(f64, f64)>,
    /// The curve repeats after this many seconds.
    pub period_s: f64,
}

/// Settings of the bundled diurnal curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiurnalConfig {
    /// Share of the inference servers busy at the daily peak (0..1).
    pub peak: f64,
    /// Share busy at the nightly trough (0..1, at most `peak`).
    pub trough: f64,
    /// Standard deviation of the noise, as a share of the inference servers.
    #[serde(default)]
    pub noise: f64,
    /// Seconds between points.
    #[serde(default = "default_step")]
    pub step_s: f64,
    /// Days before the curve repeats (noise differs from day to day within them).
    #[serde(default = "one_day")]
    pub days: u32,
    /// Seed of the noise.
    #[serde(default)]
    pub seed: u64,
}

fn default_step() -> f64 {
    300.0
}
fn one_day() -> u32 {
    1
}

impl Default for DiurnalConfig {
    fn default() -> Self {
        DiurnalConfig {
            peak: 0.9,
            trough: 0.3,
            noise: 0.03,
            step_s: 300.0,
            days: 7,
            seed: 0,
        }
    }
}

const DAY_S: f64 = 86_400.0;

/// A day-shaped demand for `servers` inference servers: a raised cosine between `trough`
/// (at 04:00) and `peak` (at 16:00), plus Gaussian noise, rounded up to whole servers and
/// kept within 0..=servers.
pub fn diurnal(cfg: &DiurnalConfig, servers: u32) -> Result<LoadCurve, WorkloadError> {
    let name = "diurnal load";
    let ok_share = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
    if !ok_share(cfg.peak) || !ok_share(cfg.trough) || cfg.trough > cfg.peak {
        return Err(WorkloadError::file(
            name,
            "peak and trough are shares in [0, 1] with trough <= peak",
        ));
    }
    if !(cfg.noise.is_finite() && (0.0..=1.0).contains(&cfg.noise)) {
        return Err(WorkloadError::file(name, "noise is a share in [0, 1]"));
    }
    if !(cfg.step_s.is_finite() && cfg.step_s >= 60.0 && cfg.step_s <= DAY_S) {
        return Err(WorkloadError::file(
            name,
            "step_s must be between 60 and 86,400",
        ));
    }
    if cfg.days == 0 || cfg.days > 366 {
        return Err(WorkloadError::file(name, "days must be between 1 and 366"));
    }
    let mut rng = Rng::for_purpose(cfg.seed, "inference-load");
    let n = f64::from(servers);
    let period = DAY_S * f64::from(cfg.days);
    let mut points = Vec::new();
    let mut t = 0.0;
    while t < period {
        let hour = (t % DAY_S) / 3600.0;
        // Raised cosine: trough at 04:00, peak at 16:00.
        let shape = 0.5 - 0.5 * crate::math::cos((hour - 4.0) / 24.0 * std::f64::consts::TAU);
        let share = cfg.trough + (cfg.peak - cfg.trough) * shape + cfg.noise * rng.normal();
        points.push((t, (share * n - 1e-9).ceil().clamp(0.0, n)));
        t += cfg.step_s;
    }
    Ok(LoadCurve {
        points,
        period_s: period,
    })
}

impl LoadCurve {
    /// Servers needed at time `t` (s).
    pub fn demand(&self, t: f64) -> f64 {
        let t = if self.period_s > 0.0 {
            t.rem_euclid(self.period_s)
        } else {
            t
        };
        let i = self.points.partition_point(|p| p.0 <= t);
        self.points.get(i.saturating_sub(1)).map_or(0.0, |p| p.1)
    }

    /// Read `time_s,servers` rows (a header, then times increasing from 0). The period is
    /// the last time plus the step before it (or one day for a single point).
    pub fn parse_csv(text: &str, file: &str) -> Result<Self, WorkloadError> {
        let recs = records(text, ',');
        let header = recs
            .first()
            .ok_or_else(|| WorkloadError::file(file, "empty load curve"))?;
        let col = |n: &str| header.fields.iter().position(|h| h.trim() == n);
        let (Some(ct), Some(cs)) = (col("time_s"), col("servers")) else {
            let missing = if col("time_s").is_none() {
                "time_s"
            } else {
                "servers"
            };
            return Err(WorkloadError::field(
                file,
                header.line,
                missing,
                "missing column",
            ));
        };
        let mut points: Vec<(f64, f64)> = Vec::new();
        for r in &recs[1..] {
            let get = |i: usize, n: &str| {
                r.fields
                    .get(i)
                    .ok_or_else(|| WorkloadError::field(file, r.line, n, "missing value"))
            };
            let t = parse_nonneg(file, r.line, "time_s", get(ct, "time_s")?)?;
            let s = parse_nonneg(file, r.line, "servers", get(cs, "servers")?)?;
            if let Some(last) = points.last() {
                if t <= last.0 {
                    return Err(WorkloadError::field(
                        file,
                        r.line,
                        "time_s",
                        format!("{t} does not increase"),
                    ));
                }
            } else if t != 0.0 {
                return Err(WorkloadError::field(
                    file,
                    r.line,
                    "time_s",
                    "the first point must be at 0",
                ));
            }
            points.push((t, s));
        }
        let period = match points.as_slice() {
            [] => return Err(WorkloadError::file(file, "no points")),
            [_] => DAY_S,
            [.., a, b] => b.0 + (b.0 - a.0),
        };
        Ok(LoadCurve {
            points,
            period_s: period,
        })
    }

    /// Largest demand on the curve.
    pub fn peak(&self) -> f64 {
        self.points.iter().map(|p| p.1).fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_step_function_and_period() {
        let c = LoadCurve::parse_csv("time_s,servers\n0,4\n3600,6\n7200,2\n", "l.csv").unwrap();
        assert_eq!(c.period_s, 10_800.0);
        assert_eq!(c.demand(0.0), 4.0);
        assert_eq!(c.demand(3599.0), 4.0);
        assert_eq!(c.demand(3600.0), 6.0);
        assert_eq!(c.demand(9000.0), 2.0);
        assert_eq!(c.demand(10_800.0 + 4000.0), 6.0);
        assert_eq!(c.peak(), 6.0);
        let e = LoadCurve::parse_csv("time_s,servers\n0,4\n0,5\n", "l.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "l.csv:3: field 'time_s': 0 does not increase"
        );
        let e = LoadCurve::parse_csv("time_s,servers\n0,x\n", "l.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "l.csv:2: field 'servers': 'x' is not a number"
        );
    }

    #[test]
    fn diurnal_peaks_in_the_afternoon_and_stays_in_range() {
        let cfg = DiurnalConfig {
            noise: 0.0,
            days: 1,
            ..DiurnalConfig::default()
        };
        let c = diurnal(&cfg, 100).unwrap();
        assert_eq!(c.demand(16.0 * 3600.0), 90.0);
        assert_eq!(c.demand(4.0 * 3600.0), 30.0);
        let noisy = diurnal(&DiurnalConfig::default(), 100).unwrap();
        assert!(noisy.points.iter().all(|p| (0.0..=100.0).contains(&p.1)));
        assert_eq!(noisy, diurnal(&DiurnalConfig::default(), 100).unwrap());
        assert!(diurnal(&DiurnalConfig { peak: 0.2, ..cfg }, 10).is_err());
    }
}
