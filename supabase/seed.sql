-- Demo data of the shop for local use (applied to a new database and by `supagate db reset`):
-- the occasion categories of SPEC.md §2, two dozen products (each with its own drawing, from
-- frontend/scripts/demo-art.mjs), and a demo administrator.
INSERT INTO public.categories (name, slug, description, order_by, image_url) VALUES
  ('Seasonal', 'seasonal', 'Blooms picked for what is fresh this season.', 0, '/demo/bouquet-coral.svg'),
  ('Best Sellers', 'best-sellers', 'The arrangements our neighbours order again and again.', 1, '/demo/bouquet-blush.svg'),
  ('Everyday / Any Occasion', 'everyday', 'A little colour for any day of the week.', 2, '/demo/bouquet-sunny.svg'),
  ('Love & Romance', 'love-romance', 'Roses and soft tones for the ones you love.', 3, '/demo/bouquet-red.svg'),
  ('Plants', 'plants', 'Green friends that stay for years.', 4, '/demo/plant-fern.svg'),
  ('Dance Flowers', 'dance-flowers', 'Corsages and boutonnieres for prom and homecoming.', 5, '/demo/bouquet-violet.svg'),
  ('Sympathy', 'sympathy', 'Quiet, respectful tributes.', 6, '/demo/bouquet-white.svg'),
  ('Memorial', 'memorial', 'Standing sprays and wreaths for services.', 7, '/demo/bouquet-white.svg');

WITH p(name, sku, description, price, image, category, available, featured, ecwid_id, ecwid_slug) AS (VALUES
  ('Autumn Harvest Bouquet', 'SEA-001', 'Rust mums, orange roses and wheat stems in a rustic wrap.', 64.00, '/demo/products/autumn-harvest-bouquet.svg', 'seasonal', true, true, '700000101', 'autumn-harvest-bouquet'),
  ('Winter Berry Centerpiece', 'SEA-002', 'White roses, cedar, pine cones and red winterberry in a low bowl.', 78.00, '/demo/products/winter-berry-centerpiece.svg', 'seasonal', true, false, '700000102', 'winter-berry-centerpiece'),
  ('Spring Tulip Jar', 'SEA-003', 'A mason jar of mixed tulips tied with twine.', 42.00, '/demo/products/spring-tulip-jar.svg', 'seasonal', true, false, NULL, NULL),
  ('Summer Sunflower Bundle', 'SEA-004', 'Bright sunflowers with solidago and eucalyptus.', 48.00, '/demo/products/summer-sunflower-bundle.svg', 'seasonal', false, false, '700000104', 'summer-sunflower-bundle'),
  ('Pastel Dream', 'BST-001', 'Blush roses, lisianthus and wax flower in a glass vase.', 72.00, '/demo/products/pastel-dream.svg', 'best-sellers', true, true, '700000201', 'pastel-dream'),
  ('Classic Dozen Roses', 'BST-002', 'Twelve long-stem red roses with greenery, hand-tied.', 89.00, '/demo/products/classic-dozen-roses.svg', 'best-sellers', true, true, '700000202', 'classic-dozen-roses'),
  ('Garden Party', 'BST-003', 'A loose, garden-style mix of the freshest blooms of the week.', 68.00, '/demo/products/garden-party.svg', 'best-sellers', true, false, '700000203', NULL),
  ('Utah Wildflower Mix', 'BST-004', 'Daisies, statice and alstroemeria inspired by mountain meadows.', 55.00, '/demo/products/utah-wildflower-mix.svg', 'best-sellers', true, false, NULL, NULL),
  ('Sunshine Daisies', 'EVD-001', 'Gerbera daisies in yellow and orange to brighten any room.', 39.00, '/demo/products/sunshine-daisies.svg', 'everyday', true, false, '700000301', 'sunshine-daisies'),
  ('Just Because', 'EVD-002', 'A cheerful mixed bouquet, no reason needed.', 45.00, '/demo/products/just-because.svg', 'everyday', true, false, '700000302', 'just-because'),
  ('Get Well Soon Basket', 'EVD-003', 'Bright blooms in a woven basket with a balloon.', 58.00, '/demo/products/get-well-soon-basket.svg', 'everyday', true, false, '700000303', NULL),
  ('Thank You Posy', 'EVD-004', 'A small hand-tied posy of seasonal stems.', 29.00, '/demo/products/thank-you-posy.svg', 'everyday', true, false, NULL, NULL),
  ('Birthday Brights', 'EVD-005', 'Hot pink, orange and purple blooms with a birthday pick.', 52.00, '/demo/products/birthday-brights.svg', 'everyday', false, false, '700000305', NULL),
  ('Fiddle Leaf Fig', 'PLT-001', 'A tall fiddle leaf fig in a ceramic pot, about three feet.', 85.00, '/demo/products/fiddle-leaf-fig.svg', 'plants', true, false, '700000401', 'fiddle-leaf-fig'),
  ('Peace Lily', 'PLT-002', 'An easy-care peace lily with white blooms.', 42.00, '/demo/products/peace-lily.svg', 'plants', true, false, '700000402', 'peace-lily'),
  ('Succulent Garden', 'PLT-003', 'Five succulents arranged in a shallow stoneware dish.', 36.00, '/demo/products/succulent-garden.svg', 'plants', true, true, '700000403', NULL),
  ('Orchid Elegance', 'PLT-004', 'A double-stem white phalaenopsis orchid.', 64.00, '/demo/products/orchid-elegance.svg', 'plants', true, false, NULL, NULL),
  ('Red Rose Romance', 'LOV-001', 'Two dozen red roses in a tall vase.', 149.00, '/demo/products/red-rose-romance.svg', 'love-romance', true, true, '700000501', 'red-rose-romance'),
  ('Blushing Heart', 'LOV-002', 'Pink roses and carnations in a heart-shaped box.', 79.00, '/demo/products/blushing-heart.svg', 'love-romance', true, false, '700000502', NULL),
  ('Prom Wrist Corsage', 'DNC-001', 'A spray-rose wrist corsage in the colour of your choice.', 32.00, '/demo/products/prom-wrist-corsage.svg', 'dance-flowers', true, false, '700000601', NULL),
  ('Classic Boutonniere', 'DNC-002', 'A single rose boutonniere with ribbon-wrapped stem.', 18.00, '/demo/products/classic-boutonniere.svg', 'dance-flowers', true, false, NULL, NULL),
  ('Peaceful White Arrangement', 'SYM-001', 'White lilies, roses and stock in a low arrangement.', 95.00, '/demo/products/peaceful-white-arrangement.svg', 'sympathy', true, false, '700000701', NULL),
  ('Standing Spray Tribute', 'SYM-002', 'A standing easel spray of white and green blooms.', 225.00, '/demo/products/standing-spray-tribute.svg', 'memorial', true, false, '700000702', NULL),
  ('Remembrance Wreath', 'SYM-003', 'A classic wreath of white roses and greenery.', 175.00, '/demo/products/remembrance-wreath.svg', 'memorial', false, false, NULL, NULL)
)
INSERT INTO public.products (name, sku, description, base_price, main_image_url, category_id,
                             is_available, is_featured, ecwid_product_id, ecwid_product_slug)
SELECT p.name, p.sku, p.description, p.price, p.image, c.id, p.available, p.featured, p.ecwid_id, p.ecwid_slug
FROM p JOIN public.categories c ON c.slug = p.category;

-- Extra categories: best sellers that also show under seasonal / everyday, and so on.
INSERT INTO public.product_categories (product_id, category_id)
SELECT pr.id, c.id
FROM (VALUES
  ('BST-001', 'everyday'), ('BST-001', 'love-romance'), ('BST-002', 'love-romance'),
  ('BST-003', 'seasonal'), ('SEA-001', 'best-sellers'), ('EVD-002', 'best-sellers'),
  ('PLT-003', 'everyday'), ('PLT-002', 'sympathy'), ('SEA-004', 'everyday'),
  ('LOV-001', 'best-sellers')
) AS l(sku, slug)
JOIN public.products pr ON pr.sku = l.sku
JOIN public.categories c ON c.slug = l.slug;

-- The demo administrator (admin@example.com / bloom-admin-123), created the way Supabase seeds
-- create users: a confirmed auth.users row with a bcrypt hash from pgcrypto (GoTrue's cost,
-- 10), and its identity.
INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                        raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
                        confirmation_token, recovery_token, email_change_token_new, email_change)
VALUES ('00000000-0000-0000-0000-000000000000', 'b1ebe11a-0000-4000-8000-000000000001',
        'authenticated', 'authenticated', 'admin@example.com',
        crypt('bloom-admin-123', gen_salt('bf', 10)), now(),
        '{"provider": "email", "providers": ["email"]}', '{}', now(), now(), '', '', '', '');

INSERT INTO auth.identities (id, user_id, provider_id, identity_data, provider, last_sign_in_at,
                             created_at, updated_at)
VALUES (gen_random_uuid(), 'b1ebe11a-0000-4000-8000-000000000001',
        'b1ebe11a-0000-4000-8000-000000000001',
        '{"sub": "b1ebe11a-0000-4000-8000-000000000001", "email": "admin@example.com", "email_verified": true}',
        'email', now(), now(), now());

INSERT INTO public.user_roles (user_id, role) VALUES ('b1ebe11a-0000-4000-8000-000000000001', 'admin');

-- New bouquet requests are mailed to the shop (the demo catches them: see the mail catcher).
UPDATE public.shop_settings SET notify_email = 'hello@bluebellandsage.com';

-- The shop's mail comes from its own name and address and links to the admin panel (at the
-- address the server is configured with: see public.site_address()); the shop is closed on
-- Christmas Day and New Year's Day.
UPDATE public.shop_settings SET shop_email = 'hello@bluebellandsage.com';
INSERT INTO public.shop_closures (day, note)
SELECT make_date(y, 12, 25), 'Christmas Day' FROM generate_series(extract(year FROM now())::int, extract(year FROM now())::int + 1) y
UNION ALL
SELECT make_date(y, 1, 1), 'New Year''s Day' FROM generate_series(extract(year FROM now())::int + 1, extract(year FROM now())::int + 2) y;
