-- App mail names its sender and a Reply-To: `supagate.send_mail(recipient, subject, body,
-- from_name, from_address, reply_to)` (any of the three may be NULL: the configured sender, no
-- Reply-To). The three-argument form stays as it was. Caught mail keeps its Reply-To.
ALTER TABLE supagate.outbox
  ADD COLUMN from_name text CHECK (char_length(from_name) <= 200 AND from_name !~ '[\r\n<>"]'),
  ADD COLUMN from_address text CHECK (char_length(from_address) <= 320 AND from_address ~ '^[^@\s<>,;"]+@[^@\s<>,;"]+$'),
  ADD COLUMN reply_to text CHECK (char_length(reply_to) <= 320 AND reply_to ~ '^[^@\s<>,;"]+@[^@\s<>,;"]+$');
ALTER TABLE supagate.mail ADD COLUMN reply_to text;

CREATE FUNCTION supagate.send_mail(recipient text, subject text, body text, from_name text,
    from_address text, reply_to text) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
BEGIN
  INSERT INTO supagate.outbox (recipient, subject, body, from_name, from_address, reply_to)
    VALUES (recipient, subject, body, nullif(btrim(from_name), ''), nullif(btrim(from_address), ''),
            nullif(btrim(reply_to), ''));
  PERFORM pg_notify('supagate_outbox', '');
END
$$;
REVOKE ALL ON FUNCTION supagate.send_mail(text, text, text, text, text, text) FROM PUBLIC;
