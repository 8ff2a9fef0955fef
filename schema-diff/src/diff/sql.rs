//! The SQL of each kind of object: how it is created, named in other statements, and how its
//! sequence parameters and columns are written.

use super::Statement;
use crate::model::*;

/// Type bounds of sequences.
fn type_bounds(data_type: &str) -> (i64, i64) {
    match data_type {
        "smallint" => (i16::MIN as i64, i16::MAX as i64),
        "integer" => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

/// The sequence parameters that differ from what a sequence of `o.data_type` (bigint for a
/// standalone sequence, `as_type`; the column's type for an identity) has by default.
pub fn seq_clauses(o: &SeqOptions, default_type: &str) -> Vec<String> {
    let mut out = Vec::new();
    if o.data_type != default_type {
        out.push(format!("AS {}", o.data_type));
    }
    let (tmin, tmax) = type_bounds(&o.data_type);
    let ascending = o.increment > 0;
    let (dmin, dmax) = if ascending { (1, tmax) } else { (tmin, -1) };
    if o.increment != 1 {
        out.push(format!("INCREMENT BY {}", o.increment));
    }
    if o.min != dmin {
        out.push(format!("MINVALUE {}", o.min));
    }
    if o.max != dmax {
        out.push(format!("MAXVALUE {}", o.max));
    }
    let dstart = if ascending { o.min } else { o.max };
    if o.start != dstart {
        out.push(format!("START WITH {}", o.start));
    }
    if o.cache != 1 {
        out.push(format!("CACHE {}", o.cache));
    }
    if o.cycle {
        out.push("CYCLE".into());
    }
    out
}

/// The parameters that change from `a` to `b`, as ALTER SEQUENCE takes them.
pub fn seq_changes(a: &SeqOptions, b: &SeqOptions, with_type: bool) -> Vec<String> {
    let mut out = Vec::new();
    if with_type && a.data_type != b.data_type {
        out.push(format!("AS {}", b.data_type));
    }
    if a.increment != b.increment {
        out.push(format!("INCREMENT BY {}", b.increment));
    }
    if a.min != b.min {
        out.push(format!("MINVALUE {}", b.min));
    }
    if a.max != b.max {
        out.push(format!("MAXVALUE {}", b.max));
    }
    if a.start != b.start {
        out.push(format!("START WITH {}", b.start));
    }
    if a.cache != b.cache {
        out.push(format!("CACHE {}", b.cache));
    }
    if a.cycle != b.cycle {
        out.push(if b.cycle { "CYCLE" } else { "NO CYCLE" }.into());
    }
    out
}

pub fn identity_clause(column_type: &str, i: &Identity) -> String {
    let kind = if i.always { "ALWAYS" } else { "BY DEFAULT" };
    let options = seq_clauses(&i.options, column_type);
    if options.is_empty() {
        format!("GENERATED {kind} AS IDENTITY")
    } else {
        format!("GENERATED {kind} AS IDENTITY ({})", options.join(" "))
    }
}

/// A column as CREATE TABLE and ADD COLUMN write it; its default inline when `with_default`.
pub fn column_definition(c: &Column, with_default: bool) -> String {
    let mut s = format!("{} {}", ident(&c.name), c.type_name);
    if let Some(coll) = &c.collation {
        s.push_str(&format!(" COLLATE {coll}"));
    }
    if let Some(expr) = &c.generated {
        s.push_str(&format!(" GENERATED ALWAYS AS ({expr}) STORED"));
    } else if with_default && let Some(d) = &c.default {
        s.push_str(&format!(" DEFAULT {d}"));
    }
    match &c.identity {
        Some(i) => {
            s.push(' ');
            s.push_str(&identity_clause(&c.type_name, i));
        }
        None if c.not_null => s.push_str(" NOT NULL"),
        None => {}
    }
    s
}

/// CREATE TABLE, columns inline; `with_default(column)`: whether its default goes inline.
pub fn create_table(q: &QName, t: &Table, with_default: impl Fn(&str) -> bool) -> String {
    let unlogged = if t.unlogged { "UNLOGGED " } else { "" };
    let mut sql = format!("CREATE {unlogged}TABLE {q}");
    if let Some((parent, bound)) = &t.partition_of {
        sql.push_str(&format!(" PARTITION OF {parent} {bound}"));
    } else {
        let columns: Vec<String> = t
            .columns
            .iter()
            .filter(|c| c.local)
            .map(|c| format!("    {}", column_definition(c, with_default(&c.name))))
            .collect();
        if columns.is_empty() {
            sql.push_str(" ()");
        } else {
            sql.push_str(&format!(" (\n{}\n)", columns.join(",\n")));
        }
        if !t.inherits.is_empty() {
            let parents: Vec<String> = t.inherits.iter().map(|p| p.to_string()).collect();
            sql.push_str(&format!(" INHERITS ({})", parents.join(", ")));
        }
    }
    if let Some(key) = &t.partition_key {
        sql.push_str(&format!(" PARTITION BY {key}"));
    }
    if !t.options.is_empty() {
        sql.push_str(&format!(" WITH ({})", t.options.join(", ")));
    }
    sql
}

pub fn create_type(q: &QName, kind: &TypeKind) -> String {
    match kind {
        TypeKind::Enum(labels) => {
            let labels: Vec<String> = labels.iter().map(|l| literal(l)).collect();
            format!("CREATE TYPE {q} AS ENUM ({})", labels.join(", "))
        }
        TypeKind::Composite(attributes) => {
            let attributes: Vec<String> = attributes.iter().map(attribute).collect();
            format!("CREATE TYPE {q} AS ({})", attributes.join(", "))
        }
        TypeKind::Domain(d) => {
            let mut sql = format!("CREATE DOMAIN {q} AS {}", d.base);
            if let Some(c) = &d.collation {
                sql.push_str(&format!(" COLLATE {c}"));
            }
            if let Some(default) = &d.default {
                sql.push_str(&format!(" DEFAULT {default}"));
            }
            if d.not_null {
                sql.push_str(" NOT NULL");
            }
            for (name, def) in &d.constraints {
                sql.push_str(&format!(" CONSTRAINT {} {def}", ident(name)));
            }
            sql
        }
    }
}

pub fn attribute(a: &Attribute) -> String {
    match &a.collation {
        Some(c) => format!("{} {} COLLATE {c}", ident(&a.name), a.type_name),
        None => format!("{} {}", ident(&a.name), a.type_name),
    }
}

pub fn create_sequence(q: &QName, s: &Sequence) -> String {
    let clauses = seq_clauses(&s.options, "bigint");
    if clauses.is_empty() {
        format!("CREATE SEQUENCE {q}")
    } else {
        format!("CREATE SEQUENCE {q} {}", clauses.join(" "))
    }
}

pub fn create_view(q: &QName, v: &View) -> String {
    let kind = if v.materialized {
        "MATERIALIZED VIEW"
    } else {
        "VIEW"
    };
    let options = if v.options.is_empty() {
        String::new()
    } else {
        format!(" WITH ({})", v.options.join(", "))
    };
    let query = v.definition.trim().trim_end_matches(';').trim_end();
    format!("CREATE {kind} {q}{options} AS\n{query}")
}

pub fn view_kind(v: &View) -> &'static str {
    if v.materialized {
        "MATERIALIZED VIEW"
    } else {
        "VIEW"
    }
}

pub fn create_policy(table: &QName, name: &str, p: &Policy) -> String {
    let mut sql = format!("CREATE POLICY {} ON {table}", ident(name));
    if !p.permissive {
        sql.push_str(" AS RESTRICTIVE");
    }
    sql.push_str(&format!(" FOR {}", p.command));
    let roles: Vec<String> = p
        .roles
        .iter()
        .map(|r| {
            if r == "PUBLIC" {
                "public".to_string()
            } else {
                ident(r)
            }
        })
        .collect();
    sql.push_str(&format!(" TO {}", roles.join(", ")));
    if let Some(u) = &p.using {
        sql.push_str(&format!(" USING ({u})"));
    }
    if let Some(c) = &p.check {
        sql.push_str(&format!(" WITH CHECK ({c})"));
    }
    sql
}

/// `WITH (publish = '…', publish_via_partition_root = true)` when not the defaults.
fn publication_options(p: &Publication, always: bool) -> Option<String> {
    let mut options = Vec::new();
    let all = ["insert", "update", "delete", "truncate"];
    if always || p.publish != all {
        options.push(format!("publish = {}", literal(&p.publish.join(", "))));
    }
    if always || p.via_root {
        options.push(format!("publish_via_partition_root = {}", p.via_root));
    }
    (!options.is_empty()).then(|| options.join(", "))
}

pub fn create_publication(name: &str, p: &Publication) -> String {
    let mut sql = format!("CREATE PUBLICATION {}", ident(name));
    if p.all_tables {
        sql.push_str(" FOR ALL TABLES");
    }
    if let Some(o) = publication_options(p, false) {
        sql.push_str(&format!(" WITH ({o})"));
    }
    sql
}

pub fn set_publication_options(name: &str, p: &Publication) -> String {
    format!(
        "ALTER PUBLICATION {} SET ({})",
        ident(name),
        publication_options(p, true).unwrap_or_default()
    )
}

pub fn publish_table(name: &str, table: &QName, t: &PublishedTable) -> String {
    let mut sql = format!("ALTER PUBLICATION {} ADD TABLE {table}", ident(name));
    if let Some(cols) = &t.columns {
        let cols: Vec<String> = cols.iter().map(|c| ident(c)).collect();
        sql.push_str(&format!(" ({})", cols.join(", ")));
    }
    if let Some(f) = &t.filter {
        sql.push_str(&format!(" WHERE ({f})"));
    }
    sql
}

/// `COMMENT ON … IS …` when the comment changes.
pub fn comment(on: &str, from: Option<&String>, to: Option<&String>) -> Option<Statement> {
    (from != to).then(|| {
        Statement::new(format!(
            "COMMENT ON {on} IS {}",
            to.map_or("NULL".to_string(), |c| literal(c))
        ))
    })
}

/// `ALTER <kind> … OWNER TO …` when the owner changes.
pub fn owner(alter: &str, from: &str, to: &str) -> Option<Statement> {
    (from != to).then(|| Statement::new(format!("ALTER {alter} OWNER TO {}", ident(to))))
}

pub fn function_kind(f: &Function) -> &'static str {
    if f.kind == 'p' {
        "PROCEDURE"
    } else {
        "FUNCTION"
    }
}

pub fn type_kind(t: &TypeDef) -> &'static str {
    if matches!(t.kind, TypeKind::Domain(_)) {
        "DOMAIN"
    } else {
        "TYPE"
    }
}

/// `ALTER TABLE … ENABLE/DISABLE … TRIGGER …` for a trigger's firing state.
pub fn trigger_state(table: &QName, name: &str, enabled: char) -> String {
    let state = match enabled {
        'D' => "DISABLE",
        'R' => "ENABLE REPLICA",
        'A' => "ENABLE ALWAYS",
        _ => "ENABLE",
    };
    format!("ALTER TABLE {table} {state} TRIGGER {}", ident(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(data_type: &str, start: i64, inc: i64, min: i64, max: i64) -> SeqOptions {
        SeqOptions {
            data_type: data_type.into(),
            start,
            increment: inc,
            min,
            max,
            cache: 1,
            cycle: false,
        }
    }

    #[test]
    fn sequence_parameters_are_written_only_when_not_the_defaults() {
        let cases = [
            (opts("bigint", 1, 1, 1, i64::MAX), "bigint", ""),
            (
                opts("integer", 1, 1, 1, i32::MAX as i64),
                "bigint",
                "AS integer",
            ),
            (opts("integer", 1, 1, 1, i32::MAX as i64), "integer", ""),
            (
                opts("bigint", 100, 10, 1, i64::MAX),
                "bigint",
                "INCREMENT BY 10 START WITH 100",
            ),
            (
                opts("bigint", -1, -1, i64::MIN, -1),
                "bigint",
                "INCREMENT BY -1",
            ),
            (
                opts("bigint", 5, 1, 5, 50),
                "bigint",
                "MINVALUE 5 MAXVALUE 50",
            ),
        ];
        for (o, default_type, want) in cases {
            assert_eq!(seq_clauses(&o, default_type).join(" "), want, "{o:?}");
        }
    }

    #[test]
    fn columns() {
        let base = Column {
            name: "id".into(),
            type_name: "bigint".into(),
            collation: None,
            not_null: true,
            default: None,
            identity: None,
            generated: None,
            local: true,
            comment: None,
            acl: Acl::new(),
        };
        let cases = [
            (base.clone(), "\"id\" bigint NOT NULL"),
            (
                Column {
                    identity: Some(Identity {
                        always: true,
                        options: opts("bigint", 1, 1, 1, i64::MAX),
                    }),
                    ..base.clone()
                },
                "\"id\" bigint GENERATED ALWAYS AS IDENTITY",
            ),
            (
                Column {
                    name: "n".into(),
                    type_name: "text".into(),
                    collation: Some("\"C\"".into()),
                    not_null: false,
                    default: Some("'x'::text".into()),
                    ..base.clone()
                },
                "\"n\" text COLLATE \"C\" DEFAULT 'x'::text",
            ),
            (
                Column {
                    name: "full".into(),
                    type_name: "text".into(),
                    not_null: false,
                    generated: Some("(a || b)".into()),
                    ..base.clone()
                },
                "\"full\" text GENERATED ALWAYS AS ((a || b)) STORED",
            ),
        ];
        for (c, want) in cases {
            assert_eq!(column_definition(&c, true), want);
        }
    }
}
