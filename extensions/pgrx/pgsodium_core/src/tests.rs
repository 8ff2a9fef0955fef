//! Known answers from libsodium 1.0.18 itself (Debian's libsodium23, called through ctypes), and
//! for the deterministic AEAD from pgsodium's construction composed of libsodium's BLAKE2b and
//! XChaCha20: key 00..1f, nonces 00..17 / 00..0b / 00..0f, message "hello world".

use super::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn seq<const N: usize>() -> [u8; N] {
    std::array::from_fn(|i| i as u8)
}

const M: &[u8] = b"hello world";

#[test]
fn hashes_and_derived_keys_are_libsodium_s() {
    let k: [u8; 32] = seq();
    // (what, got, libsodium's)
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "generichash",
            generichash(b"hello", None),
            "324dcf027dd4a30a932c441f365a25e86b173defa4b8e58948253471b81b72cf",
        ),
        (
            "generichash keyed",
            generichash(b"hello", Some(&k)),
            "bc2cf927f9ed52cc29116e6a5cfdbdf96a7250f85db66887b13652596bf40d61",
        ),
        (
            "kdf 16",
            kdf_derive(16, 42, b"pgsodium", &k).unwrap(),
            "a05653fa55fbeab0df9791c1ea49869e",
        ),
        (
            "kdf 32",
            kdf_derive(32, 42, b"pgsodium", &k).unwrap(),
            "9053c5b5175c7e7987fe49607ccd968c6fc110a8282c2abb16dea94a9ce1edaf",
        ),
        (
            "kdf 64",
            kdf_derive(64, 42, b"pgsodium", &k).unwrap(),
            "764b4af43193278e62f1b6f8bc96f53864e7a98fbf315ea8e1b80fdb469fe9412c57aa58c91d3658fac4447397eea52b67326e7b25d9d201890119cfa94c46a1",
        ),
        (
            "auth",
            auth(M, &k),
            "092397a41ed0912042c6db22500a2317b418844c41186472d4b00d3e5dabdbed",
        ),
        (
            "hmacsha256",
            hmac_sha256(M, &k),
            "411b9a51e8565e1fc79643b2a6c4672f4a3c3e573c33d0995a08748cb6128e8e",
        ),
        (
            "hmacsha512",
            hmac_sha512(M, &k),
            "092397a41ed0912042c6db22500a2317b418844c41186472d4b00d3e5dabdbedca7592694d47af298e7162ebbaf87e5dd6da221b46bb059b7b2432fa74717ced",
        ),
        ("shorthash", shorthash(M, &seq()), "0256cd56c95951ed"),
        (
            "deterministic",
            random_deterministic(40, &k),
            "0d8e6cc68715648926732e7ea73250cfaf2d58422083904c841a8ba33b986111f346ba50723a68ae",
        ),
        (
            "pwhash",
            pwhash(b"password", &seq()),
            "e66da918819597eff743fd6f8f38ec84083726c03cab1af7d5c5a9147940a209",
        ),
    ];
    for (what, got, want) in cases {
        assert_eq!(got, hex(want), "{what}");
    }
    assert!(kdf_derive(15, 1, b"pgsodium", &k).is_none());
    assert!(kdf_derive(65, 1, b"pgsodium", &k).is_none());
    assert!(kdf_derive(32, 1, b"pgsodiu", &k).is_none());
    assert_eq!(bin2base64(b"\xfb\xff\x00hello"), "-_8AaGVsbG8");
    assert_eq!(base642bin(b"-_8AaGVsbG8").unwrap(), b"\xfb\xff\x00hello");
    assert!(base642bin(b"-_8AaGVsbG8=").is_none());
}

#[test]
fn boxes_and_aeads_are_libsodium_s_both_ways() {
    let k: [u8; 32] = seq();
    let n24: [u8; 24] = seq();
    let sb = hex("2ce812a07a4654d7d75a2f44f13738e7369a5423a8ead57fc950eb");
    assert_eq!(secretbox(M, &n24, &k), sb);
    assert_eq!(secretbox_open(&sb, &n24, &k).unwrap(), M);
    let mut bad = sb.clone();
    bad[20] ^= 1;
    assert!(secretbox_open(&bad, &n24, &k).is_none());

    let (pk1, sk1) = box_seed_keypair(&[1; 32]);
    let (pk2, sk2) = box_seed_keypair(&[2; 32]);
    assert_eq!(
        pk1.to_vec(),
        hex("1b1b58dd50ea14b60da17b790cd02754d970c9bab864ebb3c0f3016fe51d3f57")
    );
    assert_eq!(
        sk1.to_vec(),
        hex("5ce86efb75fa4e2c410f46e16de9f6acae1a1703528651b69bc176c088bef3ee")
    );
    assert_eq!(
        pk2.to_vec(),
        hex("60346e7c911a5f6ba154129174cafe75b294ac3bbd5549632f48cec6266f8410")
    );
    let boxed = hex("8a360defb734f214dd76538a76cfdaa3ab1db1ce3341db8db2cbb7");
    assert_eq!(box_seal_to(M, &n24, &pk2, &sk1), boxed);
    assert_eq!(box_open(&boxed, &n24, &pk1, &sk2).unwrap(), M);
    let sealed = hex(
        "badba38f2c32ea8ee94744d017667f0a6b5ef9777e7cdf9e1f707ab1e89a42324608fa4033d831bbacfa992f397a731bd8b22e35fbf0aab95bfc54",
    );
    assert_eq!(sealed_box_open(&sealed, &sk2).unwrap(), M);
    assert!(sealed_box_open(&sealed, &sk1).is_none());
    let mine = sealed_box(M, &pk1);
    assert_eq!(mine.len(), M.len() + BOX_SEALBYTES);
    assert_eq!(sealed_box_open(&mine, &sk1).unwrap(), M);

    let n12: [u8; 12] = seq();
    let ietf = hex("e19e646c4637d22fc5ef5b97b22b2dacbae2a0a3933a0cac790c0d");
    assert_eq!(aead_ietf_encrypt(M, b"additional", &n12, &k), ietf);
    assert_eq!(
        aead_ietf_decrypt(&ietf, b"additional", &n12, &k).unwrap(),
        M
    );
    assert!(aead_ietf_decrypt(&ietf, b"other", &n12, &k).is_none());
}

/// (message, associated data, nonce, pgsodium's ciphertext in hex)
type DetCase<'a> = (&'a [u8], &'a [u8], Option<&'a [u8; 16]>, &'a str);

#[test]
fn the_deterministic_aead_is_pgsodium_s() {
    let k: [u8; 32] = seq();
    let n16: [u8; 16] = seq();
    let long: [u8; 40] = seq();
    let exact: [u8; 32] = seq();
    let cases: Vec<DetCase> = vec![
        (
            b"hello",
            b"",
            None,
            "52d289b60daa735db6f3ea0d97cc14234765716c4fec1354ad4ebbe1541f822e7b95712d02",
        ),
        (
            &long,
            b"ad",
            Some(&n16),
            "08b2abfd5aaab957d0a4f1ce3c7512e4973013c6619f9ecc485fe9a3ec9eb7ab4f928e06c588eed2a62eac7a6b1e39212745acbb2dcdeacc2a6790f9ce9247409948aa59f10cf539",
        ),
        (
            &exact,
            b"associated",
            None,
            "9a21ba6c13918ef6e0aa196019737110fc4cacc5a13986a4c2d094fad2b3b3b46061faf8ae3160e84e1cc252f0fb97fe20814c78f81f7b7c5f47f09b7074621e",
        ),
    ];
    for (message, ad, nonce, want) in cases {
        let c = det_encrypt(message, ad, nonce, &k);
        assert_eq!(c, hex(want), "{message:?}");
        assert_eq!(det_decrypt(&c, ad, nonce, &k).unwrap(), message);
        assert!(det_decrypt(&c, b"x", nonce, &k).is_none());
        let mut tampered = c.clone();
        tampered[0] ^= 1;
        assert!(det_decrypt(&tampered, ad, nonce, &k).is_none());
    }
}

#[test]
fn signatures_and_password_hashes_interoperate_with_libsodium() {
    let (pk, sk) = sign_seed_keypair(&[3; 32]);
    assert_eq!(
        pk.to_vec(),
        hex("ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1")
    );
    assert_eq!(
        sk.to_vec(),
        hex(
            "0303030303030303030303030303030303030303030303030303030303030303ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1"
        )
    );
    let signed = hex(
        "807c691981f2edbd9b04b4711a43dbcc2ef697474177b5a0d2486f5783cd927a0be4e814993c1769801d60226678676181eb473f01795349452fb0ede6851f0b68656c6c6f20776f726c64",
    );
    assert_eq!(sign(M, &sk).unwrap(), signed);
    assert_eq!(sign_open(&signed, &pk).unwrap(), M);
    assert!(verify_detached(&signed[..64], M, &pk));
    assert!(!verify_detached(&signed[..64], b"hello worle", &pk));
    assert!(!verify_detached(&signed[..63], M, &pk));
    let (other, _) = sign_keypair();
    assert!(sign_open(&signed, &other).is_none());

    // A string libsodium made (interactive limits), and one of ours.
    let theirs = b"$argon2id$v=19$m=65536,t=2,p=1$F0jeMsIiR8qxPROQ7RQmBQ$iHS6BxxMUGE7pQmKyLPtoqvK1zlYMov5OfBcXGq2QbM";
    assert!(pwhash_str_verify(theirs, b"password"));
    assert!(!pwhash_str_verify(theirs, b"passw0rd"));
    let ours = pwhash_str(b"secret");
    assert_eq!(ours.len(), PWHASH_STRBYTES);
    assert!(ours.starts_with(b"$argon2id$v=19$m=262144,t=3,p=1$"));
    assert!(pwhash_str_verify(&ours, b"secret"));
    assert!(!pwhash_str_verify(&ours, b"Secret"));
    assert!(!pwhash_str_verify(b"$argon2id$v=19$m=4194304,t=2,p=1$F0jeMsIiR8qxPROQ7RQmBQ$iHS6BxxMUGE7pQmKyLPtoqvK1zlYMov5OfBcXGq2QbM", b"password"));
    assert!(!pwhash_str_verify(b"not a hash", b"password"));
}

#[test]
fn random_numbers_stay_in_their_bounds() {
    assert_eq!(random_bytes(7).len(), 7);
    assert_eq!(random_uniform(0), 0);
    assert_eq!(random_uniform(1), 0);
    assert!((0..1000).all(|_| random_uniform(10) < 10));
    let mut seen = [false; 10];
    for _ in 0..1000 {
        seen[random_uniform(10) as usize] = true;
    }
    assert!(seen.iter().all(|s| *s));
}
