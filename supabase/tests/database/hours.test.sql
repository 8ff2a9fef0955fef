-- The shop's week, as `supagate test db` (or `supabase test db`) runs it: the database refuses a
-- pick-up or delivery on a weekday the shop is closed, on a closed day and same-day after the
-- cut-off, with the request form's messages; only admins change the hours.
BEGIN;
CREATE EXTENSION "basejump-supabase_test_helpers";
SELECT plan(12);

SELECT tests.create_supabase_user('owner', 'owner@test.local');
SELECT tests.create_supabase_user('visitor', 'visitor@test.local');
INSERT INTO public.user_roles (user_id, role) VALUES (tests.get_supabase_uid('owner'), 'admin');

-- Days ahead in the shop's time zone: the next Sunday, and the next Monday that is not a holiday.
CREATE TEMP TABLE days ON COMMIT DROP AS
  SELECT (SELECT d::date FROM generate_series(t + 1, t + 7, interval '1 day') d WHERE extract(isodow FROM d) = 7) AS sunday,
         (SELECT d::date FROM generate_series(t + 1, t + 21, interval '1 day') d
          WHERE extract(isodow FROM d) = 1 AND d::date NOT IN (SELECT day FROM public.shop_closures) LIMIT 1) AS monday,
         t AS today
  FROM (SELECT (now() AT TIME ZONE time_zone)::date AS t FROM public.shop_settings) s;
GRANT SELECT ON days TO anon, authenticated;

CREATE FUNCTION pg_temp.pickup_on(day date) RETURNS text LANGUAGE sql AS $$
  SELECT format($f$INSERT INTO public.bouquet_requests (size, colors, design_style, occasion,
    customer_name, customer_phone, customer_email, fulfilment, wanted_on)
    VALUES ('good', ARRAY['Pink'], 'modern', 'birthday', 'Ann', '801-555-0100', 'ann@test.local',
    'pickup', %L)$f$, day)
$$;

SELECT results_eq($$ SELECT weekday::int, opens IS NOT NULL FROM public.shop_hours ORDER BY weekday $$,
  $$ VALUES (1, true), (2, true), (3, true), (4, true), (5, true), (6, true), (7, false) $$,
  'the shop opens Monday to Saturday and is closed on Sundays');

SELECT tests.clear_authentication();
SELECT throws_ok(pg_temp.pickup_on((SELECT sunday FROM days)), '23514',
  'We are closed on Sundays. Please choose another date.', 'a Sunday pick-up is refused in the form''s words');
SELECT lives_ok(pg_temp.pickup_on((SELECT monday FROM days)), 'a Monday pick-up is taken');
SELECT is((public.request_options() -> 'hours' -> 6), '{"weekday": 7, "opens": null, "closes": null}'::jsonb,
  'everyone reads the week with the request options');
SELECT is((public.request_options() -> 'hours' -> 0), '{"weekday": 1, "opens": "09:00", "closes": "18:00"}'::jsonb,
  'Monday''s hours are "HH:MM"');
SELECT throws_ok($$ UPDATE public.shop_hours SET opens = NULL, closes = NULL WHERE weekday = 1 $$, '42501', NULL,
  'a visitor cannot change the hours');

SELECT tests.authenticate_as('visitor');
SELECT results_eq($$ WITH u AS (UPDATE public.shop_hours SET opens = NULL, closes = NULL RETURNING 1) SELECT count(*) FROM u $$,
  $$ VALUES (0::bigint) $$, 'a customer changes no hours');

-- The owner closes on Mondays and opens on Sundays: the rules follow.
SELECT tests.authenticate_as('owner');
SELECT lives_ok($$ SELECT public.save_shop_hours('[
  {"weekday": 1, "opens": null, "closes": null}, {"weekday": 2, "opens": "09:00", "closes": "18:00"},
  {"weekday": 3, "opens": "09:00", "closes": "18:00"}, {"weekday": 4, "opens": "09:00", "closes": "18:00"},
  {"weekday": 5, "opens": "09:00", "closes": "18:00"}, {"weekday": 6, "opens": "10:00", "closes": "16:00"},
  {"weekday": 7, "opens": "11:00", "closes": "15:00"}]') $$, 'the owner saves a week');
SELECT throws_ok($$ SELECT public.save_shop_hours('[{"weekday": 1, "opens": "10:00", "closes": "09:00"}]') $$,
  '22023', 'The week needs each of the seven days once', 'a week of one day is refused');
SELECT tests.clear_authentication();
SELECT throws_ok(pg_temp.pickup_on((SELECT monday FROM days)), '23514',
  'We are closed on Mondays. Please choose another date.', 'now Mondays are refused');
SELECT lives_ok(pg_temp.pickup_on((SELECT sunday FROM days)), 'and Sundays taken');

-- Same-day after the cut-off is refused whatever the day (Sunday and Monday aside, every day opens).
SELECT tests.authenticate_as('owner');
UPDATE public.shop_settings SET same_day_cutoff = '00:00';
SELECT tests.clear_authentication();
SELECT throws_ok(pg_temp.pickup_on((SELECT today FROM days)), '23514',
  'Same-day orders must be placed before 12:00 AM. Please choose a later date or call us.',
  'a same-day order after the cut-off is refused');

SELECT * FROM finish();
ROLLBACK;
