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

/// A duration as people say it, in its largest whole unit: `10 minutes`, `1 hour`, `90 seconds`.
pub fn human_duration(secs: i64) -> String {
    let (n, unit) = match secs {
        s if s >= 86_400 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s >= 3600 && s % 3600 == 0 => (s / 3600, "hour"),
        s if s >= 60 && s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
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

/// Parses an RFC 3339 UTC time (`2026-11-29T08:48:13Z`) or a date (`2026-11-29`, midnight UTC)
/// into Unix seconds: the inverse of [`rfc3339`].
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = match s.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut d = date.splitn(3, '-');
    let (y, m, day) = (d.next()?, d.next()?, d.next()?);
    if y.len() != 4 || m.len() != 2 || day.len() != 2 {
        return None;
    }
    let (y, m, day): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, day.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || day < 1 || day > days_in[usize::try_from(m - 1).ok()?] {
        return None;
    }
    let secs = match time {
        None => 0,
        Some(t) => {
            let t = t.strip_suffix(['Z', 'z']).or_else(|| t.strip_suffix("+00:00"))?;
            let mut p = t.splitn(3, ':');
            let (h, mi, se) = (p.next()?, p.next()?, p.next()?);
            if h.len() != 2 || mi.len() != 2 || se.len() != 2 {
                return None;
            }
            let (h, mi, se): (i64, i64, i64) =
                (h.parse().ok()?, mi.parse().ok()?, se.parse().ok()?);
            if h > 23 || mi > 59 || se > 59 {
                return None;
            }
            h * 3600 + mi * 60 + se
        }
    };
    // Days from civil (Howard Hinnant's algorithm), the inverse of `rfc3339`'s.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) * 86_400 + secs)
}

/// A point in time as a flag gives it: a duration ago (`2h`, `30d`), an RFC 3339 time or date
/// (`2026-11-29T08:48:13Z`, `2026-11-29`), or Unix seconds after `@` (`@1796175870`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeArg {
    Ago(i64),
    At(i64),
}

impl TimeArg {
    /// Parses a flag's value (see [`TimeArg`]).
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if let Some(secs) = s.strip_prefix('@') {
            return secs
                .parse()
                .map(Self::At)
                .map_err(|_| format!("`{s}`: Unix seconds after `@` must be a whole number"));
        }
        if let Some(t) = parse_rfc3339(s) {
            return Ok(Self::At(t));
        }
        match parse_age(s) {
            Ok(d) if s.ends_with(|c: char| c.is_ascii_alphabetic()) => Ok(Self::Ago(d)),
            _ => Err(format!(
                "`{s}` is not a time: give a duration ago (2h, 30d), an RFC 3339 time or date \
                 (2026-11-29T08:48:13Z, 2026-11-29) or Unix seconds after @ (@1796175870)"
            )),
        }
    }

    /// The time in Unix seconds, `now` being the present.
    pub fn at(self, now: i64) -> i64 {
        match self {
            Self::Ago(d) => now.saturating_sub(d),
            Self::At(t) => t,
        }
    }
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
    fn rfc3339_round_trips_and_times_parse() {
        for t in [0, 951_782_400, 1_795_937_335, -1, 4_102_444_799] {
            assert_eq!(parse_rfc3339(&rfc3339(t)), Some(t), "{t}");
        }
        assert_eq!(parse_rfc3339("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_rfc3339("2026-11-29T07:28:55+00:00"), Some(1_795_937_335));
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "2026-1-01",
            "2026-11-29T24:00:00Z",
            "2026-11-29T07:28:55+02:00",
            "x",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
        assert_eq!(TimeArg::parse("2h"), Ok(TimeArg::Ago(7200)));
        assert_eq!(TimeArg::parse("@1796175870"), Ok(TimeArg::At(1_796_175_870)));
        assert_eq!(TimeArg::parse("2000-02-29"), Ok(TimeArg::At(951_782_400)));
        assert_eq!(TimeArg::Ago(60).at(1000), 940);
        for bad in ["90", "-2h", "@x", "yesterday"] {
            assert!(TimeArg::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rfc3339_known_values() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_937_335), "2026-11-29T07:28:55Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}
