-- Staff management of the shop: who is an administrator. Only the service role may call these
-- (scripts/shop-admin does, with the service key); RLS keeps user_roles to admins otherwise.
CREATE OR REPLACE FUNCTION public.grant_admin(email text) RETURNS uuid
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  uid uuid;
BEGIN
  SELECT u.id INTO uid FROM auth.users u WHERE lower(u.email) = lower(grant_admin.email);
  IF uid IS NULL THEN
    RAISE EXCEPTION 'No user with the e-mail %', email
      USING ERRCODE = 'P0002', HINT = 'Create the user first (sign up, or: supagate users create EMAIL PASSWORD).';
  END IF;
  INSERT INTO public.user_roles (user_id, role) VALUES (uid, 'admin') ON CONFLICT DO NOTHING;
  RETURN uid;
END
$$;

CREATE OR REPLACE FUNCTION public.revoke_admin(email text) RETURNS boolean
  LANGUAGE sql SECURITY DEFINER SET search_path = '' AS $$
  WITH gone AS (
    DELETE FROM public.user_roles r USING auth.users u
    WHERE r.user_id = u.id AND lower(u.email) = lower(revoke_admin.email) AND r.role = 'admin'
    RETURNING r.user_id
  )
  SELECT EXISTS (SELECT 1 FROM gone)
$$;

CREATE OR REPLACE FUNCTION public.list_admins()
  RETURNS TABLE (email text, since timestamptz)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT u.email::text, r.created_at FROM public.user_roles r JOIN auth.users u ON u.id = r.user_id
  WHERE r.role = 'admin' ORDER BY u.email
$$;

REVOKE ALL ON FUNCTION public.grant_admin(text), public.revoke_admin(text), public.list_admins()
  FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.grant_admin(text), public.revoke_admin(text), public.list_admins()
  TO service_role;
