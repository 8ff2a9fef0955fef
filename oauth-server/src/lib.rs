//! GoTrue's OAuth 2.1 server (`[auth.oauth_server]`): supagate's auth as the authorization
//! server of third-party apps. Its clients (`clients`: registered by an admin or by themselves,
//! listed, changed, deleted, given a new secret; the RFC 8414 metadata), the authorization code
//! flow with PKCE and the consent of the signed-in user (`flow`), and the checks of the client
//! API's bodies with GoTrue's texts and the clients' secrets (`checks`, pure).
//!
//! [`OAuthServer`] borrows the auth service's core ([`auth::Auth`]: its settings, its
//! transactions as the auth admin role, its sessions): the gateway's `oauth_server_api` makes one
//! per request.

pub mod checks;
mod clients;
mod flow;

pub use checks::{RegisterParams, UpdateParams};
pub use flow::{AuthorizeQuery, TokenParams};

/// The OAuth 2.1 server over the auth service it belongs to.
pub struct OAuthServer<'a> {
    auth: &'a auth::Auth,
}

impl<'a> OAuthServer<'a> {
    pub fn new(auth: &'a auth::Auth) -> OAuthServer<'a> {
        OAuthServer { auth }
    }
}
