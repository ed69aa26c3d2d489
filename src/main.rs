//! The `orrery` binary: the CLI. (The web page's module is the `orrery-ui` crate, `ui/`.)

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {}
