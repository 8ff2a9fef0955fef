-- The site's address comes from configuration, not the seed: the address the owner sets in
-- Settings (the shop's own domain) when there is one, else the one the server hands every
-- session (`supagate.site_url`: the gateway's external URL when it serves the site, else
-- config.toml's [auth] site_url), so a shop started on another port links to that port. The
-- shop's mail links to the request and the sitemap names the site with it.
CREATE FUNCTION public.site_address() RETURNS text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT coalesce(
    (SELECT s.site_url FROM public.shop_settings s),
    CASE WHEN current_setting('supagate.site_url', true) ~ '^https?://[^\s"<>]+$'
      AND char_length(current_setting('supagate.site_url', true)) <= 200
      THEN current_setting('supagate.site_url', true) END)
$$;
REVOKE ALL ON FUNCTION public.site_address() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.site_address() TO anon, authenticated, service_role;

-- The link in the shop's mail, to the configured address when Settings names none.
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
    link := rtrim(public.site_address(), '/') || '/admin/requests/' || NEW.id;
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
REVOKE ALL ON FUNCTION public.notify_bouquet_request() FROM PUBLIC;

-- What the request form and the sitemap read, with the same address.
CREATE OR REPLACE FUNCTION public.request_options() RETURNS jsonb
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT jsonb_build_object(
    'shop_name', s.shop_name,
    'shop_phone', s.shop_phone,
    'site_url', public.site_address(),
    'time_zone', s.time_zone,
    'today', (now() AT TIME ZONE s.time_zone)::date,
    'same_day_cutoff', to_char(s.same_day_cutoff, 'HH24:MI'),
    'size_prices', s.size_prices,
    'hours', (SELECT jsonb_agg(jsonb_build_object('weekday', h.weekday, 'opens', to_char(h.opens, 'HH24:MI'),
                                                  'closes', to_char(h.closes, 'HH24:MI')) ORDER BY h.weekday)
              FROM public.shop_hours h),
    'closed', coalesce((SELECT jsonb_agg(jsonb_build_object('day', c.day, 'note', c.note) ORDER BY c.day)
                        FROM public.shop_closures c
                        WHERE c.day >= (now() AT TIME ZONE s.time_zone)::date), '[]'))
  FROM public.shop_settings s
$$;
