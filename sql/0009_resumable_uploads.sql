-- Resumable (tus 1.0.0) uploads in progress, shared by every gateway: the bytes received so far
-- are parts in the object store (`resumable/<id>/…`, listed here in order); the object row is
-- written only when the last byte has arrived, in one transaction. An upload not finished by
-- `expires_at` is swept with its parts.
CREATE TABLE supagate.resumable_uploads (
  -- base64url of `<bucket>/<name>/<version>`, the last segment of the upload URL.
  id text PRIMARY KEY,
  bucket_id text NOT NULL,
  name text NOT NULL,
  version text NOT NULL,
  -- The creator's `sub`: only they may continue the upload.
  owner_id text,
  upsert boolean NOT NULL DEFAULT false,
  upload_length bigint NOT NULL CHECK (upload_length >= 0),
  upload_offset bigint NOT NULL DEFAULT 0 CHECK (upload_offset BETWEEN 0 AND upload_length),
  parts text[] NOT NULL DEFAULT '{}',
  content_type text NOT NULL,
  cache_control text NOT NULL,
  user_metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX resumable_uploads_expiry ON supagate.resumable_uploads (expires_at);
REVOKE ALL ON supagate.resumable_uploads FROM PUBLIC;
GRANT USAGE ON SCHEMA supagate TO supabase_storage_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON supagate.resumable_uploads TO supabase_storage_admin;
