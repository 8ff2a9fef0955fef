-- Photos reach the image buckets only through the shop-image Edge Function, which checks what a
-- file is by its content: admins no longer upload to the buckets themselves (they still remove
-- photos no row uses).
DROP POLICY "Admins upload shop images" ON storage.objects;
