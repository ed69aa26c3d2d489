//! DL2's workload generator (its simulator's `trace.py`, with the settings its published
//! runs can use: job types drawn uniformly, arrivals after Google's cluster trace), drawing
//! from numpy's legacy random stream so that a seed gives DL2's own traces.
//!
//! DL2's protocol seeds numpy once (`np.random.seed(seed)`) and then draws its traces one
//! after another; trace `k` of a seed is the `k`-th drawn. A trace draws an offset into
//! the arrival pattern (`randint(5)`), then slot by slot `min(max_per_slot,
//! pattern[(slot + offset) mod 75])` jobs until it has its jobs; each job draws its type
//! (`randint(0, 8)`, DL2's eight models in order) and one uniform number (DL2's epoch
//! estimate error, multiplied by 0: drawn, unused). A job of type `k` trains
//! `int(fraction[k] x max_epochs)` epochs and arrives at the start of its slot.
//!
//! The stream is numpy's legacy `RandomState`: MT19937 seeded by `init_genrand`, a bounded
//! integer by masked rejection of 32-bit words, a uniform from two words (53 bits). The
//! [`rand_mt`] crate gives the words; the two draws are written here because they are
//! numpy's and not the crate's.

use super::ps::PsModels;
use super::{Trace, WorkloadError};
use crate::model::job::JobSpec;
use rand_mt::Mt;
use serde::{Deserialize, Serialize};

/// DL2's eight job types in its order: model name and epochs as a fraction of the scale's
/// `max_epochs` (DL2's `trace.py`).
pub const TYPES: [(&str, f64); 8] = [
    ("resnet-50", 0.3),
    ("vgg-16", 0.96),
    ("resnext-110", 0.05),
    ("inception-bn", 0.54),
    ("seq2seq", 0.95),
    ("cnn-text-classification", 0.46),
    ("dssm", 0.33),
    ("wlm", 0.23),
];

/// Jobs arriving per slot in Google's cluster trace, as DL2's `trace.py` tabulates them
/// for at most 3 arrivals per slot (`arrv_pattern_3`; 75 slots).
const PATTERN_3: [u32; 75] = [
    2, 57, 3, 3, 3, 4, 3, 3, 2, 2, 2, 2, 3, 3, 3, 2, 3, 3, 3, 3, 3, 2, 2, 3, 4, 3, 2, 2, 2, 1, 2,
    2, 2, 2, 2, 2, 3, 3, 1, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 1, 2, 1, 2, 3, 3, 3, 3, 3, 2, 2, 2, 2, 3,
    2, 1, 2, 1, 2, 2, 2, 2, 2, 2, 3, 2,
];

/// The same for at most 5 (`arrv_pattern_5`).
const PATTERN_5: [u32; 75] = [
    4, 10, 5, 4, 5, 6, 5, 4, 3, 3, 4, 3, 4, 5, 5, 4, 5, 5, 5, 5, 4, 3, 3, 4, 6, 4, 3, 3, 3, 2, 3,
    3, 3, 4, 3, 3, 4, 4, 2, 3, 3, 2, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 4, 4,
    3, 2, 4, 2, 3, 3, 4, 3, 3, 3, 4, 3,
];

/// The same for at most 10 (`arrv_pattern_10`).
const PATTERN_10: [u32; 75] = [
    6, 134, 8, 7, 8, 10, 9, 7, 6, 5, 6, 5, 7, 8, 9, 6, 8, 8, 8, 8, 7, 5, 5, 7, 9, 7, 5, 5, 5, 3, 5,
    6, 4, 6, 6, 6, 7, 7, 4, 5, 5, 3, 5, 5, 4, 6, 5, 6, 5, 3, 4, 4, 6, 7, 7, 7, 7, 7, 6, 6, 6, 6, 7,
    6, 4, 6, 4, 5, 4, 6, 5, 6, 5, 7, 6,
];

/// DL2's three scales (its `parameters.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dl2Scale {
    /// 6 nodes, 10 jobs, at most 5 arrivals per slot, 1,000 epochs at most, 300 s slots.
    Testbed,
    /// 96 nodes, 60 jobs, at most 3 arrivals per slot, 30,000 epochs, 1,200 s slots.
    Base,
    /// 500 nodes, 200 jobs, at most 10 arrivals per slot, 30,000 epochs, 1,200 s slots.
    Large,
}

impl Dl2Scale {
    /// Every scale, smallest first.
    pub const ALL: [Dl2Scale; 3] = [Dl2Scale::Testbed, Dl2Scale::Base, Dl2Scale::Large];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Dl2Scale::Testbed => "testbed",
            Dl2Scale::Base => "base",
            Dl2Scale::Large => "large",
        }
    }

    /// The scale of a name.
    pub fn from_name(name: &str) -> Option<Dl2Scale> {
        Self::ALL.into_iter().find(|s| s.name() == name.trim())
    }

    /// DL2's nodes (8 CPU and 8 GPU slots each: 2 GPUs in Orrery's units).
    pub fn nodes(self) -> u32 {
        match self {
            Dl2Scale::Testbed => 6,
            Dl2Scale::Base => 96,
            Dl2Scale::Large => 500,
        }
    }

    /// Jobs per trace.
    pub fn jobs(self) -> usize {
        match self {
            Dl2Scale::Testbed => 10,
            Dl2Scale::Base => 60,
            Dl2Scale::Large => 200,
        }
    }

    /// Slot length (s).
    pub fn slot_s(self) -> f64 {
        match self {
            Dl2Scale::Testbed => 300.0,
            Dl2Scale::Base | Dl2Scale::Large => 1200.0,
        }
    }

    /// Most jobs arriving in one slot.
    pub fn max_per_slot(self) -> u32 {
        match self {
            Dl2Scale::Testbed => 5,
            Dl2Scale::Base => 3,
            Dl2Scale::Large => 10,
        }
    }

    /// The epochs a job's fraction is of.
    pub fn max_epochs(self) -> f64 {
        match self {
            Dl2Scale::Testbed => 1000.0,
            Dl2Scale::Base | Dl2Scale::Large => 30000.0,
        }
    }

    fn pattern(self) -> &'static [u32; 75] {
        match self {
            Dl2Scale::Testbed => &PATTERN_5,
            Dl2Scale::Base => &PATTERN_3,
            Dl2Scale::Large => &PATTERN_10,
        }
    }
}

/// DL2's generator's settings besides the job count and the seed (which the generator's
/// [`super::GeneratorConfig`] holds: the seed is numpy's, 0 to 2^32 - 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dl2Arrivals {
    /// The scale: arrival pattern and job lengths.
    pub scale: Dl2Scale,
    /// Which trace of the seed (0: the first drawn after seeding).
    #[serde(default)]
    pub trace: u32,
}

/// numpy's legacy random stream.
struct NumpyLegacy(Mt);

impl NumpyLegacy {
    fn seeded(seed: u32) -> Self {
        NumpyLegacy(Mt::new(seed))
    }

    /// `randint(0, n)`: masked rejection on 32-bit words (numpy's bounded integers for a
    /// range that fits 32 bits).
    fn below(&mut self, n: u32) -> u32 {
        let max = n - 1;
        if max == 0 {
            return 0;
        }
        let mask = u32::MAX >> max.leading_zeros();
        loop {
            let v = self.0.next_u32() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// `rand()`: 27 and 26 bits of two words as a 53-bit fraction.
    fn uniform(&mut self) -> f64 {
        let a = self.0.next_u32() >> 5;
        let b = self.0.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0
    }
}

/// One drawn job: arrival slot and type (an index into [`TYPES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drawn {
    /// Arrival slot.
    pub slot: u32,
    /// Type, 0-7.
    pub kind: usize,
}

/// Trace `trace` of numpy seed `seed` at `scale` with `jobs` jobs: each job's slot and type.
pub fn draw(scale: Dl2Scale, seed: u32, trace: u32, jobs: usize) -> Vec<Drawn> {
    let mut rng = NumpyLegacy::seeded(seed);
    let mut out = Vec::with_capacity(jobs);
    let pattern = scale.pattern();
    for _ in 0..=trace {
        out.clear();
        let offset = rng.below(5) as usize;
        let mut slot = 0usize;
        // DL2 walks its 75-slot pattern once; a trace of more jobs than that holds wraps
        // around it (DL2 itself refuses such a trace).
        while out.len() < jobs {
            let n = scale
                .max_per_slot()
                .min(pattern[(slot + offset) % pattern.len()]);
            for _ in 0..n {
                if out.len() == jobs {
                    break;
                }
                let kind = rng.below(TYPES.len() as u32) as usize;
                let _estimate_error = rng.uniform();
                out.push(Drawn {
                    slot: slot as u32,
                    kind,
                });
            }
            slot += 1;
        }
    }
    out
}

/// The epochs of a job of type `kind` at `scale`, as DL2 truncates them.
pub fn epochs(scale: Dl2Scale, kind: usize) -> f64 {
    (TYPES[kind].1 * scale.max_epochs()).trunc()
}

/// A DL2 trace for the experiment: `jobs` jobs of trace `arrivals.trace` of numpy seed
/// `seed`, arriving at their slot's start in slots of `slot_s` seconds, of the types of
/// `models` (a DL2 profile folder's, which must name DL2's eight models).
pub fn generate(
    models: &PsModels,
    arrivals: Dl2Arrivals,
    seed: u64,
    jobs: usize,
    slot_s: f64,
) -> Result<Trace, WorkloadError> {
    let name = "generated";
    if !(1..=1_000_000).contains(&jobs) {
        return Err(WorkloadError::field(
            name,
            0,
            "num_jobs",
            "must be between 1 and 1,000,000",
        ));
    }
    let seed = u32::try_from(seed).map_err(|_| {
        WorkloadError::field(
            name,
            0,
            "seed",
            "DL2's generator takes numpy's seeds, 0 to 4,294,967,295",
        )
    })?;
    for (model, _) in TYPES {
        if models.index(model).is_none() {
            return Err(WorkloadError::file(
                name,
                format!("DL2's generator draws DL2's eight job types; the profile has no '{model}' (give DL2's profile folder)"),
            ));
        }
    }
    let jobs = draw(arrivals.scale, seed, arrivals.trace, jobs)
        .into_iter()
        .map(|d| {
            JobSpec::new(
                TYPES[d.kind].0,
                f64::from(d.slot) * slot_s,
                epochs(arrivals.scale, d.kind),
            )
        })
        .collect();
    Ok(Trace::from_jobs(name, jobs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_legacy_stream() {
        // The stream is checked against DL2's own traces in tests/dl2_fidelity.rs; here the
        // words and the ranges.
        let mut r = NumpyLegacy::seeded(5489);
        // MT19937's reference first output for init_genrand(5489).
        assert_eq!(r.0.next_u32(), 3_499_211_612);
        let mut r = NumpyLegacy::seeded(1);
        for _ in 0..1000 {
            assert!(r.below(5) < 5);
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn a_trace_has_its_jobs_in_slot_order_and_the_cap_holds() {
        for scale in Dl2Scale::ALL {
            let t = draw(scale, 9973, 3, scale.jobs());
            assert_eq!(t.len(), scale.jobs());
            assert!(t.windows(2).all(|w| w[0].slot <= w[1].slot));
            for s in 0..=t.last().unwrap().slot {
                let n = t.iter().filter(|d| d.slot == s).count() as u32;
                assert!(n <= scale.max_per_slot());
            }
        }
        assert_eq!(epochs(Dl2Scale::Base, 4), 28500.0);
        assert_eq!(epochs(Dl2Scale::Testbed, 2), 50.0);
    }
}
