-- The shop's week: for each weekday whether it opens, and from when to when, in the shop's time
-- zone. The request form, the contact page and the footer show it; the database refuses a
-- pick-up or delivery on a weekday the shop is closed, as it refuses closed days (holidays) and
-- same-day orders after the cut-off. An admin's create sent again after its answer was lost
-- (an outage) saves the product it already made, not a second one.

-- ISO weekdays: 1 Monday … 7 Sunday. A closed weekday has neither time.
CREATE TABLE public.shop_hours (
  weekday smallint PRIMARY KEY CHECK (weekday BETWEEN 1 AND 7),
  opens time,
  closes time,
  CONSTRAINT shop_hours_both_or_neither CHECK ((opens IS NULL) = (closes IS NULL)),
  CONSTRAINT shop_hours_closes_after_opening CHECK (opens < closes)
);
INSERT INTO public.shop_hours (weekday, opens, closes) VALUES
  (1, '09:00', '18:00'), (2, '09:00', '18:00'), (3, '09:00', '18:00'), (4, '09:00', '18:00'),
  (5, '09:00', '18:00'), (6, '10:00', '16:00'), (7, NULL, NULL);
ALTER TABLE public.shop_hours ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Everyone sees the shop's hours" ON public.shop_hours FOR SELECT USING (true);
CREATE POLICY "Admins set the hours" ON public.shop_hours FOR UPDATE TO authenticated
  USING (public.is_admin()) WITH CHECK (public.is_admin());
REVOKE ALL ON public.shop_hours FROM anon, authenticated;
GRANT SELECT ON public.shop_hours TO anon, authenticated;
GRANT UPDATE (opens, closes) ON public.shop_hours TO authenticated;
GRANT ALL ON public.shop_hours TO service_role;

-- The admin saves the whole week at once: seven rows or none.
CREATE FUNCTION public.save_shop_hours(week jsonb) RETURNS SETOF public.shop_hours
  LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  PERFORM public.require_admin();
  IF jsonb_typeof(week) IS DISTINCT FROM 'array' OR jsonb_array_length(week) <> 7
    OR (SELECT count(DISTINCT (d ->> 'weekday')) FROM jsonb_array_elements(week) d
        WHERE (d ->> 'weekday') IN ('1', '2', '3', '4', '5', '6', '7')) <> 7 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'The week needs each of the seven days once';
  END IF;
  RETURN QUERY
  UPDATE public.shop_hours h SET opens = (d ->> 'opens')::time, closes = (d ->> 'closes')::time
    FROM jsonb_array_elements(week) d
    WHERE h.weekday = (d ->> 'weekday')::smallint
    RETURNING h.*;
END
$$;
REVOKE ALL ON FUNCTION public.save_shop_hours(jsonb) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.save_shop_hours(jsonb) TO authenticated, service_role;

-- What the request form needs to know, now with the week.
CREATE OR REPLACE FUNCTION public.request_options() RETURNS jsonb
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT jsonb_build_object(
    'shop_name', s.shop_name,
    'shop_phone', s.shop_phone,
    'site_url', s.site_url,
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

-- The form's rules and messages (frontend/src/features/bouquet/schema.ts's dateProblem), now
-- also refusing a weekday the shop is closed.
CREATE OR REPLACE FUNCTION public.check_bouquet_fulfilment() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
DECLARE
  s public.shop_settings;
  local_now timestamp;
  closed text;
  open_that_day boolean;
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
  SELECT h.opens IS NOT NULL INTO open_that_day FROM public.shop_hours h
    WHERE h.weekday = extract(isodow FROM NEW.wanted_on);
  fail := CASE
    WHEN NEW.fulfilment IS NULL THEN 'Please choose delivery or pick-up'
    WHEN NEW.wanted_on IS NULL THEN 'Please choose a date'
    WHEN NEW.wanted_on < local_now::date THEN 'Please choose today or a later date'
    WHEN NEW.wanted_on > local_now::date + 365 THEN 'Please choose a date within the next year'
    WHEN NEW.wanted_on = local_now::date AND local_now::time >= s.same_day_cutoff
      THEN 'Same-day orders must be placed before ' || trim(to_char(s.same_day_cutoff, 'FMHH12:MI AM'))
        || '. Please choose a later date or call us.'
    WHEN closed IS NOT NULL THEN 'We are closed that day (' || closed || '). Please choose another date.'
    WHEN open_that_day IS NOT TRUE
      THEN 'We are closed on ' || to_char(NEW.wanted_on, 'FMDay') || 's. Please choose another date.'
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
REVOKE ALL ON FUNCTION public.check_bouquet_fulfilment() FROM PUBLIC;

-- A new product may bring its id (made once per form): a create sent again after its answer was
-- lost finds the product it made and saves onto it, so a retry never makes two products.
CREATE OR REPLACE FUNCTION public.save_product(product jsonb, category_ids uuid[], id uuid DEFAULT NULL)
  RETURNS public.products
  LANGUAGE plpgsql SET search_path = '' AS $$
DECLARE
  r public.products;
  saved public.products;
BEGIN
  IF jsonb_typeof(product) IS DISTINCT FROM 'object' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'product must be a JSON object';
  END IF;
  IF cardinality(category_ids) > 100 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'A product has at most 100 additional categories';
  END IF;
  r := jsonb_populate_record(NULL::public.products, product);
  IF save_product.id IS NULL THEN
    INSERT INTO public.products (id, name, sku, description, base_price, main_image_url, category_id,
                                 is_available, is_featured, ecwid_product_id, ecwid_product_slug)
    VALUES (coalesce(r.id, gen_random_uuid()), r.name, r.sku, r.description, coalesce(r.base_price, 0),
            r.main_image_url, r.category_id, coalesce(r.is_available, true), coalesce(r.is_featured, false),
            r.ecwid_product_id, r.ecwid_product_slug)
    ON CONFLICT ON CONSTRAINT products_pkey DO NOTHING
    RETURNING * INTO saved;
  END IF;
  IF saved.id IS NULL THEN
    UPDATE public.products p SET
      name = r.name, sku = r.sku, description = r.description, base_price = coalesce(r.base_price, 0),
      main_image_url = r.main_image_url, category_id = r.category_id,
      is_available = coalesce(r.is_available, true), is_featured = coalesce(r.is_featured, false),
      ecwid_product_id = r.ecwid_product_id, ecwid_product_slug = r.ecwid_product_slug
    WHERE p.id = coalesce(save_product.id, r.id)
    RETURNING * INTO saved;
    IF saved.id IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'PT404', MESSAGE = 'This product no longer exists';
    END IF;
  END IF;
  DELETE FROM public.product_categories l
    WHERE l.product_id = saved.id
      AND (l.category_id <> ALL (coalesce(category_ids, '{}')) OR l.category_id = saved.category_id);
  INSERT INTO public.product_categories (product_id, category_id)
    SELECT DISTINCT saved.id, c FROM unnest(coalesce(category_ids, '{}')) AS c
    WHERE c IS DISTINCT FROM saved.category_id
    ON CONFLICT DO NOTHING;
  RETURN saved;
END
$$;
