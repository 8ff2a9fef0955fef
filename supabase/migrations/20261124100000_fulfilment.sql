-- Requests a florist can fulfil: delivery or pick-up, the day (never past, same-day only before
-- the shop's cut-off in its own time zone, never on a day the shop is closed), the recipient and
-- the address for a delivery, a card message, and the size's price at the time. Each request has
-- a reference the customer keeps; admins keep notes on it. The shop's mail names the shop as its
-- sender, replies go to the customer, and the customer gets a confirmation.

-- The shop's own settings, beside where requests are mailed.
ALTER TABLE public.shop_settings
  ADD COLUMN shop_name text NOT NULL DEFAULT 'Bluebell & Sage Flowers'
    CHECK (char_length(shop_name) BETWEEN 1 AND 100 AND shop_name !~ '[[:cntrl:]<>"]'),
  ADD COLUMN shop_email text
    CHECK (shop_email ~ '^[^@\s<>,;"]+@[^@\s<>,;"]+\.[^@\s<>,;"]+$' AND char_length(shop_email) <= 254),
  ADD COLUMN shop_phone text NOT NULL DEFAULT '(435) 555-0148' CHECK (char_length(shop_phone) BETWEEN 1 AND 50),
  -- Where the admin panel is, for the link in the shop's mail (no link without it).
  ADD COLUMN site_url text CHECK (site_url ~ '^https?://[^\s"<>]+$' AND char_length(site_url) <= 200),
  ADD COLUMN time_zone text NOT NULL DEFAULT 'America/Denver',
  ADD COLUMN same_day_cutoff time NOT NULL DEFAULT '14:00',
  ADD COLUMN size_prices jsonb NOT NULL DEFAULT '{"good": 45, "better": 65, "best": 95}'
    CHECK (jsonb_typeof(size_prices -> 'good') = 'number' AND jsonb_typeof(size_prices -> 'better') = 'number'
      AND jsonb_typeof(size_prices -> 'best') = 'number');
GRANT UPDATE (shop_name, shop_email, shop_phone, site_url, same_day_cutoff, size_prices)
  ON public.shop_settings TO authenticated;

-- Days the shop takes no orders for (holidays), with what visitors are told.
CREATE TABLE public.shop_closures (
  day date PRIMARY KEY,
  note text NOT NULL CHECK (char_length(note) BETWEEN 1 AND 100)
);
ALTER TABLE public.shop_closures ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Everyone sees when the shop is closed" ON public.shop_closures FOR SELECT USING (true);
CREATE POLICY "Admins set closures" ON public.shop_closures FOR ALL TO authenticated
  USING (public.is_admin()) WITH CHECK (public.is_admin());
REVOKE ALL ON public.shop_closures FROM anon, authenticated;
GRANT SELECT ON public.shop_closures TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON public.shop_closures TO authenticated;
GRANT ALL ON public.shop_closures TO service_role;

-- What the request form needs to know, for everyone: prices, the cut-off, the time zone, today in
-- it, and the closed days ahead; and the website's address (the sitemap names it).
CREATE FUNCTION public.request_options() RETURNS jsonb
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT jsonb_build_object(
    'shop_name', s.shop_name,
    'shop_phone', s.shop_phone,
    'site_url', s.site_url,
    'time_zone', s.time_zone,
    'today', (now() AT TIME ZONE s.time_zone)::date,
    'same_day_cutoff', to_char(s.same_day_cutoff, 'HH24:MI'),
    'size_prices', s.size_prices,
    'closed', coalesce((SELECT jsonb_agg(jsonb_build_object('day', c.day, 'note', c.note) ORDER BY c.day)
                        FROM public.shop_closures c
                        WHERE c.day >= (now() AT TIME ZONE s.time_zone)::date), '[]'))
  FROM public.shop_settings s
$$;
GRANT EXECUTE ON FUNCTION public.request_options() TO anon, authenticated;

ALTER TABLE public.bouquet_requests
  ADD COLUMN fulfilment text CHECK (fulfilment IN ('delivery', 'pickup')),
  ADD COLUMN wanted_on date,
  ADD COLUMN recipient_name text CHECK (char_length(recipient_name) <= 200),
  ADD COLUMN recipient_phone text CHECK (char_length(recipient_phone) <= 50),
  ADD COLUMN delivery_address text CHECK (char_length(delivery_address) <= 500),
  ADD COLUMN card_message text CHECK (char_length(card_message) <= 250),
  -- The size's price when the request came in (the shop's prices may change later).
  ADD COLUMN size_price numeric(8, 2),
  ADD COLUMN notes text CHECK (char_length(notes) <= 4000),
  -- What the customer quotes on the phone: the first eight hex digits of the id.
  ADD COLUMN reference text GENERATED ALWAYS AS (upper(left(replace(id::text, '-', ''), 8))) STORED;
CREATE INDEX bouquet_requests_wanted_idx ON public.bouquet_requests (wanted_on);
CREATE INDEX bouquet_requests_reference_idx ON public.bouquet_requests (reference);

-- Visitors also send these (and the id, so that sending again after a lost answer is the same
-- request); admins keep notes.
GRANT INSERT (id, fulfilment, wanted_on, recipient_name, recipient_phone, delivery_address, card_message)
  ON public.bouquet_requests TO anon, authenticated;
GRANT UPDATE (notes) ON public.bouquet_requests TO authenticated;

-- The form's rules and messages, for every client (frontend/src/features/bouquet/schema.ts).
CREATE OR REPLACE FUNCTION public.check_bouquet_fulfilment() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  s public.shop_settings;
  local_now timestamp;
  closed text;
  fail text;
BEGIN
  SELECT * INTO s FROM public.shop_settings;
  local_now := now() AT TIME ZONE s.time_zone;
  NEW.recipient_name := nullif(btrim(NEW.recipient_name), '');
  NEW.recipient_phone := nullif(btrim(NEW.recipient_phone), '');
  NEW.delivery_address := nullif(btrim(NEW.delivery_address), '');
  NEW.card_message := nullif(btrim(NEW.card_message), '');
  IF NEW.fulfilment = 'pickup' THEN
    NEW.recipient_name := NULL;
    NEW.recipient_phone := NULL;
    NEW.delivery_address := NULL;
  END IF;
  SELECT note INTO closed FROM public.shop_closures WHERE day = NEW.wanted_on;
  fail := CASE
    WHEN NEW.fulfilment IS NULL THEN 'Please choose delivery or pick-up'
    WHEN NEW.wanted_on IS NULL THEN 'Please choose a date'
    WHEN NEW.wanted_on < local_now::date THEN 'Please choose today or a later date'
    WHEN NEW.wanted_on > local_now::date + 365 THEN 'Please choose a date within the next year'
    WHEN NEW.wanted_on = local_now::date AND local_now::time >= s.same_day_cutoff
      THEN 'Same-day orders must be placed before ' || trim(to_char(s.same_day_cutoff, 'FMHH12:MI AM'))
        || '. Please choose a later date or call us.'
    WHEN closed IS NOT NULL THEN 'We are closed that day (' || closed || '). Please choose another date.'
    WHEN NEW.fulfilment = 'delivery' AND NEW.recipient_name IS NULL THEN 'Recipient name is required'
    WHEN char_length(NEW.recipient_name) > 200 OR NEW.recipient_name ~ '[[:cntrl:]]'
      THEN 'Recipient name must be at most 200 characters'
    WHEN char_length(NEW.recipient_phone) > 50 OR NEW.recipient_phone ~ '[[:cntrl:]]'
      THEN 'Recipient phone must be at most 50 characters'
    WHEN NEW.fulfilment = 'delivery' AND NEW.delivery_address IS NULL THEN 'Delivery address is required'
    WHEN char_length(NEW.delivery_address) > 500 THEN 'Delivery address must be at most 500 characters'
    WHEN char_length(NEW.card_message) > 250 THEN 'Card message must be at most 250 characters'
  END;
  IF fail IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = fail;
  END IF;
  NEW.size_price := (s.size_prices ->> NEW.size)::numeric;
  NEW.notes := NULL;
  RETURN NEW;
END
$$;
-- Runs after the first check (trigger names order them).
CREATE TRIGGER bouquet_requests_check_fulfilment BEFORE INSERT ON public.bouquet_requests
  FOR EACH ROW EXECUTE FUNCTION public.check_bouquet_fulfilment();

-- The shop's mail and the customer's confirmation, from the shop, with readable labels.
CREATE OR REPLACE FUNCTION public.notify_bouquet_request() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  s public.shop_settings;
  sizes constant jsonb := '{"good": "Good (classic)", "better": "Better (premium)", "best": "Best (luxury)"}';
  occasions constant jsonb := '{"seasonal": "Seasonal", "best-sellers": "Best Sellers", "everyday": "Everyday",
    "birthday": "Birthday", "get-well": "Get Well", "baby": "Baby", "love-romance": "Love & Romance",
    "designers-choice": "Designer''s Choice", "plants": "Plants", "dance-flowers": "Dance Flowers",
    "sympathy": "Sympathy", "service": "Service", "home": "Home"}';
  summary text;
  link text;
BEGIN
  SELECT * INTO s FROM public.shop_settings;
  IF to_regprocedure('supagate.send_mail(text, text, text, text, text, text)') IS NULL THEN
    RETURN NULL;
  END IF;
  summary := concat_ws(E'\n',
    'Reference: ' || NEW.reference,
    CASE NEW.fulfilment WHEN 'delivery' THEN 'Delivery on ' ELSE 'Pick-up on ' END
      || trim(to_char(NEW.wanted_on, 'FMDay, FMMonth FMDD, YYYY')),
    CASE WHEN NEW.fulfilment = 'delivery' THEN concat_ws(E'\n',
      'Recipient: ' || NEW.recipient_name || coalesce(', ' || NEW.recipient_phone, ''),
      'Address: ' || NEW.delivery_address) END,
    'Card message: ' || coalesce(NEW.card_message, 'none'),
    '',
    'Size: ' || (sizes ->> NEW.size) || coalesce(' – $' || to_char(NEW.size_price, 'FM999990.00'), ''),
    'Colors: ' || array_to_string(NEW.colors, ', '),
    'Design style: ' || initcap(NEW.design_style),
    'Occasion: ' || coalesce(occasions ->> NEW.occasion, NEW.occasion),
    'Named arrangement: ' || coalesce('The ' || NEW.named_arrangement, 'no preference'),
    'Special requests: ' || coalesce(NEW.special_requests, 'none'));
  IF s.notify_email IS NOT NULL THEN
    link := CASE WHEN s.site_url IS NOT NULL
      THEN rtrim(s.site_url, '/') || '/admin/requests/' || NEW.id END;
    PERFORM supagate.send_mail(s.notify_email,
      'Bouquet request ' || NEW.reference || ' from ' || left(NEW.customer_name, 80),
      concat_ws(E'\n',
        'A bouquet request came in through the website. We promise a call within 24 hours.',
        '',
        'Name: ' || NEW.customer_name,
        'Phone: ' || NEW.customer_phone,
        'E-mail: ' || NEW.customer_email,
        '',
        summary,
        '',
        coalesce('Open it in the admin panel: ' || link, 'Open Requests in the admin panel to mark it contacted.')),
      s.shop_name, s.shop_email, NEW.customer_email);
  END IF;
  PERFORM supagate.send_mail(NEW.customer_email,
    'Your bouquet request ' || NEW.reference || ' at ' || s.shop_name,
    concat_ws(E'\n',
      'Hello ' || NEW.customer_name || ',',
      '',
      'Thank you for your bouquet request. We will call you on ' || NEW.customer_phone
        || ' within 24 hours to confirm the details and the price.',
      '',
      summary,
      '',
      'Questions? Reply to this e-mail or call us on ' || s.shop_phone || '.',
      s.shop_name),
    s.shop_name, s.shop_email, coalesce(s.shop_email, s.notify_email));
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION public.check_bouquet_fulfilment(), public.notify_bouquet_request() FROM PUBLIC;

-- A sixth request an hour from one address may come from a shared network (an office, a
-- school): the message does not blame the visitor, and gives the shop's number.
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
        MESSAGE = 'We have received several requests from your network in the last hour. To be sure yours reaches us, please call us on ' || coalesce((SELECT shop_phone FROM public.shop_settings), 'the shop''s number') || '.';
    END IF;
  END IF;
  RETURN NEW;
END
$$;

-- The staff page's hint speaks to the shop's people, not to developers.
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
            HINT = 'Ask them to create an account on the Admin Login page first, then add them here.';
  END IF;
  INSERT INTO public.user_roles (user_id, role) VALUES (uid, 'admin') ON CONFLICT DO NOTHING;
  RETURN uid;
END
$$;
