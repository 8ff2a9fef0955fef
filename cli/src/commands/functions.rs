//! `functions new` and `functions list`, as the Supabase CLI's.

use super::CommandError;
use gateway::config::Config;
use std::io::Write;

/// The entrypoint `functions new` writes: a function that greets by name.
const TEMPLATE: &str = r#"// An Edge Function: `supagate start` serves it at /functions/v1/{slug}.
// Try it:
//   curl -i {url} \
//     -H "Authorization: Bearer <anon key from `supagate status`>" \
//     -H "Content-Type: application/json" --data '{"name":"Florist"}'

Deno.serve(async (req) => {
  const { name } = await req.json().catch(() => ({ name: "there" }))
  return Response.json({ message: `Hello ${name}!` })
})
"#;

/// Creates `supabase/functions/<slug>/index.ts` and its `deno.json`, and declares the function
/// in config.toml (verify_jwt on) unless it is declared already.
pub fn new(cfg: &Config, api_url: &str, slug: &str) -> Result<(), CommandError> {
    if !functions::catalog::valid_slug(slug) {
        return Err(CommandError::Message(format!(
            "Invalid Function name: \"{slug}\". Must start with a letter, and only include \
             alphanumeric characters, underscores, and hyphens. (^[A-Za-z][A-Za-z0-9_-]*$)"
        )));
    }
    let dir = cfg.project.supabase_dir.join("functions").join(slug);
    std::fs::create_dir_all(&dir)
        .map_err(|e| CommandError::io(format!("cannot create {}", dir.display()), e))?;
    let index = dir.join("index.ts");
    let url = format!("{api_url}/functions/v1/{slug}");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&index)
        .and_then(|mut f| {
            f.write_all(
                TEMPLATE
                    .replace("{slug}", slug)
                    .replace("{url}", &url)
                    .as_bytes(),
            )
        })
        .map_err(|e| {
            CommandError::io(
                format!("failed to create entrypoint {}", index.display()),
                e,
            )
        })?;
    let deno_json = dir.join("deno.json");
    if !deno_json.exists() {
        std::fs::write(&deno_json, "{\n  \"imports\": {}\n}\n")
            .map_err(|e| CommandError::io(format!("cannot write {}", deno_json.display()), e))?;
    }
    let config = cfg.project.supabase_dir.join("config.toml");
    if cfg.project.config.functions.contains_key(slug) {
        eprintln!(
            "[functions.{slug}] is already declared in {}",
            config.display()
        );
    } else {
        let block = format!(
            "\n[functions.{slug}]\nenabled = true\nverify_jwt = true\n\
             import_map = \"./functions/{slug}/deno.json\"\n\
             entrypoint = \"./functions/{slug}/index.ts\"\n"
        );
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&config)
            .and_then(|mut f| f.write_all(block.as_bytes()))
            .map_err(|e| {
                CommandError::io(format!("failed to append config {}", config.display()), e)
            })?;
    }
    println!("Created new Function at {}", dir.display());
    Ok(())
}

/// The project's functions: name, whether tokens are verified, entrypoint.
pub fn list(cfg: &Config) {
    let catalog = functions::catalog::discover(&cfg.project);
    let mut rows = vec![[
        "NAME".to_string(),
        "VERIFY JWT".to_string(),
        "ENTRYPOINT".to_string(),
    ]];
    for f in catalog.functions.values() {
        rows.push([
            f.slug.clone(),
            f.verify_jwt.to_string(),
            cfg.project.relative(&f.entrypoint),
        ]);
    }
    for slug in &catalog.disabled {
        rows.push([slug.clone(), "-".into(), "(disabled)".into()]);
    }
    let width = |i: usize| rows.iter().map(|r| r[i].len()).max().unwrap_or(0);
    let (w0, w1) = (width(0), width(1));
    for r in &rows {
        println!("{:w0$}  {:w1$}  {}", r[0], r[1], r[2]);
    }
    for s in &catalog.skipped {
        eprintln!("skipped {s}");
    }
}
