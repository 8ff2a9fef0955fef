//! `supagate gen types typescript`: the `Database` type of the schemas, as the Supabase CLI
//! generates it, read straight from the database; `--lang go|python|swift`:
//! postgres-meta's Go structs, Python models and Swift types.

pub mod go;
mod introspect;
pub mod python;
mod render;
pub mod swift;
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

/// The Go structs (`lang` `go`), Python models (`python`) or Swift types (`swift`, its
/// declarations `access_control`) for `schemas` (`gen types --lang`).
pub async fn generate_lang(
    c: &tokio_postgres::Client,
    schemas: &[String],
    lang: &str,
    access_control: &str,
) -> Result<String, TypegenError> {
    let row = c.query_one(introspect::SQL, &[&schemas]).await?;
    let catalog: introspect::Catalog = serde_json::from_str(&row.get::<_, String>(0))?;
    Ok(match lang {
        "python" => python::render(&catalog, schemas),
        "swift" => swift::render(&catalog, schemas, access_control),
        _ => go::render(&catalog, schemas),
    })
}
