-- What each gateway's change subscribers listen to: the capturing gateway records the changes of
-- these tables only (decoding and recording the others would be work no one reads). A gateway
-- writes its row before it confirms a subscription and renews it while it has subscribers; a
-- row past `until` (a gateway gone) no longer counts. `schemas[i]`.`tables[i]` is one table;
-- `*` stands for every schema or every table of a schema.
CREATE TABLE realtime.supagate_listening (
  replica text PRIMARY KEY,
  schemas text[] NOT NULL,
  tables text[] NOT NULL,
  until timestamptz NOT NULL
);
REVOKE ALL ON realtime.supagate_listening FROM PUBLIC, anon, authenticated, service_role;
