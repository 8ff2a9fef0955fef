//! Planner tests: the plan trees requests resolve to, without SQL.

use super::tree::*;
use super::*;
use crate::ast::{AggregateFn, Condition, SelectItem};
use crate::schema::fixture::{shop, shop_with};
use serde_json::json;

fn cfg() -> EngineConfig {
    EngineConfig {
        max_rows: Some(1000),
        schemas: vec!["public".into()],
    }
}

fn input<'a>(
    method: Method,
    resource: Resource,
    query: &'a [(String, String)],
    prefer: &str,
    body: &'a str,
) -> Input<'a> {
    Input {
        method,
        resource,
        query,
        accept: None,
        prefer: parse_prefer([prefer]),
        range: None,
        profile: None,
        content_type: None,
        body: body.as_bytes(),
    }
}

fn pairs(q: &[(&str, &str)]) -> Vec<(String, String)> {
    q.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn read<'c>(
    cache: &'c SchemaCache,
    table: &str,
    q: &[(&str, &str)],
) -> Result<ReadPlan<'c>, ApiError> {
    let query = pairs(q);
    let i = input(Method::Get, Resource::Table(table.into()), &query, "", "");
    match action(&i, cache, &cfg())?.0 {
        ActionPlan::Read(r) => Ok(r),
        other => panic!("not a read: {other:?}"),
    }
}

fn column_names(node: &Node) -> Vec<String> {
    node.columns
        .iter()
        .map(|c| match c {
            SelectItem::Star => "*".to_string(),
            SelectItem::Column { field, .. } => field.name.clone(),
            SelectItem::Embed(e) => e.relation.clone(),
        })
        .collect()
}

#[test]
fn reads_resolve_embeds_filters_and_pages() {
    let cache = shop();
    let r = read(
        &cache,
        "categories",
        &[
            (
                "select",
                "slug,products!products_category_id_fkey!inner(name)",
            ),
            ("products.is_available", "eq.true"),
            ("products.limit", "3"),
            ("limit", "5000"),
        ],
    )
    .unwrap();
    assert_eq!(r.root.alias, "categories");
    assert_eq!(r.root.limit, Some(1000), "db-max-rows caps the page");
    let child = &r.root.children[0];
    assert_eq!(
        (child.label.as_str(), child.inner, child.spread),
        ("products", true, false)
    );
    assert!(matches!(child.rel, Rel::ToMany { fk } if fk.name == "products_category_id_fkey"));
    assert_eq!(child.node.alias, "products_1");
    assert_eq!(child.node.limit, Some(3));
    assert!(
        matches!(&child.node.conditions[..], [Condition::Filter(f)] if f.field.name == "is_available")
    );

    // Self-reference: the table's name is its children, the column its parent.
    let r = read(
        &cache,
        "categories",
        &[("select", "parent_id(name),categories(name)")],
    )
    .unwrap();
    assert!(matches!(
        r.root.children[0].rel,
        Rel::ToOne {
            parent_holds_fk: true,
            ..
        }
    ));
    assert!(matches!(r.root.children[1].rel, Rel::ToMany { .. }));
    // A computed relationship: a function taking the row.
    let r = read(&cache, "products", &[("select", "name,related(name)")]).unwrap();
    assert!(
        matches!(r.root.children[0].rel, Rel::Computed { func, to_one: false } if func.name == "related")
    );
    // Many-to-many through the junction table named as hint.
    let r = read(
        &cache,
        "products",
        &[("select", "categories!product_categories(slug)")],
    )
    .unwrap();
    assert!(
        matches!(r.root.children[0].rel, Rel::ManyToMany { junction, .. } if junction.name == "product_categories")
    );

    let e = read(&cache, "products", &[("select", "categories(*)")]).unwrap_err();
    assert_eq!((e.status, e.code.as_str()), (300, "PGRST201"));
    let e = read(&cache, "products", &[("select", "categries(*)")]).unwrap_err();
    assert_eq!(
        (e.code.as_str(), e.hint.as_deref()),
        (
            "PGRST200",
            Some("Perhaps you meant 'categories' instead of 'categries'.")
        )
    );
    let e = read(&cache, "products", &[("nothing.id", "eq.1")]).unwrap_err();
    assert_eq!(e.code, "PGRST108");
}

#[test]
fn aggregates_spreads_and_stars() {
    let e = read(&shop(), "products", &[("select", "base_price.sum()")]).unwrap_err();
    assert_eq!((e.status, e.code.as_str()), (400, "PGRST123"));
    let cache = shop_with(json!([{"key": "db_aggregates_enabled", "value": "true"}]));
    let r = read(
        &cache,
        "products",
        &[(
            "select",
            "*,total:base_price.sum()::int,...categories!products_category_id_fkey(*)",
        )],
    )
    .unwrap();
    // An aggregating level spells out its `*` (GROUP BY needs the columns), so does a spread.
    assert_eq!(
        column_names(&r.root),
        [
            "id",
            "name",
            "sku",
            "base_price",
            "category_id",
            "is_available",
            "data",
            "tags",
            "base_price"
        ]
    );
    assert!(matches!(
        &r.root.columns[8],
        SelectItem::Column { alias: Some(a), aggregate: Some(agg), .. }
            if a == "total" && agg.function == AggregateFn::Sum && agg.cast.as_deref() == Some("int")
    ));
    let spread = &r.root.children[0];
    assert!(spread.spread);
    assert_eq!(column_names(&spread.node)[..2], ["id", "name"]);
    assert!(r.root.aggregates());
}

#[test]
fn writes_and_calls() {
    let cache = shop();
    let plan = |method, resource, q: &[(&str, &str)], prefer: &str, body: &str| {
        let query = pairs(q);
        let i = input(method, resource, &query, prefer, body);
        action(&i, &cache, &cfg()).map(|(a, o)| (format!("{a:?}"), o.kind))
    };
    let table = |t: &str| Resource::Table(t.into());
    let (p, kind) = plan(
        Method::Post,
        table("categories"),
        &[("on_conflict", "slug")],
        "resolution=merge-duplicates",
        r#"{"slug":"a","name":"A"}"#,
    )
    .unwrap();
    assert_eq!(kind, Kind::Insert);
    assert!(
        p.contains("Conflict { resolution: MergeDuplicates, keys: [\"slug\"] }"),
        "{p}"
    );
    // PUT: exactly the primary key, with eq.
    let (p, kind) = plan(
        Method::Put,
        table("categories"),
        &[("id", "eq.x")],
        "",
        r#"{"id":"x","slug":"a","name":"A"}"#,
    )
    .unwrap();
    assert_eq!(kind, Kind::Put);
    assert!(
        p.contains("keys: [\"id\"]") && p.contains("put: [Filter"),
        "{p}"
    );
    let e = plan(
        Method::Put,
        table("categories"),
        &[("slug", "eq.a")],
        "",
        "{}",
    )
    .unwrap_err();
    assert_eq!((e.status, e.code.as_str()), (405, "PGRST105"));
    let e = plan(
        Method::Put,
        table("categories"),
        &[("id", "gt.a")],
        "",
        "{}",
    )
    .unwrap_err();
    assert_eq!(e.code, "PGRST105");

    // Calls: named arguments, a function's rows with a tree of their own.
    let (p, kind) = plan(
        Method::Get,
        Resource::Rpc("search_products".into()),
        &[
            ("q", "rose"),
            ("base_price", "lt.5"),
            ("select", "name,categories!products_category_id_fkey(slug)"),
        ],
        "",
        "",
    )
    .unwrap();
    assert_eq!(kind, Kind::Call { void: false });
    assert!(p.contains("Named({\"q\": String(\"rose\")})"), "{p}");
    assert!(
        p.contains("alias: \"pgrst_call\"") && p.contains("label: \"categories\""),
        "{p}"
    );
    // A function that only a computed relationship can use is not callable.
    let e = plan(Method::Post, Resource::Rpc("related".into()), &[], "", "{}").unwrap_err();
    assert_eq!(e.code, "PGRST202");
    let e = plan(Method::Patch, Resource::Rpc("add".into()), &[], "", "{}").unwrap_err();
    assert_eq!((e.status, e.code.as_str()), (405, "PGRST101"));
}
