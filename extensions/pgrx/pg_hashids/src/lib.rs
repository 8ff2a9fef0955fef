//! supagate's pg_hashids 1.3: short, non-sequential ids from bigints (Hashids) with the SQL
//! surface of iCyberon/pg_hashids (`pg_hashids--1.3.sql` beside this crate: `id_encode`,
//! `id_decode`, `id_decode_once` with an optional salt, minimum length and alphabet, and the
//! 1.0 names `hash_encode` and `hash_decode`), its ids (the `hashids` crate beside this one
//! computes them as the C library pg_hashids is built on does) and its error texts and codes.
//!
//! Upstream's C functions read their optional arguments by count; here each arity is a function
//! of its own, and the install script binds every SQL overload to the right one. Every function
//! is immutable and strict.

use hashids::{DEFAULT_ALPHABET, Hashids};
use pgrx::prelude::*;

pg_module_magic!();

/// The longest minimum length an id may be asked for (ids are padded to it, in memory).
const MAX_MIN_LENGTH: i32 = 1_000_000;

/// Raises an error with this SQLSTATE.
fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ereport!(ERROR, code, message);
}

/// Raises `message` as pg_hashids does: invalid_parameter_value.
fn invalid(message: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        message.to_string(),
    )
}

fn hashids(salt: &str, min_length: usize, alphabet: &str) -> Hashids {
    Hashids::new(salt, min_length, alphabet).unwrap_or_else(|e| invalid(&e.to_string()))
}

/// The encoder for making ids: the minimum length must be from 0 to [`MAX_MIN_LENGTH`].
fn encoder(salt: &str, min_length: i32, alphabet: &str) -> Hashids {
    if !(0..=MAX_MIN_LENGTH).contains(&min_length) {
        invalid(&format!(
            "min_length must be between 0 and {MAX_MIN_LENGTH}, not {min_length}"
        ));
    }
    hashids(salt, min_length as usize, alphabet)
}

/// The decoder: of the minimum length only whether it is zero counts (a padded id is read from
/// its first guard), as upstream.
fn decoder(salt: &str, min_length: i32, alphabet: &str) -> Hashids {
    hashids(salt, usize::from(min_length != 0), alphabet)
}

/// The id of `numbers` (bigints are taken as unsigned, as upstream's C does).
fn encode(h: &Hashids, numbers: &[i64]) -> String {
    let unsigned: Vec<u64> = numbers.iter().map(|&n| n as u64).collect();
    h.encode(&unsigned)
}

fn encode_array(h: &Hashids, numbers: Array<i64>) -> String {
    let numbers: Vec<i64> = numbers
        .iter()
        .map(|n| {
            n.unwrap_or_else(|| {
                raise(
                    PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
                    "null value not allowed for array element".into(),
                )
            })
        })
        .collect();
    encode(h, &numbers)
}

fn decode(h: &Hashids, hash: &str) -> Vec<i64> {
    match h.decode(hash) {
        Ok(numbers) => numbers.into_iter().map(|n| n as i64).collect(),
        Err(e) => invalid(&e.to_string()),
    }
}

fn decode_once(h: &Hashids, hash: &str) -> i64 {
    h.decode_once(hash)
        .unwrap_or_else(|e| invalid(&e.to_string())) as i64
}

#[pg_extern(immutable, strict)]
fn id_encode(number: i64) -> String {
    encode(&encoder("", 0, DEFAULT_ALPHABET), &[number])
}

#[pg_extern(immutable, strict)]
fn id_encode_salt(number: i64, salt: &str) -> String {
    encode(&encoder(salt, 0, DEFAULT_ALPHABET), &[number])
}

#[pg_extern(immutable, strict)]
fn id_encode_salt_min(number: i64, salt: &str, min_length: i32) -> String {
    encode(&encoder(salt, min_length, DEFAULT_ALPHABET), &[number])
}

#[pg_extern(immutable, strict)]
fn id_encode_salt_min_alphabet(number: i64, salt: &str, min_length: i32, alphabet: &str) -> String {
    encode(&encoder(salt, min_length, alphabet), &[number])
}

#[pg_extern(immutable, strict)]
fn id_encode_array(numbers: Array<i64>) -> String {
    encode_array(&encoder("", 0, DEFAULT_ALPHABET), numbers)
}

#[pg_extern(immutable, strict)]
fn id_encode_array_salt(numbers: Array<i64>, salt: &str) -> String {
    encode_array(&encoder(salt, 0, DEFAULT_ALPHABET), numbers)
}

#[pg_extern(immutable, strict)]
fn id_encode_array_salt_min(numbers: Array<i64>, salt: &str, min_length: i32) -> String {
    encode_array(&encoder(salt, min_length, DEFAULT_ALPHABET), numbers)
}

#[pg_extern(immutable, strict)]
fn id_encode_array_salt_min_alphabet(
    numbers: Array<i64>,
    salt: &str,
    min_length: i32,
    alphabet: &str,
) -> String {
    encode_array(&encoder(salt, min_length, alphabet), numbers)
}

#[pg_extern(immutable, strict)]
fn id_decode(hash: &str) -> Vec<i64> {
    decode(&decoder("", 0, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_salt(hash: &str, salt: &str) -> Vec<i64> {
    decode(&decoder(salt, 0, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_salt_min(hash: &str, salt: &str, min_length: i32) -> Vec<i64> {
    decode(&decoder(salt, min_length, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_salt_min_alphabet(
    hash: &str,
    salt: &str,
    min_length: i32,
    alphabet: &str,
) -> Vec<i64> {
    decode(&decoder(salt, min_length, alphabet), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_once(hash: &str) -> i64 {
    decode_once(&decoder("", 0, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_once_salt(hash: &str, salt: &str) -> i64 {
    decode_once(&decoder(salt, 0, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_once_salt_min(hash: &str, salt: &str, min_length: i32) -> i64 {
    decode_once(&decoder(salt, min_length, DEFAULT_ALPHABET), hash)
}

#[pg_extern(immutable, strict)]
fn id_decode_once_salt_min_alphabet(
    hash: &str,
    salt: &str,
    min_length: i32,
    alphabet: &str,
) -> i64 {
    decode_once(&decoder(salt, min_length, alphabet), hash)
}

/// pg_hashids 1.0's `hash_decode(text, text, int) returns int`: the first number, which its C
/// function returned as a bigint the SQL declaration reads as an int (its low 32 bits).
#[pg_extern(immutable, strict)]
fn hash_decode(hash: &str, salt: &str, min_length: i32) -> i32 {
    decode_once(&decoder(salt, min_length, DEFAULT_ALPHABET), hash) as i32
}
