-- Writes that cannot half-happen: each is one function, so one transaction. They run as the
-- caller (SECURITY INVOKER): RLS lets only admins change the catalogue.

-- A product and its additional categories, created (id NULL) or updated together.
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
    INSERT INTO public.products (name, sku, description, base_price, main_image_url, category_id,
                                 is_available, is_featured, ecwid_product_id, ecwid_product_slug)
    VALUES (r.name, r.sku, r.description, coalesce(r.base_price, 0), r.main_image_url, r.category_id,
            coalesce(r.is_available, true), coalesce(r.is_featured, false), r.ecwid_product_id,
            r.ecwid_product_slug)
    RETURNING * INTO saved;
  ELSE
    UPDATE public.products p SET
      name = r.name, sku = r.sku, description = r.description, base_price = coalesce(r.base_price, 0),
      main_image_url = r.main_image_url, category_id = r.category_id,
      is_available = coalesce(r.is_available, true), is_featured = coalesce(r.is_featured, false),
      ecwid_product_id = r.ecwid_product_id, ecwid_product_slug = r.ecwid_product_slug
    WHERE p.id = save_product.id
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

-- The CSV import (frontend/src/features/import): each row's store id saved on the product with
-- that SKU, and a result per row. Rows of unknown SKUs are reported, not applied; a store id
-- longer than 100 characters is an error for that row.
CREATE OR REPLACE FUNCTION public.apply_import(rows jsonb)
  RETURNS TABLE (sku text, name text, status text, message text, product_internal_id text)
  LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
  PERFORM public.require_admin();
  IF jsonb_typeof(rows) IS DISTINCT FROM 'array' THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'rows must be a JSON array';
  END IF;
  IF jsonb_array_length(rows) > 5000 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'An import holds at most 5000 rows';
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT t.ord, btrim(t.r ->> 'sku') AS sku, btrim(coalesce(t.r ->> 'name', '')) AS name,
           btrim(t.r ->> 'product_internal_id') AS pid
    FROM jsonb_array_elements(rows) WITH ORDINALITY AS t(r, ord)
  ), matched AS (
    SELECT i.*, p.id, p.name AS product_name,
           CASE WHEN p.id IS NULL THEN 'not_found'
                WHEN coalesce(i.pid, '') = '' OR char_length(i.pid) > 100 THEN 'error'
                ELSE 'success' END AS outcome
    FROM input i LEFT JOIN public.products p ON p.sku = i.sku
  ), updated AS (
    -- A SKU listed twice gets its last store id.
    UPDATE public.products p SET ecwid_product_id = last.pid
    FROM (SELECT DISTINCT ON (m.id) m.id, m.pid FROM matched m WHERE m.outcome = 'success'
          ORDER BY m.id, m.ord DESC) AS last
    WHERE p.id = last.id
    RETURNING p.id
  )
  SELECT m.sku, coalesce(m.product_name, m.name), m.outcome,
         CASE m.outcome WHEN 'not_found' THEN 'Product not found in database'
                        WHEN 'error' THEN 'The store id must be 1 to 100 characters'
                        ELSE 'Updated' END,
         m.pid
  FROM matched m
  WHERE m.outcome <> 'success' OR m.id IN (SELECT u.id FROM updated u)
  ORDER BY m.ord;
END
$$;

-- The dashboard's numbers, counted in the database.
CREATE OR REPLACE FUNCTION public.dashboard_counts() RETURNS jsonb
  LANGUAGE sql STABLE SET search_path = '' AS $$
  SELECT jsonb_build_object(
    'total', (SELECT count(*) FROM public.products),
    'available', (SELECT count(*) FROM public.products WHERE is_available),
    'unavailable', (SELECT count(*) FROM public.products WHERE NOT is_available),
    'categories', (SELECT count(*) FROM public.categories),
    'new_requests', (SELECT count(*) FROM public.bouquet_requests WHERE status = 'new'),
    'unread_requests', (SELECT count(*) FROM public.bouquet_requests WHERE read_at IS NULL))
$$;

-- Images are stored as object names in their bucket, not as URLs of one API address.
UPDATE public.products
  SET main_image_url = regexp_replace(main_image_url, '^https?://[^/]+/storage/v1/object/public/product-images/', '')
  WHERE main_image_url ~ '^https?://[^/]+/storage/v1/object/public/product-images/';
UPDATE public.categories
  SET image_url = regexp_replace(image_url, '^https?://[^/]+/storage/v1/object/public/category-images/', '')
  WHERE image_url ~ '^https?://[^/]+/storage/v1/object/public/category-images/';

-- Uploaded images no product or category uses (a replaced image whose removal failed, an upload
-- whose form was never saved), an hour after upload: the admin panel removes them through the
-- Storage API.
CREATE OR REPLACE FUNCTION public.unused_images()
  RETURNS TABLE (bucket_id text, name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT o.bucket_id, o.name FROM storage.objects o
  WHERE public.is_admin()
    AND o.created_at < now() - interval '1 hour'
    AND ((o.bucket_id = 'product-images'
          AND NOT EXISTS (SELECT 1 FROM public.products p WHERE p.main_image_url = o.name))
      OR (o.bucket_id = 'category-images'
          AND NOT EXISTS (SELECT 1 FROM public.categories c WHERE c.image_url = o.name)))
  ORDER BY o.created_at
  LIMIT 100
$$;

ALTER TABLE public.products ADD CONSTRAINT products_ecwid_product_id_length
  CHECK (char_length(ecwid_product_id) <= 100);

REVOKE ALL ON FUNCTION public.save_product(jsonb, uuid[], uuid), public.apply_import(jsonb),
  public.dashboard_counts(), public.unused_images() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.save_product(jsonb, uuid[], uuid), public.apply_import(jsonb),
  public.dashboard_counts(), public.unused_images() TO authenticated, service_role;
