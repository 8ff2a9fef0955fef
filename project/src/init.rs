//! `supagate init`: a project's `supabase/` folder as `supabase init` makes it. config.toml is
//! the Supabase CLI's template, sections, defaults and comments (`templates/config.toml`),
//! with `project_id` from the folder's name; inside a git repository, `supabase/.gitignore`
//! gets the CLI's lines (appended once). Nothing else is touched: migrations, functions and
//! seed files stay as they are.

use crate::ProjectError;
use std::io::Write;
use std::path::{Path, PathBuf};

const CONFIG: &str = include_str!("../templates/config.toml");
const PROJECT_ID: &str = "{{ .ProjectId }}";
/// What the CLI's `internal/init/templates/.gitignore` holds.
pub const GITIGNORE: &str =
    "# Supabase\n.branches\n.temp\n\n# dotenvx\n.env.keys\n.env.local\n.env.*.local\n";
/// The longest project_id the CLI keeps.
const MAX_PROJECT_ID: usize = 40;

/// A project_id as the CLI makes one from a folder name: runs of characters other than
/// letters, digits, `_`, `.` and `-` become `_`, leading `_`, `.` and `-` go, and it is cut to
/// 40 bytes.
pub fn project_id(folder: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in folder.chars() {
        if c.is_ascii_alphanumeric() || "_.-".contains(c) {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    let trimmed = out.trim_start_matches(['_', '.', '-']);
    trimmed[..trimmed.len().min(MAX_PROJECT_ID)].to_string()
}

/// config.toml for a project in folder `folder_name`.
pub fn config_toml(folder_name: &str) -> String {
    CONFIG.replacen(PROJECT_ID, &project_id(folder_name), 1)
}

/// What `init` wrote.
#[derive(Debug, PartialEq, Eq)]
pub struct Initialized {
    pub config: PathBuf,
    /// `supabase/.gitignore`, when the folder is in a git repository.
    pub gitignore: Option<PathBuf>,
}

/// Whether `dir` is inside a git repository (a `.git` at or above it).
fn in_git_repository(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// Writes `<root>/supabase/config.toml` (refusing to replace one unless `force`), and in a git
/// repository adds the CLI's lines to `supabase/.gitignore` unless it has them.
pub fn init(root: &Path, force: bool) -> Result<Initialized, ProjectError> {
    let supabase = root.join("supabase");
    std::fs::create_dir_all(&supabase).map_err(|e| ProjectError::Io(supabase.clone(), e))?;
    let config = supabase.join("config.toml");
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let folder = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let written = options
        .open(&config)
        .and_then(|mut f| f.write_all(config_toml(&folder).as_bytes()));
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(ProjectError::Invalid(
                "failed to create config file: open supabase/config.toml: file exists\n\
                 Run supagate init --force to overwrite existing config file."
                    .into(),
            ));
        }
        Err(e) => return Err(ProjectError::Io(config, e)),
        Ok(()) => {}
    }
    let gitignore = if in_git_repository(root) {
        let path = supabase.join(".gitignore");
        let existing = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(ProjectError::Io(path, e)),
        };
        if !existing.as_deref().is_some_and(|t| t.contains(GITIGNORE)) {
            let mut text = String::new();
            if existing.is_some() {
                text.push('\n');
            }
            text.push_str(GITIGNORE);
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(text.as_bytes()))
                .map_err(|e| ProjectError::Io(path.clone(), e))?;
        }
        Some(path)
    } else {
        None
    };
    Ok(Initialized { config, gitignore })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Project};

    #[test]
    fn project_ids_from_folder_names() {
        let cases = [
            ("my-app", "my-app"),
            ("My App (2)", "My_App_2_"),
            ("..hidden", "hidden"),
            ("_x", "x"),
            ("été", "t_"),
            (
                "a-very-long-folder-name-that-goes-past-forty-bytes",
                "a-very-long-folder-name-that-goes-past-f",
            ),
        ];
        for (folder, want) in cases {
            assert_eq!(project_id(folder), want, "{folder}");
        }
    }

    #[test]
    fn the_config_is_the_clis_and_reads_as_its_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("flower shop");
        std::fs::create_dir_all(root.join("supabase/migrations")).unwrap();
        std::fs::write(root.join("supabase/migrations/1_a.sql"), "select 1;").unwrap();
        let done = init(&root, false).unwrap();
        assert_eq!(done.config, root.join("supabase/config.toml"));
        assert_eq!(done.gitignore, None, "not a git repository");
        let text = std::fs::read_to_string(&done.config).unwrap();
        for section in [
            "project_id = \"flower_shop\"",
            "[api]",
            "[db.migrations]",
            "schema_paths = []",
            "[db.seed]",
            "sql_paths = [\"./seed.sql\"]",
            "[auth.email]",
            "[edge_runtime]",
            "# Port to use for the API URL.",
        ] {
            assert!(text.contains(section), "{section}");
        }
        // supagate reads it as the CLI's defaults, with nothing to warn about (besides what
        // the template spells out: PostgreSQL 17, Apple's sign-in switched off).
        let p = Project::open(Some(&root)).unwrap();
        assert_eq!(p.ignored_keys, Vec::<String>::new());
        let mut got = p.config.clone();
        assert_eq!(got.db.major_version.take(), Some(17));
        assert!(!got.auth.external.remove("apple").unwrap().enabled);
        assert_eq!(
            got,
            Config {
                project_id: Some("flower_shop".into()),
                ..Config::default()
            }
        );
        // Migrations are left alone; a second init refuses, --force writes it again.
        assert_eq!(p.migrations().unwrap().0.len(), 1);
        std::fs::write(&done.config, "project_id = \"mine\"\n").unwrap();
        let err = init(&root, false).unwrap_err().to_string();
        assert!(
            err.contains("file exists") && err.contains("--force"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&done.config).unwrap(),
            "project_id = \"mine\"\n"
        );
        init(&root, true).unwrap();
        assert_eq!(std::fs::read_to_string(&done.config).unwrap(), text);
    }

    #[test]
    fn in_a_git_repository_the_temporary_files_are_ignored_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let root = dir.path().join("app");
        std::fs::create_dir_all(root.join("supabase")).unwrap();
        std::fs::write(root.join("supabase/.gitignore"), "mine\n").unwrap();
        let done = init(&root, false).unwrap();
        let path = done.gitignore.unwrap();
        let want = format!("mine\n\n{GITIGNORE}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
        init(&root, true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
    }
}
