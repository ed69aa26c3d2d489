//! The Web Worker that runs whole experiments off the page's thread, and the page's handle
//! on it. The worker runs the page's own WebAssembly module: the page starts it as a module
//! worker (`worker-loader.js`) and posts it that module, which the loader instantiates with
//! the page's wasm-bindgen glue; the entry point then sees a worker's global scope and calls
//! [`worker_main`]. Messages are JSON strings; a run posts progress at most every 100 ms and
//! then its results. Cancelling terminates the worker.
//!
//! - [`protocol`]: the messages between the page and a worker, and what a run's results carry;
//! - [`entry`]: the worker's side: its entry point, the runs it answers and how it posts;
//! - [`page`]: the page's side: its handles on workers and the spare workers it keeps;
//! - `tasks` and `step_worker`: a worker's share of a run's plan, and the stepping run;
//! - [`step_marks`]: what failures and spot capacity did to the stepping run, for its board.

pub mod entry;
pub mod page;
pub mod protocol;
pub mod step_marks;
pub(crate) mod step_worker;
pub(crate) mod tasks;

pub use entry::{in_worker, run_experiment, worker_main};
pub(crate) use entry::{policy_result, post, progress_poster};
pub use page::{adopt_early_worker, prepare_spare, WorkerHandle};
pub use protocol::*;
