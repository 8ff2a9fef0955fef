-- How far change capture has recorded, kept in a logged table: realtime.supagate_changes is
-- unlogged (emptied by a crash) and a replication slot's position is saved at checkpoints, so
-- after PostgreSQL crashes the slot hands out again changes already recorded; this mark, written
-- in the same transaction as the changes, says which to skip.
CREATE TABLE realtime.supagate_capture (
  slot text PRIMARY KEY,
  recorded_upto pg_lsn NOT NULL
);
REVOKE ALL ON realtime.supagate_capture FROM PUBLIC;
