//! The simulator alone as a WebAssembly module, to time its computation in V8 (Node)
//! without a page: `tests/browser/compute.sh` builds it with the page's profile and flags
//! and binds it with wasm-bindgen (whose glue is all the JavaScript it needs), and
//! `tests/browser/compute.mjs` runs it. The host pushes an
//! experiment's share link byte by byte ([`push`]), then calls [`run`], which runs every
//! policy of it and returns the first policy's average JCT (compared with the native CLI's
//! to check the bits). Natively this builds to nothing.

#[cfg(target_arch = "wasm32")]
mod wasm {
    use std::cell::RefCell;

    thread_local! {
        static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    /// Append one byte of the link.
    #[no_mangle]
    pub extern "C" fn push(byte: u32) {
        INPUT.with(|i| i.borrow_mut().push(byte as u8));
    }

    /// Run the pushed link's experiment (and forget the link): the first policy's average
    /// JCT, or NaN when the link or the run fails.
    #[no_mangle]
    pub extern "C" fn run() -> f64 {
        let bytes = INPUT.with(|i| std::mem::take(&mut *i.borrow_mut()));
        let Ok(link) = String::from_utf8(bytes) else {
            return f64::NAN;
        };
        let Ok(exp) = orrery::experiment::Experiment::from_link(&link) else {
            return f64::NAN;
        };
        match orrery::experiment::run(&exp) {
            Ok(r) => r.first().map_or(f64::NAN, |r| r.summary.avg_jct_s),
            Err(_) => f64::NAN,
        }
    }
}

fn main() {}
