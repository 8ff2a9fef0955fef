//! Where the database's requests may go: the `reach` crate's rule (shared with pg_net's worker
//! in supagate's `workers` crate), for the http extension. Unless local requests are allowed
//! (`http.supagate_allow_local`, set by supagate from `--net-local`), a connection to this
//! machine's own addresses or to link-local ones is refused, the project's API port on loopback
//! excepted (never its `/_supagate` paths). The client applies [`Reach::permits`] to the address
//! each connection is made to: a literal address, each address a name resolves to, and again on
//! every redirect.

pub use reach::{REFUSED, Reach, is_local, is_local_name, local_name_addresses};

use crate::url::{Host, Url};

/// Whether a URL is refused on what it says alone (a literal address or a local name), before
/// anything is resolved.
pub fn refuses_outright(reach: &Reach, url: &Url) -> bool {
    let host = match &url.host {
        Host::V4(v4) => reach::Host::Ip((*v4).into()),
        Host::V6(v6) => reach::Host::Ip((*v6).into()),
        Host::Name(n) => reach::Host::Name(n),
    };
    reach.refuses_outright(host, url.port, url.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_as_curl_reads_them_are_judged_by_the_shared_rule() {
        let refuse = Reach {
            local: false,
            api_port: Some(54321),
        };
        // (url, refused on its face when local requests are refused)
        let cases: &[(&str, bool)] = &[
            ("https://example.com/hook", false),
            ("http://localhost:54321/rest/v1/t", false),
            ("http://127.0.0.1:54321/_supagate/v1/codes", true),
            ("http://studio.localhost:54323/", true),
            ("http://[::ffff:127.0.0.1]:54323/", true),
            ("http://vm.example:54323/", false),
        ];
        for (url, refused) in cases {
            let u = Url::parse(url).unwrap();
            assert_eq!(refuses_outright(&refuse, &u), *refused, "{url}");
        }
    }
}
