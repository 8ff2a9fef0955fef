// pgvector as AI apps use it through supabase-js (Supabase's semantic search guide): a project
// whose migration creates the extension in the extensions schema, a documents table of 10,000
// 384-dimension embeddings (in 100 clusters, as embeddings of texts cluster) with an HNSW index
// on cosine distance, and the guide's match_documents function, called with supabase-js's rpc
// with an embedding as a JSON array. Its neighbours are checked against exact search (recall@10
// over 50 queries) and the query plan uses the index.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startGateway } from '../support/gateway.mjs'
import { client, psql, projectWith } from './helpers.mjs'

const MIGRATION = `
create extension if not exists vector with schema extensions;

create table documents (
  id bigserial primary key,
  content text not null,
  embedding extensions.vector(384)
);
create index on documents using hnsw (embedding extensions.vector_cosine_ops);

create or replace function match_documents (
  query_embedding extensions.vector(384),
  match_threshold float,
  match_count int
)
returns table (id bigint, content text, similarity float)
language sql stable
as $$
  select documents.id, documents.content, 1 - (documents.embedding <=> query_embedding) as similarity
  from documents
  where 1 - (documents.embedding <=> query_embedding) > match_threshold
  order by documents.embedding <=> query_embedding
  limit match_count;
$$;

-- The data: 100 cluster centres, 10,000 documents each near a random one (inserted in no
-- particular order, as an app's documents arrive), 50 queries likewise.
select setseed(0.3);
create temporary table centres as
  select c, array(select random() * 2 - 1 from generate_series(1, 384) where c >= 0) v
  from generate_series(0, 99) c;
insert into documents (content, embedding)
  select 'document ' || i, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 384) d)::extensions.vector
  from (select i, floor(random() * 100) c from generate_series(1, 10000) i) r join centres c on c.c = r.c
  order by random();
create table queries as
  select r.q, array(select c.v[d] + (random() - 0.5) * 0.6 from generate_series(1, 384) d)::extensions.vector(384) embedding
  from (select q, floor(random() * 100) c from generate_series(1, 50) q) r join centres c on c.c = r.c;
analyze documents;
`

let gw, project
before(async () => {
  project = await projectWith('vector', [])
  mkdirSync(join(project.dir, 'supabase/migrations'))
  writeFileSync(join(project.dir, 'supabase/migrations/20240101000000_documents.sql'), MIGRATION)
  gw = await startGateway({ workdir: project.dir })
})
after(async () => {
  await gw?.stop()
  project?.remove()
})

test('match_documents through supabase-js returns the nearest documents, found with the HNSW index', async () => {
  const supabase = client(gw)
  const queries = psql(gw, 'select embedding::text from queries order by q')
    .split('\n')
    .map((t) => JSON.parse(t))
  assert.equal(queries.length, 50)
  assert.equal(queries[0].length, 384)
  const exact = psql(
    gw,
    `set search_path = public, extensions; set enable_indexscan = off;
     select array_to_string(array(select id from documents order by embedding <=> queries.embedding limit 10), ',')
     from queries order by q`,
  )
    .split('\n')
    .map((line) => new Set(line.split(',').map(Number)))

  let found = 0
  for (const [i, embedding] of queries.entries()) {
    const { data, error } = await supabase.rpc('match_documents', {
      query_embedding: embedding,
      match_threshold: 0,
      match_count: 10,
    })
    assert.equal(error, null)
    assert.equal(data.length, 10)
    // Nearest first: similarity (1 - cosine distance) never increases.
    for (let k = 1; k < data.length; k++) assert.ok(data[k - 1].similarity >= data[k].similarity)
    assert.match(data[0].content, /^document \d+$/)
    found += data.filter((d) => exact[i].has(d.id)).length
  }
  const recall = found / (10 * queries.length)
  assert.ok(recall >= 0.95, `recall@10 ${recall}`)

  // A threshold leaves out the documents less similar than it.
  const { data: close } = await supabase.rpc('match_documents', {
    query_embedding: queries[0],
    match_threshold: 0.99,
    match_count: 10,
  })
  assert.deepEqual(close, [])

  const plan = psql(
    gw,
    `set search_path = public, extensions;
     explain (costs off) select id from documents order by embedding <=> (select embedding from queries where q = 1) limit 10`,
  )
  assert.match(plan, /Index Scan using documents_embedding_idx on documents/)
})
