-- Supabase Storage's metadata, with storage-api's columns. Bytes live in the object store; rows
-- here are under RLS, which decides who may read and write objects.
CREATE SCHEMA IF NOT EXISTS storage;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;

CREATE TYPE storage.buckettype AS ENUM ('STANDARD', 'ANALYTICS', 'VECTOR');

CREATE TABLE storage.buckets (
  id text PRIMARY KEY,
  name text NOT NULL,
  owner uuid,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  public boolean DEFAULT false,
  avif_autodetection boolean DEFAULT false,
  file_size_limit bigint CHECK (file_size_limit IS NULL OR file_size_limit > 0),
  allowed_mime_types text[],
  owner_id text,
  type storage.buckettype NOT NULL DEFAULT 'STANDARD'
);
CREATE UNIQUE INDEX bname ON storage.buckets (name);

CREATE TABLE storage.objects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bucket_id text NOT NULL REFERENCES storage.buckets (id),
  name text NOT NULL,
  owner uuid,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  last_accessed_at timestamptz DEFAULT now(),
  metadata jsonb,
  path_tokens text[] GENERATED ALWAYS AS (string_to_array(name, '/')) STORED,
  version text,
  owner_id text,
  user_metadata jsonb
);
CREATE UNIQUE INDEX bucketid_objname ON storage.objects (bucket_id, name);
CREATE INDEX idx_objects_bucket_id_name ON storage.objects (bucket_id, name COLLATE "C");
CREATE INDEX name_prefix_search ON storage.objects (name text_pattern_ops);

CREATE TABLE storage.s3_multipart_uploads (
  id text PRIMARY KEY,
  in_progress_size bigint NOT NULL DEFAULT 0,
  upload_signature text NOT NULL,
  bucket_id text NOT NULL REFERENCES storage.buckets (id),
  key text COLLATE "C" NOT NULL,
  version text NOT NULL,
  owner_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  user_metadata jsonb
);

CREATE TABLE storage.s3_multipart_uploads_parts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  upload_id text NOT NULL REFERENCES storage.s3_multipart_uploads (id) ON DELETE CASCADE,
  size bigint NOT NULL DEFAULT 0,
  part_number integer NOT NULL,
  bucket_id text NOT NULL REFERENCES storage.buckets (id),
  key text COLLATE "C" NOT NULL,
  etag text NOT NULL,
  owner_id text,
  version text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE storage.migrations (
  id integer PRIMARY KEY,
  name varchar(100) NOT NULL UNIQUE,
  hash varchar(40) NOT NULL,
  executed_at timestamp DEFAULT CURRENT_TIMESTAMP
);

ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.s3_multipart_uploads ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.s3_multipart_uploads_parts ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.migrations ENABLE ROW LEVEL SECURITY;
GRANT ALL ON storage.buckets, storage.objects TO anon, authenticated, service_role;
GRANT ALL ON storage.s3_multipart_uploads, storage.s3_multipart_uploads_parts TO service_role;

-- Helpers Supabase policies use.
CREATE OR REPLACE FUNCTION storage.foldername(name text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT (string_to_array(name, '/'))[1:array_length(string_to_array(name, '/'), 1) - 1]
$$;
CREATE OR REPLACE FUNCTION storage.filename(name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT (string_to_array(name, '/'))[array_length(string_to_array(name, '/'), 1)]
$$;
CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN storage.filename(name) LIKE '%.%'
              THEN reverse(split_part(reverse(storage.filename(name)), '.', 1)) ELSE '' END
$$;
GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text)
  TO anon, authenticated, service_role;

-- Storage's own role does the bookkeeping once RLS has allowed an action.
GRANT USAGE ON SCHEMA storage TO supabase_storage_admin;
GRANT ALL ON ALL TABLES IN SCHEMA storage TO supabase_storage_admin;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA storage TO supabase_storage_admin;
GRANT USAGE ON SCHEMA storage TO dashboard_user;
GRANT ALL ON ALL TABLES IN SCHEMA storage TO dashboard_user;
