//! `orrery policies` and `presets`.

use super::*;

#[derive(serde::Serialize)]
pub(crate) struct ParamJson {
    pub(crate) name: &'static str,
    pub(crate) default: &'static str,
    pub(crate) help: &'static str,
}

/// A catalog entry in `orrery policies --format json`: its first implementation's family,
/// description and parameters, then every mechanism's.
#[derive(serde::Serialize)]
pub(crate) struct PolicyJson {
    pub(crate) name: &'static str,
    pub(crate) family: &'static str,
    pub(crate) description: &'static str,
    pub(crate) params: Vec<ParamJson>,
    pub(crate) mechanisms: Vec<&'static str>,
    pub(crate) implementations: Vec<ImplementationJson>,
    pub(crate) paper: PaperJson,
}

/// A policy's paper in `orrery policies --format json`.
#[derive(serde::Serialize)]
pub(crate) struct PaperJson {
    pub(crate) short: &'static str,
    pub(crate) title: &'static str,
    pub(crate) venue: &'static str,
    pub(crate) year: u16,
    pub(crate) url: &'static str,
}

#[derive(serde::Serialize)]
pub(crate) struct ImplementationJson {
    pub(crate) mechanism: &'static str,
    pub(crate) family: &'static str,
    pub(crate) description: &'static str,
    pub(crate) params: Vec<ParamJson>,
}

pub(crate) fn params_json(params: &'static [policy::ParamInfo]) -> Vec<ParamJson> {
    params
        .iter()
        .map(|q| ParamJson {
            name: q.name,
            default: q.default,
            help: q.help,
        })
        .collect()
}

pub(crate) fn cmd_policies(a: ListArgs) -> CliResult<()> {
    let list = catalog::catalog();
    let text = match a.format {
        ListFormat::Json => {
            let v: Vec<PolicyJson> = list
                .iter()
                .filter_map(|e| {
                    let first = e.implementations.first()?;
                    Some(PolicyJson {
                        name: e.name,
                        family: first.family,
                        description: first.description,
                        params: params_json(first.params),
                        mechanisms: e.mechanisms().iter().map(|m| m.name()).collect(),
                        implementations: e
                            .implementations
                            .iter()
                            .map(|i| ImplementationJson {
                                mechanism: i.mechanism.name(),
                                family: i.family,
                                description: i.description,
                                params: params_json(i.params),
                            })
                            .collect(),
                        paper: PaperJson {
                            short: e.paper.short,
                            title: e.paper.title,
                            venue: e.paper.venue,
                            year: e.paper.year,
                            url: e.paper.url,
                        },
                    })
                })
                .collect();
            to_json(&v)?
        }
        ListFormat::Table => {
            let name_w = list.iter().map(|p| p.name.len()).max().unwrap_or(0).max(6);
            let mech_w = 10;
            let mut s = format!(
                "{:<name_w$}  {:<mech_w$}  FAMILY: DESCRIPTION (parameters: key=default  help)\n",
                "POLICY", "MECHANISM"
            );
            for e in list {
                for (k, i) in e.implementations.iter().enumerate() {
                    s.push_str(&format!(
                        "{:<name_w$}  {:<mech_w$}  {}: {}\n",
                        if k == 0 { e.name } else { "" },
                        i.mechanism.name(),
                        i.family,
                        i.description
                    ));
                    for q in i.params {
                        s.push_str(&format!(
                            "{:name_w$}  {:mech_w$}    {}={}  {}\n",
                            "", "", q.name, q.default, q.help
                        ));
                    }
                }
                s.push_str(&format!(
                    "{:name_w$}  {:mech_w$}  paper: {}\n",
                    "",
                    "",
                    e.paper.line()
                ));
            }
            s.push_str("\nSpecs: `name` or `name[key=value,...]`, e.g. --policy las. A name is one policy; the\nexperiment's mechanism picks its implementation:\n");
            for m in catalog::mechanisms() {
                s.push_str(&format!("  {:<mech_w$}  {}\n", m.name(), m.needs()));
            }
            s
        }
    };
    print_stdout(&text)
}

pub(crate) fn cmd_presets(a: ListArgs) -> CliResult<()> {
    let text = match a.format {
        ListFormat::Json => {
            let bundled = |list: &[presets::Bundled]| -> Vec<serde_json::Value> {
                list.iter()
                    .map(|b| {
                        serde_json::json!({
                            "name": b.name,
                            "description": b.description,
                            "file": b.file,
                            "gpu_types": presets::known_types(b.name),
                        })
                    })
                    .collect()
            };
            let scenarios: Vec<serde_json::Value> = scenarios::SCENARIOS
                .iter()
                .map(|s| {
                    let e = s.experiment();
                    serde_json::json!({
                        "name": s.name,
                        "description": s.description,
                        "cluster": e.cluster,
                        "policies": e.policies,
                    })
                })
                .collect();
            to_json(&serde_json::json!({
                "scenarios": scenarios,
                "traces": bundled(presets::TRACES),
                "profiles": bundled(presets::PROFILES),
                "elastic_profiles": bundled(presets::ELASTIC_PROFILES),
                "ps_profiles": bundled(presets::PS_PROFILES),
            }))?
        }
        ListFormat::Table => {
            let mut s = String::from("Scenarios (--preset NAME):\n");
            let w = scenarios::SCENARIOS
                .iter()
                .map(|s| s.name.len())
                .chain(presets::TRACES.iter().map(|b| b.name.len()))
                .chain(presets::PROFILES.iter().map(|b| b.name.len()))
                .chain(presets::ELASTIC_PROFILES.iter().map(|b| b.name.len()))
                .chain(presets::PS_PROFILES.iter().map(|b| b.name.len()))
                .max()
                .unwrap_or(0);
            for sc in scenarios::SCENARIOS {
                let e = sc.experiment();
                s.push_str(&format!("  {:<w$}  {}\n", sc.name, sc.description));
                s.push_str(&format!(
                    "  {:<w$}  cluster {}; policies: {}\n",
                    "",
                    e.cluster,
                    e.policies.join(", ")
                ));
            }
            s.push_str("\nBundled traces:\n");
            for b in presets::TRACES {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
            }
            s.push_str("\nBundled throughput profiles:\n");
            for b in presets::PROFILES {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
                if let Ok(p) = Profile::parse(b.text, b.file) {
                    s.push_str(&format!(
                        "  {:<w$}  GPU types: {}\n  {:<w$}  job types: {}\n",
                        "",
                        p.gpu_types().join(", "),
                        "",
                        p.job_type_names().join(", ")
                    ));
                }
            }
            s.push_str("\nBundled elastic-application and parameter-server profiles:\n");
            for b in presets::ELASTIC_PROFILES.iter().chain(presets::PS_PROFILES) {
                s.push_str(&format!(
                    "  {:<w$}  {} [{}]\n",
                    b.name, b.description, b.file
                ));
                let types = presets::known_types(b.name);
                s.push_str(&format!(
                    "  {:<w$}  GPU types: {}\n",
                    "",
                    if types.is_empty() {
                        "any one type, at one speed".to_string()
                    } else {
                        types.join(", ")
                    }
                ));
            }
            s
        }
    };
    print_stdout(&text)
}
