//! Times as the formats write them: Unix seconds, or ISO 8601
//! (`2020-10-18T20:48:57+00:00`, `20201018T204857Z`, Polemica's
//! `2025-04-05T14:00:00.000` without a zone, read as UTC).

/// Milliseconds since the Unix epoch of an ISO 8601 date-time, or `None`.
pub fn parse_iso(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, rest) = s.split_once(['T', ' '])?;
    let (y, mo, d) = if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) {
        (num(&date[0..4])?, num(&date[4..6])?, num(&date[6..8])?)
    } else {
        let mut it = date.split('-');
        let y = num(it.next()?)?;
        let mo = num(it.next()?)?;
        let d = num(it.next()?)?;
        if it.next().is_some() {
            return None;
        }
        (y, mo, d)
    };
    // The zone: Z, ±HH:MM, ±HHMM, or none (UTC).
    let (clock, offset_min) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(pos) = rest.rfind(['+', '-']) {
        let (c, z) = rest.split_at(pos);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let digits: String = z[1..].chars().filter(|c| *c != ':').collect();
        if digits.len() != 4 {
            return None;
        }
        (c, sign * (num(&digits[0..2])? * 60 + num(&digits[2..4])?))
    } else {
        (rest, 0)
    };
    let (hms, frac) = match clock.split_once('.') {
        Some((a, b)) => (a, b),
        None => (clock, ""),
    };
    let (h, mi, sec) = if !hms.contains(':') && hms.len() == 6 {
        (num(&hms[0..2])?, num(&hms[2..4])?, num(&hms[4..6])?)
    } else {
        let mut it = hms.split(':');
        let h = num(it.next()?)?;
        let mi = num(it.next()?)?;
        let sec = match it.next() {
            Some(x) => num(x)?,
            None => 0,
        };
        (h, mi, sec)
    };
    let ms = if frac.is_empty() {
        0
    } else {
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let f: String = frac.chars().chain("000".chars()).take(3).collect();
        num(&f)?
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    secs.checked_mul(1000)?.checked_add(ms)
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_of_every_form_read_as_the_same_instant() {
        let t = 1_603_054_137_000;
        assert_eq!(parse_iso("2020-10-18T20:48:57+00:00"), Some(t));
        assert_eq!(parse_iso("20201018T204857Z"), Some(t));
        assert_eq!(parse_iso("2020-10-18T23:48:57+03:00"), Some(t));
        assert_eq!(parse_iso("2020-10-18T20:48:57.250"), Some(t + 250));
        assert_eq!(parse_iso("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso("yesterday"), None);
        assert_eq!(parse_iso("2020-13-01T00:00:00"), None);
    }
}
