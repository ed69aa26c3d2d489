//! The catalog: every policy of every family in one list, one entry per name.
//!
//! A name means one idea: `tiresias` is Tiresias' two-queue discretised LAS wherever it
//! runs, `fifo` first in, first out. An entry lists the mechanisms that can run it, each
//! with its own implementation, description and parameters: `tiresias` runs in Gavel's
//! rounds (rigid jobs on GPU types) and in Pollux's ticks (elastic jobs at their user's
//! size, as Pollux's evaluation ran it). Which implementation runs is decided by the
//! experiment's mechanism ([`crate::sim::Mechanism`]), never by the name; a name with no
//! implementation for that mechanism is refused with a message naming the policy and what
//! it needs. The CLI, the page and the tests read policies only through this catalog.

use super::papers::Paper;
pub use super::registry::Variant;
use super::registry::{self, build_from, ElasticPolicyInfo, ParamInfo, PolicyInfo, Registered};
use super::spec::{Spec, Split, INTERVAL_KEY};
use super::{aryl, classic, dl2, gavel, pickyman, pollux, sia, PolicyError};
use crate::sim::elastic::contract::ElasticPolicy;
use crate::sim::rounds::contract::Policy;
use crate::sim::{elastic, pooled, preemptive, rounds, slots};
use crate::sim::{BuildError, Mechanism, Setup, Stepper};
use std::sync::OnceLock;

/// The policy whose JCTs are the denominators of finish-time fairness (rho): Gavel's
/// isolated, each job on a static 1/n share of the cluster (round-based experiments).
pub const BASELINE: &str = "isolated";

/// The parameter every policy takes: its own scheduling interval.
pub const INTERVAL: ParamInfo = ParamInfo {
    name: INTERVAL_KEY,
    default: "the experiment's",
    help: "this policy's scheduling interval in seconds (its round, tick or slot) instead of the experiment's, e.g. max_sum_throughput_perf[round_s=360] beside pollux at 60 s",
};

/// How a mechanism's simulation of a policy is built: from the experiment's setup and the
/// policy's spec split into its own and its interval.
pub type Builder = fn(&Setup, &Split) -> Result<Box<dyn Stepper>, BuildError>;

/// One mechanism's implementation of a catalog entry.
#[derive(Debug, Clone, Copy)]
pub struct Implementation {
    /// The mechanism that runs it.
    pub mechanism: Mechanism,
    /// How its simulation is built.
    pub build: Builder,
    /// The paper its idea comes from.
    pub paper: &'static Paper,
    /// The family it comes from (classic, gavel, pollux, aryl, pickyman, dl2).
    pub family: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
    /// The rows the page offers it as beside its own (ablations from its paper).
    pub variants: &'static [Variant],
}

/// Two implementations are the same when they run in the same mechanism, of the same
/// family, with the same description and parameters (builders are functions, compared by
/// their mechanism).
impl PartialEq for Implementation {
    fn eq(&self, other: &Self) -> bool {
        self.mechanism == other.mechanism
            && self.family == other.family
            && self.description == other.description
            && self.params == other.params
            && self.paper == other.paper
    }
}

/// One policy name with every mechanism's implementation of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The name used in specs (`name[key=value,...]`).
    pub name: &'static str,
    /// The implementations, in mechanism order.
    pub implementations: Vec<Implementation>,
    /// The paper its idea comes from.
    pub paper: &'static Paper,
}

impl Entry {
    /// The implementation for `mechanism`, if the policy runs there.
    pub fn for_mechanism(&self, mechanism: Mechanism) -> Option<&Implementation> {
        self.implementations
            .iter()
            .find(|i| i.mechanism == mechanism)
    }

    /// The mechanisms that run it.
    pub fn mechanisms(&self) -> Vec<Mechanism> {
        self.implementations.iter().map(|i| i.mechanism).collect()
    }
}

fn implementations<P: ?Sized + 'static>(
    list: impl IntoIterator<Item = Registered<P>>,
    mechanism: Mechanism,
) -> impl Iterator<Item = (&'static str, Implementation)> {
    list.into_iter().map(move |p| {
        (
            p.name,
            Implementation {
                mechanism,
                build: builder(mechanism),
                paper: p.paper,
                variants: p.variants,
                family: p.family,
                description: p.description,
                params: p.params,
            },
        )
    })
}

/// One row of a policy panel: a spec to tick, with its description and the parameters a
/// person may still set.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The spec of the row (a policy's name or a variant's spec).
    pub spec: &'static str,
    /// The family.
    pub family: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Parameters left to set (those the row does not fix).
    pub params: Vec<ParamInfo>,
    /// The paper of the policy.
    pub paper: &'static Paper,
}

/// The variants of policy `name` (empty for most): those its family's entry lists.
pub fn variants(name: &str) -> &'static [Variant] {
    catalog()
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.implementations.iter().find(|i| !i.variants.is_empty()))
        .map_or(&[], |i| i.variants)
}

/// Keys that some variant of `name` fixes.
fn variant_keys(name: &str) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = variants(name)
        .iter()
        .flat_map(|v| v.fixed.iter().map(|(k, _)| *k))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The rows of the policy panel for an experiment of `mechanism`: every policy it runs, in
/// its family's order, with each policy's variants after it, then the policies another
/// mechanism runs for it ([`runner`]: round-based policies on an elastic workload). A
/// policy whose variants include its plain name is offered as those variants only (their
/// parameters are all the variants fix).
pub fn rows(mechanism: Mechanism) -> Vec<Row> {
    let entries = catalog();
    let others = entries.iter().filter_map(|e| {
        let m = runner(e, mechanism).filter(|&m| m != mechanism)?;
        Some((e.name, *e.for_mechanism(m)?))
    });
    let mut out = Vec::new();
    for (name, imp) in all()
        .filter(|(_, i)| i.mechanism == mechanism)
        .chain(others)
    {
        let vs = variants(name);
        let keys = variant_keys(name);
        let paper = imp.paper;
        let without = |fixed: &[&str]| -> Vec<ParamInfo> {
            imp.params
                .iter()
                .filter(|p| !fixed.contains(&p.name))
                .copied()
                .collect()
        };
        if !vs.iter().any(|v| v.spec == name) {
            out.push(Row {
                spec: name,
                family: imp.family,
                description: imp.description,
                params: imp.params.to_vec(),
                paper,
            });
            for v in vs {
                let fixed: Vec<&str> = v.fixed.iter().map(|(k, _)| *k).collect();
                out.push(Row {
                    spec: v.spec,
                    family: imp.family,
                    description: v.description,
                    params: without(&fixed),
                    paper,
                });
            }
        } else {
            for v in vs {
                out.push(Row {
                    spec: v.spec,
                    family: imp.family,
                    description: v.description,
                    params: without(&keys),
                    paper,
                });
            }
        }
    }
    out
}

/// A boolean parameter's value in canonical form (`true` or `false`), or `None` when the
/// text is not a boolean.
fn boolean(v: &str) -> Option<&'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" | "on" => Some("true"),
        "false" | "no" | "0" | "off" => Some("false"),
        _ => None,
    }
}

/// The panel row `spec` is listed under and the parameters it sets beyond the row's
/// (`key=value,...`): `pickyman[max_preemptions=1,overhead_aware=no]` is the row
/// `pickyman[overhead_aware=false]` with `max_preemptions=1`; `aryl[loaning=true]` is the
/// row `aryl`. A spec that is no row's is its own row, as written.
pub fn row_of(spec: &str) -> (String, String) {
    let Ok((name, kv)) = super::parse_spec(spec) else {
        return (spec.trim().to_string(), String::new());
    };
    let keys = variant_keys(&name);
    let defaults: Vec<ParamInfo> = entry(&name)
        .and_then(|e| e.implementations.first().map(|i| i.params.to_vec()))
        .unwrap_or_default();
    let mut fixed: Vec<(String, &'static str)> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    for (k, v) in &kv {
        if !keys.contains(&k.as_str()) {
            rest.push(format!("{k}={v}"));
            continue;
        }
        let Some(b) = boolean(v) else {
            return (spec.trim().to_string(), String::new());
        };
        let default = defaults
            .iter()
            .find(|p| p.name == k)
            .and_then(|p| boolean(p.default));
        if default != Some(b) {
            fixed.push((k.clone(), b));
        }
    }
    if fixed.is_empty() {
        return (name, rest.join(","));
    }
    let matches = |v: &Variant| {
        v.fixed.len() == fixed.len()
            && fixed
                .iter()
                .all(|(k, b)| v.fixed.iter().any(|(vk, vv)| vk == k && vv == b))
    };
    match variants(&name).iter().find(|v| matches(v)) {
        Some(v) => (v.spec.to_string(), rest.join(",")),
        None => (spec.trim().to_string(), String::new()),
    }
}

/// The policies Gavel's rounds run, every family's list joined (classic, then Gavel's), in
/// listing order.
pub fn policies() -> Vec<PolicyInfo> {
    classic::POLICIES
        .iter()
        .chain(gavel::POLICIES)
        .copied()
        .collect()
}

/// Build a policy of Gavel's rounds from its spec.
pub fn build(spec: &str) -> Result<Box<dyn Policy>, PolicyError> {
    build_from(&policies(), spec)
}

/// [`build`] from a parsed spec.
pub fn build_spec(spec: &Spec) -> Result<Box<dyn Policy>, PolicyError> {
    registry::build_spec(&policies(), spec)
}

/// The policies Pollux's ticks run, every family's list joined (Pollux's, then Sia), in
/// listing order.
pub fn elastic_policies() -> Vec<ElasticPolicyInfo> {
    pollux::POLICIES
        .iter()
        .chain(sia::POLICIES)
        .copied()
        .collect()
}

/// Build a policy of Pollux's ticks from its spec.
pub fn build_elastic(spec: &str) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
    build_from(&elastic_policies(), spec)
}

/// [`build_elastic`] from a parsed spec.
pub fn build_elastic_spec(spec: &Spec) -> Result<Box<dyn ElasticPolicy>, PolicyError> {
    registry::build_spec(&elastic_policies(), spec)
}

/// The builder of `mechanism`'s simulations: the policy built by its family, handed to the
/// mechanism with the setup.
fn builder(mechanism: Mechanism) -> Builder {
    match mechanism {
        Mechanism::Rounds => |setup, split| {
            let policy = build_spec(&split.spec)?;
            Ok(Box::new(rounds::build(setup, policy, split.interval)?))
        },
        Mechanism::Elastic => |setup, split| {
            let policy = build_elastic_spec(&split.spec)?;
            Ok(Box::new(elastic::build(setup, policy, split.interval)?))
        },
        Mechanism::Pooled => |setup, split| {
            let policy = aryl::build_spec(&split.spec)?;
            Ok(Box::new(pooled::build(setup, policy, split.interval)?))
        },
        Mechanism::Preemptive => |setup, split| {
            let policy = pickyman::build_spec(&split.spec)?;
            Ok(Box::new(preemptive::build(setup, policy)?))
        },
        Mechanism::Slots => |setup, split| {
            let ps = setup
                .models
                .ps()
                .ok_or_else(|| Setup::missing("parameter-server setup"))?;
            let types = ps.models.models.len();
            let policy = dl2::build_with_spec(
                &split.spec,
                ps.network.as_deref(),
                types,
                setup.sim.dl2_compat,
            )?;
            Ok(Box::new(slots::build(setup, policy, split.interval)?))
        },
    }
}

/// The implementation that runs `spec` in an experiment of `mechanism` ([`runner`]), or why
/// none does.
pub fn implementation(spec: &Spec, mechanism: Mechanism) -> Result<Implementation, PolicyError> {
    let e = entry(&spec.name).ok_or_else(|| PolicyError::Unknown(spec.name.clone()))?;
    let m = runner(e, mechanism).ok_or_else(|| unsupported(e, mechanism))?;
    e.for_mechanism(m)
        .copied()
        .ok_or_else(|| unsupported(e, mechanism))
}

/// A policy's spec from its panel row and the parameters typed beside it: the inverse of
/// [`row_of`]. A row that is itself a spec with parameters (`pickyman[overhead_aware=false]`)
/// takes the others inside its brackets.
pub fn spec_of_row(row: &str, params: &str) -> String {
    let params = params.trim();
    if params.is_empty() {
        row.to_string()
    } else if let Some(head) = row.strip_suffix(']') {
        format!("{head},{params}]")
    } else {
        format!("{row}[{params}]")
    }
}

/// Every implementation with its policy's name, mechanism by mechanism.
fn all() -> impl Iterator<Item = (&'static str, Implementation)> {
    implementations(policies(), Mechanism::Rounds)
        .chain(implementations(elastic_policies(), Mechanism::Elastic))
        .chain(implementations(
            aryl::policies().iter().copied(),
            Mechanism::Pooled,
        ))
        .chain(implementations(
            pickyman::policies().iter().copied(),
            Mechanism::Preemptive,
        ))
        .chain(implementations(
            dl2::policies().iter().copied(),
            Mechanism::Slots,
        ))
}

/// Every policy, in listing order (the order of first appearance over the mechanisms:
/// rounds, elastic, pooled, preemptive, slots).
/// The families' lists are joined once, on first use.
pub fn catalog() -> &'static [Entry] {
    static CATALOG: OnceLock<Vec<Entry>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut out: Vec<Entry> = Vec::new();
        for (name, imp) in all() {
            match out.iter_mut().find(|e| e.name == name) {
                Some(e) => e.implementations.push(imp),
                None => out.push(Entry {
                    name,
                    implementations: vec![imp],
                    paper: imp.paper,
                }),
            }
        }
        out
    })
}

/// The entry named `name` (case-insensitive), if any.
pub fn entry(name: &str) -> Option<&'static Entry> {
    let name = name.trim().to_ascii_lowercase();
    catalog().iter().find(|e| e.name == name)
}

/// Every mechanism some policy runs in, in mechanism order.
pub fn mechanisms() -> Vec<Mechanism> {
    Mechanism::ALL
        .into_iter()
        .filter(|&m| all().any(|(_, i)| i.mechanism == m))
        .collect()
}

/// The names of the policies `mechanism` runs, in its family's listing order.
pub fn names_for(mechanism: Mechanism) -> Vec<&'static str> {
    all()
        .filter(|(_, i)| i.mechanism == mechanism)
        .map(|(name, _)| name)
        .collect()
}

/// The mechanisms that can run the jobs of an experiment of `mechanism`, in the order a
/// policy's implementations are tried: the experiment's own first. Every experiment but a
/// parameter-server one has rigid jobs (elastic jobs run rigid at their user's size and
/// batch, [`crate::workload::rigid`]; an inference pool's experiment runs its training
/// pool), which Gavel's rounds, PickyMan's events and Pollux's ticks all run (rigid jobs in
/// ticks: [`crate::workload::as_elastic`]); so do parameter-server jobs, as rigid jobs of a
/// stated size ([`crate::workload::ps_rigid`]).
pub fn mechanisms_for(mechanism: Mechanism) -> &'static [Mechanism] {
    use Mechanism::*;
    match mechanism {
        Rounds => &[Rounds, Preemptive, Elastic],
        Elastic => &[Elastic, Rounds, Preemptive],
        Pooled => &[Pooled, Rounds, Preemptive, Elastic],
        Preemptive => &[Preemptive, Rounds, Elastic],
        Slots => &[Slots, Rounds, Preemptive, Elastic],
    }
}

/// The mechanism that runs policy `e` in an experiment of `mechanism`: the first of
/// [`mechanisms_for`] it has an implementation for (its own when it has one: `las` in a
/// preemptive experiment is PickyMan's preemptive LAS, in any other Gavel's round-based
/// one); `None` when nothing runs it.
pub fn runner(e: &Entry, mechanism: Mechanism) -> Option<Mechanism> {
    mechanisms_for(mechanism)
        .iter()
        .copied()
        .find(|&m| e.for_mechanism(m).is_some())
}

/// The names of every policy an experiment of `mechanism` can run: its own mechanism's
/// first, in its family's order, then the others in catalog order.
pub fn runnable_names(mechanism: Mechanism) -> Vec<&'static str> {
    let mut out = names_for(mechanism);
    for e in catalog() {
        if runner(e, mechanism).is_some() && !out.contains(&e.name) {
            out.push(e.name);
        }
    }
    out
}

/// [`runner`] for a spec: the mechanism that runs it in an experiment of `mechanism`, or
/// why nothing does.
pub fn runner_of(spec: &str, mechanism: Mechanism) -> Result<Mechanism, PolicyError> {
    Ok(implementation(&Spec::parse(spec)?, mechanism)?.mechanism)
}

/// Check that `spec` names a policy that an experiment of `mechanism` can run (see
/// [`runner`]), with parameters it knows: an unknown name, a name only other mechanisms
/// run (the message says which and what they need) and a bad parameter are refused. The
/// spec is parsed once.
pub fn check(spec: &str, mechanism: Mechanism) -> Result<(), PolicyError> {
    let parsed = Spec::parse(spec)?;
    let imp = implementation(&parsed, mechanism)?;
    let name = parsed.name.clone();
    let split = parsed.split()?;
    if split.interval.is_some() && imp.mechanism == Mechanism::Preemptive {
        return Err(PolicyError::Param {
            policy: name,
            param: INTERVAL.name.into(),
            reason: "the preemptive mechanism is event-driven: it has no interval".into(),
        });
    }
    let spec = &split.spec;
    match imp.mechanism {
        Mechanism::Rounds => build_spec(spec).map(drop),
        Mechanism::Elastic => build_elastic_spec(spec).map(drop),
        Mechanism::Pooled => aryl::build_spec(spec).map(drop),
        Mechanism::Preemptive => pickyman::build_spec(spec).map(drop),
        Mechanism::Slots => dl2::check_spec(spec),
    }
}

fn unsupported(e: &Entry, mechanism: Mechanism) -> PolicyError {
    let runs: Vec<String> = e
        .implementations
        .iter()
        .map(|i| format!("{} ({})", i.mechanism.name(), i.mechanism.needs()))
        .collect();
    PolicyError::Unsupported {
        policy: e.name.to_string(),
        mechanism: mechanism.name().to_string(),
        runs_in: runs.join("; "),
        alternatives: runnable_names(mechanism).join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_one_entry_and_every_implementation_builds() {
        let all = catalog();
        for (i, e) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|o| o.name != e.name),
                "{} listed twice",
                e.name
            );
            for imp in &e.implementations {
                check(e.name, imp.mechanism)
                    .unwrap_or_else(|err| panic!("{} in {:?}: {err}", e.name, imp.mechanism));
            }
        }
        // The names several families share are one entry each, with one implementation
        // per mechanism.
        let t = entry("tiresias").unwrap();
        assert_eq!(t.mechanisms(), [Mechanism::Rounds, Mechanism::Elastic]);
        let f = entry("FIFO").unwrap();
        assert_eq!(
            f.mechanisms(),
            [Mechanism::Rounds, Mechanism::Preemptive, Mechanism::Slots]
        );
        assert_eq!(entry("pollux").unwrap().mechanisms(), [Mechanism::Elastic]);
    }

    #[test]
    fn round_policies_build_from_their_specs() {
        assert!(matches!(build("nope"), Err(PolicyError::Unknown(_))));
        assert!(matches!(
            build("las[foo=1]"),
            Err(PolicyError::Param { .. })
        ));
        for info in policies() {
            let p = build(info.name).unwrap();
            assert_eq!(p.name(), info.name);
        }
    }

    #[test]
    fn a_policy_of_another_mechanism_is_refused_with_what_it_needs() {
        let err = check("aryl", Mechanism::Elastic).unwrap_err().to_string();
        assert!(err.contains("'aryl'"), "{err}");
        assert!(err.contains("pooled"), "{err}");
        assert!(err.contains("inference pool"), "{err}");
        assert!(err.contains("pollux, tiresias, optimus"), "{err}");
        assert_eq!(
            runner_of("pickyman", Mechanism::Rounds).unwrap(),
            Mechanism::Preemptive
        );
        assert_eq!(
            runner_of("las", Mechanism::Rounds).unwrap(),
            Mechanism::Rounds
        );
        // Parameter-server jobs run in the other mechanisms as rigid jobs; DL2's network
        // reads parameter-server jobs only.
        assert_eq!(
            runner_of("max_min_fairness_perf", Mechanism::Slots).unwrap(),
            Mechanism::Rounds
        );
        let err = check("dl2", Mechanism::Rounds).unwrap_err().to_string();
        assert!(err.contains("slots"), "{err}");
        assert!(err.contains("parameter-server jobs"), "{err}");
        // Round-based policies run an elastic workload rigid; the elastic form of a name
        // comes first.
        check("max_min_fairness_perf", Mechanism::Elastic).unwrap();
        assert_eq!(
            runner_of("max_min_fairness_perf", Mechanism::Elastic).unwrap(),
            Mechanism::Rounds
        );
        assert_eq!(
            runner_of("tiresias", Mechanism::Elastic).unwrap(),
            Mechanism::Elastic
        );
        assert_eq!(
            runner_of("pickyman", Mechanism::Elastic).unwrap(),
            Mechanism::Preemptive
        );
        assert_eq!(
            runner_of("pickyman", Mechanism::Slots).unwrap(),
            Mechanism::Preemptive
        );
        // Rigid jobs run in every mechanism but DL2's slots: Pollux takes a round-based
        // workload in its ticks, round-based policies a preemptive or pooled experiment's.
        assert_eq!(
            runner_of("pollux", Mechanism::Rounds).unwrap(),
            Mechanism::Elastic
        );
        assert_eq!(
            runner_of("max_min_fairness_perf", Mechanism::Preemptive).unwrap(),
            Mechanism::Rounds
        );
        assert_eq!(
            runner_of("las", Mechanism::Preemptive).unwrap(),
            Mechanism::Preemptive
        );
        assert_eq!(
            runner_of("pickyman", Mechanism::Pooled).unwrap(),
            Mechanism::Preemptive
        );
        assert!(runner_of("aryl", Mechanism::Rounds).is_err());
        assert!(runner_of("dl2", Mechanism::Rounds).is_err());
        assert!(matches!(
            check("nope", Mechanism::Rounds),
            Err(PolicyError::Unknown(_))
        ));
        assert!(matches!(
            check("tiresias[queues=3]", Mechanism::Elastic),
            Err(PolicyError::Param { .. })
        ));
        check("tiresias[queues=3]", Mechanism::Rounds).unwrap();
    }

    #[test]
    fn variants_are_rows_of_their_own_and_specs_find_their_row() {
        let pooled = rows(Mechanism::Pooled);
        let specs: Vec<&str> = pooled.iter().map(|r| r.spec).collect();
        assert_eq!(
            specs[..4],
            [
                "aryl",
                "aryl[loaning=false]",
                "aryl[elastic=false]",
                "aryl[elastic=false,loaning=false]"
            ]
        );
        assert!(pooled[..4].iter().all(|r| r.params.is_empty()));
        // The rigid mechanisms' policies follow (the training pool's jobs run there).
        assert!(specs[4..].contains(&"las") && specs[4..].contains(&"pickyman"));
        assert!(specs[4..].contains(&"pollux"));
        let pre = rows(Mechanism::Preemptive);
        let specs: Vec<&str> = pre.iter().map(|r| r.spec).collect();
        assert_eq!(
            specs[..5],
            [
                "pickyman",
                "pickyman[overhead_aware=false]",
                "srtf",
                "las",
                "fifo"
            ]
        );
        // Then the round-based policies whose names PickyMan's family does not take, and
        // Pollux (rigid jobs in ticks).
        assert!(specs[5..].contains(&"max_min_fairness_perf") && specs[5..].contains(&"pollux"));
        assert!(!specs[5..].contains(&"las"));
        assert!(pre[0].params.iter().any(|p| p.name == "overhead_aware"));
        assert!(pre[1].params.iter().all(|p| p.name != "overhead_aware"));
        // A round-based experiment also offers Pollux and Sia (rigid jobs in ticks) and
        // PickyMan (and its blind form), which runs the rigid jobs in its own mechanism.
        let round_rows: Vec<&str> = rows(Mechanism::Rounds).iter().map(|r| r.spec).collect();
        assert_eq!(round_rows.len(), policies().len() + 4);
        assert!(round_rows.contains(&"pollux") && round_rows.contains(&"sia"));
        assert_eq!(
            round_rows[round_rows.len() - 2..],
            ["pickyman", "pickyman[overhead_aware=false]"]
        );
        // An elastic experiment offers Pollux's three and Sia, then every round-based
        // policy whose name they do not take, then PickyMan and its blind form.
        let elastic: Vec<&str> = rows(Mechanism::Elastic).iter().map(|r| r.spec).collect();
        assert_eq!(elastic[..4], ["pollux", "tiresias", "optimus", "sia"]);
        assert_eq!(elastic.len(), 4 + policies().len() - 2 + 2);
        assert_eq!(
            elastic[elastic.len() - 2..],
            ["pickyman", "pickyman[overhead_aware=false]"]
        );
        assert!(elastic.contains(&"max_min_fairness_perf") && elastic.contains(&"las"));
        for (spec, row, rest) in [
            ("aryl", "aryl", ""),
            ("aryl[loaning=no]", "aryl[loaning=false]", ""),
            ("aryl[loaning=true,elastic=off]", "aryl[elastic=false]", ""),
            (
                "aryl[elastic=0,loaning=false]",
                "aryl[elastic=false,loaning=false]",
                "",
            ),
            ("aryl[loaning=maybe]", "aryl[loaning=maybe]", ""),
            (
                "pickyman[overhead_aware=false,max_preemptions=1]",
                "pickyman[overhead_aware=false]",
                "max_preemptions=1",
            ),
            (
                "pickyman[max_preemptions=1]",
                "pickyman",
                "max_preemptions=1",
            ),
            ("pickyman[overhead_aware=true]", "pickyman", ""),
            (
                "tiresias[threshold_gpu_h=8]",
                "tiresias",
                "threshold_gpu_h=8",
            ),
            ("las", "las", ""),
        ] {
            assert_eq!(row_of(spec), (row.to_string(), rest.to_string()), "{spec}");
            // A row and its parameters give the spec back (as a spec that names the same
            // row and parameters).
            assert_eq!(
                row_of(&spec_of_row(row, rest)),
                (row.to_string(), rest.to_string()),
                "{spec}"
            );
        }
    }

    #[test]
    fn every_entry_and_row_has_its_paper() {
        for e in catalog() {
            let p = e.paper;
            assert!(p.url.starts_with("https://"), "{}: {}", e.name, p.url);
            assert!(!p.title.is_empty() && !p.venue.is_empty(), "{}", e.name);
            assert!((1950..=2030).contains(&p.year), "{}: {}", e.name, p.year);
            // Every implementation of a name says the same paper.
            assert!(e.implementations.iter().all(|i| i.paper == p), "{}", e.name);
        }
        assert_eq!(entry("pollux").unwrap().paper.short, "Pollux");
        assert_eq!(entry("max_min_fairness_perf").unwrap().paper.short, "Gavel");
        assert_eq!(entry("finish_time_fairness").unwrap().paper.short, "Themis");
        assert_eq!(entry("drf").unwrap().paper.year, 2011);
        for m in Mechanism::ALL {
            for r in rows(m) {
                assert!(r.paper.url.starts_with("https://"), "{}", r.spec);
            }
        }
        assert!(rows(Mechanism::Pooled)
            .iter()
            .take(4)
            .all(|r| r.paper.short == "Aryl"));
        assert!(super::super::papers::GAVEL
            .line()
            .contains("(OSDI 2020) https://"));
    }

    #[test]
    fn every_policy_takes_its_own_interval() {
        for bad in ["las[round_s=0]", "las[round_s=x]", "las[round_s=1e9]"] {
            assert!(
                matches!(
                    check(bad, Mechanism::Rounds),
                    Err(PolicyError::Param { .. })
                ),
                "{bad}"
            );
        }
        check("pollux[round_s=30]", Mechanism::Elastic).unwrap();
        check("dl2[round_s=600]", Mechanism::Slots).unwrap();
        assert!(check("pickyman[round_s=60]", Mechanism::Preemptive).is_err());
    }
}
