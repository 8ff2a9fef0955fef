-- GoTrue's OAuth 2.1 server ([auth.oauth_server]): the clients registered with it (by an admin
-- or, when allowed, dynamically), the authorizations a client asked a user for (pending until
-- the user approves or denies them on the app's consent page, then a one-time code), and the
-- consents users gave (a later authorization of the same scopes needs no second approval).
-- Names and columns as GoTrue's migrations make them, enum types as checked text.
CREATE TABLE auth.oauth_clients (
  id uuid PRIMARY KEY,
  client_secret_hash text,
  registration_type text NOT NULL CHECK (registration_type IN ('dynamic', 'manual')),
  redirect_uris text NOT NULL,
  grant_types text NOT NULL,
  client_name text CHECK (char_length(client_name) <= 1024),
  client_uri text CHECK (char_length(client_uri) <= 2048),
  logo_uri text CHECK (char_length(logo_uri) <= 2048),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  client_type text NOT NULL DEFAULT 'confidential' CHECK (client_type IN ('public', 'confidential'))
);
CREATE INDEX oauth_clients_deleted_at_idx ON auth.oauth_clients (deleted_at);

CREATE TABLE auth.oauth_authorizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  authorization_id text NOT NULL UNIQUE,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL CHECK (char_length(redirect_uri) <= 2048),
  scope text NOT NULL CHECK (char_length(scope) <= 4096),
  state text CHECK (char_length(state) <= 4096),
  resource text CHECK (char_length(resource) <= 2048),
  code_challenge text CHECK (char_length(code_challenge) <= 128),
  code_challenge_method text CHECK (code_challenge_method IN ('s256', 'plain')),
  response_type text NOT NULL DEFAULT 'code' CHECK (response_type = 'code'),
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  authorization_code text UNIQUE CHECK (char_length(authorization_code) <= 255),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL DEFAULT now() + interval '3 minutes',
  approved_at timestamptz
);
CREATE INDEX oauth_auth_pending_exp_idx ON auth.oauth_authorizations (expires_at)
  WHERE status = 'pending';

CREATE TABLE auth.oauth_consents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  client_id uuid NOT NULL REFERENCES auth.oauth_clients (id) ON DELETE CASCADE,
  scopes text NOT NULL CHECK (char_length(scopes) <= 2048),
  granted_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  UNIQUE (user_id, client_id)
);

-- A session an OAuth client obtained; revoking the user's grant ends it.
ALTER TABLE auth.sessions ADD COLUMN oauth_client_id uuid
  REFERENCES auth.oauth_clients (id) ON DELETE CASCADE;

REVOKE ALL ON auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents FROM PUBLIC;
GRANT ALL ON auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents
  TO supabase_auth_admin, dashboard_user;
