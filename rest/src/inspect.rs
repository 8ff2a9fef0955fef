//! The request inspector's view of a REST request: the SQL it ran, as whom, and what row level
//! security did to it — the rows a read did not see (the same statement run again as the
//! owner, in a transaction rolled back) and, for a refusal, the grants and policies involved.

use crate::Rest;
use pg::pipeline;
use pg::{Login, RequestContext};
use query_engine::ApiError;
use serde::Serialize;
use std::time::Duration;

/// What [`Rest::handle_traced`] is asked to say of a request, and says.
#[derive(Debug, Default)]
pub struct Tracing {
    /// Also what [`Rest::rls_outcome`] reads (the transaction's context, the table): copies
    /// made only when asked for.
    pub for_rls: bool,
    pub trace: Option<Trace>,
}

/// What a request ran (filled by [`Rest::handle_traced`]).
#[derive(Debug, Clone)]
pub struct Trace {
    /// Shared with the plan cache's statement, when the plan came from there.
    pub sql: std::sync::Arc<str>,
    pub params: Vec<String>,
    /// The request's headers as the transaction saw them (`request.headers`, JSON).
    pub headers: String,
    pub read_only: bool,
    /// Rows returned or written (this page).
    pub rows: Option<i64>,
    /// What [`Rest::rls_outcome`] reads, when [`Tracing::for_rls`] asked for it.
    pub context: Option<Context>,
}

/// The transaction's context and the table of a traced request.
#[derive(Debug, Clone)]
pub struct Context {
    pub ctx: RequestContext<'static>,
    /// The table or view it reads or writes (schema, name); None for a function.
    pub table: Option<(String, String)>,
}

/// A policy on the table.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Policy {
    pub name: String,
    /// SELECT, INSERT, UPDATE, DELETE or ALL.
    pub command: String,
    pub roles: Vec<String>,
    pub permissive: bool,
    /// It applies to this request (its role and command).
    pub applies: bool,
}

/// Row level security's part in a request.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Rls {
    pub table: String,
    /// RLS is on for the table.
    pub enabled: bool,
    pub policies: Vec<Policy>,
    /// A read: rows this request saw, and rows the owner sees with the same query (this page).
    pub visible: Option<i64>,
    pub without_rls: Option<i64>,
    /// Why a refusal (42501) happened, in words.
    pub denied: Option<String>,
}

/// The command a request's HTTP method runs.
fn command(method: &str) -> &'static str {
    match method {
        "POST" => "INSERT",
        "PATCH" => "UPDATE",
        "PUT" => "INSERT",
        "DELETE" => "DELETE",
        _ => "SELECT",
    }
}

/// What a 42501 means, from the facts about the table.
pub fn denial(
    role: &str,
    table: &str,
    cmd: &str,
    granted: bool,
    enabled: bool,
    policies: &[Policy],
) -> String {
    if !granted {
        return format!(
            "{role} has no {cmd} privilege on {table}: GRANT {cmd} ON {table} TO {role}"
        );
    }
    let applying: Vec<&str> = policies
        .iter()
        .filter(|p| p.applies)
        .map(|p| p.name.as_str())
        .collect();
    if !enabled {
        format!("{role} may {cmd} on {table}; the refusal came from a function or trigger")
    } else if applying.is_empty() {
        format!(
            "row level security is on for {table} and no {cmd} policy applies to {role}: every row is refused"
        )
    } else {
        format!(
            "the row did not pass the {cmd} policies that apply to {role}: {}",
            applying.join(", ")
        )
    }
}

impl Rest {
    /// Row level security's part in a traced request (`error`: how it failed, if it did);
    /// None unless its trace has its context ([`Tracing::for_rls`]).
    /// `admin` is the owner on the same database.
    pub async fn rls_outcome(
        &self,
        admin: &Login,
        trace: &Trace,
        error: Option<&ApiError>,
    ) -> Option<Rls> {
        let context = trace.context.as_ref()?;
        let (schema, name) = context.table.clone()?;
        let c = pg::connect(admin).await.ok()?;
        let role = &*context.ctx.role;
        let cmd = command(&context.ctx.method);
        let table = format!("{}.{}", pg::quote_ident(&schema), pg::quote_ident(&name));
        let facts = c
            .query_one(
                "SELECT coalesce((SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass($1)), false), \
                        CASE WHEN to_regrole($2) IS NULL THEN false \
                             ELSE has_table_privilege($2, $1, $3) END",
                &[&table, &role, &cmd],
            )
            .await
            .ok()?;
        let (enabled, granted): (bool, bool) = (facts.get(0), facts.get(1));
        let policies: Vec<Policy> = c
            .query(
                "SELECT policyname::text, cmd, roles::text[], permissive = 'PERMISSIVE' \
                 FROM pg_policies WHERE schemaname = $1 AND tablename = $2 ORDER BY policyname",
                &[&schema, &name],
            )
            .await
            .ok()?
            .iter()
            .map(|r| {
                let (command, roles): (String, Vec<String>) = (r.get(1), r.get(2));
                let applies = (command == "ALL" || command == cmd)
                    && roles.iter().any(|r| r == role || r == "public");
                Policy {
                    name: r.get(0),
                    command,
                    roles,
                    permissive: r.get(3),
                    applies,
                }
            })
            .collect();
        let mut out = Rls {
            table: format!("{schema}.{name}"),
            enabled,
            denied: error.filter(|e| e.code == "42501").map(|_| {
                denial(
                    role,
                    &format!("{schema}.{name}"),
                    cmd,
                    granted,
                    enabled,
                    &policies,
                )
            }),
            policies,
            ..Rls::default()
        };
        if error.is_none() && trace.read_only && enabled {
            out.visible = trace.rows;
            out.without_rls = self.rows_as_owner(admin, trace, &context.ctx).await;
        }
        Some(out)
    }

    /// The same read as the owner (who bypasses row level security), rolled back.
    async fn rows_as_owner(
        &self,
        admin: &Login,
        trace: &Trace,
        ctx: &RequestContext<'static>,
    ) -> Option<i64> {
        let pool = self.owner_pool.get_or_init(|| {
            pipeline::build_pool(
                admin.clone(),
                1,
                Duration::from_secs(5),
                0,
                Default::default(),
            )
        });
        let mut ctx = ctx.clone();
        ctx.role = admin.user().to_string().into();
        ctx.pre_request = None;
        let (row, tx) =
            pg::tx::run_statement(pool, &ctx, &trace.sql, &trace.params, true, Some(false))
                .await
                .ok()?;
        if let Some(tx) = tx {
            let _ = tx.finish(false).await;
        }
        crate::result::result_row(row).ok().map(|r| r.page_total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(name: &str, applies: bool) -> Policy {
        Policy {
            name: name.into(),
            command: "INSERT".into(),
            roles: vec!["anon".into()],
            permissive: true,
            applies,
        }
    }

    #[test]
    fn refusals_in_words() {
        let t = "public.notes";
        let cases = [
            (
                false,
                true,
                vec![],
                "anon has no INSERT privilege on public.notes: GRANT INSERT ON public.notes TO anon",
            ),
            (
                true,
                true,
                vec![policy("other", false)],
                "row level security is on for public.notes and no INSERT policy applies to anon: every row is refused",
            ),
            (
                true,
                true,
                vec![policy("own rows", true), policy("x", false)],
                "the row did not pass the INSERT policies that apply to anon: own rows",
            ),
            (
                true,
                false,
                vec![],
                "anon may INSERT on public.notes; the refusal came from a function or trigger",
            ),
        ];
        for (granted, enabled, policies, want) in cases {
            assert_eq!(
                denial("anon", t, "INSERT", granted, enabled, &policies),
                want
            );
        }
        assert_eq!(command("PATCH"), "UPDATE");
        assert_eq!(command("HEAD"), "SELECT");
    }
}
