//! The recent output of the project's functions (what Studio's function logs show): the last
//! lines each process printed, oldest first, bounded in count and length.

use parking_lot::Mutex;
use std::collections::VecDeque;

/// Lines kept in all (the oldest go first).
pub const KEPT_LINES: usize = 2000;
/// Characters kept of one line.
pub const LINE_CHARS: usize = 4000;

#[derive(Debug, Clone, serde::Serialize)]
pub struct LogLine {
    /// Counts up from 1 over the run: a reader asks for what came after the last it saw.
    pub seq: u64,
    pub at: chrono::DateTime<chrono::Utc>,
    pub function: String,
    /// `stdout` or `stderr`.
    pub stream: &'static str,
    pub line: String,
}

#[derive(Default)]
pub struct LogBook {
    inner: Mutex<(u64, VecDeque<LogLine>)>,
}

impl LogBook {
    pub fn push(&self, function: &str, stream: &'static str, line: &str) {
        let mut g = self.inner.lock();
        g.0 += 1;
        let seq = g.0;
        if g.1.len() == KEPT_LINES {
            g.1.pop_front();
        }
        g.1.push_back(LogLine {
            seq,
            at: chrono::Utc::now(),
            function: function.to_string(),
            stream,
            line: line.chars().take(LINE_CHARS).collect(),
        });
    }

    /// The lines after `after` (0: all kept), of one function or all, at most `limit`, the
    /// newest ones when there are more.
    pub fn since(&self, after: u64, function: Option<&str>, limit: usize) -> Vec<LogLine> {
        let g = self.inner.lock();
        let mut found: Vec<LogLine> =
            g.1.iter()
                .rev()
                .filter(|l| l.seq > after && function.is_none_or(|f| l.function == f))
                .take(limit)
                .cloned()
                .collect();
        found.reverse();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_lines_in_order_and_reads_after_a_point() {
        let book = LogBook::default();
        for i in 0..(KEPT_LINES + 5) {
            book.push(
                if i % 2 == 0 { "a" } else { "b" },
                "stdout",
                &format!("line {i}"),
            );
        }
        let all = book.since(0, None, usize::MAX);
        assert_eq!(all.len(), KEPT_LINES);
        assert_eq!(all[0].line, "line 5");
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
        let last = all.last().unwrap().seq;
        assert!(book.since(last, None, 10).is_empty());
        let a = book.since(last - 4, Some("a"), 10);
        assert_eq!(
            a.iter().map(|l| l.function.as_str()).collect::<Vec<_>>(),
            ["a", "a"]
        );
        assert_eq!(book.since(0, None, 3).len(), 3);
        assert_eq!(book.since(0, None, 3)[2].seq, last);
        book.push("c", "stderr", &"x".repeat(LINE_CHARS + 10));
        assert_eq!(book.since(0, Some("c"), 1)[0].line.len(), LINE_CHARS);
    }
}
