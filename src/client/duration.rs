//! Durations as people write them on the command line, in config files and
//! in messages: `5s`, `1.5s`, `300ms`, or a bare number of seconds.
//!
//! Every duration a user gives is at most [`MAX_DURATION`], and every
//! deadline is computed with [`after`], so that no input can make a
//! deadline overflow the clock.

use std::time::{Duration, Instant};

/// The longest duration accepted for a deadline, a settle window or a grace
/// period: 24 hours, longer than any check a person or CI waits for.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// The instant `wait` after `from`, or the furthest instant the clock can
/// hold when that is beyond it: a deadline that never comes, never a panic.
pub fn after(from: Instant, wait: Duration) -> Instant {
    from.checked_add(wait)
        .or_else(|| from.checked_add(MAX_DURATION))
        .unwrap_or(from)
}

/// Parses `5`, `1.5`, `5s`, `1.5s` or `300ms`, up to [`MAX_DURATION`].
///
/// # Errors
///
/// A message naming the text when it is no such duration, or a longer one.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || format!("`{text}` is not a duration (expected e.g. `5s`, `1.5s` or `300ms`)");
    let (number, scale) = if let Some(millis) = text.strip_suffix("ms") {
        (millis, 0.001)
    } else if let Some(secs) = text.strip_suffix('s') {
        (secs, 1.0)
    } else {
        (text, 1.0)
    };
    let value: f64 = number.trim().parse().map_err(|_| invalid())?;
    if !value.is_finite() || value < 0.0 {
        return Err(invalid());
    }
    let too_long = || {
        format!(
            "`{text}` is out of range: a duration is at most 24h ({})",
            format_duration(MAX_DURATION)
        )
    };
    let duration = Duration::try_from_secs_f64(value * scale).map_err(|_| too_long())?;
    if duration > MAX_DURATION {
        return Err(too_long());
    }
    Ok(duration)
}

/// A duration as people write it: `5s`, `1.5s`, `300ms`.
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis % 1000 == 0 {
        format!("{}s", millis / 1000)
    } else {
        let mut text = format!("{:.3}", duration.as_secs_f64());
        while text.ends_with('0') {
            text.pop();
        }
        text.push('s');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_millis(300)), "300ms");
        assert_eq!(format_duration(Duration::from_secs(5)), "5s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn durations_parse_in_every_spelling() {
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(
            parse_duration("soon").unwrap_err(),
            "`soon` is not a duration (expected e.g. `5s`, `1.5s` or `300ms`)"
        );
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn durations_longer_than_a_day_are_refused_by_name() {
        assert_eq!(parse_duration("86400s"), Ok(MAX_DURATION));
        assert_eq!(
            parse_duration("86401").unwrap_err(),
            "`86401` is out of range: a duration is at most 24h (86400s)"
        );
        assert!(parse_duration("9223372036854775807s").is_err());
        assert!(parse_duration("1e300").is_err());
    }

    #[test]
    fn a_deadline_past_the_clock_saturates() {
        let now = Instant::now();
        assert_eq!(
            after(now, Duration::from_secs(1)),
            now + Duration::from_secs(1)
        );
        assert!(after(now, Duration::MAX) > now);
    }
}
