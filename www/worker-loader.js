// Starts the playground's Web Worker: loads the worker's wasm-bindgen glue, then its module.
importScripts('./orrery-worker.js');
wasm_bindgen({ module_or_path: './orrery-worker_bg.wasm' });
