//! `supagate gen types typescript`: the `Database` type of the schemas, as the Supabase CLI
//! generates it, read straight from the database; `--lang go|python`: postgres-meta's Go
//! structs and Python models.

pub mod go;
mod introspect;
pub mod python;
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

/// The Go structs (`lang` `go`) or Python models (`python`) for `schemas` (`gen types --lang`).
pub async fn generate_lang(
    c: &tokio_postgres::Client,
    schemas: &[String],
    lang: &str,
) -> Result<String, TypegenError> {
    let row = c.query_one(introspect::SQL, &[&schemas]).await?;
    let catalog: introspect::Catalog = serde_json::from_str(&row.get::<_, String>(0))?;
    Ok(match lang {
        "python" => python::render(&catalog, schemas),
        _ => go::render(&catalog, schemas),
    })
}
