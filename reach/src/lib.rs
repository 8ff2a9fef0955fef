//! Where the database's HTTP requests may go, for both ways the database makes them: pg_net
//! (supagate's `workers` crate) and the http extension (`extensions/pgrx/http_core`). Studio,
//! the mail catcher and the workbench answer this machine (loopback), and any SQL a visitor
//! reaches can queue a request; so unless local requests are allowed ([`Reach::local`], from
//! `--net-local`), a connection to this machine's own addresses (loopback, unspecified) or to
//! link-local ones (cloud metadata services) is refused, the project's own API port on loopback
//! excepted (webhooks calling Edge Functions), but never its `/_supagate` paths. Callers apply
//! [`Reach::permits`] to the address each connection is made to (a literal address, each
//! address a name resolves to, every redirect) and may refuse a URL on its face first
//! ([`Reach::refuses_outright`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why a request was not made, worded as curl (and so pg_net) words a refused connection.
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

/// What a URL names as its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host<'a> {
    Ip(IpAddr),
    Name(&'a str),
}

impl Reach {
    /// Whether a connection to `ip` may be made for a request to `port` and `path`.
    pub fn permits(&self, port: u16, path: &str, ip: IpAddr) -> bool {
        if self.local || !is_local(ip) {
            return true;
        }
        is_loopback(ip) && self.api_port == Some(port) && !path.starts_with("/_supagate")
    }

    /// Whether a URL is refused on what it says alone (a literal address or a local name),
    /// before anything is resolved. Other names are judged on their addresses.
    pub fn refuses_outright(&self, host: Host, port: u16, path: &str) -> bool {
        let ips = match host {
            Host::Ip(ip) => vec![ip],
            Host::Name(n) if is_local_name(n) => local_name_addresses(),
            Host::Name(_) => return false,
        };
        !ips.iter().any(|ip| self.permits(port, path, *ip))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_s_resolved_addresses_are_judged_as_literal_ones() {
        let refuse = Reach {
            local: false,
            api_port: Some(54321),
        };
        for (ip, permitted) in [
            ("127.0.0.1", false),
            ("127.0.1.1", false),
            ("::1", false),
            ("169.254.169.254", false),
            ("0.0.0.0", false),
            ("93.184.216.34", true),
            ("192.168.1.10", true),
        ] {
            assert_eq!(
                refuse.permits(8080, "/", ip.parse().unwrap()),
                permitted,
                "{ip}"
            );
        }
        assert!(refuse.permits(54321, "/rest/v1/", "127.0.0.1".parse().unwrap()));
        assert!(!refuse.permits(54321, "/_supagate/v1/codes", "127.0.0.1".parse().unwrap()));
        assert!(!refuse.permits(54321, "/rest/v1/", "169.254.1.1".parse().unwrap()));
        let allow = Reach {
            local: true,
            api_port: None,
        };
        assert!(allow.permits(54323, "/api/sql", "127.0.0.1".parse().unwrap()));
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
        for (name, local) in [
            ("localhost", true),
            ("LOCALHOST.", true),
            ("studio.localhost", true),
            ("localhost.example", false),
        ] {
            assert_eq!(is_local_name(name), local, "{name}");
        }
    }
}
