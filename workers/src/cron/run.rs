//! What a job's run is recorded as in `cron.job_run_details`, from what the server said: as
//! pg_cron 1.6 with background workers records it, the last statement's command tag
//! (`SELECT 1`, `INSERT 0 1`) when it succeeded, and `ERROR: message` with its `DETAIL`, `HINT`
//! and `CONTEXT` lines when it failed.

use pg::pipeline::{Notice, Said};

/// A run's last status and `return_message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: &'static str,
    pub message: Option<String>,
}

/// pg_cron's words for a run whose connection could not be made.
pub const CONNECTION_FAILED: &str = "connection failed";

/// How a run ended.
pub fn outcome(said: &Said) -> Outcome {
    if said.copy {
        return Outcome {
            status: "failed",
            message: Some("COPY not supported".into()),
        };
    }
    if let Some(e) = &said.error {
        return Outcome {
            status: "failed",
            message: Some(display(e)),
        };
    }
    Outcome {
        status: "succeeded",
        message: said
            .tags
            .last()
            .cloned()
            .or_else(|| said.notices.last().map(display)),
    }
}

/// A run whose connection broke or could not be made.
pub fn broken(reason: &str) -> Outcome {
    Outcome {
        status: "failed",
        message: Some(reason.to_string()),
    }
}

/// An error or notice as pg_cron shows it.
fn display(e: &Notice) -> String {
    let mut text = format!("{}: {}", e.severity, e.message);
    for (label, v) in [
        ("DETAIL", &e.detail),
        ("HINT", &e.hint),
        ("CONTEXT", &e.context),
    ] {
        if let Some(v) = v {
            text.push_str(&format!("\n{label}: {v}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(message: &str, detail: Option<&str>, context: Option<&str>) -> Notice {
        Notice {
            severity: "ERROR".into(),
            message: message.into(),
            detail: detail.map(Into::into),
            hint: None,
            context: context.map(Into::into),
        }
    }

    #[test]
    fn runs_are_recorded_as_pg_cron_records_them() {
        let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: Vec<(Said, &str, Option<&str>)> = vec![
            (
                Said {
                    tags: tags(&["SELECT 1"]),
                    ..Default::default()
                },
                "succeeded",
                Some("SELECT 1"),
            ),
            (
                Said {
                    tags: tags(&["INSERT 0 1", "UPDATE 3"]),
                    ..Default::default()
                },
                "succeeded",
                Some("UPDATE 3"),
            ),
            (
                Said {
                    tags: tags(&["INSERT 0 1"]),
                    error: Some(error("relation \"nope\" does not exist", None, None)),
                    ..Default::default()
                },
                "failed",
                Some("ERROR: relation \"nope\" does not exist"),
            ),
            (
                Said {
                    error: Some(error(
                        "boom",
                        Some("why"),
                        Some("PL/pgSQL function f() line 3 at RAISE"),
                    )),
                    ..Default::default()
                },
                "failed",
                Some("ERROR: boom\nDETAIL: why\nCONTEXT: PL/pgSQL function f() line 3 at RAISE"),
            ),
            (
                Said {
                    copy: true,
                    tags: tags(&["COPY 0"]),
                    ..Default::default()
                },
                "failed",
                Some("COPY not supported"),
            ),
            (Said::default(), "succeeded", None),
        ];
        for (said, status, message) in cases {
            let o = outcome(&said);
            assert_eq!(
                (o.status, o.message.as_deref()),
                (status, message),
                "{said:?}"
            );
        }
        assert_eq!(broken(CONNECTION_FAILED).status, "failed");
    }
}
