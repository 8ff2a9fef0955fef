//! Studio's settings page's reading of config.toml: each key the shop's file sets, with its line
//! and value, and the sign-in methods in force; refused without Studio's secret.

use super::{Studio, json_of, signed_in};
use crate::support::shop;

#[tokio::test]
async fn config_keys_are_listed_with_their_lines_behind_studio_s_secret() {
    let gw = shop().await;
    let base = gw.status["STUDIO_URL"].clone();
    let r = reqwest::Client::new()
        .get(format!("{base}/api/settings/config"))
        .header("x-studio", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    let s = Studio {
        base,
        client: signed_in(&gw),
    };
    let (st, text) = s.call("GET", "/settings/config", None).await;
    assert_eq!(st, 200, "{text}");
    let body = json_of(&text);
    assert_eq!(body["file"], "supabase/config.toml", "{text}");
    let keys = body["keys"].as_array().unwrap();
    let key = |k: &str| {
        keys.iter()
            .find(|x| x["key"] == k)
            .unwrap_or_else(|| panic!("{k} not listed: {text}"))
    };
    // (key, section, line, value as shown) from the repository's supabase/config.toml.
    let cases: &[(&str, &str, u64, &str)] = &[
        ("project_id", "", 3, "bluebell-sage"),
        ("auth.site_url", "auth", 19, "http://127.0.0.1:54321"),
        ("auth.email.enable_confirmations", "auth.email", 33, "false"),
        (
            "auth.rate_limit.token_refresh",
            "auth.rate_limit",
            28,
            "150",
        ),
    ];
    for (k, section, line, value) in cases {
        let x = key(k);
        assert_eq!(x["section"], *section, "{k}: {x}");
        assert_eq!(x["line"], *line, "{k}: {x}");
        assert_eq!(x["value"], *value, "{k}: {x}");
        assert_eq!(x["applied"], true, "{k}: {x}");
        assert!(x["secret"].is_null() && x["env"].is_null(), "{k}: {x}");
    }
    let providers = body["providers"].as_array().unwrap();
    let email = providers.iter().find(|p| p["name"] == "email").unwrap();
    assert_eq!(email["enabled"], true, "{text}");
}
