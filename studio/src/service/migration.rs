//! Studio's schema work saved as a migration, by `db diff`'s machinery: the schema the
//! project's migrations build (a shadow copy in the same cluster) diffed with the local
//! database's by `schema-diff`, written to `supabase/migrations` and recorded as applied (the
//! local database has it already).

use super::{Result, Studio};
use crate::StudioError;
use pg::Database;
use pg::migrate::{project as history, shadow};
use project::Project;
use schema_diff::{Scope, Statement};
use serde::Serialize;

/// What a diff found: the migration's SQL and which of its statements drop something.
#[derive(Debug, Serialize)]
pub struct Diff {
    pub sql: String,
    pub drops: Vec<String>,
}

/// A migration Studio wrote.
#[derive(Debug, Serialize)]
pub struct Written {
    /// `supabase/migrations/<version>_<name>.sql`.
    pub path: String,
    pub version: String,
    pub sql: String,
}

impl Studio {
    /// The database as the shadow machinery wants it: the owner's login on the cluster.
    fn database(&self) -> Database {
        Database {
            admin: self.owner.clone(),
            api: self.owner.clone(),
            api_password: None,
            embedded: None,
            db_url: String::new(),
        }
    }

    /// The statements that turn the schema the migrations build into the local database's.
    /// `keep_template`: the migrations' template stays for the next diff (an embedded cluster).
    async fn statements(&self, project: &Project, keep_template: bool) -> Result<Vec<Statement>> {
        // One diff at a time: the shadow database's name is the process's.
        let _one = self.diffing.lock().await;
        let db = self.database();
        let from_db = shadow::name("studio");
        let unavailable = |e: String| StudioError::Unavailable(format!("db diff: {e}"));
        let diffed = async {
            shadow::migrations_copy(project, &db, &from_db, keep_template)
                .await
                .map_err(|e| e.to_string())?;
            let scope = Scope::named(&[]);
            let from = pg::connect(&db.admin_on(&from_db))
                .await
                .map_err(|e| e.to_string())?;
            let from = schema_diff::read(&from, &scope)
                .await
                .map_err(|e| e.to_string())?;
            let to = self.client().await.map_err(|e| e.to_string())?;
            let to = schema_diff::read(&to, &scope)
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(schema_diff::diff(&from, &to))
        }
        .await;
        let removed = shadow::remove(&db, &from_db).await;
        let statements = diffed.map_err(unavailable)?;
        removed.map_err(|e| unavailable(e.to_string()))?;
        Ok(statements)
    }

    /// What `db diff` would write now.
    pub async fn diff(&self, project: &Project, keep_template: bool) -> Result<Diff> {
        let statements = self.statements(project, keep_template).await?;
        Ok(Diff {
            sql: schema_diff::render(&statements),
            drops: statements
                .iter()
                .filter(|s| s.drops())
                .map(|s| format!("{};", s.sql))
                .collect(),
        })
    }

    /// `db diff -f <name>`, recorded as applied in the local history.
    pub async fn save_migration(
        &self,
        project: &Project,
        name: &str,
        keep_template: bool,
    ) -> Result<Written> {
        Project::check_migration_name(name).map_err(|e| StudioError::Invalid(e.to_string()))?;
        let statements = self.statements(project, keep_template).await?;
        if statements.is_empty() {
            return Err(StudioError::Invalid(
                "No schema changes found: the local database is what the migrations build".into(),
            ));
        }
        let sql = schema_diff::render(&statements);
        let version = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
        let path = project
            .write_migration(name, &version, &sql)
            .map_err(|e| StudioError::Invalid(e.to_string()))?;
        let (migrations, _) = project
            .migrations()
            .map_err(|e| StudioError::Unavailable(e.to_string()))?;
        let written: Vec<&project::Migration> =
            migrations.iter().filter(|m| m.version == version).collect();
        let mut c = self.client().await?;
        history::repair(&mut c, false, history::Repair::Applied(&written))
            .await
            .map_err(|e| StudioError::Unavailable(e.to_string()))?;
        Ok(Written {
            path: project.relative(&path),
            version,
            sql,
        })
    }
}
