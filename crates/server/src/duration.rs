//! Durations as an operator writes them, for every duration flag and its `ARBITER_*` variable.
//!
//! Accepted forms:
//!
//! - a number and a unit: `500ms`, `10s`, `1.5s`, `2m`, `1h` (`ms`, `s`, `m`, `h`, with or
//!   without a space before the unit);
//! - several of them, largest first or not, with or without spaces: `1m30s`, `1h 30m`,
//!   `2s 500ms`; the longer unit names humantime reads (`min`, `sec`, `hours`, `d`, `us`, ...)
//!   are taken too;
//! - a plain number: seconds (`3`, `0.5`).
//!
//! At most one year. Compound forms are read by the humantime crate; the single forms are read
//! here, as they always were, so that a plain number stays seconds.

use std::time::Duration;

/// Longest duration accepted: one year, in seconds.
pub const MAX_SECONDS: u64 = 365 * 86_400;

/// Reads a duration in one of the forms of the module documentation.
///
/// # Errors
///
/// A message that names the text, the forms accepted and what is wrong (an unknown unit, a
/// number that does not read, more than a year).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let duration = match single(text) {
        Some(single) => single?,
        None => humantime::parse_duration(text).map_err(|error| {
            format!(
                "{text:?} is not a duration such as \"10s\", \"500ms\", \"1m30s\" or \"1.5h\": {error}"
            )
        })?,
    };
    if duration > Duration::from_secs(MAX_SECONDS) {
        return Err(format!("{text:?} is longer than a year"));
    }
    Ok(duration)
}

/// Reads a duration that must be longer than zero (a timeout of zero would fail every call).
///
/// # Errors
///
/// As [`parse_duration`], and when the duration is zero.
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(format!(
            "{:?} is zero: this timeout must be longer than 0",
            text.trim()
        ));
    }
    Ok(duration)
}

/// A plain number (seconds) or a number and one of the units `ms`, `s`, `m`, `h`: the forms
/// read before compound durations were, kept exactly (fractions and a space before the unit
/// included). `None` when `text` is not of this shape (left to humantime).
fn single(text: &str) -> Option<Result<Duration, String>> {
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let per_unit = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    if number.is_empty() {
        return None;
    }
    let Ok(value) = number.parse::<f64>() else {
        return Some(Err(format!(
            "{text:?} is not a duration such as \"10s\", \"500ms\", \"1m30s\" or \"1.5h\": \
             {number:?} is not a number"
        )));
    };
    let seconds = value * per_unit;
    if !(0.0..=MAX_SECONDS as f64).contains(&seconds) {
        return Some(Err(format!("{text:?} is longer than a year")));
    }
    Some(Ok(Duration::from_secs_f64(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_single_forms_read_as_before() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration(" 10 s "), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
    }

    /// Issue 27 item 8: `--request-timeout 1m30s` was refused ("unknown duration unit
    /// \"m30s\""). Compound durations are read by humantime.
    #[test]
    fn r_compound_durations_are_read() {
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2s500ms"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_duration("1min"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
    }

    #[test]
    fn what_is_not_a_duration_is_refused_with_the_reason() {
        for refused in ["", "ten", "5x", "s", "1m30", "-1s", "1..5s", "10 parsecs"] {
            let error = parse_duration(refused).expect_err(refused);
            assert!(
                error.starts_with(&format!("{refused:?}")),
                "{refused}: {error}"
            );
        }
        assert_eq!(
            parse_duration("5x"),
            Err(
                "\"5x\" is not a duration such as \"10s\", \"500ms\", \"1m30s\" or \"1.5h\": \
                 unknown time unit \"x\", supported units: ns, us/µs, ms, sec, min, hours, days, \
                 weeks, months, years (and few variations)"
                    .to_owned()
            )
        );
        assert_eq!(
            parse_duration("366d"),
            Err("\"366d\" is longer than a year".to_owned())
        );
        assert_eq!(
            parse_duration("9000h"),
            Err("\"9000h\" is longer than a year".to_owned())
        );
        assert_eq!(parse_duration("365d"), Ok(Duration::from_secs(MAX_SECONDS)));
    }

    #[test]
    fn a_timeout_must_be_longer_than_zero() {
        assert_eq!(
            parse_positive_duration("0s"),
            Err("\"0s\" is zero: this timeout must be longer than 0".to_owned())
        );
        assert_eq!(
            parse_positive_duration("0m0s"),
            Err("\"0m0s\" is zero: this timeout must be longer than 0".to_owned())
        );
        assert_eq!(parse_positive_duration("1ms"), Ok(Duration::from_millis(1)));
    }
}
