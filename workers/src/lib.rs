//! The database's workers: what a Supabase database does in background processes of its own,
//! done by supagate beside the database. [`net`]: pg_net's requests; [`cron`]: pg_cron's jobs.

pub mod cron;
pub mod net;
