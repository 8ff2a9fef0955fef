-- supagate's own: the one-time codes of the local stand-in for OAuth providers (development
-- only), each the profile the developer picked or made on the stand-in's sign-in page, until
-- /callback takes it (within five minutes).
CREATE TABLE supagate.local_oauth_codes (
  code text PRIMARY KEY,
  provider text NOT NULL,
  profile jsonb NOT NULL,
  expires_at timestamptz NOT NULL DEFAULT now() + interval '5 minutes'
);
REVOKE ALL ON supagate.local_oauth_codes FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON supagate.local_oauth_codes TO supabase_auth_admin;
