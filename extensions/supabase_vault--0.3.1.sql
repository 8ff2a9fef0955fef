-- Supabase Vault's interface, written for supagate. Secrets are stored encrypted in
-- vault.secrets and read through vault.decrypted_secrets. The root key never enters the
-- database: supagate keeps it in the cluster's data directory (supagate_vault.key, readable by
-- the server only), from SUPAGATE_VAULT_KEY when set, else made once at random.
--
-- Encryption is a deterministic AEAD built from pgcrypto: the IV is the first 16 bytes of
-- HMAC-SHA-256(mac key, nonce || additional data || message) and the message is encrypted with
-- AES-256-CBC under the encryption key; decrypting recomputes the IV and refuses a ciphertext
-- that does not match it. Both keys are derived from the root key and the context.
\echo Use "CREATE EXTENSION supabase_vault" to load this file. \quit

create function vault._root_key() returns bytea
  language plpgsql stable security definer set search_path = ''
as $$
declare
  hex text;
begin
  begin
    hex := pg_catalog.pg_read_file('supagate_vault.key');
  exception when undefined_file then
    raise exception 'the vault''s root key is not available on this server'
      using errcode = '55000',
            hint = 'supagate keeps it in the data directory of the PostgreSQL cluster it runs';
  end;
  return pg_catalog.decode(pg_catalog.btrim(hex, E' \r\n\t'), 'hex');
end
$$;

create function vault._derived_key(purpose text, key_id bigint, context bytea) returns bytea
  language sql stable set search_path = ''
as $$
  select extensions.hmac(context || pg_catalog.convert_to(':' || purpose || ':' || key_id::text, 'UTF8'),
                         vault._root_key(), 'sha256')
$$;

create function vault._crypto_aead_det_noncegen() returns bytea
  language sql volatile set search_path = ''
as $$ select extensions.gen_random_bytes(16) $$;

create function vault._crypto_aead_det_encrypt(
  message bytea,
  additional bytea,
  key_id bigint,
  context bytea = 'pgsodium',
  nonce bytea = null
) returns bytea
  language plpgsql stable security definer set search_path = ''
as $$
declare
  iv bytea := pg_catalog.substr(extensions.hmac(
    coalesce(nonce, ''::bytea) || coalesce(additional, ''::bytea) || message,
    vault._derived_key('mac', key_id, context), 'sha256'), 1, 16);
begin
  return iv || extensions.encrypt_iv(message, vault._derived_key('enc', key_id, context), iv,
                                     'aes-cbc/pad:pkcs');
end
$$;

create function vault._crypto_aead_det_decrypt(
  message bytea,
  additional bytea,
  key_id bigint,
  context bytea = 'pgsodium',
  nonce bytea = null
) returns bytea
  language plpgsql stable security definer set search_path = ''
as $$
declare
  enc bytea := vault._derived_key('enc', key_id, context);
  mac bytea := vault._derived_key('mac', key_id, context);
  iv bytea := pg_catalog.substr(message, 1, 16);
  plain bytea;
begin
  begin
    plain := extensions.decrypt_iv(pg_catalog.substr(message, 17), enc, iv, 'aes-cbc/pad:pkcs');
  exception when others then
    raise exception 'invalid ciphertext';
  end;
  if pg_catalog.substr(extensions.hmac(
       coalesce(nonce, ''::bytea) || coalesce(additional, ''::bytea) || plain, mac, 'sha256'),
       1, 16) <> iv then
    raise exception 'invalid ciphertext';
  end if;
  return plain;
end
$$;

create table vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  key_id uuid,
  nonce bytea default vault._crypto_aead_det_noncegen(),
  created_at timestamptz not null default current_timestamp,
  updated_at timestamptz not null default current_timestamp
);
comment on table vault.secrets is 'Table with encrypted `secret` column for storing sensitive information on disk.';
create unique index on vault.secrets using btree (name) where name is not null;

create view vault.decrypted_secrets as
select s.id,
       s.name,
       s.description,
       s.secret,
       pg_catalog.convert_from(vault._crypto_aead_det_decrypt(
         message := pg_catalog.decode(s.secret, 'base64'),
         additional := pg_catalog.convert_to(s.id::text, 'utf8'),
         key_id := 0,
         context := 'pgsodium'::bytea,
         nonce := s.nonce), 'utf8') as decrypted_secret,
       s.key_id,
       s.nonce,
       s.created_at,
       s.updated_at
from vault.secrets s;

create function vault.create_secret(
  new_secret text,
  new_name text = null,
  new_description text = '',
  new_key_id uuid = null
) returns uuid
  language plpgsql security definer set search_path = ''
as $$
declare
  rec record;
begin
  insert into vault.secrets (secret, name, description)
  values ('', new_name, new_description)
  returning * into rec;
  update vault.secrets s
  set secret = pg_catalog.encode(vault._crypto_aead_det_encrypt(
        message := pg_catalog.convert_to(new_secret, 'utf8'),
        additional := pg_catalog.convert_to(s.id::text, 'utf8'),
        key_id := 0,
        context := 'pgsodium'::bytea,
        nonce := rec.nonce), 'base64')
  where s.id = rec.id;
  return rec.id;
end
$$;

create function vault.update_secret(
  secret_id uuid,
  new_secret text = null,
  new_name text = null,
  new_description text = null,
  new_key_id uuid = null
) returns void
  language plpgsql security definer set search_path = ''
as $$
begin
  update vault.secrets s
  set secret = case when new_secret is null then s.secret
                    else pg_catalog.encode(vault._crypto_aead_det_encrypt(
                      message := pg_catalog.convert_to(new_secret, 'utf8'),
                      additional := pg_catalog.convert_to(s.id::text, 'utf8'),
                      key_id := 0,
                      context := 'pgsodium'::bytea,
                      nonce := s.nonce), 'base64') end,
      name = coalesce(new_name, s.name),
      description = coalesce(new_description, s.description),
      updated_at = now()
  where s.id = secret_id;
end
$$;

revoke all on function vault._root_key, vault._derived_key, vault._crypto_aead_det_encrypt,
  vault._crypto_aead_det_decrypt, vault._crypto_aead_det_noncegen, vault.create_secret,
  vault.update_secret from public;

select pg_catalog.pg_extension_config_dump('vault.secrets', '');
