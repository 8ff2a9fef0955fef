-- The shop's row level security, as `supagate test db` (or `supabase test db`) runs it: who may
-- read and change the catalogue, the requests and the roles.
BEGIN;
CREATE EXTENSION "basejump-supabase_test_helpers";
SELECT plan(15);

SELECT tests.rls_enabled('public');

SELECT tests.create_supabase_user('owner', 'owner@test.local');
SELECT tests.create_supabase_user('visitor', 'visitor@test.local');
INSERT INTO public.user_roles (user_id, role) VALUES (tests.get_supabase_uid('owner'), 'admin');
INSERT INTO public.products (name, sku, base_price, is_available)
VALUES ('Hidden fern', 'hidden-fern-rls-test', 15, false);

-- A visitor (anon) sees only what is available, and no requests.
SELECT tests.clear_authentication();
SELECT is_empty($$ SELECT 1 FROM public.products WHERE sku = 'hidden-fern-rls-test' $$,
  'anon does not see an unavailable product');
SELECT isnt_empty($$ SELECT 1 FROM public.products WHERE is_available $$,
  'anon sees the available catalogue');
SELECT throws_ok($$ SELECT 1 FROM public.bouquet_requests $$, '42501', NULL, 'anon reads no requests');
SELECT lives_ok($$
  INSERT INTO public.bouquet_requests (size, colors, design_style, occasion, customer_name,
    customer_phone, customer_email, fulfilment, wanted_on)
  VALUES ('good', ARRAY['Pink'], 'modern', 'birthday', 'Ann', '801-555-0100', 'ann@test.local',
    'pickup', (SELECT d FROM generate_series(current_date + 2, current_date + 9, interval '1 day') d
               WHERE d::date NOT IN (SELECT day FROM public.shop_closures)
                 AND extract(isodow FROM d) IN (SELECT weekday FROM public.shop_hours WHERE opens IS NOT NULL) LIMIT 1))
$$, 'anon sends a request');
SELECT throws_ok($$
  INSERT INTO public.bouquet_requests (size, colors, design_style, occasion, customer_name,
    customer_phone, customer_email, fulfilment, wanted_on, status)
  VALUES ('good', ARRAY['Pink'], 'modern', 'birthday', 'Ann', '801-555-0100', 'ann@test.local',
    'pickup', current_date + 3, 'done')
$$, '42501', NULL, 'anon cannot set a request''s status');
SELECT throws_ok($$ SELECT public.grant_admin('visitor@test.local') $$, '42501', NULL,
  'anon cannot make an administrator');

-- A signed-in customer: still no requests, only their own roles, no catalogue changes.
SELECT tests.authenticate_as('visitor');
SELECT is_empty($$ SELECT 1 FROM public.bouquet_requests $$, 'a customer reads no requests');
SELECT is_empty($$ SELECT 1 FROM public.user_roles $$, 'a customer has no roles to see');
SELECT is(public.is_admin(), false, 'a customer is not an administrator');
SELECT results_eq($$ WITH u AS (UPDATE public.products SET base_price = 1 RETURNING 1) SELECT count(*) FROM u $$,
  $$ VALUES (0::bigint) $$, 'a customer changes no product');

-- The owner reads the requests and the hidden product, and handles requests.
SELECT tests.authenticate_as('owner');
SELECT is(public.is_admin(), true, 'the owner is an administrator');
SELECT isnt_empty($$ SELECT 1 FROM public.bouquet_requests WHERE customer_email = 'ann@test.local' $$,
  'the owner reads the request');
SELECT isnt_empty($$ SELECT 1 FROM public.products WHERE sku = 'hidden-fern-rls-test' $$,
  'the owner sees an unavailable product');
SELECT results_eq($$ WITH u AS (UPDATE public.bouquet_requests SET status = 'done' RETURNING 1) SELECT count(*) FROM u $$,
  $$ VALUES (1::bigint) $$, 'the owner marks a request done');

SELECT * FROM finish();
ROLLBACK;
