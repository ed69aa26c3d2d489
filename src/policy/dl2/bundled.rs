//! The bundled DL2 network (`traces/dl2_weights.json`, trained by `orrery dl2 train` with
//! its defaults) and where it comes from.
//!
//! Native builds carry the file. The web page does not: it is 74 KB of the page's gzip'd
//! module that only parameter-server experiments use, so the page fetches the file when one
//! first runs and hands it over with [`provide`] (on its thread and in each worker it
//! starts). Resolving an experiment never needs the weights, only their shape
//! ([`SHAPE`], which a test checks against the file), so a parameter-server experiment
//! resolves, shows and travels in a link before the file arrives.

use crate::nn::Mlp;
use std::cell::RefCell;
use std::rc::Rc;

/// The bundled network's inputs and outputs: a window of 10 jobs of DL2's 8 job types
/// (14 numbers each) in, 3 actions per job and "stop" out.
pub const SHAPE: (usize, usize) = (140, 31);

/// The file's name, beside the page in the web build.
pub const FILE: &str = "dl2_weights.json";

/// The file's text, when the build carries it.
#[cfg(not(target_arch = "wasm32"))]
pub const EMBEDDED: Option<&str> = Some(include_str!("../../../traces/dl2_weights.json"));
/// The file's text, when the build carries it (the web build does not).
#[cfg(target_arch = "wasm32")]
pub const EMBEDDED: Option<&str> = None;

thread_local! {
    /// The network handed over by [`provide`], parsed.
    static PROVIDED: RefCell<Option<Rc<Mlp>>> = const { RefCell::new(None) };
}

/// Hand over the file's text (the page fetches it); refused unless it parses as a network
/// of [`SHAPE`].
pub fn provide(text: &str) -> Result<(), String> {
    let net = Mlp::from_json(text).map_err(|e| format!("bundled network: {e}"))?;
    if (net.inputs(), net.outputs()) != SHAPE {
        return Err(format!(
            "bundled network: {} inputs and {} outputs, expected {} and {}",
            net.inputs(),
            net.outputs(),
            SHAPE.0,
            SHAPE.1
        ));
    }
    PROVIDED.with(|p| *p.borrow_mut() = Some(Rc::new(net)));
    Ok(())
}

/// Whether the network can be built here without waiting for the file.
pub fn available() -> bool {
    EMBEDDED.is_some() || PROVIDED.with(|p| p.borrow().is_some())
}

/// The network.
pub fn network() -> Result<Mlp, String> {
    if let Some(net) = PROVIDED.with(|p| p.borrow().clone()) {
        return Ok(Mlp::clone(&net));
    }
    match EMBEDDED {
        Some(text) => Mlp::from_json(text).map_err(|e| format!("bundled network: {e}")),
        None => Err(format!(
            "the bundled DL2 network ({FILE}) has not been loaded yet"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::dl2::{build_with, check_with};

    #[test]
    fn the_file_has_the_shape_resolution_checks_against() {
        let net = Mlp::from_json(EMBEDDED.unwrap()).unwrap();
        assert_eq!((net.inputs(), net.outputs()), SHAPE);
        assert!(available());
    }

    #[test]
    fn a_provided_file_must_be_a_network_of_that_shape() {
        let e = provide("{\"format\": \"orrery-mlp\"").unwrap_err();
        assert!(e.starts_with("bundled network:"), "{e}");
        let mut rng = crate::rng::Rng::new(1);
        let small = Mlp::new(&[14, 8, 31], crate::nn::Activation::Relu, &mut rng);
        let e = provide(&small.to_json()).unwrap_err();
        assert!(e.contains("14 inputs") && e.contains("expected 140"), "{e}");
        provide(EMBEDDED.unwrap()).unwrap();
        assert_eq!(
            network().unwrap(),
            Mlp::from_json(EMBEDDED.unwrap()).unwrap()
        );
    }

    #[test]
    fn checking_without_the_weights_gives_building_s_answers() {
        for types in [8, 5] {
            let built = build_with("dl2", None, types)
                .map(|_| ())
                .map_err(|e| e.to_string());
            let spec = crate::policy::Spec::parse("dl2").unwrap();
            let params =
                crate::policy::registry::checked(&spec, crate::policy::dl2::learned::PARAMS)
                    .unwrap();
            let checked = crate::policy::dl2::learned::Dl2::check_bundled(&params, types)
                .map_err(|e| e.to_string());
            assert_eq!(built, checked, "{types} job types");
            assert_eq!(
                check_with("dl2", None, types).map_err(|e| e.to_string()),
                built
            );
        }
        assert!(check_with("dl2[sample=maybe]", None, 8).is_err());
    }
}
