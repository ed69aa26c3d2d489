//! Numbers as people read them: three significant digits (`short`), counts with a unit
//! (`compact`), durations (`span_label`) and thousands separators (`thousands`). The page's
//! charts, tables and estimates and the CLI share them.

/// A number with at most three significant digits, trailing zeros dropped.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        format!("{v:.1e}")
    };
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A count: `500`, `20k`, `3M`.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", short(v / 1e3))
    } else {
        short(v)
    }
}

/// Seconds as a short duration: `45 s`, `10 min`, `3 h`, `1.5 d`.
pub fn span_label(s: f64) -> String {
    if s < 60.0 {
        format!("{} s", short(s))
    } else if s < 3600.0 {
        format!("{} min", short(s / 60.0))
    } else if s < 86_400.0 {
        format!("{} h", short(s / 3600.0))
    } else {
        format!("{} d", short(s / 86_400.0))
    }
}

/// A count with thousands separators: `82,247`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(short(1234.0), "1234");
        assert_eq!(short(12.34), "12.3");
        assert_eq!(short(1.5), "1.5");
        assert_eq!(short(2.0), "2");
        assert_eq!(short(0.125), "0.125");
        assert_eq!(short(0.0), "0");
        assert_eq!(short(0.0012), "1.2e-3");
        assert_eq!(compact(500.0), "500");
        assert_eq!(compact(20_000.0), "20k");
        assert_eq!(compact(3_000_000.0), "3M");
        assert_eq!(span_label(45.0), "45 s");
        assert_eq!(span_label(600.0), "10 min");
        assert_eq!(span_label(3.0 * 3600.0), "3 h");
        assert_eq!(span_label(1.5 * 86_400.0), "1.5 d");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(82_247), "82,247");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(0), "0");
    }
}
