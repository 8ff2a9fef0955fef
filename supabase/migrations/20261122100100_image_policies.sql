-- Who may touch the shop's two image buckets (the buckets themselves, 5 MiB of PNG/JPEG/WEBP,
-- are declared in config.toml): anyone reads, admins write.

CREATE POLICY "Anyone reads shop images" ON storage.objects
  FOR SELECT TO anon, authenticated
  USING (bucket_id IN ('product-images', 'category-images'));
CREATE POLICY "Admins upload shop images" ON storage.objects
  FOR INSERT TO authenticated
  WITH CHECK (bucket_id IN ('product-images', 'category-images') AND public.is_admin());
CREATE POLICY "Admins update shop images" ON storage.objects
  FOR UPDATE TO authenticated
  USING (bucket_id IN ('product-images', 'category-images') AND public.is_admin());
CREATE POLICY "Admins delete shop images" ON storage.objects
  FOR DELETE TO authenticated
  USING (bucket_id IN ('product-images', 'category-images') AND public.is_admin());
CREATE POLICY "Anyone sees the shop buckets" ON storage.buckets
  FOR SELECT TO anon, authenticated
  USING (id IN ('product-images', 'category-images'));
