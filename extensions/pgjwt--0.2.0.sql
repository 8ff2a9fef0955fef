-- JSON Web Tokens signed with HMAC (HS256, HS384, HS512), written for supagate with pgjwt's
-- functions: sign, verify, algorithm_sign, url_encode, url_decode, try_cast_double. pgcrypto
-- (which pgjwt requires) provides hmac; the functions find it in the extensions schema, as a
-- Supabase database installs it, or in public.
\echo Use "CREATE EXTENSION pgjwt" to load this file. \quit

-- base64url without padding.
create function @extschema@.url_encode(data bytea) returns text
  language sql immutable
as $$
  select pg_catalog.translate(pg_catalog.encode(data, 'base64'), E'+/=\n', '-_')
$$;

create function @extschema@.url_decode(data text) returns bytea
  language sql immutable
as $$
  select pg_catalog.decode(
    pg_catalog.rpad(pg_catalog.translate(data, '-_', '+/'),
                    4 * ((pg_catalog.length(data) + 3) / 4), '='),
    'base64')
$$;

create function @extschema@.algorithm_sign(signables text, secret text, algorithm text) returns text
  language plpgsql immutable set search_path = @extschema@, extensions, public, pg_catalog
as $$
declare
  digest text := case pg_catalog.upper(algorithm)
    when 'HS256' then 'sha256'
    when 'HS384' then 'sha384'
    when 'HS512' then 'sha512'
  end;
begin
  if digest is null then
    raise exception 'unsupported JWT algorithm "%": use HS256, HS384 or HS512', algorithm;
  end if;
  return url_encode(hmac(signables, secret, digest));
end
$$;

create function @extschema@.sign(payload json, secret text, algorithm text default 'HS256') returns text
  language sql immutable set search_path = @extschema@, extensions, public, pg_catalog
as $$
  with parts as (
    select url_encode(convert_to('{"alg":' || to_json(algorithm)::text || ',"typ":"JWT"}', 'utf8'))
             || '.' || url_encode(convert_to(payload::text, 'utf8')) as signables
  )
  select signables || '.' || algorithm_sign(signables, secret, algorithm) from parts
$$;

create function @extschema@.try_cast_double(inp text) returns double precision
  language plpgsql immutable
as $$
begin
  return inp::double precision;
exception when others then
  return null;
end
$$;

-- The header and payload, and whether the signature matches and the time lies between the
-- token's nbf and exp (either may be absent).
create function @extschema@.verify(token text, secret text, algorithm text default 'HS256')
  returns table(header json, payload json, valid boolean)
  language sql immutable set search_path = @extschema@, extensions, public, pg_catalog
as $$
  select convert_from(url_decode(part[1]), 'utf8')::json,
         convert_from(url_decode(part[2]), 'utf8')::json,
         part[3] = algorithm_sign(part[1] || '.' || part[2], secret, algorithm)
           and tstzrange(to_timestamp(try_cast_double(convert_from(url_decode(part[2]), 'utf8')::json ->> 'nbf')),
                         to_timestamp(try_cast_double(convert_from(url_decode(part[2]), 'utf8')::json ->> 'exp')))
               @> current_timestamp
  from regexp_split_to_array(token, '\.') as part
$$;
