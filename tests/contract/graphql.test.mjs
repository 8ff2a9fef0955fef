// pg_graphql at /graphql/v1, called as apps call Supabase's GraphQL API (fetch with the project's
// key and the user's access token, as Apollo, urql and graphql-request do; or supabase-js's rpc on
// graphql_public), against a project of its own (tests/fixtures/graphql): a query, a filtered
// and paginated connection, mutations under row level security, errors in GraphQL's shape.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, signedIn, uniqueEmail } from './helpers.mjs'

const ALICE = { email: 'alice@example.com', password: 'alice-password-1' }
let gw, alice
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/graphql') })
  alice = await signedIn(gw, ALICE.email, ALICE.password)
})
after(async () => gw?.stop())

/** POST /graphql/v1 with the project's key and, for a signed-in client, its access token. */
async function graphql(as, query, variables = {}) {
  const token = as ? (await as.auth.getSession()).data.session.access_token : gw.anonKey
  const r = await fetch(`${gw.url}/graphql/v1`, {
    method: 'POST',
    headers: {
      apikey: gw.anonKey,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ query, variables }),
  })
  return { status: r.status, body: await r.json() }
}

test('a query: anon sees the shared list and its to-dos, not the private list', async () => {
  const r = await graphql(
    null,
    `{
    listCollection { edges { node { title shared todoCollection(orderBy: [{id: AscNullsLast}]) { edges { node { task } } } } } }
  }`,
  )
  assert.equal(r.status, 200)
  assert.deepEqual(r.body, {
    data: {
      listCollection: {
        edges: [
          {
            node: {
              title: 'Groceries',
              shared: true,
              todoCollection: {
                edges: ['tulips', 'bread', 'coffee', 'oranges'].map((task) => ({ node: { task } })),
              },
            },
          },
        ],
      },
    },
  })
  const own = await graphql(alice, '{ listCollection { edges { node { title } } } }')
  assert.deepEqual(
    own.body.data.listCollection.edges.map((e) => e.node.title),
    ['Groceries', 'Presents'],
  )
})

test('a filtered connection, ordered and paginated with cursors', async () => {
  const query = `query Open($after: Cursor) {
    todoCollection(filter: {done: {eq: false}, due: {is: NOT_NULL}}, orderBy: [{due: AscNullsLast}], first: 2, after: $after) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage endCursor }
      edges { node { task due list { title } } }
    }
  }`
  const first = await graphql(alice, query)
  assert.equal(first.status, 200)
  const page = first.body.data.todoCollection
  assert.equal(page.totalCount, 3)
  assert.deepEqual(
    page.edges.map((e) => [e.node.task, e.node.due, e.node.list.title]),
    [
      ['tulips', '2024-05-02', 'Groceries'],
      ['oranges', '2024-05-03', 'Groceries'],
    ],
  )
  assert.deepEqual([page.pageInfo.hasNextPage, page.pageInfo.hasPreviousPage], [true, false])
  const next = (await graphql(alice, query, { after: page.pageInfo.endCursor })).body.data
    .todoCollection
  assert.deepEqual(
    next.edges.map((e) => e.node.task),
    ['a scarf for Bob'],
  )
  assert.deepEqual([next.pageInfo.hasNextPage, next.pageInfo.hasPreviousPage], [false, true])
  // The same connection for anon: the private list's to-do is not there.
  const anonPage = (await graphql(null, query)).body.data.todoCollection
  assert.equal(anonPage.totalCount, 2)
})

test('mutations under row level security', async () => {
  const add = `mutation Add($list: BigInt!, $task: String!) {
    insertIntoTodoCollection(objects: [{listId: $list, task: $task}]) { affectedCount records { task done owner list { title } } }
  }`
  const mine = await graphql(alice, add, { list: '1', task: 'milk' })
  assert.equal(mine.status, 200)
  assert.deepEqual(mine.body, {
    data: {
      insertIntoTodoCollection: {
        affectedCount: 1,
        records: [
          {
            task: 'milk',
            done: false,
            owner: 'a11ce000-0000-4000-8000-000000000001',
            list: { title: 'Groceries' },
          },
        ],
      },
    },
  })

  // Bob, signed up through supabase-js, reads the shared list but may not write to it.
  const bob = client(gw)
  const { error } = await bob.auth.signUp({ email: uniqueEmail('bob'), password: 'bob-password-2' })
  assert.equal(error, null)
  const refused = await graphql(bob, add, { list: '1', task: 'beer' })
  assert.equal(refused.status, 200)
  assert.deepEqual(refused.body, {
    data: null,
    errors: [{ message: 'new row violates row-level security policy for table "todo"' }],
  })
  const done =
    'mutation { updateTodoCollection(set: {done: true}, filter: {task: {eq: "milk"}}) { affectedCount records { task done } } }'
  assert.deepEqual((await graphql(bob, done)).body, {
    data: { updateTodoCollection: { affectedCount: 0, records: [] } },
  })
  assert.deepEqual((await graphql(alice, done)).body, {
    data: { updateTodoCollection: { affectedCount: 1, records: [{ task: 'milk', done: true }] } },
  })
  // atMost guards a change that reaches more rows than meant, and nothing is changed.
  const all = 'mutation { deleteFromTodoCollection(filter: {listId: {eq: "1"}}) { affectedCount } }'
  assert.deepEqual((await graphql(alice, all)).body, {
    data: null,
    errors: [{ message: 'delete impacts too many records' }],
  })
  const left = await graphql(
    alice,
    '{ todoCollection(filter: {listId: {eq: "1"}}) { totalCount } }',
  )
  assert.equal(left.body.data.todoCollection.totalCount, 5)
  const gone = await graphql(
    alice,
    'mutation { deleteFromTodoCollection(filter: {task: {eq: "milk"}}) { records { task } } }',
  )
  assert.deepEqual(gone.body, {
    data: { deleteFromTodoCollection: { records: [{ task: 'milk' }] } },
  })
})

test("supabase-js's rpc on graphql_public is the same call", async () => {
  const { data, error } = await alice.schema('graphql_public').rpc('graphql', {
    query:
      'query Titles($shared: Boolean) { listCollection(filter: {shared: {eq: $shared}}) { edges { node { title } } } }',
    variables: { shared: false },
  })
  assert.equal(error, null)
  assert.deepEqual(data, { data: { listCollection: { edges: [{ node: { title: 'Presents' } }] } } })
})

test("errors in GraphQL's shape, with status 200", async () => {
  const unknown = await graphql(alice, '{ nope { id } }')
  assert.equal(unknown.status, 200)
  assert.deepEqual(unknown.body, {
    data: null,
    errors: [{ message: 'Unknown field "nope" on type Query' }],
  })
  const broken = await graphql(alice, '{ listCollection {')
  assert.equal(broken.status, 200)
  assert.equal(broken.body.data, undefined)
  assert.equal(broken.body.errors.length, 1)
  // Without a key or token, a request is anon's (as PostgREST and the CLI's gateway take it).
  const keyless = await fetch(`${gw.url}/graphql/v1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ listCollection { edges { node { title } } } }' }),
  })
  assert.equal(keyless.status, 200)
  assert.deepEqual(await keyless.json(), {
    data: { listCollection: { edges: [{ node: { title: 'Groceries' } }] } },
  })
})
