//! The metrics' tests: time-weighted bins and numpy's percentiles.

use super::*;

#[test]
fn binned_is_time_weighted() {
    let p = |start: f64, end: f64, active: usize| SeriesPoint {
        start,
        end,
        active,
        running: 0,
        busy_gpus: vec![],
    };
    // 0..10 s at 2, 10..30 s at 5: two bins of 15 s -> (2*10 + 5*5)/15 = 3, then 5.
    let s = [p(0.0, 10.0, 2), p(10.0, 30.0, 5)];
    let b = binned(&s, 2, |x| x.active as f64);
    assert_eq!(b.len(), 2);
    assert!(
        (b[0].0 - 7.5).abs() < 1e-12 && (b[0].1 - 3.0).abs() < 1e-12,
        "{b:?}"
    );
    assert!((b[1].1 - 5.0).abs() < 1e-12);
    assert!(binned(&[], 5, |x| x.active as f64).is_empty());
}

#[test]
fn percentiles_like_numpy() {
    let v = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(percentile(&v, 50.0), 2.5);
    assert!((percentile(&v, 99.0) - 3.97).abs() < 1e-12);
    assert_eq!(percentile(&[], 50.0), 0.0);
}
