//! Splits a SQL file into statements the way PostgreSQL's lexer sees them: semicolons inside
//! quotes, quoted identifiers, dollar-quoted bodies, comments and `BEGIN ATOMIC … END` bodies do
//! not end a statement.

/// One statement and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub text: String,
    pub line: usize,
    /// Byte offset of the statement's first character in the file.
    pub offset: usize,
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The dollar-quote tag starting at `i` (`$$` or `$tag$`), if one starts there.
fn dollar_tag(b: &[u8], i: usize) -> Option<&[u8]> {
    if b[i] != b'$' || (i > 0 && is_ident_char(b[i - 1])) {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] >= 0x80) {
        if j == i + 1 && b[j].is_ascii_digit() {
            return None; // $1 is a parameter, not a tag
        }
        j += 1;
    }
    (j < b.len() && b[j] == b'$').then(|| &b[i..=j])
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Splits `sql` into trimmed, non-empty statements (comment-only pieces are dropped).
pub fn split(sql: &str) -> Vec<Statement> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Words seen at nesting level 0 of the current statement, for BEGIN ATOMIC … END.
    let mut prev_word = String::new();
    let mut atomic_depth = 0usize;
    // Where the current statement's first code (not comment) character is.
    let mut code_start: Option<usize> = None;
    // The line of the last statement pushed and where it starts: each statement's line is
    // counted on from there (counting from the file's start each time is quadratic).
    let mut counted = (0usize, 1usize);
    let mut push = |out: &mut Vec<Statement>, from: Option<usize>, to: usize| {
        if let Some(offset) = from {
            let (at, line) = counted;
            let line = line + sql[at..offset].matches('\n').count();
            counted = (offset, line);
            out.push(Statement {
                text: sql[offset..to].trim_end().to_string(),
                line,
                offset,
            });
        }
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = find(b, b"\n", i).map_or(b.len(), |p| p + 1);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 1;
                i += 2;
                while i < b.len() && depth > 0 {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'\'' => {
                code_start.get_or_insert(i);
                let escapes = i > 0
                    && (b[i - 1] == b'E' || b[i - 1] == b'e')
                    && !(i > 1 && is_ident_char(b[i - 2]));
                i += 1;
                while i < b.len() {
                    if escapes && b[i] == b'\\' {
                        i += 2;
                    } else if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                        } else {
                            i += 1;
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                prev_word.clear();
                continue;
            }
            b'"' => {
                code_start.get_or_insert(i);
                i = find(b, b"\"", i + 1).map_or(b.len(), |p| p + 1);
                while i < b.len() && b[i] == b'"' {
                    // "" inside an identifier
                    i = find(b, b"\"", i + 1).map_or(b.len(), |p| p + 1);
                }
                prev_word.clear();
                continue;
            }
            b'$' => {
                if let Some(tag) = dollar_tag(b, i) {
                    code_start.get_or_insert(i);
                    let tag = tag.to_vec();
                    i = find(b, &tag, i + tag.len()).map_or(b.len(), |p| p + tag.len());
                    prev_word.clear();
                    continue;
                }
            }
            b';' if atomic_depth == 0 => {
                push(&mut out, code_start.take(), i + 1);
                i += 1;
                prev_word.clear();
                continue;
            }
            _ => {}
        }
        if is_ident_char(c) {
            code_start.get_or_insert(i);
            let from = i;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            let word = sql[from..i].to_ascii_uppercase();
            let opens =
                (word == "ATOMIC" && prev_word == "BEGIN") || (atomic_depth > 0 && word == "CASE");
            if opens {
                atomic_depth += 1;
            } else if atomic_depth > 0 && word == "END" {
                atomic_depth -= 1;
            }
            prev_word = word;
            continue;
        }
        if !c.is_ascii_whitespace() {
            code_start.get_or_insert(i);
        }
        i += 1;
    }
    push(&mut out, code_start, b.len());
    out
}

/// The statement containing byte `offset` of the file (as PostgreSQL's error position gives it).
pub fn statement_at(statements: &[Statement], offset: usize) -> Option<&Statement> {
    statements.iter().rev().find(|s| s.offset <= offset)
}

/// Whether PostgreSQL refuses to run this statement inside a transaction block (`CREATE INDEX
/// CONCURRENTLY`, `DROP INDEX CONCURRENTLY`, `REINDEX … CONCURRENTLY`, `VACUUM`, `CREATE` or `DROP
/// DATABASE` and `TABLESPACE`, `ALTER SYSTEM`). The Supabase CLI sends a migration file as one
/// pipeline, which PostgreSQL lets such a statement open (and no later one): a file may begin
/// with one. `text` starts at the statement's first keyword, as [`split`] gives it.
pub fn outside_transaction(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .take(8)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match w(0) {
        "VACUUM" => true,
        "ALTER" => w(1) == "SYSTEM",
        "CREATE" if w(1) == "UNIQUE" => w(2) == "INDEX" && w(3) == "CONCURRENTLY",
        "CREATE" | "DROP" => match w(1) {
            "INDEX" => w(2) == "CONCURRENTLY",
            "DATABASE" | "TABLESPACE" => true,
            _ => false,
        },
        // REINDEX [ ( options ) ] { INDEX | TABLE | SCHEMA | DATABASE | SYSTEM } [ CONCURRENTLY ]
        "REINDEX" => words
            .iter()
            .any(|x| x == "CONCURRENTLY" || x == "SYSTEM" || x == "DATABASE"),
        _ => false,
    }
}

/// Whether a statement ends, opens or scopes the transaction it runs in (`BEGIN`, `COMMIT`,
/// `ROLLBACK`, savepoints, `PREPARE TRANSACTION`, `SET LOCAL`, `SET TRANSACTION`, `SET
/// CONSTRAINTS`), or may not run in one at all ([`outside_transaction`]): a file with one runs
/// differently when several files share a transaction than in a transaction of its own.
pub fn scopes_transaction(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .take(2)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match w(0) {
        "BEGIN" | "START" | "COMMIT" | "END" | "ROLLBACK" | "ABORT" | "SAVEPOINT" | "RELEASE"
        | "PREPARE" => true,
        "SET" => matches!(w(1), "LOCAL" | "TRANSACTION" | "SESSION" | "CONSTRAINTS"),
        _ => outside_transaction(text),
    }
}

#[cfg(test)]
mod tests {
    use super::{outside_transaction, scopes_transaction, split};

    #[test]
    fn statements_postgres_runs_only_outside_a_transaction_block() {
        let cases = [
            ("create index concurrently t_id on t (id)", true),
            (
                "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS u ON t(x)",
                true,
            ),
            ("create index t_id on t (id)", false),
            ("create unique index u on t (x)", false),
            ("drop index concurrently if exists t_id", true),
            ("drop index t_id", false),
            ("reindex (verbose) table concurrently t", true),
            ("reindex table t", false),
            ("vacuum analyze t", true),
            ("VACUUM(FULL) t", true),
            ("create database other", true),
            ("alter system set work_mem = '8MB'", true),
            ("alter table t add column concurrently int", false),
            ("create table concurrently (x int)", false),
            ("select 1", false),
        ];
        for (sql, want) in cases {
            assert_eq!(outside_transaction(sql), want, "{sql}");
        }
    }

    #[test]
    fn statements_that_end_open_or_scope_their_transaction() {
        let cases = [
            ("begin", true),
            ("BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE", true),
            ("start transaction", true),
            ("commit", true),
            ("end;", true),
            ("rollback to savepoint a", true),
            ("abort", true),
            ("savepoint a", true),
            ("release savepoint a", true),
            ("prepare transaction 'x'", true),
            ("set local search_path = ''", true),
            ("SET TRANSACTION READ ONLY", true),
            ("set session characteristics as transaction read only", true),
            ("set constraints all deferred", true),
            ("create index concurrently i on t (x)", true),
            ("set search_path = ''", false),
            ("set session authorization default", true),
            ("set role postgres", false),
            ("create table begin_log (id int)", false),
            ("select 1", false),
        ];
        for (sql, want) in cases {
            assert_eq!(scopes_transaction(sql), want, "{sql}");
        }
    }

    fn texts(sql: &str) -> Vec<String> {
        split(sql).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn semicolons_in_quotes_comments_and_bodies_do_not_split() {
        let sql = r#"
-- a comment; with a semicolon
create table "a;b" (x text default 'it''s; fine');
/* block; /* nested; */ still */ insert into t values (E'\'; x');
create function f() returns int language plpgsql as $body$
begin
  return 1; -- inside
end
$body$;
create function g() returns int language sql begin atomic
  select case when true then 1 else 2 end;
  select 2;
end;
select $1, $$a;b$$;
select 1"#;
        assert_eq!(
            texts(sql),
            [
                "create table \"a;b\" (x text default 'it''s; fine');",
                "insert into t values (E'\\'; x');",
                "create function f() returns int language plpgsql as $body$\nbegin\n  return 1; -- inside\nend\n$body$;",
                "create function g() returns int language sql begin atomic\n  select case when true then 1 else 2 end;\n  select 2;\nend;",
                "select $1, $$a;b$$;",
                "select 1",
            ]
        );
    }

    #[test]
    fn lines_and_offsets_point_at_each_statement() {
        let sql = "select 1;\n\n  select 2;\n-- only a comment\n";
        let s = split(sql);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].line, s[0].offset), (1, 0));
        assert_eq!((s[1].line, s[1].offset), (3, 13));
        assert_eq!(super::statement_at(&s, 15).unwrap().text, "select 2;");
    }
}
