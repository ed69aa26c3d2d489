//! Date-times of cluster traces, as seconds since 1970-01-01 00:00:00 UTC.
//!
//! Accepted: `2017-10-03 02:45:05` (Philly, Helios), with `T` instead of the space, with a
//! fraction of a second (`02:45:05.250`), with an offset (`2023-03-01 00:18:22+08:00` in
//! Acme, `+0800`, `Z`), or a date alone (`2017-10-03`, its midnight). A date-time without an
//! offset is read as UTC: only differences between the times of one file matter to a
//! trace, and its files write every time in one clock.

use chrono::{DateTime, Datelike, NaiveDate, Timelike};

/// Seconds since 1970-01-01 00:00:00 UTC of a date-time in one of the accepted forms, or
/// `None` if the text is not one. The fields are read by position and the calendar checked
/// by `chrono` (its format-string parser would add 25 KB to the page's module).
pub fn parse_time(text: &str) -> Option<f64> {
    let t = text.trim().as_bytes();
    if t.len() < 10 || !t.is_ascii() || t[4] != b'-' || t[7] != b'-' {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(
        digits(&t[0..4])? as i32,
        digits(&t[5..7])?,
        digits(&t[8..10])?,
    )?;
    let midnight = date.and_hms_opt(0, 0, 0)?.and_utc().timestamp() as f64;
    if t.len() == 10 {
        return Some(midnight);
    }
    // `hh:mm:ss` after a space or `T`, then an optional fraction and offset.
    if t.len() < 19 || !matches!(t[10], b' ' | b'T' | b't') || t[13] != b':' || t[16] != b':' {
        return None;
    }
    let (h, m, sec) = (
        digits(&t[11..13])?,
        digits(&t[14..16])?,
        digits(&t[17..19])?,
    );
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let mut rest = &t[19..];
    let mut fraction = 0.0;
    if let Some(after) = rest.strip_prefix(b".") {
        let n = after.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        fraction = std::str::from_utf8(&rest[..n + 1])
            .ok()?
            .parse::<f64>()
            .ok()?;
        rest = &after[n..];
    }
    let offset = match rest {
        [] | [b'Z' | b'z'] => 0.0,
        [sign @ (b'+' | b'-'), oh1, oh2, b':', om1, om2]
        | [sign @ (b'+' | b'-'), oh1, oh2, om1, om2] => {
            let (oh, om) = (digits(&[*oh1, *oh2])?, digits(&[*om1, *om2])?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = f64::from(oh * 3600 + om * 60);
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    Some(midnight + f64::from(h * 3600 + m * 60 + sec) + fraction - offset)
}

/// The number written by ASCII digits alone.
fn digits(d: &[u8]) -> Option<u32> {
    d.iter().try_fold(0u32, |v, &c| {
        c.is_ascii_digit().then(|| v * 10 + u32::from(c - b'0'))
    })
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of a time in seconds since 1970, whole seconds rounded
/// down; an unrepresentable time gives its number of seconds.
pub fn format_time(s: f64) -> String {
    match DateTime::from_timestamp(s.floor() as i64, 0) {
        Some(d) if s.is_finite() => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            d.year(),
            d.month(),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        ),
        _ => format!("{s} s"),
    }
}

/// `YYYY-MM-DD` (UTC) of a time in seconds since 1970.
pub fn format_day(s: f64) -> String {
    match DateTime::from_timestamp(s.floor() as i64, 0) {
        Some(d) if s.is_finite() => format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
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
