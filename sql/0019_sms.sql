-- Text messages caught by the built-in SMS catcher ([auth.sms] without a provider): the codes
-- the auth API would have sent, shared by every gateway on the database and listed on the mail
-- catcher's page and API. The newest 1000 are kept.
CREATE TABLE supagate.sms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  recipient text NOT NULL,
  body text NOT NULL,
  kind text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX sms_created_at ON supagate.sms (created_at DESC);
CREATE INDEX sms_recipient ON supagate.sms (recipient, created_at DESC);
REVOKE ALL ON supagate.sms FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON supagate.sms TO supabase_auth_admin;

-- As GoTrue's schema: one user per phone number.
ALTER TABLE auth.users ADD CONSTRAINT users_phone_key UNIQUE (phone);
