-- GoTrue's table of the PKCE verifiers supagate keeps when it is the OAuth client of a provider
-- that wants PKCE (X): made at /authorize, taken once at /callback, good for five minutes.
CREATE TABLE IF NOT EXISTS auth.oauth_client_states (
  id uuid PRIMARY KEY,
  provider_type text NOT NULL,
  code_verifier text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_oauth_client_states_created_at ON auth.oauth_client_states (created_at);
REVOKE ALL ON auth.oauth_client_states FROM PUBLIC;
GRANT ALL ON auth.oauth_client_states TO supabase_auth_admin, dashboard_user;
