//! Reading CSV (RFC 4180 quoting, comma or tab separated) with the `csv` crate, keeping the
//! line numbers that error messages name, and quoting fields for writing.
//!
//! Every reader here skips blank lines and lines starting with `#` (after any whitespace),
//! accepts `\n` and `\r\n` line ends and records of any width. A quoted field may contain
//! the separator, doubled quotes and line breaks; a record's line is the line it starts on.

use csv::{ReaderBuilder, StringRecord};

/// One record: its 1-based line number and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line number of the record in the file.
    pub line: usize,
    /// The fields, unquoted.
    pub fields: Vec<String>,
}

/// The records of a text one at a time, reusing one buffer (for large files).
pub struct Records<'t> {
    text: &'t str,
    reader: csv::Reader<&'t [u8]>,
    record: StringRecord,
    /// Line number (1-based) at byte `counted_to` of `text`.
    line: usize,
    counted_to: usize,
}

impl<'t> Records<'t> {
    /// A reader of `text` with the separator `sep`, an ASCII character (`,` or `\t`);
    /// another character reads as `,`. A leading byte-order mark is skipped.
    pub fn new(text: &'t str, sep: char) -> Self {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let reader = builder(sep)
            .comment(Some(b'#'))
            .from_reader(text.as_bytes());
        Records {
            text,
            reader,
            record: StringRecord::new(),
            line: 1,
            counted_to: 0,
        }
    }

    /// The next record with its 1-based line number, or `None` at the end of the text.
    pub fn next_record(&mut self) -> Option<(usize, &StringRecord)> {
        loop {
            // Reading a `&str` cannot fail: there is no I/O, records may have any width and
            // fields split at ASCII bytes stay UTF-8. Stop if it ever did.
            if !self.reader.read_record(&mut self.record).ok()? {
                return None;
            }
            // The crate's position of a record that follows empty or `#` lines is where
            // those lines begin (its line number too: rust-csv issue 208), so the record's
            // own start is found past them and its line counted from there.
            let from = self
                .record
                .position()
                .and_then(|p| usize::try_from(p.byte()).ok())
                .unwrap_or(self.counted_to);
            let start = record_start(self.text.as_bytes(), from.max(self.counted_to));
            let skipped = self
                .text
                .as_bytes()
                .get(self.counted_to..start)
                .unwrap_or(&[]);
            self.line += skipped.iter().filter(|&&b| b == b'\n').count();
            self.counted_to = start;
            // The crate skips empty lines and lines whose first byte is `#`, but reads a line
            // of whitespace, or of whitespace and then `#`, as a record.
            let padded = self
                .record
                .get(0)
                .is_some_and(|f| f.chars().next().is_none_or(char::is_whitespace));
            if padded && blank_or_comment(self.text, start) {
                continue;
            }
            return Some((self.line, &self.record));
        }
    }
}

/// Where the record read from byte `at` of `text` starts: past the empty lines and the
/// `#` lines that the reader skips before it.
fn record_start(text: &[u8], mut at: usize) -> usize {
    while let Some(&b) = text.get(at) {
        match b {
            b'\r' | b'\n' => at += 1,
            b'#' => {
                let rest = text.get(at..).unwrap_or(&[]);
                at = rest
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(text.len(), |i| at + i + 1);
            }
            _ => break,
        }
    }
    at
}

/// A reader of records of any width, without a header row, separated by `sep` (an ASCII
/// character; another reads as `,`).
fn builder(sep: char) -> ReaderBuilder {
    let delimiter = u8::try_from(sep).ok().filter(u8::is_ascii).unwrap_or(b',');
    let mut b = ReaderBuilder::new();
    b.has_headers(false).flexible(true).delimiter(delimiter);
    b
}

/// Whether the line starting at byte `start` of `text` is blank or a comment.
fn blank_or_comment(text: &str, start: usize) -> bool {
    let rest = text.get(start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("").trim();
    line.is_empty() || line.starts_with('#')
}

/// Split `text` into records, skipping blank lines and lines starting with `#`.
/// Quoted fields may contain the separator, doubled quotes and line breaks.
pub fn records(text: &str, sep: char) -> Vec<Record> {
    let mut out = Vec::new();
    let mut reader = Records::new(text, sep);
    while let Some((line, record)) = reader.next_record() {
        out.push(Record {
            line,
            fields: record.iter().map(str::to_string).collect(),
        });
    }
    out
}

/// Split one line into fields (its first record; an empty line is one empty field).
/// Unlike [`records`], a blank or `#` line is split like any other.
pub fn split_line(line: &str, sep: char) -> Vec<String> {
    let mut record = StringRecord::new();
    match builder(sep)
        .from_reader(line.as_bytes())
        .read_record(&mut record)
    {
        Ok(true) => record.iter().map(str::to_string).collect(),
        _ => vec![String::new()],
    }
}

/// Quote a field for writing if it needs it: it holds a separator (`,` or tab), a quote or
/// a line break, or starts with `#` (which would make a row's first field a comment).
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r', '\t']) || field.starts_with('#') {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields() {
        assert_eq!(
            split_line(r#""ResNet-18 (batch size 16)",1,"a ""b"", c""#, ','),
            ["ResNet-18 (batch size 16)", "1", "a \"b\", c"]
        );
        let r = records("a,b\n\n# c\n1,2\r\n", ',');
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].line, 4);
        assert_eq!(r[1].fields, ["1", "2"]);
    }

    #[test]
    fn blank_and_comment_lines_keep_line_numbers() {
        let text = "h1\th2\r\n  \r\n\t\n   # indented comment\r\n#\n\na\tb\nc\n";
        let r = records(text, '\t');
        let got: Vec<(usize, Vec<&str>)> = r
            .iter()
            .map(|r| (r.line, r.fields.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            got,
            [(1, vec!["h1", "h2"]), (7, vec!["a", "b"]), (8, vec!["c"])]
        );
        // A field of spaces on a line with other fields is data.
        let r = records("a,b\n  , x\n", ',');
        assert_eq!(r[1].line, 2);
        assert_eq!(r[1].fields, ["  ", " x"]);
        let r = records("\u{feff}\r\n# c\r\nx,y\r\n", ',');
        assert_eq!(
            (r[0].line, r[0].fields.clone()),
            (3, vec!["x".into(), "y".into()])
        );
        assert!(records("", ',').is_empty());
        assert!(records("\n# only\n  \n", ',').is_empty());
    }

    #[test]
    fn quoted_line_breaks_and_lines_after_them() {
        let r = records("a,\"two\nlines\",c\nd,e\n\"# not a comment\",f\n", ',');
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].line, r[0].fields[1].as_str()), (1, "two\nlines"));
        assert_eq!(
            (r[1].line, r[1].fields.clone()),
            (3, vec!["d".into(), "e".into()])
        );
        assert_eq!(r[2].line, 4);
        assert_eq!(r[2].fields, ["# not a comment", "f"]);
    }

    #[test]
    fn split_line_on_tabs_and_empty_lines() {
        assert_eq!(split_line("a\tb c\t", '\t'), ["a", "b c", ""]);
        assert_eq!(split_line("", ','), [""]);
        assert_eq!(split_line(",", ','), ["", ""]);
        assert_eq!(split_line("# a,b", ','), ["# a", "b"]);
        assert_eq!(split_line("  ", ','), ["  "]);
    }

    #[test]
    fn quoted_fields_read_back() {
        for field in [
            "plain",
            "a,b",
            "say \"hi\"",
            "tab\there",
            "two\nlines",
            "cr\rlf",
            "#1",
        ] {
            let row = format!("{},{}\n", quote(field), quote("x"));
            let r = records(&row, ',');
            assert_eq!(r.len(), 1, "{row:?}");
            assert_eq!(r[0].fields, [field, "x"], "{row:?}");
        }
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
    }
}
