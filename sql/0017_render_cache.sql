-- supagate's own: the image renderings kept in the object store (renders/<version>/<digest>),
-- with their size and last use, so that every replica keeps the cache within its byte budget
-- and each object within its number of variants, least recently used going first.
CREATE TABLE storage.supagate_renders (
  path text PRIMARY KEY,
  version text NOT NULL,
  bytes bigint NOT NULL,
  used_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX supagate_renders_version ON storage.supagate_renders (version, used_at DESC);
CREATE INDEX supagate_renders_used_at ON storage.supagate_renders (used_at DESC);
REVOKE ALL ON storage.supagate_renders FROM PUBLIC;
GRANT ALL ON storage.supagate_renders TO supabase_storage_admin;
