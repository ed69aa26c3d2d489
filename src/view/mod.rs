//! What only the page shows, tested natively: the glossary of the summary's columns and
//! charts ([`glossary`]), how long a comparison is expected to take ([`estimate`]), chart
//! axes with readable ticks ([`axis`]) and numbers as people read them ([`format`](mod@format)).

pub mod axis;
pub mod estimate;
pub mod format;
pub mod glossary;
