// Starts the playground's Web Worker, a module worker running the page's own WebAssembly
// module: the page posts its compiled module first, which this instantiates with the page's
// wasm-bindgen glue (no second download or compile); the entry point then finds itself in a
// worker and answers the page. Trunk.toml keeps file names unhashed so these paths hold.
import init from './orrery.js';

addEventListener('message', (e) => {
  const module = e.data instanceof WebAssembly.Module ? e.data : new URL('./orrery_bg.wasm', import.meta.url);
  init({ module_or_path: module });
}, { once: true });
