//! What only the page shows, tested natively: the glossary of the summary's columns and
//! charts ([`glossary`]), how long a comparison is expected to take ([`estimate`]), chart
//! axes with readable ticks ([`axis`]), numbers as people read them ([`format`](mod@format))
//! and what an import of a public trace read ([`import`], which the CLI prints too).

pub mod axis;
pub mod estimate;
pub mod format;
pub mod glossary;
pub mod import;
