//! The worker's answers on the wire: a JSON text with the per-round series of its results
//! beside it as one `Float64Array`, which the worker hands over (transferred, not copied)
//! and the page copies into its memory at once. The series are most of a run's results (a
//! `max_min_fairness` run of the default scenario: 112 of 137 kB of JSON); as numbers they
//! skip the worker's formatting of every value as text and the page's decoding and
//! parsing of it, and keep their bits as they are.
//!
//! A series is written while [`encode`] runs and read while [`decode`] runs: its JSON is
//! `{"at":i,"points":n}`, its `n` points from number `i` of the message's numbers, as
//! [`orrery::metrics::numbers`] writes them. Outside of those two calls a series cannot be
//! written or read: the series has no other form.

use orrery::metrics::numbers::{read_series, write_series};
use orrery::metrics::SeriesPoint;
use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;

thread_local! {
    /// The numbers of the message being written or read (None outside of one).
    static NUMBERS: RefCell<Option<Vec<f64>>> = const { RefCell::new(None) };
}

/// `msg` as JSON and the numbers of its series.
pub fn encode<T: Serialize>(msg: &T) -> Result<(String, Vec<f64>), String> {
    NUMBERS.with(|n| *n.borrow_mut() = Some(Vec::new()));
    let text = serde_json::to_string(msg);
    let numbers = NUMBERS.with(|n| n.borrow_mut().take()).unwrap_or_default();
    Ok((text.map_err(|e| e.to_string())?, numbers))
}

/// The message `text` and `numbers` carry.
pub fn decode<T: DeserializeOwned>(text: &str, numbers: Vec<f64>) -> Result<T, String> {
    NUMBERS.with(|n| *n.borrow_mut() = Some(numbers));
    let msg = serde_json::from_str(text);
    NUMBERS.with(|n| n.borrow_mut().take());
    msg.map_err(|e| e.to_string())
}

/// Where a series sits in the message's numbers.
#[derive(Serialize, Deserialize)]
struct At {
    at: usize,
    points: usize,
}

/// Write `points` to the message's numbers (see the module's notes).
pub fn serialize<S: Serializer>(points: &[SeriesPoint], s: S) -> Result<S::Ok, S::Error> {
    let at = NUMBERS.with(|n| {
        let mut n = n.borrow_mut();
        let numbers = n.as_mut()?;
        let at = numbers.len();
        write_series(points, numbers);
        Some(at)
    });
    let at =
        at.ok_or_else(|| S::Error::custom("a series is written only in a worker's message"))?;
    At {
        at,
        points: points.len(),
    }
    .serialize(s)
}

/// Read a series from the message's numbers (see the module's notes).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SeriesPoint>, D::Error> {
    let At { at, points } = At::deserialize(d)?;
    NUMBERS
        .with(|n| read_series(n.borrow().as_deref()?, at, points))
        .ok_or_else(|| D::Error::custom("the message's series is not among its numbers"))
}
