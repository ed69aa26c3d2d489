//! A CSV table with a header row: its columns found by name (any case, any order; others
//! ignored), its rows read one at a time with [`super::csv::Records`] (blank and `#` lines
//! skipped, quoted fields unquoted), and each value parsed with an error that names the
//! file, the line and the column.

use csv::StringRecord;

use super::csv::Records;
use super::dates::parse_time;
use super::timed::Dropped;
use super::{parse_nonneg, WorkloadError};

/// A table being read: its header and the records after it.
pub(crate) struct Table<'t> {
    records: Records<'t>,
    file: &'t str,
    names: Vec<String>,
    line: usize,
}

impl<'t> Table<'t> {
    /// The table of `text`, its first record the header; an error if there is none.
    pub(crate) fn open(text: &'t str, file: &'t str) -> Result<Self, WorkloadError> {
        let mut records = Records::new(text, ',');
        let Some((line, header)) = records.next_record() else {
            return Err(WorkloadError::file(file, "no header"));
        };
        let names = header
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        Ok(Table {
            records,
            file,
            names,
            line,
        })
    }

    /// The column named `name` (lower case), if the header has it.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The column named `name`, or an error on the header's line saying it is missing.
    pub(crate) fn need(&self, name: &str) -> Result<usize, WorkloadError> {
        self.find(name)
            .ok_or_else(|| WorkloadError::field(self.file, self.line, name, "missing column"))
    }

    /// The next row, or an error if it has not as many fields as the header.
    pub(crate) fn next_row(&mut self) -> Option<Result<Row<'_>, WorkloadError>> {
        let (line, fields) = self.records.next_record()?;
        if fields.len() != self.names.len() {
            return Some(Err(WorkloadError::field(
                self.file,
                line,
                "row",
                format!(
                    "expected {} fields (as the header), found {}",
                    self.names.len(),
                    fields.len()
                ),
            )));
        }
        Some(Ok(Row {
            file: self.file,
            line,
            fields,
            names: &self.names,
        }))
    }
}

/// One row of a table.
pub(crate) struct Row<'r> {
    file: &'r str,
    /// 1-based line of the row.
    pub(crate) line: usize,
    fields: &'r StringRecord,
    names: &'r [String],
}

impl Row<'_> {
    /// The value of column `col`, trimmed ("" if absent).
    pub(crate) fn text(&self, col: usize) -> &str {
        self.fields.get(col).map_or("", str::trim)
    }

    /// An error about column `col` of this row.
    pub(crate) fn error(&self, col: usize, reason: impl Into<String>) -> WorkloadError {
        let name = self.names.get(col).map_or("?", String::as_str);
        WorkloadError::field(self.file, self.line, name, reason)
    }

    /// A finite, non-negative number (`20`, `20.0`, `1e3`); `None` when empty.
    pub(crate) fn number(&self, col: usize) -> Result<Option<f64>, WorkloadError> {
        let t = self.text(col);
        if t.is_empty() {
            return Ok(None);
        }
        let name = self.names.get(col).map_or("?", String::as_str);
        parse_nonneg(self.file, self.line, name, t).map(Some)
    }

    /// A number that must be there.
    pub(crate) fn required(&self, col: usize) -> Result<f64, WorkloadError> {
        self.number(col)?
            .ok_or_else(|| self.error(col, "empty (a number is needed)"))
    }

    /// A whole number of at most `u32::MAX` (`8` or `8.0`); `None` when empty.
    pub(crate) fn whole(&self, col: usize) -> Result<Option<u32>, WorkloadError> {
        match self.number(col)? {
            None => Ok(None),
            Some(v) if v.fract() != 0.0 => {
                Err(self.error(col, format!("{v} is not a whole number")))
            }
            Some(v) if v > f64::from(u32::MAX) => {
                Err(self.error(col, format!("{v} is more than {}", u32::MAX)))
            }
            Some(v) => Ok(Some(v as u32)),
        }
    }

    /// A date-time as [`super::dates`] reads it, in seconds since 1970; `None` when empty.
    pub(crate) fn time(&self, col: usize) -> Result<Option<f64>, WorkloadError> {
        let t = self.text(col);
        if t.is_empty() {
            return Ok(None);
        }
        parse_time(t).map(Some).ok_or_else(|| {
            self.error(
                col,
                format!("'{t}' is not a date-time (YYYY-MM-DD HH:MM:SS, optionally with an offset such as +08:00)"),
            )
        })
    }
}

/// Count one more row left out for `reason` (reasons in the order they first occur).
pub(crate) fn count_drop(drops: &mut Vec<Dropped>, reason: &str) {
    match drops.iter_mut().find(|d| d.reason == reason) {
        Some(d) => d.rows += 1,
        None => drops.push(Dropped {
            reason: reason.to_string(),
            rows: 1,
        }),
    }
}

/// Why no job of a table's `rows` remains, from the rows left out.
pub(crate) fn none_left(file: &str, what: &str, rows: usize, drops: &[Dropped]) -> WorkloadError {
    if rows == 0 {
        return WorkloadError::file(file, format!("the {what} has no rows"));
    }
    let why: Vec<String> = drops
        .iter()
        .map(|d| format!("{} {}", d.rows, d.reason))
        .collect();
    WorkloadError::file(
        file,
        format!("none of its {rows} jobs can run: {}", why.join(", ")),
    )
}

/// `k` of the indices `0..n`, drawn uniformly without replacement and in increasing order
/// (all of them when `k` is `None` or at least `n`), from stream `purpose` of `seed`.
pub(crate) fn sample(n: usize, k: Option<usize>, seed: u64, purpose: &str) -> Vec<usize> {
    match k {
        Some(k) if k < n => {
            super::pai::choose(n, k, &mut crate::rng::Rng::for_purpose(seed, purpose))
        }
        _ => (0..n).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_name_and_values_with_their_line() {
        let text = "B , a\n\n1,x\n2.0,\n-1,y\n1.5,2023-03-01 00:18:22+08:00\n3\n";
        let mut t = Table::open(text, "f.csv").unwrap();
        assert_eq!(
            (t.find("a"), t.find("b"), t.find("c")),
            (Some(1), Some(0), None)
        );
        assert_eq!(
            t.need("c").unwrap_err().to_string(),
            "f.csv:1: field 'c': missing column"
        );
        let mut got = Vec::new();
        while let Some(row) = t.next_row() {
            match row {
                Ok(r) => got.push(format!(
                    "{}: {:?} {:?} {:?}",
                    r.line,
                    r.whole(0).map_err(|e| e.to_string()),
                    r.time(1).map_err(|e| e.to_string()),
                    r.required(1).map_err(|e| e.to_string()).err()
                )),
                Err(e) => got.push(e.to_string()),
            }
        }
        assert_eq!(
            got,
            [
                "3: Ok(Some(1)) Err(\"f.csv:3: field 'a': 'x' is not a date-time (YYYY-MM-DD HH:MM:SS, optionally with an offset such as +08:00)\") Some(\"f.csv:3: field 'a': 'x' is not a number\")",
                "4: Ok(Some(2)) Ok(None) Some(\"f.csv:4: field 'a': empty (a number is needed)\")",
                "5: Err(\"f.csv:5: field 'b': -1 is negative\") Err(\"f.csv:5: field 'a': 'y' is not a date-time (YYYY-MM-DD HH:MM:SS, optionally with an offset such as +08:00)\") Some(\"f.csv:5: field 'a': 'y' is not a number\")",
                "6: Err(\"f.csv:6: field 'b': 1.5 is not a whole number\") Ok(Some(1677601102.0)) Some(\"f.csv:6: field 'a': '2023-03-01 00:18:22+08:00' is not a number\")",
                "f.csv:7: field 'row': expected 2 fields (as the header), found 1",
            ]
        );
        assert_eq!(
            Table::open("\n# c\n", "e.csv").err().map(|e| e.to_string()),
            Some("e.csv: no header".to_string())
        );
    }

    #[test]
    fn drops_and_samples() {
        let mut d = Vec::new();
        count_drop(&mut d, "without GPUs");
        count_drop(&mut d, "unfinished");
        count_drop(&mut d, "without GPUs");
        assert_eq!(
            none_left("x", "job table", 3, &d).to_string(),
            "x: none of its 3 jobs can run: 2 without GPUs, 1 unfinished"
        );
        assert_eq!(
            none_left("x", "job table", 0, &[]).to_string(),
            "x: the job table has no rows"
        );
        assert_eq!(sample(3, None, 1, "s"), [0, 1, 2]);
        assert_eq!(sample(3, Some(5), 1, "s"), [0, 1, 2]);
        let s = sample(100, Some(10), 1, "s");
        assert_eq!(s, sample(100, Some(10), 1, "s"));
        assert!(s.len() == 10 && s.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(s, sample(100, Some(10), 2, "s"));
    }
}
