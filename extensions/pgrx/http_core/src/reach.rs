//! Where the database's requests may go: pg_net's rule (supagate's `workers/src/net/reach.rs`)
//! for the http extension. Studio, the mail catcher and the workbench answer this machine
//! (loopback), and any SQL a visitor reaches could call `http_get`; so unless local requests
//! are allowed (`http.supagate_allow_local`, set by supagate from `--net-local`), a connection to
//! this machine's own addresses (loopback, unspecified) or to link-local ones (cloud metadata
//! services) is refused, the project's own API port on loopback excepted (but never its
//! `/_supagate` paths). The rule is applied to the address each connection is made to: a
//! literal address, each address a name resolves to, and again on every redirect.

use crate::url::{Host, Url};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why a request was not made: pg_net's words.
pub const REFUSED: &str = "Couldn't connect to server: supagate refuses requests from the \
     database to this machine's own and link-local addresses (set SUPAGATE_NET_LOCAL=allow to \
     permit them)";

/// The rule a request follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reach {
    /// Requests to this machine's own and link-local addresses are allowed.
    pub local: bool,
    /// The project's API port on loopback, reachable even when `local` is off.
    pub api_port: Option<u16>,
}

/// This machine's own addresses (loopback, unspecified) and link-local ones, in either family
/// (an IPv4 address mapped into IPv6 counts as itself).
pub fn is_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_unspecified() || v4.is_link_local(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_local(IpAddr::V4(v4)),
            None => {
                v6.is_loopback() || v6.is_unspecified() || (v6.segments()[0] & 0xffc0) == 0xfe80
            }
        },
    }
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// A name that always means this machine (RFC 6761), whatever a resolver says: it is never
/// looked up, it is loopback.
pub fn is_local_name(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost" || h.ends_with(".localhost")
}

/// The addresses a local name means.
pub fn local_name_addresses() -> Vec<IpAddr> {
    vec![
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(Ipv6Addr::LOCALHOST),
    ]
}

impl Reach {
    /// Whether a connection to `ip` may be made for a request to `url`.
    pub fn permits(&self, url: &Url, ip: IpAddr) -> bool {
        if self.local || !is_local(ip) {
            return true;
        }
        is_loopback(ip) && self.api_port == Some(url.port) && !url.path().starts_with("/_supagate")
    }

    /// Whether a URL is refused on what it says alone (a literal address or a local name), before
    /// anything is resolved.
    pub fn refuses_outright(&self, url: &Url) -> bool {
        let ips = match &url.host {
            Host::V4(v4) => vec![IpAddr::V4(*v4)],
            Host::V6(v6) => vec![IpAddr::V6(*v6)],
            Host::Name(n) if is_local_name(n) => local_name_addresses(),
            Host::Name(_) => return false,
        };
        !ips.iter().any(|ip| self.permits(url, *ip))
    }
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
        // (url, refused on its face when local requests are refused)
        let cases: &[(&str, bool)] = &[
            ("https://example.com/hook", false),
            ("http://93.184.216.34/x", false),
            ("http://10.0.0.5:8080/x", false),
            ("http://127.0.0.1:54321/functions/v1/hook", false),
            ("http://localhost:54321/rest/v1/t", false),
            ("http://127.0.0.1:54321/_supagate/v1/codes", true),
            ("http://127.0.0.1:54323/api/sql", true),
            ("http://localhost:54323/api/session", true),
            ("http://studio.localhost:54323/", true),
            ("http://LOCALHOST.:54324/api/v1/messages", true),
            ("http://127.1.2.3:54321/rest/v1/t", false),
            ("http://127.0.0.1/", true),
            ("http://0.0.0.0:54323/", true),
            ("http://[::1]:54323/", true),
            ("http://[::1]:54321/functions/v1/x", false),
            ("http://[::ffff:127.0.0.1]:54323/", true),
            ("http://169.254.169.254/latest/meta-data/", true),
            ("http://[fe80::1]:80/", true),
            ("http://[::]:54323/", true),
            // Names are judged on the addresses they resolve to, when connecting.
            ("http://vm.example:54323/", false),
        ];
        for (url, refused) in cases {
            let u = Url::parse(url).unwrap();
            assert_eq!(refuse.refuses_outright(&u), *refused, "{url}");
            assert!(!allow.refuses_outright(&u), "{url}");
        }
        let no_api = Reach::default();
        assert!(no_api.refuses_outright(&Url::parse("http://127.0.0.1:54321/").unwrap()));
    }

    #[test]
    fn a_name_s_resolved_addresses_are_judged_as_literal_ones() {
        let refuse = Reach {
            local: false,
            api_port: Some(54321),
        };
        let u = Url::parse("http://looks-external.example:8080/").unwrap();
        for (ip, permitted) in [
            ("127.0.0.1", false),
            ("127.0.1.1", false),
            ("::1", false),
            ("169.254.169.254", false),
            ("0.0.0.0", false),
            ("93.184.216.34", true),
            ("192.168.1.10", true),
        ] {
            assert_eq!(refuse.permits(&u, ip.parse().unwrap()), permitted, "{ip}");
        }
        let api = Url::parse("http://looks-external.example:54321/rest/v1/").unwrap();
        assert!(refuse.permits(&api, "127.0.0.1".parse().unwrap()));
        assert!(!refuse.permits(&api, "169.254.1.1".parse().unwrap()));
    }

    #[test]
    fn local_addresses_are_told_in_both_families() {
        for (ip, local) in [
            ("127.0.0.1", true),
            ("127.255.0.1", true),
            ("0.0.0.0", true),
            ("169.254.169.254", true),
            ("::1", true),
            ("::", true),
            ("fe80::abcd", true),
            ("febf::1", true),
            ("::ffff:127.0.0.1", true),
            ("::ffff:169.254.1.1", true),
            ("192.168.1.10", false),
            ("8.8.8.8", false),
            ("2001:db8::1", false),
            ("fec0::1", false),
        ] {
            assert_eq!(is_local(ip.parse().unwrap()), local, "{ip}");
        }
    }
}
