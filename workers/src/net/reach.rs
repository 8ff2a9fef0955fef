//! Where the database's requests may go. Studio, the mail catcher and the workbench answer
//! this machine (loopback), and pg_net's functions are executable by `anon` and
//! `authenticated` (as on Supabase): left alone, one `net.http_post` from any SQL a visitor can
//! reach would carry requests from loopback to them. So, when [`Reach::local`] is off (the
//! default whenever those tools listen on loopback), requests to this machine's own addresses
//! (loopback, unspecified) and to link-local ones (cloud metadata services) are refused, the
//! project's own API excepted (webhooks calling Edge Functions, as the CLI's
//! `http://kong:8000/functions/v1/…`), but never its workbench paths. The check is made on the
//! URL's literal address, on every redirect, and on each name's resolved addresses (so a name
//! that resolves to 127.0.0.1, or is made to later, is refused too).

pub use ::reach::{REFUSED, Reach, is_local};
use std::net::SocketAddr;
use std::sync::Arc;

/// Whether a request to `url` may be sent, judged on what the URL itself says: a literal
/// address or a local name. Other names are judged on their addresses by [`Resolver`].
pub fn allows(reach: &Reach, url: &reqwest::Url) -> bool {
    let host = match url.host() {
        Some(url::Host::Ipv4(v4)) => ::reach::Host::Ip(v4.into()),
        Some(url::Host::Ipv6(v6)) => ::reach::Host::Ip(v6.into()),
        Some(url::Host::Domain(d)) => ::reach::Host::Name(d),
        None => return false,
    };
    let port = url.port_or_known_default().unwrap_or(0);
    !reach.refuses_outright(host, port, url.path())
}

/// Resolves names as the system does, then drops this machine's own and link-local addresses
/// (unless [`Reach::local`]): a name that has only those fails to resolve, with [`REFUSED`].
#[derive(Clone, Debug)]
pub struct Resolver {
    pub local: bool,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let local = self.local;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| local || !is_local(a.ip()))
                .collect();
            if kept.is_empty() && !found.is_empty() {
                return Err(Box::new(Refused) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The resolver's refusal, told apart from other failures by its type.
#[derive(Debug, thiserror::Error)]
#[error("{REFUSED}")]
pub struct Refused;

/// Whether a failed request's cause is a refusal of this module.
pub fn refused(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<Refused>() || c.to_string().contains(REFUSED) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The HTTP client of the worker: the resolver above, and redirects followed (at most 10, as
/// pg_net's curl) only where [`Reach::allows`] them.
pub fn client(reach: &Reach, user_agent: &str) -> reqwest::Client {
    let for_redirects = *reach;
    reqwest::Client::builder()
        .user_agent(user_agent)
        .dns_resolver(Arc::new(Resolver { local: reach.local }))
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else if !allows(&for_redirects, attempt.url()) {
                attempt.error(Refused)
            } else {
                attempt.follow()
            }
        }))
        .build()
        .expect("an HTTP client")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_reaches_the_world_and_the_project_s_api_but_not_this_machine() {
        let refuse = Reach {
            local: false,
            api_port: Some(54321),
        };
        let allow = Reach {
            local: true,
            api_port: Some(54321),
        };
        // (url, allowed when local requests are refused)
        let cases: &[(&str, bool)] = &[
            ("https://example.com/hook", true),
            ("http://93.184.216.34/x", true),
            ("http://10.0.0.5:8080/x", true),
            ("http://127.0.0.1:54321/functions/v1/hook", true),
            ("http://localhost:54321/rest/v1/t", true),
            ("http://127.0.0.1:54321/_supagate/v1/codes", false),
            ("http://127.0.0.1:54323/api/sql", false),
            ("http://localhost:54323/api/session", false),
            ("http://studio.localhost:54323/", false),
            ("http://LOCALHOST.:54324/api/v1/messages", false),
            ("http://127.1.2.3:54321/rest/v1/t", true),
            ("http://127.0.0.1/", false),
            ("http://0.0.0.0:54323/", false),
            ("http://[::1]:54323/", false),
            ("http://[::1]:54321/functions/v1/x", true),
            ("http://[::ffff:127.0.0.1]:54323/", false),
            ("http://169.254.169.254/latest/meta-data/", false),
            ("http://[fe80::1]:80/", false),
            ("http://[::]:54323/", false),
            // Names are judged on the addresses they resolve to.
            ("http://vm.example:54323/", true),
        ];
        for (url, allowed) in cases {
            let u = reqwest::Url::parse(url).unwrap();
            assert_eq!(allows(&refuse, &u), *allowed, "{url}");
            assert!(allows(&allow, &u), "{url}");
        }
        let no_api = Reach::default();
        assert!(!allows(
            &no_api,
            &reqwest::Url::parse("http://127.0.0.1:54321/").unwrap()
        ));
    }

    #[test]
    fn a_refusal_is_found_in_an_error_s_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer")]
        struct Outer(#[source] Refused);
        assert!(refused(&Outer(Refused)));
        assert!(!refused(&std::io::Error::other("no")));
    }
}
