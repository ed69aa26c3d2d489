//! A small CSV reader (RFC 4180 quoting, comma or tab separated) that keeps line numbers.

/// One record: its 1-based line number and its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line number of the record in the file.
    pub line: usize,
    /// The fields, unquoted.
    pub fields: Vec<String>,
}

/// Split `text` into records, skipping blank lines and lines starting with `#`.
/// Quoted fields may contain the separator and doubled quotes; they may not span lines.
pub fn records(text: &str, sep: char) -> Vec<Record> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        out.push(Record {
            line: i + 1,
            fields: split_line(line, sep),
        });
    }
    out
}

/// Split one line into fields.
pub fn split_line(line: &str, sep: char) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    while let Some(c) = chars.next() {
        if in_quotes {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    in_quotes = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && cur.trim().is_empty() {
            cur.clear();
            in_quotes = true;
        } else if c == sep {
            fields.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    fields.push(cur);
    fields
}

/// Quote a field for writing if it needs it.
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\t']) {
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
}
