//! Rows of text as the commands print them: an aligned table (`db advisors -o table`, `inspect
//! db`, `db query`) or CSV (`inspect report`, `db query -o csv`). Pure.

/// An aligned table, a header row and a rule under it, cells separated by `|` as the CLI's
/// plain renderer lays out `migration list`. A cell's line breaks become spaces.
pub fn table<S: AsRef<str>>(headers: &[&str], rows: &[impl AsRef<[S]>]) -> String {
    let clean = |s: &str| s.replace(['\n', '\r'], " ");
    let mut cells: Vec<Vec<String>> = vec![headers.iter().map(|h| clean(h)).collect()];
    for r in rows {
        cells.push(r.as_ref().iter().map(|c| clean(c.as_ref())).collect());
    }
    let width: Vec<usize> = (0..headers.len())
        .map(|c| {
            cells
                .iter()
                .map(|row| row.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
                + 2
        })
        .collect();
    let line = |row: &[String]| {
        let parts: Vec<String> = (0..headers.len())
            .map(|c| {
                let s = row.get(c).map_or("", String::as_str);
                format!(" {s:<w$}", w = width[c] - 1)
            })
            .collect();
        format!("  {}\n", parts.join("|").trim_end())
    };
    let mut out = line(&cells[0]);
    let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
    out += &format!("  {}\n", rule.join("|"));
    for row in &cells[1..] {
        out += &line(row);
    }
    out
}

/// One CSV field, quoted when it must be (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Rows as CSV with a header line.
pub fn csv<S: AsRef<str>>(headers: &[&str], rows: &[impl AsRef<[S]>]) -> String {
    let mut out = String::new();
    let line = |fields: Vec<String>| format!("{}\n", fields.join(","));
    out += &line(headers.iter().map(|h| csv_field(h)).collect());
    for r in rows {
        out += &line(r.as_ref().iter().map(|c| csv_field(c.as_ref())).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_csv_quotes() {
        let rows = vec![vec!["1", "a\nb"], vec!["22", ""]];
        assert_eq!(
            table(&["n", "text"], &rows),
            "   n  | text\n  ----|------\n   1  | a b\n   22 |\n"
        );
        assert_eq!(
            csv(&["n", "text"], &[vec!["1", "say \"hi\", twice"]]),
            "n,text\n1,\"say \"\"hi\"\", twice\"\n"
        );
    }
}
