//! `supagate gen types typescript`: the `Database` type of the schemas, as the Supabase CLI
//! generates it, read straight from the database; `--lang go`: postgres-meta's Go structs.

pub mod go;
mod introspect;
mod render;
mod types;

#[derive(Debug, thiserror::Error)]
pub enum TypegenError {
    #[error("cannot read the schema: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("unexpected catalog shape: {0}")]
    Catalog(#[from] serde_json::Error),
}

/// The TypeScript module for `schemas` (sorted and deduplicated as the CLI does).
pub async fn generate(
    c: &tokio_postgres::Client,
    schemas: &[String],
) -> Result<String, TypegenError> {
    let row = c.query_one(introspect::SQL, &[&schemas]).await?;
    let catalog: introspect::Catalog = serde_json::from_str(&row.get::<_, String>(0))?;
    Ok(render::render(&catalog, schemas))
}

/// The Go structs for `schemas` (`gen types --lang go`).
pub async fn generate_go(
    c: &tokio_postgres::Client,
    schemas: &[String],
) -> Result<String, TypegenError> {
    let row = c.query_one(introspect::SQL, &[&schemas]).await?;
    let catalog: introspect::Catalog = serde_json::from_str(&row.get::<_, String>(0))?;
    Ok(go::render(&catalog, schemas))
}
