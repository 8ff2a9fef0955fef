//! supagate's pgsodium (3.1, extensions/pgrx/pgsodium) in a served database: libsodium's answers
//! for known inputs (computed by Debian's libsodium 1.0.18; pgsodium's deterministic AEAD
//! composed from libsodium's BLAKE2b and XChaCha20), round trips, key ids derived from the
//! server's root key (the Vault's, in the data directory), the key table with `create_key` and
//! its uuid overloads, pgsodium's error texts, and its roles and grants. Each case is a query and
//! the text of its one value, or the words of the error it raises.

use crate::support;

/// `(query, Ok(the text of its one value) | Err(words of the error message))`.
type Case = (&'static str, Result<&'static str, &'static str>);

async fn check(client: &tokio_postgres::Client, cases: &[Case]) {
    support::sql::check(client, cases).await
}

/// Known answers: key 00..1f (`k`), nonces 00..17 (`n24`), 00..0b (`n12`), 00..0f (`n16`).
const VECTORS: &[Case] = &[
    (
        "create temp table v as select
           decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex') k,
           decode('000102030405060708090a0b0c0d0e0f1011121314151617', 'hex') n24,
           decode('000102030405060708090a0b0c0d0e0f', 'hex') n16,
           decode('000102030405060708090a0b', 'hex') n12,
           'hello world'::bytea m",
        Ok(""),
    ),
    (
        "select encode(crypto_generichash('hello'), 'hex')",
        Ok("324dcf027dd4a30a932c441f365a25e86b173defa4b8e58948253471b81b72cf"),
    ),
    (
        "select encode(crypto_generichash('hello', k), 'hex') from v",
        Ok("bc2cf927f9ed52cc29116e6a5cfdbdf96a7250f85db66887b13652596bf40d61"),
    ),
    (
        "select encode(crypto_kdf_derive_from_key(32, 42, 'pgsodium', k), 'hex') from v",
        Ok("9053c5b5175c7e7987fe49607ccd968c6fc110a8282c2abb16dea94a9ce1edaf"),
    ),
    (
        "select encode(crypto_kdf_derive_from_key(16, 42, 'pgsodium', k), 'hex') from v",
        Ok("a05653fa55fbeab0df9791c1ea49869e"),
    ),
    (
        "select encode(crypto_secretbox(m, n24, k), 'hex') from v",
        Ok("2ce812a07a4654d7d75a2f44f13738e7369a5423a8ead57fc950eb"),
    ),
    (
        "select convert_from(crypto_secretbox_open(decode('2ce812a07a4654d7d75a2f44f13738e7369a5423a8ead57fc950eb', 'hex'), n24, k), 'utf8') from v",
        Ok("hello world"),
    ),
    (
        "select encode((crypto_box_seed_new_keypair(decode(repeat('01', 32), 'hex'))).public, 'hex')",
        Ok("1b1b58dd50ea14b60da17b790cd02754d970c9bab864ebb3c0f3016fe51d3f57"),
    ),
    (
        "select encode(crypto_box(m, n24, (crypto_box_seed_new_keypair(decode(repeat('02', 32), 'hex'))).public,
                                        (crypto_box_seed_new_keypair(decode(repeat('01', 32), 'hex'))).secret), 'hex') from v",
        Ok("8a360defb734f214dd76538a76cfdaa3ab1db1ce3341db8db2cbb7"),
    ),
    (
        "select convert_from(crypto_box_open(decode('8a360defb734f214dd76538a76cfdaa3ab1db1ce3341db8db2cbb7', 'hex'), n24,
                                        (crypto_box_seed_new_keypair(decode(repeat('01', 32), 'hex'))).public,
                                        (crypto_box_seed_new_keypair(decode(repeat('02', 32), 'hex'))).secret), 'utf8') from v",
        Ok("hello world"),
    ),
    (
        "select convert_from(crypto_box_seal_open(decode('badba38f2c32ea8ee94744d017667f0a6b5ef9777e7cdf9e1f707ab1e89a42324608fa4033d831bbacfa992f397a731bd8b22e35fbf0aab95bfc54', 'hex'),
                                        p.public, p.secret), 'utf8')
           from crypto_box_seed_new_keypair(decode(repeat('02', 32), 'hex')) p",
        Ok("hello world"),
    ),
    (
        "select encode(crypto_sign(m, (crypto_sign_seed_new_keypair(decode(repeat('03', 32), 'hex'))).secret), 'hex') from v",
        Ok(
            "807c691981f2edbd9b04b4711a43dbcc2ef697474177b5a0d2486f5783cd927a0be4e814993c1769801d60226678676181eb473f01795349452fb0ede6851f0b68656c6c6f20776f726c64",
        ),
    ),
    (
        "select encode((crypto_sign_seed_new_keypair(decode(repeat('03', 32), 'hex'))).public, 'hex')",
        Ok("ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1"),
    ),
    (
        "select encode(crypto_pwhash('password', n16), 'hex') from v",
        Ok("e66da918819597eff743fd6f8f38ec84083726c03cab1af7d5c5a9147940a209"),
    ),
    (
        "select crypto_pwhash_str_verify('$argon2id$v=19$m=65536,t=2,p=1$F0jeMsIiR8qxPROQ7RQmBQ$iHS6BxxMUGE7pQmKyLPtoqvK1zlYMov5OfBcXGq2QbM', 'password')",
        Ok("t"),
    ),
    (
        "select crypto_pwhash_str_verify('$argon2id$v=19$m=65536,t=2,p=1$F0jeMsIiR8qxPROQ7RQmBQ$iHS6BxxMUGE7pQmKyLPtoqvK1zlYMov5OfBcXGq2QbM', 'passw0rd')",
        Ok("f"),
    ),
    (
        "select encode(crypto_aead_det_encrypt('hello', '', k), 'hex') from v",
        Ok("52d289b60daa735db6f3ea0d97cc14234765716c4fec1354ad4ebbe1541f822e7b95712d02"),
    ),
    (
        "select encode(crypto_aead_det_encrypt(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627', 'hex'), 'ad', k, n16), 'hex') from v",
        Ok(
            "08b2abfd5aaab957d0a4f1ce3c7512e4973013c6619f9ecc485fe9a3ec9eb7ab4f928e06c588eed2a62eac7a6b1e39212745acbb2dcdeacc2a6790f9ce9247409948aa59f10cf539",
        ),
    ),
    (
        "select convert_from(crypto_aead_det_decrypt(decode('52d289b60daa735db6f3ea0d97cc14234765716c4fec1354ad4ebbe1541f822e7b95712d02', 'hex'), NULL, k), 'utf8') from v",
        Ok("hello"),
    ),
    (
        "select encode(crypto_aead_ietf_encrypt(m, 'additional', n12, k), 'hex') from v",
        Ok("e19e646c4637d22fc5ef5b97b22b2dacbae2a0a3933a0cac790c0d"),
    ),
    (
        "select encode(crypto_auth(m, k), 'hex') from v",
        Ok("092397a41ed0912042c6db22500a2317b418844c41186472d4b00d3e5dabdbed"),
    ),
    (
        "select encode(crypto_auth_hmacsha256(m, k), 'hex') from v",
        Ok("411b9a51e8565e1fc79643b2a6c4672f4a3c3e573c33d0995a08748cb6128e8e"),
    ),
    (
        "select crypto_auth_hmacsha512_verify(crypto_auth_hmacsha512(m, k), m, k) from v",
        Ok("t"),
    ),
    (
        "select encode(crypto_shorthash(m, n16), 'hex') from v",
        Ok("0256cd56c95951ed"),
    ),
    (
        "select encode(randombytes_buf_deterministic(40, k), 'hex') from v",
        Ok("0d8e6cc68715648926732e7ea73250cfaf2d58422083904c841a8ba33b986111f346ba50723a68ae"),
    ),
    (
        "select sodium_bin2base64('\\xfbff0068656c6c6f'::bytea)",
        Ok("-_8AaGVsbG8"),
    ),
    (
        "select encode(sodium_base642bin('-_8AaGVsbG8'), 'hex')",
        Ok("fbff0068656c6c6f"),
    ),
];

/// Round trips of what is random, sizes, and pgsodium's refusals in its words.
const ROUND_TRIPS: &[Case] = &[
    (
        "select concat_ws(' ', length(crypto_secretbox_keygen()), length(crypto_secretbox_noncegen()),
           length(crypto_aead_det_keygen()), length(crypto_aead_det_noncegen()), length(crypto_box_noncegen()),
           length(crypto_pwhash_saltgen()), length(crypto_kdf_keygen()), length(crypto_generichash_keygen()),
           length(randombytes_buf(10)), length((crypto_box_new_keypair()).secret), length((crypto_sign_new_keypair()).secret))",
        Ok("32 24 32 16 24 16 32 32 10 32 64"),
    ),
    (
        "select bool_and(randombytes_uniform(10) between 0 and 9) and count(distinct randombytes_uniform(10)) = 10
           from generate_series(1, 500)",
        Ok("t"),
    ),
    (
        "select count(distinct randombytes_random()) from generate_series(1, 50)",
        Ok("50"),
    ),
    (
        "with kp as (select * from crypto_box_new_keypair()), n as (select crypto_box_noncegen() n)
         select convert_from(crypto_box_open(crypto_box('boxed', n, kp.public, kp.secret), n, kp.public, kp.secret), 'utf8') from kp, n",
        Ok("boxed"),
    ),
    (
        "with kp as (select * from crypto_box_new_keypair())
         select convert_from(crypto_box_seal_open(crypto_box_seal('sealed', kp.public), kp.public, kp.secret), 'utf8') from kp",
        Ok("sealed"),
    ),
    (
        "with kp as (select * from crypto_sign_new_keypair())
         select concat_ws(' ', convert_from(crypto_sign_open(crypto_sign('signed', kp.secret), kp.public), 'utf8'),
                crypto_sign_verify_detached(crypto_sign_detached('signed', kp.secret), 'signed', kp.public),
                crypto_sign_verify_detached(crypto_sign_detached('signed', kp.secret), 'signeD', kp.public)) from kp",
        Ok("signed t f"),
    ),
    (
        "with h as (select crypto_pwhash_str('secret') h)
         select concat_ws(' ', length(h), convert_from(substr(h, 1, 32), 'utf8'), crypto_pwhash_str_verify(h, 'secret')) from h",
        Ok("128 $argon2id$v=19$m=262144,t=3,p=1$ t"),
    ),
    (
        "select crypto_secretbox('x', '\\x00', crypto_secretbox_keygen())",
        Err("pgsodium_crypto_secretbox: invalid nonce"),
    ),
    (
        "select crypto_secretbox(NULL, crypto_secretbox_noncegen(), crypto_secretbox_keygen())",
        Err("pgsodium_crypto_secretbox: message cannot be NULL"),
    ),
    (
        "select crypto_secretbox_open('\\x000102030405060708090a0b0c0d0e0f10', crypto_secretbox_noncegen(), crypto_secretbox_keygen())",
        Err("pgsodium_crypto_secretbox_open: invalid message"),
    ),
    (
        "select crypto_aead_det_decrypt(crypto_aead_det_encrypt('m', 'ad', k), 'other', k) from v",
        Err("pgsodium_crypto_aead_det_decrypt: invalid ciphertext"),
    ),
    (
        "select crypto_aead_det_encrypt('m', 'ad', '\\x00'::bytea)",
        Err("pgsodium_crypto_aead_det_encrypt: invalid key"),
    ),
    (
        "select crypto_kdf_derive_from_key(8, 1, 'pgsodium', k) from v",
        Err("pgsodium_crypto_kdf_derive_from_key: invalid key size requested"),
    ),
    (
        "select crypto_kdf_derive_from_key(32, 1, 'short', k) from v",
        Err("pgsodium_crypto_kdf_derive_from_key: context must be 8 bytes"),
    ),
    (
        "select crypto_generichash('x', '\\x00'::bytea)",
        Err("pgsodium_crypto_generichash: invalid key"),
    ),
    (
        "select crypto_sign_open('\\x00', (crypto_sign_new_keypair()).public)",
        Err("pgsodium_crypto_sign_open: invalid message"),
    ),
    (
        "select sodium_base642bin('not base64!')",
        Err("pgsodium_sodium_base642bin: sodium_base642bin() failed"),
    ),
];

/// Key ids derived from the root key, and the key table.
const KEYS: &[Case] = &[
    // derive_key is crypto_kdf_derive_from_key under the root key in the data directory.
    (
        "select derive_key(7) = crypto_kdf_derive_from_key(32, 7, 'pgsodium', decode(trim(pg_read_file('supagate_vault.key')), 'hex'))",
        Ok("t"),
    ),
    (
        "select length(derive_key(7, 64, 'context8'))",
        Ok("64"),
    ),
    (
        "select derive_key(7, 15)",
        Err("pgsodium_derive_helper: crypto_kdf_derive_from_key: invalid key size requested"),
    ),
    (
        "select derive_key(7, 32, 'short')",
        Err("pgsodium_derive_helper: crypto_kdf_derive_from_key: context must be 8 bytes"),
    ),
    (
        "select crypto_aead_det_encrypt('m', 'ad', 7) = crypto_aead_det_encrypt('m', 'ad', derive_key(7))",
        Ok("t"),
    ),
    (
        "select convert_from(crypto_aead_det_decrypt(crypto_aead_det_encrypt('by id', 'ad', 7, 'context8'), 'ad', 7, 'context8'), 'utf8')",
        Ok("by id"),
    ),
    (
        "select convert_from(crypto_secretbox_open(crypto_secretbox('box', n24, 7), n24, 7), 'utf8') from v",
        Ok("box"),
    ),
    (
        "select crypto_generichash('m', 7::bigint) = crypto_generichash('m', derive_key(7))",
        Ok("t"),
    ),
    (
        "select concat_ws(' ', key_type, key_id is not null, encode(key_context, 'escape'), status)
           from create_key(name => 'first')",
        Ok("aead-det t pgsodium valid"),
    ),
    (
        "select (get_key_by_name('first')).key_type",
        Ok("aead-det"),
    ),
    (
        "select crypto_aead_det_encrypt('m', 'ad', k.id) = crypto_aead_det_encrypt('m', 'ad', k.key_id, k.key_context)
           from get_key_by_name('first') k",
        Ok("t"),
    ),
    (
        "select convert_from(crypto_aead_det_decrypt(crypto_aead_det_encrypt('by uuid', 'ad', k.id, n16), 'ad', k.id, n16), 'utf8')
           from get_key_by_name('first') k, v",
        Ok("by uuid"),
    ),
    (
        "select crypto_secretbox('m', crypto_secretbox_noncegen(), (get_key_by_name('first')).id)",
        Err("query returned no rows"),
    ),
    // A raw key: stored encrypted under a new parent key, used as it was given.
    (
        "create temp table raw as select crypto_secretbox_keygen() raw",
        Ok(""),
    ),
    (
        "select (create_key('secretbox', 'raw', raw_key => raw)).key_type from raw",
        Ok("secretbox"),
    ),
    (
        "select concat_ws(' ', d.raw_key <> r.raw, d.decrypted_raw_key = r.raw, d.parent_key is not null, d.key_id is null)
           from decrypted_key d, raw r where d.name = 'raw'",
        Ok("t t t t"),
    ),
    (
        "select crypto_secretbox('m', n24, k.id) = crypto_secretbox('m', n24, r.raw)
           from get_key_by_name('raw') k, raw r, v",
        Ok("t"),
    ),
    (
        "select string_agg(name, ' ' order by name) from get_named_keys('%')",
        Ok("first raw"),
    ),
    ("select pgsodium.version()", Ok("3.1.8")),
];

/// pgsodium's roles and grants, and Supabase's for postgres and service_role.
const PRIVILEGES: &[Case] = &[
    (
        "select string_agg(rolname, ' ' order by rolname) from pg_roles where rolname like 'pgsodium%'",
        Ok("pgsodium_keyholder pgsodium_keyiduser pgsodium_keymaker"),
    ),
    (
        "select pg_has_role('pgsodium_keymaker', 'pgsodium_keyiduser', 'member') and pg_has_role('pgsodium_keyholder', 'pgsodium_keyiduser', 'member')
            and pg_has_role('postgres', 'pgsodium_keymaker', 'member')",
        Ok("t"),
    ),
    ("set role anon", Ok("")),
    (
        "select derive_key(1)",
        Err("permission denied for function derive_key"),
    ),
    (
        "select crypto_aead_det_encrypt('m', 'ad', 1)",
        Err("permission denied for function crypto_aead_det_encrypt"),
    ),
    (
        "select count(*) from pgsodium.key",
        Err("permission denied for table key"),
    ),
    (
        "select length(crypto_sign_detached('m', (crypto_sign_seed_new_keypair(decode(repeat('03', 32), 'hex'))).secret))",
        Ok("64"),
    ),
    ("reset role", Ok("")),
    ("set role service_role", Ok("")),
    (
        "select convert_from(crypto_aead_det_decrypt(crypto_aead_det_encrypt('service', 'ad', k.id, NULL), 'ad', k.id, NULL), 'utf8')
           from (select id from pgsodium.valid_key where name = 'first') k",
        Err("permission denied for view valid_key"),
    ),
    ("reset role", Ok("")),
    (
        "create temp table first_key as select id from valid_key where name = 'first'",
        Ok(""),
    ),
    ("grant select on first_key to service_role", Ok("")),
    ("set role service_role", Ok("")),
    (
        "select convert_from(crypto_aead_det_decrypt(crypto_aead_det_encrypt('service', 'ad', id, NULL), 'ad', id, NULL), 'utf8') from first_key",
        Ok("service"),
    ),
    ("reset role", Ok("")),
];

#[tokio::test]
async fn pgsodium_answers_as_libsodium_and_keeps_keys_outside_the_database() {
    // As `supabase db pull` writes it: the schema must exist already, and does, as in a
    // database of Supabase's PostgreSQL 15 image, which has pgsodium from the start.
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_pgsodium.sql",
        r#"CREATE EXTENSION IF NOT EXISTS "pgsodium" WITH SCHEMA "pgsodium";"#,
    )]);
    let gw = support::start_project(&dir, &[]);
    let db = gw.session_on(&gw.dbname).await;
    db.simple_query("set search_path = pgsodium, public")
        .await
        .unwrap();
    check(&db, VECTORS).await;
    check(&db, ROUND_TRIPS).await;
    check(&db, KEYS).await;
    check(&db, PRIVILEGES).await;
    check(
        &db,
        &[(
            "select extversion || ' ' || extnamespace::regnamespace from pg_extension where extname = 'pgsodium'",
            Ok("3.1.8 pgsodium"),
        )],
    )
    .await;
}
