//! Isolated: a static `1/n` share of every GPU type per job (divided by the job's scale
//! factor, rows scaled down to sum to at most 1). The baseline of finish-time fairness.

use crate::policy::{Allocation, Decision, Policy, PolicyError, PolicyTraits, PolicyView};
use crate::rng::Rng;

/// The isolated policy.
#[derive(Debug, Clone)]
pub struct Isolated {
    name: String,
}

impl Isolated {
    /// A new isolated policy.
    pub fn new(name: &str) -> Self {
        Isolated { name: name.into() }
    }
}

impl Policy for Isolated {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &PolicyView, _rng: &mut Rng) -> Result<Decision, PolicyError> {
        Ok(Decision::Allocation(Allocation {
            jobs: view.jobs.iter().map(|j| j.id).collect(),
            fractions: super::isolated_fractions(view).into(),
            ..Default::default()
        }))
    }

    fn traits(&self) -> PolicyTraits {
        super::traits(false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::World;
    use super::*;

    #[test]
    fn shares() {
        // 4 GPUs of a, 2 of b, 4 jobs: a 1-GPU job gets 1 of a and 0.5 of b -> row 1.5,
        // scaled to (2/3, 1/3); a 4-GPU job gets 0.25 and 0.125.
        let w = World::new(
            "a:4,b:2",
            &[
                (1, &[1.0, 1.0]),
                (4, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
                (1, &[1.0, 1.0]),
            ],
        );
        let Decision::Allocation(a) = Isolated::new("isolated")
            .decide(&w.view(), &mut Rng::new(0))
            .unwrap()
        else {
            panic!()
        };
        assert!(
            (a.fractions[0][0] - 2.0 / 3.0).abs() < 1e-12
                && (a.fractions[0][1] - 1.0 / 3.0).abs() < 1e-12
        );
        assert!(
            (a.fractions[1][0] - 0.25).abs() < 1e-12 && (a.fractions[1][1] - 0.125).abs() < 1e-12
        );
    }
}
