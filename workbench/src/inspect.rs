//! `inspect db <report>` and `inspect report`: the Supabase CLI's database reports, each a
//! catalog or statistics query of our own with the CLI's name, description and columns. Pure:
//! the reports (their SQL as text), the CLI's deprecated names and what replaced them. Every
//! query returns text columns and takes `$1`, the schemas Supabase manages (left out of the
//! per-table reports). `outliers` and `calls` read `pg_stat_statements`, which the edge puts
//! on the search_path (`needs_statements`).

/// One report.
pub struct Report {
    /// The command's name (`inspect db <name>`).
    pub name: &'static str,
    /// What it shows, in the CLI's words.
    pub about: &'static str,
    /// Column headers of the table, in the CLI's words.
    pub columns: &'static [&'static str],
    /// The CSV file `inspect report` writes (`<file>.csv`, as the CLI names them).
    pub file: &'static str,
    pub sql: &'static str,
}

impl Report {
    /// Whether the report reads `pg_stat_statements`.
    pub fn needs_statements(&self) -> bool {
        self.sql.contains("pg_stat_statements")
    }
}

/// The CLI's deprecated report names and the report each now runs.
pub const DEPRECATED: &[(&str, &str)] = &[
    ("cache-hit", "db-stats"),
    ("index-usage", "index-stats"),
    ("total-index-size", "index-stats"),
    ("index-sizes", "index-stats"),
    ("table-sizes", "table-stats"),
    ("table-index-sizes", "table-stats"),
    ("total-table-sizes", "table-stats"),
    ("unused-indexes", "index-stats"),
    ("table-record-counts", "table-stats"),
    ("seq-scans", "index-stats"),
    ("role-configs", "role-stats"),
    ("role-connections", "role-stats"),
];

/// The report a name runs, and, for a deprecated name, the CLI's notice.
pub fn find(name: &str) -> Option<(&'static Report, Option<String>)> {
    let (target, notice) = match DEPRECATED.iter().find(|(old, _)| *old == name) {
        Some((old, new)) => (
            *new,
            Some(format!(
                "Command \"{old}\" is deprecated, use \"{new}\" instead."
            )),
        ),
        None => (name, None),
    };
    REPORTS
        .iter()
        .find(|r| r.name == target)
        .map(|r| (r, notice))
}

/// Every name `inspect db` takes.
pub fn names() -> Vec<&'static str> {
    REPORTS
        .iter()
        .map(|r| r.name)
        .chain(DEPRECATED.iter().map(|(old, _)| *old))
        .collect()
}

/// The columns of `outliers` and `calls`, ordered as `$order` says: `pg_stat_statements`'
/// I/O times under their PostgreSQL 15 or 17 names.
macro_rules! statements_report {
    ($order:literal) => {
        concat!(
            "select query,
       (interval '1 millisecond' * s.total_exec_time)::text as total_exec_time,
       coalesce(to_char(s.total_exec_time / nullif(sum(s.total_exec_time) over (), 0) * 100, 'FM990D0') || '%', '') as prop_exec_time,
       to_char(s.calls, 'FM999G999G999G990') as ncalls,
       (interval '1 millisecond' * (coalesce((to_jsonb(s) ->> 'blk_read_time')::float8, (to_jsonb(s) ->> 'shared_blk_read_time')::float8, 0)
                                   + coalesce((to_jsonb(s) ->> 'blk_write_time')::float8, (to_jsonb(s) ->> 'shared_blk_write_time')::float8, 0)))::text as sync_io_time
  from pg_stat_statements s, (select $1::text[] as managed) p
 where s.dbid = (select oid from pg_database where datname = current_database())
   and cardinality(p.managed) >= 0 ",
            $order
        )
    };
}

pub static REPORTS: &[Report] = &[
    Report {
        name: "db-stats",
        about: "Show stats such as cache hit rates, total sizes, and WAL size",
        columns: &[
            "Name",
            "Database Size",
            "Total Index Size",
            "Total Table Size",
            "Total Toast Size",
            "Time Since Stats Reset",
            "Index Hit Rate",
            "Table Hit Rate",
            "WAL Size",
        ],
        file: "db_stats",
        sql: "with p as (select $1::text[] as managed),
                   sizes as (select coalesce(sum(pg_relation_size(c.oid)) filter (where c.relkind = 'i'), 0) as idx,
                                    coalesce(sum(pg_relation_size(c.oid)) filter (where c.relkind in ('r', 'm')), 0) as tbl,
                                    coalesce(sum(pg_relation_size(c.oid)) filter (where c.relkind = 't'), 0) as toast
                               from pg_class c)
              select current_database()::text as name,
                     pg_size_pretty(pg_database_size(current_database())) as database_size,
                     pg_size_pretty(sizes.idx) as total_index_size,
                     pg_size_pretty(sizes.tbl) as total_table_size,
                     pg_size_pretty(sizes.toast) as total_toast_size,
                     coalesce(date_trunc('second', now() - (select stats_reset from pg_stat_database where datname = current_database()))::text, '') as time_since_stats_reset,
                     coalesce((select round(sum(idx_blks_hit)::numeric / nullif(sum(idx_blks_hit + idx_blks_read), 0), 2)::text from pg_statio_user_indexes), '') as index_hit_rate,
                     coalesce((select round(sum(heap_blks_hit)::numeric / nullif(sum(heap_blks_hit + heap_blks_read), 0), 2)::text from pg_statio_user_tables), '') as table_hit_rate,
                     pg_size_pretty((select coalesce(sum(size), 0) from pg_ls_waldir())) as wal_size
                from sizes, p where cardinality(p.managed) >= 0",
    },
    Report {
        name: "replication-slots",
        about: "Show information about replication slots on the database",
        columns: &[
            "Name",
            "Active",
            "State",
            "Replication Client Address",
            "Replication Lag GB",
        ],
        file: "replication_slots",
        sql: "select s.slot_name::text as slot_name, s.active::text as active,
                     coalesce(r.state, 'N/A') as state,
                     coalesce(r.client_addr::text, 'N/A') as replication_client_address,
                     round(greatest(0, pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn)) / 1024 / 1024 / 1024, 2)::text as replication_lag_gb
                from pg_replication_slots s
                left join pg_stat_replication r on r.pid = s.active_pid, (select $1::text[] as managed) p
               where cardinality(p.managed) >= 0
               order by 1",
    },
    Report {
        name: "locks",
        about: "Show queries which have taken out an exclusive lock on a relation",
        columns: &["pid", "relname", "transaction id", "granted", "stmt", "age"],
        file: "locks",
        sql: "select a.pid::text as pid, coalesce(c.relname::text, 'null') as relname,
                     coalesce(l.transactionid::text, 'null') as transactionid, l.granted::text as granted,
                     a.query as query, date_trunc('second', age(now(), a.query_start))::text as age
                from pg_locks l
                join pg_stat_activity a on a.pid = l.pid
                left join pg_class c on c.oid = l.relation, (select $1::text[] as managed) p
               where l.mode in ('ExclusiveLock', 'AccessExclusiveLock') and l.locktype = 'relation'
                 and a.pid <> pg_backend_pid() and cardinality(p.managed) >= 0
               order by a.query_start",
    },
    Report {
        name: "blocking",
        about: "Show queries that are holding locks and the queries that are waiting for them to be released",
        columns: &[
            "blocked pid",
            "blocking statement",
            "blocking duration",
            "blocking pid",
            "blocked statement",
            "blocked duration",
        ],
        file: "blocking",
        sql: "select w.pid::text as blocked_pid, b.query as blocking_statement,
                     date_trunc('second', age(now(), b.query_start))::text as blocking_duration,
                     b.pid::text as blocking_pid, w.query as blocked_statement,
                     date_trunc('second', age(now(), w.query_start))::text as blocked_duration
                from pg_stat_activity w
                cross join lateral unnest(pg_blocking_pids(w.pid)) as bp(pid)
                join pg_stat_activity b on b.pid = bp.pid, (select $1::text[] as managed) p
               where cardinality(p.managed) >= 0
               order by w.query_start",
    },
    Report {
        name: "outliers",
        about: "Show queries from pg_stat_statements ordered by total execution time",
        columns: &[
            "Query",
            "Execution Time",
            "Proportion of exec time",
            "Number Calls",
            "Sync IO time",
        ],
        file: "outliers",
        sql: statements_report!("order by s.total_exec_time desc limit 10"),
    },
    Report {
        name: "calls",
        about: "Show queries from pg_stat_statements ordered by total times called",
        columns: &[
            "Query",
            "Total Execution Time",
            "Proportion of total exec time",
            "Number Calls",
            "Sync IO time",
        ],
        file: "calls",
        sql: statements_report!("order by s.calls desc limit 10"),
    },
    Report {
        name: "index-stats",
        about: "Show combined index size, usage percent, scan counts, and unused status",
        columns: &[
            "Name",
            "Size",
            "Percent used",
            "Index scans",
            "Seq scans",
            "Unused",
        ],
        file: "index_stats",
        sql: "select format('%I.%I', s.schemaname, s.indexrelname) as name,
                     pg_size_pretty(pg_relation_size(s.indexrelid)) as size,
                     coalesce(round(100.0 * s.idx_scan / nullif(s.idx_scan + coalesce(t.seq_scan, 0), 0))::text || '%', '0%') as percent_used,
                     s.idx_scan::text as index_scans, coalesce(t.seq_scan, 0)::text as seq_scans,
                     (s.idx_scan = 0 and not i.indisunique and not i.indisprimary)::text as unused
                from pg_stat_user_indexes s
                join pg_index i on i.indexrelid = s.indexrelid
                left join pg_stat_user_tables t on t.relid = s.relid, (select $1::text[] as managed) p
               where s.schemaname <> all(p.managed)
               order by pg_relation_size(s.indexrelid) desc, 1",
    },
    Report {
        name: "long-running-queries",
        about: "Show currently running queries running for longer than 5 minutes",
        columns: &["pid", "Duration", "Query"],
        file: "long_running_queries",
        sql: "select a.pid::text as pid, date_trunc('second', age(now(), a.query_start))::text as duration, a.query as query
                from pg_stat_activity a, (select $1::text[] as managed) p
               where a.state <> 'idle' and a.pid <> pg_backend_pid()
                 and a.query_start < now() - interval '5 minutes' and cardinality(p.managed) >= 0
               order by a.query_start",
    },
    Report {
        name: "bloat",
        about: "Estimates space allocated to a relation that is full of dead tuples",
        columns: &["Type", "Name", "Bloat", "Waste"],
        file: "bloat",
        // The pages a relation would need for its rows (their average width from pg_stats plus
        // a tuple's header and pointer, a page's header taken off) against the pages it has.
        sql: "with p as (select $1::text[] as managed, current_setting('block_size')::numeric as bs),
                   widths as (select schemaname, tablename, sum(avg_width) as width from pg_stats group by 1, 2),
                   rels as (
                     select 'table' as type, n.nspname, c.relname, c.relpages::numeric as pages,
                            ceil(c.reltuples::numeric * (coalesce(w.width, 0) + 28) / (p.bs - 24)) as expected
                       from pg_class c join pg_namespace n on n.oid = c.relnamespace
                       left join widths w on w.schemaname = n.nspname and w.tablename = c.relname, p
                      where c.relkind = 'r' and n.nspname <> all(p.managed)
                     union all
                     select 'index', n.nspname, ic.relname, ic.relpages::numeric,
                            ceil(ic.reltuples::numeric * (coalesce(w.width, 0) + 16) / ((p.bs - 24) * 0.9)) + 1
                       from pg_index i join pg_class ic on ic.oid = i.indexrelid
                       join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
                       left join widths w on w.schemaname = n.nspname and w.tablename = c.relname, p
                      where n.nspname <> all(p.managed) and ic.relam = (select oid from pg_am where amname = 'btree'))
              select type, format('%I.%I', nspname, relname) as name,
                     round(case when expected > 0 then pages / expected else 0 end, 1)::text as bloat,
                     pg_size_pretty((greatest(pages - expected, 0) * (select bs from p))::bigint) as waste
                from rels
               order by greatest(pages - expected, 0) desc, 2",
    },
    Report {
        name: "role-stats",
        about: "Show information about roles on the database",
        columns: &[
            "Role name",
            "Active connections",
            "Connection limit",
            "Custom config",
        ],
        file: "role_stats",
        sql: "select r.rolname::text as role_name,
                     (select count(*) from pg_stat_activity a where a.usename = r.rolname)::text as active_connections,
                     case when r.rolconnlimit = -1 then current_setting('max_connections') else r.rolconnlimit::text end as connection_limit,
                     coalesce(array_to_string(r.rolconfig, ','), '') as custom_config
                from pg_roles r, (select $1::text[] as managed) p
               where r.rolname not like 'pg\\_%' and cardinality(p.managed) >= 0
               order by (select count(*) from pg_stat_activity a where a.usename = r.rolname) desc, 1",
    },
    Report {
        name: "vacuum-stats",
        about: "Show statistics related to vacuum operations per table",
        columns: &[
            "Table",
            "Last Vacuum",
            "Last Auto Vacuum",
            "Last Analyze",
            "Last Auto Analyze",
            "Row count",
            "Dead row count",
            "Expect autovacuum?",
            "Expect autoanalyze?",
        ],
        file: "vacuum_stats",
        sql: "with p as (select $1::text[] as managed)
              select format('%I.%I', s.schemaname, s.relname) as name,
                     coalesce(to_char(s.last_vacuum, 'YYYY-MM-DD HH24:MI'), '') as last_vacuum,
                     coalesce(to_char(s.last_autovacuum, 'YYYY-MM-DD HH24:MI'), '') as last_autovacuum,
                     coalesce(to_char(s.last_analyze, 'YYYY-MM-DD HH24:MI'), '') as last_analyze,
                     coalesce(to_char(s.last_autoanalyze, 'YYYY-MM-DD HH24:MI'), '') as last_autoanalyze,
                     to_char(greatest(c.reltuples, 0), 'FM9G999G999G999G990') as rowcount,
                     to_char(s.n_dead_tup, 'FM9G999G999G999G990') as dead_rowcount,
                     case when s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::numeric
                               + current_setting('autovacuum_vacuum_scale_factor')::numeric * greatest(c.reltuples, 0)
                          then 'yes' else 'no' end as expect_autovacuum,
                     case when s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::numeric
                               + current_setting('autovacuum_analyze_scale_factor')::numeric * greatest(c.reltuples, 0)
                          then 'yes' else 'no' end as expect_autoanalyze
                from pg_stat_user_tables s join pg_class c on c.oid = s.relid, p
               where s.schemaname <> all(p.managed)
               order by 1",
    },
    Report {
        name: "table-stats",
        about: "Show combined table size, index size, and estimated row count",
        columns: &[
            "Name",
            "Table size",
            "Index size",
            "Total size",
            "Estimated row count",
            "Seq scans",
        ],
        file: "table_stats",
        sql: "select format('%I.%I', n.nspname, c.relname) as name,
                     pg_size_pretty(pg_table_size(c.oid)) as table_size,
                     pg_size_pretty(pg_indexes_size(c.oid)) as index_size,
                     pg_size_pretty(pg_total_relation_size(c.oid)) as total_size,
                     greatest(c.reltuples, 0)::bigint::text as estimated_row_count,
                     coalesce(s.seq_scan, 0)::text as seq_scans
                from pg_class c join pg_namespace n on n.oid = c.relnamespace
                left join pg_stat_user_tables s on s.relid = c.oid, (select $1::text[] as managed) p
               where c.relkind in ('r', 'p', 'm') and n.nspname <> all(p.managed) and n.nspname not like 'pg\\_%'
               order by pg_total_relation_size(c.oid) desc, 1",
    },
    Report {
        name: "traffic-profile",
        about: "Show read/write activity ratio for tables based on block I/O operations",
        columns: &[
            "Schema",
            "Table",
            "Blocks Read",
            "Write Tuples",
            "Blocks Write",
            "Activity Ratio",
        ],
        file: "traffic_profile",
        // Blocks read from disk against the blocks the written rows take (rows written times
        // the table's pages per row); a side five times the other's names the profile.
        sql: "with p as (select $1::text[] as managed),
                   t as (select s.schemaname::text as schemaname, s.relname::text as table_name,
                                coalesce(io.heap_blks_read, 0) + coalesce(io.idx_blks_read, 0) as blocks_read,
                                s.n_tup_ins + s.n_tup_upd + s.n_tup_del as write_tuples,
                                c.relpages * (s.n_tup_ins + s.n_tup_upd + s.n_tup_del)
                                  / greatest(c.reltuples, 1)::numeric as blocks_write
                           from pg_stat_user_tables s
                           join pg_statio_user_tables io on io.relid = s.relid
                           join pg_class c on c.oid = s.relid, p
                          where s.schemaname <> all(p.managed)
                            and (s.n_tup_ins + s.n_tup_upd + s.n_tup_del > 0
                                 or coalesce(io.heap_blks_read, 0) + coalesce(io.idx_blks_read, 0) > 0))
              select schemaname, table_name, blocks_read::text, write_tuples::text,
                     round(blocks_write, 1)::text as blocks_write,
                     case when blocks_read = 0 and blocks_write = 0 then 'No Activity'
                          when blocks_write * 5 > blocks_read then
                            case when blocks_read = 0 then 'Write-Only'
                                 else round(blocks_write / blocks_read, 1)::text || ':1 (Write-Heavy)' end
                          when blocks_read > blocks_write * 5 then
                            case when blocks_write = 0 then 'Read-Only'
                                 else '1:' || round(blocks_read / blocks_write, 1)::text || ' (Read-Heavy)' end
                          else '1:1 (Balanced)' end as activity_ratio
                from t
               order by blocks_read + blocks_write desc, 1, 2",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_deprecated_names() {
        assert_eq!(REPORTS.len(), 13);
        let (r, notice) = find("db-stats").unwrap();
        assert_eq!((r.file, notice), ("db_stats", None));
        let (r, notice) = find("cache-hit").unwrap();
        assert_eq!(r.name, "db-stats");
        assert_eq!(
            notice.as_deref(),
            Some("Command \"cache-hit\" is deprecated, use \"db-stats\" instead.")
        );
        assert!(find("nope").is_none());
        for (_, new) in DEPRECATED {
            assert!(find(new).is_some(), "{new}");
        }
        assert_eq!(names().len(), 25);
        for r in REPORTS {
            assert!(r.sql.contains("$1::text[]"), "{}", r.name);
            assert_eq!(r.file, r.name.replace('-', "_"));
        }
        assert!(find("outliers").unwrap().0.needs_statements());
        assert!(
            find("calls")
                .unwrap()
                .0
                .sql
                .contains("order by s.calls desc")
        );
        assert!(!find("locks").unwrap().0.needs_statements());
    }
}
