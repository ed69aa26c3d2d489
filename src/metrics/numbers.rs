//! A run's per-round series as one flat list of numbers, the form in which the page's
//! workers send it (`ui/src/wire.rs`): for each point its start, end, active jobs, running
//! jobs, the number of GPU types and that many busy GPU counts. Times keep their bits;
//! counts are whole numbers, exact in an `f64`.

use super::SeriesPoint;

/// Append `points` to `out`.
pub fn write_series(points: &[SeriesPoint], out: &mut Vec<f64>) {
    for p in points {
        out.extend_from_slice(&[p.start, p.end, p.active as f64, p.running as f64]);
        out.push(p.busy_gpus.len() as f64);
        out.extend(p.busy_gpus.iter().map(|&g| f64::from(g)));
    }
}

/// The `points` series points written from `numbers[at..]` on; None when they are not
/// there: too few numbers, or a count that is not a whole number from 0 to `u32::MAX`.
pub fn read_series(numbers: &[f64], at: usize, points: usize) -> Option<Vec<SeriesPoint>> {
    let mut rest = numbers.get(at..)?;
    let mut out = Vec::with_capacity(points.min(rest.len() / 5));
    for _ in 0..points {
        let (&[start, end, active, running, types], tail) = rest.split_first_chunk::<5>()?;
        let types = count(types)? as usize;
        let busy = tail.get(..types)?;
        out.push(SeriesPoint {
            start,
            end,
            active: count(active)? as usize,
            running: count(running)? as usize,
            busy_gpus: busy.iter().map(|&g| count(g)).collect::<Option<_>>()?,
        });
        rest = &tail[types..];
    }
    Some(out)
}

/// `x` as a count: a whole number from 0 to `u32::MAX`.
fn count(x: f64) -> Option<u32> {
    (x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX)).then_some(x as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn point(start: f64, end: f64, active: usize, running: usize, busy: &[u32]) -> SeriesPoint {
        SeriesPoint {
            start,
            end,
            active,
            running,
            busy_gpus: busy.to_vec(),
        }
    }

    #[test]
    fn two_points_hand_written() {
        let points = [
            point(0.0, 360.0, 3, 2, &[4, 0, 1]),
            point(360.0, 697.5, 1, 1, &[0, 2, 0]),
        ];
        let mut numbers = vec![-1.0];
        write_series(&points, &mut numbers);
        let want = [
            -1.0, 0.0, 360.0, 3.0, 2.0, 3.0, 4.0, 0.0, 1.0, 360.0, 697.5, 1.0, 1.0, 3.0, 0.0, 2.0,
            0.0,
        ];
        assert_eq!(numbers, want);
        assert_eq!(read_series(&numbers, 1, 2).as_deref(), Some(&points[..]));
        assert_eq!(read_series(&numbers, 1, 1).as_deref(), Some(&points[..1]));
        assert_eq!(read_series(&numbers, 17, 0), Some(Vec::new()));
    }

    #[test]
    fn numbers_that_are_not_a_series_are_refused() {
        let mut numbers = Vec::new();
        write_series(&[point(1.0, 2.0, 1, 1, &[1, 1])], &mut numbers);
        // Too few numbers, a start past the end, more points than written.
        assert_eq!(read_series(&numbers[..6], 0, 1), None);
        assert_eq!(read_series(&numbers, 8, 1), None);
        assert_eq!(read_series(&numbers, 0, 2), None);
        // Counts that are negative, fractional, too large or not a number.
        for (i, bad) in [(2, -1.0), (3, 0.5), (4, 1e10), (5, f64::NAN)] {
            let mut n = numbers.clone();
            n[i] = bad;
            assert_eq!(read_series(&n, 0, 1), None, "number {i} = {bad}");
        }
    }

    proptest! {
        #[test]
        fn a_series_reads_back_to_the_bit(
            raw in prop::collection::vec(
                (any::<f64>(), any::<f64>(), any::<u32>(), any::<u32>(),
                 prop::collection::vec(any::<u32>(), 0..5)),
                0..40,
            ),
            lead in 0usize..3,
        ) {
            let points: Vec<SeriesPoint> = raw
                .into_iter()
                .map(|(s, e, a, r, b)| point(s, e, a as usize, r as usize, &b))
                .collect();
            let mut numbers = vec![0.0; lead];
            write_series(&points, &mut numbers);
            let back = read_series(&numbers, lead, points.len()).expect("the series reads back");
            prop_assert_eq!(back.len(), points.len());
            for (b, p) in back.iter().zip(&points) {
                prop_assert_eq!(b.start.to_bits(), p.start.to_bits());
                prop_assert_eq!(b.end.to_bits(), p.end.to_bits());
                prop_assert_eq!((b.active, b.running, &b.busy_gpus), (p.active, p.running, &p.busy_gpus));
            }
        }
    }
}
