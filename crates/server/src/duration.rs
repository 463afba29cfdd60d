//! Durations as an operator writes them, for every duration flag and its `ARBITER_*` variable:
//! a number and a unit (`250ms`, `10s`, `2m`, `1h`) or a plain number of seconds.

use std::time::Duration;

/// Parses a duration that must be longer than zero (a timeout of zero would fail every call).
///
/// # Errors
///
/// As [`parse_duration`], and when the duration is zero.
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(format!(
            "{text:?} is zero: this timeout must be longer than 0"
        ));
    }
    Ok(duration)
}

/// Parses a duration such as "250ms", "10s", "2m", "1h", or a bare number of seconds.
///
/// # Errors
///
/// Returns a message naming the problem when the text is not such a duration.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration such as \"10s\" or \"500ms\""))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit {other:?}: use ms, s, m or h"
            ));
        }
    };
    if !(0.0..=86_400.0 * 365.0).contains(&seconds) {
        return Err(format!("{text:?} is out of range"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert!(parse_positive_duration("0s").is_err());
        assert_eq!(parse_positive_duration("1ms"), Ok(Duration::from_millis(1)));
    }
}
