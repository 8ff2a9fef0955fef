//! `init`, and the message every other command gives where there is no project to run.

use super::CommandError;
use project::Project;
use std::path::Path;

/// Creates the project's `supabase/` folder in `workdir` (default: the current folder), as
/// `supabase init` does.
pub fn run(workdir: Option<&Path>, force: bool) -> Result<(), CommandError> {
    let root = match workdir {
        Some(w) => {
            std::path::absolute(w).map_err(|e| CommandError::io(w.display().to_string(), e))?
        }
        None => std::env::current_dir()
            .map_err(|e| CommandError::io("cannot read the current folder", e))?,
    };
    if !root.is_dir() {
        return Err(CommandError::Message(format!(
            "the folder {} does not exist",
            root.display()
        )));
    }
    project::init::init(&root, force)?;
    println!("Finished supagate init.");
    Ok(())
}

/// Refuses to run a command where there is no project: no `supabase/` folder in the project
/// folder (or any folder above the current one has supabase/config.toml).
pub fn require(project: &Project) -> Result<(), CommandError> {
    if project.supabase_dir.is_dir() {
        return Ok(());
    }
    Err(CommandError::Message(format!(
        "cannot find a Supabase project: there is no supabase/config.toml in {} or any folder \
         above it.\nRun `supagate init` to create one there (or pass --workdir).",
        project.root.display()
    )))
}
