//! /rest/v1 against a real gateway and PostgreSQL, with the demo catalogue.

mod support;
use serde_json::{Value, json};
use support::Api;

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
    let keys = auth::jwt::JwtKeys::new(gw.secret());
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
        auth::jwt::JwtKeys::new("not-the-secret-not-the-secret-not-the")
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
    let admin = Api::user(gw, &admin_id);
    let rep = ("prefer", "return=representation");
    let r = admin
        .send(
            "POST",
            "/rest/v1/categories?select=*",
            &[OBJ, rep],
            Some(r#"{"name":"Test Cat","slug":"test-cat","order_by":9}"#),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let cat = r.json();
    assert_eq!(cat["is_available"], true, "defaults apply to absent keys");
    let id = cat["id"].as_str().unwrap().to_string();
    // Minimal return: 201 with no body.
    let r = admin
        .send(
            "POST",
            "/rest/v1/products",
            &[],
            Some(&format!(
                r#"{{"name":"W1","sku":"W-1","base_price":5,"category_id":"{id}"}}"#
            )),
        )
        .await;
    assert_eq!((r.status, r.text.as_str()), (201, ""));
    // Bulk insert with columns=: missing keys become NULL, not the default.
    let r = admin
        .send(
            "POST",
            "/rest/v1/products?columns=%22name%22%2C%22sku%22%2C%22description%22",
            &[rep],
            Some(r#"[{"name":"W2","sku":"W-2"},{"name":"W3","sku":"W-3","description":"d"}]"#),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.json()[0]["description"], Value::Null);
    // Duplicate → 409 with Postgres' message.
    let r = admin
        .send(
            "POST",
            "/rest/v1/products",
            &[],
            Some(r#"{"name":"Dup","sku":"W-1"}"#),
        )
        .await;
    assert_eq!((r.status, r.json()["code"].clone()), (409, json!("23505")));
    // PostgreSQL leaves the key values out of the detail on tables under RLS.
    assert_eq!(
        r.json()["message"],
        "duplicate key value violates unique constraint \"products_sku_key\""
    );
    // Unknown column in body → PGRST204.
    let r = admin
        .send("POST", "/rest/v1/products", &[], Some(r#"{"nam":"x"}"#))
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (400, json!("PGRST204"))
    );
    // Update by sku with representation, then without.
    let r = admin
        .send(
            "PATCH",
            "/rest/v1/products?sku=eq.W-1&select=sku,base_price",
            &[rep],
            Some(r#"{"base_price":7.5}"#),
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"sku":"W-1","base_price":7.50}]))
    );
    let r = admin
        .send(
            "PATCH",
            "/rest/v1/products?sku=eq.W-2",
            &[],
            Some(r#"{"is_available":false}"#),
        )
        .await;
    assert_eq!((r.status, r.header("content-range")), (204, Some("0-0/*")));
    // Upserts.
    let r = admin
        .send(
            "POST",
            "/rest/v1/products?on_conflict=sku",
            &[(
                "prefer",
                "resolution=merge-duplicates, return=representation",
            )],
            Some(r#"{"name":"W1 renamed","sku":"W-1"}"#),
        )
        .await;
    // W-1 exists: an upsert that only updates answers 200, as PostgREST.
    assert_eq!(
        (r.status, r.json()[0]["name"].clone()),
        (200, json!("W1 renamed"))
    );
    let r = admin
        .send(
            "POST",
            "/rest/v1/products?on_conflict=sku",
            &[(
                "prefer",
                "resolution=ignore-duplicates, return=representation",
            )],
            Some(r#"{"name":"ignored","sku":"W-1"}"#),
        )
        .await;
    assert_eq!(r.json(), json!([]));
    // A singular write that touches two rows is refused and rolled back.
    let r = admin
        .send(
            "PATCH",
            "/rest/v1/products?sku=in.%28W-2%2CW-3%29",
            &[OBJ, rep],
            Some(r#"{"description":"both"}"#),
        )
        .await;
    assert_eq!(r.status, 406);
    let check = admin
        .get("/rest/v1/products?select=description&sku=eq.W-3")
        .await
        .json();
    assert_eq!(check[0]["description"], "d");
    // headers-only gives a Location.
    let r = admin
        .send(
            "POST",
            "/rest/v1/categories",
            &[("prefer", "return=headers-only")],
            Some(r#"{"name":"Loc","slug":"loc-cat"}"#),
        )
        .await;
    assert!(
        r.header("location")
            .unwrap()
            .starts_with("/categories?id=eq.")
    );
    // FK violation → 409; deleting the category sets products' category to NULL.
    let r = admin.send("POST", "/rest/v1/product_categories", &[], Some(r#"{"product_id":"00000000-0000-0000-0000-000000000000","category_id":"00000000-0000-0000-0000-000000000000"}"#)).await;
    assert_eq!((r.status, r.json()["code"].clone()), (409, json!("23503")));
    let r = admin
        .send(
            "DELETE",
            &format!("/rest/v1/categories?id=eq.{id}"),
            &[("content-type", "application/json")],
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    let w1 = admin
        .get("/rest/v1/products?select=category_id&sku=eq.W-1")
        .await
        .json();
    assert_eq!(w1[0]["category_id"], Value::Null);
    let r = admin
        .send("DELETE", "/rest/v1/products?sku=like.W-*", &[rep], None)
        .await;
    assert_eq!(r.json().as_array().unwrap().len(), 3);
    // CSV output.
    let r = admin.send("GET", "/rest/v1/categories?select=slug,order_by&slug=in.%28plants%2Cseasonal%29&order=order_by", &[("accept", "text/csv")], None).await;
    assert_eq!(
        (r.header("content-type"), r.text.as_str()),
        (
            Some("text/csv; charset=utf-8"),
            "slug,order_by\nseasonal,0\nplants,4"
        )
    );
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
    let roles: [(&str, Api); 4] = [
        ("anon", Api::anon(gw)),
        ("user", Api::user(gw, &user_id)),
        ("admin", Api::user(gw, &admin_id)),
        ("service", Api::service(gw)),
    ];
    let svc = Api::service(gw);
    for (who, api) in &roles {
        let may_write = matches!(*who, "admin" | "service");
        // categories
        let slug = format!("rls-{who}");
        let r = api
            .send(
                "POST",
                "/rest/v1/categories",
                &[],
                Some(&format!(
                    r#"{{"name":"R","slug":"{slug}","is_available":false}}"#
                )),
            )
            .await;
        assert_eq!(
            r.status,
            if may_write {
                201
            } else if *who == "anon" {
                401
            } else {
                403
            },
            "{who} insert categories: {}",
            r.text
        );
        if !may_write {
            assert_eq!(r.json()["code"], "42501");
            svc.send(
                "POST",
                "/rest/v1/categories",
                &[],
                Some(&format!(
                    r#"{{"name":"R","slug":"{slug}","is_available":false}}"#
                )),
            )
            .await;
        }
        let hidden = api
            .get(&format!("/rest/v1/categories?select=slug&slug=eq.{slug}"))
            .await
            .json();
        assert_eq!(
            hidden.as_array().unwrap().len(),
            usize::from(may_write),
            "{who} sees hidden categories"
        );
        let r = api
            .send(
                "PATCH",
                &format!("/rest/v1/categories?slug=eq.{slug}"),
                &[("prefer", "return=representation")],
                Some(r#"{"name":"R2"}"#),
            )
            .await;
        assert_eq!(
            r.json().as_array().map(Vec::len),
            Some(usize::from(may_write)),
            "{who} update categories: {}",
            r.text
        );
        let r = api
            .send(
                "DELETE",
                &format!("/rest/v1/categories?slug=eq.{slug}"),
                &[("prefer", "return=representation")],
                None,
            )
            .await;
        assert_eq!(
            r.json().as_array().map(Vec::len),
            Some(usize::from(may_write)),
            "{who} delete categories"
        );
        svc.send(
            "DELETE",
            &format!("/rest/v1/categories?slug=eq.{slug}"),
            &[],
            None,
        )
        .await;

        // products: everyone reads available ones; only admins see hidden ones.
        let all = api
            .send(
                "HEAD",
                "/rest/v1/products",
                &[("prefer", "count=exact")],
                None,
            )
            .await;
        assert_eq!(
            all.header("content-range"),
            Some(if may_write { "0-23/24" } else { "0-20/21" }),
            "{who} products"
        );
        let r = api
            .send(
                "POST",
                "/rest/v1/products",
                &[],
                Some(&format!(r#"{{"name":"P","sku":"RLS-{who}"}}"#)),
            )
            .await;
        assert_eq!(r.status >= 400, !may_write, "{who} insert products");
        let r = api
            .send(
                "PATCH",
                "/rest/v1/products?sku=eq.SEA-001",
                &[("prefer", "return=representation")],
                Some(r#"{"is_featured":true}"#),
            )
            .await;
        assert_eq!(
            r.json().as_array().map(Vec::len),
            Some(usize::from(may_write)),
            "{who} update products"
        );
        let r = api
            .send(
                "DELETE",
                &format!("/rest/v1/products?sku=eq.RLS-{who}"),
                &[("prefer", "return=representation")],
                None,
            )
            .await;
        assert_eq!(
            r.json().as_array().map(Vec::len),
            Some(usize::from(may_write)),
            "{who} delete products"
        );

        // product_categories: links of hidden products are not public.
        let links = api
            .send(
                "HEAD",
                "/rest/v1/product_categories",
                &[("prefer", "count=exact")],
                None,
            )
            .await;
        assert_eq!(
            links.header("content-range"),
            Some(if may_write { "0-9/10" } else { "0-8/9" }),
            "{who} links"
        );
        let r = api
            .send(
                "DELETE",
                "/rest/v1/product_categories?product_id=eq.00000000-0000-0000-0000-000000000000",
                &[],
                None,
            )
            .await;
        assert_eq!(r.status, 204, "{who} delete links (nothing matches)");
        let r = api
            .send("POST", "/rest/v1/product_categories", &[], Some(r#"{"product_id":"00000000-0000-0000-0000-000000000000","category_id":"00000000-0000-0000-0000-000000000000"}"#))
            .await;
        assert_eq!(
            r.status,
            if may_write {
                409
            } else if *who == "anon" {
                401
            } else {
                403
            },
            "{who} insert links"
        );

        // user_roles: a user sees only their own row; roles change only through the shop's
        // staff functions (admins and the service role), never by a direct write from the API.
        let mine = api
            .get("/rest/v1/user_roles?select=user_id,role")
            .await
            .json();
        let expected = match *who {
            "anon" | "user" => 0,
            _ => 2,
        };
        assert!(
            mine.as_array().unwrap().len() >= expected,
            "{who} roles: {mine}"
        );
        if *who == "user" || *who == "anon" {
            assert!(mine.as_array().unwrap().is_empty());
        }
        let r = api
            .send(
                "POST",
                "/rest/v1/user_roles",
                &[],
                Some(&format!(r#"{{"user_id":"{user_id}","role":"admin"}}"#)),
            )
            .await;
        assert_eq!(r.status < 300, *who == "service", "{who} writes user_roles");
        let rpc = api
            .send(
                "POST",
                "/rest/v1/rpc/grant_admin",
                &[],
                Some(&format!(r#"{{"email":"{who}-matrix@example.com"}}"#)),
            )
            .await;
        // Unknown e-mail: 404 for those allowed to call, 401/403 for the others.
        assert_eq!(
            rpc.status == 404,
            may_write,
            "{who} grant_admin: {}",
            rpc.text
        );
        if r.status < 300 {
            svc.send(
                "DELETE",
                &format!("/rest/v1/user_roles?user_id=eq.{user_id}"),
                &[],
                None,
            )
            .await;
        }
    }
    // The admin reads their own role row exactly like the shop's guard does.
    let admin = Api::user(gw, &admin_id);
    let r = admin
        .send(
            "GET",
            &format!("/rest/v1/user_roles?select=role&user_id=eq.{admin_id}&role=eq.admin"),
            &[OBJ],
            None,
        )
        .await;
    assert_eq!((r.status, r.json()), (200, json!({"role":"admin"})));
    svc.send(
        "PATCH",
        "/rest/v1/products?sku=eq.SEA-001",
        &[],
        Some(r#"{"is_featured":true}"#),
    )
    .await;
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
