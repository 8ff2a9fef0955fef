//! Which functions a project has, found as the Supabase CLI finds them: every
//! `supabase/functions/<slug>/index.ts` and every `[functions.<slug>]`, with the entrypoint,
//! import map or `deno.json`, and static files each one uses.

use project::{FunctionConfig, Project};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One function as it will run.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub slug: String,
    pub verify_jwt: bool,
    /// The module Deno runs.
    pub entrypoint: PathBuf,
    /// The folder the function may read (its entrypoint's).
    pub dir: PathBuf,
    /// A `deno.json`/`deno.jsonc` (`--config`) or import map (`--import-map`).
    pub config: Option<DenoConfig>,
    pub static_files: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DenoConfig {
    DenoJson(PathBuf),
    ImportMap(PathBuf),
}

/// The functions of a project by slug; disabled ones are left out, with their slugs.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Catalog {
    pub functions: BTreeMap<String, Function>,
    pub disabled: Vec<String>,
    /// Folders under `supabase/functions` that are not functions, and why.
    pub skipped: Vec<String>,
}

/// The CLI's rule for a slug.
pub fn valid_slug(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Reads the project's `supabase/functions` folder and its config.
pub fn discover(project: &Project) -> Catalog {
    let functions_dir = project.supabase_dir.join("functions");
    let mut found: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&functions_dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.path().join("index.ts").is_file()
                || name.starts_with('_')
                || name.starts_with('.')
            {
                continue;
            }
            if valid_slug(&name) {
                found.push(name);
            } else {
                skipped.push(format!("{name}: not a valid function name"));
            }
        }
    }
    let configured = &project.config.functions;
    found.extend(configured.keys().cloned());
    found.sort();
    found.dedup();
    let mut catalog = Catalog {
        skipped,
        ..Catalog::default()
    };
    for slug in found {
        let fc = configured.get(&slug).cloned().unwrap_or_default();
        if !fc.enabled {
            catalog.disabled.push(slug);
            continue;
        }
        match resolve(&project.supabase_dir, &slug, &fc) {
            Ok(f) => {
                catalog.functions.insert(slug, f);
            }
            Err(why) => catalog.skipped.push(format!("{slug}: {why}")),
        }
    }
    catalog
}

/// Why a function is skipped (after its slug in the catalog's notes).
#[derive(Debug, thiserror::Error)]
enum ResolveError {
    #[error("{} does not exist", .0.display())]
    NoEntrypoint(PathBuf),
    #[error(transparent)]
    Canonicalize(std::io::Error),
}

/// One function's files: paths in config.toml are relative to the `supabase/` folder.
fn resolve(supabase_dir: &Path, slug: &str, fc: &FunctionConfig) -> Result<Function, ResolveError> {
    let own_dir = supabase_dir.join("functions").join(slug);
    let entrypoint = match &fc.entrypoint {
        Some(e) => supabase_dir.join(e),
        None => own_dir.join("index.ts"),
    };
    if !entrypoint.is_file() {
        return Err(ResolveError::NoEntrypoint(entrypoint));
    }
    let entrypoint = entrypoint
        .canonicalize()
        .map_err(ResolveError::Canonicalize)?;
    let dir = entrypoint
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| own_dir.clone());
    // The CLI's order: the configured import map, the function's deno.json(c), the shared
    // legacy import_map.json.
    let config = match &fc.import_map {
        Some(m) => Some(config_file(supabase_dir.join(m))),
        None => ["deno.json", "deno.jsonc"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
            .map(DenoConfig::DenoJson)
            .or_else(|| {
                let legacy = supabase_dir.join("functions").join("import_map.json");
                legacy.is_file().then_some(DenoConfig::ImportMap(legacy))
            }),
    };
    Ok(Function {
        slug: slug.to_string(),
        verify_jwt: fc.verify_jwt,
        entrypoint,
        dir,
        config,
        static_files: fc
            .static_files
            .iter()
            .map(|s| supabase_dir.join(glob_base(s)))
            .collect(),
    })
}

/// The folder a glob pattern (`./functions/site/*.html`) matches within: what Deno may read.
fn glob_base(pattern: &str) -> PathBuf {
    Path::new(pattern)
        .components()
        .take_while(|c| {
            !c.as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', '{'])
        })
        .collect()
}

fn config_file(p: PathBuf) -> DenoConfig {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "deno.json" || name == "deno.jsonc" {
        DenoConfig::DenoJson(p)
    } else {
        DenoConfig::ImportMap(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_cli() {
        for (s, ok) in [
            ("hello", true),
            ("hello-world_2", true),
            ("2fa", false),
            ("", false),
            ("a.b", false),
            ("_shared", false),
        ] {
            assert_eq!(valid_slug(s), ok, "{s}");
        }
    }

    #[test]
    fn a_missing_entrypoint_is_named() {
        let e = resolve(
            Path::new("/nowhere/supabase"),
            "hello",
            &FunctionConfig::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "/nowhere/supabase/functions/hello/index.ts does not exist"
        );
    }

    #[test]
    fn static_file_patterns_are_read_from_their_folder() {
        assert_eq!(
            glob_base("./functions/site/*.html"),
            PathBuf::from("./functions/site")
        );
        assert_eq!(
            glob_base("functions/a/page.html"),
            PathBuf::from("functions/a/page.html")
        );
        assert_eq!(glob_base("functions/**/x"), PathBuf::from("functions"));
    }
}
