//! The schema differ of `supagate db diff`: a database's catalog read from `pg_catalog` by one
//! I/O function ([`read::read`]) into a model that names every object ([`model`]), and a pure
//! [`diff::diff`] of two catalogs into the SQL that turns the first into the second, ordered by
//! dependency. Which schemas are covered is the Supabase CLI's choice ([`scope`]): the app's,
//! plus the triggers and policies it puts on Supabase's own tables.

mod canon;
pub mod diff;
pub mod model;
pub mod read;
pub mod scope;

pub use diff::{Statement, diff, render};
pub use model::Catalog;
pub use read::{ReadError, read, read_again, read_keeping, read_keeping_in_transaction};
pub use scope::Scope;
