//! supagate's Rust extensions (extensions/pgrx, built by scripts/build-extensions and embedded in
//! the binary) in a served database, with the SQL surface and answers of the upstream extensions:
//! pg_jsonschema 0.3.3. Each case is a query and the text of its one value, or the error it
//! raises.

mod support;

/// `(query, the text of its one value)`, or `Err(words the error message contains)`.
type Case = (&'static str, Result<&'static str, &'static str>);

async fn check(gw: &support::Gateway, cases: &[Case]) {
    let client = gw.session_on(&gw.dbname).await;
    for (query, want) in cases {
        let got = match client.simple_query(query).await {
            Ok(messages) => Ok(messages
                .iter()
                .find_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(r) => {
                        Some(r.get(0).unwrap_or("NULL").to_string())
                    }
                    _ => None,
                })
                .unwrap_or_default()),
            Err(e) => Err(e
                .as_db_error()
                .map(|d| d.message().to_string())
                .unwrap_or_else(|| e.to_string())),
        };
        match (want, &got) {
            (Ok(w), Ok(g)) if w == g => {}
            (Err(w), Err(g)) if g.contains(w) => {}
            _ => panic!("{query}\n  want {want:?}\n  got  {got:?}"),
        }
    }
}

const JSONSCHEMA_CASES: &[Case] = &[
    (
        r#"select json_matches_schema('{"type": "object"}', '{}')"#,
        Ok("t"),
    ),
    (
        r#"select json_matches_schema('{"type": "object"}', '1')"#,
        Ok("f"),
    ),
    (
        r#"select json_matches_schema('{"maxLength": 5}', '"foo"')"#,
        Ok("t"),
    ),
    (
        r#"select json_matches_schema('{"maxLength": 5}', '"foobar"')"#,
        Ok("f"),
    ),
    (
        r#"select jsonb_matches_schema('{"maxLength": 5}', '"foo"'::jsonb)"#,
        Ok("t"),
    ),
    (
        r#"select jsonb_matches_schema('{"maxLength": 5}', '"foobar"'::jsonb)"#,
        Ok("f"),
    ),
    // Strict: a null argument is a null answer.
    (
        r#"select json_matches_schema('{"type": "object"}', null) is null"#,
        Ok("t"),
    ),
    (
        r#"select jsonschema_is_valid('{"type": "object"}')"#,
        Ok("t"),
    ),
    (r#"select jsonschema_is_valid('{"type": "obj"}')"#, Ok("f")),
    (
        r#"select jsonschema_is_valid('{"$schema": "invalid-uri", "type": "string"}')"#,
        Ok("f"),
    ),
    (
        r#"select jsonschema_validation_errors('{"maxLength": 4}', '"foo"')"#,
        Ok("{}"),
    ),
    (
        r#"select jsonschema_validation_errors('{"maxLength": 4}', '"123456789"')"#,
        Ok(r#"{"\"123456789\" is longer than 4 characters"}"#),
    ),
    (
        r#"select array_to_string(jsonschema_validation_errors(
             '{"type": "object", "properties": {"foo": {"type": "string"}, "bar": {"type": "number"}, "baz": {"type": "boolean"}, "additionalProperties": false}}',
             '{"foo": 1, "bar": [], "baz": "1"}'), ' | ')"#,
        Ok(
            r#"[] is not of type "number" | "1" is not of type "boolean" | 1 is not of type "string""#,
        ),
    ),
    // A schema that is not one: the validation errors are its own error; matching fails.
    (
        r#"select cardinality(jsonschema_validation_errors('{"type": "obj"}', '1'))"#,
        Ok("1"),
    ),
    (
        r#"select json_matches_schema('{"type": "obj"}', '1')"#,
        Err("Invalid schema"),
    ),
    // Large numbers keep their precision (the crate's arbitrary-precision feature, as upstream).
    (
        r#"select json_matches_schema('{"maximum": 18446744073709551615}', '18446744073709551616')"#,
        Ok("f"),
    ),
    // The catalogue: upstream's signatures, each immutable, strict and parallel safe.
    (
        "select string_agg(format('%s %s%s%s %s', p.oid::regprocedure, p.provolatile, p.proisstrict, p.proparallel, p.prorettype::regtype), ', ' order by p.proname)
           from pg_proc p join pg_depend d on d.objid = p.oid
           join pg_extension e on e.oid = d.refobjid and e.extname = 'pg_jsonschema'",
        Ok(
            "json_matches_schema(json,json) its boolean, jsonb_matches_schema(json,jsonb) its boolean, jsonschema_is_valid(json) its boolean, jsonschema_validation_errors(json,json) its text[]",
        ),
    ),
];

#[tokio::test]
async fn pg_jsonschema_validates_as_supabases() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_jsonschema.sql",
        r#"create extension if not exists pg_jsonschema;
           create table public.customer (
             id serial primary key,
             metadata json,
             check (json_matches_schema(
               '{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 16}}}}',
               metadata))
           );"#,
    )]);
    let gw = support::start_project(&dir, &[]);
    check(&gw, JSONSCHEMA_CASES).await;
    check(
        &gw,
        &[
            (
                r#"insert into public.customer (metadata) values ('{"tags": ["vip", "darkmode-ui"]}') returning id"#,
                Ok("1"),
            ),
            (
                r#"insert into public.customer (metadata) values ('{"tags": [1, 3]}')"#,
                Err("violates check constraint \"customer_metadata_check\""),
            ),
            (
                "select extversion from pg_extension where extname = 'pg_jsonschema'",
                Ok("0.3.3"),
            ),
        ],
    )
    .await;
}
