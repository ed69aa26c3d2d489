//! DL2's bundled network in the page. The web build does not carry the weights (see
//! [`orrery::policy::dl2::bundled`]): the page fetches `dl2_weights.json` from beside itself
//! when a parameter-server experiment without a network of its own is first shown, hands the
//! text to the core, and posts it once to each worker before that worker's next request
//! (a worker kept for later runs keeps it), so runs and steps in the worker and on the page
//! use the same network.

use orrery::experiment::Experiment;
use orrery::policy::dl2::bundled;
use orrery::sim::{JobModel, Mechanism};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The file's text, once fetched and accepted.
    static TEXT: RefCell<Option<Rc<str>>> = const { RefCell::new(None) };
    /// Whether a fetch is under way.
    static LOADING: Cell<bool> = const { Cell::new(false) };
}

/// The file's text, once loaded (the page posts it to every worker it starts).
pub fn text() -> Option<Rc<str>> {
    TEXT.with(|t| t.borrow().clone())
}

/// Whether experiment `exp`, running in `mech`, runs the bundled network and it has not been
/// loaded yet.
pub fn missing(exp: &Experiment, mech: Mechanism) -> bool {
    mech.jobs() == JobModel::ParameterServer && exp.network.is_none() && !bundled::available()
}

/// Whether a fetch is under way.
pub fn loading() -> bool {
    LOADING.with(Cell::get)
}

/// Fetch the file (unless a fetch is under way) and call `done` with the outcome.
pub fn fetch(done: impl FnOnce(Result<(), String>) + 'static) {
    if LOADING.with(|l| l.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = load().await;
        LOADING.with(|l| l.set(false));
        done(outcome);
    });
}

/// Fetch, check and keep the file.
async fn load() -> Result<(), String> {
    let failed = |e: wasm_bindgen::JsValue| {
        format!(
            "the bundled DL2 network ({}) could not be loaded: {}",
            bundled::FILE,
            e.as_string().unwrap_or_else(|| format!("{e:?}"))
        )
    };
    let window = web_sys::window().ok_or_else(|| "no window".to_string())?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(bundled::FILE))
        .await
        .map_err(failed)?
        .dyn_into()
        .map_err(failed)?;
    if !response.ok() {
        return Err(format!(
            "the bundled DL2 network ({}) could not be loaded: HTTP {}",
            bundled::FILE,
            response.status()
        ));
    }
    let text = JsFuture::from(response.text().map_err(failed)?)
        .await
        .map_err(failed)?
        .as_string()
        .unwrap_or_default();
    bundled::provide(&text)?;
    TEXT.with(|t| *t.borrow_mut() = Some(Rc::from(text)));
    Ok(())
}
