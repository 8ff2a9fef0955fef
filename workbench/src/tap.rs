//! The Test Anything Protocol as pgTAP writes it (one file's output), judged and summed up the
//! way pg_prove (TAP::Harness) does, except that every failing assertion is shown whole.

use std::fmt::Write;

/// One `ok` / `not ok` line and the `#` diagnostics that follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    pub number: u32,
    pub ok: bool,
    pub description: String,
    /// `# TODO`: a failure that does not count.
    pub todo: bool,
    /// `# SKIP`.
    pub skip: bool,
    pub diagnostics: Vec<String>,
}

/// What one test file printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOutput {
    /// `1..N`.
    pub planned: Option<u32>,
    /// `1..0 # SKIP why`: the whole file was skipped.
    pub skip_all: Option<String>,
    pub assertions: Vec<Assertion>,
    /// `Bail out! why`.
    pub bailed: Option<String>,
    /// `#` lines before the first assertion.
    pub preamble: Vec<String>,
}

/// Splits `text # DIRECTIVE reason` into the text and whether it is TODO / SKIP.
fn directive(rest: &str) -> (String, bool, bool) {
    if let Some(i) = rest.find(" # ") {
        let d = rest[i + 3..].trim_start().to_ascii_uppercase();
        let todo = d.starts_with("TODO");
        let skip = d.starts_with("SKIP");
        if todo || skip {
            return (rest[..i].trim().to_string(), todo, skip);
        }
    }
    (rest.trim().to_string(), false, false)
}

/// `ok 3 - description` → (3, "description", todo, skip).
fn assertion(line: &str, ok: bool) -> Option<Assertion> {
    let rest = line.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let number = rest[..digits].parse().ok()?;
    let rest = rest[digits..].trim_start();
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let (description, todo, skip) = directive(rest);
    Some(Assertion {
        number,
        ok,
        description,
        todo,
        skip,
        diagnostics: Vec::new(),
    })
}

pub fn parse(output: &str) -> FileOutput {
    let mut f = FileOutput::default();
    for raw in output.lines() {
        let line = raw.trim_end();
        if let Some(plan) = line.strip_prefix("1..") {
            let (n, _, skip) = directive(plan);
            f.planned = n.parse().ok();
            if skip && f.planned == Some(0) {
                f.skip_all = Some(plan.split_once('#').map_or("", |x| x.1).trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("not ok") {
            f.assertions.extend(assertion(rest, false));
        } else if let Some(rest) = line.strip_prefix("ok") {
            f.assertions.extend(assertion(rest, true));
        } else if let Some(why) = line.strip_prefix("Bail out!") {
            f.bailed = Some(why.trim().to_string());
        } else if line.starts_with('#') {
            match f.assertions.last_mut() {
                Some(a) => a.diagnostics.push(line.to_string()),
                None => f.preamble.push(line.to_string()),
            }
        }
    }
    f
}

/// One file's verdict: its output and how its run ended.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub name: String,
    pub output: FileOutput,
    /// psql's error (with its file and line) when the run stopped on one.
    pub error: Option<String>,
}

impl Verdict {
    pub fn failed_numbers(&self) -> Vec<u32> {
        self.output
            .assertions
            .iter()
            .filter(|a| !a.ok && !a.todo)
            .map(|a| a.number)
            .collect()
    }

    /// The number of assertions that ran.
    pub fn tests(&self) -> usize {
        self.output.assertions.len()
    }

    /// Why the file did not pass, in pg_prove's words where it has them; empty when it passed.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        let failed = self.failed_numbers();
        if !failed.is_empty() {
            let list: Vec<String> = failed.iter().map(u32::to_string).collect();
            p.push(format!(
                "Failed test{}:  {}",
                if failed.len() == 1 { "" } else { "s" },
                list.join(", ")
            ));
        }
        if let Some(e) = &self.error {
            p.push(format!("Stopped by an error: {e}"));
        }
        if let Some(b) = &self.output.bailed {
            p.push(format!("Bailed out: {b}"));
        }
        match self.output.planned {
            Some(n) if n as usize != self.tests() && self.output.skip_all.is_none() => p.push(
                format!("Bad plan.  You planned {n} tests but ran {}.", self.tests()),
            ),
            None if self.error.is_none() => p.push("No plan found in TAP output".into()),
            _ => {}
        }
        p
    }

    pub fn passed(&self) -> bool {
        self.problems().is_empty()
    }

    /// The file's line as pg_prove prints it, preceded by each failing assertion in full.
    pub fn line(&self, width: usize) -> String {
        let mut out = String::new();
        let dots = ".".repeat(width.saturating_sub(self.name.chars().count()) + 2);
        for a in self.output.assertions.iter().filter(|a| !a.ok && !a.todo) {
            let _ = writeln!(out, "not ok {} - {}", a.number, a.description);
            for d in &a.diagnostics {
                let _ = writeln!(out, "{d}");
            }
        }
        if let Some(e) = &self.error {
            let _ = writeln!(out, "{e}");
        }
        let status = if let Some(why) = &self.output.skip_all {
            format!("skipped: {why}")
        } else if self.passed() {
            "ok".to_string()
        } else if !self.failed_numbers().is_empty() {
            format!(
                "Failed {}/{} subtests",
                self.failed_numbers().len(),
                self.tests()
            )
        } else if self.error.is_some() {
            "Dubious, psql stopped on an error".to_string()
        } else {
            "Failed".to_string()
        };
        let _ = write!(out, "{} {dots} {status}", self.name);
        out
    }
}

/// The summary after every file: the failing files' report, the counts and `Result:`.
pub fn summary(verdicts: &[Verdict], seconds: f64) -> String {
    let mut out = String::new();
    let failing: Vec<&Verdict> = verdicts.iter().filter(|v| !v.passed()).collect();
    if failing.is_empty() {
        out.push_str("All tests successful.\n");
    } else {
        out.push_str("\nTest Summary Report\n-------------------\n");
        for v in &failing {
            let _ = writeln!(
                out,
                "{} (Tests: {} Failed: {})",
                v.name,
                v.tests(),
                v.failed_numbers().len()
            );
            for p in v.problems() {
                let _ = writeln!(out, "  {p}");
            }
        }
    }
    let tests: usize = verdicts.iter().map(Verdict::tests).sum();
    let _ = writeln!(
        out,
        "Files={}, Tests={tests}, {seconds:.2} wallclock secs",
        verdicts.len()
    );
    let _ = writeln!(
        out,
        "Result: {}",
        if failing.is_empty() { "PASS" } else { "FAIL" }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(output: &str, error: Option<&str>) -> Verdict {
        Verdict {
            name: "tests/a.sql".into(),
            output: parse(output),
            error: error.map(str::to_string),
        }
    }

    #[test]
    fn outputs_as_pgtap_writes_them() {
        // (output, error, passed, failed numbers, problems)
        type Case<'a> = (&'a str, Option<&'a str>, bool, &'a [u32], &'a [&'a str]);
        let cases: &[Case] = &[
            ("1..2\nok 1 - a\nok 2 - b\n", None, true, &[], &[]),
            (
                "1..2\nok 1 - a\nnot ok 2 - b\n# Failed test 2: \"b\"\n#         have: 0\n#         want: 1\n",
                None,
                false,
                &[2],
                &["Failed test:  2"],
            ),
            (
                "1..1\nnot ok 1 - later # TODO not yet\n",
                None,
                true,
                &[],
                &[],
            ),
            ("1..0 # SKIP no table\n", None, true, &[], &[]),
            (
                "1..3\nok 1\nok 2\n",
                None,
                false,
                &[],
                &["Bad plan.  You planned 3 tests but ran 2."],
            ),
            ("ok 1\n", None, false, &[], &["No plan found in TAP output"]),
            (
                "1..2\nok 1 - a\n",
                Some("psql:a.sql:4: ERROR:  relation \"x\" does not exist"),
                false,
                &[],
                &[
                    "Stopped by an error: psql:a.sql:4: ERROR:  relation \"x\" does not exist",
                    "Bad plan.  You planned 2 tests but ran 1.",
                ],
            ),
            (
                "1..2\nnot ok 1 - a\nnot ok 2 - b\n",
                None,
                false,
                &[1, 2],
                &["Failed tests:  1, 2"],
            ),
            (
                "1..1\nBail out! broken\n",
                None,
                false,
                &[],
                &[
                    "Bailed out: broken",
                    "Bad plan.  You planned 1 tests but ran 0.",
                ],
            ),
        ];
        for (out, err, passed, failed, problems) in cases {
            let v = verdict(out, *err);
            assert_eq!(v.passed(), *passed, "{out}");
            assert_eq!(v.failed_numbers(), *failed, "{out}");
            assert_eq!(v.problems(), *problems, "{out}");
        }
    }

    #[test]
    fn a_failing_assertion_is_shown_in_full() {
        let v = verdict(
            "1..2\nok 1 - a\nnot ok 2 - owner sees the row\n# Failed test 2: \"owner sees the row\"\n#         have: 0\n#         want: 1\n",
            None,
        );
        assert_eq!(
            v.line(14),
            "not ok 2 - owner sees the row\n# Failed test 2: \"owner sees the row\"\n\
             #         have: 0\n#         want: 1\ntests/a.sql ..... Failed 1/2 subtests"
        );
        let s = summary(&[v], 0.5);
        assert!(
            s.contains("tests/a.sql (Tests: 2 Failed: 1)\n  Failed test:  2\n"),
            "{s}"
        );
        assert!(
            s.ends_with("Files=1, Tests=2, 0.50 wallclock secs\nResult: FAIL\n"),
            "{s}"
        );
        let ok = verdict("1..1\nok 1\n", None);
        assert_eq!(ok.line(11), "tests/a.sql .. ok");
        assert!(summary(&[ok], 0.1).starts_with("All tests successful.\nFiles=1, Tests=1"));
    }
}
