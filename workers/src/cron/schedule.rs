//! pg_cron's schedules, read as pg_cron 1.6 reads them: five cron fields (minute, hour, day of
//! month or `$` for the month's last day, month, day of week; lists, ranges, steps, three-letter
//! month and day names, Sunday as 0 or 7; what follows the fifth field is not read), an `@` name
//! (`@reboot`, `@yearly`, `@monthly`, `@weekly`, `@daily`, `@hourly` and their synonyms), or
//! `'[1-59] seconds'`. The extension's script checks schedules with the same rules
//! (`cron._valid_schedule` in extensions/pg_cron--1.6.sql). Times are UTC (pg_cron's
//! `cron.timezone` defaults to GMT).

use chrono::{DateTime, Datelike, Duration, Timelike, Utc};
use nom::{
    IResult, Parser,
    branch::alt,
    character::complete::{alphanumeric1, char, digit1},
    combinator::{all_consuming, map, opt},
    sequence::preceded,
};

/// Schedules this long or longer are refused (pg_cron's buffer).
const MAX_LEN: usize = 1000;

/// pg_cron's words for a schedule it cannot read (its hint is in the extension's script).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid schedule: {0}")]
pub struct InvalidSchedule(pub String);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    /// Every so many seconds (1 to 59), counted from the start of the last run.
    Seconds(u32),
    /// Once, when the scheduler starts.
    Reboot,
    Cron(Cron),
}

/// The minutes a cron schedule runs at: one bit per value of each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    minute: u64,
    hour: u64,
    dom: u64,
    month: u64,
    dow: u64,
    /// `$`: the month's last day.
    last_dom: bool,
    /// The day-of-month or day-of-week field began with `*`: a day must then match both
    /// fields; otherwise either.
    day_star: bool,
}

const MONTHS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const DAYS: &[&str] = &["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// One field's bounds and names.
struct Field {
    low: u32,
    high: u32,
    names: &'static [&'static str],
}

const MINUTE: Field = Field {
    low: 0,
    high: 59,
    names: &[],
};
const HOUR: Field = Field {
    low: 0,
    high: 23,
    names: &[],
};
const DOM: Field = Field {
    low: 1,
    high: 31,
    names: &[],
};
const MONTH: Field = Field {
    low: 1,
    high: 12,
    names: MONTHS,
};
const DOW: Field = Field {
    low: 0,
    high: 7,
    names: DAYS,
};

/// Reads `text` as pg_cron does.
pub fn parse(text: &str) -> Result<Schedule, InvalidSchedule> {
    let invalid = || InvalidSchedule(text.to_string());
    if text.len() >= MAX_LEN {
        return Err(invalid());
    }
    if let Some(seconds) = interval(text) {
        return (1..=59)
            .contains(&seconds)
            .then_some(Schedule::Seconds(seconds))
            .ok_or_else(invalid);
    }
    let rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    if let Some(name) = rest.strip_prefix('@') {
        let name = name.split([' ', '\t', '\n']).next().unwrap_or_default();
        return special(name).ok_or_else(invalid);
    }
    let fields: Vec<&str> = rest.split([' ', '\t']).filter(|f| !f.is_empty()).collect();
    if fields.len() < 5 {
        return Err(invalid());
    }
    let dow_text = fields[4].split('\n').next().unwrap_or_default();
    let (dom, last_dom) = if fields[2] == "$" {
        (0, true)
    } else {
        (list(fields[2], &DOM).ok_or_else(invalid)?, false)
    };
    let dow = list(dow_text, &DOW).ok_or_else(invalid)?;
    Ok(Schedule::Cron(Cron {
        minute: list(fields[0], &MINUTE).ok_or_else(invalid)?,
        hour: list(fields[1], &HOUR).ok_or_else(invalid)?,
        dom,
        month: list(fields[3], &MONTH).ok_or_else(invalid)?,
        dow: sundays(dow),
        last_dom,
        day_star: fields[2].starts_with('*') || dow_text.starts_with('*'),
    }))
}

/// `N seconds` (or `N second`), any case and spacing: N, when the text has that form.
fn interval(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let s = lower.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let s = s.strip_prefix('+').unwrap_or(s);
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let (number, s) = s.split_at(digits);
    let s = s
        .trim_start_matches(|c: char| c.is_ascii_whitespace())
        .strip_prefix("second")?;
    let s = s.strip_prefix('s').unwrap_or(s);
    if !s.chars().all(|c| c.is_ascii_whitespace()) {
        return None;
    }
    let number = number.trim_start_matches('0');
    // Too many digits is no number of seconds pg_cron takes.
    Some(if number.len() > 2 {
        u32::MAX
    } else {
        number.parse().unwrap_or(0)
    })
}

fn special(name: &str) -> Option<Schedule> {
    let all = |f: &Field| bits(f.low, f.high, 1);
    let cron = |minute: u64, hour: u64, dom: u64, month: u64, dow: u64, day_star: bool| {
        Schedule::Cron(Cron {
            minute,
            hour,
            dom,
            month,
            dow,
            last_dom: false,
            day_star,
        })
    };
    let first = |f: &Field| 1u64 << f.low;
    Some(match name {
        "reboot" | "restart" => Schedule::Reboot,
        "yearly" | "annually" => cron(1, 1, first(&DOM), first(&MONTH), all(&DOW), true),
        "monthly" => cron(1, 1, first(&DOM), all(&MONTH), all(&DOW), true),
        "weekly" => cron(1, 1, all(&DOM), all(&MONTH), sundays(1), true),
        "daily" | "midnight" => cron(1, 1, all(&DOM), all(&MONTH), all(&DOW), false),
        "hourly" => cron(1, all(&HOUR), all(&DOM), all(&MONTH), all(&DOW), false),
        _ => return None,
    })
}

/// Sunday is both 0 and 7.
fn sundays(dow: u64) -> u64 {
    if dow & (1 | 1 << 7) != 0 {
        dow | 1 | 1 << 7
    } else {
        dow
    }
}

fn bits(from: u32, to: u32, step: u32) -> u64 {
    (from..=to)
        .step_by(step as usize)
        .fold(0, |acc, v| acc | 1 << v)
}

/// One element of a list as written: its start (`*` or a number or name), its end, its step.
type Element<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);

fn element(i: &str) -> IResult<&str, Element<'_>> {
    (
        alt((map(char('*'), |_| None), map(alphanumeric1, Some))),
        opt(preceded(char('-'), alphanumeric1)),
        opt(preceded(char('/'), digit1)),
    )
        .parse(i)
}

/// A field's list as a bit per value; None when pg_cron would refuse it.
fn list(text: &str, field: &Field) -> Option<u64> {
    let mut set = 0;
    for part in text.split(',') {
        let (_, (start, end, step)) = all_consuming(element).parse(part).ok()?;
        let (from, to) = match (start, end) {
            (None, None) => (field.low, field.high),
            (None, Some(_)) => return None,
            // A step needs a range: `1/20` is refused.
            (Some(_), None) if step.is_some() => return None,
            (Some(a), None) => {
                let a = number(a, field)?;
                (a, a)
            }
            (Some(a), Some(b)) => (number(a, field)?, number(b, field)?),
        };
        let step = match step {
            None => 1,
            Some(s) if s.len() <= 9 => s.parse::<u32>().ok()?,
            Some(_) => return None,
        };
        if step == 0 || step > field.high {
            return None;
        }
        if from <= to {
            set |= bits(from, to, step);
        }
    }
    Some(set)
}

/// A value of a field: a name of it (any case) or a number within its bounds.
fn number(text: &str, field: &Field) -> Option<u32> {
    let n = match field
        .names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(text))
    {
        Some(i) => i as u32 + field.low,
        None if text.len() <= 9 && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok()?,
        None => return None,
    };
    (field.low..=field.high).contains(&n).then_some(n)
}

impl Cron {
    /// Whether the schedule runs in the minute that `t` falls in (UTC).
    pub fn matches(&self, t: DateTime<Utc>) -> bool {
        let on = |set: u64, v: u32| set & (1 << v) != 0;
        let last_dom = (t + Duration::days(1)).day() == 1;
        let dom = on(self.dom, t.day()) || (self.last_dom && last_dom);
        let dow = on(self.dow, t.weekday().num_days_from_sunday());
        on(self.minute, t.minute())
            && on(self.hour, t.hour())
            && on(self.month, t.month())
            && if self.day_star {
                dom && dow
            } else {
                dom || dow
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
    }

    /// What pg_cron accepts and refuses (its entry.c and TryParseInterval).
    #[test]
    fn schedules_are_accepted_and_refused_as_pg_cron_does() {
        let cases: &[(&str, bool)] = &[
            ("* * * * *", true),
            ("*/5 * * * *", true),
            ("0 4 * * *", true),
            ("5 4 * * *", true),
            ("0-59/15 * * * *", true),
            ("1,2,3 1-5 1-31/2 1-12 0-7", true),
            ("0 9 * JAN-dec mon-FRI", true),
            ("0 0 $ * *", true),
            ("  0 0 1 1 *", true),
            ("* * * * * extra words", true),
            ("@reboot", true),
            ("@restart", true),
            ("@yearly", true),
            ("@annually", true),
            ("@monthly", true),
            ("@weekly", true),
            ("@daily", true),
            ("@midnight", true),
            ("@hourly", true),
            ("@hourly and more", true),
            ("1 seconds", true),
            ("10 seconds", true),
            ("59 seconds", true),
            ("2 second", true),
            ("10 SECONDS", true),
            ("10seconds", true),
            (" 30 seconds ", true),
            ("0 seconds", false),
            ("60 seconds", false),
            ("100 seconds", false),
            ("10 minutes", false),
            ("10 secondsx", false),
            ("@every", false),
            ("@Daily", false),
            ("", false),
            ("* * * *", false),
            ("* * * * ", false),
            ("60 * * * *", false),
            ("* 24 * * *", false),
            ("* * 0 * *", false),
            ("* * 32 * *", false),
            ("* * * 13 *", false),
            ("* * * * 8", false),
            ("1/20 * * * *", false),
            ("*/0 * * * *", false),
            ("*/60 * * * *", false),
            ("1,,2 * * * *", false),
            ("* * $1 * *", false),
            ("* * * Janu *", false),
            ("a b c d e", false),
            ("*-5 * * * *", false),
        ];
        for (text, ok) in cases {
            assert_eq!(parse(text).is_ok(), *ok, "{text:?}");
        }
        assert_eq!(
            parse("nope").unwrap_err().to_string(),
            "invalid schedule: nope"
        );
        assert_eq!(parse("10 seconds"), Ok(Schedule::Seconds(10)));
        assert_eq!(parse("@reboot"), Ok(Schedule::Reboot));
        assert!(parse(&"1".repeat(MAX_LEN)).is_err());
    }

    /// Which minutes each schedule runs at: (schedule, time, runs).
    #[test]
    fn cron_schedules_run_at_their_minutes() {
        let cases: &[(&str, DateTime<Utc>, bool)] = &[
            ("* * * * *", at(2026, 11, 28, 10, 7), true),
            ("*/5 * * * *", at(2026, 11, 28, 10, 10), true),
            ("*/5 * * * *", at(2026, 11, 28, 10, 11), false),
            ("5 4 * * *", at(2026, 11, 28, 4, 5), true),
            ("5 4 * * *", at(2026, 11, 28, 5, 5), false),
            // 2026-11-28 is a Saturday, 2026-11-29 a Sunday.
            ("0 9 * * mon-fri", at(2026, 11, 28, 9, 0), false),
            ("0 9 * * sat", at(2026, 11, 28, 9, 0), true),
            ("0 9 * * 7", at(2026, 11, 29, 9, 0), true),
            ("0 9 * * 0", at(2026, 11, 29, 9, 0), true),
            // Day of month and day of week both restricted: either matches.
            ("0 9 1 * sat", at(2026, 11, 28, 9, 0), true),
            ("0 9 1 * sun", at(2026, 11, 28, 9, 0), false),
            // One of them a star: both must match.
            ("0 9 * * sun", at(2026, 11, 28, 9, 0), false),
            ("0 9 */2 * sat", at(2026, 11, 28, 9, 0), false),
            ("0 9 */2 * sat", at(2026, 11, 27, 9, 0), false),
            ("0 0 $ * *", at(2026, 11, 30, 0, 0), true),
            ("0 0 $ * *", at(2026, 11, 29, 0, 0), false),
            ("0 0 $ * *", at(2028, 2, 29, 0, 0), true),
            ("0 0 * jun *", at(2026, 6, 3, 0, 0), true),
            ("0 0 * jun *", at(2026, 7, 3, 0, 0), false),
            ("10-5 * * * *", at(2026, 7, 3, 0, 7), false),
            ("@hourly", at(2026, 11, 28, 10, 0), true),
            ("@hourly", at(2026, 11, 28, 10, 1), false),
            ("@daily", at(2026, 11, 28, 0, 0), true),
            ("@daily", at(2026, 11, 28, 1, 0), false),
            ("@weekly", at(2026, 11, 29, 0, 0), true),
            ("@weekly", at(2026, 11, 28, 0, 0), false),
            ("@monthly", at(2026, 12, 1, 0, 0), true),
            ("@monthly", at(2026, 12, 2, 0, 0), false),
            ("@yearly", at(2027, 1, 1, 0, 0), true),
            ("@yearly", at(2027, 2, 1, 0, 0), false),
        ];
        for (text, t, runs) in cases {
            let Ok(Schedule::Cron(c)) = parse(text) else {
                panic!("{text:?} is a cron schedule")
            };
            assert_eq!(c.matches(*t), *runs, "{text:?} at {t}");
        }
    }
}
