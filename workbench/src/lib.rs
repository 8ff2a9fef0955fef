//! The testing workbench: what a developer who replaces the hosted backend during tests needs
//! beyond `supabase start`.
//!
//! - `tap` (pure): pgTAP's output judged and summed up as pg_prove does.
//! - `advisors` (pure): the dashboard's lints (splinter's names and levels), as catalog queries.
//! - `inspect` (pure): the CLI's database reports (`inspect db`), as statistics queries.
//! - `report` (pure): rows printed as an aligned table or CSV.
//! - `pgtap`: `test db`, each file through psql, with pgTAP and the test helpers for the run.
//! - `snapshot`: the whole state saved and put back (named, or a portable folder).
//! - `branch`: copies of the database, one per test worker, served beside the project.
//! - `emulator`: codes and links sent, users deleted, tables emptied.

pub mod advisors;
pub mod branch;
pub mod emulator;
pub mod inspect;
pub mod pgtap;
pub mod report;
pub mod snapshot;
pub mod tap;
