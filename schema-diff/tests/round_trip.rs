//! Whole projects through the differ: the shop's migrations (this repository's
//! `supabase/migrations`) built into one database and nothing into another; the diff from the
//! empty one to the built one, applied to the empty one, leaves no difference, and so does the
//! diff back.

mod support;

use schema_diff::diff;
use support::{Cluster, apply, catalog};

#[tokio::test]
async fn the_shops_migrations_round_trip_both_ways() {
    let cluster = Cluster::start("round-trip").await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let project = project::Project::open(Some(&root)).unwrap();
    let (migrations, _) = project.migrations().unwrap();
    assert!(migrations.len() > 5, "the shop's migrations");
    let all: String = migrations
        .iter()
        .map(|m| m.sql.as_str())
        .collect::<Vec<_>>()
        .join("\n;\n");
    let (_, built) = cluster.database(&all).await;
    let (_, empty) = cluster.database("").await;
    let (a, b) = (catalog(&built).await, catalog(&empty).await);
    assert!(!a.tables.is_empty() && !a.policies.is_empty() && !a.functions.is_empty());

    let up = diff(&b, &a);
    apply(&empty, &up).await.unwrap();
    let left = diff(&catalog(&empty).await, &a);
    assert!(left.is_empty(), "still:\n{}", schema_diff::render(&left));
    // What the migrations made, as statements of each kind.
    let text = schema_diff::render(&up);
    for kind in [
        "CREATE TABLE",
        "CREATE POLICY",
        "CREATE OR REPLACE FUNCTION",
        "ENABLE ROW LEVEL SECURITY",
        "ALTER PUBLICATION \"supabase_realtime\" ADD TABLE",
    ] {
        assert!(text.contains(kind), "no {kind} in:\n{text}");
    }

    let down = diff(&a, &b);
    apply(&built, &down).await.unwrap();
    let left = diff(&catalog(&built).await, &b);
    assert!(left.is_empty(), "still:\n{}", schema_diff::render(&left));
}
