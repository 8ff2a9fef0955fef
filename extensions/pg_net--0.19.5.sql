-- pg_net's interface, written for supagate: requests are queued in net.http_request_queue by
-- the functions below; once the transaction that queued them commits, a supagate gateway takes
-- each one (once, whichever gateway it is), makes it and records the answer in
-- net._http_response, where it is kept for `pg_net.ttl` (6 hours by default).
\echo Use "CREATE EXTENSION pg_net" to load this file. \quit

create schema if not exists net;

create domain net.http_method as text
  check (value ilike 'get' or value ilike 'post' or value ilike 'delete');

create unlogged table net.http_request_queue (
  id bigserial,
  method net.http_method not null,
  url text not null,
  headers jsonb,
  body bytea,
  timeout_milliseconds int not null
);

create unlogged table net._http_response (
  id bigint,
  status_code integer,
  content_type text,
  headers jsonb,
  content text,
  timed_out bool,
  error_msg text,
  created timestamptz not null default now()
);
create index on net._http_response (created);

create type net.request_status as enum ('PENDING', 'SUCCESS', 'ERROR');
create type net.http_response as (status_code integer, headers jsonb, body text);
create type net.http_response_result as (
  status net.request_status,
  message text,
  response net.http_response
);

-- Tells the gateways there is work (delivered when the transaction commits).
create function net.wake() returns void
  language sql volatile
  as $$ select pg_catalog.pg_notify('supagate_net', '') $$;

create function net.worker_restart() returns bool
  language plpgsql volatile
as $$
begin
  perform net.wake();
  return true;
end
$$;

-- The gateways that take requests hold a session named "pg_net worker".
create function net.check_worker_is_up() returns void
  language plpgsql
as $$
begin
  if not exists (select 1 from pg_catalog.pg_stat_activity where application_name = 'pg_net worker') then
    raise exception using
      message = 'the pg_net background worker is not up',
      detail = 'no supagate gateway is taking requests from this database',
      hint = 'start supagate for this project';
  end if;
end
$$;
comment on function net.check_worker_is_up() is 'raises an exception if the pg_net background worker is not up, otherwise it doesn''t return anything';

create function net.wait_until_running() returns void
  language plpgsql
as $$
begin
  while not exists (select 1 from pg_catalog.pg_stat_activity where application_name = 'pg_net worker') loop
    perform pg_catalog.pg_sleep(0.05);
  end loop;
end
$$;
comment on function net.wait_until_running() is 'waits until the worker is running';

-- Percent-encodes everything but the unreserved characters of RFC 3986, byte by byte.
create function net._urlencode_string(string varchar) returns text
  language sql immutable
as $$
  select coalesce(string_agg(
           case when ch ~ '^[A-Za-z0-9._~-]$' then ch
                else pg_catalog.upper(pg_catalog.regexp_replace(
                       pg_catalog.encode(pg_catalog.convert_to(ch, 'UTF8'), 'hex'), '(..)', '%\1', 'g'))
           end, '' order by n), '')
  from pg_catalog.regexp_split_to_table(string, '') with ordinality as c(ch, n)
$$;

-- The URL with the encoded `key=value` pairs appended as its query.
create function net._encode_url_with_params_array(url text, params_array text[]) returns text
  language sql immutable
as $$
  select case
    when params_array is null or pg_catalog.cardinality(params_array) = 0 then url
    else url || case when pg_catalog.strpos(url, '?') > 0 then '&' else '?' end
             || pg_catalog.array_to_string(params_array, '&')
  end
$$;

create function net._query_params(params jsonb) returns text[]
  language sql immutable
as $$
  select coalesce(array_agg(net._urlencode_string(key) || '=' || net._urlencode_string(value)), '{}')
  from pg_catalog.jsonb_each_text(coalesce(params, '{}'::jsonb))
$$;

create function net.http_get(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds int default 5000
) returns bigint
  language plpgsql volatile parallel unsafe
as $$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, timeout_milliseconds)
  values ('GET', net._encode_url_with_params_array(url, net._query_params(params)), headers,
          timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

create function net.http_post(
  url text,
  body jsonb default '{}'::jsonb,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
  timeout_milliseconds int default 5000
) returns bigint
  language plpgsql volatile parallel unsafe
as $$
declare
  request_id bigint;
  content_type text;
begin
  select value into content_type
  from pg_catalog.jsonb_each_text(coalesce(headers, '{}'::jsonb))
  where pg_catalog.lower(key) = 'content-type'
  limit 1;
  if content_type is null then
    headers := coalesce(headers, '{}'::jsonb) || '{"Content-Type": "application/json"}'::jsonb;
  elsif content_type <> 'application/json' then
    raise exception 'Content-Type header must be "application/json"';
  end if;
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('POST', net._encode_url_with_params_array(url, net._query_params(params)), headers,
          pg_catalog.convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

create function net.http_delete(
  url text,
  params jsonb default '{}'::jsonb,
  headers jsonb default '{}'::jsonb,
  timeout_milliseconds int default 5000,
  body jsonb default null
) returns bigint
  language plpgsql volatile parallel unsafe
as $$
declare
  request_id bigint;
begin
  insert into net.http_request_queue (method, url, headers, body, timeout_milliseconds)
  values ('DELETE', net._encode_url_with_params_array(url, net._query_params(params)), headers,
          pg_catalog.convert_to(body::text, 'UTF8'), timeout_milliseconds)
  returning id into request_id;
  perform net.wake();
  return request_id;
end
$$;

-- Waits until the answer to `request_id` is recorded (the request must have been committed).
create function net._await_response(request_id bigint) returns bool
  language plpgsql parallel unsafe
as $$
begin
  while not exists (select 1 from net._http_response r where r.id = request_id) loop
    perform pg_catalog.pg_sleep(0.05);
  end loop;
  return true;
end
$$;

create function net._http_collect_response(request_id bigint, async bool default true)
  returns net.http_response_result
  language plpgsql parallel unsafe
as $$
declare
  rec net._http_response;
begin
  if not async then
    perform net._await_response(request_id);
  end if;
  select * into rec from net._http_response r where r.id = request_id;
  if rec is null or rec.error_msg is not null then
    return ('ERROR', coalesce(rec.error_msg, 'request matching request_id not found'), null)::net.http_response_result;
  end if;
  return ('SUCCESS', 'ok', (rec.status_code, rec.headers, rec.content)::net.http_response)::net.http_response_result;
end
$$;

create function net.http_collect_response(request_id bigint, async bool default true)
  returns net.http_response_result
  language plpgsql parallel unsafe
as $$
begin
  raise notice 'The net.http_collect_response function is deprecated.';
  return net._http_collect_response(request_id, async);
end
$$;

grant usage on schema net to public;
grant all on all sequences in schema net to public;
grant all on all tables in schema net to public;
