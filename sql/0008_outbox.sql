-- Mail an app sends from the database (supagate's own addition; Supabase apps use an Edge
-- Function for this). `supagate.send_mail(recipient, subject, body)` queues a plain-text mail in
-- the caller's transaction; after it commits, a gateway sends it through [auth.email.smtp], or
-- the built-in catcher keeps it. A rolled-back transaction sends nothing. Several gateways share
-- the queue: each mail is taken by one of them (FOR UPDATE SKIP LOCKED), retried with back-off
-- when the SMTP server refuses it, and given up after 8 attempts (last_error says why).
CREATE TABLE supagate.outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recipient text NOT NULL CHECK (char_length(recipient) <= 320 AND recipient ~ '^[^@\s<>,;]+@[^@\s<>,;]+$'),
  subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200 AND subject !~ '[\r\n]'),
  body text NOT NULL CHECK (octet_length(body) <= 65536),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX outbox_due ON supagate.outbox (next_attempt_at) WHERE attempts < 8;
REVOKE ALL ON supagate.outbox FROM PUBLIC;

CREATE FUNCTION supagate.send_mail(recipient text, subject text, body text) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  INSERT INTO supagate.outbox (recipient, subject, body) VALUES (recipient, subject, body);
  PERFORM pg_notify('supagate_outbox', '');
END
$$;
-- Only the role that runs migrations (its owner) and the SECURITY DEFINER functions it writes
-- may queue mail; the API roles never call it directly.
REVOKE ALL ON FUNCTION supagate.send_mail(text, text, text) FROM PUBLIC;
