//! `supagate gen types typescript`: the `Database` type of the schemas, as the Supabase CLI
//! generates it, read straight from the database.

mod introspect;
mod render;

/// The TypeScript module for `schemas` (sorted and deduplicated as the CLI does).
pub async fn generate(c: &tokio_postgres::Client, schemas: &[String]) -> Result<String, String> {
    let row = c
        .query_one(introspect::SQL, &[&schemas])
        .await
        .map_err(|e| format!("cannot read the schema: {e}"))?;
    let catalog: introspect::Catalog = serde_json::from_str(&row.get::<_, String>(0))
        .map_err(|e| format!("unexpected catalog shape: {e}"))?;
    Ok(render::render(&catalog, schemas))
}
