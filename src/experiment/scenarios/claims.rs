//! The paper presets' claims: the headline comparison of each seed paper, its published
//! number, and the same comparison measured on the preset's results, side by side.

use crate::experiment::Experiment;
use crate::metrics::Summary;
use crate::policy::papers::{self, Paper};

/// The figure a claim compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Average job completion time.
    AvgJct,
    /// Average queueing (waiting) time.
    AvgWait,
}

impl Figure {
    /// Its name in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            Figure::AvgJct => "avg JCT",
            Figure::AvgWait => "avg wait",
        }
    }

    fn of(self, s: &Figures) -> f64 {
        match self {
            Figure::AvgJct => s.avg_jct_s,
            Figure::AvgWait => s.avg_wait_s,
        }
    }
}

/// The figures of one policy's results that claims compare.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures<'a> {
    /// The policy's spec.
    pub policy: &'a str,
    /// Average JCT (s).
    pub avg_jct_s: f64,
    /// Average queueing time (s).
    pub avg_wait_s: f64,
}

impl<'a> From<&'a Summary> for Figures<'a> {
    fn from(s: &'a Summary) -> Self {
        Figures {
            policy: &s.policy,
            avg_jct_s: s.avg_jct_s,
            avg_wait_s: s.avg_wait_s,
        }
    }
}

/// One comparison a paper reports: its policy against a baseline, on one figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Versus {
    /// The baseline's spec in the preset.
    pub baseline: &'static str,
    /// The figure compared.
    pub figure: Figure,
    /// What the paper reports, as it says it (`3.5x lower`, `44.1% lower`).
    pub paper: &'static str,
}

/// A paper's headline comparison, reproduced by a preset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    /// The paper.
    pub paper: &'static Paper,
    /// The policy the paper proposes, as its spec in the preset.
    pub policy: &'static str,
    /// The comparisons.
    pub versus: &'static [Versus],
    /// Where the paper's numbers are (section, figure or abstract) and how its setting
    /// differs from the preset's.
    pub source: &'static str,
}

/// One comparison measured on results.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The comparison.
    pub versus: Versus,
    /// The baseline's figure over the policy's (above 1: the policy is better).
    pub ratio: f64,
}

impl Measured {
    /// `1.53x lower (34.6%)`, or `1.10x higher (-10.0%)`.
    pub fn ours(&self) -> String {
        if self.ratio >= 1.0 {
            format!(
                "{:.2}x lower ({:.1}% lower)",
                self.ratio,
                (1.0 - 1.0 / self.ratio) * 100.0
            )
        } else {
            format!(
                "{:.2}x higher ({:.1}% higher)",
                1.0 / self.ratio,
                (1.0 / self.ratio - 1.0) * 100.0
            )
        }
    }

    /// One line: `avg JCT against max_min_fairness: Gavel reports up to 3.5x lower; here: 1.53x lower (34.6% lower)`.
    pub fn line(&self, claim: &Claim) -> String {
        format!(
            "{} of {} against {}: {} reports {}; here: {}",
            self.versus.figure.name(),
            claim.policy,
            self.versus.baseline,
            claim.paper.short,
            self.versus.paper,
            self.ours()
        )
    }
}

impl Claim {
    /// The comparisons measured on the results' figures (those whose two policies both ran
    /// and have a positive figure).
    pub fn measure(&self, results: &[Figures]) -> Vec<Measured> {
        let find = |p: &str| results.iter().find(|s| s.policy == p);
        self.versus
            .iter()
            .filter_map(|v| {
                let ours = v.figure.of(find(self.policy)?);
                let base = v.figure.of(find(v.baseline)?);
                (ours > 0.0 && base.is_finite()).then(|| Measured {
                    versus: *v,
                    ratio: base / ours,
                })
            })
            .collect()
    }
}

/// A paper's figure against the load: its policy's average JCT and a baseline's as jobs
/// arrive faster, reproduced by a preset's sweep over the generator's arrival rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadClaim {
    /// The paper.
    pub paper: &'static Paper,
    /// The policy the paper proposes, as its spec in the preset.
    pub policy: &'static str,
    /// The baseline's spec in the preset.
    pub baseline: &'static str,
    /// The arrival rates swept (jobs per hour).
    pub rates: &'static [f64],
    /// What the paper reports against the load, as it says it.
    pub paper_says: &'static str,
    /// Where the paper shows it and how its setting differs from the preset's.
    pub source: &'static str,
}

impl LoadClaim {
    /// The baseline's average JCT over the policy's at each rate where both finished a run
    /// with a positive JCT: `(rate, ratio)`, above 1 where the policy is better. `avg` gives
    /// a policy's average JCT at a rate, if it ran there.
    pub fn ratios(&self, avg: impl Fn(&str, f64) -> Option<f64>) -> Vec<(f64, f64)> {
        self.rates
            .iter()
            .filter_map(|&r| {
                let ours = avg(self.policy, r)?;
                let base = avg(self.baseline, r)?;
                (ours > 0.0 && base.is_finite()).then_some((r, base / ours))
            })
            .collect()
    }

    /// One line: the paper's figure and ours, `Gavel reports ...; here: max_min_fairness's
    /// avg JCT over max_min_fairness_perf's: 1.05x at 2 jobs/h, ..., 1.90x at 8 jobs/h`.
    pub fn line(&self, ratios: &[(f64, f64)]) -> String {
        let ours = if ratios.is_empty() {
            "not run yet".to_string()
        } else {
            ratios
                .iter()
                .map(|(r, x)| format!("{x:.2}x at {r} jobs/h"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{} reports {}; here, {}'s avg JCT over {}'s: {ours}",
            self.paper.short, self.paper_says, self.baseline, self.policy
        )
    }
}

/// Gavel: LAS against heterogeneity-aware LAS as the input job rate grows.
pub const GAVEL_LOAD: LoadClaim = LoadClaim {
    paper: &papers::GAVEL,
    policy: "max_min_fairness_perf",
    baseline: "max_min_fairness",
    rates: &[2.0, 4.0, 6.0, 8.0],
    paper_says: "heterogeneity-aware LAS keeps average JCT low up to a higher input job rate than LAS, whose JCT climbs first, and up to 3.5x lower average JCT",
    source: "Gavel, OSDI 2020: section 7.3 (average JCT of LAS and heterogeneity-aware LAS against the input job rate on 36 V100 + 36 P100 + 36 K80) and abstract. Here 400 jobs per rate, jobs 100-300 measured, Orrery's gavel-types estimates.",
};

/// Gavel: heterogeneity-aware LAS against LAS on a loaded heterogeneous cluster.
pub const GAVEL: Claim = Claim {
    paper: &papers::GAVEL,
    policy: "max_min_fairness_perf",
    versus: &[
        Versus {
            baseline: "max_min_fairness",
            figure: Figure::AvgJct,
            paper: "up to 3.5x lower",
        },
    ],
    source: "Gavel, OSDI 2020: abstract (up to 3.5x better average JCT than heterogeneity-agnostic policies) and section 7.3 (LAS against heterogeneity-aware LAS, average JCT against the input job rate, on 36 V100 + 36 P100 + 36 K80). Gavel measures its own throughputs over a long steady-state window of jobs; here 400 jobs, Orrery's gavel-types estimates, jobs 100-300 measured.",
};

/// Pollux against Tiresias and Optimus in its own setting.
pub const POLLUX: Claim = Claim {
    paper: &papers::POLLUX,
    policy: "pollux",
    versus: &[
        Versus {
            baseline: "tiresias",
            figure: Figure::AvgJct,
            paper: "37-50% lower (against both baselines)",
        },
        Versus {
            baseline: "optimus",
            figure: Figure::AvgJct,
            paper: "37-50% lower (against both baselines)",
        },
    ],
    source: "Pollux, OSDI 2021: abstract and section 5 (average JCT 37-50% lower than Tiresias and Optimus+Oracle, even when those are given well-tuned GPU counts and batch sizes) on 16 nodes x 4 GPUs; here Orrery's pollux-apps estimates and 160 generated jobs.",
};

/// Aryl against itself without capacity loaning and elastic scaling.
pub const ARYL: Claim = Claim {
    paper: &papers::ARYL,
    policy: "aryl",
    versus: &[
        Versus {
            baseline: "aryl[elastic=false,loaning=false]",
            figure: Figure::AvgJct,
            paper: "1.50x lower",
        },
        Versus {
            baseline: "aryl[elastic=false,loaning=false]",
            figure: Figure::AvgWait,
            paper: "1.53x lower",
        },
    ],
    source: "Aryl, arXiv 2202.07896 (2022): abstract (1.53x lower average queuing time and 1.50x lower average JCT than the scheduler without capacity loaning or elastic scaling), from 15-day traces of over 50,000 production jobs; here 400 generated jobs on 128 training and 128 inference GPUs.",
};

/// PickyMan against blind preemption.
pub const PICKYMAN: Claim = Claim {
    paper: &papers::PICKYMAN,
    policy: "pickyman",
    versus: &[
        Versus {
            baseline: "pickyman[overhead_aware=false]",
            figure: Figure::AvgWait,
            paper: "10%-92% lower (over its baselines)",
        },
        Versus {
            baseline: "srtf",
            figure: Figure::AvgWait,
            paper: "10%-92% lower (over its baselines)",
        },
        Versus {
            baseline: "las",
            figure: Figure::AvgWait,
            paper: "10%-92% lower (over its baselines)",
        },
    ],
    source: "PickyMan, IPCCC 2022: abstract (average waiting time 10%-92% lower and makespan up to 14% shorter than existing methods), from a small cluster and large-scale simulations; here 400 short generated jobs on 32 V100s.",
};

/// DL2 against DRF and Optimus.
pub const DL2: Claim = Claim {
    paper: &papers::DL2,
    policy: "dl2",
    versus: &[
        Versus {
            baseline: "drf",
            figure: Figure::AvgJct,
            paper: "44.1% lower",
        },
        Versus {
            baseline: "optimus",
            figure: Figure::AvgJct,
            paper: "17.5% lower",
        },
    ],
    source: "DL2, IEEE TPDS 2021 (arXiv 1909.06040): abstract (average JCT 44.1% lower than DRF and 17.5% lower than Optimus) on its Kubernetes/MXNet testbed; here the bundled network on 320 generated parameter-server jobs.",
};

/// What `pick` gives of the bundled scenario whose experiment is `exp`, among those it
/// gives something of.
fn of_scenario<T: ?Sized>(
    exp: &Experiment,
    pick: impl Fn(&super::Scenario) -> Option<&'static T>,
) -> Option<&'static T> {
    super::SCENARIOS
        .iter()
        .filter_map(|s| Some((pick(s)?, s)))
        .find(|(_, s)| s.experiment() == *exp)
        .map(|(t, _)| t)
}

/// The claim of the bundled scenario whose experiment is `exp`, if it has one.
pub fn claim_for(exp: &Experiment) -> Option<&'static Claim> {
    of_scenario(exp, |s| s.claim)
}

/// The figure against the load a bundled scenario reproduces, when `exp` is that
/// scenario's experiment.
pub fn load_claim_for(exp: &Experiment) -> Option<&'static LoadClaim> {
    of_scenario(exp, |s| s.load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::scenarios;

    fn summary(policy: &str, avg_jct_s: f64, avg_wait_s: f64) -> Figures<'_> {
        Figures {
            policy,
            avg_jct_s,
            avg_wait_s,
        }
    }

    #[test]
    fn a_claim_measures_its_comparisons_on_results() {
        let a = summary("max_min_fairness", 200.0, 10.0);
        let b = summary("max_min_fairness_perf", 100.0, 10.0);
        let m = GAVEL.measure(&[a.clone(), b.clone()]);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].ratio, 2.0);
        assert_eq!(m[0].ours(), "2.00x lower (50.0% lower)");
        assert!(m[0]
            .line(&GAVEL)
            .contains("Gavel reports up to 3.5x lower; here: 2.00x"));
        // Worse than the baseline says so; a missing policy drops the comparison.
        let m = GAVEL.measure(&[b, summary("max_min_fairness", 80.0, 1.0)]);
        assert_eq!(m[0].ours(), "1.25x higher (25.0% higher)");
        assert!(GAVEL.measure(&[a]).is_empty());
        let w = ARYL.measure(&[
            summary("aryl", 10.0, 2.0),
            summary("aryl[elastic=false,loaning=false]", 15.0, 3.0),
        ]);
        assert_eq!(w.len(), 2);
        assert_eq!(w[1].versus.figure, Figure::AvgWait);
        assert_eq!(w[1].ratio, 1.5);
    }

    #[test]
    fn every_paper_preset_names_policies_it_runs_and_only_they_claim() {
        let mut n = 0;
        for sc in scenarios::SCENARIOS {
            let exp = sc.experiment();
            assert_eq!(claim_for(&exp), sc.claim, "{}", sc.name);
            let Some(c) = sc.claim else { continue };
            n += 1;
            assert!(exp.policies.iter().any(|p| p == c.policy), "{}", sc.name);
            for v in c.versus {
                assert!(exp.policies.iter().any(|p| p == v.baseline), "{}", sc.name);
            }
            assert!(c.source.contains(&c.paper.year.to_string()), "{}", sc.name);
        }
        assert_eq!(n, 5);
        // And the figures against the load: their policies run, and only their preset has them.
        let mut n = 0;
        for sc in scenarios::SCENARIOS {
            let exp = sc.experiment();
            assert_eq!(load_claim_for(&exp), sc.load, "{}", sc.name);
            let Some(l) = sc.load else { continue };
            n += 1;
            for p in [l.policy, l.baseline] {
                assert!(exp.policies.iter().any(|x| x == p), "{}", sc.name);
            }
            assert!(
                exp.jobs_per_hour().is_some(),
                "{}: a sweep of rates needs a generated workload",
                sc.name
            );
            assert!(l.source.contains(&l.paper.year.to_string()), "{}", sc.name);
        }
        assert_eq!(n, 1);
        // An edited experiment is no longer the preset's.
        let mut exp = scenarios::gavel_paper_experiment();
        exp.seed = 7;
        assert!(claim_for(&exp).is_none());
    }

    #[test]
    fn gavel_paper_preset_has_heterogeneity_aware_las_20_percent_below_las() {
        let mut exp = scenarios::gavel_paper_experiment();
        exp.policies = vec!["max_min_fairness".into(), "max_min_fairness_perf".into()];
        exp.fairness = false;
        let runs = crate::experiment::run(&exp).unwrap();
        let s: Vec<Figures> = runs.iter().map(|r| Figures::from(&r.summary)).collect();
        let m = GAVEL.measure(&s);
        assert!(m[0].ratio >= 1.25, "only {:.3}x", m[0].ratio);
        assert_eq!(runs[0].summary.num_jobs, 200);
    }

    #[test]
    fn a_load_claim_measures_the_baseline_over_the_policy_at_each_rate() {
        let avg = |p: &str, r: f64| match (p, r as u32) {
            ("max_min_fairness_perf", 2) => Some(10.0),
            ("max_min_fairness", 2) => Some(11.0),
            ("max_min_fairness_perf", 4) => Some(20.0),
            ("max_min_fairness", 4) => Some(40.0),
            ("max_min_fairness", 6) => Some(90.0),
            _ => None,
        };
        let r = GAVEL_LOAD.ratios(avg);
        assert_eq!(r, vec![(2.0, 1.1), (4.0, 2.0)]);
        let line = GAVEL_LOAD.line(&r);
        assert!(
            line.starts_with("Gavel reports heterogeneity-aware LAS"),
            "{line}"
        );
        assert!(line.ends_with("max_min_fairness's avg JCT over max_min_fairness_perf's: 1.10x at 2 jobs/h, 2.00x at 4 jobs/h"), "{line}");
        assert!(GAVEL_LOAD.line(&[]).ends_with("not run yet"));
    }
}
