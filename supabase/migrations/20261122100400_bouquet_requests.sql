-- Bouquet requests reach the shop. Visitors insert through RLS (the form on /build-bouquet);
-- only admins read and handle them. A trigger checks every field with the form's own messages
-- (frontend/src/features/bouquet/schema.ts), drops what a bot typed into the hidden honeypot
-- field, limits requests per client address, and mails the shop when the platform can send mail.

-- Where new requests are mailed: one row, admins change it on the Staff page.
CREATE TABLE public.shop_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  notify_email text CHECK (notify_email ~ '^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$' AND char_length(notify_email) <= 254),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO public.shop_settings (notify_email) VALUES (NULL);
CREATE TRIGGER shop_settings_updated_at BEFORE UPDATE ON public.shop_settings
  FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();
ALTER TABLE public.shop_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Admins read the settings" ON public.shop_settings
  FOR SELECT TO authenticated USING (public.is_admin());
CREATE POLICY "Admins change the settings" ON public.shop_settings
  FOR UPDATE TO authenticated USING (public.is_admin()) WITH CHECK (public.is_admin());
REVOKE ALL ON public.shop_settings FROM anon, authenticated;
GRANT SELECT, UPDATE (notify_email) ON public.shop_settings TO authenticated;
GRANT ALL ON public.shop_settings TO service_role;

CREATE TYPE public.request_status AS ENUM ('new', 'contacted', 'done');

CREATE TABLE public.bouquet_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  size text NOT NULL CHECK (size IN ('good', 'better', 'best')),
  colors text[] NOT NULL CHECK (
    cardinality(colors) BETWEEN 1 AND 8
    AND colors <@ ARRAY['Pink', 'Yellow', 'Whites', 'Purples', 'Reds', 'Oranges', 'Blues', 'Greens']),
  design_style text NOT NULL CHECK (design_style IN ('modern', 'traditional', 'rustic')),
  occasion text NOT NULL CHECK (occasion IN ('seasonal', 'best-sellers', 'everyday', 'birthday',
    'get-well', 'baby', 'love-romance', 'designers-choice', 'plants', 'dance-flowers', 'sympathy',
    'service', 'home')),
  named_arrangement text CHECK (char_length(named_arrangement) <= 100),
  special_requests text CHECK (char_length(special_requests) <= 2000),
  customer_name text NOT NULL CHECK (char_length(customer_name) BETWEEN 1 AND 200),
  customer_phone text NOT NULL CHECK (char_length(customer_phone) BETWEEN 1 AND 50),
  customer_email text NOT NULL CHECK (char_length(customer_email) <= 254),
  status public.request_status NOT NULL DEFAULT 'new',
  -- When an admin first opened it; NULL is unread.
  read_at timestamptz,
  -- The honeypot: a field people never see. A request that fills it is silently dropped.
  website text CHECK (website IS NULL),
  client_address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bouquet_requests_created_idx ON public.bouquet_requests (created_at DESC);
CREATE INDEX bouquet_requests_unread_idx ON public.bouquet_requests (created_at) WHERE read_at IS NULL;
CREATE INDEX bouquet_requests_address_idx ON public.bouquet_requests (client_address, created_at);
CREATE TRIGGER bouquet_requests_updated_at BEFORE UPDATE ON public.bouquet_requests
  FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();

-- The form's rules and messages, for every client: the same checks as the zod schema.
CREATE OR REPLACE FUNCTION public.check_bouquet_request() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  addr text := nullif(current_setting('request.headers', true), '')::json ->> 'x-real-ip';
  recent integer;
  fail text;
BEGIN
  IF nullif(btrim(NEW.website), '') IS NOT NULL THEN
    RETURN NULL;
  END IF;
  NEW.website := NULL;
  NEW.customer_name := btrim(NEW.customer_name);
  NEW.customer_phone := btrim(NEW.customer_phone);
  NEW.customer_email := btrim(NEW.customer_email);
  NEW.named_arrangement := nullif(btrim(NEW.named_arrangement), '');
  NEW.special_requests := nullif(btrim(NEW.special_requests), '');
  NEW.colors := ARRAY(SELECT c FROM unnest(NEW.colors) WITH ORDINALITY AS t(c, i) GROUP BY c ORDER BY min(i));
  fail := CASE
    WHEN NEW.size IS NULL OR NEW.size NOT IN ('good', 'better', 'best') THEN 'Please select a size'
    WHEN coalesce(cardinality(NEW.colors), 0) = 0
      OR NOT NEW.colors <@ ARRAY['Pink', 'Yellow', 'Whites', 'Purples', 'Reds', 'Oranges', 'Blues', 'Greens']
      THEN 'Please select at least one color'
    WHEN NEW.design_style IS NULL OR NEW.design_style NOT IN ('modern', 'traditional', 'rustic')
      THEN 'Please select a design style'
    WHEN NEW.occasion IS NULL OR NEW.occasion NOT IN ('seasonal', 'best-sellers', 'everyday',
      'birthday', 'get-well', 'baby', 'love-romance', 'designers-choice', 'plants', 'dance-flowers',
      'sympathy', 'service', 'home') THEN 'Please select an occasion'
    WHEN char_length(NEW.named_arrangement) > 100 THEN 'Named arrangement must be at most 100 characters'
    WHEN char_length(NEW.special_requests) > 2000 THEN 'Special requests must be at most 2000 characters'
    WHEN coalesce(NEW.customer_name, '') = '' THEN 'Name is required'
    WHEN char_length(NEW.customer_name) > 200 OR NEW.customer_name ~ '[[:cntrl:]]'
      THEN 'Name must be at most 200 characters'
    WHEN coalesce(NEW.customer_phone, '') = '' THEN 'Phone number is required'
    WHEN char_length(NEW.customer_phone) > 50 OR NEW.customer_phone ~ '[[:cntrl:]]'
      THEN 'Phone number must be at most 50 characters'
    WHEN coalesce(NEW.customer_email, '') !~ '^[A-Za-z0-9_''+.-]*[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$'
      OR NEW.customer_email ~ '^\.|\.\.' OR char_length(NEW.customer_email) > 254
      THEN 'Valid email is required'
  END;
  IF fail IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = fail;
  END IF;
  -- What a visitor sends is a new, unread request, whatever the body says.
  NEW.status := 'new';
  NEW.read_at := NULL;
  NEW.created_at := now();
  NEW.client_address := addr;
  IF addr IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtext('bouquet_requests:' || addr));
    SELECT count(*) INTO recent FROM public.bouquet_requests
      WHERE client_address = addr AND created_at > now() - interval '1 hour';
    IF recent >= 5 THEN
      RAISE EXCEPTION USING ERRCODE = 'PT429',
        MESSAGE = 'You have sent several requests in the last hour. Please call us to add another.';
    END IF;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER bouquet_requests_check BEFORE INSERT ON public.bouquet_requests
  FOR EACH ROW EXECUTE FUNCTION public.check_bouquet_request();

-- The shop's notification: a plain-text mail to shop_settings.notify_email, through the
-- gateway's mailer (supagate.send_mail). On a database without it the request is still saved.
CREATE OR REPLACE FUNCTION public.notify_bouquet_request() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  recipient text := (SELECT notify_email FROM public.shop_settings);
  sizes constant jsonb := '{"good": "Good (classic)", "better": "Better (premium)", "best": "Best (luxury)"}';
BEGIN
  IF recipient IS NULL OR to_regprocedure('supagate.send_mail(text, text, text)') IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE 'SELECT supagate.send_mail($1, $2, $3)' USING
    recipient,
    'Bouquet request from ' || left(NEW.customer_name, 80),
    concat_ws(E'\n',
      'A bouquet request came in through the website. We promise a call within 24 hours.',
      '',
      'Name: ' || NEW.customer_name,
      'Phone: ' || NEW.customer_phone,
      'E-mail: ' || NEW.customer_email,
      '',
      'Size: ' || (sizes ->> NEW.size),
      'Colors: ' || array_to_string(NEW.colors, ', '),
      'Design style: ' || initcap(NEW.design_style),
      'Occasion: ' || NEW.occasion,
      'Named arrangement: ' || coalesce('The ' || NEW.named_arrangement, 'no preference'),
      'Special requests: ' || coalesce(NEW.special_requests, 'none'),
      '',
      'Open Requests in the admin panel to mark it contacted.',
      'Request ' || NEW.id);
  RETURN NULL;
END
$$;
CREATE TRIGGER bouquet_requests_notify AFTER INSERT ON public.bouquet_requests
  FOR EACH ROW EXECUTE FUNCTION public.notify_bouquet_request();

REVOKE ALL ON FUNCTION public.check_bouquet_request(), public.notify_bouquet_request() FROM PUBLIC;

ALTER TABLE public.bouquet_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Visitors send requests" ON public.bouquet_requests
  FOR INSERT TO anon, authenticated WITH CHECK (status = 'new' AND read_at IS NULL);
CREATE POLICY "Admins read requests" ON public.bouquet_requests
  FOR SELECT TO authenticated USING (public.is_admin());
CREATE POLICY "Admins handle requests" ON public.bouquet_requests
  FOR UPDATE TO authenticated USING (public.is_admin()) WITH CHECK (public.is_admin());
CREATE POLICY "Admins delete requests" ON public.bouquet_requests
  FOR DELETE TO authenticated USING (public.is_admin());

-- Visitors may only insert the form's fields; admins change status and read_at.
REVOKE ALL ON public.bouquet_requests FROM anon, authenticated;
GRANT INSERT (size, colors, design_style, occasion, named_arrangement, special_requests,
  customer_name, customer_phone, customer_email, website) ON public.bouquet_requests TO anon, authenticated;
GRANT SELECT, DELETE, UPDATE (status, read_at) ON public.bouquet_requests TO authenticated;
GRANT ALL ON public.bouquet_requests TO service_role;

-- The admin inbox updates live.
ALTER PUBLICATION supabase_realtime ADD TABLE public.bouquet_requests;
