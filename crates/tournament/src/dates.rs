//! A tournament's dates, checked as ISO 8601 calendar dates.

use crate::command::Dates;
use crate::error::TournamentError;

/// Whether `s` is `YYYY-MM-DD`, a day that exists.
fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// Each date an ISO date, and the end not before the start.
pub fn check(dates: &Dates) -> Result<(), TournamentError> {
    for (field, value) in [("starts_on", &dates.starts_on), ("ends_on", &dates.ends_on)] {
        if let Some(v) = value {
            if !is_iso_date(v) {
                return Err(TournamentError::BadDate {
                    field,
                    value: v.clone(),
                });
            }
        }
    }
    if let (Some(s), Some(e)) = (&dates.starts_on, &dates.ends_on) {
        // ISO dates order as text.
        if e < s {
            return Err(TournamentError::DatesReversed {
                starts: s.clone(),
                ends: e.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_iso_days_pass() {
        for ok in ["2026-05-01", "2024-02-29", "2026-12-31"] {
            assert!(is_iso_date(ok), "{ok}");
        }
        for bad in [
            "2026-5-1",
            "2025-02-29",
            "2026-13-01",
            "01.05.2026",
            "2026-05-32",
            "+026-05-01",
        ] {
            assert!(!is_iso_date(bad), "{bad}");
        }
    }

    #[test]
    fn the_end_may_not_come_before_the_start() {
        let d = Dates {
            starts_on: Some("2026-05-02".into()),
            ends_on: Some("2026-05-01".into()),
        };
        assert!(matches!(
            check(&d),
            Err(TournamentError::DatesReversed { .. })
        ));
    }
}
