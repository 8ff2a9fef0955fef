use super::*;
use serde_json::json;

fn col(name: &str, data_type: &str, pk: bool) -> Column {
    Column {
        name: name.into(),
        data_type: data_type.into(),
        nullable: !pk,
        default: None,
        primary_key: pk,
        generated: false,
    }
}

fn shape() -> Shape {
    Shape {
        schema: "public".into(),
        name: "products".into(),
        kind: "table".into(),
        columns: vec![
            col("id", "bigint", true),
            col("name", "text", false),
            col("price", "numeric(10,2)", false),
            Column {
                generated: true,
                ..col("slug", "text", false)
            },
        ],
    }
}

fn pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

#[test]
fn reads_filters_order_and_paging_as_sql() {
    let cases: &[(&str, &str)] = &[
        (
            "",
            "SELECT row_to_json(t)::text FROM \"public\".\"products\" AS t ORDER BY t.\"id\" LIMIT 100 OFFSET 0",
        ),
        (
            "price=gte.10&name=ilike.*rose*&limit=20&offset=40",
            "SELECT row_to_json(t)::text FROM \"public\".\"products\" AS t WHERE t.\"price\" >= ($1::text)::numeric(10,2) AND t.\"name\"::text ILIKE $2 ORDER BY t.\"id\" LIMIT 20 OFFSET 40",
        ),
        (
            "id=not.in.(1,\"2,3\")&order=price.desc.nullslast,name",
            "SELECT row_to_json(t)::text FROM \"public\".\"products\" AS t WHERE NOT (t.\"id\" = ANY(($1::text[])::bigint[])) ORDER BY t.\"price\" DESC NULLS LAST, t.\"name\", t.\"id\" LIMIT 100 OFFSET 0",
        ),
        (
            "name=is.null&id=not.is.null",
            "SELECT row_to_json(t)::text FROM \"public\".\"products\" AS t WHERE t.\"name\" IS NULL AND NOT (t.\"id\" IS NULL) ORDER BY t.\"id\" LIMIT 100 OFFSET 0",
        ),
    ];
    for (query, sql) in cases {
        let q = RowQuery::parse(&pairs(query)).unwrap();
        assert_eq!(&select(&shape(), &q).unwrap().sql, sql, "{query}");
    }
    let q = RowQuery::parse(&pairs("price=gte.10&name=ilike.*rose*")).unwrap();
    assert_eq!(
        select(&shape(), &q).unwrap().params,
        [
            Param::Text(Some("10".into())),
            Param::Text(Some("%rose%".into()))
        ]
    );
    let q = RowQuery::parse(&pairs("id=in.(1,\"2,3\",4)")).unwrap();
    assert_eq!(
        count(&shape(), &q.filters).unwrap().params,
        [Param::List(vec!["1".into(), "2,3".into(), "4".into()])]
    );
}

#[test]
fn every_postgrest_operator_becomes_a_condition() {
    let cases = [
        ("name=match.^R", "t.\"name\"::text ~ $1"),
        ("name=not.imatch.rose", "NOT (t.\"name\"::text ~* $1)"),
        ("id=gt(any).{1,2}", "t.\"id\" > ANY(($1::text[])::bigint[])"),
        (
            "name=like(all).{R*,*e}",
            "t.\"name\"::text LIKE ALL($1::text[])",
        ),
        (
            "name=isdistinct.x",
            "t.\"name\" IS DISTINCT FROM ($1::text)::text",
        ),
        (
            "name=fts(english).rose",
            "to_tsvector($1::regconfig, t.\"name\"::text) @@ to_tsquery($1::regconfig, $2)",
        ),
        (
            "name=wfts.red rose",
            "to_tsvector(t.\"name\"::text) @@ websearch_to_tsquery($1)",
        ),
        ("price=is.not_null", "t.\"price\" IS NOT NULL"),
    ];
    let q = RowQuery::parse(&pairs("name=match(any).{^R.*}")).unwrap();
    assert_eq!(
        count(&shape(), &q.filters).unwrap().params,
        [Param::List(vec!["^R.*".into()])],
        "a regular expression keeps its stars"
    );
    for (query, condition) in cases {
        let q = RowQuery::parse(&pairs(query)).unwrap();
        let sql = count(&shape(), &q.filters).unwrap().sql;
        assert_eq!(
            sql,
            format!("SELECT count(*) FROM \"public\".\"products\" AS t WHERE {condition}"),
            "{query}"
        );
    }
}

#[test]
fn refuses_what_is_not_a_filter_with_a_clear_message() {
    let cases = [
        ("nope=eq.1", "has no column \"nope\""),
        ("id=equals.1", "\"equals.1\" on id is not a filter"),
        ("id=is.maybe", "is not a filter"),
        ("id=in.1,2", "is not a filter"),
        ("name->>a=eq.1", "whole columns (name)"),
        ("order=name.sideways", "is not an order"),
        ("limit=0", "limit is 1 to 1000"),
        ("limit=5000", "limit is 1 to 1000"),
        ("offset=-1", "offset is a number"),
        ("order=missing.desc", "has no column \"missing\""),
    ];
    for (query, expected) in cases {
        let e = RowQuery::parse(&pairs(query))
            .and_then(|q| select(&shape(), &q))
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "{query}: {e}");
    }
    let many = (0..40)
        .map(|i| format!("name=eq.{i}"))
        .collect::<Vec<_>>()
        .join("&");
    assert!(RowQuery::parse(&pairs(&many)).is_err());
}

#[test]
fn writes_one_row_by_its_primary_key() {
    let values = json!({"name": "Tulip", "price": 12.5})
        .as_object()
        .unwrap()
        .clone();
    let key = json!({"id": 7}).as_object().unwrap().clone();
    let ins = insert(&shape(), &values).unwrap();
    assert_eq!(
        ins.sql,
        "INSERT INTO \"public\".\"products\" AS t (\"name\", \"price\") VALUES (($1::text)::text, ($2::text)::numeric(10,2)) RETURNING row_to_json(t)::text"
    );
    assert_eq!(ins.params[1], Param::Text(Some("12.5".into())));
    let empty = serde_json::Map::new();
    assert!(
        insert(&shape(), &empty)
            .unwrap()
            .sql
            .contains("DEFAULT VALUES")
    );
    let upd = update(
        &shape(),
        &key,
        &json!({"name": null}).as_object().unwrap().clone(),
    )
    .unwrap();
    assert_eq!(
        upd.sql,
        "UPDATE \"public\".\"products\" AS t SET \"name\" = ($1::text)::text WHERE t.\"id\" = ($2::text)::bigint RETURNING row_to_json(t)::text"
    );
    assert_eq!(
        upd.params,
        [Param::Text(None), Param::Text(Some("7".into()))]
    );
    assert_eq!(
        delete(&shape(), &key).unwrap().sql,
        "DELETE FROM \"public\".\"products\" AS t WHERE t.\"id\" = ($1::text)::bigint"
    );
    let refusals = [
        (
            update(
                &shape(),
                &key,
                &json!({"slug": "x"}).as_object().unwrap().clone(),
            ),
            "generated",
        ),
        (update(&shape(), &key, &empty), "no value"),
        (delete(&shape(), &empty), "needs id"),
        (
            delete(
                &shape(),
                &json!({"id": 1, "name": "x"}).as_object().unwrap().clone(),
            ),
            "primary key's columns only",
        ),
        (
            delete(
                &Shape {
                    columns: vec![col("a", "text", false)],
                    ..shape()
                },
                &key,
            ),
            "no primary key",
        ),
        (
            insert(
                &Shape {
                    kind: "view".into(),
                    ..shape()
                },
                &values,
            ),
            "is a view",
        ),
    ];
    for (r, expected) in refusals {
        let e = r.unwrap_err().to_string();
        assert!(e.contains(expected), "{e}");
    }
}

#[test]
fn writes_csv_as_copy_does() {
    assert_eq!(
        csv_record(&[
            Some("a".into()),
            None,
            Some("".into()),
            Some("x,\"y\"\nz".into())
        ]),
        "a,,\"\",\"x,\"\"y\"\"\nz\"\n"
    );
}
