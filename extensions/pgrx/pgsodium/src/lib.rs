//! supagate's pgsodium 3.1: michelp/pgsodium's functions (`pgsodium--3.1.8.sql` beside this
//! crate) over `pgsodium_core`, which computes libsodium's constructions byte for byte. Each
//! function checks its arguments as pgsodium's C does and fails with its words
//! (`<C function>: <what>`, SQLSTATE 22000).
//!
//! Key ids: `derive_key(id, size, context)` and the `*_by_id` functions derive keys from the
//! server's root key with `crypto_kdf_derive_from_key`, as pgsodium does with the key its
//! `pgsodium_getkey` script gives. supagate's root key is the one its Vault uses, kept outside
//! the database in the cluster's data directory (`supagate_vault.key`, 64 hex digits, or
//! `SUPAGATE_VAULT_KEY`): the same 32 bytes pgsodium reads, so a project's root key from
//! elsewhere derives the same keys here. Without that file (a server supagate did not make),
//! key ids fail as pgsodium does without a root key.
//!
//! `unsafe` here is PostgreSQL's C interface: the key pair functions build their composite
//! results with `heap_form_tuple`, and the data directory is read from `DataDir`.

use pgrx::PgSqlErrorCode;
use pgrx::prelude::*;
use pgsodium_core as sodium;
use std::cell::OnceCell;

pg_module_magic!();

/// pgsodium's `ERRORIF`: `<function>: <what>`, as a data exception.
fn fail(func: &str, what: &str) -> ! {
    ereport!(
        ERROR,
        PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
        format!("{func}: {what}")
    );
}

/// A required argument: `<name> cannot be NULL` when it is.
fn need<T>(func: &str, v: Option<T>, name: &str) -> T {
    v.unwrap_or_else(|| fail(func, &format!("{name} cannot be NULL")))
}

/// An argument of exactly `N` bytes, else `what` ("invalid key", "invalid nonce"…).
fn sized<const N: usize>(func: &str, v: &[u8], what: &str) -> [u8; N] {
    v.try_into().unwrap_or_else(|_| fail(func, what))
}

thread_local! {
    /// The server's root key, read once per session.
    static ROOT: OnceCell<Option<[u8; 32]>> = const { OnceCell::new() };
}

/// The root key from the data directory (`supagate_vault.key`: 64 hex digits).
fn root_key() -> Option<[u8; 32]> {
    ROOT.with(|r| {
        *r.get_or_init(|| {
            // SAFETY: DataDir is set by the postmaster before any backend runs SQL.
            let dir = unsafe {
                if pg_sys::DataDir.is_null() {
                    return None;
                }
                std::ffi::CStr::from_ptr(pg_sys::DataDir)
                    .to_string_lossy()
                    .into_owned()
            };
            let text =
                std::fs::read_to_string(std::path::Path::new(&dir).join("supagate_vault.key"))
                    .ok()?;
            let text = text.trim();
            if text.len() != 64 {
                return None;
            }
            let mut key = [0u8; 32];
            for (i, k) in key.iter_mut().enumerate() {
                *k = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
            }
            Some(key)
        })
    })
}

/// pgsodium's `pgsodium_derive_helper`: the key `id` of `size` bytes in an 8-byte context.
fn derived(id: i64, size: i64, context: &[u8]) -> Vec<u8> {
    const F: &str = "pgsodium_derive_helper";
    let Some(root) = root_key() else {
        fail(F, "pgsodium_derive: no server secret key defined.")
    };
    if !(sodium::KDF_BYTES_MIN as i64..=sodium::KDF_BYTES_MAX as i64).contains(&size) {
        fail(F, "crypto_kdf_derive_from_key: invalid key size requested");
    }
    if context.len() != sodium::KDF_CONTEXTBYTES {
        fail(F, "crypto_kdf_derive_from_key: context must be 8 bytes");
    }
    sodium::kdf_derive(size as usize, id as u64, context, &root)
        .expect("a size and context in range")
}

fn derived32(id: i64, context: &[u8]) -> [u8; 32] {
    derived(id, 32, context)
        .try_into()
        .expect("a 32-byte derived key")
}

/// `randombytes_buf` for a size given as PostgreSQL's `integer` (read unsigned, as pgsodium),
/// bounded by what a bytea can hold.
fn random_of_size(func: &str, size: i32) -> Vec<u8> {
    let size = size as u32 as usize;
    if size > 0x3fff_fffb {
        fail(func, "invalid buffer size (a bytea holds at most 1 GB)");
    }
    sodium::random_bytes(size)
}

// Random data.

#[pg_extern(volatile)]
fn pgsodium_randombytes_random() -> i32 {
    sodium::random_u32() as i32
}

#[pg_extern(volatile)]
fn pgsodium_randombytes_uniform(upper_bound: Option<i32>) -> i32 {
    let upper = need("pgsodium_randombytes_uniform", upper_bound, "upper bound");
    sodium::random_uniform(upper as u32) as i32
}

#[pg_extern(volatile)]
fn pgsodium_randombytes_buf(size: Option<i32>) -> Vec<u8> {
    const F: &str = "pgsodium_randombytes_buf";
    random_of_size(F, need(F, size, "buffer size"))
}

#[pg_extern(volatile)]
fn pgsodium_randombytes_new_seed() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(immutable)]
fn pgsodium_randombytes_buf_deterministic(size: Option<i32>, seed: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_randombytes_buf_deterministic";
    let size = need(F, size, "buffer size") as u32 as usize;
    let seed: [u8; 32] = sized(F, need(F, seed, "seed"), "invalid seed");
    if size > 0x3fff_fffb {
        fail(F, "invalid buffer size (a bytea holds at most 1 GB)");
    }
    sodium::random_deterministic(size, &seed)
}

// Keys and nonces.

#[pg_extern(volatile)]
fn pgsodium_crypto_secretbox_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_secretbox_noncegen() -> Vec<u8> {
    sodium::random_bytes(sodium::SECRETBOX_NONCEBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_box_noncegen() -> Vec<u8> {
    sodium::random_bytes(sodium::BOX_NONCEBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_box_new_seed() -> Vec<u8> {
    sodium::random_bytes(sodium::BOX_SEEDBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_sign_new_seed() -> Vec<u8> {
    sodium::random_bytes(sodium::SIGN_SEEDBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_aead_det_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_aead_det_noncegen() -> Vec<u8> {
    sodium::random_bytes(sodium::DET_NONCEBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_aead_ietf_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_aead_ietf_noncegen() -> Vec<u8> {
    sodium::random_bytes(sodium::AEAD_IETF_NONCEBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_generichash_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_shorthash_keygen() -> Vec<u8> {
    sodium::random_bytes(sodium::SHORTHASH_KEYBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_kdf_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_pwhash_saltgen() -> Vec<u8> {
    sodium::random_bytes(sodium::PWHASH_SALTBYTES)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_auth_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_auth_hmacsha256_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_auth_hmacsha512_keygen() -> Vec<u8> {
    sodium::random_bytes(32)
}

// Secret-key encryption.

#[pg_extern(immutable)]
fn pgsodium_crypto_secretbox(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_secretbox";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key = need(F, key, "key");
    let nonce: [u8; 24] = sized(F, nonce, "invalid nonce");
    let key: [u8; 32] = sized(F, key, "invalid key");
    sodium::secretbox(message, &nonce, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_secretbox_by_id(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_secretbox_by_id";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    let nonce: [u8; 24] = sized(F, nonce, "invalid nonce");
    sodium::secretbox(message, &nonce, &key)
}

fn secretbox_open(func: &str, message: &[u8], nonce: &[u8], key: &[u8; 32]) -> Vec<u8> {
    if message.len() <= sodium::SECRETBOX_MACBYTES {
        fail(func, "invalid message");
    }
    let nonce: [u8; 24] = sized(func, nonce, "invalid nonce");
    sodium::secretbox_open(message, &nonce, key).unwrap_or_else(|| fail(func, "invalid message"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_secretbox_open(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_secretbox_open";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key = need(F, key, "key");
    if message.len() <= sodium::SECRETBOX_MACBYTES {
        fail(F, "invalid message");
    }
    let _: [u8; 24] = sized(F, nonce, "invalid nonce");
    let key: [u8; 32] = sized(F, key, "invalid key");
    secretbox_open(F, message, nonce, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_secretbox_open_by_id(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_secretbox_open_by_id";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    secretbox_open(F, message, nonce, &key)
}

// Deterministic AEAD (XChaCha20-SIV).

fn det_nonce(func: &str, nonce: Option<&[u8]>) -> Option<[u8; 16]> {
    nonce.map(|n| sized(func, n, "invalid nonce"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_det_encrypt(
    message: Option<&[u8]>,
    additional: Option<&[u8]>,
    key: Option<&[u8]>,
    nonce: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_det_encrypt";
    let message = need(F, message, "message");
    let key = need(F, key, "key");
    let key: [u8; 32] = sized(F, key, "invalid key");
    let nonce = det_nonce(F, nonce);
    sodium::det_encrypt(message, additional.unwrap_or(&[]), nonce.as_ref(), &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_det_encrypt_by_id(
    message: Option<&[u8]>,
    additional: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
    nonce: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_det_encrypt_by_id";
    let message = need(F, message, "message");
    let key_id = need(F, key_id, "key id");
    let context = need(F, context, "key context");
    let nonce = det_nonce(F, nonce);
    let key = derived32(key_id, context);
    sodium::det_encrypt(message, additional.unwrap_or(&[]), nonce.as_ref(), &key)
}

fn det_decrypt(
    func: &str,
    ciphertext: &[u8],
    additional: Option<&[u8]>,
    key: &[u8; 32],
    nonce: Option<[u8; 16]>,
) -> Vec<u8> {
    sodium::det_decrypt(ciphertext, additional.unwrap_or(&[]), nonce.as_ref(), key)
        .unwrap_or_else(|| fail(func, "invalid ciphertext"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_det_decrypt(
    ciphertext: Option<&[u8]>,
    additional: Option<&[u8]>,
    key: Option<&[u8]>,
    nonce: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_det_decrypt";
    let ciphertext = need(F, ciphertext, "ciphertext");
    let key = need(F, key, "key");
    if ciphertext.len() <= sodium::DET_ABYTES {
        fail(F, "invalid message");
    }
    let key: [u8; 32] = sized(F, key, "invalid key");
    let nonce = det_nonce(F, nonce);
    det_decrypt(F, ciphertext, additional, &key, nonce)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_det_decrypt_by_id(
    ciphertext: Option<&[u8]>,
    additional: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
    nonce: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_det_decrypt_by_id";
    let ciphertext = need(F, ciphertext, "message");
    let key_id = need(F, key_id, "key id");
    let context = need(F, context, "key context");
    if ciphertext.len() <= sodium::DET_ABYTES {
        fail(F, "invalid message");
    }
    let nonce = det_nonce(F, nonce);
    let key = derived32(key_id, context);
    det_decrypt(F, ciphertext, additional, &key, nonce)
}

// ChaCha20-Poly1305 (IETF).

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_ietf_encrypt(
    message: Option<&[u8]>,
    additional: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_ietf_encrypt";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key = need(F, key, "key");
    let nonce: [u8; 12] = sized(F, nonce, "invalid nonce");
    let key: [u8; 32] = sized(F, key, "invalid key");
    sodium::aead_ietf_encrypt(message, additional.unwrap_or(&[]), &nonce, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_ietf_encrypt_by_id(
    message: Option<&[u8]>,
    additional: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_ietf_encrypt_by_id";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let key_id = need(F, key_id, "key id");
    let context = need(F, context, "key context");
    let nonce: [u8; 12] = sized(F, nonce, "invalid nonce");
    let key = derived32(key_id, context);
    sodium::aead_ietf_encrypt(message, additional.unwrap_or(&[]), &nonce, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_ietf_decrypt(
    ciphertext: Option<&[u8]>,
    additional: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_ietf_decrypt";
    let ciphertext = need(F, ciphertext, "ciphertext");
    let nonce = need(F, nonce, "nonce");
    let key = need(F, key, "key");
    if ciphertext.len() <= sodium::AEAD_IETF_ABYTES {
        fail(F, "invalid message");
    }
    let nonce: [u8; 12] = sized(F, nonce, "invalid nonce");
    let key: [u8; 32] = sized(F, key, "invalid key");
    sodium::aead_ietf_decrypt(ciphertext, additional.unwrap_or(&[]), &nonce, &key)
        .unwrap_or_else(|| fail(F, "invalid ciphertext"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_aead_ietf_decrypt_by_id(
    ciphertext: Option<&[u8]>,
    additional: Option<&[u8]>,
    nonce: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_aead_ietf_decrypt_by_id";
    let ciphertext = need(F, ciphertext, "ciphertext");
    let nonce = need(F, nonce, "nonce");
    let key_id = need(F, key_id, "key id");
    let context = need(F, context, "key context");
    let key = derived32(key_id, context);
    if ciphertext.len() <= sodium::AEAD_IETF_ABYTES {
        fail(F, "invalid message");
    }
    let nonce: [u8; 12] = sized(F, nonce, "invalid nonce");
    sodium::aead_ietf_decrypt(ciphertext, additional.unwrap_or(&[]), &nonce, &key)
        .unwrap_or_else(|| fail(F, "invalid ciphertext"))
}

// Public-key encryption.

#[pg_extern(immutable)]
fn pgsodium_crypto_box(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    publickey: Option<&[u8]>,
    secretkey: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_box";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let pk = need(F, publickey, "publickey");
    let sk = need(F, secretkey, "secretkey");
    let nonce: [u8; 24] = sized(F, nonce, "invalid nonce");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    let sk: [u8; 32] = sized(F, sk, "invalid secret key");
    sodium::box_seal_to(message, &nonce, &pk, &sk)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_box_open(
    message: Option<&[u8]>,
    nonce: Option<&[u8]>,
    publickey: Option<&[u8]>,
    secretkey: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_box_open";
    let message = need(F, message, "message");
    let nonce = need(F, nonce, "nonce");
    let pk = need(F, publickey, "publickey");
    let sk = need(F, secretkey, "secretkey");
    let nonce: [u8; 24] = sized(F, nonce, "invalid nonce");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    let sk: [u8; 32] = sized(F, sk, "invalid secret key");
    if message.len() <= sodium::BOX_MACBYTES {
        fail(F, "invalid message");
    }
    sodium::box_open(message, &nonce, &pk, &sk).unwrap_or_else(|| fail(F, "invalid message"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_box_seal(message: Option<&[u8]>, public_key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_box_seal";
    let message = need(F, message, "message");
    let pk = need(F, public_key, "publickey");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    sodium::sealed_box(message, &pk)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_box_seal_open(
    ciphertext: Option<&[u8]>,
    public_key: Option<&[u8]>,
    secret_key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_box_seal_open";
    let ciphertext = need(F, ciphertext, "ciphertext");
    let pk = need(F, public_key, "public_key");
    let sk = need(F, secret_key, "secret_key");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    let sk: [u8; 32] = sized(F, sk, "invalid secret key");
    if ciphertext.len() <= sodium::BOX_SEALBYTES {
        fail(F, "invalid message");
    }
    // libsodium derives the nonce from the public key it is given: one that is not the secret
    // key's opens nothing.
    match sodium::sealed_box_open(ciphertext, &sk) {
        Some(m) if sodium::box_public(&sk) == pk => m,
        _ => fail(F, "invalid message"),
    }
}

/// A key pair as a `(public, secret)` composite of the function's declared result type.
///
/// # Safety
/// `fcinfo` is the call's, and the function is declared to return a two-`bytea` composite.
unsafe fn keypair(fcinfo: pg_sys::FunctionCallInfo, public: &[u8], secret: &[u8]) -> pg_sys::Datum {
    unsafe {
        let mut desc: pg_sys::TupleDesc = std::ptr::null_mut();
        if pg_sys::get_call_result_type(fcinfo, std::ptr::null_mut(), &mut desc)
            != pg_sys::TypeFuncClass::TYPEFUNC_COMPOSITE
        {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                "function returning record called in context that cannot accept type record"
            );
        }
        let desc = pg_sys::BlessTupleDesc(desc);
        let bytea = |b: &[u8]| pgrx::IntoDatum::into_datum(b).expect("a bytea datum");
        let mut values = [bytea(public), bytea(secret)];
        let mut nulls = [false, false];
        let t = pg_sys::heap_form_tuple(desc, values.as_mut_ptr(), nulls.as_mut_ptr());
        pg_sys::HeapTupleHeaderGetDatum((*t).t_data)
    }
}

/// The argument `i` of a call as bytes (None for NULL).
///
/// # Safety
/// `fcinfo` is the call's and argument `i` a bytea.
unsafe fn bytea_arg<'a>(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> Option<&'a [u8]> {
    unsafe {
        let arg = (*fcinfo).args.as_slice((*fcinfo).nargs as usize)[i];
        if arg.isnull {
            return None;
        }
        <&[u8] as pgrx::FromDatum>::from_datum(arg.value, false)
    }
}

const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_pgsodium_crypto_box_keypair() -> &'static pg_sys::Pg_finfo_record {
    &V1
}

/// `crypto_box_new_keypair()`.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface.
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn pgsodium_crypto_box_keypair(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    let (pk, sk) = sodium::box_keypair();
    unsafe { keypair(fcinfo, &pk, &sk) }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_pgsodium_crypto_box_seed_keypair() -> &'static pg_sys::Pg_finfo_record {
    &V1
}

/// `crypto_box_seed_new_keypair(seed bytea)`.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface with one bytea argument.
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn pgsodium_crypto_box_seed_keypair(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    const F: &str = "pgsodium_crypto_box_seed_keypair";
    let seed = need(F, unsafe { bytea_arg(fcinfo, 0) }, "seed");
    let seed: [u8; 32] = sized(F, seed, "invalid seed");
    let (pk, sk) = sodium::box_seed_keypair(&seed);
    unsafe { keypair(fcinfo, &pk, &sk) }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_pgsodium_crypto_sign_keypair() -> &'static pg_sys::Pg_finfo_record {
    &V1
}

/// `crypto_sign_new_keypair()`.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface.
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn pgsodium_crypto_sign_keypair(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    let (pk, sk) = sodium::sign_keypair();
    unsafe { keypair(fcinfo, &pk, &sk) }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_pgsodium_crypto_sign_seed_keypair() -> &'static pg_sys::Pg_finfo_record {
    &V1
}

/// `crypto_sign_seed_new_keypair(seed bytea)`.
///
/// # Safety
/// Called by PostgreSQL through the fmgr interface with one bytea argument.
#[pg_guard]
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn pgsodium_crypto_sign_seed_keypair(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    const F: &str = "pgsodium_crypto_sign_seed_keypair";
    let seed = need(F, unsafe { bytea_arg(fcinfo, 0) }, "seed");
    let seed: [u8; 32] = sized(F, seed, "invalid seed");
    let (pk, sk) = sodium::sign_seed_keypair(&seed);
    unsafe { keypair(fcinfo, &pk, &sk) }
}

// Signatures.

fn secret_sign_key(func: &str, key: Option<&[u8]>) -> [u8; 64] {
    let key = need(func, key, "secretkey");
    sized(func, key, "invalid secret key")
}

#[pg_extern(immutable)]
fn pgsodium_crypto_sign(message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_sign";
    let message = need(F, message, "message");
    let sk = secret_sign_key(F, key);
    sodium::sign(message, &sk).unwrap_or_else(|| fail(F, "invalid secret key"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_sign_detached(message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_sign_detached";
    let message = need(F, message, "message");
    let sk = secret_sign_key(F, key);
    sodium::sign_detached(message, &sk)
        .unwrap_or_else(|| fail(F, "invalid secret key"))
        .to_vec()
}

#[pg_extern(immutable)]
fn pgsodium_crypto_sign_open(signed_message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_sign_open";
    let signed = need(F, signed_message, "message");
    let pk = need(F, key, "publickey");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    if signed.len() <= sodium::SIGN_BYTES {
        fail(F, "invalid message");
    }
    sodium::sign_open(signed, &pk).unwrap_or_else(|| fail(F, "invalid message"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_sign_verify_detached(
    sig: Option<&[u8]>,
    message: Option<&[u8]>,
    key: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_sign_verify_detached";
    let sig = need(F, sig, "signature");
    let message = need(F, message, "message");
    let pk = need(F, key, "publickey");
    let pk: [u8; 32] = sized(F, pk, "invalid public key");
    sodium::verify_detached(sig, message, &pk)
}

// Hashing.

#[pg_extern(immutable)]
fn pgsodium_crypto_generichash(message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_generichash";
    let message = need(F, message, "data");
    if let Some(k) = key
        && !(sodium::GENERICHASH_KEYBYTES_MIN..=sodium::GENERICHASH_KEYBYTES_MAX).contains(&k.len())
    {
        fail(F, "invalid key");
    }
    sodium::generichash(message, key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_generichash_by_id(
    message: Option<&[u8]>,
    key: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_generichash_by_id";
    let message = need(F, message, "data");
    let key = key.map(|id| derived(id, 32, need(F, context, "key context")));
    sodium::generichash(message, key.as_deref())
}

#[pg_extern(immutable)]
fn pgsodium_crypto_shorthash(message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_shorthash";
    let message = need(F, message, "data");
    let key = need(F, key, "key");
    let key: [u8; 16] = sized(F, key, "invalid key");
    sodium::shorthash(message, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_shorthash_by_id(
    message: Option<&[u8]>,
    key: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_shorthash_by_id";
    let message = need(F, message, "data");
    let key_id = need(F, key, "key id");
    let context = need(F, context, "key context");
    let key: [u8; 16] = derived(key_id, 16, context)
        .try_into()
        .expect("a 16-byte derived key");
    sodium::shorthash(message, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_hash_sha256(message: Option<&[u8]>) -> Vec<u8> {
    sodium::sha256(need("pgsodium_crypto_hash_sha256", message, "message"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_hash_sha512(message: Option<&[u8]>) -> Vec<u8> {
    sodium::sha512(need("pgsodium_crypto_hash_sha512", message, "message"))
}

// Password hashing.

#[pg_extern(immutable)]
fn pgsodium_crypto_pwhash(password: Option<&[u8]>, salt: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_pwhash";
    let password = need(F, password, "data");
    let salt = need(F, salt, "salt");
    let salt: [u8; 16] = sized(F, salt, "invalid salt");
    sodium::pwhash(password, &salt)
}

#[pg_extern(volatile)]
fn pgsodium_crypto_pwhash_str(password: Option<&[u8]>) -> Vec<u8> {
    sodium::pwhash_str(need("pgsodium_crypto_pwhash_str", password, "password"))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_pwhash_str_verify(
    hashed_password: Option<&[u8]>,
    password: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_pwhash_str_verify";
    let hashed = need(F, hashed_password, "hashed password");
    let password = need(F, password, "password");
    sodium::pwhash_str_verify(hashed, password)
}

// Key derivation.

#[pg_extern(immutable)]
fn pgsodium_crypto_kdf_derive_from_key(
    subkey_size: Option<i64>,
    subkey_id: Option<i64>,
    context: Option<&[u8]>,
    primary_key: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_kdf_derive_from_key";
    let size = need(F, subkey_size, "subkey size");
    let id = need(F, subkey_id, "subkey id");
    let context = need(F, context, "subkey context");
    let key = need(F, primary_key, "primary key");
    let key: [u8; 32] = sized(F, key, "invalid derivation key");
    if !(sodium::KDF_BYTES_MIN as i64..=sodium::KDF_BYTES_MAX as i64).contains(&size) {
        fail(F, "invalid key size requested");
    }
    if context.len() != sodium::KDF_CONTEXTBYTES {
        fail(F, "context must be 8 bytes");
    }
    sodium::kdf_derive(size as usize, id as u64, context, &key).expect("checked sizes")
}

#[pg_extern(volatile)]
fn pgsodium_derive(key_id: Option<i64>, key_len: Option<i32>, context: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_derive";
    let id = need(F, key_id, "key id");
    let len = need(F, key_len, "key size");
    let context = need(F, context, "key context");
    derived(id, i64::from(len as u32), context)
}

// Message authentication.

fn mac_key(func: &str, key: Option<&[u8]>) -> [u8; 32] {
    sized(func, need(func, key, "key"), "invalid key")
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth(message: Option<&[u8]>, key: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth";
    let message = need(F, message, "message");
    sodium::auth(message, &mac_key(F, key))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_by_id(
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth_by_id";
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    sodium::auth(message, &key)
}

fn verify_mac(
    func: &str,
    mac: &[u8],
    expected_len: usize,
    what: &str,
    computed: impl FnOnce() -> Vec<u8>,
) -> bool {
    if mac.len() != expected_len {
        fail(func, what);
    }
    sodium::mac_eq(mac, &computed())
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_verify(
    mac: Option<&[u8]>,
    message: Option<&[u8]>,
    key: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_verify";
    let mac = need(F, mac, "signature");
    let message = need(F, message, "message");
    let key_arg = need(F, key, "key");
    if mac.len() != 32 {
        fail(F, "invalid mac");
    }
    let key: [u8; 32] = sized(F, key_arg, "invalid key");
    verify_mac(F, mac, 32, "invalid mac", || sodium::auth(message, &key))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_verify_by_id(
    mac: Option<&[u8]>,
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_verify_by_id";
    let mac = need(F, mac, "signature");
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    verify_mac(F, mac, 32, "invalid mac", || sodium::auth(message, &key))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha256(message: Option<&[u8]>, secret: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth_hmacsha256";
    let message = need(F, message, "message");
    sodium::hmac_sha256(message, &mac_key(F, secret))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha256_by_id(
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth_hmacsha256_by_id";
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    sodium::hmac_sha256(message, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha256_verify(
    hash: Option<&[u8]>,
    message: Option<&[u8]>,
    secret: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_hmacsha256_verify";
    let hash = need(F, hash, "hash");
    let message = need(F, message, "message");
    let key_arg = need(F, secret, "key");
    if hash.len() != 32 {
        fail(F, "invalid hash");
    }
    let key: [u8; 32] = sized(F, key_arg, "invalid key");
    verify_mac(F, hash, 32, "invalid hash", || {
        sodium::hmac_sha256(message, &key)
    })
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha256_verify_by_id(
    hash: Option<&[u8]>,
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_hmacsha256_verify_by_id";
    let hash = need(F, hash, "hash");
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    verify_mac(F, hash, 32, "invalid hash", || {
        sodium::hmac_sha256(message, &key)
    })
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha512(message: Option<&[u8]>, secret: Option<&[u8]>) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth_hmacsha512";
    let message = need(F, message, "message");
    sodium::hmac_sha512(message, &mac_key(F, secret))
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha512_by_id(
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> Vec<u8> {
    const F: &str = "pgsodium_crypto_auth_hmacsha512_by_id";
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    sodium::hmac_sha512(message, &key)
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha512_verify(
    hash: Option<&[u8]>,
    message: Option<&[u8]>,
    secret: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_hmacsha512_verify";
    let hash = need(F, hash, "hash");
    let message = need(F, message, "message");
    let key_arg = need(F, secret, "key");
    if hash.len() != sodium::HMACSHA512_BYTES {
        fail(F, "invalid hash");
    }
    let key: [u8; 32] = sized(F, key_arg, "invalid key");
    verify_mac(F, hash, sodium::HMACSHA512_BYTES, "invalid hash", || {
        sodium::hmac_sha512(message, &key)
    })
}

#[pg_extern(immutable)]
fn pgsodium_crypto_auth_hmacsha512_verify_by_id(
    hash: Option<&[u8]>,
    message: Option<&[u8]>,
    key_id: Option<i64>,
    context: Option<&[u8]>,
) -> bool {
    const F: &str = "pgsodium_crypto_auth_hmacsha512_verify_by_id";
    let hash = need(F, hash, "hash");
    let message = need(F, message, "message");
    let key = derived32(need(F, key_id, "key id"), need(F, context, "key context"));
    verify_mac(F, hash, sodium::HMACSHA512_BYTES, "invalid hash", || {
        sodium::hmac_sha512(message, &key)
    })
}

// Helpers.

#[pg_extern(immutable)]
fn pgsodium_sodium_bin2base64(bin: Option<&[u8]>) -> String {
    sodium::bin2base64(need("pgsodium_sodium_bin2base64", bin, "bin"))
}

#[pg_extern(immutable)]
fn pgsodium_sodium_base642bin(base64: Option<&str>) -> Vec<u8> {
    const F: &str = "pgsodium_sodium_base642bin";
    let text = need(F, base64, "base64");
    sodium::base642bin(text.as_bytes()).unwrap_or_else(|| fail(F, "sodium_base642bin() failed"))
}

#[pg_extern(immutable, strict)]
fn pgsodium_cmp(x: &[u8], y: &[u8]) -> bool {
    sodium::mac_eq(x, y)
}
