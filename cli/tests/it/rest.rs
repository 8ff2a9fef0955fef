//! /rest/v1 against a real gateway and PostgreSQL, with the demo catalogue.

use crate::support;
use serde_json::{Value, json};
use support::Api;
use support::Reply;
use support::table::{self, get, send, with_json};

const OBJ: (&str, &str) = ("accept", "application/vnd.pgrst.object+json");

async fn category_id(api: &Api<'_>, slug: &str) -> String {
    let r = api
        .send(
            "GET",
            &format!("/rest/v1/categories?select=id&slug=eq.{slug}"),
            &[OBJ],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn listing_algorithm_reads() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let seasonal = category_id(&anon, "seasonal").await;
    let r = anon
        .get(&format!(
            "/rest/v1/products?select=*&is_available=eq.true&category_id=eq.{seasonal}"
        ))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    let primary = r.json();
    let names: Vec<&str> = primary
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Autumn Harvest Bouquet"));
    assert!(
        !names.contains(&"Summer Sunflower Bundle"),
        "hidden products are not public"
    );
    let links = anon
        .get(&format!(
            "/rest/v1/product_categories?select=product_id&category_id=eq.{seasonal}"
        ))
        .await
        .json();
    let ids: Vec<String> = links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["product_id"].as_str().unwrap().to_string())
        .collect();
    assert!(!ids.is_empty());
    let list = format!(
        "({})",
        ids.iter()
            .map(|i| format!("\"{i}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let enc = list
        .replace('(', "%28")
        .replace(')', "%29")
        .replace(',', "%2C")
        .replace('"', "%22");
    let linked = anon
        .get(&format!(
            "/rest/v1/products?select=*&is_available=eq.true&id=in.{enc}&order=name.asc"
        ))
        .await;
    assert_eq!(linked.status, 200, "{}", linked.text);
    assert_eq!(linked.json()[0]["name"], "Garden Party");
    // Numbers come back as JSON numbers, as PostgREST renders numeric.
    assert!(primary[0]["base_price"].is_number());
}

#[tokio::test]
async fn singular_and_counts() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let none = anon
        .send(
            "GET",
            "/rest/v1/categories?select=id&slug=eq.nope",
            &[OBJ],
            None,
        )
        .await;
    assert_eq!(none.status, 406);
    assert_eq!(none.json()["code"], "PGRST116");
    assert_eq!(none.json()["details"], "The result contains 0 rows");
    let many = anon
        .send("GET", "/rest/v1/categories?select=id", &[OBJ], None)
        .await;
    assert_eq!(
        (many.status, many.json()["details"].clone()),
        (406, json!("The result contains 8 rows"))
    );
    // maybeSingle sends a plain request and checks the array itself.
    assert_eq!(
        anon.get("/rest/v1/categories?select=id&slug=eq.nope")
            .await
            .json(),
        json!([])
    );

    let head = anon
        .send(
            "HEAD",
            "/rest/v1/products?select=*",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(head.status, 200);
    assert_eq!(head.text, "");
    assert_eq!(
        head.header("content-range"),
        Some("0-20/21"),
        "21 of 24 products are available"
    );
    let page = anon
        .send(
            "GET",
            "/rest/v1/products?select=id&offset=0&limit=10",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        (page.status, page.header("content-range")),
        (206, Some("0-9/21"))
    );
    let empty = anon
        .send(
            "GET",
            "/rest/v1/products?select=id&name=eq.none",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        (empty.status, empty.header("content-range")),
        (200, Some("*/0"))
    );
    let no_count = anon.get("/rest/v1/products?select=id&limit=2").await;
    assert_eq!(no_count.header("content-range"), Some("0-1/*"));
    let ranged = anon
        .send(
            "GET",
            "/rest/v1/products?select=id",
            &[("range", "5-9")],
            None,
        )
        .await;
    assert_eq!(ranged.header("content-range"), Some("5-9/*"));
    let beyond = anon
        .send(
            "GET",
            "/rest/v1/products?select=id&offset=100",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        (beyond.status, beyond.json()["code"].clone()),
        (416, json!("PGRST103"))
    );
    let planned = anon
        .send(
            "HEAD",
            "/rest/v1/categories",
            &[("prefer", "count=planned")],
            None,
        )
        .await;
    assert!(planned.header("content-range").unwrap().contains('/'));
}

#[tokio::test]
async fn filters_and_ordering() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let q = |s: &str| format!("/rest/v1/products?select=name{s}");
    let names = |v: Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    // `+` is a space, `*` a wildcard.
    let r = anon.get(&q("&name=ilike.%25dozen+roses%25")).await;
    assert_eq!(names(r.json()), vec!["Classic Dozen Roses"]);
    let r = anon.get(&q("&name=like.Peace*&order=name.desc")).await;
    assert_eq!(
        names(r.json()),
        vec!["Peaceful White Arrangement", "Peace Lily"]
    );
    let r = anon
        .get(&q("&or=%28sku.eq.PLT-001%2Csku.eq.PLT-002%29&order=sku"))
        .await;
    assert_eq!(names(r.json()), vec!["Fiddle Leaf Fig", "Peace Lily"]);
    let r = anon
        .get(&q(
            "&base_price=gte.100&base_price=lt.200&order=base_price.desc",
        ))
        .await;
    assert_eq!(names(r.json()), vec!["Red Rose Romance"]);
    let r = anon
        .get(&q("&ecwid_product_id=is.null&sku=like.PLT*&order=name"))
        .await;
    assert_eq!(names(r.json()), vec!["Orchid Elegance"]);
    let r = anon.get(&q("&sku=not.like.*-00*&limit=3")).await;
    assert_eq!(r.json(), json!([]));
    let r = anon
        .get(&q(
            "&and=%28sku.like.LOV*%2Cor%28base_price.lt.80%2Cname.eq.x%29%29",
        ))
        .await;
    assert_eq!(names(r.json()), vec!["Blushing Heart"]);
    let r = anon.get(&q("&sku=in.%28LOV-001%2C%22a%2Cb%22%29")).await;
    assert_eq!(names(r.json()), vec!["Red Rose Romance"]);
    let r = anon
        .get("/rest/v1/categories?select=slug&order=order_by.desc.nullslast&limit=2")
        .await;
    assert_eq!(r.json(), json!([{"slug":"memorial"},{"slug":"sympathy"}]));
    let r = anon
        .get("/rest/v1/categories?select=s:slug,n:order_by::text&slug=eq.plants")
        .await;
    assert_eq!(r.json(), json!([{"s":"plants","n":"4"}]));
    let r = anon
        .get("/rest/v1/products?select=name&name=fts.Peace")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = anon
        .get("/rest/v1/products?select=name&name=wfts(english).lily")
        .await;
    assert_eq!(names(r.json()), vec!["Peace Lily"]);
}

#[tokio::test]
async fn embedding() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let r = anon.get("/rest/v1/products?select=name,category:categories!products_category_id_fkey(slug)&sku=eq.PLT-001").await;
    assert_eq!(
        r.json(),
        json!([{"name":"Fiddle Leaf Fig","category":{"slug":"plants"}}]),
        "{}",
        r.text
    );
    let r = anon
        .get("/rest/v1/products?select=name,category_id(slug)&sku=eq.PLT-001")
        .await;
    assert_eq!(r.json()[0]["category_id"]["slug"], "plants");
    let r = anon
        .get("/rest/v1/categories?select=slug,products!products_category_id_fkey(sku)&slug=eq.love-romance&products.order=sku.desc")
        .await;
    assert_eq!(
        r.json(),
        json!([{"slug":"love-romance","products":[{"sku":"LOV-002"},{"sku":"LOV-001"}]}])
    );
    let r = anon
        .get(
            "/rest/v1/products?select=sku,extra:categories!product_categories(slug)&sku=eq.BST-001",
        )
        .await;
    let mut slugs: Vec<String> = r.json()[0]["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["slug"].as_str().unwrap().into())
        .collect();
    slugs.sort();
    assert_eq!(slugs, vec!["everyday", "love-romance"]);
    // !inner filters the parents.
    let r = anon
        .get("/rest/v1/categories?select=slug,products!products_category_id_fkey!inner(sku)&products.sku=eq.PLT-003")
        .await;
    assert_eq!(
        r.json(),
        json!([{"slug":"plants","products":[{"sku":"PLT-003"}]}])
    );
    let amb = anon.get("/rest/v1/products?select=*,categories(*)").await;
    assert_eq!(
        (amb.status, amb.json()["code"].clone()),
        (300, json!("PGRST201"))
    );
}

#[tokio::test]
async fn errors_look_like_postgrest() {
    let gw = &support::shop().await;
    let anon = Api::anon(gw);
    let r = anon.get("/rest/v1/products?id=noop.1").await;
    assert_eq!(r.status, 400);
    let e = r.json();
    assert_eq!(e["code"], "PGRST100");
    assert_eq!(
        e["message"],
        "\"failed to parse filter (noop.1)\" (line 1, column 1)"
    );
    assert!(e.get("hint").is_some() && e.get("details").is_some());
    assert_eq!(r.header("proxy-status"), Some("PostgREST; error=PGRST100"));
    let r = anon.get("/rest/v1/prodcts").await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (404, json!("PGRST205"))
    );
    assert_eq!(
        r.json()["hint"],
        "Perhaps you meant the table 'public.products'"
    );
    let r = anon.get("/rest/v1/products?select=nope").await;
    assert_eq!((r.status, r.json()["code"].clone()), (400, json!("42703")));
    let r = anon.get("/rest/v1/products?id=eq.undefined").await;
    assert_eq!((r.status, r.json()["code"].clone()), (400, json!("22P02")));
    let r = anon.get("/rest/v1/products?select=id,").await;
    assert_eq!(
        r.json()["message"],
        "\"failed to parse select parameter (id,)\" (line 1, column 4)"
    );
    let r = anon
        .send(
            "GET",
            "/rest/v1/products",
            &[("accept-profile", "private")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (406, json!("PGRST106"))
    );
    let r = anon
        .send("GET", "/rest/v1/products", &[("accept", "image/png")], None)
        .await;
    assert_eq!(r.status, 406);
}

#[tokio::test]
async fn jwt_rules() {
    let gw = &support::shop().await;
    let keys = identity::jwt::JwtKeys::new(gw.secret());
    let now = chrono::Utc::now().timestamp();
    let mut api = Api::anon(gw);
    api.token = Some(keys.sign(&json!({"role":"authenticated","sub":"x","exp": now - 120})));
    let r = api.get("/rest/v1/categories").await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["message"].clone()
        ),
        (401, json!("PGRST303"), json!("JWT expired"))
    );
    assert!(
        r.header("www-authenticate")
            .unwrap()
            .starts_with("Bearer error=\"invalid_token\"")
    );
    api.token = Some(
        identity::jwt::JwtKeys::new("not-the-secret-not-the-secret-not-the")
            .sign(&json!({"role":"anon"})),
    );
    let r = api.get("/rest/v1/categories").await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (401, json!("PGRST301"))
    );
    api.token = Some("garbage".into());
    assert_eq!(
        api.get("/rest/v1/categories").await.json()["message"],
        "Expected 3 parts in JWT; got 1"
    );
    api.token = Some(keys.sign(&json!({"role":"postgres"})));
    assert_eq!(api.get("/rest/v1/categories").await.status, 403);
    // The CLI's opaque publishable key maps to anon.
    api.token = Some("sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH".into());
    assert_eq!(
        api.get("/rest/v1/categories?select=id&limit=1")
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn writes_as_admin() {
    let gw = &support::shop().await;
    let admin_id = gw.create_user("writer-admin@example.com", true).await;
    let t = gw.user_token(&admin_id);
    let admin = |c: table::Case| c.token(&t);
    let cat = table::reply(
        gw,
        admin(table::post(
            "/rest/v1/categories?select=*",
            r#"{"name":"Test Cat","slug":"test-cat","order_by":9}"#,
        ))
        .header(OBJ.0, OBJ.1)
        .prefer("return=representation")
        .says("a category inserted, returned as one object")
        .status(201)
        .at("/is_available", json!(true)),
    )
    .await
    .json();
    let id = cat["id"].as_str().unwrap().to_string();
    table::run(gw, vec![
        admin(table::post("/rest/v1/products", &format!(r#"{{"name":"W1","sku":"W-1","base_price":5,"category_id":"{id}"}}"#)))
            .says("minimal return: 201 with no body").status(201).text(""),
        admin(table::post("/rest/v1/products?columns=%22name%22%2C%22sku%22%2C%22description%22",
            r#"[{"name":"W2","sku":"W-2"},{"name":"W3","sku":"W-3","description":"d"}]"#))
            .prefer("return=representation")
            .says("bulk insert with columns=: missing keys become NULL, not the default")
            .status(201).at("/0/description", Value::Null),
        // PostgreSQL leaves the key values out of the detail on tables under RLS.
        admin(table::post("/rest/v1/products", r#"{"name":"Dup","sku":"W-1"}"#))
            .says("a duplicate: 409 with PostgreSQL's message").status(409)
            .at("/code", json!("23505"))
            .at("/message", json!("duplicate key value violates unique constraint \"products_sku_key\"")),
        admin(table::post("/rest/v1/products", r#"{"nam":"x"}"#)).says("an unknown column in the body")
            .status(400).at("/code", json!("PGRST204")),
        admin(with_json("PATCH", "/rest/v1/products?sku=eq.W-1&select=sku,base_price", r#"{"base_price":7.5}"#))
            .prefer("return=representation").says("an update with representation")
            .status(200).json(json!([{"sku":"W-1","base_price":7.50}])),
        admin(with_json("PATCH", "/rest/v1/products?sku=eq.W-2", r#"{"is_available":false}"#))
            .says("an update without").status(204).has("content-range", Some("0-0/*")),
        // W-1 exists: an upsert that only updates answers 200, as PostgREST.
        admin(table::post("/rest/v1/products?on_conflict=sku", r#"{"name":"W1 renamed","sku":"W-1"}"#))
            .prefer("resolution=merge-duplicates, return=representation").says("an upsert that updates")
            .status(200).at("/0/name", json!("W1 renamed")),
        admin(table::post("/rest/v1/products?on_conflict=sku", r#"{"name":"ignored","sku":"W-1"}"#))
            .prefer("resolution=ignore-duplicates, return=representation").says("an ignored duplicate")
            .json(json!([])),
        // A singular write that touches two rows is refused and rolled back.
        admin(with_json("PATCH", "/rest/v1/products?sku=in.%28W-2%2CW-3%29", r#"{"description":"both"}"#))
            .header(OBJ.0, OBJ.1).prefer("return=representation")
            .says("a singular write of two rows").status(406),
        admin(get("/rest/v1/products?select=description&sku=eq.W-3")).says("rolled back")
            .at("/0/description", json!("d")),
        admin(table::post("/rest/v1/categories", r#"{"name":"Loc","slug":"loc-cat"}"#))
            .prefer("return=headers-only").says("headers-only gives a Location")
            .check(|r: &Reply| {
                r.header("location").is_some_and(|l| l.starts_with("/categories?id=eq."))
                    .then_some(()).ok_or(format!("location {:?}", r.header("location")))
            }),
        // FK violation → 409; deleting the category sets products' category to NULL.
        admin(table::post("/rest/v1/product_categories",
            r#"{"product_id":"00000000-0000-0000-0000-000000000000","category_id":"00000000-0000-0000-0000-000000000000"}"#))
            .says("a foreign key violation").status(409).at("/code", json!("23503")),
        admin(send("DELETE", &format!("/rest/v1/categories?id=eq.{id}")))
            .header("content-type", "application/json").says("the category deleted").status(204),
        admin(get("/rest/v1/products?select=category_id&sku=eq.W-1"))
            .says("its products keep no category").at("/0/category_id", Value::Null),
        admin(send("DELETE", "/rest/v1/products?sku=like.W-*")).prefer("return=representation")
            .says("a delete by pattern").rows(3),
        admin(get("/rest/v1/categories?select=slug,order_by&slug=in.%28plants%2Cseasonal%29&order=order_by"))
            .accept("text/csv").says("CSV output")
            .has("content-type", Some("text/csv; charset=utf-8")).text("slug,order_by\nseasonal,0\nplants,4"),
    ]).await;
}

#[tokio::test]
async fn rpc_and_schema_reload() {
    let gw = &support::shop().await;
    gw.sql(
        "CREATE FUNCTION public.add_them(a integer, b integer DEFAULT 10) RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
         CREATE FUNCTION public.cheap_products(max_price numeric) RETURNS SETOF public.products LANGUAGE sql STABLE
           AS 'SELECT * FROM public.products WHERE base_price <= max_price';
         CREATE FUNCTION public.slugs() RETURNS SETOF text LANGUAGE sql STABLE AS 'SELECT slug FROM public.categories ORDER BY 1';
         CREATE FUNCTION public.touch() RETURNS void LANGUAGE sql AS 'SELECT 1';
         CREATE TABLE public.notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text);",
    )
    .await;
    let anon = Api::anon(gw);
    // The DDL event trigger reloads the cache; wait for it.
    let mut ok = false;
    for _ in 0..50 {
        if anon.get("/rest/v1/notes").await.status == 200 {
            ok = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(ok, "the new table appears after DDL");
    let r = anon
        .send(
            "POST",
            "/rest/v1/rpc/add_them",
            &[],
            Some(r#"{"a":1,"b":2}"#),
        )
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, "3"));
    assert_eq!(anon.get("/rest/v1/rpc/add_them?a=5").await.text, "15");
    let r = anon
        .send(
            "POST",
            "/rest/v1/rpc/cheap_products?select=sku&order=sku&limit=2",
            &[],
            Some(r#"{"max_price":20}"#),
        )
        .await;
    assert_eq!(r.json(), json!([{"sku":"DNC-002"}]));
    let r = anon
        .send("POST", "/rest/v1/rpc/slugs", &[], Some("{}"))
        .await;
    assert_eq!(r.json()[0], "best-sellers");
    let r = anon.send("POST", "/rest/v1/rpc/touch", &[], None).await;
    assert_eq!(r.status, 204);
    let r = anon
        .send("POST", "/rest/v1/rpc/add_them", &[], Some(r#"{"z":1}"#))
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (404, json!("PGRST202"))
    );
    // The OpenAPI description lists the new objects.
    let doc = anon.get("/rest/v1/").await;
    assert_eq!(doc.status, 200);
    assert!(doc.json()["paths"].get("/notes").is_some());
    assert!(doc.json()["paths"].get("/rpc/add_them").is_some());
}

#[tokio::test]
async fn limits() {
    let gw = &support::shop().await;
    let svc = Api::service(gw);
    let big = format!(r#"{{"name":"{}"}}"#, "x".repeat(11 * 1024 * 1024));
    let r = svc
        .send("POST", "/rest/v1/categories", &[], Some(&big))
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (413, json!("PGRST413"))
    );
    // max_rows caps reads.
    let small = support::shop_with(&["--max-rows", "3"]).await;
    let r = Api::anon(&small).get("/rest/v1/products?select=id").await;
    assert_eq!(
        (
            r.json().as_array().unwrap().len(),
            r.header("content-range")
        ),
        (3, Some("0-2/*"))
    );
}

/// Who may do what on every shop table, through HTTP.
#[tokio::test]
async fn rls_matrix() {
    let gw = &support::shop().await;
    let admin_id = gw.create_user("matrix-admin@example.com", true).await;
    let user_id = gw.create_user("matrix-user@example.com", false).await;
    for (who, token) in [
        ("anon", None),
        ("user", Some(gw.user_token(&user_id))),
        ("admin", Some(gw.user_token(&admin_id))),
        ("service", Some(gw.service.clone())),
    ] {
        table::run(gw, rls_rows(who, token.as_deref(), &user_id)).await;
    }
    table::run(
        gw,
        vec![
            // The admin reads their own role row exactly like the shop's guard does.
            get(&format!(
                "/rest/v1/user_roles?select=role&user_id=eq.{admin_id}&role=eq.admin"
            ))
            .token(&gw.user_token(&admin_id))
            .header(OBJ.0, OBJ.1)
            .says("the admin reads their role as the shop's guard does")
            .status(200)
            .json(json!({"role":"admin"})),
            with_json(
                "PATCH",
                "/rest/v1/products?sku=eq.SEA-001",
                r#"{"is_featured":true}"#,
            )
            .service()
            .says("put the featured product back"),
        ],
    )
    .await;
}

/// What `who` (anon, a user, an admin of the shop, the service role) may do to each table,
/// in the order the rows run: a row of another's making is set up and cleaned up by the service
/// role.
fn rls_rows(who: &'static str, token: Option<&str>, user_id: &str) -> Vec<table::Case> {
    let may_write = matches!(who, "admin" | "service");
    let denied = |write: bool| {
        if write {
            None
        } else if who == "anon" {
            Some(401)
        } else {
            Some(403)
        }
    };
    let as_who = |c: table::Case| match token {
        Some(t) => c.token(t).says(who),
        None => c.says(who),
    };
    let n = usize::from(may_write);
    let slug = format!("rls-{who}");
    let category = format!(r#"{{"name":"R","slug":"{slug}","is_available":false}}"#);
    let mut rows = vec![{
        let r = as_who(table::post("/rest/v1/categories", &category))
            .says(&format!("{who} inserts a hidden category"));
        match denied(may_write) {
            None => r.status(201),
            Some(s) => r.status(s).at("/code", json!("42501")),
        }
    }];
    if !may_write {
        rows.push(
            table::post("/rest/v1/categories", &category)
                .service()
                .says("setup: the category"),
        );
    }
    rows.extend([
        as_who(get(&format!("/rest/v1/categories?select=slug&slug=eq.{slug}")))
            .says(&format!("{who} sees hidden categories: {may_write}")).rows(n),
        as_who(with_json("PATCH", &format!("/rest/v1/categories?slug=eq.{slug}"), r#"{"name":"R2"}"#))
            .prefer("return=representation").says(&format!("{who} updates categories: {may_write}")).rows(n),
        as_who(send("DELETE", &format!("/rest/v1/categories?slug=eq.{slug}")))
            .prefer("return=representation").says(&format!("{who} deletes categories: {may_write}")).rows(n),
        send("DELETE", &format!("/rest/v1/categories?slug=eq.{slug}")).service().says("cleanup: the category"),
        // products: everyone reads available ones; only admins see hidden ones.
        as_who(send("HEAD", "/rest/v1/products")).prefer("count=exact")
            .says(&format!("{who} counts products"))
            .has("content-range", Some(if may_write { "0-23/24" } else { "0-20/21" })),
        as_who(table::post("/rest/v1/products", &format!(r#"{{"name":"P","sku":"RLS-{who}"}}"#)))
            .says(&format!("{who} inserts products: {may_write}"))
            .check(move |r: &Reply| {
                ((r.status >= 400) != may_write).then_some(()).ok_or(format!("status {}", r.status))
            }),
        as_who(with_json("PATCH", "/rest/v1/products?sku=eq.SEA-001", r#"{"is_featured":true}"#))
            .prefer("return=representation").says(&format!("{who} updates products: {may_write}")).rows(n),
        as_who(send("DELETE", &format!("/rest/v1/products?sku=eq.RLS-{who}")))
            .prefer("return=representation").says(&format!("{who} deletes products: {may_write}")).rows(n),
        // product_categories: links of hidden products are not public.
        as_who(send("HEAD", "/rest/v1/product_categories")).prefer("count=exact")
            .says(&format!("{who} counts links"))
            .has("content-range", Some(if may_write { "0-9/10" } else { "0-8/9" })),
        as_who(send("DELETE", "/rest/v1/product_categories?product_id=eq.00000000-0000-0000-0000-000000000000"))
            .says(&format!("{who} deletes links (nothing matches)")).status(204),
        as_who(table::post("/rest/v1/product_categories",
            r#"{"product_id":"00000000-0000-0000-0000-000000000000","category_id":"00000000-0000-0000-0000-000000000000"}"#))
            .says(&format!("{who} inserts links")).status(denied(may_write).unwrap_or(409)),
        // user_roles: a user sees only their own row; roles change only through the shop's
        // staff functions (admins and the service role), never by a direct write from the API.
        as_who(get("/rest/v1/user_roles?select=user_id,role")).says(&format!("{who} reads roles"))
            .check(move |r: &Reply| {
                let len = r.json().as_array().map_or(0, Vec::len);
                let ok = match who {
                    "anon" | "user" => len == 0,
                    _ => len >= 2,
                };
                ok.then_some(()).ok_or(format!("{len} roles"))
            }),
        as_who(table::post("/rest/v1/user_roles", &format!(r#"{{"user_id":"{user_id}","role":"admin"}}"#)))
            .says(&format!("{who} writes user_roles directly: {}", who == "service"))
            .check(move |r: &Reply| {
                ((r.status < 300) == (who == "service")).then_some(()).ok_or(format!("status {}", r.status))
            }),
        // Unknown e-mail: 404 for those allowed to call, 401/403 for the others.
        as_who(table::post("/rest/v1/rpc/grant_admin", &format!(r#"{{"email":"{who}-matrix@example.com"}}"#)))
            .says(&format!("{who} calls grant_admin: {may_write}"))
            .check(move |r: &Reply| {
                ((r.status == 404) == may_write).then_some(()).ok_or(format!("status {}", r.status))
            }),
    ]);
    if who == "service" {
        rows.push(
            send(
                "DELETE",
                &format!("/rest/v1/user_roles?user_id=eq.{user_id}"),
            )
            .service()
            .says("cleanup: the role"),
        );
    }
    rows
}

#[tokio::test]
async fn cors_for_a_site_on_another_origin() {
    let gw = &support::shop().await;
    let client = reqwest::Client::new();
    let pre = client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/rest/v1/products", gw.url),
        )
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "PATCH")
        .header(
            "access-control-request-headers",
            "apikey, authorization, x-client-info, content-type, prefer, content-profile",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(pre.status().as_u16(), 200);
    let allow = pre
        .headers()
        .get("access-control-allow-headers")
        .unwrap()
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for h in ["apikey", "authorization", "prefer", "content-profile"] {
        assert!(allow.contains(h), "{h} not allowed: {allow}");
    }
    let res = Api::anon(gw)
        .send(
            "GET",
            "/rest/v1/categories?select=id&limit=1",
            &[
                ("origin", "http://localhost:5173"),
                ("prefer", "count=exact"),
            ],
            None,
        )
        .await;
    let exposed = res
        .header("access-control-expose-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("content-range") && exposed.contains("x-supabase-api-version"));
}
