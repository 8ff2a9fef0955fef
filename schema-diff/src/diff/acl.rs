//! Privileges: what a new object holds when it is created (its kind's built-in default for its
//! creator, widened by the default privileges in force), and the GRANT and REVOKE statements
//! that take one set of privileges to another.

use super::Statement;
use crate::model::*;
use std::collections::{BTreeMap, BTreeSet};

/// PostgreSQL's privileges in the order `\dp` and GRANT list them.
const ORDER: &[&str] = &[
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "TRUNCATE",
    "REFERENCES",
    "TRIGGER",
    "MAINTAIN",
    "USAGE",
    "CREATE",
    "EXECUTE",
    "TEMPORARY",
    "CONNECT",
    "SET",
    "ALTER SYSTEM",
];

fn position(p: &str) -> usize {
    ORDER.iter().position(|o| *o == p).unwrap_or(ORDER.len())
}

/// A role as GRANT names it.
pub fn grantee(role: &str) -> String {
    if role == "PUBLIC" {
        "PUBLIC".into()
    } else {
        ident(role)
    }
}

/// `kind`'s built-in privileges for objects `role` owns (`acldefault`), from the catalog's
/// for its own user.
pub fn builtin(cat: &Catalog, kind: AclKind, role: &str) -> Acl {
    cat.builtin_acls
        .get(&kind)
        .map(|acl| {
            acl.iter()
                .map(|g| Grant {
                    grantee: if g.grantee == cat.user {
                        role.to_string()
                    } else {
                        g.grantee.clone()
                    },
                    ..g.clone()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Every privilege objects of `kind` have (what their owner holds by default).
fn all_privileges(cat: &Catalog, kind: AclKind) -> BTreeSet<String> {
    cat.builtin_acls
        .get(&kind)
        .map(|acl| {
            acl.iter()
                .filter(|g| g.grantee == cat.user)
                .map(|g| g.privilege.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The privileges an object gets when `cat.user` creates it in `schema` and then hands it to
/// `owner`: the creator's global default privileges (else the built-in ones), plus those for
/// the schema; ownership passes the creator's own privileges to the new owner.
pub fn initial(cat: &Catalog, kind: AclKind, schema: Option<&str>, owner: &str) -> Acl {
    let creator = cat.user.as_str();
    let key = |schema: Option<&str>| DefaultAclKey {
        role: creator.to_string(),
        schema: schema.map(str::to_string),
        kind,
    };
    let mut acl: Acl = cat
        .default_acls
        .get(&key(None))
        .cloned()
        .unwrap_or_else(|| builtin(cat, kind, creator));
    if let Some(s) = schema
        && kind != AclKind::Schema
        && let Some(extra) = cat.default_acls.get(&key(Some(s)))
    {
        acl.extend(extra.iter().cloned());
    }
    hand_over(&acl, creator, owner)
}

/// The privileges after ALTER … OWNER TO: the old owner's become the new owner's.
pub fn hand_over(acl: &Acl, old: &str, new: &str) -> Acl {
    if old == new {
        return acl.clone();
    }
    acl.iter()
        .map(|g| Grant {
            grantee: if g.grantee == old {
                new.to_string()
            } else {
                g.grantee.clone()
            },
            ..g.clone()
        })
        .collect()
}

/// What one grantee's privileges become: each privilege's state before and after (0 none, 1
/// held, 2 held with grant option).
fn states(acl: &Acl) -> BTreeMap<&str, BTreeMap<&str, u8>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, u8>> = BTreeMap::new();
    for g in acl {
        out.entry(&g.grantee)
            .or_default()
            .insert(&g.privilege, if g.grantable { 2 } else { 1 });
    }
    out
}

/// One change of privileges for one grantee.
pub struct Change {
    pub grantee: String,
    /// GRANT (else REVOKE).
    pub grant: bool,
    /// WITH GRANT OPTION, or REVOKE GRANT OPTION FOR.
    pub option: bool,
    pub privileges: Vec<String>,
}

/// The changes that take `from` to `to`, grantee by grantee (revocations first).
pub fn changes(from: &Acl, to: &Acl) -> Vec<Change> {
    let (before, after) = (states(from), states(to));
    let grantees: BTreeSet<&str> = before.keys().chain(after.keys()).copied().collect();
    let mut out = Vec::new();
    for g in grantees {
        let empty = BTreeMap::new();
        let b = before.get(g).unwrap_or(&empty);
        let a = after.get(g).unwrap_or(&empty);
        let privileges: BTreeSet<&str> = b.keys().chain(a.keys()).copied().collect();
        // (grant, option) → privileges
        let mut groups: BTreeMap<(bool, bool), Vec<String>> = BTreeMap::new();
        for p in privileges {
            let (x, y) = (
                b.get(p).copied().unwrap_or(0),
                a.get(p).copied().unwrap_or(0),
            );
            let key = match (x, y) {
                (x, y) if x == y => continue,
                (_, 0) => (false, false),
                (2, 1) => (false, true),
                (_, 1) => (true, false),
                _ => (true, true),
            };
            groups.entry(key).or_default().push(p.to_string());
        }
        // Revocations before grants.
        for ((grant, option), mut privileges) in groups {
            privileges.sort_by_key(|p| position(p));
            out.push(Change {
                grantee: g.to_string(),
                grant,
                option,
                privileges,
            });
        }
    }
    out
}

/// `SELECT, INSERT` or `ALL` when that is every privilege of the kind.
fn privilege_list(cat: &Catalog, kind: AclKind, privileges: &[String]) -> String {
    let all = all_privileges(cat, kind);
    if privileges.len() > 1 && privileges.iter().cloned().collect::<BTreeSet<_>>() == all {
        "ALL".into()
    } else {
        privileges.join(", ")
    }
}

/// GRANT and REVOKE statements on one object (`on`: `TABLE "s"."t"`, `FUNCTION …`).
pub fn statements(cat: &Catalog, kind: AclKind, on: &str, from: &Acl, to: &Acl) -> Vec<Statement> {
    changes(from, to)
        .into_iter()
        .map(|c| {
            let list = privilege_list(cat, kind, &c.privileges);
            let who = grantee(&c.grantee);
            Statement::new(match (c.grant, c.option) {
                (true, false) => format!("GRANT {list} ON {on} TO {who}"),
                (true, true) => format!("GRANT {list} ON {on} TO {who} WITH GRANT OPTION"),
                (false, false) => format!("REVOKE {list} ON {on} FROM {who}"),
                (false, true) => format!("REVOKE GRANT OPTION FOR {list} ON {on} FROM {who}"),
            })
        })
        .collect()
}

/// Column privileges: `GRANT UPDATE ("c") ON TABLE …`.
pub fn column_statements(table: &QName, column: &str, from: &Acl, to: &Acl) -> Vec<Statement> {
    changes(from, to)
        .into_iter()
        .map(|c| {
            let list = c
                .privileges
                .iter()
                .map(|p| format!("{p} ({})", ident(column)))
                .collect::<Vec<_>>()
                .join(", ");
            let who = grantee(&c.grantee);
            Statement::new(match (c.grant, c.option) {
                (true, false) => format!("GRANT {list} ON TABLE {table} TO {who}"),
                (true, true) => format!("GRANT {list} ON TABLE {table} TO {who} WITH GRANT OPTION"),
                (false, false) => format!("REVOKE {list} ON TABLE {table} FROM {who}"),
                (false, true) => {
                    format!("REVOKE GRANT OPTION FOR {list} ON TABLE {table} FROM {who}")
                }
            })
        })
        .collect()
}

/// ALTER DEFAULT PRIVILEGES statements between two catalogs, each with the schema it names.
pub fn default_privileges(from: &Catalog, to: &Catalog) -> Vec<(DefaultAclKey, Statement)> {
    let keys: BTreeSet<&DefaultAclKey> = from
        .default_acls
        .keys()
        .chain(to.default_acls.keys())
        .collect();
    let mut out = Vec::new();
    for key in keys {
        let side = |cat: &Catalog| {
            cat.default_acls
                .get(key)
                .cloned()
                .unwrap_or_else(|| match key.schema {
                    None => builtin(cat, key.kind, &key.role),
                    Some(_) => Acl::new(),
                })
        };
        let mut prefix = format!("ALTER DEFAULT PRIVILEGES FOR ROLE {}", ident(&key.role));
        if let Some(s) = &key.schema {
            prefix.push_str(&format!(" IN SCHEMA {}", ident(s)));
        }
        let on = key.kind.plural();
        for c in changes(&side(from), &side(to)) {
            let list = privilege_list(to, key.kind, &c.privileges);
            let who = grantee(&c.grantee);
            let sql = match (c.grant, c.option) {
                (true, false) => format!("{prefix} GRANT {list} ON {on} TO {who}"),
                (true, true) => format!("{prefix} GRANT {list} ON {on} TO {who} WITH GRANT OPTION"),
                (false, false) => format!("{prefix} REVOKE {list} ON {on} FROM {who}"),
                (false, true) => {
                    format!("{prefix} REVOKE GRANT OPTION FOR {list} ON {on} FROM {who}")
                }
            };
            out.push((key.clone(), Statement::new(sql)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acl(entries: &[(&str, &str, bool)]) -> Acl {
        entries
            .iter()
            .map(|(g, p, o)| Grant {
                grantee: g.to_string(),
                privilege: p.to_string(),
                grantable: *o,
            })
            .collect()
    }

    fn catalog() -> Catalog {
        let mut c = Catalog {
            user: "postgres".into(),
            ..Default::default()
        };
        c.builtin_acls.insert(
            AclKind::Table,
            acl(&[
                ("postgres", "SELECT", false),
                ("postgres", "INSERT", false),
                ("postgres", "UPDATE", false),
                ("postgres", "DELETE", false),
                ("postgres", "TRUNCATE", false),
                ("postgres", "REFERENCES", false),
                ("postgres", "TRIGGER", false),
            ]),
        );
        c.builtin_acls.insert(
            AclKind::Function,
            acl(&[("postgres", "EXECUTE", false), ("PUBLIC", "EXECUTE", false)]),
        );
        c
    }

    #[test]
    fn grants_and_revokes_per_grantee() {
        let c = catalog();
        let on = "TABLE \"public\".\"t\"";
        let cases: Vec<(Acl, Acl, Vec<&str>)> = vec![
            (
                acl(&[]),
                acl(&[("anon", "SELECT", false), ("anon", "INSERT", false)]),
                vec!["GRANT SELECT, INSERT ON TABLE \"public\".\"t\" TO \"anon\""],
            ),
            (
                acl(&[("anon", "SELECT", false)]),
                acl(&[]),
                vec!["REVOKE SELECT ON TABLE \"public\".\"t\" FROM \"anon\""],
            ),
            (
                acl(&[("anon", "SELECT", true)]),
                acl(&[("anon", "SELECT", false)]),
                vec!["REVOKE GRANT OPTION FOR SELECT ON TABLE \"public\".\"t\" FROM \"anon\""],
            ),
            (
                acl(&[("anon", "SELECT", false)]),
                acl(&[("anon", "SELECT", true)]),
                vec!["GRANT SELECT ON TABLE \"public\".\"t\" TO \"anon\" WITH GRANT OPTION"],
            ),
            (
                acl(&[]),
                c.builtin_acls[&AclKind::Table]
                    .iter()
                    .map(|g| Grant {
                        grantee: "authenticated".into(),
                        ..g.clone()
                    })
                    .collect(),
                vec!["GRANT ALL ON TABLE \"public\".\"t\" TO \"authenticated\""],
            ),
            (
                acl(&[("PUBLIC", "SELECT", false), ("anon", "UPDATE", false)]),
                acl(&[("anon", "SELECT", false)]),
                vec![
                    "REVOKE SELECT ON TABLE \"public\".\"t\" FROM PUBLIC",
                    "REVOKE UPDATE ON TABLE \"public\".\"t\" FROM \"anon\"",
                    "GRANT SELECT ON TABLE \"public\".\"t\" TO \"anon\"",
                ],
            ),
        ];
        for (from, to, want) in cases {
            let got: Vec<String> = statements(&c, AclKind::Table, on, &from, &to)
                .into_iter()
                .map(|s| s.sql)
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_new_object_starts_from_the_default_privileges_in_force() {
        let mut c = catalog();
        // No default privileges: the owner's, and PUBLIC may execute functions.
        assert_eq!(
            initial(&c, AclKind::Function, Some("public"), "postgres"),
            acl(&[("postgres", "EXECUTE", false), ("PUBLIC", "EXECUTE", false)])
        );
        // Supabase's: the API roles get everything in public.
        c.default_acls.insert(
            DefaultAclKey {
                role: "postgres".into(),
                schema: Some("public".into()),
                kind: AclKind::Function,
            },
            acl(&[("anon", "EXECUTE", false)]),
        );
        // `REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC` for the role everywhere.
        c.default_acls.insert(
            DefaultAclKey {
                role: "postgres".into(),
                schema: None,
                kind: AclKind::Function,
            },
            acl(&[("postgres", "EXECUTE", false)]),
        );
        assert_eq!(
            initial(&c, AclKind::Function, Some("public"), "postgres"),
            acl(&[("postgres", "EXECUTE", false), ("anon", "EXECUTE", false)])
        );
        assert_eq!(
            initial(&c, AclKind::Function, Some("api"), "postgres"),
            acl(&[("postgres", "EXECUTE", false)])
        );
        // Handed to another owner, the creator's own privileges go with it.
        assert_eq!(
            initial(&c, AclKind::Function, Some("api"), "supabase_admin"),
            acl(&[("supabase_admin", "EXECUTE", false)])
        );
    }

    #[test]
    fn default_privileges_changes() {
        let from = catalog();
        let mut to = catalog();
        to.default_acls.insert(
            DefaultAclKey {
                role: "postgres".into(),
                schema: None,
                kind: AclKind::Function,
            },
            acl(&[("postgres", "EXECUTE", false)]),
        );
        to.default_acls.insert(
            DefaultAclKey {
                role: "postgres".into(),
                schema: Some("api".into()),
                kind: AclKind::Table,
            },
            acl(&[("authenticated", "SELECT", false)]),
        );
        let got: Vec<String> = default_privileges(&from, &to)
            .into_iter()
            .map(|(_, s)| s.sql)
            .collect();
        assert_eq!(
            got,
            [
                "ALTER DEFAULT PRIVILEGES FOR ROLE \"postgres\" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC",
                "ALTER DEFAULT PRIVILEGES FOR ROLE \"postgres\" IN SCHEMA \"api\" GRANT SELECT ON TABLES TO \"authenticated\"",
            ]
        );
    }
}
