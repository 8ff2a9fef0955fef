//! `db query` (rows as a table, JSON and CSV; a statement's command tag; SQL from a file or
//! standard input) and `seed buckets` (the declared buckets made, their objects uploaded).

use crate::support::{self, Api};

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", text(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const CONFIG: &str = "project_id = \"queried\"

[storage.buckets.avatars]
public = true
objects_path = \"./avatars\"
";

#[tokio::test]
async fn db_query_and_seed_buckets() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", CONFIG),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create table public.notes (id int primary key, body text, done boolean, meta jsonb);
             insert into public.notes values (1, 'a, \"quoted\" one', true, '{\"k\": [1]}'), (2, null, false, null);",
        ),
        ("supabase/avatars/one.txt", "first"),
    ]);
    let gw = support::start_project(&dir, &[]);
    let q = |args: &[&str]| gw.command(&dir, &[&["db", "query"][..], args].concat());

    let sql = "select id, body, done, meta from public.notes order by id";
    assert_eq!(
        stdout(&q(&[sql])),
        "   id | body            | done | meta\n  ----|-----------------|------|------------\n   1  | a, \"quoted\" one | t    | {\"k\": [1]}\n   2  | NULL            | f    | NULL\n"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&q(&[sql, "-o", "json"]))).unwrap();
    assert_eq!(
        json,
        serde_json::json!([
            {"id": 1, "body": "a, \"quoted\" one", "done": true, "meta": {"k": [1]}},
            {"id": 2, "body": null, "done": false, "meta": null},
        ])
    );
    assert_eq!(
        stdout(&q(&[sql, "-o", "csv"])),
        "id,body,done,meta\n1,\"a, \"\"quoted\"\" one\",t,\"{\"\"k\"\": [1]}\"\n2,,f,\n"
    );
    // gen types go: postgres-meta's structs.
    let go = "package database

type PublicNotesSelect struct {
  Body *string     `json:\"body\"`
  Done *bool       `json:\"done\"`
  Id   int32       `json:\"id\"`
  Meta interface{} `json:\"meta\"`
}

type PublicNotesInsert struct {
  Body *string     `json:\"body\"`
  Done *bool       `json:\"done\"`
  Id   int32       `json:\"id\"`
  Meta interface{} `json:\"meta\"`
}

type PublicNotesUpdate struct {
  Body *string     `json:\"body\"`
  Done *bool       `json:\"done\"`
  Id   *int32      `json:\"id\"`
  Meta interface{} `json:\"meta\"`
}
";
    assert_eq!(stdout(&gw.command(&dir, &["gen", "types", "go"])), go);
    assert_eq!(
        stdout(&gw.command(&dir, &["gen", "types", "--lang", "go", "--local"])),
        go
    );
    // gen types python: postgres-meta's pydantic models.
    let py = stdout(&gw.command(&dir, &["gen", "types", "--lang", "python"]));
    assert!(
        py.starts_with("from __future__ import annotations\n"),
        "{py}"
    );
    for want in [
        "class PublicNotes(BaseModel):
    body: Optional[str] = Field(alias=\"body\")
    done: Optional[bool] = Field(alias=\"done\")
    id: int = Field(alias=\"id\")
    meta: Optional[Json[Any]] = Field(alias=\"meta\")
",
        "class PublicNotesInsert(TypedDict):
    body: NotRequired[Annotated[Optional[str], Field(alias=\"body\")]]
    done: NotRequired[Annotated[Optional[bool], Field(alias=\"done\")]]
    id: Annotated[int, Field(alias=\"id\")]
",
    ] {
        assert!(py.contains(want), "no {want} in {py}");
    }
    // gen types swift: postgres-meta's Swift types.
    let swift = stdout(&gw.command(
        &dir,
        &["gen", "types", "swift", "--swift-access-control", "public"],
    ));
    assert!(
        swift.starts_with("import Foundation\nimport Supabase\n\npublic enum GraphqlPublicSchema {\n}\npublic enum PublicSchema {\n"),
        "{swift}"
    );
    assert!(
        swift.contains(
            "  public struct NotesSelect: Codable, Hashable, Sendable {
    public let body: String?
    public let done: Bool?
    public let id: Int32
    public let meta: AnyJSON?
    public enum CodingKeys: String, CodingKey {
      case body = \"body\"
"
        ),
        "{swift}"
    );
    // A statement without rows prints its tag; a script prints its last result.
    assert_eq!(
        stdout(&q(&["insert into public.notes (id) values (3), (4)"])),
        "INSERT 0 2\n"
    );
    assert_eq!(
        stdout(&q(&[
            "create table public.t (a int); insert into public.t values (7); select a from public.t"
        ])),
        "   a\n  ---\n   7\n"
    );
    // From a file, and from standard input.
    let file = dir.join("count.sql");
    std::fs::write(&file, "select count(*) as n from public.notes").unwrap();
    assert_eq!(
        stdout(&q(&["-f", file.to_str().unwrap(), "-o", "json"])),
        "[\n  {\n    \"n\": 4\n  }\n]\n"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_supagate"))
        .args([
            "--workdir",
            dir.to_str().unwrap(),
            "--data-dir",
            gw.data_dir.to_str().unwrap(),
        ])
        .args(["db", "query", "-o", "csv"])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .env("SUPAGATE_CACHE_DIR", support::pg_cache())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"select 'piped' as said")
        .unwrap();
    assert_eq!(stdout(&child.wait_with_output().unwrap()), "said\npiped\n");
    // Errors say what PostgreSQL said.
    let out = q(&["select nope from public.notes"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("column \"nope\" does not exist"),
        "{}",
        text(&out)
    );

    // seed buckets: a bucket declared and a file added since the start.
    std::fs::write(dir.join("supabase/avatars/two.txt"), "second").unwrap();
    std::fs::create_dir_all(dir.join("supabase/docs")).unwrap();
    std::fs::write(dir.join("supabase/docs/readme.md"), "# docs").unwrap();
    std::fs::write(
        dir.join("supabase/config.toml"),
        format!("{CONFIG}\n[storage.buckets.docs]\npublic = false\nobjects_path = \"./docs\"\n"),
    )
    .unwrap();
    let out = gw.command(&dir, &["seed", "buckets"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    for want in [
        "Updating Storage bucket: avatars",
        "Creating Storage bucket: docs",
        "Finished supagate seed buckets.",
    ] {
        assert!(said.contains(want), "no {want:?} in {said}");
    }
    let api = Api::anon(&gw);
    let got = api.get("/storage/v1/object/public/avatars/two.txt").await;
    assert_eq!((got.status, got.text.as_str()), (200, "second"));
    let objects = gw
        .sql("select bucket_id || '/' || name from storage.objects order by 1")
        .await;
    let objects: Vec<String> = objects.into_iter().map(|r| r[0].clone().unwrap()).collect();
    assert_eq!(
        objects,
        ["avatars/one.txt", "avatars/two.txt", "docs/readme.md"]
    );
    let public = gw
        .sql("select public::text from storage.buckets where id = 'docs'")
        .await;
    assert_eq!(public[0][0].as_deref(), Some("false"));
    // Again: nothing new, nothing doubled.
    let out = gw.command(&dir, &["seed", "buckets"]);
    assert!(
        out.status.success() && text(&out).contains("Updating Storage bucket: docs"),
        "{}",
        text(&out)
    );
    assert_eq!(
        gw.sql("select count(*) from storage.objects").await[0][0].as_deref(),
        Some("3")
    );
    gw.stop();
}
