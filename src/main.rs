//! The `orrery` binary: the CLI. (The web page's module is the `orrery-ui` crate, `ui/`.)

#[cfg(not(target_arch = "wasm32"))]
mod cli;

/// The CLI's allocator: mimalloc keeps freed memory for reuse, where glibc's malloc gave the
/// LP solver's per-solve buffers back to the system and faulted them in again on the next
/// LP (`finish_time_fairness_packed` on `gavel-load`: 0.6 s of system time -> 0.02 s).
/// Results do not depend on the allocator.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {}
