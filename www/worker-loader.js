// Starts the playground's Web Worker, a module worker running the page's own WebAssembly
// module: the page posts its compiled module first, which this instantiates with the page's
// wasm-bindgen glue (no second download or compile); the entry point then finds itself in a
// worker and answers the page. The page posts its request right after the module: requests
// that arrive before the module is instantiated wait here and are handed to the worker's
// own handler once it is installed. Trunk.toml keeps file names unhashed so these paths hold.
import init from './orrery-page.js';

const waiting = [];
let started = false;
function early(e) {
  if (started) {
    waiting.push(e.data);
    return;
  }
  started = true;
  const module = e.data instanceof WebAssembly.Module ? e.data : new URL('./orrery-page_bg.wasm', import.meta.url);
  init({ module_or_path: module }).then(() => {
    removeEventListener('message', early);
    for (const data of waiting) dispatchEvent(new MessageEvent('message', { data }));
  }, (err) => {
    // The page shows this as the run's error (FromWorker::Failed in ui/src/worker/protocol.rs).
    postMessage(JSON.stringify({ Failed: `the worker could not start: ${err}` }));
  });
}
addEventListener('message', early);
