//! REST's one-Sync pipelines on a single pooled connection: errors at every stage (parse, bind,
//! execute, a failed transaction) leave the connection usable and its statement cache true to
//! the server's, and a schema change is picked up.

use crate::support;
use serde_json::json;
use std::time::Duration;
use support::Api;

const PREPARED: &str = "SELECT count(*) FROM pg_prepared_statements";

#[tokio::test]
async fn one_connection_survives_every_kind_of_error() {
    let gw =
        support::shop_with(&["--db-pool", "1", "--workers", "1", "--statement-cache", "8"]).await;
    gw.sql(&format!(
        "CREATE FUNCTION public.prepared_count() RETURNS bigint LANGUAGE sql AS '{PREPARED}'"
    ))
    .await;
    let anon = Api::anon(&gw);
    let svc = Api::service(&gw);
    // The function is served once the schema cache has reloaded (asynchronously, after DDL).
    for _ in 0..100 {
        let r = anon
            .send("POST", "/rest/v1/rpc/prepared_count", &[], Some("{}"))
            .await;
        if r.status == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let ok = "/rest/v1/categories?select=slug&order=slug&limit=1";
    assert_eq!(anon.get(ok).await.json(), json!([{"slug": "best-sellers"}]));

    // Parse: no operator `~~` for integers. The statement is not kept, so the same request
    // fails the same way again (not with "prepared statement does not exist").
    for _ in 0..2 {
        let r = anon.get("/rest/v1/categories?order_by=like.5*").await;
        assert_eq!((r.status, r.json()["code"].clone()), (404, json!("42883")));
    }
    // Bind: a value the column's type rejects.
    let r = anon.get("/rest/v1/categories?id=eq.not-a-uuid").await;
    assert_eq!((r.status, r.json()["code"].clone()), (400, json!("22P02")));
    // Execute, inside the transaction: a unique violation rolls it back.
    let dup = r#"{"name":"Again","slug":"seasonal"}"#;
    let r = svc
        .send("POST", "/rest/v1/categories", &[], Some(dup))
        .await;
    assert_eq!((r.status, r.json()["code"].clone()), (409, json!("23505")));
    // A singular write that matches two rows: rolled back after the pipeline, on the same
    // connection, whatever return= asked for (as PostgREST).
    for prefer in ["return=representation", "return=minimal"] {
        let r = svc
            .send(
                "PATCH",
                "/rest/v1/categories?slug=in.(seasonal,plants)",
                &[
                    ("accept", "application/vnd.pgrst.object+json"),
                    ("prefer", prefer),
                ],
                Some(r#"{"description":"x"}"#),
            )
            .await;
        assert_eq!(
            (r.status, r.json()["code"].clone()),
            (406, json!("PGRST116"))
        );
        let r = anon
            .get("/rest/v1/categories?select=description&slug=eq.plants")
            .await;
        assert_ne!(r.json()[0]["description"], "x", "the write was rolled back");
    }
    let r = svc
        .send(
            "DELETE",
            "/rest/v1/product_categories",
            &[("accept", "application/vnd.pgrst.object+json")],
            None,
        )
        .await;
    assert_eq!(r.json()["code"], "PGRST116");
    let left = anon
        .get("/rest/v1/product_categories?select=product_id")
        .await;
    assert!(
        !left.json().as_array().unwrap().is_empty(),
        "nothing deleted"
    );

    // The one connection is still good, and holds no more statements than its cache.
    assert_eq!(anon.get(ok).await.status, 200);
    let r = anon
        .send("POST", "/rest/v1/rpc/prepared_count", &[], Some("{}"))
        .await;
    let n = r
        .json()
        .as_i64()
        .unwrap_or_else(|| panic!("not a count: {}", r.text));
    assert!((1..=8).contains(&n), "{n} prepared statements");
}

#[tokio::test]
async fn a_changed_table_is_served_after_the_reload() {
    let gw = support::shop_with(&["--db-pool", "1", "--workers", "1"]).await;
    gw.sql(
        "CREATE TABLE public.shifting (id int PRIMARY KEY, v int); \
         INSERT INTO public.shifting VALUES (1, 7); GRANT SELECT ON public.shifting TO anon",
    )
    .await;
    let anon = Api::anon(&gw);
    let path = "/rest/v1/shifting?select=v";
    let mut body = None;
    for _ in 0..50 {
        let r = anon.get(path).await;
        if r.status == 200 {
            body = Some(r.json());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(body, Some(json!([{"v": 7}])));
    gw.sql("ALTER TABLE public.shifting ALTER COLUMN v TYPE text USING 'seven'")
        .await;
    let mut last = None;
    for _ in 0..50 {
        let r = anon.get(path).await;
        if r.status == 200 && r.json() == json!([{"v": "seven"}]) {
            return;
        }
        last = Some((r.status, r.text));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the changed column was never served: {last:?}");
}
