//! `init`, and the message every other command gives where there is no project to run.

use project::Project;
use std::path::Path;

/// Creates the project's `supabase/` folder in `workdir` (default: the current folder), as
/// `supabase init` does.
pub fn run(workdir: Option<&Path>, force: bool) -> Result<(), String> {
    let root = match workdir {
        Some(w) => std::path::absolute(w).map_err(|e| format!("{}: {e}", w.display()))?,
        None => {
            std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))?
        }
    };
    if !root.is_dir() {
        return Err(format!("the folder {} does not exist", root.display()));
    }
    project::init::init(&root, force).map_err(|e| e.to_string())?;
    println!("Finished supagate init.");
    Ok(())
}

/// Refuses to run a command where there is no project: no `supabase/` folder in the project
/// folder (or any folder above the current one has supabase/config.toml).
pub fn require(project: &Project) -> Result<(), String> {
    if project.supabase_dir.is_dir() {
        return Ok(());
    }
    Err(format!(
        "cannot find a Supabase project: there is no supabase/config.toml in {} or any folder \
         above it.\nRun `supagate init` to create one there (or pass --workdir).",
        project.root.display()
    ))
}
