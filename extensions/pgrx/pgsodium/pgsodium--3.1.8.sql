-- supagate's pgsodium 3.1.8: michelp/pgsodium's key table, key ids and libsodium functions
-- (pgsodium.so, built from extensions/pgrx/pgsodium), with its names, signatures, roles and
-- grants. Key ids derive from the server's root key (supagate's, kept in the data directory),
-- never stored in the database. Not here: transparent column encryption (security labels,
-- masking views), key exchange, signcryption, secret streams, XChaCha20 streams and multi-part
-- signatures.
\echo Use "CREATE EXTENSION pgsodium" to load this file. \quit

-- The roles pgsodium makes, when the cluster does not have them yet.
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['pgsodium_keyiduser', 'pgsodium_keyholder', 'pgsodium_keymaker'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r) THEN
      EXECUTE format('CREATE ROLE %I WITH NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION', r);
    END IF;
  END LOOP;
END
$$;
GRANT pgsodium_keyiduser TO pgsodium_keyholder;
GRANT pgsodium_keyiduser TO pgsodium_keymaker;
GRANT pgsodium_keyholder TO pgsodium_keymaker;

GRANT USAGE ON SCHEMA pgsodium TO PUBLIC;

CREATE TYPE crypto_box_keypair AS (public bytea, secret bytea);
CREATE TYPE crypto_sign_keypair AS (public bytea, secret bytea);
CREATE TYPE key_status AS ENUM ('default', 'valid', 'invalid', 'expired');
CREATE TYPE key_type AS ENUM ('aead-ietf', 'aead-det', 'hmacsha512', 'hmacsha256', 'auth',
  'shorthash', 'generichash', 'kdf', 'secretbox', 'secretstream', 'stream_xchacha20');

-- The keys: metadata of keys derived from the root key by id and context, or raw keys stored
-- encrypted under a parent key.
CREATE TABLE key (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    status key_status DEFAULT 'valid'::key_status,
    created timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    expires timestamp with time zone,
    key_type key_type,
    key_id bigint,
    key_context bytea DEFAULT '\x7067736f6469756d'::bytea,
    name text,
    associated_data text DEFAULT 'associated'::text,
    raw_key bytea,
    raw_key_nonce bytea,
    parent_key uuid,
    comment text,
    user_data text,
    CONSTRAINT key_pkey PRIMARY KEY (id),
    CONSTRAINT pgsodium_key_unique_name UNIQUE (name),
    CONSTRAINT key_parent_key_fkey FOREIGN KEY (parent_key) REFERENCES key(id),
    CONSTRAINT key_key_context_check CHECK (length(key_context) = 8),
    CONSTRAINT pgsodium_raw CHECK (
      CASE WHEN raw_key IS NOT NULL
        THEN key_id IS NULL AND key_context IS NULL AND parent_key IS NOT NULL
        ELSE key_id IS NOT NULL AND key_context IS NOT NULL AND parent_key IS NULL
      END)
);
COMMENT ON TABLE key IS 'This table holds metadata for derived keys given a key_id and key_context. The raw key is never stored.';
CREATE SEQUENCE key_key_id_seq OWNED BY key.key_id;
CREATE UNIQUE INDEX key_key_id_key_context_key_type_idx ON key (key_id, key_context, key_type);
CREATE INDEX key_status_idx ON key (status) WHERE status IN ('valid', 'default');
CREATE UNIQUE INDEX key_status_idx1 ON key (status) WHERE status = 'default';
SELECT pg_catalog.pg_extension_config_dump('key', '');
SELECT pg_catalog.pg_extension_config_dump('key_key_id_seq', '');

CREATE VIEW valid_key AS
  SELECT id, name, status, key_type, key_id, key_context, created, expires, associated_data
    FROM pgsodium.key
   WHERE status IN ('valid', 'default')
     AND CASE WHEN expires IS NULL THEN true ELSE expires > now() END;

-- The functions of pgsodium.so (libsodium's, and pgsodium's deterministic AEAD).

CREATE FUNCTION crypto_aead_det_decrypt(message bytea, additional bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea, nonce bytea DEFAULT NULL::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_decrypt_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_det_decrypt(ciphertext bytea, additional bytea, key bytea, nonce bytea DEFAULT NULL::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_decrypt_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_det_encrypt(message bytea, additional bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea, nonce bytea DEFAULT NULL::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_encrypt_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_det_encrypt(message bytea, additional bytea, key bytea, nonce bytea DEFAULT NULL::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_encrypt_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_det_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_aead_det_noncegen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_det_noncegen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_aead_ietf_decrypt(message bytea, additional bytea, nonce bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_decrypt_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_ietf_decrypt(message bytea, additional bytea, nonce bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_decrypt_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_ietf_encrypt(message bytea, additional bytea, nonce bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_encrypt_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_ietf_encrypt(message bytea, additional bytea, nonce bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_encrypt_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_aead_ietf_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_aead_ietf_noncegen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_aead_ietf_noncegen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_auth(message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth(message bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha256(message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha256_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha256(message bytea, secret bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha256_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha256_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha256_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_auth_hmacsha256_verify(hash bytea, message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha256_verify_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha256_verify(hash bytea, message bytea, secret bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha256_verify_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha512(message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha512_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha512(message bytea, secret bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha512_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha512_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha512_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_auth_hmacsha512_verify(hash bytea, message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha512_verify_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_hmacsha512_verify(hash bytea, message bytea, secret bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_hmacsha512_verify_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_auth_verify(mac bytea, message bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_verify_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_auth_verify(mac bytea, message bytea, key bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_auth_verify_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_box(message bytea, nonce bytea, public bytea, secret bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_box_new_keypair()
  RETURNS crypto_box_keypair
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_keypair'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_box_new_seed()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_new_seed_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_box_noncegen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_noncegen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_box_open(ciphertext bytea, nonce bytea, public bytea, secret bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_open_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_box_seal(message bytea, public_key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_seal_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_box_seal_open(ciphertext bytea, public_key bytea, secret_key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_seal_open_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_box_seed_new_keypair(seed bytea)
  RETURNS crypto_box_keypair
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_box_seed_keypair'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_cmp(text, text)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_cmp_wrapper'
  LANGUAGE c IMMUTABLE STRICT;

CREATE FUNCTION crypto_generichash(message bytea, key bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_generichash_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_generichash(message bytea, key bytea DEFAULT NULL::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_generichash_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_generichash_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_generichash_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_hash_sha256(message bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_hash_sha256_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_hash_sha512(message bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_hash_sha512_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_kdf_derive_from_key(subkey_size bigint, subkey_id bigint, context bytea, primary_key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_kdf_derive_from_key_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_kdf_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_kdf_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_pwhash(password bytea, salt bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_pwhash_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_pwhash_saltgen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_pwhash_saltgen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_pwhash_str(password bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_pwhash_str_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_pwhash_str_verify(hashed_password bytea, password bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_pwhash_str_verify_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_secretbox(message bytea, nonce bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_secretbox(message bytea, nonce bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_secretbox_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_secretbox_noncegen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_noncegen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_secretbox_open(message bytea, nonce bytea, key_id bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_open_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_secretbox_open(ciphertext bytea, nonce bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_secretbox_open_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_shorthash(message bytea, key bigint, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_shorthash_by_id_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_shorthash(message bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_shorthash_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_shorthash_keygen()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_shorthash_keygen_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_sign(message bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_sign_detached(message bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_detached_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_sign_new_keypair()
  RETURNS crypto_sign_keypair
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_keypair'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_sign_new_seed()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_new_seed_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION crypto_sign_open(signed_message bytea, key bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_open_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_sign_seed_new_keypair(seed bytea)
  RETURNS crypto_sign_keypair
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_seed_keypair'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION crypto_sign_verify_detached(sig bytea, message bytea, key bytea)
  RETURNS boolean
  AS 'MODULE_PATHNAME', 'pgsodium_crypto_sign_verify_detached_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION derive_key(key_id bigint, key_len integer DEFAULT 32, context bytea DEFAULT '\x7067736f6469756d'::bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_derive_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION pgsodium_derive(key_id bigint, key_len integer DEFAULT 32, context bytea DEFAULT decode('pgsodium'::text, 'escape'::text))
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_derive_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION randombytes_buf(size integer)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_randombytes_buf_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION randombytes_buf_deterministic(size integer, seed bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_randombytes_buf_deterministic_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION randombytes_new_seed()
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_randombytes_new_seed_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION randombytes_random()
  RETURNS integer
  AS 'MODULE_PATHNAME', 'pgsodium_randombytes_random_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION randombytes_uniform(upper_bound integer)
  RETURNS integer
  AS 'MODULE_PATHNAME', 'pgsodium_randombytes_uniform_wrapper'
  LANGUAGE c VOLATILE;

CREATE FUNCTION sodium_base642bin(base64 text)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'pgsodium_sodium_base642bin_wrapper'
  LANGUAGE c IMMUTABLE;

CREATE FUNCTION sodium_bin2base64(bin bytea)
  RETURNS text
  AS 'MODULE_PATHNAME', 'pgsodium_sodium_bin2base64_wrapper'
  LANGUAGE c IMMUTABLE;

-- A raw key is stored encrypted under its parent key (with its id and associated data).
CREATE FUNCTION key_encrypt_secret_raw_key() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  NEW.raw_key = CASE WHEN NEW.raw_key IS NULL OR NEW.parent_key IS NULL THEN NULL
    ELSE pgsodium.crypto_aead_det_encrypt(NEW.raw_key,
           pg_catalog.convert_to(NEW.id::text || NEW.associated_data, 'utf8'),
           NEW.parent_key, NEW.raw_key_nonce) END;
  RETURN NEW;
END
$$;
CREATE TRIGGER key_encrypt_secret_trigger_raw_key BEFORE INSERT OR UPDATE OF raw_key ON key
  FOR EACH ROW EXECUTE FUNCTION key_encrypt_secret_raw_key();

-- A new key: derived (the next id in its context) unless raw bytes are given, which are stored
-- encrypted under the parent key (a new derived one when none is named).
CREATE FUNCTION create_key(
  key_type key_type = 'aead-det',
  name text = NULL,
  raw_key bytea = NULL,
  raw_key_nonce bytea = NULL,
  parent_key uuid = NULL,
  key_context bytea = 'pgsodium',
  expires timestamptz = NULL,
  associated_data text = '')
  RETURNS valid_key
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  made pgsodium.key;
  result pgsodium.valid_key;
BEGIN
  INSERT INTO pgsodium.key (key_id, key_context, key_type, raw_key, raw_key_nonce, parent_key,
                            expires, name, associated_data)
  VALUES (
    CASE WHEN raw_key IS NULL THEN nextval('pgsodium.key_key_id_seq'::regclass) END,
    CASE WHEN raw_key IS NULL THEN key_context END,
    key_type,
    raw_key,
    CASE WHEN raw_key IS NOT NULL THEN coalesce(raw_key_nonce, pgsodium.crypto_aead_det_noncegen()) END,
    CASE WHEN parent_key IS NULL AND raw_key IS NOT NULL
      THEN (pgsodium.create_key('aead-det')).id ELSE parent_key END,
    expires,
    name,
    associated_data)
  RETURNING * INTO made;
  SELECT * INTO result FROM pgsodium.valid_key WHERE id = made.id;
  RETURN result;
END
$$;

CREATE FUNCTION get_key_by_id(uuid) RETURNS valid_key
  LANGUAGE sql SECURITY DEFINER SET search_path = ''
AS $$ SELECT * FROM pgsodium.valid_key WHERE id = $1 $$;

CREATE FUNCTION get_key_by_name(text) RETURNS valid_key
  LANGUAGE sql SECURITY DEFINER SET search_path = ''
AS $$ SELECT * FROM pgsodium.valid_key WHERE name = $1 $$;

CREATE FUNCTION get_named_keys(filter text = '%') RETURNS SETOF valid_key
  LANGUAGE sql SECURITY DEFINER SET search_path = ''
AS $$ SELECT * FROM pgsodium.valid_key vk WHERE vk.name ILIKE filter $$;

CREATE FUNCTION version() RETURNS text
  LANGUAGE sql
AS $$ SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'pgsodium' $$;

-- Keys by uuid: the key's raw bytes when it has them, else its id and context.

CREATE FUNCTION crypto_aead_det_encrypt(message bytea, additional bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-det';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_det_encrypt(message, additional, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_aead_det_encrypt(message, additional, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_aead_det_encrypt(message bytea, additional bytea, key_uuid uuid, nonce bytea)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-det';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_det_encrypt(message, additional, k.decrypted_raw_key, nonce);
  END IF;
  RETURN pgsodium.crypto_aead_det_encrypt(message, additional, k.key_id, k.key_context, nonce);
END
$$;

CREATE FUNCTION crypto_aead_det_decrypt(message bytea, additional bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-det';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_det_decrypt(message, additional, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_aead_det_decrypt(message, additional, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_aead_det_decrypt(message bytea, additional bytea, key_uuid uuid, nonce bytea)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-det';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_det_decrypt(message, additional, k.decrypted_raw_key, nonce);
  END IF;
  RETURN pgsodium.crypto_aead_det_decrypt(message, additional, k.key_id, k.key_context, nonce);
END
$$;

CREATE FUNCTION crypto_aead_ietf_encrypt(message bytea, additional bytea, nonce bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-ietf';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_ietf_encrypt(message, additional, nonce, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_aead_ietf_encrypt(message, additional, nonce, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_aead_ietf_decrypt(message bytea, additional bytea, nonce bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'aead-ietf';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_aead_ietf_decrypt(message, additional, nonce, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_aead_ietf_decrypt(message, additional, nonce, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth(message bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'auth';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth(message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth(message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth_verify(mac bytea, message bytea, key_uuid uuid)
  RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'auth';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth_verify(mac, message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth_verify(mac, message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth_hmacsha256(message bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'hmacsha256';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth_hmacsha256(message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth_hmacsha256(message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth_hmacsha256_verify(signature bytea, message bytea, key_uuid uuid)
  RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'hmacsha256';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth_hmacsha256_verify(signature, message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth_hmacsha256_verify(signature, message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth_hmacsha512(message bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'hmacsha512';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth_hmacsha512(message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth_hmacsha512(message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_auth_hmacsha512_verify(signature bytea, message bytea, key_uuid uuid)
  RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'hmacsha512';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_auth_hmacsha512_verify(signature, message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_auth_hmacsha512_verify(signature, message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_generichash(message bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'generichash';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_generichash(message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_generichash(message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_shorthash(message bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'shorthash';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_shorthash(message, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_shorthash(message, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_secretbox(message bytea, nonce bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'secretbox';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_secretbox(message, nonce, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_secretbox(message, nonce, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_secretbox_open(message bytea, nonce bytea, key_uuid uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = key_uuid AND key_type = 'secretbox';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_secretbox_open(message, nonce, k.decrypted_raw_key);
  END IF;
  RETURN pgsodium.crypto_secretbox_open(message, nonce, k.key_id, k.key_context);
END
$$;

CREATE FUNCTION crypto_kdf_derive_from_key(subkey_size integer, subkey_id bigint, context bytea, primary_key uuid)
  RETURNS bytea
  LANGUAGE plpgsql STABLE STRICT SECURITY DEFINER
  SET search_path = ''
AS $$
DECLARE
  k pgsodium.decrypted_key;
BEGIN
  SELECT * INTO STRICT k FROM pgsodium.decrypted_key WHERE id = primary_key AND key_type = 'kdf';
  IF k.decrypted_raw_key IS NOT NULL THEN
    RETURN pgsodium.crypto_kdf_derive_from_key(subkey_size, subkey_id, context, k.decrypted_raw_key);
  END IF;
  -- As pgsodium 3.1: a derived key gives the key of its own id and context.
  RETURN pgsodium.derive_key(k.key_id, subkey_size, k.key_context);
END
$$;

-- Keys with their raw bytes decrypted (for the functions above, and their owner).
CREATE VIEW decrypted_key AS
  SELECT id, status, created, expires, key_type, key_id, key_context, name, associated_data,
         raw_key,
         CASE WHEN raw_key IS NULL OR parent_key IS NULL THEN NULL::bytea
              ELSE pgsodium.crypto_aead_det_decrypt(raw_key,
                     pg_catalog.convert_to(id::text || associated_data, 'utf8'), parent_key, raw_key_nonce)
         END AS decrypted_raw_key,
         raw_key_nonce, parent_key, comment
    FROM pgsodium.key;

-- Who may call what: pgsodium's grants.
ALTER FUNCTION create_key(key_type,text,bytea,bytea,uuid,bytea,timestamp with time zone,text) OWNER TO pgsodium_keymaker;
GRANT EXECUTE ON FUNCTION create_key(key_type,text,bytea,bytea,uuid,bytea,timestamp with time zone,text) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,bigint,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,bigint,bytea,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid) TO pgsodium_keyiduser;
ALTER FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid,bytea) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_decrypt(bytea,bytea,uuid,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,bigint,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,bigint,bytea,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid) TO pgsodium_keyiduser;
ALTER FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid,bytea) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_encrypt(bytea,bytea,uuid,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_det_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_det_keygen() TO pgsodium_keymaker;
GRANT EXECUTE ON FUNCTION crypto_aead_det_noncegen() TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_decrypt(bytea,bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_encrypt(bytea,bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_aead_ietf_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_aead_ietf_noncegen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_aead_ietf_noncegen() TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth(bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth(bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth(bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth(bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth(bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth(bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth(bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256(bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256(bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256(bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256(bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth_hmacsha256(bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256(bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256(bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha256_verify(bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512(bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512(bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512(bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512(bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth_hmacsha512(bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512(bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512(bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_hmacsha512_verify(bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_verify(bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_verify(bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_auth_verify(bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_verify(bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_auth_verify(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_auth_verify(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_auth_verify(bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_box(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_box(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
REVOKE ALL ON FUNCTION crypto_box_new_keypair() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_box_new_keypair() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_box_noncegen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_box_noncegen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_box_open(bytea,bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_box_open(bytea,bytea,bytea,bytea) TO pgsodium_keyholder;
REVOKE ALL ON FUNCTION crypto_box_seed_new_keypair(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_box_seed_new_keypair(bytea) TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_generichash(bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_generichash(bytea,bytea) TO pgsodium_keyiduser;
ALTER FUNCTION crypto_generichash(bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_generichash(bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_generichash(bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_generichash_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_generichash_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_kdf_derive_from_key(bigint,bigint,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_kdf_derive_from_key(bigint,bigint,bytea,bytea) TO pgsodium_keymaker;
ALTER FUNCTION crypto_kdf_derive_from_key(integer,bigint,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_kdf_derive_from_key(integer,bigint,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_kdf_derive_from_key(integer,bigint,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_kdf_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_kdf_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_secretbox(bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox(bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_secretbox(bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox(bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_secretbox(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_secretbox(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox(bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_secretbox_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_secretbox_noncegen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox_noncegen() TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_secretbox_open(bytea,bytea,bigint,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox_open(bytea,bytea,bigint,bytea) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_secretbox_open(bytea,bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox_open(bytea,bytea,bytea) TO pgsodium_keyholder;
ALTER FUNCTION crypto_secretbox_open(bytea,bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_secretbox_open(bytea,bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_secretbox_open(bytea,bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_shorthash(bytea,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_shorthash(bytea,bytea) TO pgsodium_keyiduser;
ALTER FUNCTION crypto_shorthash(bytea,uuid) OWNER TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_shorthash(bytea,uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_shorthash(bytea,uuid) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION crypto_shorthash_keygen() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_shorthash_keygen() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION crypto_sign_new_keypair() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crypto_sign_new_keypair() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION derive_key(bigint,integer,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION derive_key(bigint,integer,bytea) TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION pgsodium_derive(bigint,integer,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgsodium_derive(bigint,integer,bytea) TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION randombytes_buf(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION randombytes_buf(integer) TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION randombytes_buf_deterministic(integer,bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION randombytes_buf_deterministic(integer,bytea) TO pgsodium_keyiduser, pgsodium_keymaker;
REVOKE ALL ON FUNCTION randombytes_new_seed() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION randombytes_new_seed() TO pgsodium_keymaker;
REVOKE ALL ON FUNCTION randombytes_random() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION randombytes_random() TO pgsodium_keyiduser;
REVOKE ALL ON FUNCTION randombytes_uniform(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION randombytes_uniform(integer) TO pgsodium_keyiduser;

-- Tables and sequences: pgsodium's grants.
GRANT ALL ON TABLE key TO pgsodium_keymaker;
GRANT ALL ON SEQUENCE key_key_id_seq TO pgsodium_keymaker;
GRANT ALL ON TABLE valid_key TO pgsodium_keyholder;
GRANT SELECT ON TABLE valid_key TO pgsodium_keyiduser;
GRANT ALL ON TABLE decrypted_key TO pgsodium_keyholder;
ALTER DEFAULT PRIVILEGES IN SCHEMA pgsodium GRANT ALL ON TABLES TO pgsodium_keyholder;
ALTER DEFAULT PRIVILEGES IN SCHEMA pgsodium GRANT ALL ON SEQUENCES TO pgsodium_keyholder;

-- As the Supabase image sets up pgsodium: postgres may hand the roles on, and service_role uses
-- the deterministic AEAD by key id.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'postgres') THEN
    GRANT pgsodium_keyiduser TO postgres WITH ADMIN OPTION;
    GRANT pgsodium_keyholder TO postgres WITH ADMIN OPTION;
    GRANT pgsodium_keymaker TO postgres WITH ADMIN OPTION;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'service_role') THEN
    GRANT EXECUTE ON FUNCTION pgsodium.crypto_aead_det_decrypt(bytea, bytea, uuid, bytea) TO service_role;
    GRANT EXECUTE ON FUNCTION pgsodium.crypto_aead_det_encrypt(bytea, bytea, uuid, bytea) TO service_role;
    GRANT EXECUTE ON FUNCTION pgsodium.crypto_aead_det_keygen() TO service_role;
  END IF;
END
$$;
