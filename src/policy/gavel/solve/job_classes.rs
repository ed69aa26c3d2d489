//! Classes of identical jobs for the structured LP method: jobs with the same scale factor
//! and the same LP coefficients (bit for bit) get the same values from every operation of
//! the method, so it works once per class ([`super::ipm::BlockLp::with_members`]) and gives
//! the same bits as over every job. Gavel's workloads draw jobs from a few dozen job types:
//! the max-min LPs of a 1,500-job continuous run have 24 classes for 92 jobs on average.

/// Jobs grouped into classes of identical ones: equal scale factors and coefficient rows,
/// bit for bit.
pub struct JobClasses {
    /// Each class's first job, in job order.
    pub first: Vec<usize>,
    /// Each job's class.
    pub of: Vec<usize>,
}

impl JobClasses {
    /// Group jobs by scale factor `scale[j]` and coefficient row `coef[j]`.
    pub fn new(scale: &[f64], coef: &[Vec<f64>]) -> JobClasses {
        // Every job's key (its scale factor's and coefficients' bits) in one buffer.
        let mut bits: Vec<u64> = Vec::new();
        let mut ends = Vec::with_capacity(scale.len());
        for (s, row) in scale.iter().zip(coef) {
            bits.push(s.to_bits());
            bits.extend(row.iter().map(|c| c.to_bits()));
            ends.push(bits.len());
        }
        let mut seen: std::collections::BTreeMap<&[u64], usize> = Default::default();
        let mut classes = JobClasses {
            first: Vec::new(),
            of: Vec::with_capacity(scale.len()),
        };
        let mut start = 0;
        for (j, &end) in ends.iter().enumerate() {
            let next = classes.first.len();
            let c = *seen.entry(&bits[start..end]).or_insert(next);
            start = end;
            if c == next {
                classes.first.push(j);
            }
            classes.of.push(c);
        }
        classes
    }

    /// Each class's first job's entry of `per_job`, in class order.
    pub fn firsts<T: Clone>(&self, per_job: &[T]) -> Vec<T> {
        self.first.iter().map(|&j| per_job[j].clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::ipm::BlockLp;
    use super::super::lp;
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn classes_group_identical_jobs_in_first_seen_order() {
        let coef = vec![
            vec![1.0, 2.0],
            vec![3.0, 1.0],
            vec![1.0, 2.0],
            vec![1.0, 2.0],
        ];
        let c = JobClasses::new(&[1.0, 1.0, 1.0, 2.0], &coef);
        assert_eq!(c.first, vec![0, 1, 3]);
        assert_eq!(c.of, vec![0, 1, 0, 2]);
    }

    #[test]
    fn the_method_over_classes_gives_the_bits_of_the_method_over_every_job() {
        // Random worlds of 2-12 job types (1, 2 or 4 GPUs) on 1-4 types, each type
        // repeated 1-8 times in a shuffled order: the max-min LP over classes gives every
        // job the allocation the same method gives it over all the jobs, to the bit.
        let mut rng = Rng::new(11);
        let mut compared = 0;
        let mut reduced = 0;
        for case in 0..200 {
            let types = 1 + rng.below(4) as usize;
            let counts: Vec<f64> = (0..types).map(|_| (1 + rng.below(16)) as f64).collect();
            let kinds = 2 + rng.below(11) as usize;
            let mut scale = Vec::new();
            let mut coef = Vec::new();
            for _ in 0..kinds {
                let s = [1.0, 1.0, 2.0, 4.0][rng.below(4) as usize];
                let row: Vec<f64> = (0..types).map(|_| 0.1 + 3.0 * rng.uniform()).collect();
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(scale.len() as u64 + 1) as usize;
                    scale.insert(at, s);
                    coef.insert(at, row.clone());
                }
            }
            let Some(full) = BlockLp::max_min(&scale, &counts, &coef).solve_lp() else {
                continue;
            };
            let classes = JobClasses::new(&scale, &coef);
            assert!(classes.first.len() <= kinds, "case {case}");
            let by_class = lp::max_min(&scale, &counts, &coef, false).unwrap();
            let bits =
                |x: &[Vec<f64>]| -> Vec<u64> { x.iter().flatten().map(|v| v.to_bits()).collect() };
            assert_eq!(bits(&full), bits(&by_class), "case {case}");
            compared += 1;
            reduced += usize::from(classes.first.len() < scale.len());
        }
        println!("{compared} LPs, {reduced} of them over fewer classes than jobs");
        assert!(compared >= 190 && reduced >= 190, "{compared} {reduced}");
    }
}
