//! The one I/O function: a database's catalog read from `pg_catalog` in one read-only
//! transaction (a consistent snapshot), with an empty search_path so that PostgreSQL prints
//! every name qualified. Each kind of object is one query answering JSON. Those answers can be
//! kept and the same catalog built from them again without the database (`db diff`'s cache of
//! the schemas the project's files build).

use crate::canon::flatten;
use crate::model::*;
use crate::scope::{Coverage, Scope};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, HashMap};
use tokio_postgres::Client;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read the catalog: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("unexpected catalog shape: {0}")]
    Shape(#[from] serde_json::Error),
    #[error("the kept answers to the catalog queries are fewer than its queries")]
    TooFewAnswers,
    #[error("the kept answers to the catalog queries are more than its queries")]
    TooManyAnswers,
}

/// The privileges of an ACL expression as JSON `[grantee, privilege, grantable]` triples, a
/// NULL ACL read as `kind`'s built-in default for `owner`.
fn acl(expr: &str, kind: char, owner: &str) -> String {
    explode(&format!("coalesce({expr}, acldefault('{kind}', {owner}))"))
}

fn explode(acl: &str) -> String {
    format!(
        "(SELECT coalesce(json_agg(json_build_array(CASE WHEN a.grantee = 0 THEN 'PUBLIC' \
         ELSE pg_get_userbyid(a.grantee)::text END, a.privilege_type, a.is_grantable)), '[]') \
         FROM aclexplode({acl}) a)"
    )
}

/// Not a member of an extension.
fn not_ext(catalog: &str, oid: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM pg_depend x WHERE x.classid = '{catalog}'::regclass \
         AND x.objid = {oid} AND x.deptype = 'e')"
    )
}

/// A collation's name as COLLATE takes it (unqualified in pg_catalog).
fn collation(oid: &str) -> String {
    format!(
        "(SELECT CASE WHEN cn.nspname = 'pg_catalog' THEN quote_ident(co.collname) \
         ELSE quote_ident(cn.nspname) || '.' || quote_ident(co.collname) END \
         FROM pg_collation co JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = {oid})"
    )
}

type RawAcl = Vec<(String, String, bool)>;

fn to_acl(raw: RawAcl) -> Acl {
    raw.into_iter()
        .map(|(grantee, privilege, grantable)| Grant {
            grantee,
            privilege,
            grantable,
        })
        .collect()
}

#[derive(Deserialize)]
struct RawSchema {
    oid: i64,
    name: String,
    owner: String,
    acl: RawAcl,
    comment: Option<String>,
    ext: bool,
}

#[derive(Deserialize)]
struct RawExtension {
    oid: i64,
    name: String,
    schema: String,
    version: String,
    fixed_schema: bool,
}

#[derive(Deserialize)]
struct RawType {
    oid: i64,
    array: i64,
    relid: i64,
    schema: String,
    name: String,
    kind: String,
    owner: String,
    acl: RawAcl,
    comment: Option<String>,
    labels: Option<Vec<String>>,
    attributes: Option<Vec<(String, String, Option<String>)>>,
    base: Option<String>,
    collation: Option<String>,
    not_null: bool,
    default: Option<String>,
    constraints: Option<Vec<(String, String, i64)>>,
}

#[derive(Deserialize)]
struct RawSequence {
    oid: i64,
    schema: String,
    name: String,
    #[serde(rename = "type")]
    data_type: String,
    start: i64,
    increment: i64,
    min: i64,
    max: i64,
    cache: i64,
    cycle: bool,
    owner: String,
    acl: RawAcl,
    comment: Option<String>,
    owned_by: Option<(String, String, String)>,
}

#[derive(Deserialize)]
struct RawRelation {
    oid: i64,
    #[serde(rename = "type")]
    row_type: i64,
    array: Option<i64>,
    schema: String,
    name: String,
    kind: String,
    persistence: String,
    rls: bool,
    force_rls: bool,
    replident: String,
    replident_index: Option<String>,
    options: Option<Vec<String>>,
    owner: String,
    acl: RawAcl,
    comment: Option<String>,
    partition_key: Option<String>,
    partition_bound: Option<String>,
    parents: Option<Vec<(String, String)>>,
    view: Option<String>,
}

#[derive(Deserialize)]
struct RawColumn {
    rel: i64,
    num: i32,
    name: String,
    #[serde(rename = "type")]
    type_name: String,
    collation: Option<String>,
    not_null: bool,
    identity: String,
    generated: String,
    default: Option<String>,
    local: bool,
    comment: Option<String>,
    acl: RawAcl,
    identity_seq: Option<(String, i64, i64, i64, i64, i64, bool)>,
}

#[derive(Deserialize)]
struct RawConstraint {
    oid: i64,
    rel: i64,
    name: String,
    kind: String,
    def: String,
    comment: Option<String>,
    index: i64,
}

#[derive(Deserialize)]
struct RawIndex {
    oid: i64,
    rel: i64,
    name: String,
    def: String,
    comment: Option<String>,
}

#[derive(Deserialize)]
struct RawFunction {
    oid: i64,
    schema: String,
    name: String,
    args: String,
    kind: String,
    def: String,
    arguments: String,
    result: Option<String>,
    owner: String,
    acl: RawAcl,
    comment: Option<String>,
}

#[derive(Deserialize)]
struct RawTrigger {
    oid: i64,
    schema: String,
    table: String,
    name: String,
    def: String,
    enabled: String,
    comment: Option<String>,
}

#[derive(Deserialize)]
struct RawPolicy {
    oid: i64,
    schema: String,
    table: String,
    name: String,
    permissive: bool,
    cmd: String,
    roles: Option<Vec<String>>,
    using: Option<String>,
    check: Option<String>,
    comment: Option<String>,
}

#[derive(Deserialize)]
struct RawDefaultAcl {
    role: String,
    schema: Option<String>,
    kind: String,
    acl: RawAcl,
}

#[derive(Deserialize)]
struct RawBuiltin {
    user: String,
    r: RawAcl,
    s: RawAcl,
    f: RawAcl,
    #[serde(rename = "T")]
    t: RawAcl,
    n: RawAcl,
}

/// `(schema, table, columns, row filter)`.
type RawPublishedTable = (String, String, Option<Vec<String>>, Option<String>);

#[derive(Deserialize)]
struct RawPublication {
    name: String,
    all: bool,
    insert: bool,
    update: bool,
    delete: bool,
    truncate: bool,
    via_root: bool,
    comment: Option<String>,
    tables: Option<Vec<RawPublishedTable>>,
    schemas: Option<Vec<String>>,
    oid: i64,
}

/// `(class, objid, objsubid, refclass, refobjid, refobjsubid, extension of the referenced
/// object, deptype)`.
type RawDep = (String, i64, i32, String, i64, i32, Option<String>, String);

/// Where the answers to the catalog queries come from: the database (each answer kept when
/// `kept` is given), or answers kept from an earlier read (`read_again`), in the same order.
enum Source<'a> {
    Live {
        c: &'a Client,
        kept: Option<&'a mut Vec<String>>,
    },
    Kept(std::slice::Iter<'a, String>),
}

/// The answer to one catalog query, its rows as one JSON array.
async fn rows<T: DeserializeOwned>(
    src: &mut Source<'_>,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<T>, ReadError> {
    match src {
        Source::Live { c, kept } => {
            let text: String = c
                .query_one(
                    &format!("SELECT coalesce(json_agg(q), '[]')::text FROM ({sql}) q"),
                    params,
                )
                .await?
                .get(0);
            let rows = serde_json::from_str(&text)?;
            if let Some(kept) = kept {
                kept.push(text);
            }
            Ok(rows)
        }
        Source::Kept(answers) => Ok(serde_json::from_str(
            answers.next().ok_or(ReadError::TooFewAnswers)?,
        )?),
    }
}

/// Where each object read is found by `pg_depend`'s (catalog, oid, sub-id).
#[derive(Default)]
struct Oids(HashMap<(&'static str, i64, i32), ObjRef>);

impl Oids {
    fn add(&mut self, class: &'static str, oid: i64, sub: i32, r: ObjRef) {
        self.0.insert((class, oid, sub), r);
    }

    fn find(&self, class: &str, oid: i64, sub: i32) -> Option<&ObjRef> {
        let class = class.strip_prefix("pg_catalog.").unwrap_or(class);
        let key = |c: &'static str, s| (c, oid, s);
        for c in [
            "pg_namespace",
            "pg_extension",
            "pg_type",
            "pg_class",
            "pg_attrdef",
            "pg_constraint",
            "pg_proc",
            "pg_trigger",
            "pg_policy",
            "pg_publication",
        ] {
            if c == class {
                return self.0.get(&key(c, sub)).or_else(|| self.0.get(&key(c, 0)));
            }
        }
        None
    }
}

fn options(raw: RawSeqOptions) -> SeqOptions {
    let (data_type, start, increment, min, max, cache, cycle) = raw;
    SeqOptions {
        data_type,
        start,
        increment,
        min,
        max,
        cache,
        cycle,
    }
}

type RawSeqOptions = (String, i64, i64, i64, i64, i64, bool);

fn command(polcmd: &str) -> String {
    match polcmd {
        "r" => "SELECT",
        "a" => "INSERT",
        "w" => "UPDATE",
        "d" => "DELETE",
        _ => "ALL",
    }
    .into()
}

fn letter(s: &str) -> char {
    s.chars().next().unwrap_or(' ')
}

/// Reads the catalog of the database `c` is connected to, within `scope`.
pub async fn read(c: &Client, scope: &Scope) -> Result<Catalog, ReadError> {
    read_from(&mut Source::Live { c, kept: None }, c, scope).await
}

/// [`read`], and the answers of the database to the catalog queries, for [`read_again`] to
/// build the same catalog from without the database (when nothing it was built from changed).
pub async fn read_keeping(c: &Client, scope: &Scope) -> Result<(Catalog, Vec<String>), ReadError> {
    let mut answers = Vec::new();
    let cat = read_from(
        &mut Source::Live {
            c,
            kept: Some(&mut answers),
        },
        c,
        scope,
    )
    .await?;
    Ok((cat, answers))
}

/// [`read_keeping`] inside the transaction `c` has open, which is left open: what that
/// transaction made is read before it is rolled back.
pub async fn read_keeping_in_transaction(
    c: &Client,
    scope: &Scope,
) -> Result<(Catalog, Vec<String>), ReadError> {
    c.batch_execute("SET LOCAL search_path = ''; SET LOCAL statement_timeout = 0")
        .await?;
    let mut answers = Vec::new();
    let cat = read_in_transaction(
        &mut Source::Live {
            c,
            kept: Some(&mut answers),
        },
        scope,
    )
    .await?;
    Ok((cat, answers))
}

/// The catalog [`read_keeping`] read, built again from the answers it kept (`scope` as then).
pub async fn read_again(answers: &[String], scope: &Scope) -> Result<Catalog, ReadError> {
    let mut src = Source::Kept(answers.iter());
    let cat = read_in_transaction(&mut src, scope).await?;
    match src {
        Source::Kept(rest) if !rest.as_slice().is_empty() => Err(ReadError::TooManyAnswers),
        _ => Ok(cat),
    }
}

async fn read_from(src: &mut Source<'_>, c: &Client, scope: &Scope) -> Result<Catalog, ReadError> {
    c.batch_execute(
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path = ''; \
         SET LOCAL statement_timeout = 0",
    )
    .await?;
    let read = read_in_transaction(src, scope).await;
    let _ = c.batch_execute("COMMIT").await;
    read
}

async fn read_in_transaction(src: &mut Source<'_>, scope: &Scope) -> Result<Catalog, ReadError> {
    let mut cat = Catalog::default();
    let mut oids = Oids::default();

    let builtin: RawBuiltin = {
        let mut b: Vec<RawBuiltin> = rows(
            src,
            &format!(
                "SELECT current_user::text AS user, {r} AS r, {s} AS s, {f} AS f, {t} AS \"T\", {n} AS n \
                 FROM pg_roles u WHERE u.rolname = current_user",
                r = explode("acldefault('r', u.oid)"),
                s = explode("acldefault('s', u.oid)"),
                f = explode("acldefault('f', u.oid)"),
                t = explode("acldefault('T', u.oid)"),
                n = explode("acldefault('n', u.oid)"),
            ),
            &[],
        )
        .await?;
        b.remove(0)
    };
    cat.user = builtin.user;
    cat.builtin_acls = BTreeMap::from([
        (AclKind::Table, to_acl(builtin.r)),
        (AclKind::Sequence, to_acl(builtin.s)),
        (AclKind::Function, to_acl(builtin.f)),
        (AclKind::Type, to_acl(builtin.t)),
        (AclKind::Schema, to_acl(builtin.n)),
    ]);

    // Schemas, and how much of each the diff covers.
    let schemas: Vec<RawSchema> = rows(
        src,
        &format!(
            "SELECT n.oid::int8 AS oid, n.nspname::text AS name, \
             pg_get_userbyid(n.nspowner)::text AS owner, {acl} AS acl, \
             obj_description(n.oid, 'pg_namespace') AS comment, \
             EXISTS (SELECT 1 FROM pg_depend x WHERE x.classid = 'pg_namespace'::regclass \
               AND x.objid = n.oid AND x.deptype = 'e') AS ext \
             FROM pg_namespace n",
            acl = acl("n.nspacl", 'n', "n.nspowner")
        ),
        &[],
    )
    .await?;
    let mut whole: Vec<String> = Vec::new();
    let mut touched: Vec<String> = Vec::new();
    for s in schemas {
        match scope.coverage(&s.name, s.ext) {
            Coverage::Whole => {
                whole.push(s.name.clone());
                touched.push(s.name.clone());
                oids.add("pg_namespace", s.oid, 0, ObjRef::Schema(s.name.clone()));
                cat.schemas.insert(
                    s.name,
                    Schema {
                        owner: s.owner,
                        acl: to_acl(s.acl),
                        comment: s.comment,
                    },
                );
            }
            Coverage::TriggersAndPolicies => touched.push(s.name),
            Coverage::None => {}
        }
    }

    let extensions: Vec<RawExtension> = rows(
        src,
        "SELECT e.oid::int8 AS oid, e.extname::text AS name, n.nspname::text AS schema, \
         e.extversion AS version, coalesce((SELECT v.schema = n.nspname \
           FROM pg_available_extension_versions v \
           WHERE v.name = e.extname AND v.version = e.extversion), false) AS fixed_schema \
         FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace",
        &[],
    )
    .await?;
    let mut ext_by_name = HashMap::new();
    for e in extensions {
        oids.add("pg_extension", e.oid, 0, ObjRef::Extension(e.name.clone()));
        ext_by_name.insert(e.name.clone(), ());
        cat.extensions.insert(
            e.name,
            Extension {
                fixed_schema: e.fixed_schema,
                schema: e.schema,
                version: e.version,
            },
        );
    }

    let types: Vec<RawType> = rows(
        src,
        &format!(
            "SELECT t.oid::int8 AS oid, t.typarray::int8 AS array, t.typrelid::int8 AS relid, \
             n.nspname::text AS schema, t.typname::text AS name, t.typtype::text AS kind, \
             pg_get_userbyid(t.typowner)::text AS owner, {acl} AS acl, \
             obj_description(t.oid, 'pg_type') AS comment, \
             (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e \
               WHERE e.enumtypid = t.oid) AS labels, \
             (SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod), \
                CASE WHEN a.attcollation <> at.typcollation AND a.attcollation <> 0 THEN {acoll} END) \
                ORDER BY a.attnum) \
               FROM pg_attribute a JOIN pg_type at ON at.oid = a.atttypid \
               WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0 \
               AND NOT a.attisdropped) AS attributes, \
             CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base, \
             CASE WHEN t.typtype = 'd' AND t.typcollation <> bt.typcollation \
               AND t.typcollation <> 0 THEN {tcoll} END AS collation, \
             t.typnotnull AS not_null, pg_get_expr(t.typdefaultbin, 0) AS default, \
             (SELECT json_agg(json_build_array(k.conname, pg_get_constraintdef(k.oid), k.oid::int8) \
                ORDER BY k.conname) FROM pg_constraint k WHERE k.contypid = t.oid \
                AND k.contype = 'c') AS constraints \
             FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace \
             LEFT JOIN pg_type bt ON bt.oid = t.typbasetype \
             WHERE n.nspname = ANY($1) AND (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND \
               (SELECT r.relkind FROM pg_class r WHERE r.oid = t.typrelid) = 'c')) \
             AND {ext}",
            acl = acl("t.typacl", 'T', "t.typowner"),
            acoll = collation("a.attcollation"),
            tcoll = collation("t.typcollation"),
            ext = not_ext("pg_type", "t.oid"),
        ),
        &[&whole],
    )
    .await?;
    for t in types {
        let q = QName::new(&t.schema, &t.name);
        let r = ObjRef::Type(q.clone());
        oids.add("pg_type", t.oid, 0, r.clone());
        oids.add("pg_type", t.array, 0, r.clone());
        if t.relid != 0 {
            oids.add("pg_class", t.relid, 0, r.clone());
        }
        let kind = match t.kind.as_str() {
            "e" => TypeKind::Enum(t.labels.unwrap_or_default()),
            "c" => TypeKind::Composite(
                t.attributes
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(name, type_name, collation)| Attribute {
                        name,
                        type_name,
                        collation,
                    })
                    .collect(),
            ),
            _ => {
                let mut constraints = BTreeMap::new();
                for (name, def, oid) in t.constraints.unwrap_or_default() {
                    oids.add("pg_constraint", oid, 0, r.clone());
                    constraints.insert(name, flatten(&def));
                }
                TypeKind::Domain(Domain {
                    base: t.base.unwrap_or_default(),
                    collation: t.collation,
                    default: t.default.as_deref().map(flatten),
                    not_null: t.not_null,
                    constraints,
                })
            }
        };
        cat.types.insert(
            q,
            TypeDef {
                kind,
                owner: t.owner,
                acl: to_acl(t.acl),
                comment: t.comment,
            },
        );
    }

    let sequences: Vec<RawSequence> = rows(
        src,
        &format!(
            "SELECT c.oid::int8 AS oid, n.nspname::text AS schema, c.relname::text AS name, \
             format_type(s.seqtypid, NULL) AS type, s.seqstart AS start, \
             s.seqincrement AS increment, s.seqmin AS min, s.seqmax AS max, s.seqcache AS cache, \
             s.seqcycle AS cycle, pg_get_userbyid(c.relowner)::text AS owner, {acl} AS acl, \
             obj_description(c.oid, 'pg_class') AS comment, \
             (SELECT json_build_array(tn.nspname, tc.relname, a.attname) FROM pg_depend d \
               JOIN pg_class tc ON tc.oid = d.refobjid \
               JOIN pg_namespace tn ON tn.oid = tc.relnamespace \
               JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid \
               WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid \
               AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a' LIMIT 1) AS owned_by \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             JOIN pg_sequence s ON s.seqrelid = c.oid \
             WHERE c.relkind = 'S' AND n.nspname = ANY($1) AND {ext} \
             AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass \
               AND d.objid = c.oid AND d.deptype = 'i')",
            acl = acl("c.relacl", 's', "c.relowner"),
            ext = not_ext("pg_class", "c.oid"),
        ),
        &[&whole],
    )
    .await?;
    for s in sequences {
        let q = QName::new(&s.schema, &s.name);
        oids.add("pg_class", s.oid, 0, ObjRef::Sequence(q.clone()));
        cat.sequences.insert(
            q,
            Sequence {
                options: SeqOptions {
                    data_type: s.data_type,
                    start: s.start,
                    increment: s.increment,
                    min: s.min,
                    max: s.max,
                    cache: s.cache,
                    cycle: s.cycle,
                },
                owned_by: s.owned_by.map(|(sc, t, col)| (QName::new(&sc, &t), col)),
                owner: s.owner,
                acl: to_acl(s.acl),
                comment: s.comment,
            },
        );
    }

    let relations: Vec<RawRelation> = rows(
        src,
        &format!(
            "SELECT c.oid::int8 AS oid, c.reltype::int8 AS type, \
             (SELECT rt.typarray::int8 FROM pg_type rt WHERE rt.oid = c.reltype) AS array, \
             n.nspname::text AS schema, c.relname::text AS name, c.relkind::text AS kind, \
             c.relpersistence::text AS persistence, c.relrowsecurity AS rls, \
             c.relforcerowsecurity AS force_rls, c.relreplident::text AS replident, \
             (SELECT ic.relname::text FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid \
               WHERE i.indrelid = c.oid AND i.indisreplident LIMIT 1) AS replident_index, \
             c.reloptions AS options, pg_get_userbyid(c.relowner)::text AS owner, {acl} AS acl, \
             obj_description(c.oid, 'pg_class') AS comment, \
             CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partition_key, \
             CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END \
               AS partition_bound, \
             (SELECT json_agg(json_build_array(pn.nspname, pc.relname) ORDER BY h.inhseqno) \
               FROM pg_inherits h JOIN pg_class pc ON pc.oid = h.inhparent \
               JOIN pg_namespace pn ON pn.oid = pc.relnamespace WHERE h.inhrelid = c.oid) AS parents, \
             CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS view \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname = ANY($1) AND {ext}",
            acl = acl("c.relacl", 'r', "c.relowner"),
            ext = not_ext("pg_class", "c.oid"),
        ),
        &[&whole],
    )
    .await?;
    let mut rel_names: HashMap<i64, (QName, bool)> = HashMap::new();
    let mut rel_oids: Vec<i64> = Vec::new();
    for r in relations {
        let q = QName::new(&r.schema, &r.name);
        let is_view = r.kind == "v" || r.kind == "m";
        let obj = if is_view {
            ObjRef::View(q.clone())
        } else {
            ObjRef::Table(q.clone())
        };
        oids.add("pg_class", r.oid, 0, obj.clone());
        oids.add("pg_type", r.row_type, 0, obj.clone());
        if let Some(a) = r.array {
            oids.add("pg_type", a, 0, obj.clone());
        }
        rel_names.insert(r.oid, (q.clone(), is_view));
        rel_oids.push(r.oid);
        let options = r.options.unwrap_or_default();
        if is_view {
            cat.views.insert(
                q,
                View {
                    materialized: r.kind == "m",
                    definition: r.view.unwrap_or_default().trim().to_string(),
                    options,
                    column_comments: BTreeMap::new(),
                    owner: r.owner,
                    acl: to_acl(r.acl),
                    comment: r.comment,
                },
            );
            continue;
        }
        let parents: Vec<QName> = r
            .parents
            .unwrap_or_default()
            .into_iter()
            .map(|(s, n)| QName::new(&s, &n))
            .collect();
        let (partition_of, inherits) = match (r.partition_bound, parents.first()) {
            (Some(bound), Some(parent)) => (Some((parent.clone(), bound)), Vec::new()),
            _ => (None, parents),
        };
        cat.tables.insert(
            q,
            Table {
                columns: Vec::new(),
                constraints: BTreeMap::new(),
                unlogged: r.persistence == "u",
                partition_key: r.partition_key,
                partition_of,
                inherits,
                rls: r.rls,
                force_rls: r.force_rls,
                replica_identity: (letter(&r.replident), r.replident_index),
                options,
                owner: r.owner,
                acl: to_acl(r.acl),
                comment: r.comment,
            },
        );
    }

    let columns: Vec<RawColumn> = rows(
        src,
        &format!(
            "SELECT a.attrelid::int8 AS rel, a.attnum::int4 AS num, a.attname::text AS name, \
             format_type(a.atttypid, a.atttypmod) AS type, \
             CASE WHEN a.attcollation <> t.typcollation AND a.attcollation <> 0 THEN {coll} END \
               AS collation, \
             a.attnotnull AS not_null, a.attidentity::text AS identity, \
             a.attgenerated::text AS generated, pg_get_expr(d.adbin, d.adrelid) AS default, \
             a.attislocal AS local, col_description(a.attrelid, a.attnum) AS comment, \
             {acl} AS acl, \
             (SELECT json_build_array(format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, \
                s.seqmin, s.seqmax, s.seqcache, s.seqcycle) FROM pg_depend dd \
               JOIN pg_sequence s ON s.seqrelid = dd.objid \
               WHERE a.attidentity <> '' AND dd.classid = 'pg_class'::regclass \
               AND dd.refclassid = 'pg_class'::regclass AND dd.refobjid = a.attrelid \
               AND dd.refobjsubid = a.attnum AND dd.deptype = 'i' LIMIT 1) AS identity_seq \
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
             LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
             WHERE a.attrelid::int8 = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attrelid, a.attnum",
            coll = collation("a.attcollation"),
            acl = explode("a.attacl"),
        ),
        &[&rel_oids],
    )
    .await?;
    for col in columns {
        let Some((q, is_view)) = rel_names.get(&col.rel) else {
            continue;
        };
        if *is_view {
            oids.add("pg_class", col.rel, col.num, ObjRef::View(q.clone()));
            if let (Some(v), Some(comment)) = (cat.views.get_mut(q), col.comment) {
                v.column_comments.insert(col.name, comment);
            }
            continue;
        }
        oids.add(
            "pg_class",
            col.rel,
            col.num,
            ObjRef::Column(q.clone(), col.name.clone()),
        );
        oids.add(
            "pg_attrdef",
            col.rel,
            col.num,
            ObjRef::Default(q.clone(), col.name.clone()),
        );
        let generated = col.generated == "s";
        let expr = col.default.as_deref().map(flatten);
        let column = Column {
            name: col.name,
            type_name: col.type_name,
            collation: col.collation,
            not_null: col.not_null,
            default: if generated { None } else { expr.clone() },
            identity: match col.identity.as_str() {
                "a" | "d" => col.identity_seq.map(|o| Identity {
                    always: col.identity == "a",
                    options: options(o),
                }),
                _ => None,
            },
            generated: if generated { expr } else { None },
            local: col.local,
            comment: col.comment,
            acl: to_acl(col.acl),
        };
        if let Some(t) = cat.tables.get_mut(q) {
            t.columns.push(column);
        }
    }

    let constraints: Vec<RawConstraint> = rows(
        src,
        "SELECT k.oid::int8 AS oid, k.conrelid::int8 AS rel, k.conname::text AS name, \
         k.contype::text AS kind, pg_get_constraintdef(k.oid) AS def, \
         obj_description(k.oid, 'pg_constraint') AS comment, k.conindid::int8 AS index \
         FROM pg_constraint k WHERE k.conrelid::int8 = ANY($1) \
         AND k.contype IN ('p', 'u', 'c', 'f', 'x') AND k.conislocal AND k.conparentid = 0",
        &[&rel_oids],
    )
    .await?;
    for k in constraints {
        let Some((q, false)) = rel_names.get(&k.rel) else {
            continue;
        };
        let r = ObjRef::Constraint(q.clone(), k.name.clone());
        oids.add("pg_constraint", k.oid, 0, r.clone());
        let kind = letter(&k.kind);
        if matches!(kind, 'p' | 'u' | 'x') && k.index != 0 {
            oids.add("pg_class", k.index, 0, r);
        }
        if let Some(t) = cat.tables.get_mut(q) {
            t.constraints.insert(
                k.name,
                Constraint {
                    kind,
                    definition: flatten(&k.def),
                    comment: k.comment,
                },
            );
        }
    }

    let indexes: Vec<RawIndex> = rows(
        src,
        "SELECT i.indexrelid::int8 AS oid, i.indrelid::int8 AS rel, ic.relname::text AS name, \
         pg_get_indexdef(i.indexrelid) AS def, \
         obj_description(i.indexrelid, 'pg_class') AS comment \
         FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid \
         WHERE i.indrelid::int8 = ANY($1) \
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid \
           AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x')) \
         AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid)",
        &[&rel_oids],
    )
    .await?;
    for i in indexes {
        let Some((table, _)) = rel_names.get(&i.rel) else {
            continue;
        };
        let q = QName::new(&table.schema, &i.name);
        oids.add("pg_class", i.oid, 0, ObjRef::Index(q.clone()));
        cat.indexes.insert(
            q,
            Index {
                table: table.clone(),
                definition: flatten(&i.def),
                comment: i.comment,
            },
        );
    }

    let functions: Vec<RawFunction> = rows(
        src,
        &format!(
            "SELECT p.oid::int8 AS oid, n.nspname::text AS schema, p.proname::text AS name, \
             pg_get_function_identity_arguments(p.oid) AS args, p.prokind::text AS kind, \
             pg_get_functiondef(p.oid) AS def, pg_get_function_arguments(p.oid) AS arguments, \
             pg_get_function_result(p.oid) AS result, \
             pg_get_userbyid(p.proowner)::text AS owner, {acl} AS acl, \
             obj_description(p.oid, 'pg_proc') AS comment \
             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
             WHERE n.nspname = ANY($1) AND p.prokind IN ('f', 'p', 'w') AND {ext}",
            acl = acl("p.proacl", 'f', "p.proowner"),
            ext = not_ext("pg_proc", "p.oid"),
        ),
        &[&whole],
    )
    .await?;
    for f in functions {
        let key = FnKey {
            schema: f.schema,
            name: f.name,
            args: f.args,
        };
        oids.add("pg_proc", f.oid, 0, ObjRef::Function(key.clone()));
        cat.functions.insert(
            key,
            Function {
                kind: letter(&f.kind),
                definition: f.def.trim_end().to_string(),
                arguments: f.arguments,
                result: f.result,
                owner: f.owner,
                acl: to_acl(f.acl),
                comment: f.comment,
            },
        );
    }

    let triggers: Vec<RawTrigger> = rows(
        src,
        &format!(
            "SELECT t.oid::int8 AS oid, n.nspname::text AS schema, c.relname::text AS table, \
             t.tgname::text AS name, pg_get_triggerdef(t.oid) AS def, \
             t.tgenabled::text AS enabled, obj_description(t.oid, 'pg_trigger') AS comment \
             FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND n.nspname = ANY($1) \
             AND {ext_rel} AND {ext_trigger}",
            ext_rel = not_ext("pg_class", "c.oid"),
            ext_trigger = not_ext("pg_trigger", "t.oid"),
        ),
        &[&touched],
    )
    .await?;
    for t in triggers {
        let q = QName::new(&t.schema, &t.table);
        oids.add(
            "pg_trigger",
            t.oid,
            0,
            ObjRef::Trigger(q.clone(), t.name.clone()),
        );
        cat.triggers.insert(
            (q, t.name),
            Trigger {
                definition: flatten(&t.def),
                enabled: letter(&t.enabled),
                comment: t.comment,
            },
        );
    }

    let policies: Vec<RawPolicy> = rows(
        src,
        &format!(
            "SELECT p.oid::int8 AS oid, n.nspname::text AS schema, c.relname::text AS table, \
             p.polname::text AS name, p.polpermissive AS permissive, p.polcmd::text AS cmd, \
             (SELECT json_agg(r.name ORDER BY r.name) FROM (SELECT CASE WHEN x = 0 THEN 'PUBLIC' \
               ELSE pg_get_userbyid(x)::text END AS name FROM unnest(p.polroles) x) r) AS roles, \
             pg_get_expr(p.polqual, p.polrelid) AS using, \
             pg_get_expr(p.polwithcheck, p.polrelid) AS check, \
             obj_description(p.oid, 'pg_policy') AS comment \
             FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = ANY($1) AND {ext}",
            ext = not_ext("pg_class", "c.oid"),
        ),
        &[&touched],
    )
    .await?;
    for p in policies {
        let q = QName::new(&p.schema, &p.table);
        oids.add(
            "pg_policy",
            p.oid,
            0,
            ObjRef::Policy(q.clone(), p.name.clone()),
        );
        cat.policies.insert(
            (q, p.name),
            Policy {
                permissive: p.permissive,
                command: command(&p.cmd),
                roles: p.roles.unwrap_or_default(),
                using: p.using.as_deref().map(flatten),
                check: p.check.as_deref().map(flatten),
                comment: p.comment,
            },
        );
    }

    let default_acls: Vec<RawDefaultAcl> = rows(
        src,
        &format!(
            "SELECT pg_get_userbyid(d.defaclrole)::text AS role, n.nspname::text AS schema, \
             d.defaclobjtype::text AS kind, {acl} AS acl \
             FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace \
             WHERE d.defaclnamespace = 0 OR n.nspname = ANY($1)",
            acl = explode("d.defaclacl"),
        ),
        &[&whole],
    )
    .await?;
    for d in default_acls {
        let Some(kind) = AclKind::from_default_acl_letter(letter(&d.kind)) else {
            continue;
        };
        cat.default_acls.insert(
            DefaultAclKey {
                role: d.role,
                schema: d.schema,
                kind,
            },
            to_acl(d.acl),
        );
    }

    let publications: Vec<RawPublication> = rows(
        src,
        "SELECT p.oid::int8 AS oid, p.pubname::text AS name, p.puballtables AS all, \
         p.pubinsert AS insert, p.pubupdate AS update, p.pubdelete AS delete, \
         p.pubtruncate AS truncate, p.pubviaroot AS via_root, \
         obj_description(p.oid, 'pg_publication') AS comment, \
         (SELECT json_agg(json_build_array(n.nspname, c.relname, \
            (SELECT json_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a \
              WHERE r.prattrs IS NOT NULL AND a.attrelid = r.prrelid \
              AND a.attnum = ANY(r.prattrs::int2[])), \
            pg_get_expr(r.prqual, r.prrelid))) \
           FROM pg_publication_rel r JOIN pg_class c ON c.oid = r.prrelid \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
           WHERE r.prpubid = p.oid AND n.nspname = ANY($1)) AS tables, \
         (SELECT json_agg(n.nspname) FROM pg_publication_namespace s \
           JOIN pg_namespace n ON n.oid = s.pnnspid \
           WHERE s.pnpubid = p.oid AND n.nspname = ANY($1)) AS schemas \
         FROM pg_publication p",
        &[&whole],
    )
    .await?;
    for p in publications {
        oids.add(
            "pg_publication",
            p.oid,
            0,
            ObjRef::Publication(p.name.clone()),
        );
        let publish = [
            (p.insert, "insert"),
            (p.update, "update"),
            (p.delete, "delete"),
            (p.truncate, "truncate"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, op)| op.to_string())
        .collect();
        cat.publications.insert(
            p.name,
            Publication {
                all_tables: p.all,
                publish,
                via_root: p.via_root,
                tables: p
                    .tables
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(s, t, columns, filter)| {
                        (
                            QName::new(&s, &t),
                            PublishedTable {
                                columns,
                                filter: filter.as_deref().map(flatten),
                            },
                        )
                    })
                    .collect(),
                schemas: p.schemas.unwrap_or_default().into_iter().collect(),
                comment: p.comment,
            },
        );
    }

    let deps: Vec<RawDep> = rows(
        src,
        "SELECT json_build_array(x.cls, x.obj, x.sub, x.refcls, x.refobj, x.refsub, x.refext, \
           x.deptype) AS d FROM ( \
         SELECT CASE WHEN d.classid = 'pg_rewrite'::regclass THEN 'pg_class' \
           ELSE d.classid::regclass::text END AS cls, \
         (CASE WHEN d.classid = 'pg_rewrite'::regclass THEN rw.ev_class \
           WHEN d.classid = 'pg_attrdef'::regclass THEN ad.adrelid ELSE d.objid END)::int8 AS obj, \
         (CASE WHEN d.classid = 'pg_rewrite'::regclass THEN 0 \
           WHEN d.classid = 'pg_attrdef'::regclass THEN ad.adnum ELSE d.objsubid END)::int4 AS sub, \
         d.refclassid::regclass::text AS refcls, d.refobjid::int8 AS refobj, \
         d.refobjsubid::int4 AS refsub, \
         (SELECT e.extname::text FROM pg_depend m JOIN pg_extension e ON e.oid = m.refobjid \
           WHERE m.classid = d.refclassid AND m.objid = d.refobjid \
           AND m.refclassid = 'pg_extension'::regclass AND m.deptype = 'e' LIMIT 1) AS refext, \
         d.deptype::text AS deptype \
         FROM pg_depend d \
         LEFT JOIN pg_rewrite rw ON d.classid = 'pg_rewrite'::regclass AND rw.oid = d.objid \
         LEFT JOIN pg_attrdef ad ON d.classid = 'pg_attrdef'::regclass AND ad.oid = d.objid \
         WHERE d.deptype IN ('n', 'a') AND d.objid >= 16384 AND d.refobjid >= 16384) x",
        &[],
    )
    .await
    .map(|v: Vec<serde_json::Value>| {
        v.into_iter()
            .filter_map(|row| serde_json::from_value(row["d"].clone()).ok())
            .collect()
    })?;
    for (cls, obj, sub, refcls, refobj, refsub, refext, deptype) in deps {
        let Some(dependent) = oids.find(&cls, obj, sub) else {
            continue;
        };
        let referenced = match (oids.find(&refcls, refobj, refsub), refext) {
            (Some(r), _) => r.clone(),
            (None, Some(ext)) if ext_by_name.contains_key(&ext) => ObjRef::Extension(ext),
            _ => continue,
        };
        if *dependent == referenced {
            continue;
        }
        // A sequence's OWNED BY is set after its table exists, not before.
        if deptype == "a"
            && matches!(dependent, ObjRef::Sequence(_))
            && matches!(referenced, ObjRef::Column(..) | ObjRef::Table(_))
        {
            continue;
        }
        cat.deps.insert((dependent.clone(), referenced));
    }
    Ok(cat)
}
