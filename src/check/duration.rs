//! Durations as people write them on the command line, in config files and
//! in messages: `5s`, `1.5s`, `300ms`, or a bare number of seconds.

use std::time::Duration;

/// Parses `5`, `1.5`, `5s`, `1.5s` or `300ms`.
///
/// # Errors
///
/// A message naming the text when it is no such duration.
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
    Duration::try_from_secs_f64(value * scale).map_err(|_| invalid())
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
}
