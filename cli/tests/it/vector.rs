//! supagate's pgvector 0.8.0 (extensions/pgrx/vector, embedded in the binary) in a served
//! database: the types' text and binary forms, limits and errors, each operator and function on
//! known values, casts and aggregates (a table of cases with pgvector's answers), then the index
//! access methods: an `hnsw` index chosen by the planner for `ORDER BY … LIMIT`, its recall
//! against exact search, inserts after the build, iterative scans under a filter, vacuum, and
//! kill -9 of PostgreSQL during inserts and during a build; and an `ivfflat` index likewise.

use crate::support;

use std::path::PathBuf;
use std::sync::OnceLock;

/// `(query, the text of its one value)`, or `Err(the error message)`.
type Case = (&'static str, Result<&'static str, &'static str>);

/// The first value of the last row a query returns, or its error message.
async fn one(client: &tokio_postgres::Client, query: &str) -> Result<String, String> {
    support::sql::value(client, query).await
}

async fn check(client: &tokio_postgres::Client, cases: &[Case]) {
    support::sql::check(client, cases).await
}

/// A project whose migration creates the extension.
fn project() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        support::scratch_project(&[(
            "supabase/migrations/20240101000000_vector.sql",
            "create extension if not exists vector;",
        )])
    })
}

const TYPE_CASES: &[Case] = &[
    // vector: text form, limits and errors.
    (r#"select '[1,2,3]'::vector"#, Ok(r#"[1,2,3]"#)),
    (r#"select '[-1,2.5,3e-3]'::vector"#, Ok(r#"[-1,2.5,0.003]"#)),
    (r#"select '  [ 1 , 2 , 3 ]  '::vector"#, Ok(r#"[1,2,3]"#)),
    (r#"select '[1e39]'::vector"#, Err(r#""1e39" is out of range for type vector"#)),
    (r#"select '[NaN]'::vector"#, Err(r#"NaN not allowed in vector"#)),
    (r#"select '[Infinity]'::vector"#, Err(r#"infinite value not allowed in vector"#)),
    (r#"select '[1,2,3'::vector"#, Err(r#"invalid input syntax for type vector: "[1,2,3""#)),
    (r#"select '[1,2,3] x'::vector"#, Err(r#"invalid input syntax for type vector: "[1,2,3] x""#)),
    (r#"select '1,2,3'::vector"#, Err(r#"invalid input syntax for type vector: "1,2,3""#)),
    (r#"select '[]'::vector"#, Err(r#"vector must have at least 1 dimension"#)),
    (r#"select '[1,,3]'::vector"#, Err(r#"invalid input syntax for type vector: "[1,,3]""#)),
    (r#"select '[1,2,3]'::vector(2)"#, Err(r#"expected 2 dimensions, not 3"#)),
    (r#"select '[1,2]'::vector(0)"#, Err(r#"dimensions for type vector must be at least 1"#)),
    (r#"select '[1,2]'::vector(16001)"#, Err(r#"dimensions for type vector cannot exceed 16000"#)),
    (r#"select array_fill(1, array[16001])::vector"#, Err(r#"vector cannot have more than 16000 dimensions"#)),
    (r#"select '[1,2,3]'::vector <-> '[3,1,2]'"#, Ok(r#"2.449489742783178"#)),
    (r#"select '[1,2,3]'::vector <#> '[3,1,2]'"#, Ok(r#"-11"#)),
    (r#"select '[1,2,3]'::vector <=> '[3,1,2]'"#, Ok(r#"0.2142857142857143"#)),
    (r#"select '[1,2,3]'::vector <+> '[3,1,2]'"#, Ok(r#"4"#)),
    (r#"select '[1,2]'::vector <-> '[1,2,3]'"#, Err(r#"different vector dimensions 2 and 3"#)),
    (r#"select l2_distance('[0,0]'::vector, '[3,4]')"#, Ok(r#"5"#)),
    (r#"select inner_product('[1,2]'::vector, '[3,4]')"#, Ok(r#"11"#)),
    (r#"select cosine_distance('[1,0]'::vector, '[0,1]')"#, Ok(r#"1"#)),
    (r#"select cosine_distance('[1,1]'::vector, '[-1,-1]')"#, Ok(r#"2"#)),
    (r#"select cosine_distance('[0,0]'::vector, '[1,1]')"#, Ok(r#"NaN"#)),
    (r#"select l1_distance('[1,-2]'::vector, '[-3,4]')"#, Ok(r#"10"#)),
    (r#"select vector_dims('[1,2,3]'::vector)"#, Ok(r#"3"#)),
    (r#"select vector_norm('[3,4]')"#, Ok(r#"5"#)),
    (r#"select l2_normalize('[3,4]'::vector)"#, Ok(r#"[0.6,0.8]"#)),
    (r#"select l2_normalize('[0,0]'::vector)"#, Ok(r#"[0,0]"#)),
    (r#"select binary_quantize('[1,-2,0,3]'::vector)"#, Ok(r#"1001"#)),
    (r#"select subvector('[1,2,3,4,5]'::vector, 2, 3)"#, Ok(r#"[2,3,4]"#)),
    (r#"select subvector('[1,2,3,4,5]'::vector, 4, 9)"#, Ok(r#"[4,5]"#)),
    (r#"select subvector('[1,2,3,4,5]'::vector, 6, 1)"#, Err(r#"vector must have at least 1 dimension"#)),
    (r#"select '[1,2,3]'::vector + '[4,5,6]'"#, Ok(r#"[5,7,9]"#)),
    (r#"select '[1,2,3]'::vector - '[4,5,6]'"#, Ok(r#"[-3,-3,-3]"#)),
    (r#"select '[1,2,3]'::vector * '[4,5,6]'"#, Ok(r#"[4,10,18]"#)),
    (r#"select '[1,2]'::vector || '[3]'"#, Ok(r#"[1,2,3]"#)),
    (r#"select '[3e38]'::vector + '[3e38]'"#, Err(r#"value out of range: overflow"#)),
    (r#"select '[1e-30]'::vector * '[1e-30]'"#, Err(r#"value out of range: underflow"#)),
    (r#"select '[1,2,3]'::vector < '[1,2,4]'"#, Ok(r#"t"#)),
    (r#"select '[1,2,3]'::vector = '[1,2,3]'"#, Ok(r#"t"#)),
    (r#"select '[1,2]'::vector < '[1,2,3]'"#, Ok(r#"t"#)),
    (r#"select vector_cmp('[2]', '[1,5]')"#, Ok(r#"1"#)),
    (r#"select avg(v) from (values ('[1,2,3]'::vector), ('[3,4,5]')) t(v)"#, Ok(r#"[2,3,4]"#)),
    (r#"select sum(v) from (values ('[1,2,3]'::vector), ('[3,4,5]')) t(v)"#, Ok(r#"[4,6,8]"#)),
    (r#"select avg(v) from (values ('[1,2]'::vector), ('[3,4,5]')) t(v)"#, Err(r#"expected 2 dimensions, not 3"#)),
    (r#"select avg(v) from (select '[1]'::vector where false) t(v)"#, Ok(r#"NULL"#)),
    (r#"select '{1,2,3}'::int[]::vector"#, Ok(r#"[1,2,3]"#)),
    (r#"select '{1.5,2.5}'::real[]::vector"#, Ok(r#"[1.5,2.5]"#)),
    (r#"select '{1.5,2.5}'::float8[]::vector"#, Ok(r#"[1.5,2.5]"#)),
    (r#"select '{1.5,2.5}'::numeric[]::vector"#, Ok(r#"[1.5,2.5]"#)),
    (r#"select '{{1,2},{3,4}}'::int[]::vector"#, Err(r#"array must be 1-D"#)),
    (r#"select '{1,null}'::int[]::vector"#, Err(r#"array must not contain nulls"#)),
    (r#"select '[1,2,3]'::vector::real[]"#, Ok(r#"{1,2,3}"#)),
    (r#"select '{1,2,3}'::int[]::vector(2)"#, Err(r#"expected 2 dimensions, not 3"#)),
    (r#"select '[1,2,3]'::vector::vector(3)"#, Ok(r#"[1,2,3]"#)),
    (r#"select vector_send('[1,2]'::vector)"#, Ok(r#"\x000200003f80000040000000"#)),
    // halfvec.
    (r#"select '[1.5,2,3]'::halfvec"#, Ok(r#"[1.5,2,3]"#)),
    (r#"select '[65520]'::halfvec"#, Err(r#""65520" is out of range for type halfvec"#)),
    (r#"select '[1,2,3]'::halfvec <-> '[3,1,2]'"#, Ok(r#"2.449489742783178"#)),
    (r#"select '[1,2,3]'::halfvec <=> '[3,1,2]'"#, Ok(r#"0.2142857142857143"#)),
    (r#"select l2_norm('[3,4]'::halfvec)"#, Ok(r#"5"#)),
    (r#"select '[1,2]'::halfvec || '[3]'"#, Ok(r#"[1,2,3]"#)),
    (r#"select '[1.1]'::vector::halfvec"#, Ok(r#"[1.0996094]"#)),
    (r#"select '[1,2,3]'::halfvec::vector"#, Ok(r#"[1,2,3]"#)),
    (r#"select halfvec_send('[1,2]'::halfvec)"#, Ok(r#"\x000200003c004000"#)),
    (r#"select '[1,2]'::halfvec <-> '[1,2,3]'"#, Err(r#"different halfvec dimensions 2 and 3"#)),
    // sparsevec: 1-based text form, 0-based binary form.
    (r#"select '{1:1.5,3:2}/5'::sparsevec"#, Ok(r#"{1:1.5,3:2}/5"#)),
    (r#"select '{}/3'::sparsevec"#, Ok(r#"{}/3"#)),
    (r#"select '{1:0,2:1}/2'::sparsevec"#, Ok(r#"{2:1}/2"#)),
    (r#"select '{3:1,1:2}/3'::sparsevec"#, Ok(r#"{1:2,3:1}/3"#)),
    (r#"select '{1:1,1:2}/3'::sparsevec"#, Err(r#"sparsevec indices must not contain duplicates"#)),
    (r#"select '{4:1}/3'::sparsevec"#, Err(r#"sparsevec index out of bounds"#)),
    (r#"select '{1:1}/0'::sparsevec"#, Err(r#"sparsevec must have at least 1 dimension"#)),
    (r#"select '{1:1,2:2}/3'::sparsevec <-> '{2:1,3:4}/3'"#, Ok(r#"4.242640687119285"#)),
    (r#"select '{1:1,2:2}/3'::sparsevec <#> '{2:1,3:4}/3'"#, Ok(r#"-2"#)),
    (r#"select '{1:1,2:2}/3'::sparsevec <=> '{2:1,3:4}/3'"#, Ok(r#"0.7830695421813438"#)),
    (r#"select '{1:1,2:2}/3'::sparsevec <+> '{2:1,3:4}/3'"#, Ok(r#"6"#)),
    (r#"select l2_norm('{1:3,5:4}/5'::sparsevec)"#, Ok(r#"5"#)),
    (r#"select '[0,1.5,0,2]'::vector::sparsevec"#, Ok(r#"{2:1.5,4:2}/4"#)),
    (r#"select '{2:1.5,4:2}/4'::sparsevec::vector"#, Ok(r#"[0,1.5,0,2]"#)),
    (r#"select '{0,3,0}'::int[]::sparsevec"#, Ok(r#"{2:3}/3"#)),
    (r#"select sparsevec_send('{2:1.5}/3'::sparsevec)"#, Ok(r#"\x000000030000000100000000000000013fc00000"#)),
    (r#"select '{1:1}/3'::sparsevec < '{2:1}/3'"#, Ok(r#"f"#)),
    // bit.
    (r#"select '101'::bit(3) <~> '011'"#, Ok(r#"2"#)),
    (r#"select '1111'::bit(4) <%> '1100'"#, Ok(r#"0.5"#)),
    (r#"select hamming_distance('111', '00')"#, Err(r#"different bit lengths 3 and 2"#)),
    // The catalogue: pgvector 0.8.0's objects, counted by kind.
    (
        "select string_agg(d.classid::regclass || '=' || d.n, ' ' order by d.classid::regclass::text)
           from (select classid, count(*) n from pg_depend d join pg_extension e on e.oid = d.refobjid
                 and e.extname = 'vector' where d.deptype = 'e' group by classid) d",
        Ok("pg_am=2 pg_cast=23 pg_opclass=24 pg_operator=40 pg_opfamily=24 pg_proc=118 pg_type=3"),
    ),
    (
        "select extversion from pg_extension where extname = 'vector'",
        Ok("0.8.0"),
    ),
];

#[tokio::test]
async fn vector_types_answer_as_pgvector() {
    let gw = support::clone_of(project(), &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    check(&client, TYPE_CASES).await;
}

/// SQL making `items` (2,000 vectors of 64 dimensions in 20 clusters, as embeddings cluster) and
/// `queries` (50 more), with a fixed seed.
const CLUSTERED: &str = "
    select setseed(0.42);
    create table centers as select c, array(select random() * 2 - 1 from generate_series(1, 64) where c >= 0) v
      from generate_series(0, 19) c;
    create table items (id int primary key, embedding vector(64));
    insert into items select i, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 64) d)::vector
      from generate_series(1, 2000) i join centers c on c.c = i % 20;
    create table queries as select q, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 64) d)::vector(64) v
      from generate_series(1, 50) q join centers c on c.c = q % 20;
    analyze items;";

/// The share of the exact 10 nearest (by `op`, `filter` applied) the index finds, over the
/// queries; `exact` is computed with index scans off.
async fn recall(client: &tokio_postgres::Client, op: &str, filter: &str) -> f64 {
    let sql = format!(
        "drop table if exists exact, approx;
         set enable_indexscan = off;
         create temp table exact as select q, array(select id from items {filter} order by embedding {op} v limit 10) ids from queries;
         reset enable_indexscan;
         set enable_seqscan = off;
         create temp table approx as select q, array(select id from items {filter} order by embedding {op} v limit 10) ids from queries;
         reset enable_seqscan;
         select sum(cardinality(array(select unnest(a.ids) intersect select unnest(e.ids))))::float8
                / greatest(sum(cardinality(e.ids)), 1)
           from approx a join exact e using (q);"
    );
    one(client, &sql).await.unwrap().parse().unwrap()
}

/// Waits until no other session of this database has a snapshot older than this call, so rows
/// deleted before it are dead to all and VACUUM removes them (and their index entries): supagate's
/// realtime advances its replication slot from a session of the database, and a VACUUM that
/// runs meanwhile keeps the rows, whose index entries then crowd out the live ones in scans.
async fn wait_for_older_snapshots(client: &tokio_postgres::Client) {
    let xid = one(client, "select pg_current_xact_id()::text")
        .await
        .unwrap();
    let older = format!(
        "select count(*) from pg_stat_activity where datname = current_database()
           and pid <> pg_backend_pid() and backend_xmin is not null and age(backend_xmin) > age('{xid}'::xid)"
    );
    for _ in 0..400 {
        if one(client, &older).await.unwrap() == "0" {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("a session of the database kept a snapshot older than xid {xid} for 10 s");
}

/// The plan of the nearest-10 query by `op`.
async fn plan(client: &tokio_postgres::Client, op: &str) -> String {
    let rows = client
        .simple_query(&format!(
            "explain (costs off) select id from items order by embedding {op} (select v from queries where q = 1) limit 10"
        ))
        .await
        .unwrap();
    rows.iter()
        .filter_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn hnsw_is_chosen_for_nearest_neighbors_and_finds_them() {
    let gw = support::clone_of(project(), &[]).await;
    let c = gw.session_on(&gw.dbname).await;
    c.batch_execute(CLUSTERED).await.unwrap();
    // Options and their checks.
    check(
        &c,
        &[
            (
                "create index on items using hnsw (embedding vector_l2_ops) with (m = 1)",
                Err(r#"value 1 out of bounds for option "m""#),
            ),
            (
                "create index on items using hnsw (embedding vector_l2_ops) with (m = 16, ef_construction = 16)",
                Err("ef_construction must be greater than or equal to 2 * m"),
            ),
            (
                "create table wide (v vector(2001)); create index on wide using hnsw (v vector_l2_ops)",
                Err("column cannot have more than 2000 dimensions for hnsw index"),
            ),
            (
                "create table nodims (v vector); create index on nodims using hnsw (v vector_l2_ops)",
                Err("column does not have dimensions"),
            ),
            ("show hnsw.ef_search", Ok("40")),
            ("set hnsw.ef_search = 1001", Err(r#"1001 is outside the valid range for parameter "hnsw.ef_search" (1 .. 1000)"#)),
        ],
    )
    .await;

    c.batch_execute("create index items_l2 on items using hnsw (embedding vector_l2_ops)")
        .await
        .unwrap();
    let p = plan(&c, "<->").await;
    assert!(p.contains("Index Scan using items_l2 on items"), "{p}");
    let r = recall(&c, "<->", "").await;
    assert!(r >= 0.95, "l2 recall {r}");

    // Rows inserted after the build are linked into the graph on the index's pages.
    c.batch_execute(
        "insert into items select 2000 + i, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 64) d)::vector
           from generate_series(1, 500) i join centers c on c.c = i % 20",
    )
    .await
    .unwrap();
    let r = recall(&c, "<->", "").await;
    assert!(r >= 0.95, "l2 recall after inserts {r}");

    // A filter leaves too few of the ef_search candidates: an iterative scan goes on.
    c.batch_execute("set hnsw.iterative_scan = relaxed_order")
        .await
        .unwrap();
    let r = recall(&c, "<->", "where id % 10 = 0").await;
    assert!(r >= 0.9, "filtered recall with an iterative scan {r}");
    c.batch_execute("set hnsw.iterative_scan = strict_order")
        .await
        .unwrap();
    assert_eq!(
        one(&c, "select count(*) from (select id from items where id % 50 = 0 order by embedding <-> (select v from queries where q = 1) limit 10) t").await,
        Ok("10".into())
    );
    c.batch_execute("reset hnsw.iterative_scan").await.unwrap();

    // Vacuum: deleted rows leave the graph, the rest are still found, freed space is reused.
    // Half of each cluster goes (ids cycle through the clusters: every other run of 20); with
    // whole clusters gone, a query of theirs has no near neighbours left and recall measures
    // the data, not the index. (VACUUM runs in a statement of its own: not in a multi-statement
    // query's transaction.)
    c.batch_execute("delete from items where (id / 20) % 2 = 0")
        .await
        .unwrap();
    wait_for_older_snapshots(&c).await;
    c.batch_execute("vacuum items").await.unwrap();
    let r = recall(&c, "<->", "").await;
    assert!(r >= 0.9, "recall after vacuum {r}");
    let size = one(&c, "select pg_relation_size('items_l2')")
        .await
        .unwrap();
    c.batch_execute(
        "insert into items select 3000 + i, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 64) d)::vector
           from generate_series(1, 500) i join centers c on c.c = i % 20",
    )
    .await
    .unwrap();
    assert_eq!(
        one(&c, "select pg_relation_size('items_l2')")
            .await
            .unwrap(),
        size
    );

    // The other operator classes of vector.
    c.batch_execute("drop index items_l2; create index items_cos on items using hnsw (embedding vector_cosine_ops)")
        .await
        .unwrap();
    assert!(plan(&c, "<=>").await.contains("Index Scan using items_cos"));
    let r = recall(&c, "<=>", "").await;
    assert!(r >= 0.95, "cosine recall {r}");
    c.batch_execute(
        "drop index items_cos; create index items_ip on items using hnsw (embedding vector_ip_ops)",
    )
    .await
    .unwrap();
    let r = recall(&c, "<#>", "").await;
    assert!(r >= 0.9, "inner product recall {r}");
    c.batch_execute(
        "drop index items_ip; create index items_l1 on items using hnsw (embedding vector_l1_ops)",
    )
    .await
    .unwrap();
    let r = recall(&c, "<+>", "").await;
    assert!(r >= 0.9, "taxicab recall {r}");
    // Without ORDER BY the index is never used.
    let p = one(&c, "explain (costs off) select count(*) from items")
        .await
        .unwrap();
    assert!(!p.contains("items_l1"), "{p}");
}

/// Vacuum after nine rows in ten of every cluster are deleted: the live elements that only
/// deleted ones led to are linked again, so no cluster drops out of reach (repairs that chose
/// only among a deleted neighbor's own links left whole clusters that no search found).
#[tokio::test]
async fn hnsw_vacuum_of_most_rows_keeps_every_cluster_reachable() {
    let gw = support::clone_of(project(), &[]).await;
    let c = gw.session_on(&gw.dbname).await;
    c.batch_execute(CLUSTERED).await.unwrap();
    c.batch_execute("create index items_l2 on items using hnsw (embedding vector_l2_ops)")
        .await
        .unwrap();
    c.batch_execute(
        "insert into items select 2000 + i, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 64) d)::vector
           from generate_series(1, 500) i join centers c on c.c = i % 20",
    )
    .await
    .unwrap();
    // Ids run through the clusters (id % 20), so every cluster keeps one row in ten.
    c.batch_execute("delete from items where (id / 20) % 10 <> 0")
        .await
        .unwrap();
    wait_for_older_snapshots(&c).await;
    c.batch_execute("vacuum items").await.unwrap();
    assert_eq!(
        one(&c, "select count(distinct id % 20) from items").await,
        Ok("20".into())
    );
    // With nine rows in ten gone, a cluster's few rows may be reached only by a long path that
    // the default search (hnsw.ef_search 40) gives up on: recall there ranged 0.86–1.0 over 20
    // runs (levels are random, from PostgreSQL's global generator, which setseed leaves alone).
    let r = recall(&c, "<->", "").await;
    assert!(r >= 0.8, "recall after vacuum of most rows {r}");
    // But every cluster is still reached: a wider search finds each query's nearest.
    c.batch_execute("set hnsw.ef_search = 400").await.unwrap();
    let wide = recall(&c, "<->", "").await;
    let least = one(
        &c,
        "select min(cardinality(array(select unnest(a.ids) intersect select unnest(e.ids))))
           from approx a join exact e using (q)",
    )
    .await;
    assert!(
        wide >= 0.99 && least.as_deref().is_ok_and(|n| n != "0"),
        "a query's nearest were not reached: recall {wide} at ef_search 400, least {least:?}"
    );
}

#[tokio::test]
async fn hnsw_indexes_halfvec_sparsevec_and_bit() {
    let gw = support::clone_of(project(), &[]).await;
    let c = gw.session_on(&gw.dbname).await;
    c.batch_execute(
        "set enable_seqscan = off;
         create table h (id int, v halfvec(3)); insert into h values (1, '[0,0,0]'), (2, '[1,2,3]'), (3, '[1,1,1]'), (4, null);
         create index on h using hnsw (v halfvec_l2_ops); insert into h values (5, '[1,2,4]');
         create table s (id int, v sparsevec(3)); insert into s values (1, '{}/3'), (2, '{1:1,2:2,3:3}/3'), (3, '{1:1,2:1,3:1}/3');
         create index on s using hnsw (v sparsevec_cosine_ops); insert into s values (4, '{1:1,2:2,3:4}/3');
         create table b (id int, v bit(4)); insert into b values (1, '0000'), (2, '1111'), (3, '1100');
         create index on b using hnsw (v bit_hamming_ops); insert into b values (4, '1110');",
    )
    .await
    .unwrap();
    check(
        &c,
        &[
            ("select string_agg(id::text, ',') from (select id from h order by v <-> '[3,3,3]') t", Ok("2,5,3,1")),
            // The zero vector has no direction: a cosine index leaves it out, as pgvector's does.
            ("select string_agg(id::text, ',') from (select id from s order by v <=> '{1:1,2:2,3:3}/3') t", Ok("2,4,3")),
            ("select string_agg(id::text, ',') from (select id from b order by v <~> '1111') t", Ok("2,4,3,1")),
            (
                "create table t1001 (v sparsevec(2000)); create index on t1001 using hnsw (v sparsevec_l2_ops);
                 insert into t1001 select (array_fill(1, array[1001]) || array_fill(0, array[999]))::sparsevec",
                Err("sparsevec cannot have more than 1000 non-zero elements for hnsw index"),
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn ivfflat_is_chosen_and_probes_its_lists() {
    let gw = support::clone_of(project(), &[]).await;
    let c = gw.session_on(&gw.dbname).await;
    c.batch_execute(CLUSTERED).await.unwrap();
    c.batch_execute(
        "create index items_ivf on items using ivfflat (embedding vector_l2_ops) with (lists = 20)",
    )
    .await
    .unwrap();
    let p = plan(&c, "<->").await;
    assert!(p.contains("Index Scan using items_ivf on items"), "{p}");
    c.batch_execute("set ivfflat.probes = 4").await.unwrap();
    let r = recall(&c, "<->", "").await;
    assert!(r >= 0.95, "ivfflat recall {r}");
    c.batch_execute("set ivfflat.probes = 20").await.unwrap();
    assert_eq!(recall(&c, "<->", "").await, 1.0);
    c.batch_execute("delete from items where id % 2 = 0")
        .await
        .unwrap();
    wait_for_older_snapshots(&c).await;
    c.batch_execute("vacuum items").await.unwrap();
    assert_eq!(recall(&c, "<->", "").await, 1.0);
    check(
        &c,
        &[
            ("show ivfflat.probes", Ok("20")),
            (
                "create index on items using ivfflat (embedding vector_l2_ops) with (lists = 0)",
                Err(r#"value 0 out of bounds for option "lists""#),
            ),
        ],
    )
    .await;
}

/// The backend process of a session.
async fn backend_pid(client: &tokio_postgres::Client) -> String {
    one(client, "select pg_backend_pid()").await.unwrap()
}

/// kill -9 of a backend: PostgreSQL ends every session and recovers from its WAL, as after a
/// crash; `watcher` (another session) is ended too.
async fn crash(backend: &str, watcher: &tokio_postgres::Client) {
    std::process::Command::new("kill")
        .args(["-9", backend])
        .status()
        .unwrap();
    while watcher.simple_query("select 1").await.is_ok() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn hnsw_index_is_valid_after_postgres_is_killed_during_inserts_and_a_build() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_vector.sql",
        "create extension if not exists vector;
         create table docs (id serial primary key, embedding vector(32));
         create index docs_hnsw on docs using hnsw (embedding vector_l2_ops);",
    )]);
    let gw = support::start_project(&dir, &[]);
    let insert = "insert into docs (embedding) select array(select random() from generate_series(1, 32) where g > 0)::vector
                    from generate_series(1, 20) g";
    let c = gw.session_on(&gw.dbname).await;
    for _ in 0..20 {
        c.batch_execute(insert).await.unwrap();
    }
    // Inserts in flight from another session when its backend is killed.
    let writer = gw.session_on(&gw.dbname).await;
    let pid = backend_pid(&writer).await;
    let task = tokio::spawn(async move {
        for _ in 0..100_000 {
            if writer.batch_execute(insert).await.is_err() {
                break;
            }
        }
    });
    while one(&c, "select count(*) >= 1000 from docs").await != Ok("t".into()) {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    crash(&pid, &c).await;
    task.await.unwrap();
    let c = reconnect(&gw).await;
    // Every row is reachable through the graph (an iterative scan with no limit visits them
    // all), and the index takes new rows.
    c.batch_execute(insert).await.unwrap();
    let rows: i64 = one(&c, "select count(*) from docs")
        .await
        .unwrap()
        .parse()
        .unwrap();
    let through_index = one(
        &c,
        "set enable_seqscan = off; set hnsw.iterative_scan = relaxed_order; set hnsw.max_scan_tuples = 1000000;
         select count(*) from (select id from docs order by embedding <-> (select embedding from docs limit 1)) t",
    )
    .await
    .unwrap();
    assert_eq!(through_index, rows.to_string());
    assert!(rows > 1000, "only {rows} rows");

    // Killed during an index build: the build's transaction never committed, so after recovery
    // there is no such index, and building it again works.
    c.batch_execute(
        "create table big (id int, embedding vector(128));
         insert into big select i, array(select random() from generate_series(1, 128) where i > 0)::vector
           from generate_series(1, 20000) i;",
    )
    .await
    .unwrap();
    let builder = gw.session_on(&gw.dbname).await;
    let pid = backend_pid(&builder).await;
    let build = tokio::spawn(async move {
        builder
            .batch_execute("create index big_hnsw on big using hnsw (embedding vector_cosine_ops)")
            .await
    });
    while one(&c, "select count(*) from pg_stat_progress_create_index").await != Ok("1".into()) {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    crash(&pid, &c).await;
    assert!(
        build.await.unwrap().is_err(),
        "the build finished before the kill"
    );
    let c = reconnect(&gw).await;
    assert_eq!(
        one(
            &c,
            "select count(*) from pg_class where relname = 'big_hnsw'"
        )
        .await,
        Ok("0".into())
    );
    c.batch_execute("create index big_hnsw on big using hnsw (embedding vector_cosine_ops)")
        .await
        .unwrap();
    assert_eq!(
        one(
            &c,
            "set enable_seqscan = off;
             select count(*) from (select id from big order by embedding <=> (select embedding from big where id = 1) limit 5) t"
        )
        .await,
        Ok("5".into())
    );
}

/// A session on the gateway's database once PostgreSQL accepts connections again.
async fn reconnect(gw: &support::Gateway) -> tokio_postgres::Client {
    loop {
        let mut cfg = tokio_postgres::Config::new();
        cfg.host_path(&gw.socket_dir)
            .port(5432)
            .user("postgres")
            .dbname(&gw.dbname);
        if let Ok((client, conn)) = cfg.connect(tokio_postgres::NoTls).await {
            tokio::spawn(conn);
            if client.simple_query("select 1").await.is_ok() {
                return client;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
