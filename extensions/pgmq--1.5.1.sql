-- Supabase Queues (pgmq), written for supagate in plain SQL with pgmq's tables, types and
-- functions: a queue `name` is the table pgmq.q_name (messages waiting or being read) and its
-- archive pgmq.a_name, listed in pgmq.meta. A read message stays in its queue, invisible until
-- its visibility timeout (vt) passes; delete removes it, archive moves it to the archive.
-- Partitioned queues need pg_partman, which supagate does not bring: creating one says so.
\echo Use "CREATE EXTENSION pgmq" to load this file. \quit

create table pgmq.meta (
  queue_name varchar unique not null,
  is_partitioned boolean not null,
  is_unlogged boolean not null,
  created_at timestamptz default now() not null
);
select pg_catalog.pg_extension_config_dump('pgmq.meta', '');

grant usage on schema pgmq to pg_monitor;
grant select on all tables in schema pgmq to pg_monitor;
grant select on all sequences in schema pgmq to pg_monitor;
alter default privileges in schema pgmq grant select on tables to pg_monitor;
alter default privileges in schema pgmq grant select on sequences to pg_monitor;

create type pgmq.message_record as (
  msg_id bigint,
  read_ct integer,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb,
  headers jsonb
);

create type pgmq.queue_record as (
  queue_name varchar,
  is_partitioned boolean,
  is_unlogged boolean,
  created_at timestamptz
);

create type pgmq.metrics_result as (
  queue_name text,
  queue_length bigint,
  newest_msg_age_sec int,
  oldest_msg_age_sec int,
  total_messages bigint,
  scrape_time timestamptz,
  queue_visible_length bigint
);

-- Serialises creating and dropping one queue.
create function pgmq.acquire_queue_lock(queue_name text) returns void
  language sql
as $$ select pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('pgmq.queue_' || queue_name)) $$;

create function pgmq.format_table_name(queue_name text, prefix text) returns text
  language plpgsql immutable
as $$
begin
  if queue_name ~ '\$|;|--|''' then
    raise exception 'queue name contains invalid characters: $, ;, --, or \''';
  end if;
  return pg_catalog.lower(prefix || '_' || queue_name);
end
$$;

create function pgmq.validate_queue_name(queue_name text) returns void
  language plpgsql
as $$
begin
  if pg_catalog.length(queue_name) >= 48 then
    raise exception 'queue name is too long, maximum length is 47 characters';
  end if;
end
$$;

create function pgmq._extension_exists(extension_name text) returns boolean
  language sql
as $$ select exists (select 1 from pg_catalog.pg_extension where extname = extension_name) $$;

-- The queue's table, or a clear error when there is no such queue.
create function pgmq._queue_table(queue_name text, prefix text) returns text
  language plpgsql stable
as $$
declare
  name text := pgmq.format_table_name(queue_name, prefix);
begin
  if pg_catalog.to_regclass(pg_catalog.quote_ident('pgmq') || '.' || pg_catalog.quote_ident(name)) is null then
    raise exception 'queue "%" does not exist', queue_name using errcode = '42P01';
  end if;
  return name;
end
$$;

create function pgmq._create(queue_name text, unlogged boolean) returns void
  language plpgsql
as $$
declare
  qtable text := pgmq.format_table_name(queue_name, 'q');
  atable text := pgmq.format_table_name(queue_name, 'a');
begin
  perform pgmq.validate_queue_name(queue_name);
  perform pgmq.acquire_queue_lock(queue_name);
  execute pg_catalog.format(
    'create %s table if not exists pgmq.%I (
       msg_id bigint primary key generated always as identity,
       read_ct int default 0 not null,
       enqueued_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb,
       headers jsonb)',
    case when unlogged then 'unlogged' else '' end, qtable);
  execute pg_catalog.format(
    'create table if not exists pgmq.%I (
       msg_id bigint primary key,
       read_ct int default 0 not null,
       enqueued_at timestamptz default now() not null,
       archived_at timestamptz default now() not null,
       vt timestamptz not null,
       message jsonb,
       headers jsonb)',
    atable);
  execute pg_catalog.format('create index if not exists %I on pgmq.%I (vt asc)', qtable || '_vt_idx', qtable);
  execute pg_catalog.format('create index if not exists %I on pgmq.%I (archived_at)', 'archived_at_idx_' || queue_name, atable);
  insert into pgmq.meta (queue_name, is_partitioned, is_unlogged)
  values (queue_name, false, unlogged)
  on conflict on constraint meta_queue_name_key do nothing;
end
$$;

create function pgmq.create_non_partitioned(queue_name text) returns void
  language sql
as $$ select pgmq._create(queue_name, false) $$;

create function pgmq.create_unlogged(queue_name text) returns void
  language sql
as $$ select pgmq._create(queue_name, true) $$;

create function pgmq.create(queue_name text) returns void
  language sql
as $$ select pgmq._create(queue_name, false) $$;

create function pgmq.create_partitioned(
  queue_name text,
  partition_interval text default '10000',
  retention_interval text default '100000'
) returns void
  language plpgsql
as $$
begin
  raise exception 'partitioned queues need the pg_partman extension, which this server does not have'
    using hint = 'use pgmq.create(queue_name) for a queue without partitions';
end
$$;

create function pgmq.convert_archive_partitioned(
  table_name text,
  partition_interval text default '10000',
  retention_interval text default '100000',
  leading_partition int default 10
) returns void
  language plpgsql
as $$
begin
  raise exception 'partitioned archives need the pg_partman extension, which this server does not have';
end
$$;

-- send: the implementation every form calls.
create function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay timestamptz)
  returns setof bigint
  language plpgsql
as $$
begin
  return query execute pg_catalog.format(
    'insert into pgmq.%I (vt, message, headers) values ($2, $1, $3) returning msg_id',
    pgmq._queue_table(queue_name, 'q'))
  using msg, delay, headers;
end
$$;

create function pgmq.send(queue_name text, msg jsonb) returns setof bigint
  language sql
as $$ select * from pgmq.send(queue_name, msg, null, clock_timestamp()) $$;

create function pgmq.send(queue_name text, msg jsonb, headers jsonb) returns setof bigint
  language sql
as $$ select * from pgmq.send(queue_name, msg, headers, clock_timestamp()) $$;

create function pgmq.send(queue_name text, msg jsonb, delay integer) returns setof bigint
  language sql
as $$ select * from pgmq.send(queue_name, msg, null, clock_timestamp() + make_interval(secs => delay)) $$;

create function pgmq.send(queue_name text, msg jsonb, delay timestamptz) returns setof bigint
  language sql
as $$ select * from pgmq.send(queue_name, msg, null, delay) $$;

create function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer) returns setof bigint
  language sql
as $$ select * from pgmq.send(queue_name, msg, headers, clock_timestamp() + make_interval(secs => delay)) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay timestamptz)
  returns setof bigint
  language plpgsql
as $$
begin
  if headers is not null and pg_catalog.cardinality(headers) <> pg_catalog.cardinality(msgs) then
    raise exception 'headers must have as many elements as msgs';
  end if;
  return query execute pg_catalog.format(
    'insert into pgmq.%I (vt, message, headers)
     select $2, m.message, $3[m.n] from unnest($1) with ordinality as m(message, n)
     order by m.n
     returning msg_id',
    pgmq._queue_table(queue_name, 'q'))
  using msgs, delay, headers;
end
$$;

create function pgmq.send_batch(queue_name text, msgs jsonb[]) returns setof bigint
  language sql
as $$ select * from pgmq.send_batch(queue_name, msgs, null, clock_timestamp()) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[]) returns setof bigint
  language sql
as $$ select * from pgmq.send_batch(queue_name, msgs, headers, clock_timestamp()) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer) returns setof bigint
  language sql
as $$ select * from pgmq.send_batch(queue_name, msgs, null, clock_timestamp() + make_interval(secs => delay)) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay timestamptz) returns setof bigint
  language sql
as $$ select * from pgmq.send_batch(queue_name, msgs, null, delay) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer) returns setof bigint
  language sql
as $$ select * from pgmq.send_batch(queue_name, msgs, headers, clock_timestamp() + make_interval(secs => delay)) $$;

-- Up to `qty` visible messages, oldest first, made invisible for `vt` seconds; `conditional`:
-- only messages containing this JSON.
create function pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb default '{}')
  returns setof pgmq.message_record
  language plpgsql
as $$
declare
  qtable text := pgmq._queue_table(queue_name, 'q');
begin
  return query execute pg_catalog.format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp() and ($3 = ''{}''::jsonb or message @> $3)
       order by msg_id
       limit $1
       for update skip locked
     )
     update pgmq.%1$I m
     set vt = clock_timestamp() + $2, read_ct = read_ct + 1
     from picked
     where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers',
    qtable)
  using qty, make_interval(secs => vt), coalesce(conditional, '{}'::jsonb);
end
$$;

create function pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer default 5,
  poll_interval_ms integer default 100,
  conditional jsonb default '{}'
) returns setof pgmq.message_record
  language plpgsql
as $$
declare
  stop_at timestamptz := clock_timestamp() + make_interval(secs => max_poll_seconds);
  r pgmq.message_record;
  found_any boolean;
begin
  loop
    found_any := false;
    for r in select * from pgmq.read(queue_name, read_with_poll.vt, qty, conditional) loop
      found_any := true;
      return next r;
    end loop;
    exit when found_any or clock_timestamp() >= stop_at;
    perform pg_catalog.pg_sleep(poll_interval_ms / 1000.0);
  end loop;
end
$$;

create function pgmq.pop(queue_name text) returns setof pgmq.message_record
  language plpgsql
as $$
begin
  return query execute pg_catalog.format(
    'with picked as (
       select msg_id from pgmq.%1$I
       where vt <= clock_timestamp()
       order by msg_id
       limit 1
       for update skip locked
     )
     delete from pgmq.%1$I m using picked
     where m.msg_id = picked.msg_id
     returning m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers',
    pgmq._queue_table(queue_name, 'q'));
end
$$;

create function pgmq.set_vt(queue_name text, msg_id bigint, vt integer) returns setof pgmq.message_record
  language plpgsql
as $$
begin
  return query execute pg_catalog.format(
    'update pgmq.%I set vt = clock_timestamp() + $2 where msg_id = $1
     returning msg_id, read_ct, enqueued_at, vt, message, headers',
    pgmq._queue_table(queue_name, 'q'))
  using msg_id, make_interval(secs => vt);
end
$$;

create function pgmq.archive(queue_name text, msg_ids bigint[]) returns setof bigint
  language plpgsql
as $$
begin
  return query execute pg_catalog.format(
    'with moved as (
       delete from pgmq.%I where msg_id = any($1)
       returning msg_id, vt, read_ct, enqueued_at, message, headers
     )
     insert into pgmq.%I (msg_id, vt, read_ct, enqueued_at, message, headers)
     select msg_id, vt, read_ct, enqueued_at, message, headers from moved
     returning msg_id',
    pgmq._queue_table(queue_name, 'q'), pgmq._queue_table(queue_name, 'a'))
  using msg_ids;
end
$$;

create function pgmq.archive(queue_name text, msg_id bigint) returns boolean
  language sql
as $$ select exists (select 1 from pgmq.archive(queue_name, array[msg_id])) $$;

create function pgmq.delete(queue_name text, msg_ids bigint[]) returns setof bigint
  language plpgsql
as $$
begin
  return query execute pg_catalog.format(
    'delete from pgmq.%I where msg_id = any($1) returning msg_id',
    pgmq._queue_table(queue_name, 'q'))
  using msg_ids;
end
$$;

create function pgmq.delete(queue_name text, msg_id bigint) returns boolean
  language sql
as $$ select exists (select 1 from pgmq.delete(queue_name, array[msg_id])) $$;

create function pgmq.purge_queue(queue_name text) returns bigint
  language plpgsql
as $$
declare
  qtable text := pgmq._queue_table(queue_name, 'q');
  n bigint;
begin
  execute pg_catalog.format('select count(*) from pgmq.%I', qtable) into n;
  execute pg_catalog.format('truncate table pgmq.%I', qtable);
  return n;
end
$$;

create function pgmq.detach_archive(queue_name text) returns void
  language plpgsql
as $$
begin
  -- Queue tables are not members of the extension here: there is nothing to detach.
  perform pgmq._queue_table(queue_name, 'a');
end
$$;

create function pgmq.drop_queue(queue_name text) returns boolean
  language plpgsql
as $$
begin
  perform pgmq.acquire_queue_lock(queue_name);
  execute pg_catalog.format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'q'));
  execute pg_catalog.format('drop table if exists pgmq.%I', pgmq.format_table_name(queue_name, 'a'));
  delete from pgmq.meta m where m.queue_name = drop_queue.queue_name;
  return true;
end
$$;

create function pgmq.drop_queue(queue_name text, partitioned boolean) returns boolean
  language plpgsql
as $$
begin
  raise warning 'drop_queue(queue_name, partitioned) is deprecated and will be removed in PGMQ v2.0. Use drop_queue(queue_name) instead';
  return pgmq.drop_queue(queue_name);
end
$$;

create function pgmq.metrics(queue_name text) returns pgmq.metrics_result
  language plpgsql
as $$
declare
  qtable text := pgmq._queue_table(queue_name, 'q');
  result pgmq.metrics_result;
begin
  execute pg_catalog.format(
    'select %L::text,
            count(*),
            extract(epoch from (now() - max(enqueued_at)))::int,
            extract(epoch from (now() - min(enqueued_at)))::int,
            (select case when is_called then last_value else 0 end from %s),
            now(),
            count(*) filter (where vt <= now())
     from pgmq.%I',
    queue_name, pg_catalog.pg_get_serial_sequence('pgmq.' || pg_catalog.quote_ident(qtable), 'msg_id'),
    qtable)
  into result;
  return result;
end
$$;

create function pgmq.metrics_all() returns setof pgmq.metrics_result
  language plpgsql
as $$
declare
  q record;
begin
  for q in select m.queue_name from pgmq.meta m order by m.queue_name loop
    return next pgmq.metrics(q.queue_name);
  end loop;
end
$$;

create function pgmq.list_queues() returns setof pgmq.queue_record
  language sql
as $$ select queue_name, is_partitioned, is_unlogged, created_at from pgmq.meta order by queue_name $$;
