//! The offered load of a workload: its arrivals compressed in time.
//!
//! A load factor `f` moves every arrival `a` to `a0 + (a - a0) / f`, where `a0` is the first
//! arrival: `f = 2` makes the jobs arrive twice as fast (twice the offered load on the same
//! cluster), `f = 0.5` half as fast. Jobs keep their order, sizes and work. For the
//! generator's Poisson arrivals this is the same workload at `f` times the rate (the same
//! draws, each gap divided by `f`); for a trace it keeps the trace's daily and weekly shape,
//! only faster or slower.

use super::{Trace, WorkloadError};

/// Name used in errors about the load factor.
pub const LOAD_FACTOR: &str = "load_factor";

/// The smallest and largest load factors accepted.
pub const LOAD_FACTOR_RANGE: (f64, f64) = (0.001, 1000.0);

/// Check a load factor: a finite number within [`LOAD_FACTOR_RANGE`].
pub fn check_load_factor(f: f64) -> Result<(), WorkloadError> {
    let (lo, hi) = LOAD_FACTOR_RANGE;
    if f.is_finite() && (lo..=hi).contains(&f) {
        Ok(())
    } else {
        Err(WorkloadError::file(
            LOAD_FACTOR,
            format!("{f} must be a factor between {lo} and {hi}"),
        ))
    }
}

/// Compress the trace's arrivals by `factor` about its first arrival (see the module's
/// documentation). A factor of 1 changes nothing.
pub fn scale_arrivals(trace: &mut Trace, factor: f64) -> Result<(), WorkloadError> {
    check_load_factor(factor)?;
    if factor == 1.0 {
        return Ok(());
    }
    let first = trace
        .jobs
        .iter()
        .map(|j| j.arrival)
        .fold(f64::INFINITY, f64::min);
    for j in &mut trace.jobs {
        j.arrival = first + (j.arrival - first) / factor;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::JobSpec;

    fn trace(arrivals: &[f64]) -> Trace {
        Trace {
            name: "t".into(),
            jobs: arrivals
                .iter()
                .map(|&a| JobSpec::new("a", a, 1.0))
                .collect(),
            lines: Vec::new(),
            origin: None,
        }
    }

    fn arrivals(t: &Trace) -> Vec<f64> {
        t.jobs.iter().map(|j| j.arrival).collect()
    }

    #[test]
    fn arrivals_are_compressed_about_the_first() {
        let mut t = trace(&[100.0, 300.0, 100.0, 900.0]);
        scale_arrivals(&mut t, 2.0).unwrap();
        assert_eq!(arrivals(&t), [100.0, 200.0, 100.0, 500.0]);
        scale_arrivals(&mut t, 0.5).unwrap();
        assert_eq!(arrivals(&t), [100.0, 300.0, 100.0, 900.0]);
        let before = t.clone();
        scale_arrivals(&mut t, 1.0).unwrap();
        assert_eq!(t, before);
    }

    #[test]
    fn factors_out_of_range_are_refused() {
        let mut t = trace(&[0.0, 10.0]);
        for f in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e4] {
            let e = scale_arrivals(&mut t, f).unwrap_err().to_string();
            assert!(e.contains("load_factor"), "{e}");
        }
        assert_eq!(arrivals(&t), [0.0, 10.0]);
    }
}
