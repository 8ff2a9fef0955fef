-- index_advisor(query) as Supabase's index_advisor 0.2 answers it, written for supagate: for one
-- query (PostgREST's, with $1, $2… parameters, included) the `create index` statements that
-- lower its planned cost, found with HypoPG's hypothetical indexes: the query's generic plan is
-- costed as it is, then again with a hypothetical single-column B-tree index on every column of
-- a comparable type that has none (in every ordinary table and materialized view outside the
-- system schemas and the extensions), and the indexes the second plan uses are the advice.
-- A query it cannot plan answers with its error in `errors`, not an exception. Unlike upstream,
-- the caller's own prepared statements survive (only the advisor's is deallocated) and the
-- hypothetical indexes are reset on every path, errors included.
\echo Use "CREATE EXTENSION index_advisor" to load this file. \quit

create function index_advisor(
  query text
)
returns table (
  startup_cost_before jsonb,
  startup_cost_after jsonb,
  total_cost_before jsonb,
  total_cost_after jsonb,
  index_statements text[],
  errors text[]
)
language plpgsql
volatile
-- The generic plan (parameters unknown), as a query from an app is planned over time.
set plan_cache_mode = force_generic_plan
as $advisor$
declare
  statement_name constant text := 'index_advisor_working_statement';
  hypopg text := (
    select e.extnamespace::regnamespace::text from pg_catalog.pg_extension e where e.extname = 'hypopg'
  );
  n_params int;
  explain_sql text;
  before_plan jsonb;
  after_plan jsonb;
  advice text[];
  column_def record;
  message text;
begin
  -- Comments out (they often hold semicolons), whitespace folded, one trailing semicolon dropped.
  query := pg_catalog.regexp_replace(query, '/\*.*?\*/', ' ', 'g');
  query := pg_catalog.regexp_replace(query, '--[^\r\n]*', ' ', 'g');
  query := pg_catalog.btrim(pg_catalog.regexp_replace(query, '\s+', ' ', 'g'));
  query := pg_catalog.regexp_replace(query, ';\s*$', '');
  begin
    if pg_catalog.strpos(query, ';') > 0 then
      raise exception 'Query must not contain a semicolon';
    end if;
    -- PostgREST's payload parameter is untyped in its SQL ($1 would be taken for text).
    query := pg_catalog.replace(query, 'WITH pgrst_payload AS (SELECT $1 AS json_data)',
      'WITH pgrst_payload AS (SELECT $1::json AS json_data)');

    if exists (select from pg_catalog.pg_prepared_statements p where p.name = statement_name) then
      execute pg_catalog.format('deallocate %I', statement_name);
    end if;
    execute pg_catalog.format('prepare %I as %s', statement_name, query);
    n_params := (
      select coalesce(pg_catalog.array_length(p.parameter_types, 1), 0)
      from pg_catalog.pg_prepared_statements p where p.name = statement_name
    );
    explain_sql := pg_catalog.format(
      'explain (format json) execute %I%s', statement_name,
      case when n_params = 0 then ''
           else '(' || pg_catalog.array_to_string(pg_catalog.array_fill('null'::text, array[n_params]), ',') || ')'
      end);
    execute explain_sql into before_plan;

    for column_def in
      select c.relnamespace::regnamespace::text as schema_name, c.relname, a.attname
      from pg_catalog.pg_class c
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where c.relkind in ('r', 'm')
        and c.relpersistence = 'p'
        and c.relnamespace::regnamespace::text not in ('pg_catalog', 'pg_toast', 'information_schema')
        -- Not the extensions' own tables.
        and not exists (
          select from pg_catalog.pg_depend d
          where d.classid = 'pg_catalog.pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
        -- Not a column that already leads a plain single-column index.
        and not exists (
          select from pg_catalog.pg_index i
          where i.indrelid = c.oid and i.indnatts = 1 and i.indkey[0] = a.attnum
            and i.indexprs is null and i.indpred is null)
        -- Types a B-tree orders usefully: integers, numerics, floats, booleans, text and
        -- characters, dates, times and timestamps, uuids.
        and a.atttypid in (
          'int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype,
          'float4'::regtype, 'float8'::regtype, 'bool'::regtype, 'text'::regtype,
          '"char"'::regtype, 'bpchar'::regtype, 'varchar'::regtype, 'date'::regtype,
          'time'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype, 'uuid'::regtype)
    loop
      execute pg_catalog.format('select %I.hypopg_create_index(%L)', hypopg,
        pg_catalog.format('create index on %I.%I(%I)', column_def.schema_name, column_def.relname, column_def.attname));
    end loop;

    -- Planned again: a prepared statement keeps the plan it was prepared with.
    execute pg_catalog.format('deallocate %I', statement_name);
    execute pg_catalog.format('prepare %I as %s', statement_name, query);
    execute explain_sql into after_plan;
    execute pg_catalog.format('deallocate %I', statement_name);

    -- The hypothetical indexes the new plan names.
    execute pg_catalog.format(
      'select coalesce(array_agg(%1$I.hypopg_get_indexdef(h.indexrelid) order by h.indrelid, h.indkey::text), ''{}'')
       from %1$I.hypopg() h where pg_catalog.strpos($1, h.indexname) > 0', hypopg)
      into advice using after_plan::text;
    execute pg_catalog.format('select %I.hypopg_reset()', hypopg);

    return query select
      before_plan -> 0 -> 'Plan' -> 'Startup Cost',
      after_plan -> 0 -> 'Plan' -> 'Startup Cost',
      before_plan -> 0 -> 'Plan' -> 'Total Cost',
      after_plan -> 0 -> 'Plan' -> 'Total Cost',
      advice,
      array[]::text[];
  exception when others then
    get stacked diagnostics message = message_text;
    -- Neither hypothetical indexes nor prepared statements are undone with the transaction.
    if hypopg is not null then
      execute pg_catalog.format('select %I.hypopg_reset()', hypopg);
    end if;
    if exists (select from pg_catalog.pg_prepared_statements p where p.name = statement_name) then
      execute pg_catalog.format('deallocate %I', statement_name);
    end if;
    return query select null::jsonb, null::jsonb, null::jsonb, null::jsonb, array[]::text[], array[message];
  end;
end
$advisor$;
