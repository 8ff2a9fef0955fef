// A second app, nothing like the shop, started from its own project folder
// (tests/fixtures/notes/supabase): supabase-js against per-user RLS, a trigger on auth.users,
// a private bucket with per-user folders and objects seeded from objects_path, functions, and
// the project's password rules.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startGateway, repoRoot } from '../support/gateway.mjs'
import { client, signedIn, uniqueEmail } from './helpers.mjs'

const ALICE = { email: 'alice@example.com', password: 'alice-password-1' }
let gw
before(async () => {
  gw = await startGateway({ workdir: join(repoRoot, 'tests/fixtures/notes') })
})
after(async () => gw?.stop())

test('the seeded user signs in and sees only her notes; anon sees none', async () => {
  const { data: anonNotes, error } = await client(gw).from('notes').select('*')
  assert.equal(error, null)
  assert.deepEqual(anonNotes, [])
  const alice = await signedIn(gw, ALICE.email, ALICE.password)
  const { data } = await alice.from('notes').select('title, pinned')
  assert.deepEqual(data, [{ title: 'Groceries', pinned: true }])
  const { data: count } = await alice.rpc('note_count')
  assert.equal(count, 1)
})

test("the project's password rules and a profile made by a trigger on sign-up", async () => {
  const email = uniqueEmail('bob')
  const weak = await client(gw).auth.signUp({ email, password: 'onlyletters' })
  assert.equal(weak.error?.code, 'weak_password')
  assert.deepEqual(weak.error?.reasons, ['characters'])
  const short = await client(gw).auth.signUp({ email, password: 'abc1' })
  assert.equal(short.error?.code, 'weak_password')
  const bob = client(gw)
  const { data, error } = await bob.auth.signUp({
    email,
    password: 'letters-and-1',
    options: { data: { display_name: 'Bob' } },
  })
  assert.equal(error, null)
  const { data: profile } = await bob.from('profiles').select('id, display_name').single()
  assert.deepEqual(profile, { id: data.user.id, display_name: 'Bob' })
})

test('notes are private to their owner', async () => {
  const email = uniqueEmail('carol')
  const carol = client(gw)
  const { data: signUp } = await carol.auth.signUp({ email, password: 'carol-password-2' })
  const { data: note, error } = await carol
    .from('notes')
    .insert({ title: 'Secret plan' })
    .select()
    .single()
  assert.equal(error, null)
  assert.equal(note.owner, signUp.user.id)
  const alice = await signedIn(gw, ALICE.email, ALICE.password)
  const { data: seen } = await alice.from('notes').select('title').eq('id', note.id)
  assert.deepEqual(seen, [])
  const { data: changed } = await alice
    .from('notes')
    .update({ title: 'mine now' })
    .eq('id', note.id)
    .select()
  assert.deepEqual(changed, [])
  const forged = await alice.from('notes').insert({ title: 'as carol', owner: signUp.user.id })
  assert.equal(forged.error?.code, '42501')
  const { data: found } = await carol.rpc('search_notes', { q: 'secret' })
  assert.deepEqual(
    found.map((n) => n.title),
    ['Secret plan'],
  )
})

test('attachments: a private bucket with a folder per user, limits from config.toml', async () => {
  const email = uniqueEmail('dave')
  const dave = client(gw)
  const { data: signUp } = await dave.auth.signUp({ email, password: 'dave-password-3' })
  const mine = `${signUp.user.id}/todo.txt`
  const up = await dave.storage
    .from('attachments')
    .upload(mine, new Blob(['buy stems'], { type: 'text/plain' }))
  assert.equal(up.error, null)
  const down = await dave.storage.from('attachments').download(mine)
  assert.equal(await down.data.text(), 'buy stems')
  const elsewhere = await dave.storage
    .from('attachments')
    .upload('a11ce000-0000-4000-8000-000000000001/x.txt', new Blob(['x'], { type: 'text/plain' }))
  assert.match(elsewhere.error?.message ?? '', /row-level security/)
  const alice = await signedIn(gw, ALICE.email, ALICE.password)
  const peek = await alice.storage.from('attachments').download(mine)
  assert.ok(peek.error, 'alice cannot read dave’s folder')
  const big = await dave.storage
    .from('attachments')
    .upload(
      `${signUp.user.id}/big.txt`,
      new Blob(['x'.repeat(1024 * 1024 + 1)], { type: 'text/plain' }),
    )
  assert.match(big.error?.message ?? '', /maximum allowed size/)
  const pdf = await dave.storage
    .from('attachments')
    .upload(`${signUp.user.id}/a.pdf`, new Blob(['%PDF-1.4'], { type: 'application/pdf' }))
  assert.match(pdf.error?.message ?? '', /mime type/i)
  const anonList = await client(gw).storage.from('attachments').list(signUp.user.id)
  assert.deepEqual(anonList.data ?? [], [])
})

test('objects_path files were uploaded into the bucket', async () => {
  const service = client(gw, gw.serviceKey)
  const { data, error } = await service.storage.from('attachments').download('welcome/readme.txt')
  assert.equal(error, null)
  assert.equal(await data.text(), 'Welcome to your notes.\n')
  const { data: buckets } = await service.storage.listBuckets()
  const b = buckets.find((x) => x.id === 'attachments')
  assert.equal(b.public, false)
  assert.equal(b.file_size_limit, 1024 * 1024)
  assert.deepEqual(b.allowed_mime_types, ['text/plain', 'image/png'])
  // Nothing of the shop exists in this project.
  const shop = await service.from('products').select('id')
  assert.equal(shop.error?.code, 'PGRST205')
})
