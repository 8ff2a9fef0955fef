-- The ids of recorded changes and relayed broadcasts are never handed out twice. Their tables
-- are unlogged (a crash empties them), and so were their sequences, which a crash set back to
-- 1: a gateway that had delivered up to change n took the first n changes recorded after the
-- crash for ones it had already delivered. A logged sequence resumes past every id it gave.
ALTER SEQUENCE realtime.supagate_changes_id_seq SET LOGGED;
ALTER SEQUENCE realtime.supagate_relay_id_seq SET LOGGED;
