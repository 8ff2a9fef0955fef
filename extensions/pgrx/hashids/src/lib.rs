//! Hashids: short, non-sequential ids from numbers and back, with a salt, a minimum length and an
//! alphabet, computed as hashids.c 1.2.1 (the C library pg_hashids 1.3 is built on) does, so that
//! ids made by a Supabase database decode here and the other way round. That is the Hashids
//! algorithm of hashids.org with these traits of the C library: the salt's bytes count as C's
//! (signed) `char`s, numbers are unsigned 64-bit (a negative bigint is its two's complement),
//! only space and tab count as whitespace in an alphabet, and a hash is decoded without being
//! encoded again to compare (a string of the alphabet's characters always decodes to something).
//! Unlike the C library, an alphabet must be ASCII (its characters are written into ids, which
//! must be text), and a hash with nothing to decode is an error.

use thiserror::Error;

/// The alphabet used when none is given.
pub const DEFAULT_ALPHABET: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890";
/// The characters that separate numbers, when the alphabet has them.
const DEFAULT_SEPARATORS: &[u8] = b"cfhistuCFHISTU";
/// The fewest distinct characters an alphabet may have.
const MIN_ALPHABET_LENGTH: usize = 16;
/// At most this many alphabet characters per separator.
const SEPARATOR_DIVISOR: f32 = 3.5;
/// One guard per this many alphabet characters.
const GUARD_DIVISOR: usize = 12;

/// Why an encoder cannot be made, or a hash decoded (the texts are pg_hashids').
#[derive(Debug, Error, PartialEq, Eq)]
pub enum Error {
    #[error("alphabet is too short")]
    AlphabetTooShort,
    #[error("alphabet contains whitespace characters")]
    AlphabetWhitespace,
    #[error("alphabet contains characters that are not ASCII")]
    AlphabetNotAscii,
    #[error("invalid hash")]
    InvalidHash,
}

/// An encoder and decoder for one salt, minimum length and alphabet.
#[derive(Debug, Clone)]
pub struct Hashids {
    salt: Vec<u8>,
    min_length: usize,
    alphabet: Vec<u8>,
    separators: Vec<u8>,
    guards: Vec<u8>,
}

/// Shuffles `chars` in place, the same way for the same `salt` (nothing for an empty one). Salt
/// bytes count as C's signed `char`, sums wrap as C's `size_t` does.
fn shuffle(chars: &mut [u8], salt: &[u8]) {
    if salt.is_empty() {
        return;
    }
    let mut p: u64 = 0;
    for (step, i) in (1..chars.len()).rev().enumerate() {
        let v = step % salt.len();
        let s = salt[v] as i8 as i64 as u64;
        p = p.wrapping_add(s);
        let j = s.wrapping_add(v as u64).wrapping_add(p) % i as u64;
        chars.swap(i, j as usize);
    }
}

/// One number's step: the alphabet shuffled with the lottery character, the salt, then the
/// alphabet itself, as long as the alphabet.
fn step(alphabet: &mut [u8], lottery: u8, salt: &[u8]) {
    let mut s = Vec::with_capacity(alphabet.len() + salt.len() + 1);
    s.push(lottery);
    s.extend_from_slice(salt);
    s.extend_from_slice(alphabet);
    s.truncate(alphabet.len());
    shuffle(alphabet, &s);
}

impl Hashids {
    /// An encoder: `salt` (any text), `min_length` (the shortest id it makes; decoding only
    /// tells zero from more) and `alphabet` (at least 16 distinct ASCII characters, no space or
    /// tab; repeated characters count once).
    pub fn new(salt: &str, min_length: usize, alphabet: &str) -> Result<Hashids, Error> {
        let mut chars: Vec<u8> = Vec::new();
        for b in alphabet.bytes() {
            if !chars.contains(&b) {
                chars.push(b);
            }
        }
        if chars.len() < MIN_ALPHABET_LENGTH {
            return Err(Error::AlphabetTooShort);
        }
        if chars.contains(&b' ') || chars.contains(&b'\t') {
            return Err(Error::AlphabetWhitespace);
        }
        if !chars.is_ascii() {
            return Err(Error::AlphabetNotAscii);
        }
        let salt = salt.as_bytes().to_vec();
        let mut separators: Vec<u8> = DEFAULT_SEPARATORS
            .iter()
            .copied()
            .filter(|c| chars.contains(c))
            .collect();
        chars.retain(|c| !separators.contains(c));
        shuffle(&mut separators, &salt);
        if separators.is_empty() || chars.len() as f32 / separators.len() as f32 > SEPARATOR_DIVISOR
        {
            let mut wanted = (chars.len() as f32 / SEPARATOR_DIVISOR).ceil() as usize;
            if wanted == 1 {
                wanted = 2;
            }
            if wanted > separators.len() {
                let more = (wanted - separators.len()).min(chars.len());
                separators.extend(chars.drain(..more));
            } else {
                separators.truncate(wanted);
            }
        }
        shuffle(&mut chars, &salt);
        let guard_count = chars.len().div_ceil(GUARD_DIVISOR);
        let guards = if chars.len() < 3 {
            let n = guard_count.min(separators.len());
            separators.drain(..n).collect()
        } else {
            chars.drain(..guard_count).collect()
        };
        Ok(Hashids {
            salt,
            min_length,
            alphabet: chars,
            separators,
            guards,
        })
    }

    /// The id of `numbers` (empty for none).
    pub fn encode(&self, numbers: &[u64]) -> String {
        if numbers.is_empty() {
            return String::new();
        }
        let base = self.alphabet.len() as u64;
        let numbers_hash = numbers
            .iter()
            .enumerate()
            .fold(0u64, |h, (i, n)| h.wrapping_add(n % (i as u64 + 100)));
        let lottery = self.alphabet[(numbers_hash % base) as usize];
        let mut out = vec![lottery];
        let mut alphabet = self.alphabet.clone();
        for (i, &n) in numbers.iter().enumerate() {
            step(&mut alphabet, lottery, &self.salt);
            let start = out.len();
            let mut rest = n;
            loop {
                out.push(alphabet[(rest % base) as usize]);
                rest /= base;
                if rest == 0 {
                    break;
                }
            }
            out[start..].reverse();
            if i + 1 < numbers.len() {
                let first = u64::from(out[start]);
                let n = n % (first + i as u64);
                out.push(self.separators[(n % self.separators.len() as u64) as usize]);
            }
        }
        if out.len() < self.min_length {
            let guards = self.guards.len() as u64;
            let g = (numbers_hash.wrapping_add(u64::from(out[0])) % guards) as usize;
            out.insert(0, self.guards[g]);
            if out.len() < self.min_length {
                let g = (numbers_hash.wrapping_add(u64::from(out[2])) % guards) as usize;
                out.push(self.guards[g]);
                let len = alphabet.len();
                let (half_ceil, half_floor) = (len.div_ceil(2), len / 2);
                while out.len() < self.min_length {
                    let salt = alphabet.clone();
                    shuffle(&mut alphabet, &salt);
                    let excess = self.min_length - out.len();
                    let mut left = excess.div_ceil(2).min(half_ceil);
                    let mut right = (excess / 2).min(half_floor);
                    if (left + right) % 2 == 0 && len % 2 == 1 {
                        left += 1;
                        right = right.saturating_sub(1);
                    }
                    let mut padded = Vec::with_capacity(out.len() + left + right);
                    padded.extend_from_slice(&alphabet[len - left..]);
                    padded.extend_from_slice(&out);
                    padded.extend_from_slice(&alphabet[..right]);
                    out = padded;
                }
            }
        }
        // Every byte is one of the alphabet's, which is ASCII.
        out.into_iter().map(char::from).collect()
    }

    /// Where the numbers of `hash` start: after its first guard when ids are padded.
    fn body<'a>(&self, hash: &'a [u8]) -> &'a [u8] {
        if self.min_length > 0
            && let Some(at) = hash.iter().position(|c| self.guards.contains(c))
        {
            return &hash[at + 1..];
        }
        hash
    }

    /// How many numbers `hash` holds (pg_hashids sizes its answer by this): one more than the
    /// separators before the next guard, whose other characters must be of the alphabet.
    pub fn count(&self, hash: &str) -> Result<usize, Error> {
        let mut n = 0;
        for c in self.body(hash.as_bytes()) {
            if self.guards.contains(c) {
                break;
            }
            if self.separators.contains(c) {
                n += 1;
            } else if !self.alphabet.contains(c) {
                return Err(Error::InvalidHash);
            }
        }
        Ok(n + 1)
    }

    /// At most `max` of the numbers of `hash`.
    fn decode_up_to(&self, hash: &str, max: usize) -> Result<Vec<u64>, Error> {
        let body = self.body(hash.as_bytes());
        let (&lottery, rest) = body.split_first().ok_or(Error::InvalidHash)?;
        let base = self.alphabet.len() as u64;
        let mut alphabet = self.alphabet.clone();
        step(&mut alphabet, lottery, &self.salt);
        let mut numbers = Vec::new();
        let mut number: u64 = 0;
        for c in rest {
            if self.guards.contains(c) {
                break;
            }
            if self.separators.contains(c) {
                numbers.push(number);
                if numbers.len() >= max {
                    return Ok(numbers);
                }
                number = 0;
                step(&mut alphabet, lottery, &self.salt);
                continue;
            }
            let at = alphabet
                .iter()
                .position(|a| a == c)
                .ok_or(Error::InvalidHash)?;
            number = number.wrapping_mul(base).wrapping_add(at as u64);
        }
        numbers.push(number);
        Ok(numbers)
    }

    /// The numbers of `hash`, as many as [`Hashids::count`] says (zeros where it holds fewer).
    pub fn decode(&self, hash: &str) -> Result<Vec<u64>, Error> {
        let count = self.count(hash)?;
        let mut numbers = self.decode_up_to(hash, count)?;
        numbers.resize(count, 0);
        Ok(numbers)
    }

    /// The first number of `hash`.
    pub fn decode_once(&self, hash: &str) -> Result<u64, Error> {
        self.count(hash)?;
        Ok(self.decode_up_to(hash, 1)?.first().copied().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (salt, min_length, alphabet, numbers, id): pg_hashids 1.3's regression tests, and
    /// hashids.org's published examples.
    const CASES: &[(&str, usize, &str, &[u64], &str)] = &[
        ("", 0, DEFAULT_ALPHABET, &[1001], "jNl"),
        ("This is my salt", 0, DEFAULT_ALPHABET, &[1234567], "Pdzxp"),
        (
            "This is my salt",
            10,
            DEFAULT_ALPHABET,
            &[1234567],
            "PlRPdzxpR7",
        ),
        (
            "This is my salt",
            10,
            "abcdefghijABCDxFGHIJ1234567890",
            &[1234567],
            "3GJ956J9B9",
        ),
        ("", 0, DEFAULT_ALPHABET, &[1, 2, 3], "o2fXhV"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[1, 2, 3], "laHquq"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[12345], "NkK9"),
        ("this is my salt", 8, DEFAULT_ALPHABET, &[1], "gB0NV05e"),
        (
            "this is my salt",
            0,
            "0123456789abcdef",
            &[1234567],
            "b332db5",
        ),
        (
            "this is my salt",
            0,
            DEFAULT_ALPHABET,
            &[5, 5, 5, 5],
            "1Wc8cwcE",
        ),
        (
            "this is my salt",
            0,
            DEFAULT_ALPHABET,
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            "kRHnurhptKcjIDTWC3sx",
        ),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[1], "NV"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[2], "6m"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[3], "yD"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[4], "2l"),
        ("this is my salt", 0, DEFAULT_ALPHABET, &[5], "rD"),
    ];

    #[test]
    fn ids_are_those_of_pg_hashids_and_hashids_org() {
        for &(salt, min, alphabet, numbers, id) in CASES {
            let h = Hashids::new(salt, min, alphabet).unwrap();
            assert_eq!(
                h.encode(numbers),
                id,
                "{salt:?} {min} {alphabet} {numbers:?}"
            );
            assert_eq!(h.decode(id).unwrap(), numbers, "{id}");
            assert_eq!(h.decode_once(id).unwrap(), numbers[0], "{id}");
        }
    }

    #[test]
    fn every_length_and_number_round_trips() {
        for min in [0, 1, 5, 20, 63, 64, 100] {
            for alphabet in [DEFAULT_ALPHABET, "0123456789abcdef", "cfhistuCFHISTUab"] {
                let h = Hashids::new("pepper", min, alphabet).unwrap();
                for numbers in [
                    &[0][..],
                    &[u64::MAX],
                    &[1, 2, 3],
                    &[u64::MAX, 0, 42, 7_000_000_000],
                ] {
                    let id = h.encode(numbers);
                    assert!(id.len() >= min, "{id} shorter than {min}");
                    assert_eq!(h.decode(&id).unwrap(), numbers, "{id} {alphabet} {min}");
                }
            }
        }
    }

    #[test]
    fn bad_alphabets_and_hashes_are_errors() {
        let e = |a: &str| Hashids::new("", 0, a).unwrap_err();
        assert_eq!(e("abcdefghijklmno"), Error::AlphabetTooShort);
        assert_eq!(e("aabbccddeeffgghhiijjkkllmmnnoo"), Error::AlphabetTooShort);
        assert_eq!(e("abcdefghijklmnop "), Error::AlphabetWhitespace);
        assert_eq!(e("abcdefghijklmnop\t"), Error::AlphabetWhitespace);
        assert_eq!(e("abcdefghijklmnopé"), Error::AlphabetNotAscii);
        let h = Hashids::new("", 0, DEFAULT_ALPHABET).unwrap();
        assert_eq!(h.decode("jN!"), Err(Error::InvalidHash));
        assert_eq!(h.decode(""), Err(Error::InvalidHash));
        assert_eq!(h.encode(&[]), "");
    }

    #[test]
    fn a_salt_beyond_ascii_counts_its_bytes_as_signed_chars() {
        // 0xC3 is -61 as C's char: the sums wrap below zero (unsigned, it would give "cdba").
        let mut chars = *b"abcd";
        shuffle(&mut chars, &[0xC3]);
        assert_eq!(&chars, b"dabc");
        let h = Hashids::new("sél", 0, DEFAULT_ALPHABET).unwrap();
        assert_eq!(h.decode(&h.encode(&[123])).unwrap(), [123]);
    }
}
