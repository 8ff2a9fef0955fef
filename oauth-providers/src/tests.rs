use super::*;

#[test]
fn endpoints_by_provider_and_url() {
    // (provider, url, authorize, token, user (or the ID token's fixed issuer), scopes)
    let cases = [
        (
            "github",
            "",
            "https://github.com/login/oauth/authorize",
            "https://github.com/login/oauth/access_token",
            "https://api.github.com/user",
            "user:email",
        ),
        (
            "github",
            "https://git.example.com/",
            "https://git.example.com/login/oauth/authorize",
            "https://git.example.com/login/oauth/access_token",
            "https://git.example.com/api/v3/user",
            "user:email",
        ),
        (
            "gitlab",
            "",
            "https://gitlab.com/oauth/authorize",
            "https://gitlab.com/oauth/token",
            "https://gitlab.com/api/v4/user",
            "read_user",
        ),
        (
            "keycloak",
            "https://id.example.com/realms/shop",
            "https://id.example.com/realms/shop/protocol/openid-connect/auth",
            "https://id.example.com/realms/shop/protocol/openid-connect/token",
            "https://id.example.com/realms/shop/protocol/openid-connect/userinfo",
            "profile email",
        ),
        (
            "bitbucket",
            "",
            "https://bitbucket.org/site/oauth2/authorize",
            "https://bitbucket.org/site/oauth2/access_token",
            "https://api.bitbucket.org/2.0/user",
            "account email",
        ),
        (
            "facebook",
            "",
            "https://www.facebook.com/dialog/oauth",
            "https://graph.facebook.com/oauth/access_token",
            "https://graph.facebook.com/me?fields=email,first_name,last_name,name,picture",
            "email",
        ),
        (
            "figma",
            "",
            "https://www.figma.com/oauth",
            "https://api.figma.com/v1/oauth/token",
            "https://api.figma.com/v1/me",
            "current_user:read",
        ),
        (
            "fly",
            "",
            "https://api.fly.io/oauth/authorize",
            "https://api.fly.io/oauth/token",
            "https://api.fly.io/oauth/token/info",
            "read",
        ),
        (
            "kakao",
            "",
            "https://kauth.kakao.com/oauth/authorize",
            "https://kauth.kakao.com/oauth/token",
            "https://kapi.kakao.com/v2/user/me",
            "account_email profile_image profile_nickname",
        ),
        (
            "notion",
            "",
            "https://api.notion.com/v1/oauth/authorize",
            "https://api.notion.com/v1/oauth/token",
            "https://api.notion.com/v1/users/me",
            "",
        ),
        (
            "slack_oidc",
            "",
            "https://slack.com/openid/connect/authorize",
            "https://slack.com/api/openid.connect.token",
            "https://slack.com/api/openid.connect.userInfo",
            "profile email openid",
        ),
        (
            "spotify",
            "",
            "https://accounts.spotify.com/authorize",
            "https://accounts.spotify.com/api/token",
            "https://api.spotify.com/v1/me",
            "user-read-email",
        ),
        (
            "twitch",
            "",
            "https://id.twitch.tv/oauth2/authorize",
            "https://id.twitch.tv/oauth2/token",
            "https://api.twitch.tv/helix/users",
            "user:read:email",
        ),
        (
            "zoom",
            "",
            "https://zoom.us/oauth/authorize",
            "https://zoom.us/oauth/token",
            "https://api.zoom.us/v2/users/me",
            "",
        ),
        (
            "zoom",
            "http://127.0.0.1:9/",
            "http://127.0.0.1:9/oauth/authorize",
            "http://127.0.0.1:9/oauth/token",
            "http://127.0.0.1:9/v2/users/me",
            "",
        ),
        (
            "apple",
            "",
            "https://appleid.apple.com/auth/authorize",
            "https://appleid.apple.com/auth/token",
            "id_token of https://appleid.apple.com",
            "email name",
        ),
        (
            "linkedin_oidc",
            "",
            "https://api.linkedin.com/oauth/v2/authorization",
            "https://api.linkedin.com/oauth/v2/accessToken",
            "id_token of https://www.linkedin.com/oauth",
            "openid email profile",
        ),
        (
            "azure",
            "",
            "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "id_token of its own issuer",
            "openid",
        ),
        (
            "azure",
            "https://login.microsoftonline.com/t-1",
            "https://login.microsoftonline.com/t-1/oauth2/v2.0/authorize",
            "https://login.microsoftonline.com/t-1/oauth2/v2.0/token",
            "id_token of https://login.microsoftonline.com/t-1/v2.0",
            "openid",
        ),
        (
            "azure",
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/oauth2/v2.0/authorize",
            "http://127.0.0.1:9/oauth2/v2.0/token",
            "id_token of its own issuer",
            "openid",
        ),
    ];
    for (provider, url, authorize, token, user, scopes) in cases {
        let e = endpoints(provider, url).unwrap();
        let got = match &e.user {
            UserFrom::Api(u) => u.clone(),
            UserFrom::IdToken(Some(i)) => format!("id_token of {i}"),
            UserFrom::IdToken(None) => "id_token of its own issuer".into(),
            UserFrom::TokenField(f) => format!("the token answer's {f}"),
        };
        assert_eq!(
            (
                e.authorize.as_str(),
                e.token.as_str(),
                got.as_str(),
                e.scopes
            ),
            (authorize, token, user, scopes),
            "{provider} {url}"
        );
        assert_eq!(e.credentials_in_form, provider == "kakao", "{provider}");
    }
    assert_eq!(
        endpoints("github", "https://git.example.com")
            .unwrap()
            .emails
            .as_deref(),
        Some("https://git.example.com/api/v3/user/emails")
    );
    assert_eq!(
        endpoints("apple", "").unwrap().authorize_extra,
        "&response_mode=form_post"
    );
    assert_eq!(endpoints("keycloak", ""), None);
    for stand_in_only in ["twitter", "slack", "custom"] {
        assert_eq!(endpoints(stand_in_only, ""), None, "{stand_in_only}");
    }
    assert!(azure_issuer(
        "https://login.microsoftonline.com/9188040d/v2.0"
    ));
    assert!(azure_issuer("https://shop-1.ciamlogin.com/t/v2.0/"));
    assert!(!azure_issuer("https://evil.example/t/v2.0"));
    assert!(!azure_issuer("https://login.microsoftonline.com/t/v1.0"));
}

#[test]
fn authorize_passes_on_what_gotrue_passes_on() {
    // (the /authorize query, the provider's scopes, what its page gets)
    let cases = [
        (
            "provider=github&redirect_to=http%3A%2F%2Fa",
            "user:email",
            "&scope=user%3Aemail&redirect_to=http%3A%2F%2Fa",
        ),
        (
            "provider=google&scopes=drive.readonly+calendar&access_type=offline&prompt=consent",
            "email profile",
            "&scope=email+profile+drive.readonly+calendar&access_type=offline&prompt=consent",
        ),
        (
            "provider=github&client_id=evil&REDIRECT_URI=x&state=s&code_challenge=c&nonce=n",
            "user:email",
            "&scope=user%3Aemail&nonce=n",
        ),
        (
            "provider=workos&workos_provider=GoogleOAuth&connection=conn_1",
            "",
            "&provider=GoogleOAuth&connection=conn_1",
        ),
        ("provider=notion", "", ""),
    ];
    for (query, scopes, out) in cases {
        assert_eq!(authorize_params(query, scopes), out, "{query}");
    }
}

#[test]
fn user_requests_as_gotrue_makes_them() {
    let (url, headers) = user_request(
        "twitch",
        "https://api.twitch.tv/helix/users",
        ("cid", "s"),
        "t",
    );
    assert_eq!(
        (url.as_str(), headers),
        (
            "https://api.twitch.tv/helix/users",
            vec![("client-id", "cid".to_string())]
        )
    );
    let (_, headers) = user_request("notion", "u", ("cid", "s"), "t");
    assert_eq!(headers, vec![("notion-version", "2021-08-16".to_string())]);
    // HMAC-SHA-256("token-1") under "secret-1", as `openssl dgst -sha256 -hmac` prints it.
    let (url, _) = user_request(
        "facebook",
        "https://g/me?fields=email",
        ("cid", "secret-1"),
        "token-1",
    );
    assert_eq!(
        url,
        "https://g/me?fields=email&appsecret_proof=c8f7d96f3871538b4c3f08987cca32bb16cdf51af7a0f6e001c14bfc37761961"
    );
}

#[test]
fn users_read_as_identities() {
    // (provider, user answer, addresses, sub, email, verified, name, avatar)
    let cases = [
        (
            "github",
            json!({"id": 42, "login": "ann", "name": "Ann", "avatar_url": "https://a/x.png", "email": null}),
            Some(
                json!([{"email": "old@x.com", "primary": false, "verified": true}, {"email": "Ann@X.com", "primary": true, "verified": true}]),
            ),
            "42",
            Some("ann@x.com"),
            true,
            "Ann",
            Some("https://a/x.png"),
        ),
        (
            "github",
            json!({"id": 43, "login": "bob", "email": "bob@x.com"}),
            Some(json!([])),
            "43",
            Some("bob@x.com"),
            false,
            "bob",
            None,
        ),
        (
            "google",
            json!({"id": "g1", "email": "c@x.com", "verified_email": true, "name": "Cy", "picture": "https://p"}),
            None,
            "g1",
            Some("c@x.com"),
            true,
            "Cy",
            Some("https://p"),
        ),
        (
            "discord",
            json!({"id": "d1", "username": "dee", "global_name": "Dee", "email": "d@x.com", "verified": true, "avatar": "abc"}),
            None,
            "d1",
            Some("d@x.com"),
            true,
            "Dee",
            Some("https://cdn.discordapp.com/avatars/d1/abc.png"),
        ),
        (
            "gitlab",
            json!({"id": 7, "username": "gus", "name": "Gus", "email": "g@x.com", "confirmed_at": "2024-01-01"}),
            None,
            "7",
            Some("g@x.com"),
            true,
            "Gus",
            None,
        ),
        (
            "keycloak",
            json!({"sub": "k1", "email": "k@x.com", "email_verified": false, "preferred_username": "kay"}),
            None,
            "k1",
            Some("k@x.com"),
            false,
            "kay",
            None,
        ),
        (
            "bitbucket",
            json!({"uuid": "{b-1}", "display_name": "Bea", "avatar": {"href": "https://b/a.png"}}),
            Some(
                json!({"values": [{"email": "b@x.com", "is_primary": true, "is_confirmed": true}]}),
            ),
            "{b-1}",
            Some("b@x.com"),
            true,
            "Bea",
            Some("https://b/a.png"),
        ),
        (
            "facebook",
            json!({"id": "f1", "email": "f@x.com", "first_name": "Fay", "last_name": "Lee", "name": "fay.lee", "picture": {"data": {"url": "https://f/p"}}}),
            None,
            "f1",
            Some("f@x.com"),
            true,
            "Fay Lee",
            Some("https://f/p"),
        ),
        (
            "figma",
            json!({"id": "fg", "email": "fg@x.com", "handle": "Fig", "img_url": "https://fg/i"}),
            None,
            "fg",
            Some("fg@x.com"),
            true,
            "Fig",
            Some("https://fg/i"),
        ),
        (
            "fly",
            json!({"user_id": "u9", "user_name": "Flo", "email": "fl@x.com"}),
            None,
            "u9",
            Some("fl@x.com"),
            true,
            "Flo",
            None,
        ),
        (
            "kakao",
            json!({"id": 123, "kakao_account": {"email": "k@x.kr", "is_email_valid": true, "is_email_verified": false, "profile": {"nickname": "Kim", "profile_image_url": "https://k/i"}}}),
            None,
            "123",
            Some("k@x.kr"),
            false,
            "Kim",
            Some("https://k/i"),
        ),
        (
            "notion",
            json!({"bot": {"owner": {"user": {"id": "n1", "name": "Nia", "avatar_url": "https://n/a", "person": {"email": "n@x.com"}}}}}),
            None,
            "n1",
            Some("n@x.com"),
            true,
            "Nia",
            Some("https://n/a"),
        ),
        (
            "slack_oidc",
            json!({"https://slack.com/user_id": "U1", "sub": "other", "email": "s@x.com", "email_verified": true, "name": "Sam", "picture": "https://s/p"}),
            None,
            "U1",
            Some("s@x.com"),
            true,
            "Sam",
            Some("https://s/p"),
        ),
        (
            "spotify",
            json!({"id": "sp", "display_name": "Spo", "email": "sp@x.com", "images": [{"url": "small", "height": 64, "width": 64}, {"url": "big", "height": 300, "width": 300}]}),
            None,
            "sp",
            Some("sp@x.com"),
            false,
            "Spo",
            Some("big"),
        ),
        (
            "twitch",
            json!({"data": [{"id": "t1", "login": "tess", "display_name": "Tess", "email": "t@x.com", "profile_image_url": "https://t/i"}]}),
            None,
            "t1",
            Some("t@x.com"),
            true,
            "tess",
            Some("https://t/i"),
        ),
        (
            "zoom",
            json!({"id": "z1", "first_name": "Zoe", "last_name": "Ng", "email": "z@x.com", "login_type": "100", "verified": 0, "pic_url": "https://z/p"}),
            None,
            "z1",
            Some("z@x.com"),
            false,
            "Zoe Ng",
            Some("https://z/p"),
        ),
        (
            "zoom",
            json!({"id": "z2", "first_name": "Zed", "email": "z2@x.com", "login_type": "1", "verified": 0}),
            None,
            "z2",
            Some("z2@x.com"),
            true,
            "Zed",
            None,
        ),
    ];
    for (provider, user, emails, sub, email, verified, name, avatar) in cases {
        let p = profile(provider, "iss", &user, emails.as_ref()).unwrap();
        assert_eq!(p["sub"], sub, "{provider}");
        assert_eq!(p["email"].as_str(), email, "{provider}");
        assert_eq!(p["email_verified"], verified, "{provider}");
        assert_eq!(p["name"].as_str(), Some(name), "{provider}");
        assert_eq!(p["avatar_url"].as_str(), avatar, "{provider}");
    }
    assert_eq!(profile("github", "iss", &json!({}), None), None);
    assert_eq!(profile("twitch", "iss", &json!({"data": []}), None), None);
}

#[test]
fn id_tokens_read_as_identities() {
    // (provider, claims, email_verified, name)
    let cases = [
        (
            "google",
            json!({"sub": "1", "id": "not-this", "email": "A@x.com", "email_verified": true, "name": "Ann"}),
            true,
            Some("Ann"),
        ),
        (
            "apple",
            json!({"sub": "2", "email": "p@privaterelay.appleid.com", "email_verified": "true"}),
            true,
            None,
        ),
        (
            "linkedin_oidc",
            json!({"sub": "3", "email": "l@x.com", "email_verified": "false", "given_name": "Lu", "family_name": "Ma"}),
            false,
            Some("Lu Ma"),
        ),
        ("azure", json!({"sub": "4", "email": "a@x.com"}), true, None),
        (
            "azure",
            json!({"sub": "5", "email": "a@x.com", "xms_edov": "0"}),
            false,
            None,
        ),
        (
            "azure",
            json!({"sub": "6", "email": "a@x.com", "xms_edov": true}),
            true,
            None,
        ),
        (
            "kakao",
            json!({"sub": "7", "email": "k@x.kr", "nickname": "Kim"}),
            true,
            Some("Kim"),
        ),
        (
            "keycloak",
            json!({"sub": "8", "email": "k@x.com", "email_verified": false}),
            false,
            None,
        ),
    ];
    for (provider, claims, verified, name) in cases {
        let p = id_token_profile(provider, "https://issuer", &claims).unwrap();
        assert_eq!(p["sub"], claims["sub"], "{provider}");
        assert_eq!(p["iss"], "https://issuer", "{provider}");
        assert_eq!(
            p["email"],
            claims["email"].as_str().unwrap().to_lowercase(),
            "{provider}"
        );
        assert_eq!(p["email_verified"], verified, "{provider}");
        assert_eq!(p["name"].as_str(), name, "{provider}");
    }
    assert_eq!(
        id_token_profile("google", "i", &json!({"email": "x@y"})),
        None
    );
}
