//! The site the gateway serves: pages of one row answer 404 when the visitor cannot read that
//! row (the site's `_exists` rules), and the site's address the database builds links with is
//! the one the gateway runs at, not one written into the data.

use crate::support::{self, Api};
use serde_json::json;

/// A built site: an index page and the control files given.
fn site(files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = support::scratch_dir("site");
    std::fs::write(
        dir.join("index.html"),
        "<html><head></head><body>the app</body></html>",
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

/// The status and body of a page, as a browser asks for it (no API key).
async fn page(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn a_page_of_a_row_the_visitor_cannot_read_is_a_404() {
    let dir = site(&[
        (
            "_redirects",
            "/product/:id /index.html 200\n/requests/:id /index.html 200\n/* /index.html 404\n",
        ),
        (
            "_exists",
            "# pages of one row\n\
             /product/:id   products?id=eq.:id&select=id\n\
             /requests/:id  bouquet_requests?id=eq.:id&select=id\n",
        ),
    ]);
    let gw = support::shop_with(&["--site-dir", dir.to_str().unwrap()]).await;
    let rows = gw
        .sql(
            "SELECT (SELECT id::text FROM public.products WHERE is_available ORDER BY name LIMIT 1),
                    (SELECT id::text FROM public.products WHERE is_available ORDER BY name DESC LIMIT 1)",
        )
        .await;
    let (shown, hidden) = (rows[0][0].clone().unwrap(), rows[0][1].clone().unwrap());
    gw.sql(&format!(
        "UPDATE public.products SET is_available = false WHERE id = '{hidden}'"
    ))
    .await;
    let url = |p: &str| format!("{}{p}", gw.url);
    let cases = [
        // (path, status): the body is the app's index either way.
        (format!("/product/{shown}"), 200),
        (format!("/product/{hidden}"), 404),
        (format!("/product/{}", uuid::Uuid::new_v4()), 404),
        // A value the column cannot hold names no row; one outside the bounds is not read.
        ("/product/not-a-uuid".to_string(), 404),
        ("/product/1,2".to_string(), 404),
        ("/product/a%26id%3Dneq.x".to_string(), 404),
        (format!("/product/{}", "a".repeat(101)), 404),
        // A table anon may not read at all is no answer: the page is served as without the rule.
        (format!("/requests/{}", uuid::Uuid::new_v4()), 200),
        ("/flowers".to_string(), 404),
    ];
    for (path, status) in cases {
        let (got, body) = page(&url(&path)).await;
        if got != status {
            // What the rule's read answers now, to tell a wrong rule from a failed read (the
            // gateway logs a failed one as "_exists: reading …").
            let table = if path.starts_with("/product/") {
                "products"
            } else {
                "bouquet_requests"
            };
            let id = path.rsplit('/').next().unwrap_or_default();
            let read = Api::anon(&gw)
                .get(&format!("/rest/v1/{table}?id=eq.{id}&select=id"))
                .await;
            panic!(
                "{path}: {got}, not {status}; the read now: {} {}",
                read.status, read.text
            );
        }
        assert!(body.contains("the app"), "{path}: {body}");
    }
    // The control file is never served.
    assert_eq!(page(&url("/_exists")).await.0, 404);
    // An admin still sees the hidden product through the API; the page's status is the visitor's.
    let r = Api::service(&gw)
        .get(&format!("/rest/v1/products?id=eq.{hidden}&select=id"))
        .await;
    assert_eq!(r.json().as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn mail_links_to_the_address_the_shop_runs_at() {
    let dir = site(&[]);
    let gw = support::shop_with(&["--site-dir", dir.to_str().unwrap()]).await;
    assert!(!gw.url.ends_with(":54321"), "{}", gw.url);
    let anon = Api::anon(&gw);
    let options = anon
        .send("POST", "/rest/v1/rpc/request_options", &[], Some("{}"))
        .await;
    assert_eq!(
        options.json()["site_url"],
        json!(gw.url),
        "{}",
        options.text
    );
    let day = gw
        .sql(
            "SELECT d::date::text FROM generate_series((now() AT TIME ZONE 'America/Denver')::date + 3,
                 (now() AT TIME ZONE 'America/Denver')::date + 12, '1 day') d
             WHERE extract(isodow FROM d) <> 7 AND to_char(d, 'MM-DD') NOT IN ('12-25', '01-01')
             LIMIT 1",
        )
        .await[0][0]
        .clone()
        .unwrap();
    let id = uuid::Uuid::new_v4().to_string();
    let sent = json!({
        "id": id, "size": "good", "colors": ["Pink"], "design_style": "modern",
        "occasion": "birthday", "customer_name": "Port Check", "customer_phone": "435-555-0100",
        "customer_email": "port-check@example.com", "fulfilment": "pickup", "wanted_on": day,
    });
    let r = anon
        .send(
            "POST",
            "/rest/v1/bouquet_requests",
            &[],
            Some(&sent.to_string()),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let link = format!("Open it in the admin panel: {}/admin/requests/{id}", gw.url);
    let mut found = false;
    for _ in 0..100 {
        if gw
            .caught_mail()
            .await
            .iter()
            .any(|(_, m)| m.contains(&link))
        {
            found = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(found, "no mail with {link}: {:?}", gw.caught_mail().await);
    // The address the owner sets in Settings (the shop's own domain) wins.
    gw.sql("UPDATE public.shop_settings SET site_url = 'https://shop.example'")
        .await;
    let options = anon
        .send("POST", "/rest/v1/rpc/request_options", &[], Some("{}"))
        .await;
    assert_eq!(options.json()["site_url"], json!("https://shop.example"));
}
