-- Mail caught by the built-in catcher (what the Supabase CLI's Mailpit shows), shared by every
-- gateway on the database. The newest 1000 are kept.
CREATE TABLE supagate.mail (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id text NOT NULL,
  sender_name text NOT NULL,
  sender text NOT NULL,
  recipient text NOT NULL,
  subject text NOT NULL,
  html text NOT NULL,
  text text NOT NULL,
  kind text NOT NULL,
  read boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX mail_created_at ON supagate.mail (created_at DESC);
CREATE INDEX mail_recipient ON supagate.mail (lower(recipient), created_at DESC);
REVOKE ALL ON supagate.mail FROM PUBLIC;
