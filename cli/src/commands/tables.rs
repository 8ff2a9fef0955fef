//! The boxed tables the Supabase CLI's `status` and `start` print: one rounded table per group,
//! the group's name as a header across both columns, a row per value that is set, nothing for a
//! group without one. Setup scripts parse this layout (`│ Publishable │ sb_publishable_… │`),
//! so widths count what a terminal shows (an emoji takes two columns) and colours are added
//! only for a terminal.

use unicode_width::UnicodeWidthStr;

/// How a value is coloured on a terminal, as the CLI colours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Link,
    Key,
    Text,
}

pub struct Group<'a> {
    pub name: &'a str,
    /// Label, value, kind; rows without a value are left out.
    pub rows: Vec<(&'a str, Option<&'a str>, Kind)>,
}

/// ANSI styles the CLI uses (lipgloss colours 10, 11 and 14, and bold).
fn paint(s: &str, code: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

fn pad(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(s.width())))
}

/// One group as a table, or nothing when none of its rows has a value.
pub fn table(group: &Group, colour: bool) -> String {
    let rows: Vec<(&str, &str, Kind)> = group
        .rows
        .iter()
        .filter_map(|(label, value, kind)| {
            value.filter(|v| !v.is_empty()).map(|v| (*label, v, *kind))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let w0 = rows.iter().map(|r| r.0.width()).max().unwrap_or(0);
    let mut w1 = rows.iter().map(|r| r.1.width()).max().unwrap_or(0);
    // The header spans both columns and the border between them; a longer name widens the
    // value column.
    let inner = |w1: usize| w0 + 2 + 1 + w1 + 2;
    w1 += (group.name.width() + 2).saturating_sub(inner(w1));
    let line = |left: &str, mid: Option<&str>, right: &str| match mid {
        Some(m) => format!(
            "{left}{}{m}{}{right}\n",
            "─".repeat(w0 + 2),
            "─".repeat(w1 + 2)
        ),
        None => format!("{left}{}{right}\n", "─".repeat(inner(w1))),
    };
    let mut out = line("╭", None, "╮");
    out.push_str(&format!(
        "│ {} │\n",
        paint(&pad(group.name, inner(w1) - 2), "1", colour)
    ));
    out.push_str(&line("├", Some("┬"), "┤"));
    for (label, value, kind) in rows {
        let code = match kind {
            Kind::Link => Some("96"),
            Kind::Key => Some("93"),
            Kind::Text => None,
        };
        let value = pad(value, w1);
        let value = match code {
            Some(c) => paint(&value, c, colour),
            None => value,
        };
        out.push_str(&format!(
            "│ {} │ {value} │\n",
            paint(&pad(label, w0), "92", colour)
        ));
    }
    out.push_str(&line("╰", Some("┴"), "╯"));
    out
}

/// Every group, each followed by an empty line (as the CLI prints them, empty groups included).
pub fn render(groups: &[Group], colour: bool) -> String {
    groups
        .iter()
        .map(|g| format!("{}\n", table(g, colour)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_laid_out_as_the_cli_prints_them() {
        let keys = Group {
            name: "🔑 Authentication Keys",
            rows: vec![
                (
                    "Publishable",
                    Some("sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"),
                    Kind::Key,
                ),
                (
                    "Secret",
                    Some("sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"),
                    Kind::Key,
                ),
                ("Unset", None, Kind::Key),
            ],
        };
        assert_eq!(
            table(&keys, false),
            "╭──────────────────────────────────────────────────────────────╮\n\
             │ 🔑 Authentication Keys                                       │\n\
             ├─────────────┬────────────────────────────────────────────────┤\n\
             │ Publishable │ sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH │\n\
             │ Secret      │ sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz      │\n\
             ╰─────────────┴────────────────────────────────────────────────╯\n"
        );
        let db = Group {
            name: "⛁ Database",
            rows: vec![(
                "URL",
                Some("postgresql://postgres:postgres@127.0.0.1:54322/postgres"),
                Kind::Link,
            )],
        };
        assert_eq!(
            table(&db, false),
            "╭───────────────────────────────────────────────────────────────╮\n\
             │ ⛁ Database                                                    │\n\
             ├─────┬─────────────────────────────────────────────────────────┤\n\
             │ URL │ postgresql://postgres:postgres@127.0.0.1:54322/postgres │\n\
             ╰─────┴─────────────────────────────────────────────────────────╯\n"
        );
    }

    #[test]
    fn empty_groups_print_nothing_and_long_names_widen_the_table() {
        let none = Group {
            name: "📦 Storage (S3)",
            rows: vec![("URL", None, Kind::Link)],
        };
        assert_eq!(table(&none, false), "");
        let narrow = Group {
            name: "🔧 Development Tools",
            rows: vec![("A", Some("b"), Kind::Text)],
        };
        let t = table(&narrow, false);
        let widths: Vec<usize> = t.lines().map(UnicodeWidthStr::width).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{t}");
        assert!(t.contains("│ A │ b                │\n"), "{t}");
    }

    #[test]
    fn colours_only_when_asked() {
        let g = Group {
            name: "🌐 APIs",
            rows: vec![("REST", Some("http://x/rest/v1"), Kind::Link)],
        };
        assert!(!table(&g, false).contains('\x1b'));
        let c = table(&g, true);
        assert!(c.contains("\x1b[92mREST\x1b[0m") && c.contains("\x1b[96mhttp://x/rest/v1\x1b[0m"));
    }
}
