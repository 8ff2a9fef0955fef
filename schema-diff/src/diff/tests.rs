//! The pure diff on hand-built catalogs: ordering, replacement and warnings that need no
//! database (the round trips through PostgreSQL are in `tests/`).

use super::*;

fn cat() -> Catalog {
    Catalog {
        user: "postgres".into(),
        ..Default::default()
    }
}

fn q(s: &str) -> QName {
    let (schema, name) = s.split_once('.').unwrap();
    QName::new(schema, name)
}

fn column(name: &str, type_name: &str) -> Column {
    Column {
        name: name.into(),
        type_name: type_name.into(),
        collation: None,
        not_null: false,
        default: None,
        identity: None,
        generated: None,
        local: true,
        comment: None,
        acl: Acl::new(),
    }
}

fn table(columns: Vec<Column>) -> Table {
    Table {
        columns,
        constraints: BTreeMap::new(),
        unlogged: false,
        partition_key: None,
        partition_of: None,
        inherits: Vec::new(),
        rls: false,
        force_rls: false,
        replica_identity: ('d', None),
        options: Vec::new(),
        owner: "postgres".into(),
        acl: Acl::new(),
        comment: None,
    }
}

fn sql(statements: &[Statement]) -> Vec<String> {
    statements.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_enum_gains_values_in_place_and_loses_them_by_replacement() {
    let mut a = cat();
    let mood = q("public.mood");
    let def = |labels: &[&str]| TypeDef {
        kind: TypeKind::Enum(labels.iter().map(|l| l.to_string()).collect()),
        owner: "postgres".into(),
        acl: Acl::new(),
        comment: None,
    };
    a.types.insert(mood.clone(), def(&["sad", "happy"]));
    let mut b = a.clone();
    b.types
        .insert(mood.clone(), def(&["meh", "sad", "ok", "happy", "great"]));
    assert_eq!(
        sql(&diff(&a, &b)),
        [
            "ALTER TYPE \"public\".\"mood\" ADD VALUE 'meh' BEFORE 'sad';",
            "ALTER TYPE \"public\".\"mood\" ADD VALUE 'ok' AFTER 'sad';",
            "ALTER TYPE \"public\".\"mood\" ADD VALUE 'great' AFTER 'happy';",
        ]
    );
    // A label gone: the old type is renamed away, the new one made, columns moved, the old
    // one dropped last.
    let t = q("public.people");
    a.tables
        .insert(t.clone(), table(vec![column("mood", "public.mood")]));
    a.deps.insert((
        ObjRef::Column(t.clone(), "mood".into()),
        ObjRef::Type(mood.clone()),
    ));
    let mut c = a.clone();
    c.types.insert(mood.clone(), def(&["happy"]));
    assert_eq!(
        sql(&diff(&a, &c)),
        [
            "ALTER TYPE \"public\".\"mood\" RENAME TO \"mood__old_version_to_be_dropped\";",
            "CREATE TYPE \"public\".\"mood\" AS ENUM ('happy');",
            "ALTER TABLE \"public\".\"people\" ALTER COLUMN \"mood\" SET DATA TYPE public.mood \
             USING \"mood\"::text::public.mood;",
            "DROP TYPE \"public\".\"mood__old_version_to_be_dropped\";",
        ]
    );
}

#[test]
fn a_column_renamed_is_said_to_lose_data() {
    let mut a = cat();
    let t = q("public.profiles");
    a.tables.insert(
        t.clone(),
        table(vec![column("id", "uuid"), column("name", "text")]),
    );
    let mut b = a.clone();
    b.tables.insert(
        t.clone(),
        table(vec![column("id", "uuid"), column("full_name", "text")]),
    );
    let out = diff(&a, &b);
    assert_eq!(
        sql(&out),
        [
            "-- WARNING: column \"name\" of \"public\".\"profiles\" is dropped and column \
             \"full_name\" is added: if this is a rename, write\n\
             -- ALTER TABLE \"public\".\"profiles\" RENAME COLUMN \"name\" TO \"full_name\";\n\
             -- instead, or the data in \"name\" is lost.\n\
             ALTER TABLE \"public\".\"profiles\" DROP COLUMN \"name\";",
            "ALTER TABLE \"public\".\"profiles\" ADD COLUMN \"full_name\" text;",
        ]
    );
    assert!(out[0].drops() && !out[1].drops());
}

#[test]
fn creations_follow_dependencies_and_drops_go_the_other_way() {
    let mut a = cat();
    let mut b = cat();
    let (s, t, v) = ("api".to_string(), q("api.orders"), q("api.order_totals"));
    b.schemas.insert(
        s.clone(),
        Schema {
            owner: "postgres".into(),
            acl: Acl::new(),
            comment: None,
        },
    );
    b.tables
        .insert(t.clone(), table(vec![column("total", "numeric")]));
    b.views.insert(
        v.clone(),
        View {
            materialized: false,
            definition: "SELECT sum(total) AS sum FROM api.orders".into(),
            options: vec!["security_invoker=true".into()],
            column_comments: BTreeMap::new(),
            owner: "postgres".into(),
            acl: Acl::new(),
            comment: None,
        },
    );
    // The view is named first: only the dependency puts the table before it.
    b.deps.insert((
        ObjRef::View(v.clone()),
        ObjRef::Column(t.clone(), "total".into()),
    ));
    b.deps
        .insert((ObjRef::Table(t.clone()), ObjRef::Schema(s.clone())));
    b.deps
        .insert((ObjRef::View(v.clone()), ObjRef::Schema(s.clone())));
    assert_eq!(
        sql(&diff(&a, &b)),
        [
            "CREATE SCHEMA \"api\";",
            "CREATE TABLE \"api\".\"orders\" (\n    \"total\" numeric\n);",
            "CREATE VIEW \"api\".\"order_totals\" WITH (security_invoker=true) AS\n\
             SELECT sum(total) AS sum FROM api.orders;",
        ]
    );
    a = b.clone();
    let empty = cat();
    assert_eq!(
        sql(&diff(&a, &empty)),
        [
            "DROP VIEW \"api\".\"order_totals\";",
            "DROP TABLE \"api\".\"orders\";",
            "DROP SCHEMA \"api\";",
        ]
    );
}

#[test]
fn a_function_whose_result_changes_takes_its_dependents_with_it() {
    let mut a = cat();
    let f = FnKey {
        schema: "public".into(),
        name: "is_admin".into(),
        args: String::new(),
    };
    let func = |result: &str| Function {
        kind: 'f',
        definition: format!(
            "CREATE OR REPLACE FUNCTION public.is_admin()\n RETURNS {result}\n LANGUAGE sql\nAS $function$ select true $function$"
        ),
        arguments: String::new(),
        result: Some(result.into()),
        owner: "postgres".into(),
        acl: Acl::new(),
        comment: None,
    };
    a.functions.insert(f.clone(), func("boolean"));
    let t = q("public.notes");
    a.tables
        .insert(t.clone(), table(vec![column("id", "integer")]));
    let policy = Policy {
        permissive: true,
        command: "SELECT".into(),
        roles: vec!["authenticated".into()],
        using: Some("public.is_admin()".into()),
        check: None,
        comment: None,
    };
    a.policies.insert((t.clone(), "admins read".into()), policy);
    a.deps.insert((
        ObjRef::Policy(t.clone(), "admins read".into()),
        ObjRef::Function(f.clone()),
    ));
    let mut b = a.clone();
    b.functions.insert(f.clone(), func("integer"));
    b.deps = a.deps.clone();
    assert_eq!(
        sql(&diff(&a, &b)),
        [
            "DROP POLICY \"admins read\" ON \"public\".\"notes\";",
            "DROP FUNCTION \"public\".\"is_admin\"();",
            "CREATE OR REPLACE FUNCTION public.is_admin()\n RETURNS integer\n LANGUAGE sql\nAS $function$ select true $function$;",
            "CREATE POLICY \"admins read\" ON \"public\".\"notes\" FOR SELECT TO \"authenticated\" USING (public.is_admin());",
        ]
    );
}

#[test]
fn the_same_catalog_has_no_difference() {
    let mut a = cat();
    a.tables
        .insert(q("public.t"), table(vec![column("id", "integer")]));
    assert!(diff(&a, &a.clone()).is_empty());
}
