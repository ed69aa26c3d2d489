//! Date-times of cluster traces, as seconds since 1970-01-01 00:00:00 UTC.
//!
//! Accepted: `2017-10-03 02:45:05` (Philly, Helios), with `T` instead of the space, with a
//! fraction of a second (`02:45:05.250`), with an offset (`2023-03-01 00:18:22+08:00` in
//! Acme, `+0800`, `Z`), or a date alone (`2017-10-03`, its midnight). A date-time without an
//! offset is read as UTC: only differences between the times of one file matter to a
//! trace, and its files write every time in one clock.

use chrono::{DateTime, NaiveDate, NaiveDateTime};

/// Seconds since 1970-01-01 00:00:00 UTC of a date-time in one of the accepted forms, or
/// `None` if the text is not one.
pub fn parse_time(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.len() < 10 || !t.is_ascii() {
        return None;
    }
    if t.len() == 10 {
        let d = NaiveDate::parse_from_str(t, "%Y-%m-%d").ok()?;
        return Some(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp() as f64);
    }
    // One form for the separator: `T` becomes a space.
    let mut s = String::with_capacity(t.len() + 5);
    s.push_str(&t[..10]);
    match &t[10..11] {
        " " | "T" | "t" => s.push(' '),
        _ => return None,
    }
    s.push_str(&t[11..]);
    if s.ends_with(['Z', 'z']) {
        s.pop();
        s.push_str("+00:00");
    }
    // An offset follows the time (hh:mm:ss, 8 characters after the date's 11).
    let has_offset = s.get(19..).is_some_and(|rest| rest.contains(['+', '-']));
    let (secs, nanos) = if has_offset {
        let d = DateTime::parse_from_str(&s, "%Y-%m-%d %H:%M:%S%.f%z").ok()?;
        (d.timestamp(), d.timestamp_subsec_nanos())
    } else {
        let d = NaiveDateTime::parse_from_str(&s, "%Y-%m-%d %H:%M:%S%.f").ok()?;
        let d = d.and_utc();
        (d.timestamp(), d.timestamp_subsec_nanos())
    };
    Some(secs as f64 + f64::from(nanos) / 1e9)
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of a time in seconds since 1970, whole seconds rounded
/// down; an unrepresentable time gives its number of seconds.
pub fn format_time(s: f64) -> String {
    match DateTime::from_timestamp(s.floor() as i64, 0) {
        Some(d) if s.is_finite() => d.format("%Y-%m-%d %H:%M:%S").to_string(),
        _ => format!("{s} s"),
    }
}

/// `YYYY-MM-DD` (UTC) of a time in seconds since 1970.
pub fn format_day(s: f64) -> String {
    match DateTime::from_timestamp(s.floor() as i64, 0) {
        Some(d) if s.is_finite() => d.format("%Y-%m-%d").to_string(),
        _ => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        // 2017-10-03 00:00:00 UTC is 1506988800.
        let day = 1_506_988_800.0;
        assert_eq!(parse_time("2017-10-03"), Some(day));
        assert_eq!(parse_time("2017-10-03 02:45:05"), Some(day + 9905.0));
        assert_eq!(parse_time(" 2017-10-03T02:45:05 "), Some(day + 9905.0));
        assert_eq!(parse_time("2017-10-03 02:45:05.5"), Some(day + 9905.5));
        assert_eq!(parse_time("2017-10-03 02:45:05Z"), Some(day + 9905.0));
        assert_eq!(
            parse_time("2017-10-03 10:45:05+08:00"),
            Some(day + 9905.0),
            "an offset is taken away"
        );
        assert_eq!(parse_time("2017-10-03 10:45:05+0800"), Some(day + 9905.0));
        assert_eq!(parse_time("2017-10-02 23:45:05-03:00"), Some(day + 9905.0));
        for bad in [
            "",
            "None",
            "2017-13-01",
            "2017-10-03 25:00:00",
            "2017-10-03x02:45:05",
            "2017-10-03 02:45",
            "03/10/2017 02:45:05",
            "2017-10-03 02:45:05 PDT",
            "2017-10-03 02:45:05é",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn formatting() {
        let t = parse_time("2017-10-03 02:45:05.9").unwrap();
        assert_eq!(format_time(t), "2017-10-03 02:45:05");
        assert_eq!(format_day(t), "2017-10-03");
        assert_eq!(format_time(f64::NAN), "NaN s");
    }
}
