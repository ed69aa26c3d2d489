//! The bundled DL2 networks (`traces/dl2_weights.json`) and where they come from: one for
//! Orrery's slot world (trained by `orrery dl2 train --preset dl2`) and one for
//! DL2-compatible mode (trained on DL2's generator in DL2's world), each a weights file
//! ([`crate::nn`]) under its [`World`]'s key:
//!
//! ```json
//! {"format": "orrery-dl2-networks", "version": 1,
//!  "networks": {"slots": {...}, "dl2_compat": {...}}}
//! ```
//!
//! Native builds carry the file. The web page does not: it is some 200 KB of the page's
//! gzip'd module that only parameter-server experiments use, so the page fetches the file
//! when one first runs and hands it over with [`provide`] (on its thread and in each worker
//! it starts). Resolving an experiment never needs the weights, only their shape
//! ([`World::shape`], which a test checks against the file), so a parameter-server
//! experiment resolves, shows and travels in a link before the file arrives.

use crate::nn::Mlp;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The bundle's format name.
pub const FORMAT: &str = "orrery-dl2-networks";

/// The world a bundled network was trained in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    /// Orrery's slot mechanism (the `dl2` scenario's world).
    Slots,
    /// DL2-compatible mode (DL2's simulator's world).
    Dl2Compat,
}

impl World {
    /// Both, in the file's order.
    pub const ALL: [World; 2] = [World::Slots, World::Dl2Compat];

    /// The world of an experiment in DL2-compatible mode or not.
    pub fn of(dl2_compat: bool) -> World {
        if dl2_compat {
            World::Dl2Compat
        } else {
            World::Slots
        }
    }

    /// Its one of a pair in [`Self::ALL`]'s order.
    pub fn pick<T>(self, [slots, compat]: [T; 2]) -> T {
        match self {
            World::Slots => slots,
            World::Dl2Compat => compat,
        }
    }

    /// Its key in the file.
    pub fn key(self) -> &'static str {
        match self {
            World::Slots => "slots",
            World::Dl2Compat => "dl2_compat",
        }
    }

    /// The network's inputs and outputs: a window of 10 jobs (Orrery's world) or 20 (DL2's
    /// base-scale window) of 8 job types, 17 numbers each, in; 3 actions per job and "stop"
    /// out.
    pub fn shape(self) -> (usize, usize) {
        let window = match self {
            World::Slots => 10,
            World::Dl2Compat => 20,
        };
        (window * (8 + super::learned::JOB_NUMBERS), 3 * window + 1)
    }
}

/// The file's name, beside the page in the web build.
pub const FILE: &str = "dl2_weights.json";

/// The file's text, when the build carries it.
#[cfg(not(target_arch = "wasm32"))]
pub const EMBEDDED: Option<&str> = Some(include_str!("../../../traces/dl2_weights.json"));
/// The file's text, when the build carries it (the web build does not).
#[cfg(target_arch = "wasm32")]
pub const EMBEDDED: Option<&str> = None;

thread_local! {
    /// The networks handed over by [`provide`], parsed, in [`World::ALL`]'s order.
    static PROVIDED: RefCell<Option<Rc<[Mlp; 2]>>> = const { RefCell::new(None) };
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn<'a> {
    format: String,
    version: u64,
    #[serde(borrow)]
    networks: BTreeMap<String, &'a RawValue>,
}

/// Read a bundle: each world's network, checked against its shape.
pub fn parse(text: &str) -> Result<[Mlp; 2], String> {
    let err = |e: String| format!("bundled networks: {e}");
    let file: FileIn = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
    if file.format != FORMAT || file.version != 1 {
        return Err(err(format!(
            "format '{}' version {}, expected '{FORMAT}' version 1",
            file.format, file.version
        )));
    }
    if let Some(k) = file
        .networks
        .keys()
        .find(|k| World::ALL.iter().all(|w| w.key() != k.as_str()))
    {
        return Err(err(format!("unknown network '{k}'")));
    }
    let one = |w: World| -> Result<Mlp, String> {
        let raw = file
            .networks
            .get(w.key())
            .ok_or_else(|| err(format!("no '{}' network", w.key())))?;
        let net = Mlp::from_json(raw.get()).map_err(|e| err(format!("{}: {e}", w.key())))?;
        let (i, o) = w.shape();
        if (net.inputs(), net.outputs()) != (i, o) {
            return Err(err(format!(
                "'{}': {} inputs and {} outputs, expected {i} and {o}",
                w.key(),
                net.inputs(),
                net.outputs()
            )));
        }
        Ok(net)
    };
    Ok([one(World::Slots)?, one(World::Dl2Compat)?])
}

/// Write a bundle of `networks` (each a weights file's text), in [`World::ALL`]'s order.
pub fn write(networks: [&str; 2]) -> Result<String, String> {
    #[derive(Serialize)]
    struct FileOut<'a> {
        format: &'a str,
        version: u64,
        networks: BTreeMap<&'a str, &'a RawValue>,
    }
    let mut map = BTreeMap::new();
    let raws = networks
        .iter()
        .map(|t| RawValue::from_string(t.trim().to_string()).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    for (w, raw) in World::ALL.iter().zip(&raws) {
        map.insert(w.key(), raw.as_ref());
    }
    let text = serde_json::to_string(&FileOut {
        format: FORMAT,
        version: 1,
        networks: map,
    })
    .map_err(|e| e.to_string())?;
    parse(&text)?;
    Ok(text)
}

/// Hand over the file's text (the page fetches it); refused unless each network parses
/// and has its world's shape.
pub fn provide(text: &str) -> Result<(), String> {
    let nets = parse(text)?;
    PROVIDED.with(|p| *p.borrow_mut() = Some(Rc::new(nets)));
    Ok(())
}

/// Whether the networks can be built here without waiting for the file.
pub fn available() -> bool {
    EMBEDDED.is_some() || PROVIDED.with(|p| p.borrow().is_some())
}

/// The network of `world`. The embedded file is read once per thread, as if provided.
pub fn network(world: World) -> Result<Mlp, String> {
    if let (Some(text), false) = (EMBEDDED, PROVIDED.with(|p| p.borrow().is_some())) {
        provide(text)?;
    }
    PROVIDED
        .with(|p| {
            let nets = p.borrow();
            nets.as_ref().map(|n| world.pick([&n[0], &n[1]]).clone())
        })
        .ok_or_else(|| format!("the bundled DL2 networks ({FILE}) have not been loaded yet"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::dl2::{build_with, check_with};

    #[test]
    fn the_file_has_the_shapes_resolution_checks_against() {
        let nets = parse(EMBEDDED.unwrap()).unwrap();
        for (w, net) in World::ALL.iter().zip(&nets) {
            assert_eq!((net.inputs(), net.outputs()), w.shape());
        }
        assert!(available());
    }

    #[test]
    fn a_provided_file_must_hold_both_networks_of_their_shapes() {
        let e = provide("{\"format\": \"orrery-mlp\"").unwrap_err();
        assert!(e.starts_with("bundled networks:"), "{e}");
        let mut rng = crate::rng::Rng::new(1);
        let small = Mlp::new(&[14, 8, 31], crate::nn::Activation::Relu, &mut rng).to_json();
        let e = write([&small, &small]).unwrap_err();
        assert!(
            e.contains("'slots': 14 inputs") && e.contains("expected 170"),
            "{e}"
        );
        let e = provide(r#"{"format": "orrery-dl2-networks", "version": 1, "networks": {}}"#)
            .unwrap_err();
        assert!(e.contains("no 'slots' network"), "{e}");
        provide(EMBEDDED.unwrap()).unwrap();
        let nets = parse(EMBEDDED.unwrap()).unwrap();
        assert_eq!(network(World::Slots).unwrap(), nets[0]);
        assert_eq!(network(World::Dl2Compat).unwrap(), nets[1]);
        let again = write([&nets[0].to_json(), &nets[1].to_json()]).unwrap();
        assert_eq!(parse(&again).unwrap(), nets);
    }

    #[test]
    fn checking_without_the_weights_gives_building_s_answers() {
        for compat in [false, true] {
            for types in [8, 5] {
                let built = build_with("dl2", None, types, compat)
                    .map(|_| ())
                    .map_err(|e| e.to_string());
                let spec = crate::policy::Spec::parse("dl2").unwrap();
                let params =
                    crate::policy::registry::checked(&spec, crate::policy::dl2::learned::PARAMS)
                        .unwrap();
                let checked =
                    crate::policy::dl2::learned::Dl2::check_bundled(&params, types, compat)
                        .map_err(|e| e.to_string());
                assert_eq!(built, checked, "{types} job types");
                assert_eq!(
                    check_with("dl2", None, types, compat).map_err(|e| e.to_string()),
                    built
                );
            }
        }
        assert!(check_with("dl2[sample=maybe]", None, 8, false).is_err());
    }
}
