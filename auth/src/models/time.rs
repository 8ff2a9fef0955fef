//! A timestamp written as PostgreSQL writes a `timestamptz` into JSON in UTC
//! (`2024-05-01T10:20:30.5+00:00`: microseconds without trailing zeros), as the models always showed it.

use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};

/// A moment of a `timestamptz` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(pub DateTime<Utc>);

impl From<DateTime<Utc>> for Timestamp {
    fn from(t: DateTime<Utc>) -> Self {
        Timestamp(t)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%dT%H:%M:%S"))?;
        let micros = self.0.timestamp_subsec_micros();
        if micros != 0 {
            let digits = format!("{micros:06}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        f.write_str("+00:00")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn written_as_postgres_writes_json() {
        let at = |micros: i64| {
            Timestamp(
                Utc.timestamp_opt(1_714_558_830, 0).unwrap()
                    + chrono::Duration::microseconds(micros),
            )
        };
        let cases = [
            (0, "2024-05-01T10:20:30+00:00"),
            (500_000, "2024-05-01T10:20:30.5+00:00"),
            (123_456, "2024-05-01T10:20:30.123456+00:00"),
            (120, "2024-05-01T10:20:30.00012+00:00"),
        ];
        for (micros, want) in cases {
            assert_eq!(serde_json::to_value(at(micros)).unwrap(), want, "{micros}");
        }
    }
}
