-- Supabase Realtime's schema: the `supabase_realtime` publication tables opt into with
-- `alter publication supabase_realtime add table …`, `realtime.messages` (broadcasts from the
-- database, and the rows whose RLS decides who may use a private channel), `realtime.topic()`,
-- `realtime.send()`, `realtime.send_binary()` and `realtime.broadcast_changes()`.
CREATE SCHEMA IF NOT EXISTS realtime;
GRANT USAGE ON SCHEMA realtime TO anon, authenticated, service_role;
GRANT CREATE, USAGE ON SCHEMA realtime TO supabase_realtime_admin WITH GRANT OPTION;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$$;

CREATE TABLE realtime.messages (
  topic text NOT NULL,
  extension text NOT NULL,
  payload jsonb,
  event text,
  private boolean DEFAULT false,
  updated_at timestamp NOT NULL DEFAULT now(),
  inserted_at timestamp NOT NULL DEFAULT now(),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  binary_payload bytea,
  CONSTRAINT messages_payload_exclusive CHECK (payload IS NULL OR binary_payload IS NULL),
  CONSTRAINT messages_pkey PRIMARY KEY (id, inserted_at)
);
CREATE INDEX messages_inserted_at_topic_index ON realtime.messages (inserted_at DESC, topic)
  WHERE extension = 'broadcast' AND private IS TRUE;
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE realtime.messages OWNER TO supabase_realtime_admin;
GRANT INSERT, SELECT, UPDATE ON realtime.messages TO anon, authenticated, service_role;

CREATE FUNCTION realtime.topic() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('realtime.topic', true), '')::text
$$;

CREATE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  generated_id uuid := gen_random_uuid();
BEGIN
  BEGIN
    EXECUTE format('SET LOCAL realtime.topic TO %L', topic);
    INSERT INTO realtime.messages (id, payload, event, topic, private, extension)
    VALUES (generated_id,
            CASE WHEN payload ? 'id' THEN payload ELSE jsonb_set(payload, '{id}', to_jsonb(generated_id)) END,
            event, topic, private, 'broadcast');
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'WarnSendingBroadcastMessage: %', SQLERRM;
  END;
END
$$;

CREATE FUNCTION realtime.send_binary(payload bytea, event text, topic text, private boolean DEFAULT true)
  RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE format('SET LOCAL realtime.topic TO %L', topic);
    INSERT INTO realtime.messages (binary_payload, event, topic, private, extension)
    VALUES (payload, event, topic, private, 'broadcast');
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'WarnSendingBroadcastMessage: %', SQLERRM;
  END;
END
$$;

CREATE FUNCTION realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text DEFAULT 'ROW'
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF level = 'STATEMENT' THEN
    RAISE EXCEPTION 'function can only be triggered for each row, not for each statement';
  END IF;
  IF operation NOT IN ('INSERT', 'UPDATE', 'DELETE') THEN
    RAISE EXCEPTION 'Unexpected operation type: %', operation;
  END IF;
  PERFORM realtime.send(
    jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                       'table', table_name, 'schema', table_schema),
    event_name, topic_name);
END
$$;

ALTER FUNCTION realtime.topic() OWNER TO supabase_realtime_admin;
ALTER FUNCTION realtime.send(jsonb, text, text, boolean) OWNER TO supabase_realtime_admin;
ALTER FUNCTION realtime.send_binary(bytea, text, text, boolean) OWNER TO supabase_realtime_admin;
ALTER FUNCTION realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  OWNER TO supabase_realtime_admin;

-- Everything below is supagate's own (Supabase Realtime keeps the same in its processes): how
-- gateways, one or several on one database, hear of broadcasts, changes and presences.

-- A committed broadcast from the database (realtime.send) is announced at once; the gateway
-- storing a client's broadcast (`persist`) delivers it itself and says so with supagate.quiet.
CREATE FUNCTION realtime.supagate_notify_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.extension = 'broadcast' AND current_setting('supagate.quiet', true) IS DISTINCT FROM 'on' THEN
    PERFORM pg_notify('supagate_realtime',
      json_build_object('k', 'm', 'id', NEW.id, 'at', NEW.inserted_at)::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER supagate_notify AFTER INSERT ON realtime.messages
  FOR EACH ROW EXECUTE FUNCTION realtime.supagate_notify_message();

-- Which of `identities` ([{"role": …, "claims": {…}}, …]) may see the row of `entity` with
-- primary key `pk` ({column: value}) after `action`, as Supabase Realtime decides it: the role
-- needs SELECT on the table; with row level security on, inserts and updates reach a subscriber
-- only if that subscriber's role and claims can select the row now (deletes cannot be checked:
-- their old record carries the primary key only). Returns the indexes of those that may.
CREATE FUNCTION realtime.supagate_visible(entity regclass, action text, pk jsonb, identities jsonb)
  RETURNS integer[] LANGUAGE plpgsql AS $$
DECLARE
  rls boolean := (SELECT relrowsecurity FROM pg_class WHERE oid = entity);
  cond text;
  ident jsonb;
  i integer := 0;
  seen boolean;
  visible integer[] := '{}';
BEGIN
  SELECT string_agg(format('%I = %L', key, value #>> '{}'), ' AND ') INTO cond
    FROM jsonb_each(pk);
  FOR ident IN SELECT value FROM jsonb_array_elements(identities) LOOP
    IF has_table_privilege(ident ->> 'role', entity, 'SELECT') THEN
      IF NOT rls OR action = 'DELETE' THEN
        visible := visible || i;
      ELSIF cond IS NOT NULL THEN
        PERFORM set_config('role', ident ->> 'role', true),
                set_config('request.jwt.claims', ident ->> 'claims', true);
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE %s)', entity, cond) INTO seen;
        PERFORM set_config('role', 'none', true);
        IF seen THEN
          visible := visible || i;
        END IF;
      END IF;
    END IF;
    i := i + 1;
  END LOOP;
  RETURN visible;
END
$$;
REVOKE ALL ON FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb)
  TO anon, authenticated, service_role;

-- Decoded changes, from the gateway reading the replication slot to every gateway; `lsn` is
-- the commit's position, so a change is recorded once even if decoded twice. Kept a minute.
CREATE UNLOGGED TABLE realtime.supagate_changes (
  id bigserial PRIMARY KEY,
  lsn pg_lsn NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Broadcasts too large for a notification's payload, kept a minute.
CREATE UNLOGGED TABLE realtime.supagate_relay (
  id bigserial PRIMARY KEY,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Who is present where, for every gateway.
CREATE UNLOGGED TABLE realtime.supagate_presences (
  presence_ref text PRIMARY KEY,
  topic text NOT NULL,
  private boolean NOT NULL,
  key text NOT NULL,
  replica text NOT NULL,
  meta jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX supagate_presences_topic ON realtime.supagate_presences (topic, private);
CREATE INDEX supagate_presences_replica ON realtime.supagate_presences (replica);
-- Gateways alive (they check in every few seconds); the presences of one gone silent are left.
CREATE UNLOGGED TABLE realtime.supagate_replicas (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON realtime.supagate_changes, realtime.supagate_relay, realtime.supagate_presences,
  realtime.supagate_replicas FROM PUBLIC, anon, authenticated, service_role;
