//! The gateway's integration tests, one binary (one link, one copy on disk) for every file:
//! each test still starts its own gateway and its own database.

mod advisors;
mod attempts;
mod auth;
mod auth_hooks;
mod borrowed_powers;
mod cli_help;
mod env_rules;
mod extensions;
mod external_recovery;
mod faults;
mod functions;
mod graphql;
mod hardening;
mod hardening_small;
mod http_extension;
mod inspect;
mod links;
mod pgsodium;
mod pipeline;
mod postgrest;
mod privileges;
mod project;
mod query_seed;
mod realtime;
mod renders;
mod rest;
mod storage;
mod studio;
mod support;
mod test_db;
mod tls;
mod vector;
mod workflow;
mod workflow_remote;
mod wrappers;
