//! What an installation's program prints for some arguments (`postgres --version`, `pg_config
//! --bindir …`), kept in the cache under the program's path, size, time and inode: asking takes
//! a process start (the server's loads its libraries: tens of milliseconds on a busy machine) at
//! every launch otherwise. A program replaced (a package upgrade) is asked again.

use std::path::{Path, PathBuf};

/// The folder of the kept answers in the cache.
const FOLDER: &str = "program-answers";

/// What names the program as it is now, with its arguments; None when it cannot be read.
fn stamp(program: &Path, args: &[&str]) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let real = std::fs::canonicalize(program).ok()?;
    let m = std::fs::metadata(&real).ok()?;
    Some(format!(
        "{}\n{} {} {} {}\n{}\n",
        real.display(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ino(),
        args.join(" ")
    ))
}

fn kept_at(cache: &Path, stamp: &str) -> PathBuf {
    cache
        .join(FOLDER)
        .join(&project::sha256_hex(stamp.as_bytes())[..24])
}

/// The standard output of `program` run with `args` when it succeeds; from `cache` when it was
/// asked before (and kept there now otherwise). Without a cache, the program is run.
pub(super) fn output(program: &Path, args: &[&str], cache: Option<&Path>) -> Option<String> {
    let stamp = cache.and_then(|c| Some((c, stamp(program, args)?)));
    if let Some((cache, stamp)) = &stamp
        && let Ok(text) = std::fs::read_to_string(kept_at(cache, stamp))
        && let Some(out) = text.strip_prefix(stamp.as_str())
    {
        return Some(out.to_string());
    }
    let out = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if let Some((cache, stamp)) = &stamp {
        // Written aside and renamed: processes starting at once never read half an answer.
        let at = kept_at(cache, stamp);
        let aside = at.with_extension(format!("{}", std::process::id()));
        let written = std::fs::create_dir_all(cache.join(FOLDER))
            .and_then(|()| std::fs::write(&aside, format!("{stamp}{text}")))
            .and_then(|()| std::fs::rename(&aside, &at));
        if written.is_err() {
            let _ = std::fs::remove_file(&aside);
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A script that counts its runs in a file beside it and prints its arguments.
    fn counting_program(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let program = dir.join("prog");
        let runs = dir.join("runs");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\necho x >> {}\n[ \"$1\" = fail ] && exit 3\necho \"out $*\"\n",
                runs.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        program
    }

    fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    #[test]
    fn answers_are_kept_until_the_program_changes() {
        let dir = std::env::temp_dir().join(format!("supagate-memo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let cache = dir.join("cache");
        let program = counting_program(&dir);
        let ask = |args: &[&str]| output(&program, args, Some(&cache));
        assert_eq!(ask(&["-V"]).as_deref(), Some("out -V\n"));
        assert_eq!(ask(&["-V"]).as_deref(), Some("out -V\n"));
        assert_eq!(runs(&dir), 1, "the second answer is the kept one");
        // Other arguments are another question.
        assert_eq!(ask(&["--bindir"]).as_deref(), Some("out --bindir\n"));
        assert_eq!(runs(&dir), 2);
        // A failure is not kept: asked again each time.
        assert_eq!(ask(&["fail"]), None);
        assert_eq!(ask(&["fail"]), None);
        assert_eq!(runs(&dir), 4);
        // The program replaced (another size): asked again.
        let text = std::fs::read_to_string(&program).unwrap();
        std::fs::write(&program, format!("{text}# upgraded\n")).unwrap();
        assert_eq!(ask(&["-V"]).as_deref(), Some("out -V\n"));
        assert_eq!(runs(&dir), 5);
        // Without a cache, every question runs it.
        assert_eq!(output(&program, &["-V"], None).as_deref(), Some("out -V\n"));
        assert_eq!(runs(&dir), 6);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
