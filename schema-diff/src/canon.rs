//! Expressions as PostgreSQL prints them after reading them back. PostgreSQL keeps
//! `a BETWEEN 1 AND 8 AND b` as `(a >= 1 AND a <= 8) AND b` and prints it with those
//! parentheses, but reading that text back merges the nested ANDs: created again from its own
//! printed definition, a check constraint prints differently, and two databases built the two
//! ways would never compare equal. Nested chains of the same operator are merged here, as
//! PostgreSQL's parser merges them, so that every expression is read in the form it keeps.

/// One character of an expression outside quotes: its depth in parentheses after it.
fn depths(s: &str) -> Vec<(usize, char, i32, bool)> {
    let mut out = Vec::with_capacity(s.len());
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) => {
                if c == q {
                    // A doubled quote stays inside.
                    if chars.peek().map(|(_, n)| *n) == Some(q) {
                        out.push((i, c, depth, true));
                        let (j, n) = chars.next().expect("peeked");
                        out.push((j, n, depth, true));
                        continue;
                    }
                    quote = None;
                }
                out.push((i, c, depth, true));
            }
            None => {
                match c {
                    '\'' | '"' => quote = Some(c),
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                out.push((i, c, depth, quote.is_some() || c == '\'' || c == '"'));
            }
        }
    }
    out
}

/// The top-level (depth 0) parts of `s` split by ` op ` (`AND` or `OR`), or None when `s` has
/// no such operator at its top level or another of the two.
fn split_top<'s>(s: &'s str, op: &str) -> Option<Vec<&'s str>> {
    let other = if op == "AND" { " OR " } else { " AND " };
    let sep = format!(" {op} ");
    let d = depths(s);
    let at_top = |pat: &str| -> Vec<usize> {
        s.match_indices(pat)
            .map(|(i, _)| i)
            .filter(|i| {
                let k = d.partition_point(|(j, ..)| j < i);
                // Depth before the match: that of the previous character (0 at the start).
                let before = if k == 0 { 0 } else { d[k - 1].2 };
                before == 0 && !d.get(k).is_some_and(|x| x.3)
            })
            .collect()
    };
    if !at_top(other).is_empty() {
        return None;
    }
    let cuts = at_top(&sep);
    if cuts.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    let mut start = 0;
    for c in cuts {
        parts.push(&s[start..c]);
        start = c + sep.len();
    }
    parts.push(&s[start..]);
    Some(parts)
}

/// `s` without one pair of parentheses around all of it, when it has one.
fn unwrap(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    // The first parenthesis must close at the very end.
    let d = depths(s);
    let closes_early = d
        .iter()
        .take(d.len().saturating_sub(1))
        .any(|(_, c, depth, quoted)| *c == ')' && !quoted && *depth == 0);
    (!closes_early).then_some(inner)
}

/// Merges nested chains of the same boolean operator, everywhere in `expr`.
pub fn flatten(expr: &str) -> String {
    // Innermost groups first: rewrite each parenthesized group's content.
    let mut out = String::with_capacity(expr.len());
    let d = depths(expr);
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < d.len() {
        let (_, c, _, quoted) = d[i];
        out.push(c);
        if !quoted && c == '(' {
            stack.push(out.len());
        } else if !quoted
            && c == ')'
            && let Some(start) = stack.pop()
        {
            let content = out[start..out.len() - 1].to_string();
            let merged = merge(&content);
            out.truncate(start);
            out.push_str(&merged);
            out.push(')');
        }
        i += 1;
    }
    merge(&out)
}

/// One level: `(a AND b) AND c` → `a AND b AND c` (likewise OR).
fn merge(content: &str) -> String {
    for op in ["AND", "OR"] {
        let Some(parts) = split_top(content, op) else {
            continue;
        };
        let merged: Vec<String> = parts
            .iter()
            .map(|p| match unwrap(p) {
                Some(inner) if split_top(inner, op).is_some() => inner.to_string(),
                _ => p.to_string(),
            })
            .collect();
        return merged.join(&format!(" {op} "));
    }
    content.to_string()
}

#[cfg(test)]
mod tests {
    use super::flatten;

    #[test]
    fn nested_chains_of_one_operator_merge_as_postgresql_reads_them() {
        let cases = [
            (
                "CHECK ((((cardinality(colors) >= 1) AND (cardinality(colors) <= 8)) AND (colors <@ ARRAY['a'::text])))",
                "CHECK (((cardinality(colors) >= 1) AND (cardinality(colors) <= 8) AND (colors <@ ARRAY['a'::text])))",
            ),
            (
                "(((a = 1) OR (b = 2)) OR (c = 3))",
                "((a = 1) OR (b = 2) OR (c = 3))",
            ),
            // Different operators never merge.
            (
                "(((a = 1) OR (b = 2)) AND (c = 3))",
                "(((a = 1) OR (b = 2)) AND (c = 3))",
            ),
            // Quoted text is left alone.
            (
                "((name = '(x AND y) AND z'::text) AND (\"AND\" = 'a''b'::text))",
                "((name = '(x AND y) AND z'::text) AND (\"AND\" = 'a''b'::text))",
            ),
            ("(((a AND b) AND c) AND d)", "(a AND b AND c AND d)"),
            ("(auth.uid() = user_id)", "(auth.uid() = user_id)"),
            ("f((a AND b) AND c)", "f(a AND b AND c)"),
        ];
        for (input, want) in cases {
            assert_eq!(flatten(input), want, "{input}");
        }
    }
}
