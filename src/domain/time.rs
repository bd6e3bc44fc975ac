//! Time as people read it: integer Unix seconds formatted as an RFC 3339 UTC time, for output
//! and for the messages operations write; and the one duration syntax every TTL and age flag
//! takes (`90s`, `45m`, `12h`, `30d`, `2w`, or plain seconds).

/// The longest duration [`parse_duration`] accepts: a hundred years, in seconds.
const MAX_DURATION: i64 = 100 * 365 * 86_400;

/// Parses a duration as every TTL and age flag takes it: a whole number with a unit (`90s`,
/// `45m`, `12h`, `30d`, `2w`), or plain seconds (`300`). Plain seconds may be negative, so that
/// the operation that receives them says why they are out of its range, as before units
/// existed.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let s = s.trim();
    if let Ok(n) = s.parse::<i64>() {
        return if n <= MAX_DURATION {
            Ok(n)
        } else {
            Err(format!("`{s}` is more than 100 years"))
        };
    }
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a duration such as 90s, 45m, 12h, 30d or 2w"))?;
    let unit = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => {
            return Err(format!(
            "`{s}`: the unit must be s, m, h, d or w (a duration such as 90s, 45m, 12h, 30d or 2w)"
        ))
        }
    };
    n.checked_mul(unit)
        .filter(|v| *v <= MAX_DURATION)
        .ok_or_else(|| format!("`{s}` is more than 100 years"))
}

/// [`parse_duration`] for a duration that cannot be negative (an age, a timeout).
pub fn parse_age(s: &str) -> Result<i64, String> {
    match parse_duration(s)? {
        n if n < 0 => {
            Err(format!("`{s}` is negative; a duration such as 90s, 45m, 12h, 30d or 2w"))
        }
        n => Ok(n),
    }
}

/// Formats integer Unix seconds as an RFC 3339 UTC time (`2026-11-29T08:48:13Z`).
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Ok(90));
        assert_eq!(parse_duration("-5"), Ok(-5));
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("5m"), Ok(300));
        assert_eq!(parse_duration("12h"), Ok(43_200));
        assert_eq!(parse_duration("30d"), Ok(2_592_000));
        assert_eq!(parse_duration("2w"), Ok(1_209_600));
        assert_eq!(parse_age("0d"), Ok(0));
        for bad in ["", "d", "-1d", "1y", "1.5d", "99999999999w", "1 d", "5 m", "m5", "4000000000"]
        {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_age("-5").is_err());
    }

    #[test]
    fn rfc3339_known_values() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_937_335), "2026-11-29T07:28:55Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}
