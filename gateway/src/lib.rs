//! The HTTP wiring of supagate: routing, reading typed requests off HTTP, calling the service
//! crates (rest, auth, storage, realtime, mail), and rendering each API's errors in its own wire
//! shape. Nothing here talks SQL or keeps state of its own beyond the services' handles.

mod auth_api;
mod auth_http;
pub mod branches;
pub mod catcher;
pub mod config;
mod error;
mod external_api;
mod functions_api;
mod guard;
mod http_util;
mod inspector;
mod oauth_server_api;
mod passkey_api;
mod realtime_api;
mod request_auth;
mod rest_api;
pub mod server;
mod site;
pub mod state;
mod storage_api;
pub mod studio_api;
mod workbench_api;
