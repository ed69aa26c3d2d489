//! The `orrery` binary: the CLI natively, the web playground in WebAssembly (one module for
//! the page and its Web Worker).

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {
    if orrery::ui::worker::in_worker() {
        orrery::ui::worker::worker_main();
    } else {
        orrery::ui::start();
    }
}
