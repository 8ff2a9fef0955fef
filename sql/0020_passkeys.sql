-- Passkeys ([auth.passkey]): the WebAuthn credentials users registered (a P-256 public key, its
-- signature counter), and the ceremonies in progress (a challenge, good five minutes, used once).
CREATE TABLE auth.webauthn_credentials (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  credential_id bytea NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  sign_count bigint NOT NULL DEFAULT 0,
  transports jsonb NOT NULL DEFAULT '[]',
  aaguid uuid,
  friendly_name text CHECK (char_length(friendly_name) <= 120),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX webauthn_credentials_user_id_idx ON auth.webauthn_credentials (user_id);

CREATE TABLE auth.webauthn_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('registration', 'authentication')),
  challenge text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL DEFAULT now() + interval '5 minutes'
);
CREATE INDEX webauthn_challenges_expires_at_idx ON auth.webauthn_challenges (expires_at);

REVOKE ALL ON auth.webauthn_credentials, auth.webauthn_challenges FROM PUBLIC;
GRANT ALL ON auth.webauthn_credentials, auth.webauthn_challenges
  TO supabase_auth_admin, dashboard_user;
