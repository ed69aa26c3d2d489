//! The page's module: the web playground on the page, and the same module in its Web
//! Workers, where it answers the page's requests. Natively an empty program.

#[cfg(target_arch = "wasm32")]
fn main() {
    if orrery_ui::worker::in_worker() {
        orrery_ui::worker::worker_main();
    } else {
        orrery_ui::start();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
