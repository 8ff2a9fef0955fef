-- Staff management from the admin panel: the staff functions may now be called by an admin as
-- well as by the service role (scripts/shop-admin), the last admin cannot be revoked, and roles
-- change only through these functions (no direct writes to user_roles from the API).

DROP POLICY "Admins manage roles" ON public.user_roles;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.user_roles FROM anon, authenticated;

-- Stops a caller who is neither an admin nor the service role.
CREATE OR REPLACE FUNCTION public.require_admin() RETURNS void
  LANGUAGE plpgsql STABLE SET search_path = '' AS $$
BEGIN
  IF coalesce(auth.role(), '') <> 'service_role' AND NOT public.is_admin() THEN
    RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'Only shop administrators may do this';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION public.grant_admin(email text) RETURNS uuid
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  uid uuid;
BEGIN
  PERFORM public.require_admin();
  SELECT u.id INTO uid FROM auth.users u
    WHERE lower(u.email) = lower(btrim(grant_admin.email)) AND u.deleted_at IS NULL;
  IF uid IS NULL THEN
    RAISE EXCEPTION 'No account uses the e-mail %', btrim(email)
      USING ERRCODE = 'PT404',
            HINT = 'They sign up on /auth first (or: supagate users create EMAIL PASSWORD).';
  END IF;
  INSERT INTO public.user_roles (user_id, role) VALUES (uid, 'admin') ON CONFLICT DO NOTHING;
  RETURN uid;
END
$$;

CREATE OR REPLACE FUNCTION public.revoke_admin(email text) RETURNS boolean
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  uid uuid;
  admins integer;
BEGIN
  PERFORM public.require_admin();
  -- Two admins revoking each other at once must not leave the shop without one.
  LOCK TABLE public.user_roles IN SHARE ROW EXCLUSIVE MODE;
  SELECT r.user_id INTO uid FROM public.user_roles r JOIN auth.users u ON u.id = r.user_id
    WHERE lower(u.email) = lower(btrim(revoke_admin.email)) AND r.role = 'admin';
  IF uid IS NULL THEN
    RETURN false;
  END IF;
  SELECT count(*) INTO admins FROM public.user_roles WHERE role = 'admin';
  IF admins <= 1 THEN
    RAISE EXCEPTION 'The shop needs at least one administrator'
      USING ERRCODE = 'PT409', HINT = 'Make someone else an administrator first.';
  END IF;
  DELETE FROM public.user_roles WHERE user_id = uid AND role = 'admin';
  RETURN true;
END
$$;

DROP FUNCTION public.list_admins();
CREATE FUNCTION public.list_admins()
  RETURNS TABLE (user_id uuid, email text, since timestamptz, last_sign_in_at timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  PERFORM public.require_admin();
  RETURN QUERY
    SELECT u.id, u.email::text, r.created_at, u.last_sign_in_at
    FROM public.user_roles r JOIN auth.users u ON u.id = r.user_id
    WHERE r.role = 'admin' ORDER BY u.email;
END
$$;

REVOKE ALL ON FUNCTION public.require_admin(), public.grant_admin(text), public.revoke_admin(text),
  public.list_admins() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.require_admin(), public.grant_admin(text), public.revoke_admin(text),
  public.list_admins() TO authenticated, service_role;
