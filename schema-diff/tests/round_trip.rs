//! Whole projects through the differ: each project's migrations (the shop's, this repository's
//! `supabase/migrations`, and the test apps' under `tests/fixtures`) built into one database
//! and nothing into another; the diff from the empty one to the built one, applied to the empty
//! one, leaves no difference, and so does the diff back.

mod support;

use schema_diff::diff;
use support::{Cluster, apply, catalog};

/// Project folders, relative to the repository, and statements each diff must hold.
const PROJECTS: &[(&str, &[&str])] = &[
    (
        ".",
        &[
            "CREATE TABLE",
            "CREATE POLICY",
            "CREATE OR REPLACE FUNCTION",
            "ENABLE ROW LEVEL SECURITY",
            "ALTER PUBLICATION \"supabase_realtime\" ADD TABLE",
        ],
    ),
    ("tests/fixtures/notes", &["CREATE TABLE", "CREATE POLICY"]),
    ("tests/fixtures/auth-flows", &[]),
    ("tests/fixtures/functions", &[]),
    // PostgREST's own test schema: many schemas, types, views, functions and grants.
    (
        "tests/fixtures/postgrest",
        &[
            "CREATE SCHEMA",
            "CREATE VIEW",
            "CREATE EXTENSION IF NOT EXISTS \"postgis\"",
        ],
    ),
    // pg_graphql makes its own schema, `graphql`.
    (
        "tests/fixtures/graphql",
        &["CREATE EXTENSION IF NOT EXISTS \"pg_graphql\";"],
    ),
];

#[tokio::test]
async fn projects_migrations_round_trip_both_ways() {
    let cluster = Cluster::start("round-trip").await;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = Vec::new();
    for (folder, kinds) in PROJECTS {
        let project = project::Project::open(Some(&repo.join(folder))).unwrap();
        let (migrations, _) = project.migrations().unwrap();
        let all: String = migrations
            .iter()
            .map(|m| m.sql.as_str())
            .collect::<Vec<_>>()
            .join("\n;\n");
        let (_, built) = cluster.database(&all).await;
        let (_, empty) = cluster.database("").await;
        let (a, b) = (catalog(&built).await, catalog(&empty).await);
        let up = diff(&b, &a);
        let text = schema_diff::render(&up);
        for kind in *kinds {
            if !text.contains(kind) {
                failures.push(format!("{folder}: no {kind} in:\n{text}"));
            }
        }
        match apply(&empty, &up).await {
            Err(e) => failures.push(format!("{folder}: the diff does not apply: {e}")),
            Ok(()) => {
                let left = diff(&catalog(&empty).await, &a);
                if !left.is_empty() {
                    failures.push(format!(
                        "{folder}: after the diff, still:\n{}",
                        schema_diff::render(&left)
                    ));
                }
            }
        }
        let down = diff(&a, &b);
        match apply(&built, &down).await {
            Err(e) => failures.push(format!("{folder}: the diff back does not apply: {e}")),
            Ok(()) => {
                let left = diff(&catalog(&built).await, &b);
                if !left.is_empty() {
                    failures.push(format!(
                        "{folder}: after the diff back, still:\n{}",
                        schema_diff::render(&left)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
