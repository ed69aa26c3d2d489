//! The Web Worker of the playground: runs whole experiments off the page's thread. Natively
//! it does nothing (the `orrery` CLI runs experiments directly).

#[cfg(target_arch = "wasm32")]
fn main() {
    orrery::ui::worker::worker_main();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("orrery-worker is the web playground's worker; use `orrery` on the command line");
    std::process::exit(2);
}
