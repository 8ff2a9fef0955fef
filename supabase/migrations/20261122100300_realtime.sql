-- The admin panel's counts and lists follow changes other admins make (Realtime
-- postgres_changes; each admin only hears of rows RLS lets them read).
ALTER PUBLICATION supabase_realtime ADD TABLE public.products, public.categories,
  public.product_categories;
