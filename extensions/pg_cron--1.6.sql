-- pg_cron 1.6's interface, written for supagate: jobs are rows of cron.job, scheduled and
-- changed by the functions below; a supagate gateway runs the jobs of the database it serves
-- (workers/src/cron), logging in as each job's user to the job's database, and records each run
-- in cron.job_run_details. Unlike upstream, the extension may be created in any database (no
-- cron.database_name), and needs neither shared_preload_libraries nor a restart.
--
-- The functions are SECURITY INVOKER (upstream's C functions insert as the extension's owner):
-- everyone may write cron.job, and row level security keeps each user to their own jobs, as
-- upstream's policy does for reading.
\echo Use "CREATE EXTENSION pg_cron" to load this file. \quit

create schema cron;
create sequence cron.jobid_seq;

create table cron.job (
  jobid bigint primary key default pg_catalog.nextval('cron.jobid_seq'),
  schedule text not null,
  command text not null,
  nodename text not null default 'localhost',
  nodeport int not null default pg_catalog.current_setting('port')::int,
  database text not null default pg_catalog.current_database(),
  username text not null default current_user,
  active boolean not null default true,
  jobname text
);
create unique index jobname_username_idx on cron.job (jobname, username);
alter table cron.job add constraint jobname_username_uniq unique using index jobname_username_idx;
alter table cron.job enable row level security;
create policy cron_job_policy on cron.job using (username operator(pg_catalog.=) current_user);
grant select on cron.job to public;
grant insert, update, delete on cron.job to public;
grant select, usage on sequence cron.jobid_seq to public;

create sequence cron.runid_seq;
create table cron.job_run_details (
  jobid bigint,
  runid bigint primary key default pg_catalog.nextval('cron.runid_seq'),
  job_pid integer,
  database text,
  username text,
  command text,
  status text,
  return_message text,
  start_time timestamptz,
  end_time timestamptz
);
alter table cron.job_run_details enable row level security;
create policy cron_job_run_details_policy on cron.job_run_details
  using (username operator(pg_catalog.=) current_user);
grant select, delete on cron.job_run_details to public;
grant select on sequence cron.runid_seq to public;

select pg_catalog.pg_extension_config_dump('cron.job', '');
select pg_catalog.pg_extension_config_dump('cron.jobid_seq', '');
select pg_catalog.pg_extension_config_dump('cron.job_run_details', '');
select pg_catalog.pg_extension_config_dump('cron.runid_seq', '');

-- pg_cron's trigger invalidates its scheduler's cache of jobs; supagate's scheduler reads
-- cron.job every second and keeps no cache, so the trigger, kept for pg_cron's surface, has
-- nothing to do.
create function cron.job_cache_invalidate() returns trigger
  language plpgsql
as $$
begin
  return null;
end
$$;
comment on function cron.job_cache_invalidate() is 'invalidate job cache';

create trigger cron_job_cache_invalidate
  after insert or update or delete or truncate on cron.job
  for each statement execute function cron.job_cache_invalidate();

-- One list of a cron field: elements `*`, `N`, `N-M`, each of the first and last with `/STEP`,
-- numbers between `low` and `high` or (months, days of the week) their three-letter names.
-- The gateway's runner reads schedules with the same rules (workers/src/cron/schedule.rs).
create function cron._valid_field(field text, low int, high int, names text[]) returns bool
  language plpgsql immutable
as $$
declare
  part text;
  m text[];
  bound text;
  n int;
begin
  if field = '' then
    return false;
  end if;
  foreach part in array pg_catalog.string_to_array(field, ',') loop
    m := pg_catalog.regexp_match(part, '^(\*|[A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?(?:/([0-9]+))?$');
    if m is null or (m[1] = '*' and m[2] is not null) or (m[1] <> '*' and m[2] is null and m[3] is not null) then
      return false;
    end if;
    foreach bound in array array[nullif(m[1], '*'), m[2]] loop
      continue when bound is null;
      n := pg_catalog.array_position(
        (select pg_catalog.array_agg(pg_catalog.lower(x)) from pg_catalog.unnest(names) x),
        pg_catalog.lower(bound));
      if n is not null then
        n := n - 1 + low;
      elsif bound ~ '^[0-9]{1,9}$' then
        n := bound::int;
      else
        return false;
      end if;
      if n < low or n > high then
        return false;
      end if;
    end loop;
    if m[3] is not null and (pg_catalog.length(m[3]) > 9 or m[3]::int < 1 or m[3]::int > high) then
      return false;
    end if;
  end loop;
  return true;
end
$$;

-- Whether pg_cron accepts `schedule`: five cron fields (minute, hour, day of month or `$` for
-- the last, month, day of week; what follows the fifth is not read, as upstream), an `@` name,
-- or '[1-59] seconds'.
create function cron._valid_schedule(schedule text) returns bool
  language plpgsql immutable
as $$
declare
  f text[];
  n text;
begin
  if schedule is null or pg_catalog.length(schedule) >= 1000 then
    return false;
  end if;
  n := (pg_catalog.regexp_match(pg_catalog.lower(schedule), '^\s*\+?([0-9]+)\s*seconds?\s*$'))[1];
  if n is not null then
    n := pg_catalog.ltrim(n, '0');
    return pg_catalog.length(n) between 1 and 2 and n::int between 1 and 59;
  end if;
  if schedule ~ '^\s*@' then
    return (pg_catalog.regexp_match(schedule, '^\s*@([^ \t\n]*)'))[1] in
      ('reboot', 'restart', 'yearly', 'annually', 'monthly', 'weekly', 'daily', 'midnight', 'hourly');
  end if;
  f := pg_catalog.regexp_split_to_array(pg_catalog.regexp_replace(schedule, '^\s+', ''), '[ \t]+');
  if pg_catalog.cardinality(f) < 5 then
    return false;
  end if;
  f[5] := pg_catalog.split_part(f[5], E'\n', 1);
  return cron._valid_field(f[1], 0, 59, null)
     and cron._valid_field(f[2], 0, 23, null)
     and (f[3] = '$' or cron._valid_field(f[3], 1, 31, null))
     and cron._valid_field(f[4], 1, 12, '{Jan,Feb,Mar,Apr,May,Jun,Jul,Aug,Sep,Oct,Nov,Dec}')
     and cron._valid_field(f[5], 0, 7, '{Sun,Mon,Tue,Wed,Thu,Fri,Sat,Sun}');
end
$$;

create function cron._check_schedule(schedule text) returns void
  language plpgsql immutable
as $$
begin
  if not cron._valid_schedule(schedule) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = pg_catalog.format('invalid schedule: %s', schedule),
      hint = 'Use cron format (e.g. 5 4 * * *), or interval format ''[1-59] seconds''';
  end if;
end
$$;

-- The role a job may run as (upstream's checks for a role other than the caller's).
create function cron._login_role(username text) returns text
  language plpgsql stable
as $$
declare
  can_login bool;
begin
  select r.rolcanlogin into can_login from pg_catalog.pg_roles r where r.rolname = username;
  if not found then
    raise exception 'role "%" does not exist', username;
  end if;
  if not can_login then
    raise exception using
      message = pg_catalog.format('role "%s" can not log in', username),
      detail = 'Jobs may only be run by roles that have the LOGIN attribute.';
  end if;
  return username;
end
$$;

create function cron._check_database(database text, username text) returns void
  language plpgsql stable
as $$
begin
  if not exists (select 1 from pg_catalog.pg_database d where d.datname = database) then
    raise exception using
      errcode = 'invalid_catalog_name',
      message = pg_catalog.format('database "%s" does not exist', database);
  end if;
  if not pg_catalog.has_database_privilege(username, database, 'CONNECT') then
    raise exception 'User % does not have CONNECT privilege on %', username, database;
  end if;
end
$$;

create function cron._is_superuser() returns bool
  language sql stable
as $$ select coalesce((select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user), false) $$;

create function cron._schedule(
  job_name text, schedule text, command text, database text, username text, active boolean
) returns bigint
  language plpgsql
as $$
declare
  run_as text := current_user;
  db text := coalesce(database, pg_catalog.current_database());
  id bigint;
begin
  perform cron._check_schedule(schedule);
  if username is not null then
    if not cron._is_superuser() then
      raise exception 'must be superuser to create a job for another role';
    end if;
    run_as := cron._login_role(username);
  end if;
  perform cron._check_database(db, run_as);
  if job_name is null then
    insert into cron.job (schedule, command, nodename, nodeport, database, username, active)
    values (schedule, command, 'localhost', pg_catalog.current_setting('port')::int, db, run_as,
            coalesce(active, true))
    returning jobid into id;
  else
    insert into cron.job as j (schedule, command, nodename, nodeport, database, username, active, jobname)
    values (schedule, command, 'localhost', pg_catalog.current_setting('port')::int, db, run_as,
            coalesce(active, true), job_name)
    on conflict on constraint jobname_username_uniq do update
      set schedule = excluded.schedule, command = excluded.command, database = excluded.database
    returning j.jobid into id;
  end if;
  return id;
end
$$;

create function cron.schedule(schedule text, command text) returns bigint
  language plpgsql strict
as $$
begin
  return cron._schedule(null, schedule, command, null, null, true);
end
$$;
comment on function cron.schedule(text, text) is 'schedule a pg_cron job';

create function cron.schedule(job_name text, schedule text, command text) returns bigint
  language plpgsql
as $$
begin
  if job_name is null then
    raise exception 'job_name can not be NULL';
  elsif schedule is null then
    raise exception 'schedule can not be NULL';
  elsif command is null then
    raise exception 'command can not be NULL';
  end if;
  return cron._schedule(job_name, schedule, command, null, null, true);
end
$$;
comment on function cron.schedule(text, text, text) is 'schedule a pg_cron job';

create function cron.schedule_in_database(
  job_name text,
  schedule text,
  command text,
  database text,
  username text default null,
  active boolean default 'true'
) returns bigint
  language plpgsql
as $$
begin
  if job_name is null then
    raise exception 'job_name can not be NULL';
  elsif schedule is null then
    raise exception 'schedule can not be NULL';
  elsif command is null then
    raise exception 'command can not be NULL';
  end if;
  return cron._schedule(job_name, schedule, command, database, username, active);
end
$$;
comment on function cron.schedule_in_database(text, text, text, text, text, boolean) is 'schedule a pg_cron job';
revoke all on function cron.schedule_in_database(text, text, text, text, text, boolean) from public;

create function cron.unschedule(job_id bigint) returns bool
  language plpgsql strict
as $$
begin
  delete from cron.job j where j.jobid = job_id;
  if not found then
    raise exception 'could not find valid entry for job %', job_id;
  end if;
  return true;
end
$$;
comment on function cron.unschedule(bigint) is 'unschedule a pg_cron job';

create function cron.unschedule(job_name text) returns bool
  language plpgsql strict
as $$
begin
  delete from cron.job j where j.jobname = job_name and j.username = current_user;
  if not found then
    raise exception 'could not find valid entry for job ''%''', job_name;
  end if;
  return true;
end
$$;
comment on function cron.unschedule(text) is 'unschedule a pg_cron job';

create function cron.alter_job(
  job_id bigint,
  schedule text default null,
  command text default null,
  database text default null,
  username text default null,
  active boolean default null
) returns void
  language plpgsql
as $$
declare
  run_as text := current_user;
begin
  if job_id is null then
    raise exception 'job_id can not be NULL';
  end if;
  if username is not null then
    if not cron._is_superuser() then
      raise exception 'must be superuser to alter username';
    end if;
    run_as := cron._login_role(username);
  end if;
  if database is not null then
    perform cron._check_database(database, run_as);
  end if;
  if schedule is not null then
    perform cron._check_schedule(schedule);
  end if;
  if schedule is null and command is null and database is null and username is null and active is null then
    raise exception using
      message = 'no updates specified',
      hint = 'You must specify at least one job attribute to change when calling alter_job';
  end if;
  update cron.job j
     set schedule = coalesce(alter_job.schedule, j.schedule),
         command = coalesce(alter_job.command, j.command),
         database = coalesce(alter_job.database, j.database),
         username = coalesce(alter_job.username, j.username),
         active = coalesce(alter_job.active, j.active)
   where j.jobid = job_id
     and (cron._is_superuser() or j.username = current_user);
  if not found then
    raise exception 'Job % does not exist or you don''t own it', job_id;
  end if;
end
$$;
comment on function cron.alter_job(bigint, text, text, text, text, boolean) is
  'Alter the job identified by job_id. Any option left as NULL will not be modified.';
revoke all on function cron.alter_job(bigint, text, text, text, text, boolean) from public;

-- The extension lives in pg_catalog, as in Supabase's image, whatever schema CREATE EXTENSION
-- names: there supautils overrides the schema, so `create extension pg_cron with schema
-- extensions` (which real migrations say) is accepted. A control file's `schema` would refuse
-- it instead, so the catalog is set here (its objects are in `cron` either way).
update pg_catalog.pg_extension set extnamespace = 'pg_catalog'::pg_catalog.regnamespace
 where extname = 'pg_cron';
delete from pg_catalog.pg_depend
 where classid = 'pg_catalog.pg_extension'::pg_catalog.regclass
   and objid = (select oid from pg_catalog.pg_extension where extname = 'pg_cron')
   and refclassid = 'pg_catalog.pg_namespace'::pg_catalog.regclass;
