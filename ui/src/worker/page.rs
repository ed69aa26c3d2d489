//! The page's side: its handles on workers ([`WorkerHandle`]), the worker started while the
//! module loads, and the spare workers kept warm for the next run.

use super::protocol::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// A worker's answer as it arrives: its JSON text, and its numbers when it has some (a JSON
/// text and a `Float64Array` in an array: see [`post`]).
fn answer(data: JsValue) -> (String, Vec<f64>) {
    if let Some(text) = data.as_string() {
        return (text, Vec::new());
    }
    let pair = js_sys::Array::from(&data);
    let numbers = pair
        .get(1)
        .dyn_into::<js_sys::Float64Array>()
        .map(|n| n.to_vec())
        .unwrap_or_default();
    (pair.get(0).as_string().unwrap_or_default(), numbers)
}

/// Most idle workers the page keeps.
const MAX_SPARES: usize = 4;
/// Largest results (bytes received: JSON and numbers) of a run whose worker is kept for the
/// next one.
const KEEP_BELOW_BYTES: usize = 4 << 20;

thread_local! {
    /// Workers ready for the next run: started before they were needed (their module
    /// posted), or kept from a run that ended (their module instantiated and warm), each
    /// with whether it has DL2's bundled network already.
    static SPARES: std::cell::RefCell<Vec<(Worker, bool)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The name under which index.html leaves the worker it starts while the page's module
/// loads.
const EARLY_WORKER: &str = "orreryEarlyWorker";

/// Take the worker index.html started while the module loaded and post it the module: the
/// first run's worker, whose start-up overlapped the module's compilation and the app's
/// creation. Nothing happens if there is none.
pub fn adopt_early_worker() {
    let global = js_sys::global();
    let key = JsValue::from_str(EARLY_WORKER);
    let Ok(Ok(worker)) = js_sys::Reflect::get(&global, &key).map(|w| w.dyn_into::<Worker>()) else {
        return;
    };
    let _ = js_sys::Reflect::delete_property(global.unchecked_ref::<js_sys::Object>(), &key);
    if worker.post_message(&wasm_bindgen::module()).is_err() {
        worker.terminate();
        return;
    }
    SPARES.with(|s| s.borrow_mut().push((worker, false)));
}

/// Start a worker for the next run now, so that run does not wait for a worker to start.
pub fn prepare_spare() {
    if SPARES.with(|s| !s.borrow().is_empty()) {
        return;
    }
    if let Ok(worker) = new_worker() {
        SPARES.with(|s| s.borrow_mut().push((worker, false)));
    }
}

/// A new module worker, posted the page's compiled module: the loader instantiates it
/// without fetching or compiling it again.
fn new_worker() -> Result<Worker, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options("./worker-loader.js", &options)
        .map_err(|e| format!("cannot start the worker: {}", crate::js_text(&e)))?;
    if let Err(e) = worker.post_message(&wasm_bindgen::module()) {
        worker.terminate();
        return Err(format!("cannot start the worker: {}", crate::js_text(&e)));
    }
    Ok(worker)
}

/// The page's handle on a worker; dropping it ends the worker, or keeps it idle for a later
/// run when it has finished.
pub struct WorkerHandle {
    worker: Worker,
    received: std::rc::Rc<std::cell::Cell<usize>>,
    /// Whether the worker's last message ended what it was asked (a run's or a shared run's
    /// final results).
    done: std::rc::Rc<std::cell::Cell<bool>>,
    /// Whether the worker has been posted DL2's bundled network (the page's copy of it
    /// never changes once loaded, and a worker keeps it while it lives).
    networked: bool,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl WorkerHandle {
    /// Start a worker (or take a spare one) and post it `request` at once: the loader
    /// keeps it until the module is instantiated, so the worker starts on it without a
    /// round trip through the page's thread. `on_message` gets the answers.
    pub fn spawn(
        request: &ToWorker,
        on_message: impl Fn(FromWorker) + 'static,
    ) -> Result<Self, String> {
        Self::start(request, Box::new(on_message))
    }

    /// [`WorkerHandle::spawn`] for any answer handler: one copy of the code for every caller.
    fn start(request: &ToWorker, on_message: Box<dyn Fn(FromWorker)>) -> Result<Self, String> {
        let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
        let (worker, networked) = match SPARES.with(|s| s.borrow_mut().pop()) {
            Some(spare) => spare,
            None => (new_worker()?, false),
        };
        let received = std::rc::Rc::new(std::cell::Cell::new(0));
        let counter = received.clone();
        let done = std::rc::Rc::new(std::cell::Cell::new(false));
        let ended = done.clone();
        let cb = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let (text, numbers) = answer(e.data());
            counter.set(counter.get() + text.len() + 8 * numbers.len());
            match crate::wire::decode::<FromWorker>(&text, numbers) {
                Ok(m) => {
                    ended.set(matches!(m, FromWorker::Done(..) | FromWorker::Finished(..)));
                    on_message(m)
                }
                Err(err) => on_message(FromWorker::Failed(format!(
                    "bad answer from the worker: {err}"
                ))),
            }
        });
        worker.set_onmessage(Some(cb.as_ref().unchecked_ref()));
        let mut handle = WorkerHandle {
            worker,
            received,
            done,
            networked,
            _on_message: cb,
        };
        if let Some(network) = crate::network::text().filter(|_| !handle.networked) {
            handle.post(&ToWorker::Network(network.to_string()))?;
            handle.networked = true;
        }
        handle
            .worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("cannot start the worker: {}", crate::js_text(&e)))?;
        Ok(handle)
    }

    /// Post another request to the worker.
    pub fn post(&self, request: &ToWorker) -> Result<(), String> {
        let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
        self.done.set(false);
        self.worker
            .post_message(&JsValue::from_str(&text))
            .map_err(|e| format!("cannot reach the worker: {}", crate::js_text(&e)))
    }

    /// Bytes received from the worker so far (JSON and numbers).
    pub fn received_bytes(&self) -> usize {
        self.received.get()
    }
}

impl Drop for WorkerHandle {
    /// A worker that has answered everything it was asked stays, idle, for a later run, which
    /// then finds its module instantiated and its memory grown (the default scenario run
    /// again: a median 217 ms from the click to the results, against 250 ms in new workers);
    /// any other ends. So does a worker whose results came to more than
    /// `KEEP_BELOW_BYTES`, or one beyond `MAX_SPARES`: memory a WebAssembly instance
    /// has grown is not given back while it lives.
    fn drop(&mut self) {
        if self.done.get() && self.received.get() <= KEEP_BELOW_BYTES {
            self.worker.set_onmessage(None);
            let kept = SPARES.with(|s| {
                let mut spares = s.borrow_mut();
                let room = spares.len() < MAX_SPARES;
                if room {
                    spares.push((self.worker.clone(), self.networked));
                }
                room
            });
            if kept {
                return;
            }
        }
        self.worker.terminate();
    }
}
