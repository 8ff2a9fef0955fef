//! The project's environment as the Supabase CLI sees it: the process environment, then the
//! `.env` files it loads (in `supabase/`, then in the project folder: `.env.$SUPABASE_ENV.local`,
//! `.env.local` unless the environment is `test`, `.env.$SUPABASE_ENV`, `.env`; `SUPABASE_ENV`
//! defaults to `development`). A variable already set is never replaced, so the process
//! environment wins, then the first file that sets it. Files are read with godotenv's rules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Largest `.env` file read (a bound on input; real ones are a few KiB).
const MAX_FILE: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("failed to parse environment file: {0} ({1})")]
    Parse(String, DotenvError),
}

/// Why a `.env` file could not be read, in the CLI's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DotenvError {
    /// The character, `\n` for a line break.
    #[error("unexpected character '{0}' in variable name")]
    UnexpectedCharacter(String),
    #[error("unterminated quoted value")]
    UnterminatedQuote,
    #[error("larger than {0} bytes")]
    TooLarge(u64),
}

/// Variables the `.env` files set, under the process environment.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    files: BTreeMap<String, String>,
    /// The files read, in the order they were read.
    pub loaded: Vec<PathBuf>,
}

/// The `.env` file names the CLI loads in one folder, first loaded first.
pub fn dotenv_names(env: &str) -> Vec<String> {
    let env = if env.is_empty() { "development" } else { env };
    let mut names = vec![format!(".env.{env}.local")];
    if env != "test" {
        names.push(".env.local".into());
    }
    names.push(format!(".env.{env}"));
    names.push(".env".into());
    names
}

impl Environment {
    /// Loads the `.env` files of `supabase_dir` and then of `root` (the project folder).
    pub fn load(root: &Path, supabase_dir: &Path) -> Result<Environment, EnvError> {
        let supabase_env = std::env::var("SUPABASE_ENV").unwrap_or_default();
        let mut out = Environment::default();
        let mut dirs = vec![supabase_dir.to_path_buf()];
        if root != supabase_dir {
            dirs.push(root.to_path_buf());
        }
        for dir in dirs {
            for name in dotenv_names(&supabase_env) {
                let path = dir.join(&name);
                let text = match std::fs::metadata(&path) {
                    Ok(m) if m.is_file() && m.len() <= MAX_FILE => {
                        std::fs::read(&path).map_err(|e| EnvError::Read(path.clone(), e))?
                    }
                    Ok(m) if m.is_file() => {
                        return Err(EnvError::Parse(
                            shown(root, &path),
                            DotenvError::TooLarge(MAX_FILE),
                        ));
                    }
                    _ => continue,
                };
                let text = String::from_utf8_lossy(&text);
                let vars = parse(&text, &|name| out.get(name))
                    .map_err(|reason| EnvError::Parse(shown(root, &path), reason))?;
                for (k, v) in vars {
                    if std::env::var_os(&k).is_none() {
                        out.files.entry(k).or_insert(v);
                    }
                }
                out.loaded.push(path);
            }
        }
        Ok(out)
    }

    /// An environment of the given variables only (no process environment), for tests.
    pub fn from_files(vars: &[(&str, &str)]) -> Environment {
        Environment {
            files: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            loaded: Vec::new(),
        }
    }

    /// The variable's value: the process environment's, else the first `.env` file's.
    pub fn get(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .or_else(|| self.files.get(name).cloned())
    }

    /// What the `.env` files set (the process environment left out).
    pub fn file_vars(&self) -> &BTreeMap<String, String> {
        &self.files
    }
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{85}' | '\u{a0}'
    )
}

/// Parses a `.env` file as godotenv does: `KEY=value` or `KEY: value`, an optional `export `,
/// `#` comments (after whitespace on a value's line too), single quotes taken literally, double
/// quotes with `\n`, `\r` and backslash escapes and spanning lines, `$NAME` and `${NAME}`
/// expanded in unquoted and double-quoted values (from the file's earlier lines, then `outer`).
/// The error is the reason the CLI gives.
pub fn parse(
    text: &str,
    outer: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, DotenvError> {
    let text = text.replace("\r\n", "\n");
    let mut out: Vec<(String, String)> = Vec::new();
    let mut rest: &str = &text;
    loop {
        // The statement's start: skip whitespace and comment lines.
        loop {
            match rest.find(|c: char| !c.is_whitespace()) {
                None => return Ok(out),
                Some(p) => rest = &rest[p..],
            }
            if !rest.starts_with('#') {
                break;
            }
            match rest.find('\n') {
                None => return Ok(out),
                Some(p) => rest = &rest[p..],
            }
        }
        // The key.
        let mut src = rest.trim_start_matches(is_space);
        if let Some(t) = src.strip_prefix("export")
            && t.starts_with(is_space)
        {
            src = t.trim_start_matches(is_space);
        }
        let mut key = None;
        for (i, c) in src.char_indices() {
            if is_space(c) || c == '_' {
                continue;
            }
            if c == '=' || c == ':' {
                key = Some((src[..i].trim_end().to_string(), &src[i + 1..]));
                break;
            }
            if !(c.is_alphanumeric() || c == '.' || c == '-') {
                let shown = match c {
                    '\n' => "\\n".to_string(),
                    other => other.to_string(),
                };
                return Err(DotenvError::UnexpectedCharacter(shown));
            }
        }
        let Some((key, after)) = key else {
            // A name at the end of the file without '=': nothing to set.
            return Ok(out);
        };
        let src = after.trim_start_matches(is_space);
        let lookup = |name: &str, out: &[(String, String)]| {
            out.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| outer(name))
                .unwrap_or_default()
        };
        let (value, left) = match src.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let bytes = src.as_bytes();
                let mut end = None;
                for i in 1..bytes.len() {
                    if bytes[i] != q as u8 {
                        continue;
                    }
                    let slashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
                    if slashes % 2 == 1 {
                        continue;
                    }
                    end = Some(i);
                    break;
                }
                let Some(end) = end else {
                    return Err(DotenvError::UnterminatedQuote);
                };
                let inner = src[..end].trim_matches(q);
                let value = if q == '"' {
                    expand(&unescape(inner), &|n| lookup(n, &out))
                } else {
                    inner.to_string()
                };
                (value, &src[end + 1..])
            }
            _ => {
                let eol = src.find(['\n', '\r']).unwrap_or(src.len());
                let line = &src[..eol];
                // A `#` after whitespace starts a comment.
                let mut end = line.len();
                let chars: Vec<(usize, char)> = line.char_indices().collect();
                for w in chars.windows(2) {
                    if w[1].1 == '#' && is_space(w[0].1) {
                        end = w[1].0;
                        break;
                    }
                }
                let value = line[..end].trim_matches(is_space);
                (expand(value, &|n| lookup(n, &out)), &src[eol..])
            }
        };
        out.push((key, value));
        rest = left;
    }
}

/// Double-quoted values: `\n` and `\r` become line breaks, a backslash before any other
/// character but `$` is dropped.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('$') => out.push_str("\\$"),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// `$NAME` and `${NAME}` (upper-case letters, digits and `_`) replaced; `\$` is a literal `$`.
fn expand(s: &str, lookup: &dyn Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let escaped = b[i] == b'\\' && b.get(i + 1) == Some(&b'$');
        if escaped {
            out.push('$');
            i += 2;
            continue;
        }
        if b[i] != b'$' {
            let c = s[i..].chars().next().unwrap_or('\0');
            out.push(c);
            i += c.len_utf8().max(1);
            continue;
        }
        let mut j = i + 1;
        let braced = b.get(j) == Some(&b'{');
        if braced {
            j += 1;
        }
        let start = j;
        while j < b.len() && (b[j].is_ascii_uppercase() || b[j].is_ascii_digit() || b[j] == b'_') {
            j += 1;
        }
        if j == start {
            out.push('$');
            i += 1;
            continue;
        }
        let name = &s[start..j];
        if braced && b.get(j) == Some(&b'}') {
            j += 1;
        }
        out.push_str(&lookup(name));
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(text: &str) -> Vec<(String, String)> {
        parse(text, &|n| (n == "OUTER").then(|| "out".to_string())).unwrap()
    }

    #[test]
    fn godotenv_rules() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                "A=1\nB = two words # note\n",
                &[("A", "1"), ("B", "two words")],
            ),
            ("export A=x\n# c\n\nB: y", &[("A", "x"), ("B", "y")]),
            ("A='lit $OUTER \\n'", &[("A", "lit $OUTER \\n")]),
            (
                "A=\"l1\\nl2 \\\"q\\\" $OUTER\"",
                &[("A", "l1\nl2 \"q\" out")],
            ),
            (
                "A=\"multi\nline\"\nB=2",
                &[("A", "multi\nline"), ("B", "2")],
            ),
            (
                "A=1\nB=${A}-$OUTER-$UNSET-\\$A",
                &[("A", "1"), ("B", "1-out--$A")],
            ),
            ("A=a#b", &[("A", "a#b")]),
            ("A=\nB=x", &[("A", ""), ("B", "x")]),
            (
                "SUPABASE_AUTH_SITE_URL=http://x:3000\r\n",
                &[("SUPABASE_AUTH_SITE_URL", "http://x:3000")],
            ),
        ];
        for (text, want) in cases {
            let got = vars(text);
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
        let errors = [
            ("A=\"open", "unterminated quoted value"),
            ("MY KEY$=1", "unexpected character '$' in variable name"),
            (
                "JUSTANAME\nB=1",
                "unexpected character '\\n' in variable name",
            ),
        ];
        for (text, says) in errors {
            assert_eq!(
                parse(text, &|_| None).unwrap_err().to_string(),
                says,
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_files_the_cli_loads_in_order() {
        assert_eq!(
            dotenv_names(""),
            [
                ".env.development.local",
                ".env.local",
                ".env.development",
                ".env"
            ]
        );
        assert_eq!(
            dotenv_names("test"),
            [".env.test.local", ".env.test", ".env"]
        );
    }

    #[test]
    fn first_file_wins_and_supabase_folder_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let sb = root.join("supabase");
        std::fs::create_dir_all(&sb).unwrap();
        std::fs::write(
            sb.join(".env"),
            "SUPAGATE_T52_A=sb-env\nSUPAGATE_T52_B=sb\n",
        )
        .unwrap();
        std::fs::write(sb.join(".env.local"), "SUPAGATE_T52_A=sb-local\n").unwrap();
        std::fs::write(
            root.join(".env"),
            "SUPAGATE_T52_B=root\nSUPAGATE_T52_C=$SUPAGATE_T52_A\n",
        )
        .unwrap();
        let env = Environment::load(root, &sb).unwrap();
        assert_eq!(env.get("SUPAGATE_T52_A").as_deref(), Some("sb-local"));
        assert_eq!(env.get("SUPAGATE_T52_B").as_deref(), Some("sb"));
        assert_eq!(env.get("SUPAGATE_T52_C").as_deref(), Some("sb-local"));
        assert_eq!(env.loaded.len(), 3);
        std::fs::write(sb.join(".env.development"), "BAD KEY!=1\n").unwrap();
        let e = Environment::load(root, &sb).unwrap_err().to_string();
        assert_eq!(
            e,
            "failed to parse environment file: supabase/.env.development (unexpected character '!' in variable name)"
        );
    }
}
