//! Wall-clock time for the header and default file names, in UTC, converted
//! by hand: two formats do not justify a date crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment as UTC calendar fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

impl Utc {
    /// Now (times before 1970 are clamped to the epoch).
    pub(crate) fn now() -> Utc {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Utc::from_unix(secs)
    }

    /// The calendar fields of a Unix time.
    pub(crate) fn from_unix(secs: u64) -> Utc {
        let days = (secs / 86_400) as i64;
        let of_day = (secs % 86_400) as u32;
        let (year, month, day) = civil_from_days(days);
        Utc {
            year,
            month,
            day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
        }
    }

    /// RFC 3339, e.g. `2026-11-29T08:05:09Z`.
    pub(crate) fn rfc3339(self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// The compact form for file names, e.g. `20261129T080509Z`.
    pub(crate) fn compact(self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// The proleptic Gregorian date of a count of days since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_moments() {
        assert_eq!(Utc::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Utc::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Utc::from_unix(1_709_251_199).rfc3339(),
            "2024-02-29T23:59:59Z"
        );
        assert_eq!(
            Utc::from_unix(4_102_444_800).rfc3339(),
            "2100-01-01T00:00:00Z"
        );
        assert_eq!(Utc::from_unix(1_798_761_600).compact(), "20270101T000000Z");
    }

    #[test]
    fn every_day_follows_the_one_before() {
        // Walk four centuries a day at a time: the date must advance by one
        // day each step, through every month end and leap day.
        let mut previous = Utc::from_unix(0);
        for day in 1..146_097u64 {
            let next = Utc::from_unix(day * 86_400);
            let month_days = match previous.month {
                2 if previous.year % 4 == 0
                    && (previous.year % 100 != 0 || previous.year % 400 == 0) =>
                {
                    29
                }
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            let expected = if previous.day < month_days {
                (previous.year, previous.month, previous.day + 1)
            } else if previous.month < 12 {
                (previous.year, previous.month + 1, 1)
            } else {
                (previous.year + 1, 1, 1)
            };
            assert_eq!((next.year, next.month, next.day), expected, "day {day}");
            previous = next;
        }
    }
}
