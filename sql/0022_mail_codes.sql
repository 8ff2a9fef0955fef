-- The code and link an auth mail carries, kept with the caught mail so that tests can read the
-- codes sent (the workbench's /_supagate/v1/codes): the code is otherwise only kept hashed, and
-- a custom template may show neither.
ALTER TABLE supagate.mail ADD COLUMN token text, ADD COLUMN link text;
