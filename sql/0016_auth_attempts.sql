-- supagate's own: the last TOTP time step each factor accepted. A code is good once
-- (RFC 6238 section 5.2): a step at or before this one is refused.
CREATE TABLE auth.mfa_totp_steps (
  factor_id uuid PRIMARY KEY REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
  last_step bigint NOT NULL
);
REVOKE ALL ON auth.mfa_totp_steps FROM PUBLIC;
GRANT ALL ON auth.mfa_totp_steps TO supabase_auth_admin;
